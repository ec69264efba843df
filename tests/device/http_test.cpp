// The HTTP device protocol /v1: an in-process agent and the typestar-device binary on loopback,
// HttpDevice (batch and step-wise), sequence numbers, WebDriver-style errors, the bearer token,
// Origin and size limits, idle-session reaping, and the device factory.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "http_answers.hpp"
#include "http_support.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;
using namespace testing_support;
using namespace std::chrono_literals;

std::vector<std::string> answer(Device& d, const std::vector<std::string>& names) {
    return names_of(d.run(word_of(names, d.inputs())).outputs, d.outputs());
}

TEST(HttpDevice, StatusAndBatchRunsMatchTheInProcessDevice) {
    auto agent = start_agent("mediaplayer");
    HttpDevice remote(http_config(*agent));
    InProcessDevice local(sim::mediaplayer(fast_options()));
    EXPECT_EQ(remote.status().protocol, "typestar-device/1");
    EXPECT_EQ(remote.status().name, "MediaPlayer");
    EXPECT_EQ(remote.status().framework, "typestar-sim-1");
    EXPECT_EQ(remote.status().timing, fast_options().timing);
    EXPECT_EQ(remote.inputs(), local.inputs());
    EXPECT_EQ(remote.outputs(), local.outputs());
    EXPECT_EQ(remote.traits(), local.traits());
    EXPECT_EQ(remote.name(), agent->url());
    for (const auto& w : std::vector<std::vector<std::string>>{
             {"setDataSource", "prepareAsync", "wait", "start", "wait", "wait"},
             {"setDataSource", "prepareAsync", "start", "wait"},
             {"prepare"},
             {"setDataSource", "prepare", "start", "pause", "wait", "stop"}}) {
        const auto before = remote.requests();
        EXPECT_EQ(answer(remote, w), answer(local, w));
        EXPECT_EQ(remote.requests(), before + 1);  // one round trip per query
    }
    EXPECT_EQ(remote.retries(), 0u);
}

