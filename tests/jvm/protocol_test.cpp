// The JVM agent (typestar-agent.jar) speaks /v1 like typestar-device: status, batch and step-wise
// answers through HttpDevice, sequence numbers and retries, WebDriver-style errors, the bearer
// token, Origin and size limits, sessions (request ids, the instance limit, idle reaping), timing
// violations answered as `timing violation` (with their data), harness failures as `device error`, and fault injection. One agent serves
// the probe class (typestar.testing.ProbePurpose) for the whole suite; a few tests start their own.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "jvm_support.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/http_device.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;
using namespace jvm_testing;
using namespace std::chrono_literals;

std::vector<std::string> answer(Device& d, const std::vector<std::string>& names) {
    Word w;
    for (const auto& n : names) w.push_back(d.inputs().at(n));
    std::vector<std::string> out;
    for (const Symbol s : d.run(w).outputs) out.push_back(d.outputs().name(s));
    return out;
}

bool has_header(std::string headers, std::string line) {  // header names are case-insensitive
    for (auto& c : headers) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (auto& c : line) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return headers.find(line) != std::string::npos;
}

class JvmAgent : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        agent_ = std::make_unique<JavaAgent>(std::vector<std::string>{
            "--class-purpose", "typestar.testing.ProbePurpose", "--port", "0", "--max-body", "256",
            "--idle-timeout", "1", "--max-sessions", "4"});
    }
    static void TearDownTestSuite() { agent_.reset(); }
    void SetUp() override { ASSERT_FALSE(agent_->url().empty()) << "the JVM agent did not start"; }

    static std::string url() { return agent_->url(); }
    static HttpConfig config(bool batch = true) {
        HttpConfig c;
        c.url = url();
        c.token = kToken;
        c.batch = batch;
        return c;
    }
    static std::string session() {
        const auto created = authorized("POST", url() + "/v1/sessions", "{}");
        EXPECT_EQ(created.status, 201) << created.body;
        return json::parse(created.body)["session"];
    }
    static RawReply callin(const std::string& id, int seq, const std::string& name) {
        return authorized("POST", url() + "/v1/sessions/" + id + "/callin",
                          json{{"seq", seq}, {"callin", name}}.dump());
    }
    static RawReply wait(const std::string& id, int seq) {
        return authorized("POST", url() + "/v1/sessions/" + id + "/wait", json{{"seq", seq}}.dump());
    }

    static std::unique_ptr<JavaAgent> agent_;
};
std::unique_ptr<JavaAgent> JvmAgent::agent_;

TEST_F(JvmAgent, StatusDescribesThePurpose) {
    const auto status = authorized("GET", url() + "/v1/status");
    EXPECT_EQ(status.status, 200);
    EXPECT_TRUE(has_header(status.headers, "content-type: application/json"));
    EXPECT_EQ(status.body,
              R"({"agent":"typestar-jvm","callbacks":["done"],"callins":["start","refuse","once","late","now","bogus",)"
              R"("broken","finish","explode"],"framework":"probe-1","max_sessions":4,"name":"Probe","outside_purpose":true,)"
              R"("protocol":"typestar-device/1",)"
              R"("quiet_is_stable":true,"run_timeout":true,"sessions":0,"timing":{"tmax_ms":80,"tmin_ms":5}})");
    HttpDevice d(config());
    EXPECT_EQ(d.status().protocol, "typestar-device/1");
    EXPECT_EQ(d.status().name, "Probe");
    EXPECT_EQ(d.status().framework, "probe-1");
    EXPECT_EQ(d.status().timing, (QuiescenceTiming{80ms, 5ms}));
    EXPECT_TRUE(d.status().quiet_is_stable);
    EXPECT_TRUE(d.traits().quiet.has_value());
    EXPECT_EQ(d.inputs().names(), (std::vector<std::string>{"start", "refuse", "once", "late", "now", "bogus", "broken", "finish", "explode", "wait"}));
}

