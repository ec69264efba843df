// L#'s incremental consistency check (src/learn/tree_consistency.hpp) equals a breadth-first pass
// over the whole tree, on random trees and random sequences of hypotheses, told about the tree's
// growth or not; and it looks again only at what changed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "../../src/learn/tree_consistency.hpp"
#include "support/random_mealy.hpp"
#include "support/random_typestate.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/traits.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/conformance/runner.hpp"
#include "typestar/learn/lsharp.hpp"
#include "typestar/sul/cache.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

using detail::TreeConsistency;

Word random_word(std::mt19937_64& rng, std::size_t k, std::size_t max_length) {
    Word w(std::uniform_int_distribution<std::size_t>(1, max_length)(rng));
    for (Symbol& a : w) a = static_cast<Symbol>(std::uniform_int_distribution<std::size_t>(0, k - 1)(rng));
    return w;
}

/// `h` with `changes` random transitions redirected (target and output) and `extra` new states
/// (reached by one of the changed transitions, if any), state ids kept.
MealyMachine mutate(const MealyMachine& h, std::mt19937_64& rng, std::size_t changes, std::size_t extra,
                    std::size_t outputs) {
    const std::size_t k = h.num_inputs();
    const std::size_t n = h.num_states() + extra;
    std::vector<Transition> table(h.table().begin(), h.table().end());
    for (std::size_t s = h.num_states(); s < n; ++s)
        for (std::size_t a = 0; a < k; ++a)
            table.push_back(Transition{static_cast<StateId>(rng() % n), static_cast<Symbol>(rng() % outputs)});
    for (std::size_t c = 0; c < changes; ++c) {
        Transition& t = table[rng() % table.size()];
        if (rng() % 2 == 0) t.target = static_cast<StateId>(rng() % n);
        else t.output = static_cast<Symbol>(rng() % outputs);
    }
    return MealyMachine(h.inputs(), h.outputs(), h.initial(), std::move(table));
}

void expect_same(TreeConsistency& incremental, const CacheOracle& tree, const MealyMachine& h, const std::string& what) {
    for (const std::size_t limit : {std::size_t{1}, std::size_t{16}, std::size_t{100000}}) {
        const auto expected = TreeConsistency::full_check(tree, h, limit);
        EXPECT_EQ(incremental.check(h, limit), expected) << what << " limit " << limit;
    }
}

/// Grows a tree on `truth` (declaring `traits`) and checks a sequence of hypotheses that start
/// near the truth and drift, some steps told about the new words and some not.
void run_sequence(const MealyMachine& truth, std::optional<DeviceTraits> traits, std::uint64_t seed) {
    // Untold growth is found by the fallback only when it adds nodes; a quiet wait adds a loop, so
    // with quiet declared an untold step resets the checker (as L# does after an equivalence query).
    const bool loops = traits && traits->quiet;
    std::mt19937_64 rng(seed);
    ModelDevice device(truth, "model", traits);
    OracleStack stack(device);
    CacheOracle& tree = stack.cache();
    TreeConsistency incremental(tree);
    const std::size_t k = truth.num_inputs();
    const std::size_t outputs = truth.outputs().size();
    MealyMachine h = truth;
    for (std::size_t step = 0; step < 30; ++step) {
        const bool tell = step % 3 != 2;
        for (int i = 0; i < 20; ++i) {
            const Word w = random_word(rng, k, 3 + truth.num_states());
            (void)stack.oracle().query(w);
            if (tell) incremental.note_word(w);
        }
        if (!tell && loops) incremental.reset();
        if (step % 5 == 4) h = truth;  // back to no inconsistency at all
        else h = mutate(h, rng, 1 + rng() % 3, step % 4 == 1 ? 1 : 0, outputs);
        expect_same(incremental, tree, h, "seed " + std::to_string(seed) + " step " + std::to_string(step));
    }
}

TEST(LSharpConsistency, IncrementalEqualsTheFullPassOnRandomTrees) {
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const MealyMachine truth = testing_support::random_mealy(3 + seed * 4, 2 + seed % 3, 2 + seed % 2, seed);
        run_sequence(truth, DeviceTraits{}, seed);
    }
}

TEST(LSharpConsistency, IncrementalEqualsTheFullPassWithErrAndQuietLoops) {
    // Typestate closures whose devices declare what holds: err absorbing, quiet waits as loops.
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const MealyMachine truth =
            minimize(synchronous_closure(testing_support::random_typestate(2 + seed % 6, 3, 2, seed)));
        run_sequence(truth, infer_traits(truth), 100 + seed);
    }
}

