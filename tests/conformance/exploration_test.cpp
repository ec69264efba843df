// The search beyond the bound (conformance/exploration.hpp): the suite's shape, and that learning
// with the defaults finds states a bounded suite cannot (issue 34: defaults that find every state).
#include "typestar/conformance/exploration.hpp"

#include <gtest/gtest.h>

#include "support/random_mealy.hpp"
#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/session.hpp"
#include "typestar/conformance/runner.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

/// A lock opened by `code` over {a, b}: output `open` on the input that completes the code, else
/// `locked`; a wrong input restarts (no partial overlap kept: the machine is a chain). Its states
/// need words as long as the code to tell apart.
MealyMachine lock(const std::string& code) {
    MealyBuilder b(Alphabet({"a", "b"}), Alphabet({"locked", "open"}));
    std::vector<StateId> s;
    for (std::size_t k = 0; k < code.size(); ++k) s.push_back(b.add_state("L" + std::to_string(k)));
    const Symbol locked = 0, open = 1;
    for (std::size_t k = 0; k < code.size(); ++k)
        for (Symbol i = 0; i < 2; ++i) {
            const bool right = std::string(1, "ab"[i]) == code.substr(k, 1);
            if (right && k + 1 == code.size()) b.set_transition(s[k], i, s[0], open);
            else if (right) b.set_transition(s[k], i, s[k + 1], locked);
            else b.set_transition(s[k], i, s[0], locked);
        }
    b.set_initial(s[0]);
    return b.build();
}

TEST(ExplorationSuite, IsDeterministicStartsAtEveryStateAndRunsShortestFirst) {
    const MealyMachine m = testing_support::coffee_machine();
    ExplorationConfig config;
    config.words_per_transition = 5;
    config.seed = 7;
    const TestSuite a = exploration_suite(m, config);
    const TestSuite b = exploration_suite(m, config);
    EXPECT_EQ(a.cases, b.cases);
    ASSERT_FALSE(a.cases.empty());
    for (std::size_t k = 1; k < a.cases.size(); ++k)
        EXPECT_LE(a.cases[k - 1].inputs.size(), a.cases[k].inputs.size());
    for (const TestCase& c : a.cases) EXPECT_EQ(c.expected, m.outputs_of(c.inputs));
    // Every state is a starting point (its access word starts some case, or a longer one kept it).
    const auto access = access_sequences(m);
    for (StateId q = 0; q < m.num_states(); ++q) {
        bool starts = false;
        for (const TestCase& c : a.cases)
            starts = starts || (c.inputs.size() > access[q]->size() &&
                                std::equal(access[q]->begin(), access[q]->end(), c.inputs.begin()));
        EXPECT_TRUE(starts) << "no exploration word from state " << q;
    }
    config.seed = 8;
    EXPECT_NE(exploration_suite(m, config).cases, a.cases);
    config.words_per_transition = 0;
    EXPECT_TRUE(exploration_suite(m, config).cases.empty());
}

TEST(ExplorationSuite, AnUnreachableStateIsNotExploredAndNoError) {
    MealyBuilder b(Alphabet({"a"}), Alphabet({"x", "y"}));
    const StateId s0 = b.add_state("s0");
    const StateId lost = b.add_state("lost");
    b.set_transition(s0, 0, s0, 0);
    b.set_transition(lost, 0, s0, 1);
    b.set_initial(s0);
    const MealyMachine m = b.build();
    ExplorationConfig config;
    config.words_per_transition = 3;
    const TestSuite suite = exploration_suite(m, config);
    EXPECT_FALSE(suite.cases.empty());
    for (const TestCase& c : suite.cases) EXPECT_EQ(c.purpose, "exploration from state s0");
}

TEST(ExplorationSuite, WalksTakeNoDeclaredAbsorbingTransition) {
    // AsyncTask's closure: `err` absorbing. No exploration word runs past an expected `err`.
    const MealyMachine m = synchronous_closure(testing_support::async_task_typestate());
    ExplorationConfig config;
    config.words_per_transition = 20;
    config.traits = closure_traits(m.inputs(), m.outputs());
    const Symbol err = *m.outputs().find(kErr);
    for (const TestCase& c : exploration_suite(m, config).cases)
        for (std::size_t k = 0; k + 1 < c.expected.size(); ++k) EXPECT_NE(c.expected[k], err) << c.purpose;
}