TEST_F(JvmAgent, BatchAndStepwiseRunsGiveTheSameAnswers) {
    HttpDevice batch(config(true));
    HttpDevice stepwise(config(false));
    for (const auto& w : std::vector<std::vector<std::string>>{{"start", "wait", "wait"},
                                                                {"refuse", "start", "wait"},
                                                                {"once", "once", "start"},
                                                                {"start", "wait", "start", "wait", "wait"},
                                                                {"wait", "wait", "once"}}) {
        const auto before = batch.requests();
        const auto a = answer(batch, w);
        EXPECT_EQ(batch.requests(), before + 1);  // one round trip per query
        EXPECT_EQ(a, answer(stepwise, w));
    }
    EXPECT_EQ(answer(batch, {"start", "wait", "wait"}), (std::vector<std::string>{"ok", "done", "quiet"}));
    EXPECT_EQ(answer(batch, {"once", "once", "start"}), (std::vector<std::string>{"ok", "err", "err"}));
    EXPECT_EQ(batch.retries(), 0u);
    EXPECT_EQ(stepwise.retries(), 0u);
}

TEST_F(JvmAgent, RunStopsAtErrAndSkipsAWaitAfterQuietWhenQuietIsStable) {
    const auto r = authorized("POST", url() + "/v1/run", R"({"inputs":["start","wait","wait","wait","refuse","start"]})");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, R"({"outputs":["ok","done","quiet","quiet","err","err"],"steps":4,"waits":2})");
}

TEST_F(JvmAgent, ARefusedCallinNamesItsExceptionAndErrIsAbsorbing) {
    const std::string id = session();
    EXPECT_EQ(callin(id, 0, "refuse").body, R"({"exception":"java.lang.IllegalStateException","output":"err","seq":0})");
    EXPECT_EQ(callin(id, 1, "start").body, R"({"output":"err","seq":1})");  // not run
    EXPECT_EQ(wait(id, 2).body, R"({"output":"err","seq":2})");
    EXPECT_EQ(authorized("DELETE", url() + "/v1/sessions/" + id).status, 200);
}

TEST_F(JvmAgent, MergedCallbacksAndTheLearningPurposeFilter) {
    // `finish` emits the raw callback `finished`, merged into `done`; at most one start/finish may
    // wait for its `done`: a second one is outside the purpose (err marked outside_purpose, not run,
    // no exception).
    const auto r = authorized("POST", url() + "/v1/run", R"({"inputs":["finish","wait","start","start","wait"]})");
    EXPECT_EQ(r.body, R"({"outputs":["ok","done","ok","err","err"],"outside_purpose":3,"steps":4,"waits":1})");
    const std::string id = session();
    EXPECT_EQ(callin(id, 0, "start").body, R"({"output":"ok","seq":0})");
    EXPECT_EQ(callin(id, 1, "finish").body, R"({"output":"err","outside_purpose":true,"seq":1})");
    authorized("DELETE", url() + "/v1/sessions/" + id);
}

TEST_F(JvmAgent, ARetriedStepIsAnsweredAgainNotRunTwice) {
    const std::string id = session();
    const auto first = callin(id, 0, "once");
    const auto retry = callin(id, 0, "once");
    EXPECT_EQ(first.body, R"({"output":"ok","seq":0})");
    EXPECT_EQ(retry.body, first.body);  // run a second time, `once` would have answered err
    EXPECT_EQ(callin(id, 1, "once").body, R"({"exception":"java.lang.IllegalStateException","output":"err","seq":1})");
    const auto skipped = callin(id, 5, "start");
    EXPECT_EQ(skipped.status, 409);
    EXPECT_EQ(skipped.body, R"({"value":{"error":"sequence mismatch","message":"expected seq 2, got 5","stacktrace":""}})");
    EXPECT_EQ(authorized("DELETE", url() + "/v1/sessions/" + id).body, R"({"deleted":true,"session":")" + id + R"("})");
    EXPECT_EQ(authorized("DELETE", url() + "/v1/sessions/" + id).status, 404);
}

