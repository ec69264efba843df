// Mealy devices (issue 34 item 4): a device may declare that its callins answer named outputs (any
// number of them, not only ok/err), that `err` is not absorbing, and that it has no `wait` input.
// The C++ purpose serves it in process and over /v1, the client learns an output never declared
// (recorded in the spec), the learned spec round-trips as YAML, and a check fails on a changed
// output with the output named in the trace.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "http_answers.hpp"
#include "http_support.hpp"
#include "learning_support.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/session/session.hpp"
#include "typestar/sul/parallel.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// A small broker session: connect answers CONNACK (a second connect closes the session), publish
// answers PUBACK when connected and is refused (throws: err) otherwise; subscribe answers SUBACK,
// an output the purpose never declares (learned when first answered). `err` is not absorbing: the
// session goes on after a refused publish.
struct Broker {
    bool connected = false;
    bool puback_is_pubrec = false;  // the "upgrade": publish answers PUBREC
};

ClassDefinition broker(bool upgraded = false) {
    return LearningPurpose<Broker>("Broker")
        .framework("toy-1")
        .reset([upgraded](const std::shared_ptr<CallbackSink>&) {
            auto b = std::make_shared<Broker>();
            b->puback_is_pubrec = upgraded;
            return b;
        })
        .callin_answering("connect",
                          [](Broker& b) -> std::string {
                              if (b.connected) {
                                  b.connected = false;
                                  return "ConnectionClosed";
                              }
                              b.connected = true;
                              return "CONNACK";
                          })
        .callin_answering("publish",
                          [](Broker& b) -> std::string {
                              if (!b.connected) throw std::logic_error("not connected");
                              return b.puback_is_pubrec ? "PUBREC" : "PUBACK";
                          })
        .callin_answering("subscribe", [](Broker& b) -> std::string { return b.connected ? "SUBACK" : "ok"; })
        .outputs({"CONNACK", "PUBACK", "ConnectionClosed"})
        .no_wait()
        .err_not_absorbing()
        .timing({5ms, 0ms})
        .deterministic()
        .build();
}

TEST(MealyDevice, InProcessAnswersNamedOutputsWithoutWaitAndErrGoesOn) {
    InProcessDevice d(broker());
    EXPECT_FALSE(d.inputs().contains("wait"));
    EXPECT_FALSE(d.traits().wait);
    EXPECT_FALSE(d.traits().absorbing);  // declared: err is an output like any other
    EXPECT_FALSE(d.outputs().contains("SUBACK"));
    EXPECT_EQ(testing_support::answer_names(d, {"publish", "connect", "publish", "subscribe", "connect", "publish"}),
              (std::vector<std::string>{"err", "CONNACK", "PUBACK", "SUBACK", "ConnectionClosed", "err"}));
    EXPECT_TRUE(d.outputs().contains("SUBACK"));  // learned when first answered
}

TEST(MealyDevice, ACallinAnsweringANameThatCannotBeAnOutputIsADeviceError) {
    ClassDefinition def = broker();
    def.callins[2].variants[0].answer = [](void*) { return std::string("quiet"); };
    InProcessDevice d(def);
    EXPECT_THROW((void)testing_support::answer_names(d, {"subscribe"}), DeviceError);
}

constexpr const char* kLearned =
    "typestar: 2\n"
    "kind: typestate\n"
    "name: Broker\n"
    "callins:\n"
    "  - connect\n"
    "  - publish\n"
    "  - subscribe\n"
    "callbacks: []\n"
    "outputs: [CONNACK, ConnectionClosed, PUBACK, SUBACK, err]\n"
    "absorbing: []\n"
    "wait: false\n"
    "initial: s0\n"
    "bounds: {distinguisher: 2}\n"
    "states:\n"
    "  s0:\n"
    "    callins:\n"
    "      connect: {output: CONNACK, to: s1}\n"
    "      publish: {output: err, to: s0}\n"
    "      subscribe: s0\n"
    "  s1:\n"
    "    callins:\n"
    "      connect: {output: ConnectionClosed, to: s0}\n"
    "      publish: {output: PUBACK, to: s1}\n"
    "      subscribe: {output: SUBACK, to: s1}\n";

