// The Node device agent (device/node/agent.js) speaks /v1 exactly as typestar-device does: the same
// protocol tests as tests/device/http_test.cpp and fault_test.cpp, run against the agent as a child
// process (under `timeout`, killed in TearDown) through typestar::HttpDevice and raw HTTP; learning
// the Node AsyncTask over loopback with the typestar CLI gives the committed AsyncTask spec.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "node_support.hpp"
#include "../support/spec_text.hpp"
#include "typestar/core/alphabet.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/http_device.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;
using namespace node_testing;
using namespace std::chrono_literals;

std::vector<std::string> answer(Device& d, const std::vector<std::string>& names) {
    return names_of(d.run(word_of(names, d.inputs())).outputs, d.outputs());
}

/// AsyncTask timing: callbacks after 40 ms, tmax 120 ms, tmin 1 ms. Step-wise, a callin must follow
/// the previous one within 40 ms (one HTTP round trip); with 15 ms a loaded 2-core machine
/// sometimes took longer, which the agent rightly reported as a tmin violation.
std::vector<std::string> asynctask_args(std::vector<std::string> more = {}) {
    std::vector<std::string> args{"--purpose", "asynctask", "--port", "0", "--delay-ms", "40", "--tmax", "120",
                                  "--tmin", "1"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

class NodeAgentTest : public ::testing::Test {
protected:
    void start(const std::vector<std::string>& args) {
        agent_ = std::make_unique<NodeAgent>(args);
        ASSERT_EQ(agent_->url().rfind("http://127.0.0.1:", 0), 0u) << agent_->first_line();
    }
    void TearDown() override { agent_.reset(); }  // SIGTERM, then reaped
    [[nodiscard]] std::string url() const { return agent_->url(); }
    [[nodiscard]] HttpConfig config() const {
        HttpConfig c;
        c.url = url();
        c.token = kToken;
        return c;
    }
    std::string create_session(const std::string& body = "{}") {
        const auto created = authorized("POST", url() + "/v1/sessions", body);
        EXPECT_EQ(created.status, 201) << created.body;
        return json::parse(created.body)["session"];
    }
    std::unique_ptr<NodeAgent> agent_;
};

TEST_F(NodeAgentTest, StatusAndBatchRunsAnswerAsTheAsyncTaskSpec) {
    start(asynctask_args());
    HttpDevice remote(config());
    EXPECT_EQ(remote.status().protocol, "typestar-device/1");
    EXPECT_EQ(remote.status().name, "AsyncTask");
    EXPECT_EQ(remote.status().framework.rfind("node-", 0), 0u) << remote.status().framework;
    EXPECT_EQ(remote.status().timing, (QuiescenceTiming{120ms, 1ms}));
    EXPECT_TRUE(remote.status().quiet_is_stable);
    EXPECT_EQ(remote.status().callins, (std::vector<std::string>{"cancel", "execute"}));
    EXPECT_EQ(remote.status().callbacks, (std::vector<std::string>{"onCancelled", "onPostExecute"}));
    EXPECT_EQ(remote.inputs().names(), (std::vector<std::string>{"cancel", "execute", "wait"}));
    EXPECT_EQ(remote.outputs().names(),
              (std::vector<std::string>{"ok", "quiet", "err", "onCancelled", "onPostExecute"}));
    EXPECT_TRUE(remote.traits().quiet.has_value());
    const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases{
        {{"execute", "wait", "wait", "execute"}, {"ok", "onPostExecute", "quiet", "err"}},
        {{"cancel", "execute", "wait", "execute"}, {"ok", "ok", "onCancelled", "err"}},
        {{"execute", "cancel", "wait", "cancel", "wait"}, {"ok", "ok", "onCancelled", "ok", "quiet"}},
        {{"execute", "execute", "cancel"}, {"ok", "err", "err"}},
    };
    for (const auto& [word, expected] : cases) {
        const auto before = remote.requests();
        EXPECT_EQ(answer(remote, word), expected);
        EXPECT_EQ(remote.requests(), before + 1);  // one round trip per query
    }
    EXPECT_EQ(remote.retries(), 0u);
}

TEST_F(NodeAgentTest, StepwiseSessionsGiveTheSameAnswers) {
    start(asynctask_args());
    HttpConfig c = config();
    c.batch = false;
    HttpDevice remote(c);
    EXPECT_EQ(answer(remote, {"cancel", "execute", "wait", "execute"}),
              (std::vector<std::string>{"ok", "ok", "onCancelled", "err"}));
    EXPECT_EQ(answer(remote, {"execute", "wait", "wait"}), (std::vector<std::string>{"ok", "onPostExecute", "quiet"}));
    const auto status = json::parse(authorized("GET", url() + "/v1/status").body);
    EXPECT_EQ(status["sessions"], 0);  // finish() deleted them
}

TEST_F(NodeAgentTest, RunSkipsASecondQuietWaitOnlyBecauseQuietIsDeclaredStable) {
    start(asynctask_args());
    const auto r = authorized("POST", url() + "/v1/run", R"({"inputs":["execute","wait","wait","wait","wait"]})");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, R"({"outputs":["ok","onPostExecute","quiet","quiet","quiet"],"steps":3,"waits":2})");
    const auto refused = authorized("POST", url() + "/v1/run", R"({"inputs":["execute","execute","wait","cancel"]})");
    EXPECT_EQ(refused.body, R"({"outputs":["ok","err","err","err"],"steps":2,"waits":0})");  // err is absorbing
}

TEST_F(NodeAgentTest, WaitTimesOutAsQuiet) {
    start(asynctask_args());
    const std::string id = create_session();
    const auto begin = std::chrono::steady_clock::now();
    const auto waited = authorized("POST", url() + "/v1/sessions/" + id + "/wait", R"({"seq":0,"timeout_ms":5})");
    EXPECT_EQ(waited.status, 200);
    EXPECT_EQ(waited.body, R"({"output":"quiet","seq":0})");
    EXPECT_LT(std::chrono::steady_clock::now() - begin, 1s);
    const auto bad = authorized("POST", url() + "/v1/sessions/" + id + "/wait", R"({"seq":1,"timeout_ms":3600001})");
    EXPECT_EQ(bad.status, 400);
    EXPECT_EQ(json::parse(bad.body)["value"]["message"], "timeout_ms must be an integer in [0, 3600000]");
}

TEST_F(NodeAgentTest, ARetriedStepIsAnsweredAgainNotRunTwice) {
    start(asynctask_args());
    const std::string id = create_session();
    const std::string callin = url() + "/v1/sessions/" + id + "/callin";
    const auto first = authorized("POST", callin, R"({"seq":0,"callin":"execute"})");
    const auto retry = authorized("POST", callin, R"({"seq":0,"callin":"execute"})");
    EXPECT_EQ(first.body, R"({"output":"ok","seq":0})");
    EXPECT_EQ(retry.body, first.body);  // a second execute() would have answered err
    const auto skipped = authorized("POST", callin, R"({"seq":5,"callin":"cancel"})");
    EXPECT_EQ(skipped.status, 409);
    EXPECT_EQ(skipped.body, R"({"value":{"error":"sequence mismatch","message":"expected seq 1, got 5","stacktrace":""}})");
    EXPECT_EQ(authorized("POST", url() + "/v1/sessions/" + id + "/wait", R"({"seq":1})").body,
              R"({"output":"onPostExecute","seq":1})");
    EXPECT_EQ(authorized("POST", callin, R"({"seq":2,"callin":"execute"})").body, R"({"output":"err","seq":2})");
    EXPECT_EQ(authorized("POST", callin, R"({"seq":3,"callin":"cancel"})").body, R"({"output":"err","seq":3})");
    EXPECT_EQ(authorized("DELETE", url() + "/v1/sessions/" + id).body,
              R"({"deleted":true,"session":")" + id + R"("})");
    EXPECT_EQ(authorized("DELETE", url() + "/v1/sessions/" + id).status, 404);
}

TEST_F(NodeAgentTest, ErrorsAreWebDriverStyleJson) {
    start(asynctask_args());
    const auto unknown_session = authorized("POST", url() + "/v1/sessions/nope/callin", R"({"seq":0,"callin":"x"})");
    EXPECT_EQ(unknown_session.status, 404);
    EXPECT_EQ(unknown_session.body,
              R"J({"value":{"error":"invalid session id","message":"no session 'nope' (ended or reaped)","stacktrace":""}})J");
    const auto unknown_command = authorized("GET", url() + "/v1/teapot");
    EXPECT_EQ(unknown_command.status, 404);
    EXPECT_EQ(json::parse(unknown_command.body)["value"]["error"], "unknown command");
    const auto method = authorized("GET", url() + "/v1/run");
    EXPECT_EQ(method.status, 405);
    EXPECT_EQ(json::parse(method.body)["value"]["error"], "unknown method");
    EXPECT_EQ(authorized("PUT", url() + "/v1/status").status, 405);
    const auto bad_input = authorized("POST", url() + "/v1/run", R"({"inputs":["execute","fly"]})");
    EXPECT_EQ(bad_input.status, 400);
    EXPECT_EQ(bad_input.body, R"({"value":{"error":"invalid argument","message":"unknown input \"fly\"","stacktrace":""}})");
    const auto not_json = authorized("POST", url() + "/v1/run", "inputs=execute");
    EXPECT_EQ(not_json.status, 400);
    EXPECT_EQ(json::parse(not_json.body)["value"]["message"], "the request body is not a JSON object");
    EXPECT_EQ(authorized("POST", url() + "/v1/run", "[1]").status, 400);
    EXPECT_EQ(json::parse(authorized("POST", url() + "/v1/run", "{}").body)["value"]["message"],
              "inputs (an array of input names) is required");
    const std::string id = create_session();
    const auto no_seq = authorized("POST", url() + "/v1/sessions/" + id + "/callin", R"({"callin":"execute"})");
    EXPECT_EQ(json::parse(no_seq.body)["value"]["message"], "seq (a non-negative integer) is required");
    const auto negative = authorized("POST", url() + "/v1/sessions/" + id + "/callin", R"({"seq":-1,"callin":"execute"})");
    EXPECT_EQ(negative.status, 400);
    const auto unknown_callin = authorized("POST", url() + "/v1/sessions/" + id + "/callin", R"({"seq":0,"callin":"wait"})");
    EXPECT_EQ(json::parse(unknown_callin.body)["value"]["message"], "unknown callin 'wait'");
    const auto bad_request_id = authorized("POST", url() + "/v1/sessions", R"({"request_id":7})");
    EXPECT_EQ(json::parse(bad_request_id.body)["value"]["message"], "request_id must be a string");
}