TEST_F(JvmAgent, WaitAnswersTheCallbackOrQuietAfterTheTimeout) {
    const std::string id = session();
    EXPECT_EQ(callin(id, 0, "start").body, R"({"output":"ok","seq":0})");
    EXPECT_EQ(wait(id, 1).body, R"({"output":"done","seq":1})");
    const auto start = std::chrono::steady_clock::now();
    const auto quiet = authorized("POST", url() + "/v1/sessions/" + id + "/wait", R"({"seq":2,"timeout_ms":5})");
    EXPECT_EQ(quiet.body, R"({"output":"quiet","seq":2})");
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
    const auto bad = authorized("POST", url() + "/v1/sessions/" + id + "/wait", R"({"seq":3,"timeout_ms":-1})");
    EXPECT_EQ(bad.status, 400);
    EXPECT_EQ(json::parse(bad.body)["value"]["message"], "timeout_ms must be an integer in [0, 3600000]");
    authorized("DELETE", url() + "/v1/sessions/" + id);
}

TEST_F(JvmAgent, ErrorsAreWebDriverStyleJson) {
    const auto unknown_session = authorized("POST", url() + "/v1/sessions/nope/callin", R"({"seq":0,"callin":"x"})");
    EXPECT_EQ(unknown_session.status, 404);
    EXPECT_EQ(unknown_session.body,
              R"j({"value":{"error":"invalid session id","message":"no session 'nope' (ended or reaped)","stacktrace":""}})j");
    const auto unknown_command = authorized("GET", url() + "/v1/teapot");
    EXPECT_EQ(unknown_command.status, 404);
    EXPECT_EQ(json::parse(unknown_command.body)["value"]["error"], "unknown command");
    const auto method = authorized("GET", url() + "/v1/run");
    EXPECT_EQ(method.status, 405);
    EXPECT_EQ(json::parse(method.body)["value"]["error"], "unknown method");
    const auto bad_input = authorized("POST", url() + "/v1/run", R"({"inputs":["start","fly"]})");
    EXPECT_EQ(bad_input.status, 400);
    EXPECT_EQ(bad_input.body, R"({"value":{"error":"invalid argument","message":"unknown input \"fly\"","stacktrace":""}})");
    for (const std::string body : {"inputs=start", "{\"inputs\":[\"start\"]} trailing", "[1]", "{inputs:[]}"}) {
        const auto not_json = authorized("POST", url() + "/v1/run", body);
        EXPECT_EQ(not_json.status, 400) << body;
        EXPECT_EQ(json::parse(not_json.body)["value"]["message"], "the request body is not a JSON object") << body;
    }
    const std::string id = session();
    EXPECT_EQ(json::parse(authorized("POST", url() + "/v1/sessions/" + id + "/callin", R"({"callin":"start"})").body)
                  ["value"]["message"], "seq (a non-negative integer) is required");
    EXPECT_EQ(json::parse(authorized("POST", url() + "/v1/sessions/" + id + "/callin", R"({"seq":1.0,"callin":"start"})").body)
                  ["value"]["message"], "seq (a non-negative integer) is required");
    EXPECT_EQ(json::parse(callin(id, 0, "fly").body)["value"]["message"], "unknown callin 'fly'");
    EXPECT_EQ(json::parse(callin(id, 0, "wait").body)["value"]["message"], "unknown callin 'wait'");
    authorized("DELETE", url() + "/v1/sessions/" + id);
}

TEST_F(JvmAgent, BrowserOriginsAndOversizedRequestsAreRefused) {
    const std::string auth = std::string("Authorization: Bearer ") + kToken;
    const auto browser = raw_request("GET", url() + "/v1/status", "", {auth, "Origin: http://evil.example"});
    EXPECT_EQ(browser.status, 403);
    EXPECT_EQ(json::parse(browser.body)["value"]["error"], "forbidden");
    const auto empty_origin = raw_request("GET", url() + "/v1/status", "", {auth, "Origin;"});  // curl: an empty header
    EXPECT_EQ(empty_origin.status, 403);
    const auto unauthenticated_browser = raw_request("GET", url() + "/v1/status", "", {"Origin: null"});
    EXPECT_EQ(unauthenticated_browser.status, 403);
    const auto big = authorized("POST", url() + "/v1/run", R"({"inputs":[)" + std::string(300, ' ') + "]}");
    EXPECT_EQ(big.status, 413);
    EXPECT_EQ(json::parse(big.body)["value"]["message"], "request body exceeds 256 bytes");
    const auto huge_header = raw_request("GET", url() + "/v1/status", "", {auth, "X-Pad: " + std::string(20000, 'a')});
    EXPECT_EQ(huge_header.status, 431);
    EXPECT_EQ(json::parse(huge_header.body)["value"]["message"], "request headers exceed 16384 bytes");
    const auto chunked = raw_request("POST", url() + "/v1/run", R"({"inputs":[]})", {auth, "Transfer-Encoding: chunked"});
    EXPECT_EQ(chunked.status, 411);
    // The agent still answers after all of that.
    EXPECT_EQ(authorized("GET", url() + "/v1/status").status, 200);
}