// Issue 39 (a surviving mutant): every word of the search ends in a word of the characterizing set
// after a walk of at least one input (what makes a wrong target state show). The lock `ab` is told
// apart by `b` alone; a walk ends in `b` only half of the time.
TEST(ExplorationSuite, EveryWordEndsInACharacterizingWordAfterAWalk) {
    const MealyMachine m = lock("ab");
    const std::vector<Word> w = characterizing_set(m);
    ASSERT_FALSE(w.empty());
    const auto access = access_sequences(m);
    ExplorationConfig config;
    config.words_per_transition = 5;
    const TestSuite suite = exploration_suite(m, config);
    ASSERT_GE(suite.cases.size(), 10u);
    for (const TestCase& c : suite.cases) {
        const StateId from = c.purpose == "exploration from state L0" ? 0 : 1;
        bool ends = false;
        for (const Word& s : w)
            ends = ends || (c.inputs.size() >= access[from]->size() + 1 + s.size() &&
                            std::equal(s.rbegin(), s.rend(), c.inputs.rbegin()));
        EXPECT_TRUE(ends) << to_string(c.inputs, m.inputs()) << " (" << c.purpose << ")";
    }
}

// Issue 39 (a surviving mutant): each search draws new words (the seed advances per search), so a
// hypothesis searched again is searched somewhere else, not answered from the cache.
TEST(ExplorationLearning, EachSearchRunsNewWords) {
    const MealyMachine m = lock("abbab");
    ModelDevice device(m, "model:lock");
    OracleStack stack(device);
    PerfectOracle perfect(m);  // the bounded suite's stand-in: it finds nothing
    ExplorationConfig config;
    config.words_per_transition = 5;
    ExploringEquivalenceOracle search(perfect, stack.oracle(), config);
    std::vector<Word> access;
    for (const auto& a : access_sequences(m)) access.push_back(*a);
    EXPECT_FALSE(search.find_counterexample(m, access).has_value());
    const std::uint64_t first = stack.stats().total().queries_executed;
    ASSERT_GT(first, 0u);
    EXPECT_FALSE(search.find_counterexample(m, access).has_value());
    const std::uint64_t second = stack.stats().total().queries_executed - first;
    EXPECT_GT(second, first / 2) << "the second search ran " << second << " new words, the first " << first;
    EXPECT_EQ(search.record().searches, 2u);
}

TEST(ExplorationLearning, TheDefaultsFindStatesThatTheBoundedSuiteMisses) {
    // The lock `abbab` needs words of length 4 to tell its states apart: Algorithm 2 at B = 2 alone
    // passes a wrong hypothesis; the defaults (the search beyond the bound) learn it exactly.
    const MealyMachine truth = lock("abbab");
    ASSERT_EQ(distinguisher_bound(truth), std::optional<std::size_t>(4));
    {
        ModelDevice device(truth, "model:lock");
        Device* devices[] = {&device};
        LearnOptions bounded;
        bounded.equivalence.explore_words_per_transition = 0;
        const LearnedSpec wrong = learn_spec(devices, bounded);
        EXPECT_TRUE(separating_word(wrong.machine, truth).has_value())
            << "the bounded suite alone was expected to miss states (else this test shows nothing)";
        EXPECT_TRUE(wrong.exploration_note.empty());
    }
    ModelDevice device(truth, "model:lock");
    Device* devices[] = {&device};
    const LearnedSpec learned = learn_spec(devices, LearnOptions{});
    EXPECT_FALSE(separating_word(learned.machine, truth).has_value());
    EXPECT_EQ(learned.machine.num_states(), 5u);
    EXPECT_GE(learned.explored.counterexamples, 1u);
    EXPECT_GT(learned.explored.words, 0u);
    EXPECT_NE(learned.exploration_note.find("beyond the bound"), std::string::npos);
    // Same device answers, same spec: the search is seeded.
    ModelDevice again(truth, "model:lock");
    Device* again_devices[] = {&again};
    const LearnedSpec second = learn_spec(again_devices, LearnOptions{});
    EXPECT_EQ(second.machine.table().size(), learned.machine.table().size());
    EXPECT_FALSE(separating_word(second.machine, learned.machine).has_value());
    EXPECT_EQ(second.stats.total().queries_executed, learned.stats.total().queries_executed);
}

TEST(ExplorationLearning, TheDefaultsCheckInChainedWordsAndExecuteFewerQueries) {
    // Issue 34: the defaults (L#, Algorithm 2 at B = 2 in chained words, docs/conformance-chained.md,
    // then the search) learn exactly with fewer executed queries than the plain suite, on machines
    // of the benchmark's kind; the claim in the spec (the bound) is the same.
    std::uint64_t chained_total = 0, plain_total = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const MealyMachine truth = testing_support::random_mealy(25, 8, 3, seed);
        for (const bool chained : {true, false}) {
            ModelDevice device(truth, "model:random");
            Device* devices[] = {&device};
            LearnOptions options;
            options.equivalence.chained = chained;
            const LearnedSpec learned = learn_spec(devices, options);
            EXPECT_FALSE(separating_word(learned.machine, truth).has_value()) << "seed " << seed;
            EXPECT_EQ(learned.bound, 2u);
            (chained ? chained_total : plain_total) += learned.stats.total().queries_executed;
        }
    }
    EXPECT_LT(chained_total * 10, plain_total * 9) << chained_total << " vs " << plain_total;
}

