// Algorithm 2 in chained words (SuiteConfig::chained, docs/conformance-chained.md). Three claims:
// (1) every chained suite passes an independent proof checker that re-derives, as a least fixpoint,
//     which transitions the words prove equal to their targets (so the proof is an induction and
//     no check rests on itself); (2) it kills every mutant with distinguisher bound <= B (one
//     transition changed, or one or two extra states copying a state), as Theorem 4.4 requires;
//     (3) it costs fewer words than the plain suite.
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
#include "typestar/core/traits.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

/// The proof checker, written from the argument in docs/conformance-chained.md and nothing of the
/// generator: true when the suite's words (all answered as the model predicts) establish, for a
/// device with distinguisher bound B, that every transition the plain suite checks enters a
/// device state equal to its target's. (a) every access(q)·s, |s| = B, is a prefix of a word (or
/// of one ending at the absorbing output); (b) a check (q, i, s) is made at position j of a word
/// starting with access(p) (j >= |access(p)|) when every checked transition the word takes in
/// [|access(p)|, j) is already proven; a transition is proven when all its k^B checks are made.
bool proves(const MealyMachine& m, const std::vector<Word>& access, std::size_t bound, const DeviceTraits& traits,
            const std::vector<Word>& words) {
    const std::size_t k = m.num_inputs();
    std::size_t suffixes = 1;
    for (std::size_t j = 0; j < bound; ++j) suffixes *= k;
    const auto err = [&](StateId q, Symbol i) { return traits.absorbing && m.output(q, i) == *traits.absorbing; };
    const auto checked = [&](StateId q, Symbol i) {
        const bool quiet_loop = traits.wait && traits.quiet && i == *traits.wait && m.output(q, i) == *traits.quiet &&
                                m.successor(q, i) == q;
        Word base = access[q];
        base.push_back(i);
        return !err(q, i) && !quiet_loop && access[m.successor(q, i)] != base;
    };
    // All suffixes of length B that start with w[from, from + len) (len < B only at an absorbing end).
    const auto completions = [&](const Word& w, std::size_t from, std::size_t len) {
        std::vector<std::size_t> out;
        std::size_t first = 0;
        for (std::size_t j = 0; j < bound; ++j) first = first * k + (j < len ? w[from + j] : 0);
        std::size_t span = 1;
        for (std::size_t j = len; j < bound; ++j) span *= k;
        for (std::size_t x = first; x < first + span; ++x) out.push_back(x);
        return out;
    };
    // (a)
    std::vector<char> traced(m.num_states() * suffixes, 0);
    for (const Word& w : words)
        for (StateId q = 0; q < m.num_states(); ++q) {
            const Word& a = access[q];
            if (a.size() > w.size() || !std::equal(a.begin(), a.end(), w.begin())) continue;
            const std::size_t left = w.size() - a.size();
            const bool absorbed = left > 0 && left < bound && err(m.run(Word(w.begin(), w.end() - 1)), w.back());
            if (left < bound && !absorbed) continue;
            for (std::size_t x : completions(w, a.size(), std::min(left, bound))) traced[q * suffixes + x] = 1;
        }
    for (StateId q = 0; q < m.num_states(); ++q) {
        // The err sink (its access word ends at the absorbing output) answers err to everything
        // and is the target of no checked transition: it needs no trace.
        const Word out = m.outputs_of(access[q]);
        if (traits.absorbing && std::find(out.begin(), out.end(), *traits.absorbing) != out.end()) continue;
        for (std::size_t x = 0; x < suffixes; ++x)
            if (traced[q * suffixes + x] == 0) return false;
    }
    // (b): least fixpoint.
    std::vector<char> proven(m.num_states() * k, 0);
    std::vector<char> made(m.num_states() * k * suffixes, 0);
    for (bool changed = true; changed;) {
        changed = false;
        for (const Word& w : words)
            for (StateId p = 0; p < m.num_states(); ++p) {
                const Word& a = access[p];
                if (a.size() > w.size() || !std::equal(a.begin(), a.end(), w.begin())) continue;
                StateId q = p;
                for (std::size_t j = a.size(); j < w.size(); ++j) {
                    const Symbol i = w[j];
                    const std::size_t left = w.size() - j - 1;
                    const bool absorbed = err(q, i) || (left > 0 && left < bound &&
                                                        err(m.run(Word(w.begin(), w.end() - 1)), w.back()));
                    if (checked(q, i) && (left >= bound || absorbed))
                        for (std::size_t x : completions(w, j + 1, std::min(left, bound)))
                            made[(q * k + i) * suffixes + x] = 1;
                    if (checked(q, i) && !proven[q * k + i]) break;  // later positions rest on it
                    if (err(q, i)) break;
                    q = m.successor(q, i);
                }
            }
        for (StateId q = 0; q < m.num_states(); ++q)
            for (Symbol i = 0; i < k; ++i) {
                if (!checked(q, i) || proven[q * k + i]) continue;
                const auto first = made.begin() + static_cast<std::ptrdiff_t>((q * k + i) * suffixes);
                if (std::find(first, first + static_cast<std::ptrdiff_t>(suffixes), 0) == first + static_cast<std::ptrdiff_t>(suffixes)) {
                    proven[q * k + i] = 1;
                    changed = true;
                }
            }
    }
    for (StateId q = 0; q < m.num_states(); ++q)
        for (Symbol i = 0; i < k; ++i)
            if (checked(q, i) && !proven[q * k + i]) return false;
    return true;
}

