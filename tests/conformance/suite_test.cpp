// Suite generators: the exact Algorithm 2 suite of a small closure, finalization, W and Wp, and
// every generated suite killing every single-transition mutant.
#include <gtest/gtest.h>

#include <algorithm>

#include "mutants.hpp"
#include "support/random_mealy.hpp"
#include "support/random_typestate.hpp"
#include "support/reference_machines.hpp"
#include "typestar/conformance/runner.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

using conformance_test::single_transition_mutants;

/// Idle --start--> Running --stop / wait:done--> Idle; the closure adds the err sink.
MealyMachine toy() {
    Typestate t;
    t.name = "Toy";
    t.callins = {"start", "stop"};
    t.callbacks = {"done"};
    t.states = {Typestate::State{"Idle", {StateId{1}, std::nullopt}, std::nullopt, Typestate::Wait::Quiet, std::nullopt},
                Typestate::State{"Running", {std::nullopt, StateId{0}}, Typestate::CallbackEdge{0, 0},
                                 Typestate::Wait::Quiet, std::nullopt}};
    return synchronous_closure(t);
}

std::vector<std::string> texts(const TestSuite& suite) {
    std::vector<std::string> result;
    for (const auto& c : suite.cases)
        result.push_back(to_string(c.inputs, suite.inputs) + " / " + to_string(c.expected, suite.outputs) + " | " +
                         c.purpose);
    return result;
}

TEST(Algorithm2Suite, ToyClosureAtBoundOneWithTheQuietAssumptionDeclared) {
    SuiteConfig config;
    config.bound = 1;
    config.traits = closure_traits(toy().inputs(), toy().outputs(), true);
    const TestSuite suite = algorithm2_suite(toy(), config);
    EXPECT_EQ(suite.method, SuiteMethod::Algorithm2);
    EXPECT_EQ(suite.bound, 1u);
    EXPECT_EQ(texts(suite), (std::vector<std::string>{
                                "stop / err | state Idle, input stop",
                                "wait / quiet | state Idle, input wait",
                                "start start / ok err | state Running, input start",
                                "start stop start / ok ok ok | state Running, input stop, then suffix start",
                                "start stop stop / ok ok err | state Running, input stop, then suffix stop",
                                "start stop wait / ok ok quiet | state Running, input stop, then suffix wait",
                                "start wait start / ok done ok | state Running, input wait, then suffix start",
                                "start wait stop / ok done err | state Running, input wait, then suffix stop",
                                "start wait wait / ok done quiet | state Running, input wait, then suffix wait",
                            }));
    EXPECT_EQ(suite.symbols(), 1u + 1u + 2u + 6u * 3u);
    EXPECT_EQ(suite.waits(), 1u + 1u + 3u + 1u);
}

TEST(Algorithm2Suite, QuietSelfLoopsAreTestedUnlessDeclared) {
    // Optimisation (a) of Algorithm 2 is an assumption: by default the quiet self-loop of Idle is
    // checked like any transition (a device whose quiet wait moves must fail here).
    SuiteConfig config;
    config.bound = 1;
    const TestSuite suite = algorithm2_suite(toy(), config);
    const auto all = texts(suite);
    for (const char* suffix : {"start", "stop", "wait"}) {
        const std::string purpose = std::string("state Idle, input wait, then suffix ") + suffix;
        EXPECT_TRUE(std::any_of(all.begin(), all.end(),
                                [&](const std::string& t) { return t.find(purpose) != std::string::npos; }))
            << purpose;
    }
}

TEST(Algorithm2Suite, WithoutTraitsNothingIsSkippedOrTruncated) {
    SuiteConfig config;
    config.bound = 1;
    config.traits = DeviceTraits{};
    const TestSuite suite = algorithm2_suite(toy(), config);
    // The err sink's transitions are checked now, and `stop start` is no longer cut after `stop`.
    bool found = false;
    for (const auto& c : suite.cases)
        if (to_string(c.inputs, suite.inputs) == "stop start start") found = true;
    EXPECT_TRUE(found);
    EXPECT_GT(suite.cases.size(), 9u);
}

TEST(Algorithm2Suite, UsesTheGivenAccessSequences) {
    const MealyMachine m = toy();
    SuiteConfig config;
    config.bound = 1;
    const Symbol start = m.inputs().at("start"), stop = m.inputs().at("stop"), wait = m.inputs().at("wait");
    config.access = {Word{wait}, Word{start}, Word{start, start}};  // Idle via a quiet wait, sink via start start
    const TestSuite suite = algorithm2_suite(m, config);
    for (const auto& c : suite.cases) EXPECT_EQ(c.expected, m.outputs_of(c.inputs));
    bool via_wait = false;
    for (const auto& c : suite.cases)
        if (c.inputs.size() >= 2 && c.inputs[0] == wait && c.inputs[1] == stop) via_wait = true;
    EXPECT_TRUE(via_wait);
    config.access = {Word{}, Word{stop}, Word{start, start}};
    try {
        (void)algorithm2_suite(m, config);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "suite: the access sequence of state Running does not reach it");
    }
    config.access = {Word{}};
    EXPECT_THROW((void)algorithm2_suite(m, config), std::invalid_argument);
}