TEST_F(JvmAgent, TimingViolationsAreTimingErrorsWithTheirDataNeverAnswers) {
    // A callback inside the callin: sooner than tmin (5 ms). Answered as a `timing violation` with its
    // data (before: a `device error` with text only, PROTOCOL.md).
    auto r = authorized("POST", url() + "/v1/run", R"({"inputs":["now","wait"]})");
    EXPECT_EQ(r.status, 500);
    EXPECT_EQ(json::parse(r.body)["value"]["error"], "timing violation");
    EXPECT_NE(r.body.find("jvm:Probe: tmin violated: callback 'done' arrived"), std::string::npos) << r.body;
    const json early = json::parse(r.body)["value"]["timing"];
    EXPECT_EQ(early["kind"], "early") << r.body;
    EXPECT_EQ(early["callback"], "done") << r.body;
    EXPECT_LT(early["delay_ms"].get<double>(), 5.0) << r.body;
    EXPECT_EQ(early["tmin_ms"], 5) << r.body;
    EXPECT_EQ(early["earlier_query"], false) << r.body;
    EXPECT_EQ(early["runs"], 1) << r.body;
    // A callback queued before the next callin could run.
    std::string id = session();
    EXPECT_EQ(callin(id, 0, "start").status, 200);
    std::this_thread::sleep_for(60ms);
    r = callin(id, 1, "once");
    EXPECT_EQ(r.status, 500);
    EXPECT_NE(r.body.find("tmin violated: callback 'done' arrived before callin 'once' could run, in query"),
              std::string::npos) << r.body;
    EXPECT_EQ(json::parse(r.body)["value"]["timing"]["kind"], "queued") << r.body;
    EXPECT_EQ(callin(id, 1, "once").body, r.body);  // the error is the stored answer of step 1
    authorized("DELETE", url() + "/v1/sessions/" + id);
    // A callback after a wait answered quiet (tmax too small): reported at the next step.
    id = session();
    EXPECT_EQ(callin(id, 0, "late").body, R"({"output":"ok","seq":0})");
    EXPECT_EQ(wait(id, 1).body, R"({"output":"quiet","seq":1})");
    std::this_thread::sleep_for(300ms);
    r = callin(id, 2, "once");
    EXPECT_EQ(r.status, 500);
    EXPECT_NE(r.body.find("tmax too small: callback 'done' arrived"), std::string::npos) << r.body;
    const json late = json::parse(r.body)["value"]["timing"];
    EXPECT_EQ(late["kind"], "late") << r.body;
    EXPECT_GE(late["delay_ms"].get<double>(), 80.0) << r.body;  // tmax 80 ms
    EXPECT_EQ(late["earlier_query"], false) << r.body;  // this session's query: re-runnable
    authorized("DELETE", url() + "/v1/sessions/" + id);
    // ... also when it arrives after the query ended: reported on the next query of that instance.
    EXPECT_EQ(authorized("POST", url() + "/v1/run", R"({"inputs":["late","wait"]})").body,
              R"({"outputs":["ok","quiet"],"steps":2,"waits":1})");
    std::this_thread::sleep_for(300ms);
    r = authorized("POST", url() + "/v1/run", R"({"inputs":["start"]})");
    EXPECT_EQ(r.status, 500);
    EXPECT_NE(r.body.find("tmax too small"), std::string::npos) << r.body;
    EXPECT_EQ(json::parse(r.body)["value"]["timing"]["earlier_query"], true) << r.body;  // never re-run
    EXPECT_EQ(authorized("POST", url() + "/v1/run", R"({"inputs":["start"]})").status, 200);  // reported once
}

