// W and Wp with extra states against one- and two-extra-state mutants. A mutant copies a state t of
// the model into a new state x, changes one transition of x (its target, so that x answers like t
// on every single input and differs only after a longer word), and redirects one transition into t
// so that it enters x instead. Chow's theorem (W) and Fujiwara et al.'s (Wp): a suite with
// extra_states = e finds every inequivalent machine with at most n + e states, so every such mutant
// must fail; with e = 0 some must pass, or the mutants would not test the middle section at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mutants.hpp"
#include "support/random_mealy.hpp"
#include "support/random_typestate.hpp"
#include "support/reference_machines.hpp"
#include "typestar/conformance/runner.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

using conformance_test::extra_state_mutants;


std::size_t survivors(const TestSuite& suite, const std::vector<MealyMachine>& mutants) {
    std::size_t alive = 0;
    for (const auto& mutant : mutants) {
        ModelDevice device(mutant);
        OracleStack stack(device);
        if (!run_suite(suite, stack.oracle())) ++alive;
    }
    return alive;
}

struct Counts {
    std::size_t mutants = 0;
    std::size_t escaped_without_extra_states = 0;
};

/// Every mutant with up to `copies` extra states fails W and Wp at extra_states = copies (and more).
Counts expect_killed(const MealyMachine& m, const std::string& name, std::size_t copies) {
    Counts counts;
    const auto mutants = extra_state_mutants(m, copies);
    counts.mutants = mutants.size();
    for (SuiteMethod method : {SuiteMethod::W, SuiteMethod::Wp}) {
        SuiteConfig config;
        config.method = method;
        config.extra_states = 0;
        counts.escaped_without_extra_states += survivors(generate_suite(m, config), mutants);
        for (std::size_t e = copies; e <= 2; ++e) {
            config.extra_states = e;
            EXPECT_EQ(survivors(generate_suite(m, config), mutants), 0u)
                << name << " " << method_name(method) << " extra_states " << e << ", " << mutants.size()
                << " mutants with " << copies << " extra state(s)";
            config.shortest_first = true;  // the equivalence oracle's order: the same words, shortest first
            EXPECT_EQ(survivors(generate_suite(m, config), mutants), 0u)
                << name << " " << method_name(method) << " shortest first, extra_states " << e;
            config.shortest_first = false;
        }
    }
    return counts;
}

/// Small machines: the reference machines and two seeded random ones.
std::vector<testing_support::NamedMachine> small_machines() {
    auto machines = testing_support::reference_machines();
    machines.push_back({"random4_2", testing_support::random_mealy(4, 2, 2, 2)});
    machines.push_back({"random5_9", testing_support::random_mealy(5, 2, 2, 9)});
    return machines;
}

TEST(ExtraStates, WAndWpKillEveryOneExtraStateMutant) {
    std::size_t mutants = 0, escaped = 0;
    for (const auto& [name, m] : small_machines()) {
        const Counts c = expect_killed(m, name, 1);
        mutants += c.mutants;
        escaped += c.escaped_without_extra_states;
    }
    EXPECT_GT(mutants, 100u);
    EXPECT_GT(escaped, 0u) << "no mutant needs the middle section: the test would not test it";
}

TEST(ExtraStates, WAndWpKillEveryTwoExtraStateMutant) {
    std::size_t mutants = 0, escaped = 0;
    for (const auto& [name, m] : small_machines()) {
        if (m.num_states() > 5) continue;  // keeps the suites small
        const Counts c = expect_killed(m, name, 2);
        mutants += c.mutants;
        escaped += c.escaped_without_extra_states;
    }
    EXPECT_GT(mutants, 50u);
    EXPECT_GT(escaped, 0u);
}

TEST(ExtraStates, ClosuresWithAnErrSinkToo) {
    for (std::uint64_t seed : {2u, 4u}) {
        const MealyMachine m = minimize(synchronous_closure(testing_support::random_typestate(3, 2, 1, seed)));
        if (m.num_states() < 2) continue;
        (void)expect_killed(m, "typestate " + std::to_string(seed), 1);
    }
}

TEST(ExtraStates, AnAbsoluteStateBoundStopsAtTheFirstShortCounterexample) {
    // A 2-state hypothesis of a 12-state machine with an absolute bound of 12 states: k = 10 extra
    // states allow middles of length 10, but the hypothesis is refuted by a short word; shortest
    // first, the oracle finds it after a few cases instead of enumerating |I|^10 middles first.
    const MealyMachine truth = testing_support::random_mealy(12, 3, 2, 7);
    std::vector<Transition> table;
    for (StateId q = 0; q < 2; ++q)
        for (Symbol a = 0; a < 3; ++a)
            table.push_back(Transition{static_cast<StateId>((q + a) % 2), a == 0 ? Symbol{q} : Symbol{0}});
    const MealyMachine hypothesis(truth.inputs(), truth.outputs(), 0, std::move(table));
    ASSERT_TRUE(separating_word(hypothesis, truth).has_value());
    for (SuiteMethod method : {SuiteMethod::W, SuiteMethod::Wp}) {
        ModelDevice device(truth);
        OracleStack stack(device);
        SuiteConfig config;
        config.method = method;
        config.state_bound = 12;
        config.shortest_first = true;
        SuiteEquivalenceOracle oracle(stack.oracle(), config);
        const auto cex = oracle.find_counterexample(hypothesis, {});
        ASSERT_TRUE(cex.has_value()) << method_name(method);
        EXPECT_LE(cex->inputs.size(), separating_word(hypothesis, truth)->size() + 2) << method_name(method);
        EXPECT_LE(oracle.last_suite_size(), 50u) << method_name(method);
        // Candidates come by middle length: no word of the first 200 is longer than a middle of 2
        // plus the longest prefix and distinguishing word.
        SuiteGenerator streamed(hypothesis, config);
        std::size_t longest = 0;
        for (int n = 0; n < 200; ++n)
            if (auto c = streamed.next()) longest = std::max(longest, c->inputs.size());
        EXPECT_LE(longest, 6u) << method_name(method);
    }
}

}  // namespace
}  // namespace typestar
