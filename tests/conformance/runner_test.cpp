// The runner's verdicts, and the equivalence oracles built on suites and models.
#include <gtest/gtest.h>

#include "mutants.hpp"
#include "support/reference_machines.hpp"
#include "typestar/conformance/runner.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

TEST(RunSuite, AConformingDeviceHasNoCounterexample) {
    const MealyMachine m = testing_support::coffee_machine();
    ModelDevice device(m);
    OracleStack stack(device);
    const TestSuite suite = algorithm2_suite(m);
    EXPECT_FALSE(run_suite(suite, stack.oracle()).has_value());
    EXPECT_EQ(stack.stats().total().queries_executed, suite.cases.size());  // a deduplicated suite: one run each
}

TEST(RunSuite, TheFirstFailingCaseIsTheCounterexample) {
    const MealyMachine m = testing_support::coffee_machine();
    const auto mutants = conformance_test::single_transition_mutants(m);
    ASSERT_GT(mutants.size(), 10u);
    const TestSuite suite = algorithm2_suite(m);
    for (std::size_t i = 0; i < mutants.size(); i += 7) {
        ModelDevice device(mutants[i]);
        OracleStack stack(device);
        const auto cex = run_suite(suite, stack.oracle());
        ASSERT_TRUE(cex.has_value());
        ASSERT_TRUE(cex->test_case.has_value());
        const TestCase& c = suite.cases[*cex->test_case];
        EXPECT_EQ(cex->inputs, c.inputs);
        EXPECT_EQ(cex->expected, c.expected);
        EXPECT_EQ(cex->purpose, c.purpose);
        EXPECT_EQ(cex->actual, mutants[i].outputs_of(c.inputs));
        EXPECT_LT(cex->first_difference(), cex->inputs.size());
        // No earlier case fails on this mutant.
        for (std::size_t j = 0; j < *cex->test_case; ++j)
            EXPECT_EQ(mutants[i].outputs_of(suite.cases[j].inputs), suite.cases[j].expected);
        // Larger batches find the same first failure.
        ModelDevice device2(mutants[i]);
        OracleStack stack2(device2);
        EXPECT_EQ(run_suite(suite, stack2.oracle(), RunConfig{16}), cex);
    }
}

TEST(RunSuite, TheStreamedSuiteRunsTheSameQueriesAndFindsTheSameCounterexample) {
    const MealyMachine m = testing_support::coffee_machine();
    const auto mutants = conformance_test::single_transition_mutants(m);
    SuiteConfig config;
    config.bound = 2;
    const TestSuite suite = generate_suite(m, config);
    for (const std::size_t batch : {std::size_t{1}, std::size_t{16}}) {
        for (std::size_t i = 0; i < mutants.size(); i += 5) {
            ModelDevice held_device(mutants[i]);
            OracleStack held(held_device);
            const auto expected = run_suite(suite, held.oracle(), RunConfig{batch});
            ModelDevice streamed_device(mutants[i]);
            OracleStack streamed(streamed_device);
            SuiteGenerator generator(m, config);
            std::size_t cases_run = 0;
            EXPECT_EQ(run_suite(generator, streamed.oracle(), RunConfig{batch}, &cases_run), expected);
            EXPECT_EQ(streamed.stats().total().queries_executed, held.stats().total().queries_executed);
            EXPECT_EQ(streamed.stats().total().symbols_executed, held.stats().total().symbols_executed);
            if (expected) {  // the run stops with the failing batch
                EXPECT_EQ(cases_run, std::min(suite.cases.size(), (*expected->test_case / batch + 1) * batch));
            } else {
                EXPECT_EQ(cases_run, suite.cases.size());
            }
        }
    }
}

TEST(RunSuite, ComparesOutputsByName) {
    // The device's output alphabet lists the same names in another order, plus one more.
    const MealyMachine m = testing_support::coffee_machine();
    Alphabet outputs({"error", "tea", "coffee", "ok"});
    ModelDevice device(over_alphabets(m, m.inputs(), outputs));
    OracleStack stack(device);
    EXPECT_FALSE(run_suite(algorithm2_suite(m), stack.oracle()).has_value());
}

TEST(RunSuite, RejectsOtherInputs) {
    const MealyMachine m = testing_support::coffee_machine();
    ModelDevice device(testing_support::angluin_example());
    OracleStack stack(device);
    try {
        (void)run_suite(algorithm2_suite(m), stack.oracle());
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "the suite's inputs are not the device's (same names in the same order needed)");
    }
}