std::vector<Word> shortest_access(const MealyMachine& m) {
    std::vector<Word> out;
    for (const auto& a : access_sequences(m)) out.push_back(a.value_or(Word{}));
    return out;
}

std::vector<Word> words_of(const TestSuite& suite) {
    std::vector<Word> out;
    for (const TestCase& c : suite.cases) out.push_back(c.inputs);
    return out;
}

TestSuite chained_suite(const MealyMachine& m, std::size_t bound, std::vector<Word> prior = {}) {
    SuiteConfig c;
    c.bound = bound;
    c.chained = true;
    c.prior = std::move(prior);
    return algorithm2_suite(m, c);
}

/// Whether `suite` tells `device` from the model it was made for (a case whose outputs differ).
bool kills(const TestSuite& suite, const MealyMachine& device) {
    return std::any_of(suite.cases.begin(), suite.cases.end(),
                       [&](const TestCase& c) { return device.outputs_of(c.inputs) != c.expected; });
}

std::vector<testing_support::NamedMachine> machines() {
    std::vector<testing_support::NamedMachine> all = testing_support::reference_machines();
    for (std::uint64_t seed = 1; seed <= 6; ++seed)
        all.push_back({"random_mealy(6, 3, 2, " + std::to_string(seed) + ")", testing_support::random_mealy(6, 3, 2, seed)});
    for (std::uint64_t seed = 1; seed <= 3; ++seed)  // closures: err absorbing, wait
        all.push_back({"random_typestate(" + std::to_string(seed) + ")",
                       minimize(synchronous_closure(testing_support::random_typestate(3 + seed % 3, 2, 1, seed)))});
    return all;
}

TEST(Chained, EverySuitePassesTheIndependentProofChecker) {
    for (const auto& [name, m] : machines())
        for (std::size_t bound = 1; bound <= 3; ++bound) {
            SCOPED_TRACE(name + ", B=" + std::to_string(bound));
            const TestSuite suite = chained_suite(m, bound);
            ASSERT_FALSE(suite.cases.empty());
            const DeviceTraits traits = closure_traits(m.inputs(), m.outputs());
            EXPECT_TRUE(proves(m, shortest_access(m), bound, traits, words_of(suite)));
            // The checker is not vacuous: the plain suite proves too, and half a suite does not.
            SuiteConfig plain;
            plain.bound = bound;
            EXPECT_TRUE(proves(m, shortest_access(m), bound, traits, words_of(algorithm2_suite(m, plain))));
            std::vector<Word> half = words_of(suite);
            half.resize(half.size() / 2);
            if (m.num_states() > 1) EXPECT_FALSE(proves(m, shortest_access(m), bound, traits, half));
        }
}