TEST_F(JvmAgent, ACallbackInTheQuietGraceAfterARunIsThisRunsViolationAndIsRerun) {
    // `late` calls back after 250 ms. With the waits at 220 ms the run's last wait answers quiet,
    // and the agent listens a grace of min(220, tmax 80) ms more before answering the run (as the
    // C++ agent does): the callback is a violation of THIS run (earlier_query false), so the client
    // re-runs the word and, late on every run, names it. The callback's timer and the agent's wait
    // run on different JVM threads, 30 and 50 ms apart: on a loaded machine a run may hear it in the
    // wait (`ok done`, on time) or past the grace. So the scenario is tried up to 5 times and must
    // show the grace's violation on one try; the old agent (no grace) answered `ok quiet` each time.
    std::string tries;
    bool shown = false;
    for (int attempt = 0; attempt < 5 && !shown; ++attempt) {
        HttpDevice remote(config());
        TimingOverride o;
        o.tmax = 220ms;
        ASSERT_TRUE(remote.override_timing(o));
        std::string first, retried;
        try {
            const RunResult r = remote.run(word_of({"late", "wait"}, remote.inputs()));
            first = "answered " + to_string(r.outputs, remote.outputs());
        } catch (const TimingError& e) {
            if (!e.earlier_query() && e.callback() == "done" && e.kind() == TimingError::Kind::LateCallback)
                first = "ok";
            else
                first = e.what();
        }
        std::this_thread::sleep_for(300ms);  // a callback past the grace is not the next try's
        try {
            const RunResult r = run_with_timing_retries(remote, word_of({"late", "wait"}, remote.inputs()));
            retried = "answered " + to_string(r.outputs, remote.outputs());
        } catch (const TimingError& e) {
            if (e.runs() == kTimingRetries + 1 && e.callback() == "done") retried = "ok";
            else retried = e.what();
        }
        std::this_thread::sleep_for(300ms);
        shown = first == "ok" && retried == "ok";
        tries += "\n  try " + std::to_string(attempt + 1) + ": " + first + " / " + retried;
    }
    EXPECT_TRUE(shown) << "no try showed this run's violation, re-run " << kTimingRetries + 1 << " times:" << tries;
}

TEST_F(JvmAgent, AnOverriddenTmaxTravelsWithTheRunAndALateCallbackIsStillAnError) {
    // `late` calls back after 250 ms; the agent's tmax is 80 ms. An override of 400 ms hears it, in
    // one round trip carrying timeout_ms.
    HttpDevice longer(config());
    ASSERT_TRUE(longer.status().run_timeout);
    TimingOverride o;
    o.tmax = 400ms;
    ASSERT_TRUE(longer.override_timing(o));
    auto before = longer.requests();
    EXPECT_EQ(answer(longer, {"late", "wait"}), (std::vector<std::string>{"ok", "done"}));
    EXPECT_EQ(longer.requests(), before + 1);
    // An override of 100 ms answers quiet there; the callback then is a timing error, never an answer.
    HttpDevice shorter(config());
    o.tmax = 100ms;
    ASSERT_TRUE(shorter.override_timing(o));
    before = shorter.requests();
    EXPECT_EQ(answer(shorter, {"late", "wait"}), (std::vector<std::string>{"ok", "quiet"}));
    EXPECT_EQ(shorter.requests(), before + 1);
    std::this_thread::sleep_for(300ms);
    try {
        (void)answer(shorter, {"start"});
        FAIL() << "expected TimingError";
    } catch (const TimingError& e) {
        EXPECT_NE(std::string(e.what()).find("HTTP 500 timing violation: jvm:Probe: tmax too small"), std::string::npos)
            << e.what();
        EXPECT_EQ(e.callback(), "done");
        EXPECT_TRUE(e.earlier_query());
    }
}

