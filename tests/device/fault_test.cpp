// Faults: an agent that crashes, hangs past the timeout, drops the connection or answers garbage.
// Transient faults are retried (bounded, with backoff) and give the right answer; persistent ones
// end in a DeviceError naming the device and the query; learning stops without a spec.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "http_support.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/http_device.hpp"

namespace typestar {
namespace {

using namespace testing_support;
using namespace std::chrono_literals;

std::vector<std::string> answer(Device& d, const std::vector<std::string>& names) {
    return names_of(d.run(word_of(names, d.inputs())).outputs, d.outputs());
}

std::unique_ptr<Agent> faulty_agent(const std::string& fault, std::chrono::milliseconds hang = 3000ms,
                                    const std::string& key = "asynctask") {
    AgentConfig config;
    config.fault = parse_fault(fault);
    config.fault.hang = hang;
    return start_agent(key, config);
}

HttpConfig quick_retries(const Agent& agent) {
    HttpConfig c = http_config(agent);
    c.retries = 2;
    c.backoff = 5ms;
    c.request_timeout = 300ms;
    return c;
}

std::string error_of(Device& d, const std::vector<std::string>& names) {
    try {
        (void)d.run(word_of(names, d.inputs()));
    } catch (const DeviceError& e) {
        return e.what();
    }
    return "no error";
}

TEST(FaultPlan, Parses) {
    const FaultPlan p = parse_fault("drop:3:2");
    EXPECT_EQ(p.kind, FaultPlan::Kind::Drop);
    EXPECT_EQ(p.after, 3u);
    EXPECT_EQ(p.times, 2u);
    EXPECT_EQ(parse_fault("garbage").after, 0u);
    try {
        (void)parse_fault("melt:1");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "fault 'melt:1': unknown kind 'melt' (none, crash, hang, drop, garbage)");
    }
    EXPECT_THROW((void)parse_fault("drop:x"), std::invalid_argument);
}

/// The faults below with each transport a loopback agent can have: the direct socket (the
/// default) and libcurl (HttpConfig::direct_loopback = false, every remote agent's transport).
/// Answers, attempts and retries are the same; the failure texts are each transport's own.
class FaultsOverEachTransport : public testing::TestWithParam<bool> {
protected:
    HttpConfig config(const Agent& agent) const {
        HttpConfig c = quick_retries(agent);
        c.direct_loopback = GetParam();
        return c;
    }
    /// The text of a transport failure: libcurl's, or the direct transport's.
    [[nodiscard]] std::string failure(const std::string& curl, const std::string& direct) const {
        return GetParam() ? direct : curl;
    }
};

INSTANTIATE_TEST_SUITE_P(Faults, FaultsOverEachTransport, testing::Values(true, false),
                         [](const testing::TestParamInfo<bool>& i) { return i.param ? "direct" : "libcurl"; });

TEST_P(FaultsOverEachTransport, TransientFaultsAreRetriedAndGiveTheRightAnswer) {
    for (const std::string fault : {"drop:0:2", "garbage:0:2"}) {
        auto agent = faulty_agent(fault);
        HttpDevice d(config(*agent));
        EXPECT_EQ(answer(d, {"execute", "wait", "execute"}), (std::vector<std::string>{"ok", "onPostExecute", "err"}))
            << fault;
        EXPECT_EQ(agent->faults_injected(), 2u) << fault;
        // Each transport re-sends once on a reused connection that died; the rest are ours.
        EXPECT_GE(d.retries(), 1u) << fault;
    }
}

TEST_P(FaultsOverEachTransport, AConnectionTheAgentClosedWhileIdleIsOpenedAgainWithoutARetry) {
    // The agent closes a connection idle for 50 ms (its keep-alive runs out, as Node's does after
    // 5 s): the next request finds it closed and goes out once more on a fresh one, not as a retry.
    AgentConfig ac;
    ac.connection_timeout = 50ms;
    auto agent = start_agent("asynctask", ac);
    HttpDevice d(config(*agent));
    EXPECT_EQ(answer(d, {"cancel"}), (std::vector<std::string>{"ok"}));
    for (int i = 0; i < 3; ++i) {
        std::this_thread::sleep_for(150ms);
        EXPECT_EQ(answer(d, {"execute", "wait", "execute"}), (std::vector<std::string>{"ok", "onPostExecute", "err"}));
    }
    EXPECT_EQ(d.retries(), 0u);
}

TEST_P(FaultsOverEachTransport, ALoopbackAgentIsReachedByNameAndOverIpv6) {
    // `localhost` may resolve to ::1 first while the agent listens on 127.0.0.1: the next address is tried.
    auto agent = start_agent("asynctask");
    HttpConfig c = config(*agent);
    c.url = "http://localhost:" + std::to_string(agent->port());
    HttpDevice by_name(c);
    EXPECT_EQ(answer(by_name, {"execute", "wait"}), (std::vector<std::string>{"ok", "onPostExecute"}));
    AgentConfig v6;
    v6.host = "::1";
    std::unique_ptr<Agent> agent6;
    try {
        agent6 = start_agent("asynctask", v6);
    } catch (const std::exception& e) {
        GTEST_SKIP() << "no IPv6 loopback here: " << e.what();
    }
    c.url = "http://[::1]:" + std::to_string(agent6->port());
    HttpDevice over_v6(c);
    EXPECT_EQ(answer(over_v6, {"execute", "wait"}), (std::vector<std::string>{"ok", "onPostExecute"}));
    EXPECT_EQ(over_v6.retries(), 0u);
}

TEST(Faults, ADroppedStepIsRetriedWithItsSequenceNumber) {
    // The agent runs the constructor, then drops the answer; the retry must not run it a second
    // time (a second constructor call would answer err).
    auto agent = faulty_agent("drop:1:1", 3000ms, "sqliteopenhelper");  // request 0 creates the session
    HttpConfig c = quick_retries(*agent);
    c.batch = false;
    HttpDevice d(c);
    d.reset();
    EXPECT_EQ(d.outputs().name(d.step(*d.inputs().find("ctor/fileExists"))), "ok");
    EXPECT_EQ(agent->faults_injected(), 1u);  // the step ran and its answer was lost once
    EXPECT_EQ(d.outputs().name(d.step(*d.inputs().find("ctor/fileExists"))), "err");
    d.finish();
}

TEST_P(FaultsOverEachTransport, PersistentDropEndsInAnErrorNamingDeviceAndQuery) {
    auto agent = faulty_agent("drop");
    HttpDevice d(config(*agent));
    EXPECT_EQ(error_of(d, {"execute", "wait"}),
              "device " + agent->url() + " (AsyncTask): query 'execute wait': " +
                  failure("curl error 52: Server returned nothing (no headers, no data)",
                          "the agent closed the connection without an answer") +
                  " (3 attempts)");
    EXPECT_EQ(d.retries(), 2u);
}

TEST_P(FaultsOverEachTransport, PersistentGarbageEndsInAnError) {
    auto agent = faulty_agent("garbage");
    HttpDevice d(config(*agent));
    EXPECT_EQ(error_of(d, {"cancel"}), "device " + agent->url() +
                                           " (AsyncTask): query 'cancel': garbage answer (HTTP 200, not a JSON object) "
                                           "(3 attempts)");
}

TEST_P(FaultsOverEachTransport, AHangPastTheTimeoutEndsInAnError) {
    auto agent = faulty_agent("hang", 400ms);
    HttpConfig c = config(*agent);
    c.retries = 1;
    c.request_timeout = 100ms;
    HttpDevice d(c);
    const auto start = std::chrono::steady_clock::now();
    const std::string error = error_of(d, {"cancel"});
    const std::string expected = "device " + agent->url() + " (AsyncTask): query 'cancel': " +
                                 failure("curl error 28: Timeout was reached", "no answer within 100 ms");
    EXPECT_EQ(error.rfind(expected, 0), 0u) << error;
    EXPECT_NE(error.find("(2 attempts)"), std::string::npos) << error;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 600ms);  // bounded: 2 attempts of 100 ms + backoff
}