TEST(Chained, KillsEveryMutantWithDistinguisherBoundAtMostB) {
    std::size_t tried = 0;
    for (const auto& [name, m] : machines()) {
        if (m.num_states() > 6) continue;  // the mutant sets grow as n^2 k^2
        std::vector<MealyMachine> mutants = conformance_test::single_transition_mutants(m);
        for (std::size_t copies = 1; copies <= 2; ++copies)
            for (auto& x : conformance_test::extra_state_mutants(m, copies)) mutants.push_back(std::move(x));
        for (std::size_t bound = 1; bound <= 2; ++bound) {
            SCOPED_TRACE(name + ", B=" + std::to_string(bound));
            const TestSuite suite = chained_suite(m, bound);
            for (const MealyMachine& mutant : mutants) {
                const auto own = distinguisher_bound(minimize(mutant));
                if (!own || *own > bound) continue;  // outside the guarantee
                ++tried;
                EXPECT_TRUE(kills(suite, mutant)) << "a mutant with distinguisher bound " << *own << " passes";
            }
        }
    }
    EXPECT_GT(tried, 1000u);
}

TEST(Chained, FewerWordsThanThePlainSuite) {
    // On machines with more than a handful of states and inputs, chaining saves resets (on the
    // AALpy models typestar_learn_bench measures: about a third of the words and a quarter of the
    // inputs of the plain suite).
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const MealyMachine m = testing_support::random_mealy(30, 6, 3, seed);
        SuiteConfig plain;
        plain.bound = 2;
        const TestSuite a = algorithm2_suite(m, plain);
        const TestSuite b = chained_suite(m, 2);
        EXPECT_LT(b.cases.size() * 10, a.cases.size() * 9) << "seed " << seed;
        EXPECT_LT(b.symbols(), a.symbols()) << "seed " << seed;
        EXPECT_TRUE(proves(m, shortest_access(m), 2, closure_traits(m.inputs(), m.outputs()), words_of(b)));
    }
}

TEST(Chained, PriorWordsComeFirstAndCount) {
    // An equivalence oracle's earlier rounds: the words of another hypothesis's suite, answered by
    // the cache. They come first, as they are, and the suite adds fewer new words.
    const MealyMachine m = testing_support::random_mealy(12, 4, 2, 7);
    const MealyMachine other = conformance_test::single_transition_mutants(m).front();
    const std::vector<Word> prior = words_of(chained_suite(other, 2));
    const TestSuite fresh = chained_suite(m, 2);
    const TestSuite with = chained_suite(m, 2, prior);
    ASSERT_GE(with.cases.size(), prior.size() / 2);
    std::size_t new_words = 0;
    for (const TestCase& c : with.cases)
        if (std::find(prior.begin(), prior.end(), c.inputs) == prior.end()) ++new_words;
    EXPECT_LT(new_words * 2, fresh.cases.size());
    EXPECT_TRUE(proves(m, shortest_access(m), 2, closure_traits(m.inputs(), m.outputs()), words_of(with)));
}

TEST(Chained, AnEquivalenceOracleFindsWhatThePlainOneFinds) {
    // Through the runner, against every single-transition mutant of a random machine as the device.
    const MealyMachine m = testing_support::random_mealy(8, 3, 2, 11);
    for (const MealyMachine& mutant : conformance_test::single_transition_mutants(m)) {
        const auto own = distinguisher_bound(minimize(mutant));
        if (!own || *own > 2) continue;
        ModelDevice device(mutant);
        OracleStack stack(device);
        SuiteConfig c;
        c.bound = 2;
        c.chained = true;
        SuiteEquivalenceOracle oracle(stack.oracle(), c);
        EXPECT_TRUE(oracle.find_counterexample(m, {}).has_value());
    }
}

}  // namespace
}  // namespace typestar
