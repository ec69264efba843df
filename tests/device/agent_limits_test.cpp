// Issue 12 (hardening), the agent and HttpDevice on real sockets: requests that are not HTTP or not
// UTF-8 (item 3), an exception inside a connection, the Bearer scheme's messages, the connection
// cap and idle timeout, deeply nested JSON (issue 26 item 1), the client's timing limits and answer
// size cap (item 10), and the agent binary's exit code for every configuration error. What every
// agent must do alike (repeated Authorization, Origin, the token before the body, ...) is tested
// once for all agents by the protocol kit (protocol_kit.cpp).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include <nlohmann/json.hpp>

#include "http_server.hpp"
#include "http_support.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/device/purpose.hpp"
#include "typestar/session/session.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;
using namespace testing_support;
using namespace std::chrono_literals;

const std::string kAuth = std::string("Authorization: Bearer ") + kToken + "\r\n";

/// One request on a fresh connection; the whole answer (the agent closes: `Connection: close`).
std::string exchange(std::uint16_t port, const std::string& request) {
    RawConnection c(port);
    c.send(request);
    return c.read_until_closed();
}

std::string get_status(const std::string& headers) {
    return "GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers + "\r\n";
}

/// The body parsed as strict JSON (invalid UTF-8 throws), or a note why not.
json strict_json(const std::string& answer) {
    try {
        return json::parse(body_of(answer));
    } catch (const json::exception& e) {
        return json{{"not json", e.what()}};
    }
}

std::size_t threads_of_this_process() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
    return n;
}

// ---- item 3: one request killed the agent ----

TEST(AgentRobustness, RequestsThatAreNotUtf8AreRefusedAndTheAgentGoesOn) {
    auto agent = start_agent("asynctask");
    const std::string path = exchange(agent->port(), "GET /v1/\xff HTTP/1.1\r\n" + kAuth + "\r\n");
    EXPECT_EQ(status_of(path), 400) << path;
    EXPECT_EQ(strict_json(path)["value"]["message"],
              "malformed request target (expected a path of printable ASCII characters)");
    const std::string method = exchange(agent->port(), "\xff\xfe /v1/status HTTP/1.1\r\n" + kAuth + "\r\n");
    EXPECT_EQ(status_of(method), 400) << method;
    EXPECT_EQ(strict_json(method)["value"]["error"], "invalid argument");
    const std::string body = "{\"inputs\":[\"\xff\"]}";
    const std::string in_body = exchange(agent->port(), "POST /v1/run HTTP/1.1\r\nConnection: close\r\n" + kAuth +
                                                            "Content-Length: " + std::to_string(body.size()) +
                                                            "\r\n\r\n" + body);
    EXPECT_EQ(status_of(in_body), 400) << in_body;
    EXPECT_EQ(strict_json(in_body)["value"]["message"], "the request body is not a JSON object");
    const std::string escaped = exchange(agent->port(), "GET /v1/sessions/%FF%00/callin HTTP/1.1\r\nConnection: close\r\n" + kAuth + "\r\n");
    EXPECT_EQ(status_of(escaped), 404) << escaped;
    EXPECT_EQ(strict_json(escaped)["value"]["message"], "no session '%FF%00' (ended or reaped)");
    // Still serving.
    EXPECT_EQ(authorized("GET", agent->url() + "/v1/status").status, 200);
}

struct Thrower {};

TEST(AgentRobustness, MessagesThatAreNotUtf8BecomeValidJson) {
    // The reset snippet's message reaches the answer; the JSON writer replaces what is not UTF-8.
    AgentConfig config;
    config.token = kToken;
    Agent agent(
        [] {
            return std::make_unique<InProcessDevice>(
                LearningPurpose<Thrower>("Thrower")
                    .reset([](const std::shared_ptr<CallbackSink>&) -> std::shared_ptr<Thrower> {
                        throw std::runtime_error("bad byte \xff here");
                    })
                    .callin("go", [](Thrower&) {})
                    .build());
        },
        config);
    agent.start();
    const auto created = authorized("POST", agent.url() + "/v1/sessions", "{}");
    EXPECT_EQ(created.status, 500);
    const json body = json::parse(created.body);  // throws if it were not UTF-8
    EXPECT_EQ(body["value"]["error"], "session not created");
    EXPECT_NE(body["value"]["message"].get<std::string>().find("bad byte \xEF\xBF\xBD here"), std::string::npos)
        << created.body;
    EXPECT_EQ(authorized("GET", agent.url() + "/v1/status").status, 200);
}