TEST(ExplorationLearning, BoundAutoNoLongerStopsWhereTheNextBoundSeesNothing) {
    // `abbab` needs words of length 5: Algorithm 2 at B+1 = 3 sees nothing beyond the machine
    // learned at B = 2, so --bound auto alone stopped there with a wrong spec (issue 34 item 6).
    const MealyMachine truth = lock("abbab");
    LearnOptions options;
    options.equivalence.auto_bound = true;
    {
        ModelDevice device(truth, "model:lock");
        Device* devices[] = {&device};
        LearnOptions alone = options;
        alone.equivalence.explore_words_per_transition = 0;
        const LearnedSpec wrong = learn_spec(devices, alone);
        EXPECT_TRUE(separating_word(wrong.machine, truth).has_value())
            << "--bound auto alone was expected to stop early (else this test shows nothing)";
    }
    ModelDevice device(truth, "model:lock");
    Device* devices[] = {&device};
    const LearnedSpec learned = learn_spec(devices, options);
    EXPECT_FALSE(separating_word(learned.machine, truth).has_value());
    EXPECT_FALSE(learned.bound_note.empty());
}

TEST(ExplorationLearning, TheSpecRecordsWhatWasExploredBeyondTheBound) {
    const Typestate t = testing_support::async_task_typestate();
    ModelDevice device(synchronous_closure(t), "model:asynctask");
    Device* devices[] = {&device};
    const LearnedSpec learned = learn_spec(devices, LearnOptions{});
    ASSERT_TRUE(learned.spec.has_value());
    EXPECT_NE(learned.spec->provenance.explored.find("random words per transition"), std::string::npos)
        << learned.spec->provenance.explored;
    EXPECT_EQ(learned.spec->bounds.distinguisher, 2u);  // what was established stays the bound
    LearnOptions off;
    off.equivalence.explore_words_per_transition = 0;
    ModelDevice other(synchronous_closure(t), "model:asynctask");
    Device* other_devices[] = {&other};
    EXPECT_TRUE(learn_spec(other_devices, off).spec->provenance.explored.empty());
}

/// A chain of `n` states over `inputs` inputs: input 0 moves one state on (and answers `open` at
/// the last state, back to the start); every other input goes back to the start. A walk reaches
/// the deep states only by taking input 0 again and again, as a TCP server's states are reached
/// only along one handshake.
MealyMachine reset_chain(std::size_t n, std::size_t inputs) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < inputs; ++i) names.push_back("i" + std::to_string(i));
    MealyBuilder b{Alphabet(names), Alphabet({"locked", "open"})};
    std::vector<StateId> s;
    for (std::size_t k = 0; k < n; ++k) s.push_back(b.add_state("C" + std::to_string(k)));
    for (std::size_t k = 0; k < n; ++k)
        for (Symbol i = 0; i < inputs; ++i) {
            if (i != 0) b.set_transition(s[k], i, s[0], 0);
            else if (k + 1 == n) b.set_transition(s[k], i, s[0], 1);
            else b.set_transition(s[k], i, s[k + 1], 0);
        }
    b.set_initial(s[0]);
    return b.build();
}

// The walks are biased towards the states the search entered least: on a machine whose every
// input but one resets it, uniform walks (coverage_percent 0, as before) stay near the start and
// rarely enter the deep states; the biased walks of the same budget enter the least entered state
// more than 1.5 times as often (229 and 145 entries, access words left out).
TEST(ExplorationSuite, WalksAreBiasedTowardsTheStatesEnteredLeast) {
    const MealyMachine chain = reset_chain(9, 8);
    const auto access = access_sequences(chain);
    const auto least_entered = [&](const ExplorationConfig& config) {
        const TestSuite suite = exploration_suite(chain, config);
        std::vector<std::size_t> entries(chain.num_states(), 0);
        for (const TestCase& c : suite.cases) {
            // Only the walk and the characterizing word: the access word is the same in every suite.
            const StateId from = static_cast<StateId>(std::stoul(c.purpose.substr(c.purpose.rfind('C') + 1)));
            StateId at = from;
            for (std::size_t k = access[from]->size(); k < c.inputs.size(); ++k) {
                at = chain.successor(at, c.inputs[k]);
                ++entries[at];
            }
        }
        return *std::min_element(entries.begin(), entries.end());
    };
    ExplorationConfig biased;
    biased.words_per_transition = 2;
    ExplorationConfig uniform = biased;
    uniform.coverage_percent = 0;
    const std::size_t with_bias = least_entered(biased), without = least_entered(uniform);
    EXPECT_GT(2 * with_bias, 3 * without) << "least entered state: " << with_bias << " biased, " << without << " uniform";
}

}  // namespace
}  // namespace typestar