/// Sets (or, with nullptr, unsets) an environment variable for a scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value != nullptr)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_)
            ::setenv(name_, old_->c_str(), 1);
        else
            ::unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(HttpDevice, ALoopbackDeviceNeverGoesThroughAProxyFromTheEnvironment) {
    // The fake proxy: a listening socket of the test, never accepted from while the device runs.
    const int proxy = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(proxy, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    ASSERT_EQ(::bind(proxy, reinterpret_cast<sockaddr*>(&address), size), 0);
    ASSERT_EQ(::listen(proxy, 16), 0);
    ASSERT_EQ(::getsockname(proxy, reinterpret_cast<sockaddr*>(&address), &size), 0);
    const std::string proxy_url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
    auto agent = start_agent("mediaplayer");
    const std::string port = agent->url().substr(agent->url().rfind(':'));
    {
        const ScopedEnv http("http_proxy", proxy_url.c_str()), all("all_proxy", proxy_url.c_str()),
            all_upper("ALL_PROXY", proxy_url.c_str()), no("no_proxy", nullptr), no_upper("NO_PROXY", nullptr);
        for (const std::string& url :
             std::vector<std::string>{agent->url(), "http://localhost" + port, "http://127.0.0.1" + port + "/"}) {
            SCOPED_TRACE(url);
            HttpConfig config = http_config(*agent);
            config.url = url;
            config.retries = 0;  // through the proxy, the first attempt would time out
            config.request_timeout = 1000ms;
            try {
                HttpDevice remote(config);  // GET /v1/status
                InProcessDevice local(sim::mediaplayer(fast_options()));
                const std::vector<std::string> query{"setDataSource", "prepare", "start", "wait"};
                EXPECT_EQ(answer(remote, query), answer(local, query));  // POST /v1/run
                remote.reset();                                          // a session: create, steps, delete
                local.reset();
                EXPECT_EQ(remote.outputs().name(remote.step(*remote.inputs().find("prepare"))),
                          local.outputs().name(local.step(*local.inputs().find("prepare"))));
                remote.finish();
            } catch (const DeviceError& e) {
                ADD_FAILURE() << e.what();
            }
        }
    }
    const int seen = ::accept(proxy, nullptr, nullptr);
    EXPECT_LT(seen, 0) << "the fake proxy saw a connection";
    if (seen >= 0) ::close(seen);
    ::close(proxy);
}

TEST(HttpDevice, StepwiseSessionsGiveTheSameAnswers) {
    auto agent = start_agent("asynctask");
    HttpConfig c = http_config(*agent);
    c.batch = false;
    HttpDevice remote(c);
    EXPECT_EQ(answer(remote, {"cancel", "execute", "wait", "execute"}),
              (std::vector<std::string>{"ok", "ok", "onCancelled", "err"}));
    EXPECT_EQ(answer(remote, {"execute", "wait", "wait"}), (std::vector<std::string>{"ok", "onPostExecute", "quiet"}));
    EXPECT_EQ(agent->sessions(), 0u);  // finish() deleted them
}

/// asynctask whose callbacks come 150 ms after the callin, served with tmax 400 ms.
std::unique_ptr<Agent> slow_asynctask() {
    sim::SimOptions o = fast_options();
    o.delay_min = o.delay_max = 150ms;
    o.timing = {400ms, 5ms};
    return start_agent("asynctask", {}, o);
}

TimingOverride tmax_override(std::chrono::milliseconds tmax) {
    TimingOverride t;
    t.tmax = tmax;
    t.origin = "--tmax " + std::to_string(tmax.count());
    return t;
}

TEST(HttpDevice, AnOverriddenTmaxTravelsWithTheRunAndIsHonoured) {
    auto agent = slow_asynctask();
    HttpDevice remote(http_config(*agent));
    ASSERT_TRUE(remote.status().run_timeout);
    EXPECT_EQ(answer(remote, {"execute", "wait"}), (std::vector<std::string>{"ok", "onPostExecute"}));  // tmax 400
    ASSERT_TRUE(remote.override_timing(tmax_override(30ms)));
    const auto before = remote.requests();
    EXPECT_EQ(answer(remote, {"execute", "wait"}), (std::vector<std::string>{"ok", "quiet"}));  // waited 30 ms
    EXPECT_EQ(remote.requests(), before + 1);  // one round trip, not a session of steps
    // The callback beyond the override is a timing error of that query on the next run, never an
    // answer: the agent's `timing violation` with its data, thrown as a TimingError of an earlier
    // query (that answer was given: never re-run as this one's).
    std::this_thread::sleep_for(300ms);
    try {
        (void)answer(remote, {"cancel"});
        FAIL() << "expected TimingError";
    } catch (const TimingError& e) {
        EXPECT_NE(std::string(e.what()).find("HTTP 500 timing violation: \"AsyncTask (in-process): tmax too small: callback 'onPostExecute'"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("(tmax 30 ms)"), std::string::npos) << e.what();
        EXPECT_EQ(e.kind(), TimingError::Kind::LateCallback);
        EXPECT_EQ(e.callback(), "onPostExecute");
        EXPECT_TRUE(e.earlier_query());
        EXPECT_EQ(e.tmax_ms(), 30.0);
        EXPECT_GE(e.delay_ms(), 30.0);
    }
    // The agent's own tmax again for a run without timeout_ms, and for the steps of a session.
    HttpDevice plain(http_config(*agent));
    EXPECT_EQ(answer(plain, {"execute", "wait"}), (std::vector<std::string>{"ok", "onPostExecute"}));
    HttpConfig stepwise = http_config(*agent);
    stepwise.batch = false;
    HttpDevice steps(stepwise);
    EXPECT_EQ(answer(steps, {"execute", "wait"}), (std::vector<std::string>{"ok", "onPostExecute"}));
}

TEST(HttpDevice, VariantsThatAnswerDifferentlyAreTheDevicesNondeterminismWithTheAgentsWords) {
    // Before, the agent's `nondeterminism` reached the client as a DeviceError (its text only).
    const auto entry = sim::find_simulated("sqliteopenhelper");
    ASSERT_TRUE(entry);
    AgentConfig config;
    config.token = kToken;
    Agent agent(
        [entry] {
            InProcessConfig c;
            c.variants = VariantMode::Compare;  // fileExists and noFileExists must answer alike
            return std::make_unique<InProcessDevice>(entry->make(fast_options()), c);
        },
        config);
    agent.start();
    HttpDevice remote(http_config(agent));  // one /v1/run: the agent runs the word once per variant
    try {
        (void)answer(remote, {"ctor", "getReadableDatabase", "wait"});
        FAIL() << "expected NondeterminismError";
    } catch (const NondeterminismError& e) {
        EXPECT_NE(std::string(e.what()).find("HTTP 500 nondeterminism: \"variants of callin 'ctor' behave differently on "
                                             "'ctor getReadableDatabase"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("split the symbol"), std::string::npos) << e.what();
        ASSERT_EQ(e.answers().size(), 2u);
        EXPECT_NE(e.answers()[0].outputs, e.answers()[1].outputs);
        EXPECT_EQ(e.inputs().front(), "ctor");
    }
}

TEST(HttpDevice, AnAgentWithoutRunTimeoutKeepsTheStepPathUnderAnOverride) {
    auto agent = slow_asynctask();
    // The status of an agent from before `run_timeout` (the field is additive: absent reads false).
    json status = json::parse(authorized("GET", agent->url() + "/v1/status").body);
    status.erase("run_timeout");
    HttpDevice old(http_config(*agent), detail::read_status_answer(status, "device " + agent->url()));
    EXPECT_FALSE(old.status().run_timeout);
    auto before = old.requests();
    EXPECT_EQ(answer(old, {"execute", "wait"}), (std::vector<std::string>{"ok", "onPostExecute"}));
    EXPECT_EQ(old.requests(), before + 1);  // without an override: /v1/run as before
    ASSERT_TRUE(old.override_timing(tmax_override(200ms)));
    before = old.requests();
    EXPECT_EQ(answer(old, {"execute", "wait"}), (std::vector<std::string>{"ok", "onPostExecute"}));
    EXPECT_EQ(old.requests(), before + 4);  // create, callin, wait with timeout_ms 200, delete
    // An override below the agent's tmin goes step by step too (the agent checks its own tmin).
    HttpDevice capable(http_config(*agent));
    TimingOverride below = tmax_override(3ms);
    below.tmin = 1ms;  // recorded; the agent's tmin is 5 ms, and a run's timeout_ms below it is refused
    ASSERT_TRUE(capable.override_timing(below));
    before = capable.requests();
    EXPECT_EQ(answer(capable, {"cancel"}), (std::vector<std::string>{"ok"}));
    EXPECT_EQ(capable.requests(), before + 3);
}

TEST(HttpProtocol, ARunTakesTimeoutMsOnlyInRange) {
    auto agent = slow_asynctask();
    for (const char* body : {R"({"inputs":["wait"],"timeout_ms":"30"})", R"({"inputs":["wait"],"timeout_ms":-1})",
                             R"({"inputs":["wait"],"timeout_ms":3600001})", R"({"inputs":["wait"],"timeout_ms":4})"}) {
        const auto r = authorized("POST", agent->url() + "/v1/run", body);
        EXPECT_EQ(r.status, 400) << body;
        EXPECT_EQ(json::parse(r.body)["value"]["error"], "invalid argument") << body;
    }
    const auto start = std::chrono::steady_clock::now();
    const auto r = authorized("POST", agent->url() + "/v1/run", R"({"inputs":["wait"],"timeout_ms":700})");
    EXPECT_EQ(json::parse(r.body), json::parse(R"({"outputs":["quiet"],"steps":1,"waits":1})"));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 700ms);  // not the agent's 400 ms
}

TEST(HttpProtocol, WaitTimesOutAsQuiet) {
    auto agent = start_agent("asynctask");
    const auto created = authorized("POST", agent->url() + "/v1/sessions", "{}");
    ASSERT_EQ(created.status, 201);
    const std::string id = json::parse(created.body)["session"];
    const auto start = std::chrono::steady_clock::now();
    const auto waited = authorized("POST", agent->url() + "/v1/sessions/" + id + "/wait", R"({"seq":0,"timeout_ms":5})");
    EXPECT_EQ(waited.status, 200);
    EXPECT_EQ(json::parse(waited.body), json::parse(R"({"seq":0,"output":"quiet"})"));
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST(HttpProtocol, ARetriedStepIsAnsweredAgainNotRunTwice) {
    auto agent = start_agent("sqliteopenhelper");
    const std::string id = json::parse(authorized("POST", agent->url() + "/v1/sessions", "{}").body)["session"];
    const std::string callin = agent->url() + "/v1/sessions/" + id + "/callin";
    const auto first = authorized("POST", callin, R"({"seq":0,"callin":"ctor/fileExists"})");
    const auto retry = authorized("POST", callin, R"({"seq":0,"callin":"ctor/fileExists"})");
    EXPECT_EQ(first.body, R"({"output":"ok","seq":0})");
    EXPECT_EQ(retry.body, first.body);  // a second constructor call would have answered err
    EXPECT_EQ(authorized("POST", callin, R"({"seq":1,"callin":"ctor/fileExists"})").body, R"({"output":"err","seq":1})");
    const auto skipped = authorized("POST", callin, R"({"seq":5,"callin":"close"})");
    EXPECT_EQ(skipped.status, 409);
    EXPECT_EQ(json::parse(skipped.body),
              json::parse(R"({"value":{"error":"sequence mismatch","message":"expected seq 2, got 5","stacktrace":""}})"));
    EXPECT_EQ(authorized("DELETE", agent->url() + "/v1/sessions/" + id).status, 200);
    EXPECT_EQ(authorized("DELETE", agent->url() + "/v1/sessions/" + id).status, 404);
}

TEST(HttpProtocol, ErrorsAreWebDriverStyleJson) {
    auto agent = start_agent("asynctask");
    const auto unknown_session = authorized("POST", agent->url() + "/v1/sessions/nope/callin", R"({"seq":0,"callin":"x"})");
    EXPECT_EQ(unknown_session.status, 404);
    EXPECT_EQ(json::parse(unknown_session.body)["value"]["error"], "invalid session id");
    const auto unknown_command = authorized("GET", agent->url() + "/v1/teapot");
    EXPECT_EQ(unknown_command.status, 404);
    EXPECT_EQ(json::parse(unknown_command.body)["value"]["error"], "unknown command");
    const auto method = authorized("GET", agent->url() + "/v1/run");
    EXPECT_EQ(method.status, 405);
    EXPECT_EQ(json::parse(method.body)["value"]["error"], "unknown method");
    const auto bad_input = authorized("POST", agent->url() + "/v1/run", R"({"inputs":["execute","fly"]})");
    EXPECT_EQ(bad_input.status, 400);
    EXPECT_EQ(json::parse(bad_input.body),
              json::parse(R"({"value":{"error":"invalid argument","message":"unknown input \"fly\"","stacktrace":""}})"));
    const auto not_json = authorized("POST", agent->url() + "/v1/run", "inputs=execute");
    EXPECT_EQ(not_json.status, 400);
    EXPECT_EQ(json::parse(not_json.body)["value"]["message"], "the request body is not a JSON object");
}

TEST(HttpProtocol, EveryRequestNeedsTheBearerToken) {
    auto agent = start_agent("asynctask");
    for (const std::string path : {"/v1/status", "/v1/run", "/v1/sessions"}) {
        const auto none = raw_request(path == "/v1/status" ? "GET" : "POST", agent->url() + path, "{}", {});
        EXPECT_EQ(none.status, 401) << path;
        EXPECT_EQ(json::parse(none.body)["value"]["error"], "unauthorized");
        EXPECT_EQ(json::parse(none.body)["value"]["message"], "missing bearer token");
        EXPECT_NE(none.headers.find("WWW-Authenticate: Bearer"), std::string::npos);
    }
    const auto wrong = raw_request("GET", agent->url() + "/v1/status", "", {"Authorization: Bearer guess"});
    EXPECT_EQ(wrong.status, 401);
    EXPECT_EQ(json::parse(wrong.body)["value"]["message"], "wrong bearer token");
    HttpConfig c = http_config(*agent);
    c.token = "guess";
    try {
        HttpDevice d(c);
        FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_EQ(std::string(e.what()), "device " + agent->url() + ": status: HTTP 401 unauthorized: wrong bearer token");
    }
}

TEST(HttpProtocol, BrowserOriginsAndOversizedRequestsAreRefused) {
    AgentConfig config;
    config.max_body_bytes = 256;
    auto agent = start_agent("asynctask", config);
    const auto browser = raw_request("GET", agent->url() + "/v1/status", "",
                                     {std::string("Authorization: Bearer ") + kToken, "Origin: http://evil.example"});
    EXPECT_EQ(browser.status, 403);
    EXPECT_EQ(json::parse(browser.body)["value"]["error"], "forbidden");
    const auto big = authorized("POST", agent->url() + "/v1/run", R"({"inputs":[)" + std::string(300, ' ') + "]}");
    EXPECT_EQ(big.status, 413);
    EXPECT_EQ(json::parse(big.body)["value"]["message"], "request body exceeds 256 bytes");
    const auto huge_header = raw_request("GET", agent->url() + "/v1/status", "",
                                         {std::string("Authorization: Bearer ") + kToken, "X-Pad: " + std::string(20000, 'a')});
    EXPECT_EQ(huge_header.status, 431);
}

TEST(HttpProtocol, IdleSessionsAreReaped) {
    AgentConfig config;
    config.idle_timeout = 40ms;
    auto agent = start_agent("asynctask", config);
    const std::string id = json::parse(authorized("POST", agent->url() + "/v1/sessions", "{}").body)["session"];
    EXPECT_EQ(agent->sessions(), 1u);
    std::this_thread::sleep_for(200ms);
    EXPECT_EQ(agent->sessions(), 0u);
    EXPECT_EQ(authorized("POST", agent->url() + "/v1/sessions/" + id + "/callin", R"({"seq":0,"callin":"execute"})").status,
              404);
}

TEST(HttpProtocol, ARetriedCreateReturnsTheSameSession) {
    auto agent = start_agent("asynctask");
    const auto a = authorized("POST", agent->url() + "/v1/sessions", R"({"request_id":"r1"})");
    const auto b = authorized("POST", agent->url() + "/v1/sessions", R"({"request_id":"r1"})");
    EXPECT_EQ(a.body, b.body);
    EXPECT_EQ(agent->sessions(), 1u);
}

TEST(TypestarDeviceBinary, LearnsAsyncTaskOverLoopbackWithTheToken) {
    AgentProcess agent({"--class", "asynctask", "--port", "0", "--delay-min", "6", "--delay-max", "10", "--tmax", "50",
                        "--tmin", "1"},
                       "s3cret");
    ASSERT_EQ(agent.url().rfind("http://127.0.0.1:", 0), 0u) << agent.url();
    DeviceOptions options;
    options.http.token = "s3cret";
    auto learned = learn_from_scratch(make_devices({agent.url()}, 2, options), "AsyncTask");
    EXPECT_TRUE(learned.result.converged);
    EXPECT_TRUE(behaves_as(learned.typestate, source_spec("specs/asynctask.yaml")));

    DeviceOptions no_token;
    ::unsetenv("TYPESTAR_DEVICE_TOKEN");
    ::unsetenv("TYPESTAR_DEVICE_TOKEN_FILE");
    try {
        (void)make_device(agent.url(), no_token);
        FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "device " + agent.url() + ": no bearer token (set TYPESTAR_DEVICE_TOKEN or TYPESTAR_DEVICE_TOKEN_FILE)");
    }
    DeviceOptions wrong;
    wrong.http.token = "guess";
    EXPECT_THROW((void)make_device(agent.url(), wrong), DeviceError);
}

TEST(TypestarDeviceBinary, RefusesToStartWithoutAToken) {
    AgentProcess agent({"--class", "asynctask", "--port", "0"}, "");
    EXPECT_EQ(agent.wait_exit(), 2);
    EXPECT_EQ(agent.error_output(),
              "typestar-device: a bearer token is required: set TYPESTAR_DEVICE_TOKEN or use --token-file\n");
}

TEST(TokenFile, MustBePrivate) {
    const auto path = std::filesystem::temp_directory_path() / ("typestar-token-" + std::to_string(::getpid()));
    std::ofstream(path) << "  from-file \n";
    ::chmod(path.c_str(), 0644);
    try {
        (void)read_token_file(path);
        FAIL() << "expected typestar::Error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "token file '" + path.string() + "' is accessible by group or others (mode 644); make it 0600");
    }
    ::chmod(path.c_str(), 0600);
    EXPECT_EQ(read_token_file(path), "from-file");
    std::filesystem::remove(path);
    EXPECT_THROW((void)read_token_file(path), Error);
}

TEST(DeviceFactory, MakesEveryKindOfDevice) {
    auto model = make_device("model:" + std::string(TYPESTAR_SOURCE_DIR) + "/specs/asynctask.yaml");
    EXPECT_EQ(answer(*model, {"cancel", "execute", "wait"}), (std::vector<std::string>{"ok", "ok", "onCancelled"}));
    EXPECT_EQ(model->describe().framework, "");
    auto inproc = make_device("inproc:AsyncTask", fast_device_options());
    EXPECT_EQ(inproc->name(), "inproc:AsyncTask");
    EXPECT_EQ(inproc->describe().framework, "typestar-sim-1");
    EXPECT_EQ(inproc->describe().class_name, "AsyncTask");
    EXPECT_TRUE(inproc->describe().tmax_ms.has_value());
    EXPECT_EQ(answer(*inproc, {"cancel", "execute", "wait"}), answer(*model, {"cancel", "execute", "wait"}));
    auto agent = start_agent("asynctask");
    DeviceOptions options;
    options.http.token = kToken;
    auto remote = make_device(agent->url(), options);
    EXPECT_EQ(remote->describe().framework, "typestar-sim-1");
    EXPECT_EQ(remote->describe().class_name, inproc->describe().class_name);
    EXPECT_EQ(make_devices({"inproc:asynctask", agent->url()}, 2, options).size(), 4u);
    auto message = [](const std::string& url) {
        try {
            (void)make_device(url);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message("inproc:camera"),
              "device 'inproc:camera': no simulated class 'camera' (known: asynctask, asynctask_purpose, countdowntimer, mediaplayer, "
              "pipedoutputstream, speechrecognizer, sqliteopenhelper)");
    EXPECT_EQ(message("ftp://x"),
              "device 'ftp://x': unknown kind (expected model:PATH, inproc:NAME, http://HOST:PORT or exec:BINARY[#SPEC])");
    EXPECT_THROW((void)make_device("model:/nonexistent.yaml"), SpecError);
}

// `model:PATH` takes any Mealy machine (.dot), as README's device table says (issue 23: the CLI
// opened DOT models itself and the factory refused them, so `--typestar_device=model:M.dot` failed).
TEST(DeviceFactory, AModelIsASpecOrAMealyMachine) {
    const std::string yaml = std::string(TYPESTAR_SOURCE_DIR) + "/specs/asynctask.yaml";
    const std::filesystem::path dot =
        std::filesystem::temp_directory_path() / ("typestar_factory_" + std::to_string(::getpid()) + ".dot");
    spec::write_file_atomically(dot, spec::write_mealy_dot(synchronous_closure(spec::load_spec(yaml).typestate), "M"));
    OpenedDevice opened = open_device("model:" + dot.string());
    ASSERT_TRUE(opened.typestate);
    EXPECT_FALSE(opened.data);
    auto from_yaml = make_device("model:" + yaml);
    for (const std::vector<std::string>& word : {std::vector<std::string>{"cancel", "execute", "wait"},
                                                std::vector<std::string>{"execute", "wait", "execute"}})
        EXPECT_EQ(answer(*opened.typestate, word), answer(*from_yaml, word));
    EXPECT_THROW((void)open_device("model:" + dot.string(), {}, DeviceKind::Data), SpecError);
    std::filesystem::remove(dot);
}

}  // namespace
/// A model device that describes itself as a class with timing and counts its confirm_wait calls
/// (as a user's factory device behind `--typestar_serve` would be served).
class DescribedModel final : public Device {
public:
    explicit DescribedModel(std::atomic<int>& confirms)
        : model_(synchronous_closure(spec::load_spec(std::string(TYPESTAR_SOURCE_DIR) + "/specs/asynctask.yaml").typestate),
                 "model-asynctask"),
          confirms_(confirms) {}
    const Alphabet& inputs() const override { return model_.inputs(); }
    const Alphabet& outputs() const override { return model_.outputs(); }
    DeviceTraits traits() const override { return model_.traits(); }
    std::string name() const override { return "Probe (in-process)"; }
    DeviceDescription describe() const override {
        DeviceDescription d;
        d.name = name();
        d.class_name = "Probe";
        d.framework = "fw-1";
        d.tmax_ms = 40.0;
        d.tmin_ms = 1.0;
        return d;
    }
    void reset() override { model_.reset(); }
    Symbol step(Symbol input) override { return model_.step(input); }
    std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix, std::chrono::milliseconds) override {
        ++confirms_;
        last_prefix_size = prefix.size();
        DeviceSession session(model_);
        for (Symbol s : prefix) (void)session.step(s);
        return session.step(*model_.inputs().find(kWait));
    }
    inline static std::size_t last_prefix_size = 0;

private:
    ModelDevice model_;
    std::atomic<int>& confirms_;
};