TEST(AgentRobustness, AnExceptionInAConnectionAnswers500AndTheServerGoesOn) {
    detail::HttpServer server({}, [](const detail::HttpRequest& r) -> detail::HttpResponse {
        if (r.target == "/boom") throw std::runtime_error("boom \xff");
        if (r.target == "/int") throw 42;
        detail::HttpResponse ok;
        ok.body = "{}";
        return ok;
    });
    server.start();
    for (const char* target : {"/boom", "/int"}) {
        RawConnection c(server.port());
        c.send(std::string("GET ") + target + " HTTP/1.1\r\n\r\nGET /ok HTTP/1.1\r\n\r\n");
        const std::string answer = c.read_until_closed();
        EXPECT_TRUE(c.closed()) << target;  // the second, pipelined request is not served
        EXPECT_EQ(status_of(answer), 500) << answer;
        EXPECT_EQ(strict_json(answer)["value"]["error"], "unknown error");
        EXPECT_EQ(answer.find("HTTP/1.1 200"), std::string::npos);
    }
    EXPECT_EQ(strict_json(exchange(server.port(), "GET /boom HTTP/1.1\r\n\r\n"))["value"]["message"],
              "the agent failed: boom \xEF\xBF\xBD");
    EXPECT_EQ(status_of(exchange(server.port(), "GET /ok HTTP/1.1\r\nConnection: close\r\n\r\n")), 200);
}

// ---- issue 26 item 1: one deeply nested request killed the agent (SIGSEGV in the echo) ----

std::string post_run(const std::string& body) {
    return "POST /v1/run HTTP/1.1\r\nConnection: close\r\n" + kAuth + "Content-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
}

/// `{"inputs": [[...["x"]...]]}` with `arrays` arrays: JSON depth arrays + 1.
std::string nested_inputs(std::size_t arrays) {
    return "{\"inputs\": " + std::string(arrays, '[') + "\"x\"" + std::string(arrays, ']') + "}";
}

TEST(AgentRobustness, DeeplyNestedJsonIsRefusedWith400AndTheAgentGoesOn) {
    auto agent = start_agent("asynctask");
    // 100,000 deep (200 KB, under the body limit): the old agent crashed echoing it back.
    for (const std::size_t arrays : {std::size_t{100000}, std::size_t{64}}) {
        const std::string answer = exchange(agent->port(), post_run(nested_inputs(arrays)));
        EXPECT_EQ(status_of(answer), 400) << arrays;
        EXPECT_EQ(strict_json(answer)["value"]["message"], "the request body nests JSON deeper than 64 levels") << arrays;
    }
    // Depth 64 is read; the unknown input is echoed cut short, not whole.
    const std::string at_limit = exchange(agent->port(), post_run(nested_inputs(63)));
    EXPECT_EQ(status_of(at_limit), 400) << at_limit;
    const std::string message = strict_json(at_limit)["value"]["message"];
    EXPECT_EQ(message.rfind("unknown input [[[", 0), 0u) << message;
    EXPECT_LE(message.size(), 240u) << message;
    // Brackets inside strings are text, not nesting.
    const std::string in_string = exchange(agent->port(), post_run("{\"inputs\": [\"" + std::string(1000, '[') + "\"]}"));
    EXPECT_EQ(status_of(in_string), 400);
    EXPECT_EQ(std::string(strict_json(in_string)["value"]["message"]).rfind("unknown input \"[[[", 0), 0u);
    // A huge unknown callin name is cut short too.
    const std::string long_name = exchange(agent->port(), post_run(json{{"inputs", {std::string(500000, 'n')}}}.dump()));
    EXPECT_EQ(status_of(long_name), 400);
    EXPECT_LE(std::string(strict_json(long_name)["value"]["message"]).size(), 240u);
    EXPECT_EQ(authorized("GET", agent->url() + "/v1/status").status, 200);
}

