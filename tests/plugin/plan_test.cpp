#include "typestar/session/test_plan.hpp"

#include <set>

#include <gtest/gtest.h>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {
namespace {

// Line numbers matter: the tests point at them.
constexpr const char* kTimer = R"(typestar: 1
name: Timer
callins: [start, cancel]
callbacks: [onFired, onCancelled]
initial: Idle
states:
  Idle:
    callins:
      start: Running
  Running:
    callins:
      cancel: Cancelling
    callbacks:
      onFired: Idle
  Cancelling:
    callbacks:
      onCancelled: Idle
  Unreachable:
    quiet: Idle
)";

TEST(Plan, IdentifiersUseOnlyLettersDigitsAndUnderscores) {
    EXPECT_EQ(test_identifier("Media-Player.v2"), "Media_Player_v2");
    EXPECT_EQ(test_identifier("setDataSource/goodURL"), "setDataSource_goodURL");
    EXPECT_EQ(test_identifier("Ünïcode"), "__n__code");  // bytes, not characters
    EXPECT_EQ(test_identifier(""), "_");
}

TEST(Plan, OneTestPerReachableTransitionInFileOrderWithYamlLines) {
    const spec::Spec s = spec::parse_spec(kTimer, "timer.yaml");
    const auto tests = plan_transition_tests(s);
    const std::vector<TransitionTest> expected = {
        {"Idle_start", "Idle", "start", 9},          {"Idle_cancel", "Idle", "cancel", 7},
        {"Idle_wait", "Idle", "wait", 7},            {"Running_start", "Running", "start", 10},
        {"Running_cancel", "Running", "cancel", 12}, {"Running_wait", "Running", "wait", 14},
        {"Cancelling_start", "Cancelling", "start", 15}, {"Cancelling_cancel", "Cancelling", "cancel", 15},
        {"Cancelling_wait", "Cancelling", "wait", 17},
    };
    EXPECT_EQ(tests, expected);
    EXPECT_EQ(suite_identifier(s), "Timer");
}

TEST(Plan, ClashingIdentifiersGetNumberedSuffixes) {
    const spec::Spec s = spec::parse_spec(R"(typestar: 1
name: Clash
callins: [a.b, a_b]
callbacks: []
initial: S
states:
  S: {callins: {a.b: S, a_b: S}}
)",
                                          "clash.yaml");
    const auto tests = plan_transition_tests(s);
    ASSERT_EQ(tests.size(), 3u);
    EXPECT_EQ(tests[0].name, "S_a_b");
    EXPECT_EQ(tests[1].name, "S_a_b_2");
    EXPECT_EQ(tests[2].name, "S_wait");
}

struct Assigned {
    MealyMachine model;
    std::vector<Word> access;
    TestSuite suite;
    std::vector<std::vector<std::size_t>> groups;
};

Assigned assign(const spec::Spec& s, std::size_t bound) {
    MealyMachine model = test_model(s);
    std::vector<Word> access;
    for (const auto& a : access_sequences(model)) access.push_back(*a);
    SuiteConfig config;
    config.bound = bound;
    config.access = access;
    TestSuite suite = algorithm2_suite(model, config);
    auto groups = assign_cases(model, access, suite);
    return {model, access, suite, groups};
}

TEST(Plan, EveryCaseGoesToExactlyOneTransitionAndStartsWithItsAccessWord) {
    const spec::Spec s = spec::parse_spec(kTimer, "timer.yaml");
    const Assigned a = assign(s, 2);
    std::multiset<std::size_t> seen;
    for (StateId q = 0; q < a.model.num_states(); ++q) {
        for (Symbol i = 0; i < a.model.num_inputs(); ++i) {
            for (std::size_t c : a.groups[q * a.model.num_inputs() + i]) {
                seen.insert(c);
                Word prefix = a.access[q];
                prefix.push_back(i);
                const Word& w = a.suite.cases[c].inputs;
                ASSERT_GE(w.size(), prefix.size());
                EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), w.begin()))
                    << to_string(w, a.model.inputs()) << " in the group of " << a.model.state_name(q) << "/"
                    << a.model.inputs().name(i);
            }
        }
    }
    EXPECT_EQ(seen.size(), a.suite.cases.size());
    EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), a.suite.cases.size());
    EXPECT_GT(a.suite.cases.size(), 0u);
}

// The words a test runs: its group, or its access word R(q)·i alone.
std::vector<Word> words_of(const Assigned& a, StateId q, Symbol i) {
    std::vector<Word> words;
    for (std::size_t c : a.groups[q * a.model.num_inputs() + i]) words.push_back(a.suite.cases[c].inputs);
    if (words.empty()) {
        Word w = a.access[q];
        w.push_back(i);
        words.push_back(w);
    }
    return words;
}

// Every single-transition mutant of a live state is caught by some test, and a changed output by
// the test of the changed transition itself. Mutants outside the synchronous-closure assumptions
// the suite relies on (DroidStar §4.1: `err` is absorbing, a quiet `wait` changes nothing) are
// left out: the suite does not look for them by design.
TEST(Plan, TestsKillEverySingleTransitionMutant) {
    const spec::Spec s = spec::parse_spec(kTimer, "timer.yaml");
    const Assigned a = assign(s, 2);
    const MealyMachine& m = a.model;
    const auto err_sink = [&]() -> std::optional<StateId> {
        for (StateId q = 0; q < m.num_states(); ++q)
            if (m.state_name(q) == kErrorSinkName) return q;
        return std::nullopt;
    }();
    std::size_t mutants = 0;
    for (StateId q = 0; q < m.num_states(); ++q) {
        if (q == err_sink) continue;
        for (Symbol i = 0; i < m.num_inputs(); ++i) {
            for (StateId target = 0; target < m.num_states(); ++target) {
                for (Symbol out = 0; out < m.outputs().size(); ++out) {
                    const Transition original = m.transition(q, i);
                    if (original.target == target && original.output == out) continue;
                    const std::string& out_name = m.outputs().name(out);
                    if (out_name == kErr && target != err_sink) continue;
                    if (m.inputs().name(i) == kWait && out_name == kQuiet && target != q) continue;
                    std::vector<Transition> table(m.table().begin(), m.table().end());
                    table[q * m.num_inputs() + i] = Transition{target, out};
                    const MealyMachine mutant(m.inputs(), m.outputs(), m.initial(), table);
                    if (!separating_word(m, mutant)) continue;  // an equivalent mutant
                    ++mutants;
                    bool killed = false, killed_by_own = false;
                    for (StateId p = 0; p < m.num_states(); ++p) {
                        for (Symbol j = 0; j < m.num_inputs(); ++j) {
                            for (const Word& w : words_of(a, p, j)) {
                                if (m.outputs_of(w) == mutant.outputs_of(w)) continue;
                                killed = true;
                                killed_by_own = killed_by_own || (p == q && j == i);
                            }
                        }
                    }
                    EXPECT_TRUE(killed) << m.state_name(q) << "/" << m.inputs().name(i);
                    if (original.output != out) {
                        EXPECT_TRUE(killed_by_own) << m.state_name(q) << "/" << m.inputs().name(i);
                    }
                }
            }
        }
    }
    EXPECT_GT(mutants, 20u);
}

TEST(Plan, BadAccessIsRejected) {
    const spec::Spec s = spec::parse_spec(kTimer, "timer.yaml");
    const Assigned a = assign(s, 1);
    EXPECT_THROW((void)assign_cases(a.model, {}, a.suite), std::invalid_argument);
}

}  // namespace
}  // namespace typestar