TEST(AgentOfAnyDevice, StatusFromDescribeAnswersFromTheDevice) {
    std::atomic<int> confirms{0};
    AgentConfig config;
    config.token = kToken;
    Agent agent(AnyDevices{[&] { return std::make_unique<DescribedModel>(confirms); }}, config);
    agent.start();
    HttpConfig hc;
    hc.url = agent.url();
    hc.token = kToken;
    HttpDevice remote(hc);
    EXPECT_EQ(remote.status().name, "Probe");
    EXPECT_EQ(remote.status().framework, "fw-1");
    EXPECT_EQ(remote.status().timing, (QuiescenceTiming{std::chrono::milliseconds(40), std::chrono::milliseconds(1)}));
    EXPECT_FALSE(remote.status().run_timeout);  // the device takes no timing override
    EXPECT_EQ(authorized("POST", agent.url() + "/v1/run", R"({"inputs":["wait"],"timeout_ms":40})").status, 400);
    DescribedModel local(confirms);
    for (const auto& w : std::vector<std::vector<std::string>>{
             {"execute", "wait", "wait"}, {"cancel", "execute", "wait"}, {"execute", "execute"}}) {
        EXPECT_EQ(answer(remote, w), answer(local, w));
    }
    EXPECT_EQ(confirms.load(), 0);
    // The double-check of a quiet wait (another timeout) runs as the device's confirm_wait.
    const Word prefix = word_of({"execute", "wait"}, remote.inputs());
    const auto confirmed = remote.confirm_wait(prefix, std::chrono::milliseconds(120));
    ASSERT_TRUE(confirmed.has_value());
    EXPECT_EQ(remote.outputs().name(*confirmed), local.outputs().name(*local.confirm_wait(prefix, {})));
    EXPECT_EQ(confirms.load(), 2);  // the agent's, then the local one just above
    EXPECT_EQ(DescribedModel::last_prefix_size, prefix.size());
}