// ---- item 10: authentication ----

TEST(AgentAuth, TheBearerSchemeIsCaseInsensitive) {
    auto agent = start_agent("asynctask");
    for (const std::string scheme : {"Bearer", "bearer", "BEARER", "bEaReR"})
        EXPECT_EQ(status_of(exchange(agent->port(), get_status("Authorization: " + scheme + " " + kToken + "\r\n"))), 200)
            << scheme;
    const std::string basic = exchange(agent->port(), get_status(std::string("Authorization: Basic ") + kToken + "\r\n"));
    EXPECT_EQ(status_of(basic), 401);
    EXPECT_EQ(strict_json(basic)["value"]["message"], "not a bearer token (expected `Authorization: Bearer <token>`)");
    EXPECT_EQ(status_of(exchange(agent->port(), get_status(std::string("Authorization: Bearer ") + kToken + "x\r\n"))), 401);
    EXPECT_EQ(status_of(exchange(agent->port(), get_status(std::string("Authorization: Bearer") + kToken + "\r\n"))), 401);
    const std::string empty = exchange(agent->port(), get_status("Authorization:\r\n"));
    EXPECT_EQ(status_of(empty), 401);
    EXPECT_EQ(strict_json(empty)["value"]["message"], "missing bearer token");
}

// ---- item 10: connections ----

TEST(AgentLimits, ConnectionsBeyondTheCapAreAnswered503WithoutAThread) {
    AgentConfig config;
    config.max_connections = 4;
    auto agent = start_agent("asynctask", config);
    const std::size_t threads_before = threads_of_this_process();
    std::vector<std::unique_ptr<RawConnection>> idle;
    for (int i = 0; i < 4; ++i) {
        idle.push_back(std::make_unique<RawConnection>(agent->port()));
        // Served: a keep-alive request answered on it (so the agent has accepted it).
        idle.back()->send("GET /v1/status HTTP/1.1\r\n" + kAuth + "\r\n");
        EXPECT_EQ(status_of(idle.back()->read_until_closed(300ms)), 200);
    }
    std::vector<std::unique_ptr<RawConnection>> refused;
    for (int i = 0; i < 40; ++i) {
        refused.push_back(std::make_unique<RawConnection>(agent->port()));
        const std::string answer = refused.back()->read_until_closed();
        ASSERT_TRUE(refused.back()->closed());
        ASSERT_EQ(status_of(answer), 503) << answer;
        EXPECT_EQ(strict_json(answer)["value"]["error"], "too many connections");
    }
    EXPECT_LE(threads_of_this_process(), threads_before + 4);  // no thread per refused connection
    // A client (HttpDevice retries 503) gets through once a connection ends.
    idle.clear();
    HttpConfig c = http_config(*agent);
    c.retries = 10;
    c.backoff = 10ms;
    HttpDevice device(c);
    EXPECT_EQ(device.status().name, "AsyncTask");
}

TEST(AgentLimits, RequestIdsAreBounded) {
    auto agent = start_agent("asynctask");
    const auto long_id = authorized("POST", agent->url() + "/v1/sessions", json{{"request_id", std::string(257, 'r')}}.dump());
    EXPECT_EQ(long_id.status, 400);
    EXPECT_EQ(json::parse(long_id.body)["value"]["message"], "request_id must be a string of at most 256 bytes");
    EXPECT_EQ(authorized("POST", agent->url() + "/v1/sessions", json{{"request_id", std::string(256, 'r')}}.dump()).status,
              201);
}

// ---- item 10: the client's limits ----

