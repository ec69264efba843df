#include "typestar/core/algorithms.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "support/random_mealy.hpp"

namespace typestar {
namespace {

using testing_support::random_mealy;

/// Length of the shortest word separating states p and q, by brute force up to `limit`.
std::optional<std::size_t> brute_separation(const MealyMachine& m, StateId p, StateId q, std::size_t limit) {
    for (std::size_t len = 1; len <= limit; ++len)
        for (const auto& w : words_of_length(m.num_inputs(), len))
            if (m.outputs_of(w, p) != m.outputs_of(w, q)) return len;
    return std::nullopt;
}

/// A 5-state "combination lock": only "a b c a" opens it; a wrong input goes back to the start,
/// and the open state answers `open_output` to everything.
MealyMachine lock(std::vector<std::string> inputs = {"a", "b", "c"},
                  std::vector<std::string> outputs = {"0", "1"}, const std::string& open_output = "1") {
    Alphabet in(std::move(inputs)), out(std::move(outputs));
    MealyBuilder b(in, out);
    for (int s = 0; s < 5; ++s) b.add_state();
    const Symbol closed = out.at("0"), open = out.at(open_output);
    for (StateId s = 0; s < 4; ++s)
        for (Symbol i = 0; i < 3; ++i) b.set_transition(s, i, 0, closed);
    b.set_transition(0, in.at("a"), 1, closed);
    b.set_transition(1, in.at("b"), 2, closed);
    b.set_transition(2, in.at("c"), 3, closed);
    b.set_transition(3, in.at("a"), 4, open);
    for (Symbol i = 0; i < 3; ++i) b.set_transition(4, i, 4, open);
    return b.build();
}

TEST(Minimize, MergesEquivalentStatesAndKeepsBehaviour) {
    // Two copies of a toggle, glued: 4 states, 2 classes.
    MealyBuilder b(Alphabet({"t"}), Alphabet({"x", "y"}));
    for (int s = 0; s < 4; ++s) b.add_state("q" + std::to_string(s));
    b.set_transition(0, 0, 1, 0);
    b.set_transition(1, 0, 2, 1);
    b.set_transition(2, 0, 3, 0);
    b.set_transition(3, 0, 0, 1);
    const auto m = b.build();
    const auto min = minimize(m);
    EXPECT_EQ(min.num_states(), 2u);
    EXPECT_EQ(min.state_name(0), "q0");
    EXPECT_EQ(min.state_name(1), "q1");
    EXPECT_FALSE(separating_word(m, min).has_value());
}

TEST(Minimize, NamesEachClassAfterItsFirstStateInCanonicalOrder) {
    // Start reaches Low (declared first) by `b` and High (declared later) by `a`; Low and High are
    // equivalent. Breadth-first over inputs by name visits High first, so the class is "High";
    // with the input order (b, a) it is "Low". Neither the lowest id nor the last visit decides.
    MealyBuilder b(Alphabet({"b", "a"}), Alphabet({"x", "y"}));
    const auto start = b.add_state("Start");
    const auto low = b.add_state("Low");
    const auto high = b.add_state("High");
    b.set_transition(start, 0, low, 0);
    b.set_transition(start, 1, high, 0);
    for (StateId s : {low, high})
        for (Symbol i : {0u, 1u}) b.set_transition(s, i, s, 1);
    const auto m = b.build();
    const auto by_name = minimize(m);
    ASSERT_EQ(by_name.num_states(), 2u);
    EXPECT_EQ(by_name.state_name(0), "Start");
    EXPECT_EQ(by_name.state_name(1), "High");
    const auto by_id = minimize(m, {0, 1});
    EXPECT_EQ(by_id.state_name(1), "Low");
    // Three equivalent states: the first of the three in canonical order names the class.
    MealyBuilder c(Alphabet({"a", "b", "c"}), Alphabet({"x", "y"}));
    const auto root = c.add_state("Root");
    const auto third = c.add_state("Third");
    const auto second = c.add_state("Second");
    const auto first = c.add_state("First");
    c.set_transition(root, 0, first, 0);
    c.set_transition(root, 1, second, 0);
    c.set_transition(root, 2, third, 0);
    for (StateId s : {first, second, third})
        for (Symbol i : {0u, 1u, 2u}) c.set_transition(s, i, s, 1);
    const auto three = minimize(c.build());
    ASSERT_EQ(three.num_states(), 2u);
    EXPECT_EQ(three.state_name(1), "First");
}

TEST(Minimize, KeepsMinimalRandomMachinesAndDropsUnreachableStates) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const auto m = random_mealy(2 + seed * 3, 3, 3, seed);
        const auto min = minimize(m);
        EXPECT_EQ(min.num_states(), m.num_states()) << "seed " << seed;
        EXPECT_FALSE(separating_word(m, min).has_value()) << "seed " << seed;
    }
    MealyBuilder b(Alphabet({"a"}), Alphabet({"x"}));
    b.add_state();
    b.add_state();  // unreachable
    b.set_transition(0, 0, 0, 0);
    b.set_transition(1, 0, 0, 0);
    EXPECT_EQ(minimize(b.build()).num_states(), 1u);
}

