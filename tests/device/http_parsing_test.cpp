// The device protocol's pure functions: the agent's HTTP request parser (parse_request) and
// HttpDevice's readers of agent answers (judge_answer, read_*_answer, request_budget). Each
// hardening rule of issue 12 has its case here; the socket-level behaviour is in
// agent_limits_test.cpp.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "http_answers.hpp"
#include "http_server.hpp"
#include "http_transport.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;
using detail::ParsedRequest;
using State = ParsedRequest::State;
using namespace std::chrono_literals;

ParsedRequest parse(std::string_view bytes, detail::HttpLimits limits = {}) {
    return detail::parse_request(bytes, limits);
}

std::string refusal(std::string_view bytes, detail::HttpLimits limits = {}) {
    const ParsedRequest p = parse(bytes, limits);
    if (p.state != State::Error) return "not refused";
    return std::to_string(p.status) + " " + p.message;
}

TEST(HttpTransportHost, LoopbackHostsAreThisMachineOnly) {
    EXPECT_EQ(detail::url_host("http://127.0.0.1:8080"), "127.0.0.1");
    EXPECT_EQ(detail::url_host("http://[::1]:8080"), "::1");
    EXPECT_EQ(detail::url_host("http://LocalHost/v1"), "LocalHost");
    for (const char* host : {"127.0.0.1", "127.255.3.4", "127.1", "localhost", "LOCALHOST", "::1", "0:0:0:0:0:0:0:1"})
        EXPECT_TRUE(detail::is_loopback_host(host)) << host;
    for (const char* host : {"128.0.0.1", "10.0.0.1", "::2", "localhost.example.com", "mylocalhost", "127.0.0.1.nip.io",
                             "device.lan", ""})
        EXPECT_FALSE(detail::is_loopback_host(host)) << host;
}

TEST(HttpRequestParser, ParsesPipelinedRequests) {
    const std::string two =
        "POST /v1/run?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nX-List: a\r\nx-list: b\r\n\r\n{}"
        "GET /v1/status HTTP/1.0\r\n\r\n";
    const ParsedRequest first = parse(two);
    ASSERT_EQ(first.state, State::Complete);
    EXPECT_EQ(first.request.method, "POST");
    EXPECT_EQ(first.request.target, "/v1/run");
    EXPECT_EQ(first.request.body, "{}");
    EXPECT_EQ(first.request.header("x-list"), "a, b");  // a repeated list field is joined (RFC 9110 §5.3)
    EXPECT_TRUE(first.request.keep_alive);
    const ParsedRequest second = parse(std::string_view(two).substr(first.consumed));
    ASSERT_EQ(second.state, State::Complete);
    EXPECT_EQ(second.request.target, "/v1/status");
    EXPECT_FALSE(second.request.keep_alive);  // HTTP/1.0
    EXPECT_EQ(second.consumed, two.size() - first.consumed);
}

TEST(HttpRequestParser, SaysHowManyBytesItNeeds) {
    EXPECT_EQ(parse("GET /v1/status HTTP/1.1\r\nHost:").state, State::Incomplete);
    const ParsedRequest body = parse("POST /v1/run HTTP/1.1\r\nContent-Length: 10\r\n\r\n{\"in");
    EXPECT_EQ(body.state, State::Incomplete);
    EXPECT_EQ(body.needed, 45u + 10u);
    EXPECT_FALSE(parse("GET /v1/status HTTP/1.1\r\nConnection: Keep-Alive, CLOSE\r\n\r\n").request.keep_alive);
}