TEST_F(JvmAgent, CallbacksCausedByTheTeardownAreIgnored) {
    // The probe's teardown emits `done`; after a query that ended with a quiet wait, a class's own
    // callback would be a tmax violation, the teardown's is not.
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(authorized("POST", url() + "/v1/run", R"({"inputs":["wait"]})").body,
                  R"({"outputs":["quiet"],"steps":1,"waits":1})");
}

TEST_F(JvmAgent, UndeclaredCallbacksAndHarnessFailuresAreDeviceErrors) {
    auto r = authorized("POST", url() + "/v1/run", R"({"inputs":["bogus","wait"]})");
    EXPECT_EQ(r.status, 500);
    EXPECT_NE(r.body.find("undeclared callback 'mystery' emitted in query"), std::string::npos) << r.body;
    r = authorized("POST", url() + "/v1/run", R"({"inputs":["broken"]})");
    EXPECT_EQ(r.status, 500);
    EXPECT_EQ(r.body, R"({"value":{"error":"device error","message":"jvm:Probe: callin 'broken': the harness failed: )"
                      R"(the probe's harness broke","stacktrace":""}})");
    HttpDevice d(config());
    Word w{d.inputs().at("broken")};
    EXPECT_THROW((void)d.run(w), DeviceError);
    // A filter that throws: device error, and the instance goes back to the pool (4 instances, 6 runs).
    for (int i = 0; i < 6; ++i) {
        r = authorized("POST", url() + "/v1/run", R"({"inputs":["explode"]})");
        EXPECT_EQ(r.status, 500);
        EXPECT_EQ(json::parse(r.body)["value"]["message"],
                  "jvm:Probe: the learning-purpose filter threw java.lang.IllegalStateException: filter bug");
    }
    EXPECT_EQ(authorized("POST", url() + "/v1/run", R"({"inputs":["once"]})").status, 200);
}

TEST_F(JvmAgent, SessionsAreLimitedRetriedCreatesAreIdempotentIdleOnesAreReaped) {
    const auto a = authorized("POST", url() + "/v1/sessions", R"({"request_id":"r1"})");
    const auto b = authorized("POST", url() + "/v1/sessions", R"({"request_id":"r1"})");
    EXPECT_EQ(a.status, 201);
    EXPECT_EQ(a.body, b.body);
    std::vector<std::string> ids{json::parse(a.body)["session"]};
    for (int i = 0; i < 3; ++i) ids.push_back(session());
    const auto full = authorized("POST", url() + "/v1/sessions", "{}");
    EXPECT_EQ(full.status, 503);
    EXPECT_EQ(full.body, R"({"value":{"error":"session not created","message":"all 4 instances are in use","stacktrace":""}})");
    EXPECT_EQ(json::parse(authorized("GET", url() + "/v1/status").body)["sessions"], 4);
    for (const auto& id : ids) EXPECT_EQ(authorized("DELETE", url() + "/v1/sessions/" + id).status, 200);
    const std::string idle = session();
    std::this_thread::sleep_for(1600ms);  // --idle-timeout 1
    EXPECT_EQ(callin(idle, 0, "start").status, 404);
    EXPECT_EQ(json::parse(authorized("GET", url() + "/v1/status").body)["sessions"], 0);
}

TEST(JvmAgentBinary, DeclaresQuietUnstableUnlessThePurposeSaysSoAndReadsATokenFile) {
    const auto path = std::filesystem::temp_directory_path() / ("typestar-jvm-token-" + std::to_string(::getpid()));
    std::ofstream(path) << "  from-file \n";
    ::chmod(path.c_str(), 0600);
    JavaAgent agent({"--class-purpose", "typestar.testing.ProbePurpose$Unstable", "--port", "0", "--token-file", path.string()},
                    {});
    std::filesystem::remove(path);
    ASSERT_FALSE(agent.url().empty());
    HttpConfig c;
    c.url = agent.url();
    c.token = "from-file";
    HttpDevice d(c);
    EXPECT_FALSE(d.status().quiet_is_stable);
    EXPECT_FALSE(d.traits().quiet.has_value());
    const auto r = raw_request("POST", agent.url() + "/v1/run", R"({"inputs":["start","wait","wait","wait"]})",
                               {"Authorization: Bearer from-file"});
    EXPECT_EQ(r.body, R"({"outputs":["ok","done","quiet","quiet"],"steps":4,"waits":3})");  // no wait skipped
}

