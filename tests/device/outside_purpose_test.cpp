// Purpose restrictions are visible (issue 25 item 5): a callin the learning purpose denies answers
// `unknown:purpose`, never `err`, in process and over /v1; learning records it as an unknown
// transition with source `purpose` (spec, DOT picture), a check does not test it and names it, and
// the Monitor reports a call into it as unverified, never as a violation.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "http_answers.hpp"
#include "http_support.hpp"
#include "learning_support.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/monitor/monitor.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/monitor.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// A counter: `inc` always works; `reset` is refused by the class at zero. The learning purpose
// explores at most one `inc` in a row: a second `inc` is outside the purpose (the class would take it).
struct Counter {
    int value = 0;
    std::atomic<int>* runs = nullptr;
};

ClassDefinition counter(std::atomic<int>& runs) {
    return LearningPurpose<Counter>("Counter")
        .framework("test-1")
        .reset([&runs](const std::shared_ptr<CallbackSink>&) { return std::make_shared<Counter>(Counter{0, &runs}); })
        .callin("inc",
                [](Counter& c) {
                    ++*c.runs;
                    ++c.value;
                })
        .callin("reset",
                [](Counter& c) {
                    if (c.value == 0) throw std::logic_error("already zero");
                    c.value = 0;
                })
        .timing({5ms, 0ms})
        .quiet_is_stable()
        // No `inc` right after an `inc` (waits aside: a quiet wait changes nothing, quiet_is_stable).
        .restrict_to([](std::span<const StepRecord> history, std::string_view next) {
            for (auto step = history.rbegin(); step != history.rend(); ++step)
                if (step->input != "wait") return next != "inc" || step->input != "inc";
            return true;
        })
        .build();
}

TEST(OutsidePurpose, InProcessDeviceAnswersItApartFromTheClassRefusal) {
    std::atomic<int> runs{0};
    InProcessDevice d(counter(runs));
    EXPECT_EQ(testing_support::answer_names(d, {"inc", "inc", "reset"}), (std::vector<std::string>{"ok", "unknown:purpose", "err"}));
    EXPECT_EQ(runs.load(), 1);  // the denied inc never ran
    EXPECT_EQ(testing_support::answer_names(d, {"reset", "inc"}), (std::vector<std::string>{"err", "err"}));  // the class's own refusal
    EXPECT_EQ(d.outputs().names(), (std::vector<std::string>{"ok", "quiet", "err", "unknown:purpose"}));
    // A definition without a purpose keeps its outputs exactly as before.
    std::atomic<int> other{0};
    ClassDefinition plain = counter(other);
    plain.filter = nullptr;
    InProcessDevice p(plain);
    EXPECT_EQ(p.outputs().names(), (std::vector<std::string>{"ok", "quiet", "err"}));
}

constexpr const char* kLearned = R"(typestar: 2
kind: typestate
name: Counter
callins:
  - inc
  - reset
callbacks: []
initial: s0
bounds: {distinguisher: 2}
timing: {tmax_ms: 5, tmin_ms: 0}
assumptions: {quiet_is_stable: true}
states:
  s0:
    callins:
      inc: s1
  s1:
    callins:
      reset: s0
    unknown:
      inc: {source: purpose, reason: "not explored by the learning purpose of Counter"}
)";

TEST(OutsidePurpose, LearnedSpecRecordsUnknownPurposeTransitionsAndThePictureShowsThem) {
    std::atomic<int> runs{0};
    InProcessDevice d(counter(runs));
    const LearnedSpec learned = testing_support::learn_at_bound_2(d);
    ASSERT_TRUE(learned.spec);
    bool named = false;  // the learned spec's assumptions name what the purpose did not explore
    for (const auto& a : learned.assumptions)
        named = named || a == "1 callin(s) outside the learning purpose were not explored (unknown, source purpose; the "
                              "class may accept or refuse them): state s1, input inc";
    EXPECT_TRUE(named) << assumptions_block(learned.assumptions);
    spec::Spec s = *learned.spec;
    s.provenance = {};
    EXPECT_EQ(spec::write_spec(s), kLearned);
    // The class's own refusal stays err: reset at zero is not unknown.
    const Typestate& t = s.typestate;
    EXPECT_EQ(t.unknown_at(t.initial, 1), nullptr);
    EXPECT_FALSE(t.states[t.initial].callins[1].has_value());
    const std::string dot = spec::write_typestate_dot(t);
    EXPECT_NE(dot.find("s1 -> s1 [label=\"inc() ?\\n(unknown: purpose)\" style=dotted color=gray fontcolor=gray]"),
              std::string::npos)
        << dot;
}