std::string client_error(const detail::HttpServer& server, std::size_t max_answer_bytes = 16 << 20) {
    HttpConfig c;
    c.url = "http://127.0.0.1:" + std::to_string(server.port());
    c.token = kToken;
    c.max_answer_bytes = max_answer_bytes;
    c.retries = 1;
    c.backoff = 1ms;
    try {
        HttpDevice device(c);
    } catch (const DeviceError& e) {
        return std::string(e.what()).substr(c.url.size() + 9);  // after "device URL: "
    }
    return "connected";
}

const std::string kStatus = R"({"protocol":"typestar-device/1","name":"Fake","callins":["a"],"callbacks":["cb"],)"
                            R"("timing":{"tmax_ms":TMAX,"tmin_ms":0},"quiet_is_stable":true})";

std::string status_with_tmax(const std::string& tmax) {
    std::string s = kStatus;
    s.replace(s.find("TMAX"), 4, tmax);
    return s;
}

TEST(HttpDeviceLimits, AbsurdTimingFromTheAgentIsRefused) {
    EXPECT_EQ(client_error(*fake_agent(status_with_tmax("9223372036854775807"))),
              "timing.tmax_ms = 9223372036854775807 ms is outside [0, 3600000] (at most an hour)");
    EXPECT_EQ(client_error(*fake_agent(status_with_tmax("-1"))), "timing.tmax_ms = -1 ms is outside [0, 3600000] (at most an hour)");
    EXPECT_EQ(client_error(*fake_agent(status_with_tmax("4000000"))),
              "timing.tmax_ms = 4000000 ms is outside [0, 3600000] (at most an hour)");
    EXPECT_EQ(client_error(*fake_agent(status_with_tmax("1e999"))),  // not even JSON nlohmann reads as finite
              "status: garbage answer (HTTP 200, not a JSON object) (2 attempts)");
    EXPECT_EQ(client_error(*fake_agent(status_with_tmax("1.5"))),
              "malformed status: timing.tmax_ms must be an integer number of milliseconds");
    EXPECT_EQ(client_error(*fake_agent(status_with_tmax("100"))), "connected");
}

TEST(HttpDeviceLimits, AnAnswerOverTheSizeCapIsAnErrorNamingTheCap) {
    std::string big = status_with_tmax("100");
    big.insert(1, "\"padding\":\"" + std::string(2 << 20, 'x') + "\",");
    EXPECT_EQ(client_error(*fake_agent(big), 1 << 20),
              "status: answer over the 1048576-byte cap (HttpConfig::max_answer_bytes)");
    EXPECT_EQ(client_error(*fake_agent(big)), "connected");  // the default cap is 16 MiB

    // An answer without Content-Length is cut off at the cap while it streams.
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(listener, 4), 0);
    socklen_t len = sizeof a;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
    std::atomic<std::size_t> streamed{0};
    std::thread streamer([&] {
        const int fd = ::accept(listener, nullptr, nullptr);
        char buf[4096];
        (void)::recv(fd, buf, sizeof buf, 0);
        std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"x\":\"";
        (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
        const std::string chunk(64 * 1024, 'x');
        for (int i = 0; i < 3200; ++i) {  // up to 200 MiB
            if (::send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) <= 0) break;
            streamed += chunk.size();
        }
        ::close(fd);
    });
    HttpConfig c;
    c.url = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    c.token = kToken;
    c.max_answer_bytes = 1 << 20;
    try {
        HttpDevice device(c);
        ADD_FAILURE() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "device " + c.url + ": status: answer over the 1048576-byte cap (HttpConfig::max_answer_bytes)");
    }
    streamer.join();
    ::close(listener);
    EXPECT_LT(streamed.load(), std::size_t{64} << 20);  // stopped reading long before 200 MiB
}

// ---- issue 12, item 1 (the lead's, in src/device/inprocess.cpp): a late callback after a callin ----

struct Late {
    std::shared_ptr<CallbackSink> sink;
    std::vector<std::thread> threads;
    ~Late() {
        for (auto& t : threads) t.join();
    }
};