TEST(HttpRequestParser, RefusesBytesThatAreNotHttp) {
    // Issue 12, item 3: these reached the router, whose message echoed them into JSON and threw.
    EXPECT_EQ(refusal("GET /v1/\xff HTTP/1.1\r\n\r\n"),
              "400 malformed request target (expected a path of printable ASCII characters)");
    EXPECT_EQ(refusal("\xff\xfe /v1/status HTTP/1.1\r\n\r\n"), "400 malformed request line: the method is not a token");
    EXPECT_EQ(refusal("GET /v1/a\x01 HTTP/1.1\r\n\r\n"),
              "400 malformed request target (expected a path of printable ASCII characters)");
    EXPECT_EQ(refusal("GET http://host/v1/status HTTP/1.1\r\n\r\n"),
              "400 malformed request target (expected a path of printable ASCII characters)");
    EXPECT_EQ(refusal("GET  /v1/status HTTP/1.1\r\n\r\n"), "400 malformed request line (expected METHOD TARGET HTTP/1.1)");
    EXPECT_EQ(refusal("GET /v1/status\r\n\r\n"), "400 malformed request line (expected METHOD TARGET HTTP/1.1)");
    EXPECT_EQ(refusal("GET /v1/status HTTP/2.0\r\n\r\n"), "505 HTTP version not supported (HTTP/1.1 expected)");
    EXPECT_EQ(refusal("GET /v1/status HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n"), "400 malformed header line");
    EXPECT_EQ(refusal("GET /v1/status HTTP/1.1\r\nX A: 1\r\n\r\n"), "400 malformed header line");
    EXPECT_EQ(refusal("GET /v1/status HTTP/1.1\r\nX-A : 1\r\n\r\n"), "400 malformed header line");
    EXPECT_EQ(refusal(std::string_view("GET /v1/status HTTP/1.1\r\nX-A: a\0b\r\n\r\n", 38)), "400 malformed header value");
    EXPECT_EQ(refusal("GET /v1/status HTTP/1.1\r\nX-A: a\rb\r\n\r\n"), "400 malformed header value");
}

TEST(HttpRequestParser, RefusesRepeatedSingletonHeaders) {
    // Issue 12, item 10: with two Authorization headers the last one won.
    EXPECT_EQ(refusal("GET /v1/status HTTP/1.1\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\n\r\n"),
              "400 more than one authorization header");
    EXPECT_EQ(refusal("POST /v1/run HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}"),
              "400 more than one content-length header");
    EXPECT_EQ(refusal("GET /v1/status HTTP/1.1\r\nOrigin: a\r\nOrigin: b\r\n\r\n"), "400 more than one origin header");
}

TEST(HttpRequestParser, KeepsAnEmptyOriginHeader) {
    const ParsedRequest p = parse("GET /v1/status HTTP/1.1\r\nOrigin:\r\n\r\n");
    ASSERT_EQ(p.state, State::Complete);
    EXPECT_TRUE(p.request.has_header("origin"));  // the agent refuses it like any Origin
    EXPECT_EQ(p.request.header("origin"), "");
}

TEST(HttpRequestParser, EnforcesItsLimits) {
    detail::HttpLimits limits;
    limits.max_header_bytes = 64;
    limits.max_body_bytes = 8;
    const std::string head = "GET /v1/status HTTP/1.1\r\nX: ";
    EXPECT_EQ(parse(head + std::string(64 - head.size(), 'a') + "\r\n\r\n", limits).state, State::Complete);
    EXPECT_EQ(refusal(head + std::string(65 - head.size(), 'a') + "\r\n\r\n", limits), "431 request headers exceed 64 bytes");
    EXPECT_EQ(refusal(head + std::string(100, 'a'), limits), "431 request headers exceed 64 bytes");  // no end in sight
    EXPECT_EQ(refusal("POST /v1/run HTTP/1.1\r\nContent-Length: 9\r\n\r\n", limits), "413 request body exceeds 8 bytes");
    EXPECT_EQ(refusal("POST /v1/run HTTP/1.1\r\nContent-Length: 1234567890123\r\n\r\n", limits),
              "400 malformed Content-Length");
    EXPECT_EQ(refusal("POST /v1/run HTTP/1.1\r\nContent-Length: -1\r\n\r\n", limits), "400 malformed Content-Length");
    EXPECT_EQ(refusal("POST /v1/run HTTP/1.1\r\nContent-Length:\r\n\r\n", limits), "400 malformed Content-Length");
    EXPECT_EQ(refusal("POST /v1/run HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", limits),
              "411 chunked bodies are not supported; send Content-Length");
}

TEST(AgentJson, InvalidUtf8IsReplacedNotThrown) {
    const std::string text = detail::dump_json(detail::error_json("unknown command", "GET /v1/\xff\xfe"));
    const json parsed = json::parse(text);  // valid UTF-8 now
    EXPECT_EQ(parsed["value"]["message"], "GET /v1/\xEF\xBF\xBD\xEF\xBF\xBD");
}