TEST(Algorithm2Suite, StaysWithinTheorem4_4) {
    for (const auto& [name, m] : testing_support::reference_machines()) {
        for (std::size_t b = 0; b <= 3; ++b) {
            SuiteConfig config;
            config.bound = b;
            const TestSuite suite = algorithm2_suite(m, config);
            std::size_t power = 1;
            for (std::size_t i = 0; i < b; ++i) power *= m.num_inputs();
            EXPECT_LE(suite.cases.size(), m.num_states() * m.num_inputs() * 2 * power) << name;
            EXPECT_EQ(texts(suite), texts(algorithm2_suite(m, config))) << "deterministic";
            for (const auto& c : suite.cases) EXPECT_EQ(c.expected, m.outputs_of(c.inputs)) << name;
        }
    }
}

TEST(FinalizeCases, TruncatesAfterErrAndDropsPrefixesKeepingOrder) {
    const Symbol err = 9;
    std::vector<TestCase> cases{
        {{1, 2}, {0, 0}, "a"},        // prefix of {1, 2, 3}: dropped
        {{4, 5, 6}, {0, err, 0}, "b"},  // cut to {4, 5}
        {{1, 2, 3}, {0, 0, 0}, "c"},
        {{4, 5}, {0, err}, "d"},      // equal to b after the cut: b's purpose stays
        {{7}, {0}, "e"},
        {{7}, {0}, "f"},              // duplicate: the first stays
        {{}, {}, "g"},                // the empty word is a prefix of everything
    };
    finalize_cases(cases, err);
    ASSERT_EQ(cases.size(), 3u);
    EXPECT_EQ(cases[0], (TestCase{{4, 5}, {0, err}, "b"}));
    EXPECT_EQ(cases[1], (TestCase{{1, 2, 3}, {0, 0, 0}, "c"}));
    EXPECT_EQ(cases[2], (TestCase{{7}, {0}, "e"}));
    std::vector<TestCase> alone{{{}, {}, "only"}};
    finalize_cases(alone, std::nullopt);
    EXPECT_EQ(alone.size(), 1u);
}

TEST(CharacterizingSet, SeparatesEveryTwoStates) {
    std::vector<MealyMachine> machines;
    for (const auto& nm : testing_support::reference_machines()) machines.push_back(nm.machine);
    for (std::uint64_t seed = 1; seed <= 4; ++seed) machines.push_back(testing_support::random_mealy(12, 3, 2, seed));
    for (const auto& m : machines) {
        const auto w = characterizing_set(m);
        EXPECT_LT(w.size(), std::max<std::size_t>(m.num_states(), 1));
        for (StateId p = 0; p < m.num_states(); ++p)
            for (StateId q = p + 1; q < m.num_states(); ++q) {
                bool told = false;
                for (const Word& x : w) told = told || m.outputs_of(x, p) != m.outputs_of(x, q);
                EXPECT_TRUE(told);
            }
    }
}

TEST(WMethod, CoversEveryTransitionFollowedByEveryDistinguishingWord) {
    const MealyMachine m = testing_support::coffee_machine();
    SuiteConfig config;
    config.method = SuiteMethod::W;
    const TestSuite suite = generate_suite(m, config);
    EXPECT_EQ(suite.method, SuiteMethod::W);
    const auto w = characterizing_set(m);
    const auto access = access_sequences(m);
    // Every p·x (p in the transition cover, x in W) is a test or a prefix of one.
    auto covered = [&](const Word& word) {
        for (const auto& c : suite.cases)
            if (c.inputs.size() >= word.size() && std::equal(word.begin(), word.end(), c.inputs.begin())) return true;
        return false;
    };
    for (StateId q = 0; q < m.num_states(); ++q)
        for (Symbol i = 0; i < m.num_inputs(); ++i)
            for (const Word& x : w) {
                Word p = *access[q];
                p.push_back(i);
                p.insert(p.end(), x.begin(), x.end());
                EXPECT_TRUE(covered(p));
            }
}

// ---- every suite kills every single-transition mutant -------------------------------------------

/// Runs `suite` against each mutant; returns the number that pass (survive).
std::size_t survivors(const TestSuite& suite, const std::vector<MealyMachine>& mutants, std::string* example) {
    std::size_t alive = 0;
    for (const auto& mutant : mutants) {
        ModelDevice device(mutant);
        OracleStack stack(device);
        if (!run_suite(suite, stack.oracle())) {
            if (alive++ == 0 && example != nullptr) *example = std::to_string(mutant.num_states()) + " states";
        }
    }
    return alive;
}