TEST_F(NodeAgentTest, BrowserOriginsChunkedAndOversizedRequestsAreRefused) {
    start(asynctask_args({"--max-body", "256"}));
    const std::string auth = std::string("Authorization: Bearer ") + kToken;
    const auto browser = raw_request("GET", url() + "/v1/status", "", {auth, "Origin: http://evil.example"});
    EXPECT_EQ(browser.status, 403);
    EXPECT_EQ(json::parse(browser.body)["value"]["error"], "forbidden");
    const auto empty_origin = raw_request("GET", url() + "/v1/status", "", {auth, "Origin;"});  // curl: empty value
    EXPECT_EQ(empty_origin.status, 403);
    const auto big = authorized("POST", url() + "/v1/run", R"({"inputs":[)" + std::string(300, ' ') + "]}");
    EXPECT_EQ(big.status, 413);
    EXPECT_EQ(json::parse(big.body)["value"]["message"], "request body exceeds 256 bytes");
    const auto huge_header = raw_request("GET", url() + "/v1/status", "", {auth, "X-Pad: " + std::string(20000, 'a')});
    EXPECT_EQ(huge_header.status, 431);
    EXPECT_EQ(json::parse(huge_header.body)["value"]["error"], "invalid argument");
    const auto chunked = raw_request("POST", url() + "/v1/run", R"({"inputs":[]})", {auth, "Transfer-Encoding: chunked"});
    EXPECT_EQ(chunked.status, 411);
    // The agent still serves after every refusal.
    EXPECT_EQ(authorized("GET", url() + "/v1/status").status, 200);
}