// ---- the client's readers ----

const char* kStatus = R"({"protocol":"typestar-device/1","agent":"typestar-device","name":"MediaPlayer",
    "framework":"typestar-sim-1","callins":["prepare","start"],"callbacks":["onPrepared"],
    "timing":{"tmax_ms":100,"tmin_ms":5},"quiet_is_stable":true,"max_sessions":64,"sessions":0,"new":1})";

std::string status_error(const std::function<void(json&)>& edit) {
    json s = json::parse(kStatus);
    edit(s);
    try {
        (void)detail::read_status_answer(s, "device d");
    } catch (const DeviceError& e) {
        return e.what();
    }
    return "accepted";
}

TEST(AgentAnswers, StatusIsReadWithItsAlphabets) {
    const detail::StatusAnswer s = detail::read_status_answer(json::parse(kStatus), "device d");
    EXPECT_EQ(s.status.name, "MediaPlayer");
    EXPECT_EQ(s.status.timing.tmax, 100ms);
    EXPECT_EQ(s.inputs.names(), (std::vector<std::string>{"prepare", "start", "wait"}));
    EXPECT_EQ(s.outputs.names(), (std::vector<std::string>{"ok", "quiet", "err", "onPrepared"}));
    EXPECT_TRUE(s.traits.quiet.has_value());
}

TEST(AgentAnswers, AbsurdTimingIsRefused) {
    // Issue 12, item 10: INT64_MAX or a negative tmax_ms was accepted and timeouts could overflow.
    EXPECT_EQ(status_error([](json& s) { s["timing"]["tmax_ms"] = std::numeric_limits<std::int64_t>::max(); }),
              "device d: timing.tmax_ms = 9223372036854775807 ms is outside [0, 3600000] (at most an hour)");
    EXPECT_EQ(status_error([](json& s) { s["timing"]["tmax_ms"] = std::numeric_limits<std::uint64_t>::max(); }),
              "device d: timing.tmax_ms = 18446744073709551615 ms is outside [0, 3600000] (at most an hour)");
    EXPECT_EQ(status_error([](json& s) { s["timing"]["tmin_ms"] = -1; }),
              "device d: timing.tmin_ms = -1 ms is outside [0, 3600000] (at most an hour)");
    EXPECT_EQ(status_error([](json& s) { s["timing"]["tmax_ms"] = 3600001; }),
              "device d: timing.tmax_ms = 3600001 ms is outside [0, 3600000] (at most an hour)");
    EXPECT_EQ(status_error([](json& s) { s["timing"]["tmax_ms"] = 1e308; }),
              "device d: malformed status: timing.tmax_ms must be an integer number of milliseconds");
    EXPECT_EQ(status_error([](json& s) { s["timing"]["tmax_ms"] = "100"; }),
              "device d: malformed status: timing.tmax_ms must be an integer number of milliseconds");
    EXPECT_EQ(status_error([](json& s) { s["timing"]["tmin_ms"] = 101; }),
              "device d: timing.tmin_ms = 101 is larger than timing.tmax_ms = 100");
    EXPECT_EQ(status_error([](json& s) { s["timing"]["tmax_ms"] = 3600000; }), "accepted");
    EXPECT_EQ(status_error([](json& s) { s["timing"]["tmin_ms"] = 100; }), "accepted");
}

TEST(AgentAnswers, StatusFieldsAreChecked) {
    EXPECT_EQ(status_error([](json& s) { s["protocol"] = "typestar-device/2\u00e9"; }),
              "device d: speaks \"typestar-device/2\\u00e9\", this client speaks 'typestar-device/1'");
    EXPECT_EQ(status_error([](json& s) { s["protocol"] = "typestar-device/1\x1b[2J"; }),
              "device d: malformed status: protocol \"typestar-device/1\\u001b[2J\" has control characters");
    EXPECT_EQ(status_error([](json& s) { s["callins"][0] = "pre\npare"; }),
              "device d: malformed status: callins holds \"pre\\npare\", not a name (a non-empty string without "
              "control characters)");
    EXPECT_EQ(status_error([](json& s) { s["callbacks"][0] = ""; }),
              "device d: malformed status: callbacks holds \"\", not a name (a non-empty string without control "
              "characters)");
    EXPECT_EQ(status_error([](json& s) { s["callins"][0] = "wait"; }),
              "device d: duplicate or reserved symbol names in its status");
    EXPECT_EQ(status_error([](json& s) { s["name"] = 5; }), "device d: malformed status: name must be a string");
    EXPECT_EQ(status_error([](json& s) { s["quiet_is_stable"] = "yes"; }),
              "device d: malformed status: quiet_is_stable must be true or false");
    EXPECT_EQ(status_error([](json& s) { s.erase("framework"); }), "accepted");
}