TEST(JvmAgentBinary, RefusesToStartWithoutAPrivateTokenOrAPurpose) {
    {
        JavaAgent agent({"--class-purpose", "typestar.testing.ProbePurpose", "--port", "0"}, {});
        EXPECT_EQ(agent.wait_exit(), 2);
        EXPECT_EQ(agent.error_output(),
                  "typestar-agent: a bearer token is required: set TYPESTAR_DEVICE_TOKEN or use --token-file\n");
    }
    const auto path = std::filesystem::temp_directory_path() / ("typestar-jvm-token-" + std::to_string(::getpid()));
    std::ofstream(path) << "secret\n";
    ::chmod(path.c_str(), 0644);
    {
        JavaAgent agent({"--class-purpose", "typestar.testing.ProbePurpose", "--port", "0"},
                        {{"TYPESTAR_DEVICE_TOKEN_FILE", path.string()}});
        EXPECT_EQ(agent.wait_exit(), 1);
        EXPECT_EQ(agent.error_output(), "typestar-agent: token file '" + path.string() +
                                            "' is accessible by group or others (mode 644); make it 0600\n");
    }
    std::filesystem::remove(path);
    {
        JavaAgent agent({"--class-purpose", "typestar.testing.ProbePurpose$Reserved", "--port", "0"});
        EXPECT_EQ(agent.wait_exit(), 1);
        EXPECT_EQ(agent.error_output(), "typestar-agent: class 'Reserved': reserved name 'wait' used as a callin\n");
    }
    {
        JavaAgent agent({"--class-purpose", "no.such.Purpose", "--port", "0"});
        EXPECT_EQ(agent.wait_exit(), 1);
        EXPECT_EQ(agent.error_output(), "typestar-agent: class 'no.such.Purpose' not found on the class path\n");
    }
}

TEST(JvmAgentBinary, InjectedFaultsAreRetriedOrReported) {
    {
        // Request 0 creates the session, request 1 runs `once` and its answer is dropped twice: the
        // retries get the stored answer, so `once` ran once (a second run would answer err).
        JavaAgent agent({"--class-purpose", "typestar.testing.ProbePurpose", "--port", "0", "--fault", "drop:1:2"});
        HttpConfig c;
        c.url = agent.url();
        c.token = kToken;
        c.batch = false;
        HttpDevice d(c);
        d.reset();
        EXPECT_EQ(d.outputs().name(d.step(d.inputs().at("once"))), "ok");
        EXPECT_EQ(d.outputs().name(d.step(d.inputs().at("once"))), "err");
        d.finish();
        EXPECT_GE(d.retries(), 1u);  // libcurl re-sends once on a reused connection that died; the rest are ours
    }
    {
        JavaAgent agent({"--class-purpose", "typestar.testing.ProbePurpose", "--port", "0", "--fault", "garbage:0:1"});
        HttpConfig c;
        c.url = agent.url();
        c.token = kToken;
        c.batch = false;
        HttpDevice d(c);
        EXPECT_EQ(answer(d, {"once", "once"}), (std::vector<std::string>{"ok", "err"}));  // a garbage create, retried
        EXPECT_EQ(d.retries(), 1u);
    }
    {
        JavaAgent agent({"--class-purpose", "typestar.testing.ProbePurpose", "--port", "0", "--fault", "crash:1"});
        HttpConfig c;
        c.url = agent.url();
        c.token = kToken;
        c.retries = 1;
        HttpDevice d(c);
        EXPECT_EQ(answer(d, {"start"}), (std::vector<std::string>{"ok"}));
        EXPECT_THROW((void)answer(d, {"start"}), DeviceError);
        EXPECT_EQ(agent.wait_exit(), 70);
    }
}

}  // namespace
}  // namespace typestar