TEST_F(NodeAgentTest, IdleSessionsAreReaped) {
    start(asynctask_args({"--idle-timeout", "1"}));
    const std::string id = create_session();
    EXPECT_EQ(json::parse(authorized("GET", url() + "/v1/status").body)["sessions"], 1);
    std::this_thread::sleep_for(1800ms);
    EXPECT_EQ(json::parse(authorized("GET", url() + "/v1/status").body)["sessions"], 0);
    EXPECT_EQ(authorized("POST", url() + "/v1/sessions/" + id + "/callin", R"({"seq":0,"callin":"execute"})").status, 404);
}

TEST_F(NodeAgentTest, ARetriedCreateReturnsTheSameSessionAndSessionsAreBounded) {
    start(asynctask_args({"--max-sessions", "2"}));
    const auto a = authorized("POST", url() + "/v1/sessions", R"({"request_id":"r1"})");
    const auto b = authorized("POST", url() + "/v1/sessions", R"({"request_id":"r1"})");
    EXPECT_EQ(a.status, 201);
    EXPECT_EQ(a.body, b.body);
    EXPECT_EQ(json::parse(authorized("GET", url() + "/v1/status").body)["sessions"], 1);
    EXPECT_EQ(authorized("POST", url() + "/v1/sessions", "{}").status, 201);
    const auto full = authorized("POST", url() + "/v1/sessions", "{}");
    EXPECT_EQ(full.status, 503);
    EXPECT_EQ(full.body,
              R"({"value":{"error":"session not created","message":"all 2 instances are in use","stacktrace":""}})");
}