/// A two-valued Counter spec whose state Zero has `zero` as its callins (More: inc and reset enabled).
std::string counter_spec(const std::string& zero) {
    return "typestar: 1\nname: Counter\ncallins: [inc, reset]\ncallbacks: []\ninitial: Zero\nstates:\n  Zero:\n"
           "    callins: " + zero + "\n  More:\n    callins: {inc: More, reset: Zero}\n";
}

bool mentions(const std::vector<std::string>& assumptions, const std::string& text) {
    for (const auto& a : assumptions)
        if (a.find(text) != std::string::npos) return true;
    return false;
}

TEST(OutsidePurpose, CheckSkipsOnlyTheSpecsUnknownTransitionsAndADeniedDefinedOneFails) {
    std::atomic<int> runs{0};
    InProcessDevice d(counter(runs));
    Device* devices[] = {&d};
    CheckOptions options;
    options.bound = 2;
    // The learned spec: its unknown transition is cut from the suite and named.
    const CheckReport learned = check_spec(spec::parse_spec(kLearned, "counter.yaml"), devices, options);
    EXPECT_EQ(learned.verdict, Verdict::Pass);
    EXPECT_TRUE(mentions(learned.assumptions, "state s1, input inc: unknown (purpose"))
        << assumptions_block(learned.assumptions);
    // A spec that claims the second inc works: the device answers unknown:purpose where the spec
    // predicts ok (issue 34 item 3): the device is not where the spec says, a difference with its
    // trace — never "not tested", never a pass.
    const CheckReport report =
        check_spec(spec::parse_spec(counter_spec("{inc: More}"), "claims.yaml"), devices, options);
    EXPECT_EQ(report.verdict, Verdict::Fail);
    ASSERT_TRUE(report.counterexample.has_value());
    const std::size_t differs = report.counterexample->first_difference();
    ASSERT_LT(differs, report.trace.size());
    EXPECT_EQ(report.trace[differs], (TraceStep{"More", "inc", "ok", "unknown:purpose"}));
    EXPECT_NE(unpredicted_answer_note(report).find("the device answered unknown:purpose to inc where the spec "
                                                   "expects ok (in state More)"),
              std::string::npos)
        << unpredicted_answer_note(report);
    EXPECT_FALSE(mentions(report.assumptions, "learning purpose")) << assumptions_block(report.assumptions);
    EXPECT_TRUE(report.not_tested.empty());
    // A spec that says the second inc is refused (as specs learned before purposes answered
    // unknown:purpose recorded a denial): not tested, and named and listed, never a silent pass.
    const CheckReport refused =
        check_spec(spec::parse_spec(counter_spec("{inc: More}").substr(0, counter_spec("{inc: More}").find("  More:")) +
                                        "  More:\n    callins: {reset: Zero}\n",
                                    "refused.yaml"),
                   devices, options);
    EXPECT_EQ(refused.verdict, Verdict::Pass);
    EXPECT_EQ(refused.not_tested, (std::vector<TransitionRef>{{"More", "inc"}}));
    EXPECT_TRUE(mentions(refused.assumptions, "1 transition(s) the spec says are refused (err) were not tested: the "
                                              "device's learning purpose does not explore them (it answered "
                                              "unknown:purpose; re-learn the spec to record them as unknown): state "
                                              "More, input inc"))
        << assumptions_block(refused.assumptions);
    // A spec that is wrong where the purpose does explore still fails.
    const std::string wrong = counter_spec("{inc: More, reset: Zero}");
    EXPECT_EQ(check_spec(spec::parse_spec(wrong, "wrong.yaml"), devices, options).verdict, Verdict::Fail);
}

TEST(OutsidePurpose, MonitorReportsACallOutsideThePurposeAsUnverifiedNotAViolation) {
    std::atomic<int> runs{0};
    InProcessDevice d(counter(runs));
    spec::Spec s = *testing_support::learn_at_bound_2(d).spec;
    MonitorOptions options;
    options.unverified = UnverifiedPolicy::Allow;
    options.policy = ViolationPolicy::Collect;
    auto m = spec::monitor_of(s, options);
    EXPECT_TRUE(m->callin("inc"));
    EXPECT_TRUE(m->callin("inc"));  // outside the learned protocol: unverified, not a violation
    EXPECT_TRUE(m->ok());
    ASSERT_EQ(m->unverified().size(), 1u);
    ASSERT_TRUE(m->unverified().front().unknown);
    EXPECT_EQ(m->unverified().front().unknown->source, Unknown::Source::Purpose);
    // The class's own refusal is a violation as before.
    auto v = spec::monitor_of(s, options);
    EXPECT_FALSE(v->callin("reset"));
    EXPECT_FALSE(v->ok());
}