TEST(MealyDevice, LearnsTheSpecWithEveryOutputInProcessAndOverHttp) {
    InProcessDevice local(broker());
    LearnedSpec learned = testing_support::learn_at_bound_2(local);
    ASSERT_TRUE(learned.spec.has_value()) << learned.not_a_closure;
    spec::Spec s = *learned.spec;
    s.provenance = {};
    EXPECT_EQ(spec::write_spec(s), kLearned);

    AgentConfig config;
    config.token = testing_support::kToken;
    Agent agent([] { return std::make_unique<InProcessDevice>(broker()); }, config);
    agent.start();
    const json status = json::parse(testing_support::authorized("GET", agent.url() + "/v1/status").body);
    EXPECT_EQ(status["wait"], false);
    EXPECT_EQ(status["absorbing"], json::array());
    EXPECT_EQ(status["outputs"], json::parse(R"(["CONNACK", "PUBACK", "ConnectionClosed"])"));
    EXPECT_EQ(status["callbacks"], json::array());
    for (const bool batch : {true, false}) {
        HttpConfig c;
        c.url = agent.url();
        c.token = testing_support::kToken;
        c.batch = batch;
        HttpDevice d(c);
        EXPECT_FALSE(d.inputs().contains("wait"));
        EXPECT_EQ(testing_support::answer_names(d, {"publish", "connect", "subscribe", "publish"}),
                  (std::vector<std::string>{"err", "CONNACK", "SUBACK", "PUBACK"}))
            << "batch " << batch;
        spec::Spec over_http = *testing_support::learn_at_bound_2(d).spec;
        over_http.provenance = {};
        EXPECT_EQ(spec::write_spec(over_http), kLearned) << "batch " << batch;
    }
}

TEST(MealyDevice, ACheckFailsOnAChangedOutputAndNamesIt) {
    const spec::Spec stored = spec::parse_spec(kLearned, "broker.yaml");
    InProcessDevice same(broker());
    Device* same_devices[] = {&same};
    EXPECT_EQ(check_spec(stored, same_devices).verdict, Verdict::Pass);
    InProcessDevice upgraded(broker(/*upgraded=*/true));
    Device* devices[] = {&upgraded};
    const CheckReport report = check_spec(stored, devices);
    ASSERT_EQ(report.verdict, Verdict::Fail);
    ASSERT_TRUE(report.counterexample.has_value());
    bool named = false;
    for (const auto& step : report.trace) named = named || (step.actual == "PUBREC" && step.expected == "PUBACK");
    EXPECT_TRUE(named) << "the trace names the new output PUBREC where the spec expects PUBACK";
}

TEST(MealyDevice, AnHttpClientLearnsUndeclaredNamesOnlyFromAMealyAgent) {
    // A callback-typestate agent (no `outputs` field) answering a named output breaks the protocol.
    const json plain = json::parse(R"({"protocol": "typestar-device/1", "name": "X", "callins": ["a"],
        "callbacks": [], "timing": {"tmax_ms": 10, "tmin_ms": 0}})");
    detail::StatusAnswer s = detail::read_status_answer(plain, "device");
    EXPECT_FALSE(s.first_named);
    EXPECT_THROW((void)detail::read_step_answer(json::parse(R"({"seq": 0, "output": "CONNACK"})"), 0, false,
                                                s.outputs, s.first_named, "ctx"),
                 DeviceError);
    json mealy = plain;
    mealy["outputs"] = json::array({"CONNACK"});
    mealy["wait"] = false;
    detail::StatusAnswer m = detail::read_status_answer(mealy, "device");
    ASSERT_TRUE(m.first_named);
    EXPECT_FALSE(m.inputs.contains("wait"));
    const Symbol learned = detail::read_step_answer(json::parse(R"({"seq": 0, "output": "SUBACK"})"), 0, false,
                                                    m.outputs, m.first_named, "ctx");
    EXPECT_EQ(m.outputs.name(learned), "SUBACK");
    EXPECT_THROW((void)detail::read_step_answer(json::parse(R"({"seq": 1, "output": "quiet"})"), 1, false, m.outputs,
                                                m.first_named, "ctx"),
                 DeviceError);
    // A status with callbacks but no wait is refused.
    json bad = mealy;
    bad["callbacks"] = json::array({"onX"});
    EXPECT_THROW((void)detail::read_status_answer(bad, "device"), DeviceError);
}

TEST(MealyDevice, APoolOfMealyDevicesSharesTheOutputsItLearns) {
    InProcessDevice a(broker()), b(broker());
    ParallelOracle pool({&a, &b});
    const Word w = {a.inputs().at("connect"), a.inputs().at("subscribe")};
    std::vector<Word> answers(4, Word(w.size()));
    std::vector<Query> batch;
    for (auto& out : answers) batch.push_back(Query{{}, w, out});
    pool.query_all(batch);
    for (const Word& out : answers) EXPECT_EQ(pool.outputs().name(out[1]), "SUBACK");
    EXPECT_EQ(a.outputs().names(), b.outputs().names());
}

}  // namespace
}  // namespace typestar