TEST(AgentAnswers, QuietIsStableOnlyWhenTheAgentSaysSo) {
    json s = json::parse(kStatus);
    s.erase("quiet_is_stable");
    const detail::StatusAnswer read = detail::read_status_answer(s, "device d");
    EXPECT_FALSE(read.status.quiet_is_stable);
    EXPECT_FALSE(read.traits.quiet.has_value());
}

TEST(AgentAnswers, RunTimeoutOnlyWhenTheAgentSaysSo) {
    // Optional and additive: an older agent's status has no run_timeout (its /v1/run waits with its tmax).
    EXPECT_FALSE(detail::read_status_answer(json::parse(kStatus), "device d").status.run_timeout);
    json s = json::parse(kStatus);
    s["run_timeout"] = true;
    EXPECT_TRUE(detail::read_status_answer(s, "device d").status.run_timeout);
    s["run_timeout"] = 1;
    try {
        (void)detail::read_status_answer(s, "device d");
        FAIL() << "accepted";
    } catch (const DeviceError& e) {
        EXPECT_STREQ(e.what(), "device d: malformed status: run_timeout must be true or false");
    }
}

TEST(AgentAnswers, EnvironmentNamesEachOfItsEntriesOnceAmongTheCallins) {
    // Optional and additive (device/PROTOCOL.md): absent is an empty list.
    EXPECT_TRUE(detail::read_status_answer(json::parse(kStatus), "device d").status.environment.empty());
    json status = json::parse(kStatus);
    status["environment"] = {"start", "prepare"};
    EXPECT_EQ(detail::read_status_answer(status, "device d").status.environment,
              (std::vector<std::string>{"prepare", "start"}));  // in the order of callins
    status["environment"] = json::array();
    EXPECT_TRUE(detail::read_status_answer(status, "device d").status.environment.empty());

    EXPECT_EQ(status_error([](json& s) { s["environment"] = "start"; }),
              "device d: malformed status: environment must be an array of callin names");
    EXPECT_EQ(status_error([](json& s) { s["environment"] = {"stop"}; }),
              "device d: malformed status: environment holds \"stop\", which is not one of its callins");
    EXPECT_EQ(status_error([](json& s) { s["environment"] = {"onPrepared"}; }),
              "device d: malformed status: environment holds \"onPrepared\", which is not one of its callins");
    EXPECT_EQ(status_error([](json& s) { s["environment"] = {"wait"}; }),
              "device d: malformed status: environment holds \"wait\", which is not one of its callins");
    EXPECT_EQ(status_error([](json& s) { s["environment"] = json::array({5}); }),
              "device d: malformed status: environment holds 5, which is not one of its callins");
    EXPECT_EQ(status_error([](json& s) { s["environment"] = {"start", "start"}; }),
              "device d: malformed status: environment names \"start\" twice");
}