// A late callback behind a callin: `a` schedules `cb` 45 ms later, tmax is 20 ms. The first wait
// answers quiet (cb is late); after the callin `b`, cb arrives during the next wait. One run cannot
// tell a late cb of `a` from a cb that `b` caused 25 ms after it, so the agent answers what it saw;
// the verdict does not rest on it: learning through the agent re-runs every quiet wait the result
// relies on listening 3 x tmax = 60 ms (session confirm_quiescence) and ends in a timing error,
// never a spec (issue 12 item 1, over HTTP). A callback later than 3 x tmax escapes that check:
// the documented limit of the double-check (docs/spec-format.md, "Assumptions").
TEST(AgentTiming, ALateCallbackBehindACallinEndsLearningThroughTheAgentInATimingError) {
    AgentConfig config;
    config.token = kToken;
    Agent agent(
        [] {
            return std::make_unique<InProcessDevice>(
                LearningPurpose<Late>("Late")
                    .reset([](const std::shared_ptr<CallbackSink>& sink) {
                        auto late = std::make_shared<Late>();
                        late->sink = sink;
                        return late;
                    })
                    .callin("a",
                            [](Late& l) {
                                l.threads.emplace_back([sink = l.sink] {
                                    std::this_thread::sleep_for(45ms);
                                    sink->emit("cb");
                                });
                            })
                    .callin("b", [](Late&) {})
                    .callback("cb")
                    .timing({20ms, 0ms})
                    .build());
        },
        config);
    agent.start();
    HttpDevice remote(http_config(agent));
    Device* devices[] = {&remote};
    try {
        const auto learned = learn_spec(devices);
        ADD_FAILURE() << "learned a " << learned.machine.num_states() << "-state spec although cb arrives after tmax";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("tmax"), std::string::npos) << e.what();
    }
}

// ---- item 10: the agent binary's exit codes ----

TEST(TypestarDeviceBinary, EveryConfigurationErrorExitsWith2) {
    const auto dir = std::filesystem::temp_directory_path() / ("typestar-agent-config-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto open_file = dir / "open-token";
    std::ofstream(open_file) << "t0k3n\n";
    ::chmod(open_file.c_str(), 0644);
    const auto empty_file = dir / "empty-token";
    std::ofstream(empty_file) << "  \n";
    ::chmod(empty_file.c_str(), 0600);
    const auto missing = dir / "missing";
    struct Case {
        std::vector<std::string> args;
        std::string token;
        std::string message;
    };
    const std::vector<Case> cases{
        {{"--class", "asynctask", "--port", "0"}, "",
         "typestar-device: a bearer token is required: set TYPESTAR_DEVICE_TOKEN or use --token-file\n"},
        {{"--class", "asynctask", "--port", "0", "--token-file", missing.string()}, "",
         "typestar-device: token file '" + missing.string() + "': cannot read it: No such file or directory\n"},
        {{"--class", "asynctask", "--port", "0", "--token-file", open_file.string()}, "",
         "typestar-device: token file '" + open_file.string() +
             "' is accessible by group or others (mode 644); make it 0600\n"},
        {{"--class", "asynctask", "--port", "0", "--token-file", empty_file.string()}, "",
         "typestar-device: token file '" + empty_file.string() + "' is empty\n"},
        {{"--class", "asynctask", "--port", "0", "--fault", "melt"}, "t",
         "typestar-device: fault 'melt': unknown kind 'melt' (none, crash, hang, drop, garbage)\n"},
        {{"--class", "asynctask", "--port", "0", "--tmin", "200", "--tmax", "100"}, "t",
         "typestar-device: class 'AsyncTask': tmin is larger than tmax\n"},
        {{"--class", "teapot", "--port", "0"}, "t", "typestar-device: unknown class 'teapot' (see --list)\n"},
        {{"--class", "asynctask", "--port", "70000"}, "t", ""},
        {{"--class", "asynctask", "--max-connections", "0"}, "t", ""},
    };
    for (const auto& c : cases) {
        AgentProcess agent(c.args, c.token);
        EXPECT_EQ(agent.wait_exit(), 2) << c.args.back();
        const std::string err = agent.error_output();
        if (!c.message.empty()) EXPECT_EQ(err, c.message);
        else EXPECT_NE(err, "") << c.args.back();
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace typestar