TEST_F(NodeAgentTest, ALateCallbackAfterAQuietWaitIsATimingViolationNeverAnAnswer) {
    // The task finishes after 150 ms; tmax is 30 ms: the wait answers quiet, then the callback comes.
    start({"--purpose", "asynctask", "--port", "0", "--delay-ms", "150", "--tmax", "30", "--tmin", "0"});
    const std::string id = create_session();
    const std::string base = url() + "/v1/sessions/" + id;
    EXPECT_EQ(authorized("POST", base + "/callin", R"({"seq":0,"callin":"execute"})").body, R"({"output":"ok","seq":0})");
    EXPECT_EQ(authorized("POST", base + "/wait", R"({"seq":1})").body, R"({"output":"quiet","seq":1})");
    std::this_thread::sleep_for(300ms);
    const auto late = authorized("POST", base + "/wait", R"({"seq":2})");
    EXPECT_EQ(late.status, 500);
    EXPECT_EQ(json::parse(late.body)["value"]["error"], "timing violation");  // with its data (PROTOCOL.md)
    EXPECT_EQ(json::parse(late.body)["value"]["timing"]["callback"], "onPostExecute") << late.body;
    EXPECT_EQ(json::parse(late.body)["value"]["timing"]["earlier_query"], false) << late.body;
    const std::string message = json::parse(late.body)["value"]["message"];
    EXPECT_EQ(message.rfind("AsyncTask: tmax too small: callback 'onPostExecute' arrived ", 0), 0u) << message;
    EXPECT_NE(message.find("after the start of a `wait` that answered quiet (tmax 30 ms) in query #"), std::string::npos)
        << message;
    // The same through /v1/run and HttpDevice: the query answers, the late callback fails the next one.
    HttpDevice remote(config());
    EXPECT_EQ(answer(remote, {"execute", "wait"}), (std::vector<std::string>{"ok", "quiet"}));
    std::this_thread::sleep_for(300ms);
    try {
        (void)answer(remote, {"cancel"});
        FAIL() << "expected TimingError";
    } catch (const TimingError& e) {  // of the answered query: never re-run as this one's
        EXPECT_NE(std::string(e.what()).find("HTTP 500 timing violation: AsyncTask: tmax too small"),
                  std::string::npos)
            << e.what();
        EXPECT_TRUE(e.earlier_query());
        EXPECT_EQ(e.callback(), "onPostExecute");
    }
}