TEST(AgentAnswers, ErrorAnswersAreJudgedWithoutThrowing) {
    using Kind = detail::JudgedAnswer::Kind;
    EXPECT_EQ(detail::judge_answer(200, R"({"a":1})", 100).kind, Kind::Accepted);
    EXPECT_EQ(detail::judge_answer(200, "[1]", 100).kind, Kind::Retryable);
    EXPECT_EQ(detail::judge_answer(503, "", 100).kind, Kind::Retryable);
    const auto ill_typed = detail::judge_answer(500, R"({"value":{"error":5,"message":["x"]}})", 100);
    EXPECT_EQ(ill_typed.kind, Kind::Final);
    EXPECT_EQ(ill_typed.what, "HTTP 500 ?: ");
    const auto forged = detail::judge_answer(
        400, R"({"value":{"error":"invalid argument","message":"x\nother.yaml:1:1: \u001b[2J"}})", 1000);
    EXPECT_EQ(forged.what, "HTTP 400 invalid argument: \"x\\nother.yaml:1:1: \\u001b[2J\"");
    // Issue 12, item 10: the size cap.
    const auto big = detail::judge_answer(200, std::string(101, ' '), 100);
    EXPECT_EQ(big.kind, Kind::Final);
    EXPECT_EQ(big.what, "HTTP 200: answer over the 100-byte cap (HttpConfig::max_answer_bytes)");
}

TEST(AgentAnswers, ANondeterminismCarriesItsAnswersAndIllFormedDataIsAnOrdinaryDeviceError) {
    // Before, an agent's `nondeterminism` was a device error (text only): the session reported a
    // harness failure where the device answered one word two ways.
    const NondeterminismError e({"ctor", "getReadableDatabase", "wait"},
                                {{{"ok", "ok", "onCreate"}, 2}, {{"ok", "ok", "onOpen"}, 1}});
    const json body = detail::nondeterminism_json(e);
    const auto judged = detail::judge_answer(500, body.dump(), 10000);
    EXPECT_EQ(judged.kind, detail::JudgedAnswer::Kind::Final);
    ASSERT_TRUE(judged.nondeterminism) << judged.what;
    EXPECT_EQ(judged.nondeterminism->inputs, e.inputs());
    EXPECT_EQ(judged.nondeterminism->answers, e.answers());
    EXPECT_EQ(judged.what.rfind("HTTP 500 nondeterminism: non-determinism: input [ctor getReadableDatabase wait]", 0), 0u)
        << judged.what;
    auto with = [&](const std::function<void(json&)>& change) {
        json b = body;
        change(b["value"]["nondeterminism"]);
        return detail::judge_answer(500, b.dump(), 10000);
    };
    for (const auto& change : std::vector<std::function<void(json&)>>{
             [](json& n) { n["inputs"] = "ctor"; }, [](json& n) { n["answers"].erase(1); },
             [](json& n) { n["answers"][0]["count"] = 0; }, [](json& n) { n["answers"][1] = n["answers"][0]; },
             [](json& n) { n["answers"][0]["outputs"] = json::array({"a\nb"}); }, [](json& n) { n = json::array(); }}) {
        const auto bad = with(change);
        EXPECT_FALSE(bad.nondeterminism);
        EXPECT_NE(bad.what.find("its nondeterminism data is ill-formed"), std::string::npos) << bad.what;
    }
    // The same data under another error code is not a nondeterminism.
    json other = body;
    other["value"]["error"] = "device error";
    EXPECT_FALSE(detail::judge_answer(500, other.dump(), 10000).nondeterminism);
}

TEST(AgentAnswers, ATimingViolationCarriesItsDataAndIllFormedDataIsAnOrdinaryDeviceError) {
    // Before, an agent's late callback was a `device error` (text only): the client could neither
    // re-run the word nor tell a callback the spec does not have from a late one.
    const TimingError e("tmax too small: callback 'done' arrived 45.0 ms after ...", TimingError::Kind::LateCallback,
                        "done", 45.0, 20.0, 1.0, false, 1);
    const json body = detail::timing_violation_json(e);
    const auto judged = detail::judge_answer(500, body.dump(), 10000);
    EXPECT_EQ(judged.kind, detail::JudgedAnswer::Kind::Final);
    ASSERT_TRUE(judged.timing) << judged.what;
    EXPECT_EQ(judged.timing->kind, TimingError::Kind::LateCallback);
    EXPECT_EQ(judged.timing->callback, "done");
    EXPECT_EQ(judged.timing->delay_ms, 45.0);
    EXPECT_EQ(judged.timing->tmax_ms, 20.0);
    EXPECT_EQ(judged.timing->tmin_ms, 1.0);
    EXPECT_FALSE(judged.timing->earlier_query);
    EXPECT_EQ(judged.timing->runs, 1u);
    EXPECT_EQ(judged.what.rfind("HTTP 500 timing violation: tmax too small: callback 'done'", 0), 0u) << judged.what;
    // Every kind round-trips; an agent's own retries (runs > 1) and an earlier query travel too.
    const TimingError queued("q", TimingError::Kind::QueuedCallback, "x", 0, 20, 0, true, 5);
    const auto q = detail::judge_answer(500, detail::timing_violation_json(queued).dump(), 10000);
    ASSERT_TRUE(q.timing);
    EXPECT_EQ(q.timing->kind, TimingError::Kind::QueuedCallback);
    EXPECT_TRUE(q.timing->earlier_query);
    EXPECT_EQ(q.timing->runs, 5u);
    // Ill-formed data: an ordinary DeviceError whose message says what is wrong, never a guess.
    auto with = [&](const std::function<void(json&)>& change) {
        json b = body;
        change(b["value"]["timing"]);
        return detail::judge_answer(500, b.dump(), 10000);
    };
    for (const auto& change : std::vector<std::function<void(json&)>>{
             [](json& t) { t["kind"] = "slow"; }, [](json& t) { t["delay_ms"] = -1; },
             [](json& t) { t["tmax_ms"] = "20"; }, [](json& t) { t["runs"] = 0; },
             [](json& t) { t["callback"] = "a\nb"; }, [](json& t) { t = json::array(); }}) {
        const auto bad = with(change);
        EXPECT_FALSE(bad.timing);
        EXPECT_NE(bad.what.find("its timing data is ill-formed"), std::string::npos) << bad.what;
    }
    // Another error code with a `timing` object is not a timing violation.
    json other = body;
    other["value"]["error"] = "device error";
    EXPECT_FALSE(detail::judge_answer(500, other.dump(), 10000).timing);
}

TEST(AgentAnswers, SessionIdsAreUrlSafe) {
    EXPECT_EQ(detail::read_session_answer(json::parse(R"({"session":"9f2c-A_1.~"})"), "c"), "9f2c-A_1.~");
    for (const char* bad : {R"({"session":"../x"})", R"({"session":"a b"})", R"({"session":""})", R"({"session":7})", "[]"})
        EXPECT_THROW((void)detail::read_session_answer(json::parse(bad), "c"), DeviceError) << bad;
    EXPECT_THROW((void)detail::read_session_answer(json{{"session", std::string(129, 'a')}}, "c"), DeviceError);
}

TEST(AgentAnswers, StepAnswersMustFitTheirInput) {
    const detail::StatusAnswer s = detail::read_status_answer(json::parse(kStatus), "device d");
    auto step = [&](const char* answer, std::uint64_t seq, bool is_wait) {
        try {
            return s.outputs.name(detail::read_step_answer(json::parse(answer), seq, is_wait, s.outputs, "q"));
        } catch (const DeviceError& e) {
            return std::string(e.what());
        }
    };
    EXPECT_EQ(step(R"({"seq":3,"output":"err"})", 3, false), "err");
    EXPECT_EQ(step(R"({"seq":3,"output":"onPrepared"})", 3, true), "onPrepared");
    EXPECT_EQ(step(R"({"seq":3,"output":"ok"})", 3, true), R"(q: answer {"output":"ok","seq":3} does not fit the protocol)");
    EXPECT_EQ(step(R"({"seq":2,"output":"ok"})", 3, false), R"(q: answer {"output":"ok","seq":2} does not fit the protocol)");
    EXPECT_EQ(step(R"({"seq":3.0,"output":"ok"})", 3, false),
              R"(q: answer {"output":"ok","seq":3.0} does not fit the protocol)");
    EXPECT_EQ(step(R"({"seq":3,"output":"onFire"})", 3, true),
              R"(q: answer {"output":"onFire","seq":3} does not fit the protocol)");
}

TEST(AgentAnswers, RunAnswersMustKeepTheRunContract) {
    const detail::StatusAnswer s = detail::read_status_answer(json::parse(kStatus), "device d");
    const Word word = word_of({"prepare", "wait", "wait", "start"}, s.inputs);
    auto fits = [&](const char* answer) {
        return detail::read_run_answer(json::parse(answer), word, s.traits, s.outputs).has_value();
    };
    EXPECT_TRUE(fits(R"({"outputs":["ok","onPrepared","quiet","ok"],"steps":4,"waits":2})"));
    EXPECT_TRUE(fits(R"({"outputs":["ok","quiet","quiet","ok"],"steps":3,"waits":1})"));
    EXPECT_TRUE(fits(R"({"outputs":["err","err","err","err"],"steps":1,"waits":0})"));
    EXPECT_FALSE(fits(R"({"outputs":["err","quiet","quiet","ok"],"steps":4,"waits":2})"));        // err absorbs
    EXPECT_FALSE(fits(R"({"outputs":["ok","quiet","onPrepared","ok"],"steps":4,"waits":2})"));    // quiet is stable
    EXPECT_FALSE(fits(R"({"outputs":["ok","ok","quiet","ok"],"steps":4,"waits":2})"));            // wait answered ok
    EXPECT_FALSE(fits(R"({"outputs":["onPrepared","quiet","quiet","ok"],"steps":4,"waits":2})"));  // callin answered a callback
    EXPECT_FALSE(fits(R"({"outputs":["ok","onPrepared","quiet","ok"],"steps":5,"waits":2})"));    // more steps than inputs
    EXPECT_FALSE(fits(R"({"outputs":["ok","onPrepared","quiet","ok"],"steps":4,"waits":3})"));    // more waits than waits
    EXPECT_FALSE(fits(R"({"outputs":["ok","onPrepared","quiet"],"steps":3,"waits":2})"));
    EXPECT_FALSE(fits(R"({"outputs":["ok","onPrepared","quiet","ok"],"steps":-4,"waits":2})"));
    // Without quiet_is_stable a second wait may answer a callback.
    json unstable = json::parse(kStatus);
    unstable["quiet_is_stable"] = false;
    const detail::StatusAnswer u = detail::read_status_answer(unstable, "device d");
    EXPECT_TRUE(detail::read_run_answer(json::parse(R"({"outputs":["ok","quiet","onPrepared","ok"],"steps":4,"waits":2})"),
                                        word, u.traits, u.outputs)
                    .has_value());
}

// HttpDevice writes its request bodies by hand (no JSON document per request): byte for byte what
// dump_json writes for the same objects, for every name an agent may declare, odd ones included.
TEST(AgentRequests, BodiesAreWhatDumpJsonWrites) {
    const std::vector<std::string> names = {"start", "a\"b", "back\\slash", "caf\u00e9", "\xF0\x9F\x8E\xB5", "bad\xFFutf8",
                                            "tab\tcontrol", "wait", "{}[],:", "/v1/run?x=1"};
    std::vector<std::string> names_json;
    for (const auto& n : names) names_json.push_back(detail::json_text(n));
    for (std::size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(names_json[i], detail::dump_json(json(names[i])));
        for (const std::uint64_t seq : {std::uint64_t{0}, std::uint64_t{7}, std::numeric_limits<std::uint64_t>::max()})
            EXPECT_EQ(detail::callin_body(seq, names_json[i]), detail::dump_json(json{{"seq", seq}, {"callin", names[i]}}))
                << names[i];
    }
    for (const auto timeout : {0ms, 100ms, 3600000ms})
        EXPECT_EQ(detail::wait_body(12, timeout), detail::dump_json(json{{"seq", std::uint64_t{12}}, {"timeout_ms", timeout.count()}}));
    const Word word = {0, 1, 2, 1, 5, 9, 3, 4, 6, 7, 8};
    json inputs = json::array();
    for (const Symbol s : word) inputs.push_back(names[s]);
    EXPECT_EQ(detail::run_body(word, names_json), detail::dump_json(json{{"inputs", inputs}}));
    EXPECT_EQ(detail::run_body(Word{}, names_json), detail::dump_json(json{{"inputs", json::array()}}));
    for (const auto timeout : {0ms, 30ms, 3600000ms})
        EXPECT_EQ(detail::run_body(word, names_json, timeout),
                  detail::dump_json(json{{"inputs", inputs}, {"timeout_ms", timeout.count()}}));
}

TEST(AgentAnswers, TimeoutBudgetsSaturate) {
    EXPECT_EQ(detail::request_budget(5000ms, 100ms, 3), 5300ms);
    EXPECT_EQ(detail::request_budget(5000ms, 3600000ms, std::numeric_limits<std::size_t>::max()), 24h);
    EXPECT_EQ(detail::request_budget(-5ms, -100ms, 3), 0ms);
    EXPECT_EQ(detail::request_budget(std::chrono::milliseconds::max(), 1ms, 1), 24h);
}

}  // namespace
}  // namespace typestar