TEST(OutsidePurpose, TheProtocolCarriesItAndHttpLearningGivesTheSameSpec) {
    std::atomic<int> runs{0};
    AgentConfig config;
    config.token = testing_support::kToken;
    Agent agent([&runs] { return std::make_unique<InProcessDevice>(counter(runs)); }, config);
    agent.start();
    const auto call = [&](const std::string& method, const std::string& path, const std::string& body) {
        return testing_support::authorized(method, agent.url() + path, body);
    };
    const json status = json::parse(call("GET", "/v1/status", "").body);
    EXPECT_EQ(status["outside_purpose"], true);
    EXPECT_EQ(status["callbacks"], json::array());  // not a callback
    const std::string id = json::parse(call("POST", "/v1/sessions", "{}").body)["session"];
    const std::string at = "/v1/sessions/" + id + "/callin";
    EXPECT_EQ(json::parse(call("POST", at, R"({"seq": 0, "callin": "inc"})").body), json::parse(R"({"seq": 0, "output": "ok"})"));
    EXPECT_EQ(json::parse(call("POST", at, R"({"seq": 1, "callin": "inc"})").body),
              json::parse(R"({"seq": 1, "output": "err", "outside_purpose": true})"));
    EXPECT_EQ(json::parse(call("POST", at, R"({"seq": 2, "callin": "reset"})").body),
              json::parse(R"({"seq": 2, "output": "err"})"));
    EXPECT_EQ(json::parse(call("POST", "/v1/run", R"({"inputs": ["inc", "inc", "reset"]})").body),
              json::parse(R"({"outputs": ["ok", "err", "err"], "steps": 2, "waits": 0, "outside_purpose": 1})"));
    EXPECT_EQ(json::parse(call("POST", "/v1/run", R"({"inputs": ["reset", "inc"]})").body),
              json::parse(R"({"outputs": ["err", "err"], "steps": 1, "waits": 0})"));

    for (const bool batch : {true, false}) {
        HttpConfig c;
        c.url = agent.url();
        c.token = testing_support::kToken;
        c.batch = batch;
        HttpDevice d(c);
        EXPECT_EQ(testing_support::answer_names(d, {"inc", "inc", "reset"}), (std::vector<std::string>{"ok", "unknown:purpose", "err"}))
            << "batch " << batch;
        spec::Spec s = *testing_support::learn_at_bound_2(d).spec;
        s.provenance = {};
        EXPECT_EQ(spec::write_spec(s), kLearned) << "batch " << batch;
    }
}

TEST(OutsidePurpose, AnHttpAnswerMarkedOutsideThePurposeMustFitTheProtocol) {
    // Marked answers are read only where the status declares outside_purpose, on an `err` of a callin.
    const auto status = detail::read_status_answer(
        json::parse(R"({"protocol": "typestar-device/1", "name": "C", "framework": "", "callins": ["a"],
                        "callbacks": [], "timing": {"tmax_ms": 5, "tmin_ms": 0}, "outside_purpose": true})"),
        "agent");
    const Symbol outside = *status.outputs.find("unknown:purpose");
    EXPECT_EQ(detail::read_step_answer(json::parse(R"({"seq": 0, "output": "err", "outside_purpose": true})"), 0, false,
                                       status.outputs, "q"),
              outside);
    EXPECT_THROW((void)detail::read_step_answer(json::parse(R"({"seq": 0, "output": "ok", "outside_purpose": true})"), 0,
                                                false, status.outputs, "q"),
                 DeviceError);
    EXPECT_THROW((void)detail::read_step_answer(json::parse(R"({"seq": 0, "output": "unknown:purpose"})"), 0, false,
                                                status.outputs, "q"),
                 DeviceError);
    const Word word{0, 0};
    const auto run = detail::read_run_answer(
        json::parse(R"({"outputs": ["ok", "err"], "steps": 2, "waits": 0, "outside_purpose": 1})"), word, status.traits,
        status.outputs);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->outputs, (Word{*status.outputs.find("ok"), outside}));
    EXPECT_FALSE(detail::read_run_answer(json::parse(R"({"outputs": ["ok", "ok"], "steps": 2, "waits": 0, "outside_purpose": 1})"),
                                         word, status.traits, status.outputs));
    // Without the status field, a marked answer does not fit.
    const auto plain = detail::read_status_answer(
        json::parse(R"({"protocol": "typestar-device/1", "name": "C", "framework": "", "callins": ["a"],
                        "callbacks": [], "timing": {"tmax_ms": 5, "tmin_ms": 0}})"),
        "agent");
    EXPECT_FALSE(plain.outputs.contains("unknown:purpose"));
    EXPECT_THROW((void)detail::read_step_answer(json::parse(R"({"seq": 0, "output": "err", "outside_purpose": true})"), 0,
                                                false, plain.outputs, "q"),
                 DeviceError);
    EXPECT_FALSE(detail::read_run_answer(json::parse(R"({"outputs": ["err", "err"], "steps": 1, "waits": 0, "outside_purpose": 0})"),
                                         word, plain.traits, plain.outputs));
}

}  // namespace
}  // namespace typestar