TEST_F(NodeAgentTest, ACallbackInTheQuietGraceAfterARunIsThisRunsViolationAndIsRerun) {
    // The task finishes after 60 ms; tmax is 40 ms: the run's last wait answers quiet at 40 ms, and
    // the agent listens a grace of tmax more before answering the run (as the C++ agent does): the
    // callback at 60 ms is a violation of THIS run (earlier_query false), so the client re-runs the
    // word and, late on every run, names the callback; the answer `ok quiet` is never given. (The
    // callback's timer is due before the grace's on one event loop: no race.)
    start({"--purpose", "asynctask", "--port", "0", "--delay-ms", "60", "--tmax", "40", "--tmin", "0"});
    HttpDevice remote(config());
    try {
        (void)remote.run(word_of({"execute", "wait"}, remote.inputs()));
        FAIL() << "expected TimingError";
    } catch (const TimingError& e) {
        EXPECT_FALSE(e.earlier_query()) << e.what();
        EXPECT_EQ(e.callback(), "onPostExecute");
        EXPECT_EQ(e.kind(), TimingError::Kind::LateCallback);
    }
    try {
        (void)run_with_timing_retries(remote, word_of({"execute", "wait"}, remote.inputs()));
        FAIL() << "expected TimingError";
    } catch (const TimingError& e) {
        EXPECT_EQ(e.runs(), kTimingRetries + 1) << e.what();
        EXPECT_EQ(e.callback(), "onPostExecute");
    }
    // A run that ends on a callin has no grace: answered at once.
    EXPECT_EQ(answer(remote, {"execute"}), (std::vector<std::string>{"ok"}));
}

TEST_F(NodeAgentTest, AnOverriddenTmaxTravelsWithTheRunAndALateCallbackIsStillAnError) {
    // The task finishes after 150 ms; the agent's tmax is 400 ms, the client's override 30 ms.
    start({"--purpose", "asynctask", "--port", "0", "--delay-ms", "150", "--tmax", "400", "--tmin", "0"});
    HttpDevice remote(config());
    ASSERT_TRUE(remote.status().run_timeout);
    EXPECT_EQ(answer(remote, {"execute", "wait"}), (std::vector<std::string>{"ok", "onPostExecute"}));
    TimingOverride o;
    o.tmax = 30ms;
    ASSERT_TRUE(remote.override_timing(o));
    const auto before = remote.requests();
    EXPECT_EQ(answer(remote, {"execute", "wait"}), (std::vector<std::string>{"ok", "quiet"}));
    EXPECT_EQ(remote.requests(), before + 1);  // one round trip carrying timeout_ms 30
    std::this_thread::sleep_for(300ms);
    try {
        (void)answer(remote, {"cancel"});
        FAIL() << "expected TimingError";
    } catch (const TimingError& e) {  // of the answered query: never re-run as this one's
        EXPECT_NE(std::string(e.what()).find("HTTP 500 timing violation: AsyncTask: tmax too small"),
                  std::string::npos)
            << e.what();
        EXPECT_TRUE(e.earlier_query());
        EXPECT_EQ(e.callback(), "onPostExecute");
    }
}

TEST_F(NodeAgentTest, TransientFaultsAreRetriedAndADroppedStepRunsOnce) {
    for (const std::string fault : {"drop:0:2", "garbage:0:2"}) {
        start(asynctask_args({"--fault", fault}));
        HttpConfig c = config();
        c.retries = 2;
        c.backoff = 5ms;
        HttpDevice d(c);
        EXPECT_EQ(answer(d, {"execute", "wait", "execute"}), (std::vector<std::string>{"ok", "onPostExecute", "err"}))
            << fault;
        EXPECT_GE(d.retries(), 1u) << fault;
    }
    start(asynctask_args({"--fault", "drop:1:1"}));  // request 0 creates the session
    HttpConfig c = config();
    c.retries = 2;
    c.backoff = 5ms;
    c.batch = false;
    HttpDevice d(c);
    d.reset();
    EXPECT_EQ(d.outputs().name(d.step(*d.inputs().find("execute"))), "ok");
    EXPECT_EQ(d.outputs().name(d.step(*d.inputs().find("execute"))), "err");  // the retry did not run it twice
    d.finish();
}

TEST_F(NodeAgentTest, ACrashedAgentExitsWith70AndTheClientGetsAnError) {
    start(asynctask_args({"--fault", "crash:1"}));
    HttpConfig c = config();
    c.retries = 2;
    c.backoff = 5ms;
    HttpDevice d(c);
    EXPECT_EQ(answer(d, {"cancel"}), (std::vector<std::string>{"ok"}));
    try {
        (void)answer(d, {"execute", "wait"});
        FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("device " + url() + " (AsyncTask): query 'execute wait': ", 0), 0u)
            << e.what();
    }
    EXPECT_EQ(agent_->wait_exit(), 70);
}