TEST(SuiteEquivalenceOracle, FindsTheMutantAndUsesTheGivenAccessSequences) {
    const MealyMachine truth = testing_support::coffee_machine();
    const auto mutants = conformance_test::single_transition_mutants(truth);
    ModelDevice device(truth);
    OracleStack stack(device);
    SuiteEquivalenceOracle oracle(stack.oracle());
    EXPECT_FALSE(oracle.find_counterexample(truth, {}).has_value());
    const std::size_t plain = oracle.last_suite_size();
    EXPECT_GT(plain, 0u);
    const auto cex = oracle.find_counterexample(mutants.front(), {});
    ASSERT_TRUE(cex.has_value());
    EXPECT_NE(mutants.front().outputs_of(cex->inputs), truth.outputs_of(cex->inputs));
    EXPECT_EQ(cex->actual, truth.outputs_of(cex->inputs));
    // Access sequences through `clean` self-loops give other words.
    std::vector<Word> access;
    for (const auto& a : access_sequences(truth)) {
        Word w{truth.inputs().at("clean")};
        w.insert(w.end(), a->begin(), a->end());
        access.push_back(w);
    }
    EXPECT_FALSE(oracle.find_counterexample(truth, access).has_value());
    EXPECT_GT(stack.stats().total().queries_executed, plain);
}

TEST(PerfectOracle, ShortestSeparatingWord) {
    const MealyMachine truth = testing_support::combination_lock();
    PerfectOracle oracle(truth);
    EXPECT_FALSE(oracle.find_counterexample(truth, {}).has_value());
    for (const auto& mutant : conformance_test::single_transition_mutants(truth)) {
        const auto cex = oracle.find_counterexample(mutant, {});
        ASSERT_TRUE(cex.has_value());
        EXPECT_EQ(cex->inputs, *separating_word(mutant, truth));
        EXPECT_EQ(cex->expected, mutant.outputs_of(cex->inputs));
        EXPECT_EQ(cex->actual, truth.outputs_of(cex->inputs));
        EXPECT_EQ(cex->first_difference() + 1, cex->inputs.size());  // shortest: differs at the end
    }
}

TEST(PerfectOracle, NeedsTheTruthsOutputsInTheHypothesis) {
    const MealyMachine truth = testing_support::coffee_machine();
    PerfectOracle oracle(truth);
    MealyBuilder b(truth.inputs(), Alphabet({"ok"}));
    const auto s = b.add_state();
    for (Symbol i = 0; i < truth.num_inputs(); ++i) b.set_transition(s, i, s, 0);
    EXPECT_THROW((void)oracle.find_counterexample(b.build(), {}), std::invalid_argument);
}

/// A connection (Closed, Open and the err sink) and a device of it whose learning purpose denies
/// `send` in `denied` (answers unknown:purpose there).
MealyMachine connection_model(std::optional<std::string> denied = std::nullopt) {
    const bool device = denied.has_value();
    MealyBuilder b(Alphabet({"open", "send", "close"}),
                   device ? Alphabet({"ok", "err", "unknown:purpose"}) : Alphabet({"ok", "err"}));
    const StateId closed = b.add_state("Closed"), open = b.add_state("Open"), sink = b.add_state("__err");
    const Symbol ok = 0, err = 1, outside = 2;
    b.set_transition(closed, 0, open, ok);
    b.set_transition(closed, 1, sink, device && *denied == "Closed" ? outside : err);
    b.set_transition(closed, 2, sink, err);
    b.set_transition(open, 0, sink, err);
    b.set_transition(open, 1, open, device && *denied == "Open" ? outside : ok);
    b.set_transition(open, 2, closed, ok);
    for (Symbol i = 0; i < 3; ++i) b.set_transition(sink, i, sink, err);
    return b.build();
}

// Issue 39 (mutants of the unknown:purpose rule): a denial where the suite expects err is left
// untested and handed back to be named; a denial where the suite expects ok is a difference (the
// device is not where the spec says), never an untested pass.
TEST(RunSuite, ADenialIsUntestedOnlyWhereTheSuiteExpectsErr) {
    const MealyMachine model = connection_model();
    const TestSuite suite = algorithm2_suite(model);
    {
        ModelDevice device(connection_model("Closed"), "model:denies-send-when-closed");
        OracleStack stack(device);
        std::vector<Word> untested;
        RunConfig run;
        run.outside_purpose = &untested;
        EXPECT_FALSE(run_suite(suite, stack.oracle(), run).has_value());
        ASSERT_FALSE(untested.empty());
        for (const Word& w : untested) {
            EXPECT_EQ(model.run(Word(w.begin(), w.end() - 1)), 0u) << to_string(w, model.inputs());
            EXPECT_EQ(w.back(), 1u) << to_string(w, model.inputs());
        }
        // Without the caller asking for them, the same denials are differences.
        ModelDevice again(connection_model("Closed"));
        OracleStack fresh(again);
        EXPECT_TRUE(run_suite(suite, fresh.oracle()).has_value());
    }
    {
        ModelDevice device(connection_model("Open"), "model:denies-send-when-open");
        OracleStack stack(device);
        std::vector<Word> untested;
        RunConfig run;
        run.outside_purpose = &untested;
        const auto cex = run_suite(suite, stack.oracle(), run);
        ASSERT_TRUE(cex.has_value()) << "a denial where the spec says ok passed as untested";
        EXPECT_EQ(device.outputs().name(cex->actual[cex->first_difference()]), "unknown:purpose");
        EXPECT_TRUE(untested.empty());
    }
}

}  // namespace
}  // namespace typestar