TEST(LSharpConsistency, LooksAgainOnlyAtWhatChanged) {
    const MealyMachine truth = testing_support::random_mealy(200, 4, 3, 7);
    ModelDevice device(truth, "model", DeviceTraits{});
    OracleStack stack(device);
    std::mt19937_64 rng(7);
    std::vector<Word> words;
    for (int i = 0; i < 2000; ++i) words.push_back(random_word(rng, 4, 12));
    for (const Word& w : words) (void)stack.oracle().query(w);
    TreeConsistency incremental(stack.cache());
    EXPECT_TRUE(incremental.check(truth, 16).empty());
    EXPECT_TRUE(incremental.last_was_full());
    const std::size_t nodes = stack.cache().num_nodes();
    EXPECT_EQ(incremental.last_visited(), nodes);  // each node once
    // The same hypothesis with nothing new: nothing to look at.
    EXPECT_TRUE(incremental.check(truth, 16).empty());
    EXPECT_FALSE(incremental.last_was_full());
    EXPECT_EQ(incremental.last_visited(), 0u);
    // One new word, told: its path below the known tree only.
    Word fresh = random_word(rng, 4, 30);
    fresh.resize(30, 0);
    (void)stack.oracle().query(fresh);
    incremental.note_word(fresh);
    EXPECT_TRUE(incremental.check(truth, 16).empty());
    EXPECT_FALSE(incremental.last_was_full());
    EXPECT_LE(incremental.last_visited(), fresh.size() + 1);
    EXPECT_GE(incremental.last_visited(), 1u);
    // One output changed: the nodes in that state, not the whole tree, and the same words as a full pass.
    std::vector<Transition> table(truth.table().begin(), truth.table().end());
    table[5 * 4 + 1].output = (table[5 * 4 + 1].output + 1) % 3;
    const MealyMachine wrong(truth.inputs(), truth.outputs(), truth.initial(), table);
    const auto words_found = incremental.check(wrong, 16);
    EXPECT_FALSE(incremental.last_was_full());
    EXPECT_LT(incremental.last_visited() * 20, stack.cache().num_nodes());
    EXPECT_EQ(words_found, TreeConsistency::full_check(stack.cache(), wrong, 16));
    EXPECT_FALSE(words_found.empty());
    // A word nobody was told about: found anyway (a full pass).
    Word untold = random_word(rng, 4, 30);
    untold.resize(30, 1);
    (void)stack.oracle().query(untold);
    EXPECT_EQ(incremental.check(wrong, 100000), TreeConsistency::full_check(stack.cache(), wrong, 100000));
    EXPECT_TRUE(incremental.last_was_full());
}

/// A perfect oracle (its counterexample costs no query, nothing of it is in the tree) that first runs,
/// through the tree, every word access·wait and access·a·wait of the hypothesis the tree does not
/// hold yet and the truth answers `quiet` at the end where the hypothesis does not: growth of the tree
/// by quiet loops only, which the counterexample does not mention.
class QuietLoopsThenPerfect final : public EquivalenceOracle {
public:
    QuietLoopsThenPerfect(OracleStack& stack, const MealyMachine& truth) : stack_(stack), truth_(truth), perfect_(truth) {}
    std::optional<Counterexample> find_counterexample(const MealyMachine& hypothesis,
                                                      std::span<const Word> access) override {
        ++hypotheses;
        if (!TreeConsistency::full_check(stack_.cache(), hypothesis, 1).empty()) ++contradicting;
        const Symbol wait = *hypothesis.inputs().find(kWait);
        const Symbol quiet = *hypothesis.outputs().find(kQuiet);
        std::vector<Word> words;
        for (const Word& a : access) {
            words.push_back(a);
            for (Symbol i = 0; i < hypothesis.num_inputs(); ++i) {
                Word w = a;
                w.push_back(i);
                words.push_back(std::move(w));
            }
        }
        for (Word w : words) {
            Word out(w.size());
            if (!stack_.cache().lookup(w, out)) continue;  // only below nodes the tree has
            w.push_back(wait);
            out.resize(w.size());
            if (stack_.cache().lookup(w, out)) continue;  // already known
            const Word truth = truth_.outputs_of(w);
            if (truth.back() != quiet || hypothesis.outputs_of(w).back() == quiet) continue;
            (void)stack_.oracle().query(w);
            ++loops;
        }
        return perfect_.find_counterexample(hypothesis, access);
    }
    std::size_t hypotheses = 0, contradicting = 0, loops = 0;

private:
    OracleStack& stack_;
    const MealyMachine& truth_;
    PerfectOracle perfect_;
};

// Issue 39 (a surviving mutant): an equivalence query that grows the tree by quiet loops alone (no
// new node) is growth all the same; L# must see it (it counts the runs executed, not only the nodes):
// the next hypothesis agrees with those answers too.
TEST(LSharpConsistency, GrowthByQuietLoopsAloneIsSeenByTheNextHypothesis) {
    std::size_t loops = 0, hypotheses = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        const MealyMachine truth =
            minimize(synchronous_closure(testing_support::random_typestate(3 + seed % 8, 3, 2, seed)));
        const DeviceTraits traits = infer_traits(truth);
        if (!traits.quiet) continue;
        ModelDevice device(truth, "model", traits);
        OracleStack stack(device);
        QuietLoopsThenPerfect judge(stack, truth);
        LSharp lsharp(stack.oracle());
        const LearnResult result = run_experiment(lsharp, judge, stack.counter());
        ASSERT_TRUE(result.converged) << "seed " << seed;
        EXPECT_FALSE(separating_word(result.hypothesis, truth).has_value()) << "seed " << seed;
        EXPECT_EQ(judge.contradicting, 0u) << "seed " << seed << ": " << judge.contradicting << " of "
                                           << judge.hypotheses << " hypotheses contradict the tree";
        loops += judge.loops;
        hypotheses += judge.hypotheses;
    }
    std::printf("%zu quiet loops added, %zu hypotheses checked\n", loops, hypotheses);
    EXPECT_GT(loops, 0u);
}

}  // namespace
}  // namespace typestar