TEST(NodeAgentProcess, RefusesToStartWithoutATokenOrWithAnUnknownPurpose) {
    NodeAgent no_token({"--purpose", "asynctask", "--port", "0"}, "");
    EXPECT_EQ(no_token.wait_exit(), 2);
    EXPECT_EQ(no_token.error_output(),
              "typestar-node-device: a bearer token is required: set TYPESTAR_DEVICE_TOKEN or use --token-file\n");
    NodeAgent unknown({"--purpose", "camera", "--port", "0"});
    EXPECT_EQ(unknown.wait_exit(), 2);
    EXPECT_EQ(unknown.error_output(), "typestar-node-device: unknown purpose 'camera' (see --list; a file of your own: --purpose ./camera.js)\n");
}

TEST(NodeAgentProcess, TheTokenFileMustBePrivate) {
    const auto path = std::filesystem::temp_directory_path() / ("typestar-node-token-" + std::to_string(::getpid()));
    std::ofstream(path) << "  from-file \n";
    ::chmod(path.c_str(), 0644);
    {
        NodeAgent open_file({"--purpose", "asynctask", "--port", "0", "--token-file", path.string()}, "");
        EXPECT_EQ(open_file.wait_exit(), 1);
        EXPECT_EQ(open_file.error_output(), "typestar-node-device: token file '" + path.string() +
                                                "' is accessible by group or others (mode 644); make it 0600\n");
    }
    ::chmod(path.c_str(), 0600);
    {
        NodeAgent agent({"--purpose", "asynctask", "--port", "0", "--token-file", path.string()}, "");
        ASSERT_FALSE(agent.url().empty()) << agent.first_line();
        const auto ok = raw_request("GET", agent.url() + "/v1/status", "", {"Authorization: Bearer from-file"});
        EXPECT_EQ(ok.status, 200);
    }
    {
        // TYPESTAR_DEVICE_TOKEN_FILE, as clients read it.
        std::vector<std::string> argv{TYPESTAR_TIMEOUT_BIN, "20", TYPESTAR_NODE_BIN,
                                      std::string(TYPESTAR_SOURCE_DIR) + "/device/node/agent.js", "--purpose",
                                      "asynctask", "--port", "0"};
        Spawned p = spawn(argv, {"TYPESTAR_DEVICE_TOKEN_FILE=" + path.string()});
        char line[512] = {0};
        ASSERT_NE(std::fgets(line, sizeof line, p.out), nullptr);
        std::string first(line);
        const std::string url = first.substr(first.find("http://"), first.find_first_of("\r\n") - first.find("http://"));
        EXPECT_EQ(raw_request("GET", url + "/v1/status", "", {"Authorization: Bearer from-file"}).status, 200);
        ::kill(p.pid, SIGTERM);
        int status = 0;
        ::waitpid(p.pid, &status, 0);
        std::fclose(p.out);
        std::fclose(p.err);
    }
    std::filesystem::remove(path);
}

TEST_F(NodeAgentTest, TheCliLearnsTheNodeAsyncTaskAsTheCommittedSpec) {
    start(asynctask_args());
    const auto out = std::filesystem::temp_directory_path() / ("typestar-node-asynctask-" + std::to_string(::getpid()) + ".yaml");
    const auto learned = run_command({TYPESTAR_CLI_BIN, "learn", "--device", url(), "--out", out.string()},
                                     {std::string("TYPESTAR_DEVICE_TOKEN=") + kToken});
    ASSERT_EQ(learned.code, 0) << learned.out << learned.err;
    const auto diff = run_command({TYPESTAR_CLI_BIN, "diff", std::string(TYPESTAR_SOURCE_DIR) + "/specs/asynctask.yaml",
                                   out.string()});
    EXPECT_EQ(diff.code, 0) << diff.out << diff.err;  // the same typestate
    std::filesystem::remove(out);
}