TEST(Canonical, OrdersStatesBreadthFirstOverSortedInputs) {
    MealyBuilder b(Alphabet({"z", "a"}), Alphabet({"o"}));
    const auto s0 = b.add_state("Start");
    const auto s1 = b.add_state("ByZ");
    const auto s2 = b.add_state("ByA");
    b.set_transition(s0, 0, s1, 0);
    b.set_transition(s0, 1, s2, 0);
    for (StateId s : {s1, s2})
        for (Symbol i : {0u, 1u}) b.set_transition(s, i, s, 0);
    const auto c = canonical(b.build());
    EXPECT_EQ(c.state_name(0), "Start");
    EXPECT_EQ(c.state_name(1), "ByA");  // 'a' sorts before 'z'
    EXPECT_EQ(c.state_name(2), "ByZ");
}

TEST(SeparatingWord, IsShortestAgainstBruteForce) {
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        const auto m = random_mealy(6, 2, 2, seed);
        for (StateId p = 0; p < m.num_states(); ++p)
            for (StateId q = p + 1; q < m.num_states(); ++q) {
                const auto w = separating_word(m, p, q);
                ASSERT_TRUE(w.has_value()) << "random machines are minimal";
                EXPECT_NE(m.outputs_of(*w, p), m.outputs_of(*w, q));
                EXPECT_EQ(w->size(), brute_separation(m, p, q, 6)) << "seed " << seed;
            }
    }
}

TEST(SeparatingWord, MatchesSymbolsByNameAcrossMachines) {
    const auto m = lock();
    // The same lock with inputs and outputs declared in another order, whose opening is invisible.
    const auto other = lock({"c", "b", "a"}, {"1", "0"}, "0");
    const auto w = separating_word(m, other);
    ASSERT_TRUE(w.has_value());
    EXPECT_EQ(to_string(*w, m.inputs()), "a b c a");
    EXPECT_FALSE(separating_word(m, lock({"c", "a", "b"}, {"1", "0"})).has_value());
    MealyBuilder d(Alphabet({"a", "b"}), Alphabet({"0"}));
    d.add_state();
    d.set_transition(0, 0, 0, 0);
    d.set_transition(0, 1, 0, 0);
    EXPECT_THROW((void)separating_word(m, d.build()), std::invalid_argument);
}

TEST(AccessSequences, AreShortestAndReachTheirState) {
    const auto m = random_mealy(40, 3, 2, 7);
    const auto access = access_sequences(m);
    std::vector<std::size_t> depth(m.num_states(), 0);
    for (StateId s = 0; s < m.num_states(); ++s) {
        ASSERT_TRUE(access[s].has_value());
        EXPECT_EQ(m.run(*access[s]), s);
    }
    // Breadth-first: no state is reached by a shorter word than its access sequence.
    for (std::size_t len = 0; len <= 3; ++len)
        for (const auto& w : words_of_length(3, len)) EXPECT_LE(access[m.run(w)]->size(), len);
}