TEST_P(FaultsOverEachTransport, ACrashedAgentEndsInAnError) {
    auto agent = faulty_agent("crash:2");
    HttpDevice d(config(*agent));
    EXPECT_EQ(answer(d, {"cancel"}), (std::vector<std::string>{"ok"}));
    EXPECT_EQ(answer(d, {"execute"}), (std::vector<std::string>{"ok"}));
    EXPECT_NE(error_of(d, {"execute"}).find("query 'execute': " + failure("curl error 52", "the agent closed the connection")),
              std::string::npos);
}

TEST(Faults, ACrashedAgentProcessIsRefusedThenAnError) {
    AgentProcess process({"--class", "asynctask", "--port", "0", "--delay-min", "6", "--delay-max", "10", "--tmax",
                          "50", "--tmin", "1", "--fault", "crash:1"},
                         kToken);
    HttpConfig c;
    c.url = process.url();
    c.token = kToken;
    c.retries = 2;
    c.backoff = 5ms;
    HttpDevice d(c);
    EXPECT_EQ(answer(d, {"cancel"}), (std::vector<std::string>{"ok"}));
    const std::string error = error_of(d, {"execute", "wait"});  // the process exits on this request
    EXPECT_EQ(process.wait_exit(), 70);
    EXPECT_EQ(error.rfind("device " + process.url() + " (AsyncTask): query 'execute wait': ", 0), 0u) << error;
    EXPECT_NE(error.find("(3 attempts)"), std::string::npos) << error;
}

TEST(Faults, LearningStopsWithoutASpecAndTransientFaultsDoNotChangeIt) {
    const auto spec = source_spec("specs/asynctask.yaml");
    {
        auto agent = faulty_agent("drop:10:3");  // three drops in a row: within 3 retries
        std::vector<std::unique_ptr<Device>> devices;
        HttpConfig c = quick_retries(*agent);
        c.retries = 3;
        devices.push_back(std::make_unique<HttpDevice>(c));
        const auto learned = learn_from_scratch(std::move(devices), "AsyncTask");
        EXPECT_TRUE(behaves_as(learned.typestate, spec));
    }
    {
        auto agent = faulty_agent("garbage:10");
        std::vector<std::unique_ptr<Device>> devices;
        devices.push_back(std::make_unique<HttpDevice>(quick_retries(*agent)));
        std::optional<Learned> learned;
        EXPECT_THROW(learned = learn_from_scratch(std::move(devices), "AsyncTask"), DeviceError);
        EXPECT_FALSE(learned.has_value());  // nothing learned, nothing to write
    }
}

}  // namespace
}  // namespace typestar