TEST(AgentOfAnyDevice, ASessionIsSpentAfterAWaitOfAnotherTimeout) {
    std::atomic<int> confirms{0};
    AgentConfig config;
    config.token = kToken;
    Agent agent(AnyDevices{[&] { return std::make_unique<DescribedModel>(confirms); }}, config);
    agent.start();
    const auto created = nlohmann::json::parse(authorized("POST", agent.url() + "/v1/sessions", "{}").body);
    const std::string session = agent.url() + "/v1/sessions/" + created["session"].get<std::string>();
    EXPECT_EQ(authorized("POST", session + "/callin", R"({"seq": 0, "callin": "execute"})").status, 200);
    EXPECT_EQ(authorized("POST", session + "/wait", R"({"seq": 1, "timeout_ms": 40})").status, 200);  // tmax
    EXPECT_EQ(confirms.load(), 0);
    EXPECT_EQ(authorized("POST", session + "/wait", R"({"seq": 2, "timeout_ms": 120})").status, 200);
    EXPECT_EQ(confirms.load(), 1);
    const RawReply spent = authorized("POST", session + "/callin", R"({"seq": 3, "callin": "cancel"})");
    EXPECT_EQ(spent.status, 409);
    EXPECT_NE(spent.body.find("session spent"), std::string::npos) << spent.body;
    EXPECT_EQ(authorized("DELETE", session).status, 200);
}

}  // namespace typestar