TEST_F(NodeAgentTest, TheCliLearnsNodesStringDecoderAsAMealyDevice) {
    // Issue 34 item 4 on a real class: Node core's string_decoder.StringDecoder('utf8'), whose writes
    // answer the text they decoded (named outputs learned when first answered; no callbacks, no wait).
    start({"--purpose", "string-decoder", "--port", "0"});
    const auto status = json::parse(authorized("GET", url() + "/v1/status").body);
    EXPECT_EQ(status["wait"], false);
    EXPECT_EQ(status["outputs"], json::array());
    const auto out = std::filesystem::temp_directory_path() /
                     ("typestar-node-string-decoder-" + std::to_string(::getpid()) + ".yaml");
    const std::vector<std::string> token{std::string("TYPESTAR_DEVICE_TOKEN=") + kToken};
    const auto learned = run_command({TYPESTAR_CLI_BIN, "learn", "--device", url(), "--out", out.string()}, token);
    ASSERT_EQ(learned.code, 0) << learned.out << learned.err;
    EXPECT_NE(learned.err.find("learned 4 states with"), std::string::npos) << learned.err;
    std::ifstream in(out);
    const std::string spec((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(spec.find("wait: false\n"), std::string::npos) << spec;
    // E2 82 AC written byte by byte: ok, ok, then the euro sign; an incomplete sequence ends as U+FFFD.
    EXPECT_NE(spec.find("      e2: s1\n"), std::string::npos) << spec;
    EXPECT_NE(spec.find("ac: {output: \"€\", to: s0}"), std::string::npos) << spec;
    EXPECT_NE(spec.find("end: {output: \"U+FFFD\", to: s0}"), std::string::npos) << spec;
    const auto checked = run_command({TYPESTAR_CLI_BIN, "check", out.string(), "--device", url()}, token);
    EXPECT_EQ(checked.code, 0) << checked.out << checked.err;
    std::filesystem::remove(out);
}

using testing_support::without_provenance;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST_F(NodeAgentTest, TheCliLearnsNodesEventEmitterAsTheCommittedRegisterAutomaton) {
    // A data device of the Node agent on a real class: Node core's events.EventEmitter, whose
    // listener limit setMaxListeners(n) refuses n < 0 and getMaxListeners() answers (10 until set).
    start({"--purpose", "event-emitter", "--port", "0"});
    const auto status = json::parse(authorized("GET", url() + "/v1/status").body);
    EXPECT_EQ(status["data"]["constants"],
              json::parse(R"([{"name":"zero","type":"int","value":0},{"name":"ten","type":"int","value":10}])"));
    const std::string committed = std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/node_event_emitter.yaml";
    const auto dir = std::filesystem::temp_directory_path() / ("typestar-node-event-emitter-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::vector<std::string> token{std::string("TYPESTAR_DEVICE_TOKEN=") + kToken};
    const auto learned = run_command({TYPESTAR_CLI_BIN, "learn", "--device", url(), "--out", (dir / "learned.yaml").string()}, token);
    ASSERT_EQ(learned.code, 0) << learned.out << learned.err;
    EXPECT_NE(learned.err.find("learned a register automaton with 4 locations"), std::string::npos) << learned.err;
    EXPECT_EQ(without_provenance(read_file(dir / "learned.yaml")), without_provenance(read_file(committed)));
    const auto checked = run_command({TYPESTAR_CLI_BIN, "check", committed, "--device", url()}, token);
    EXPECT_EQ(checked.code, 0) << checked.out << checked.err;
    // The spec with a wrong default (getMaxListeners answering 0 before any set) fails on the class.
    std::string wrong = read_file(committed);
    const std::string right = "{input: getMaxListeners, output: \"max(ten)\", to: l0}";
    ASSERT_NE(wrong.find(right), std::string::npos);
    wrong.replace(wrong.find(right), right.size(), "{input: getMaxListeners, output: \"max(zero)\", to: l0}");
    std::ofstream(dir / "wrong.yaml") << wrong;
    const auto failed = run_command({TYPESTAR_CLI_BIN, "check", (dir / "wrong.yaml").string(), "--device", url()}, token);
    EXPECT_EQ(failed.code, 1) << failed.out << failed.err;
    EXPECT_NE((failed.out + failed.err).find("expected max(0), got max(10)"), std::string::npos) << failed.out << failed.err;
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace typestar