void expect_all_killed(const MealyMachine& m, const std::string& name) {
    const auto mutants = single_transition_mutants(m);
    ASSERT_FALSE(mutants.empty()) << name;
    const std::size_t bound = std::max<std::size_t>(1, distinguisher_bound(minimize(m)).value());
    for (SuiteMethod method : {SuiteMethod::Algorithm2, SuiteMethod::W, SuiteMethod::Wp}) {
        SuiteConfig config;
        config.method = method;
        config.bound = bound;
        const TestSuite suite = generate_suite(m, config);
        std::string example;
        EXPECT_EQ(survivors(suite, mutants, &example), 0u)
            << name << " " << method_name(method) << " (" << mutants.size() << " mutants) " << example;
    }
}

TEST(MutantsKilled, ReferenceMachines) {
    for (const auto& [name, m] : testing_support::reference_machines()) expect_all_killed(m, name);
}

TEST(MutantsKilled, RandomMachines) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed)
        expect_all_killed(testing_support::random_mealy(4 + seed, 3, 2, seed), "random " + std::to_string(seed));
}

TEST(MutantsKilled, RandomTypestateClosures) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const MealyMachine m = minimize(synchronous_closure(testing_support::random_typestate(3 + seed % 4, 3, 2, seed)));
        if (m.num_states() < 2) continue;
        expect_all_killed(m, "typestate " + std::to_string(seed));
    }
}

TEST(MutantsKilled, BundledSpecs) {
    for (const char* file : {"asynctask.yaml", "mediaplayer.yaml"}) {
        const spec::Spec s = spec::load_spec(std::string(TYPESTAR_SOURCE_DIR) + "/specs/" + file);
        expect_all_killed(minimize(synchronous_closure(s.typestate)), file);
    }
}

TEST(MethodNames, RoundTrip) {
    for (SuiteMethod m : {SuiteMethod::Algorithm2, SuiteMethod::W, SuiteMethod::Wp})
        EXPECT_EQ(parse_method(method_name(m)), m);
    EXPECT_FALSE(parse_method("Alg2").has_value());
}

}  // namespace
}  // namespace typestar

namespace typestar {
namespace {

TEST(StateBound, AnAbsoluteBoundIsTheExtraStatesAboveTheModel) {
    const MealyMachine m = testing_support::coffee_machine();
    SuiteConfig relative;
    relative.method = SuiteMethod::Wp;
    relative.extra_states = 2;
    SuiteConfig absolute;
    absolute.method = SuiteMethod::Wp;
    absolute.state_bound = m.num_states() + 2;
    EXPECT_EQ(extra_states_for(m, absolute), 2u);
    EXPECT_EQ(generate_suite(m, absolute).cases, generate_suite(m, relative).cases);
    absolute.state_bound = 1;  // below the model: no extra states, never negative
    EXPECT_EQ(extra_states_for(m, absolute), 0u);
    absolute.extra_states = 1;  // the relative bound is a floor
    EXPECT_EQ(extra_states_for(m, absolute), 1u);
}


// The lazy generator decides deduplication from the suite's structure; finalize_cases, the
// reference semantics, does it on the materialised candidates. They must agree case for case
// (words, expected outputs, purposes, order) for every method, bound and set of traits.
TEST(SuiteGenerator, YieldsExactlyTheFinalizedCandidatesInOrder) {
    std::size_t suites = 0;
    std::size_t cases = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        std::vector<MealyMachine> machines{
            testing_support::random_mealy(1 + seed % 7, 1 + seed % 4, 2 + seed % 3, seed),
            synchronous_closure(testing_support::random_typestate(1 + seed % 6, 1 + seed % 3, seed % 3, seed))};
        for (const MealyMachine& m : machines)
            for (SuiteMethod method : {SuiteMethod::Algorithm2, SuiteMethod::W, SuiteMethod::Wp})
                for (std::size_t bound = 0; bound <= 3; ++bound)
                    for (int declared = 0; declared < 3; ++declared) {
                        SuiteConfig config;
                        config.method = method;
                        config.bound = bound;
                        config.extra_states = bound % 3;
                        if (declared == 1) config.traits = closure_traits(m.inputs(), m.outputs(), true);
                        if (declared == 2) config.traits = DeviceTraits{};  // nothing absorbing, nothing skipped
                        SuiteGenerator raw(m, config);
                        std::vector<TestCase> expected;
                        while (auto c = raw.next_candidate()) expected.push_back(std::move(*c));
                        const DeviceTraits traits = config.traits ? *config.traits
                                                                  : closure_traits(m.inputs(), m.outputs());
                        finalize_cases(expected, traits.absorbing);
                        SuiteGenerator lazy(m, config);
                        std::vector<TestCase> got;
                        while (auto c = lazy.next()) got.push_back(std::move(*c));
                        ASSERT_EQ(got, expected) << "seed " << seed << ", " << method_name(method) << ", bound " << bound
                                                 << ", traits " << declared;
                        ++suites;
                        cases += got.size();
                    }
    }
    EXPECT_EQ(suites, 60u * 2 * 3 * 4 * 3);
    EXPECT_GT(cases, 10'000u);
}

}  // namespace
}  // namespace typestar