TEST(AccessSequences, BreakTiesByInputIdUnlessGivenAnOrder) {
    // Both inputs lead from Start to Next; `z` has id 0, `a` id 1. By default the first input by id
    // wins (not by name); a given order decides otherwise.
    MealyBuilder b(Alphabet({"z", "a"}), Alphabet({"o"}));
    const auto start = b.add_state("Start");
    const auto next = b.add_state("Next");
    for (Symbol i : {0u, 1u}) {
        b.set_transition(start, i, next, 0);
        b.set_transition(next, i, next, 0);
    }
    const auto m = b.build();
    const auto by_id = access_sequences(m);
    ASSERT_TRUE(by_id[next].has_value());
    EXPECT_EQ(*by_id[next], (Word{0}));
    const auto by_order = access_sequences(m, {1, 0});
    EXPECT_EQ(*by_order[next], (Word{1}));
    EXPECT_EQ(*by_order[start], Word{});
}

TEST(DistinguisherBound, IsTheLongestShortestSeparation) {
    EXPECT_EQ(distinguisher_bound(lock()), 3u);
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const auto m = random_mealy(7, 2, 2, seed);
        std::size_t longest = 0;
        for (StateId p = 0; p < m.num_states(); ++p)
            for (StateId q = p + 1; q < m.num_states(); ++q) longest = std::max(longest, separating_word(m, p, q)->size());
        EXPECT_EQ(distinguisher_bound(m), longest) << "seed " << seed;
    }
    MealyBuilder b(Alphabet({"a"}), Alphabet({"x"}));
    b.add_state();
    b.add_state();
    b.set_transition(0, 0, 1, 0);
    b.set_transition(1, 0, 0, 0);
    EXPECT_FALSE(distinguisher_bound(b.build()).has_value());  // two equivalent states
}

TEST(WordsOfLength, EnumeratesLexicographically) {
    EXPECT_EQ(words_of_length(2, 2), (std::vector<Word>{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
    EXPECT_EQ(words_of_length(3, 0), (std::vector<Word>{Word{}}));
    EXPECT_EQ(words_of_length(4, 3).size(), 64u);
    EXPECT_TRUE(words_of_length(0, 2).empty());
}

TEST(CharacterizingSet, SeparatesEveryTwoInequivalentStates) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const auto m = random_mealy(12, 3, 2, seed);
        for (const auto& known : {std::vector<Word>{}, words_of_length(3, 1)}) {
            const auto w = characterizing_set(m, known);
            EXPECT_LT(w.size(), m.num_states());
            auto all = known;
            all.insert(all.end(), w.begin(), w.end());
            for (StateId p = 0; p < m.num_states(); ++p)
                for (StateId q = p + 1; q < m.num_states(); ++q) {
                    bool told = false;
                    for (const auto& x : all) told = told || m.outputs_of(x, p) != m.outputs_of(x, q);
                    EXPECT_TRUE(told) << "seed " << seed << ": states " << p << ", " << q;
                }
            for (const auto& x : w) EXPECT_EQ(std::find(known.begin(), known.end(), x), known.end());
        }
    }
    // Greedy from shortest separating words: "b c a" splits off the states one and four inputs
    // from opening, "c a" the state two from opening, "a" the state next to opening.
    const auto m = lock();
    std::vector<std::string> words;
    for (const auto& w : characterizing_set(m)) words.push_back(to_string(w, m.inputs()));
    EXPECT_EQ(words, (std::vector<std::string>{"b c a", "c a", "a"}));
}

TEST(EquivalenceClasses, NumberClassesByFirstOccurrence) {
    const auto classes = equivalence_classes(lock());
    EXPECT_EQ(classes, (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace typestar
