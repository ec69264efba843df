// Tests of the shared test support: seeded random machines and the reference machines.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <tuple>

#include "support/random_mealy.hpp"
#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar::testing_support {
namespace {

bool same_table(const MealyMachine& a, const MealyMachine& b) {
    if (a.num_states() != b.num_states() || a.num_inputs() != b.num_inputs()) return false;
    const auto ta = a.table();
    const auto tb = b.table();
    return std::equal(ta.begin(), ta.end(), tb.begin(), tb.end());
}

/// FNV-1a over the transition table: a fingerprint for the golden determinism check.
std::uint64_t fingerprint(const MealyMachine& m) {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t v) {
        for (int k = 0; k < 8; ++k) {
            h ^= (v >> (8 * k)) & 0xffU;
            h *= 1099511628211ULL;
        }
    };
    for (const auto& t : m.table()) {
        mix(t.target);
        mix(t.output);
    }
    return h;
}

TEST(UniformBelow, StaysInRangeAndCoversIt) {
    std::mt19937_64 rng(7);
    std::set<std::uint64_t> seen;
    for (int k = 0; k < 1000; ++k) {
        const auto v = uniform_below(rng, 6);
        ASSERT_LT(v, 6U);
        seen.insert(v);
    }
    EXPECT_EQ(seen.size(), 6U);
    EXPECT_EQ(uniform_below(rng, 1), 0U);
}

TEST(UniformBelow, IsThePortableRejectionMapping) {
    // For a power of two there is nothing to reject: the draw is the engine output modulo the bound.
    std::mt19937_64 a(99);
    std::mt19937_64 b(99);
    for (int k = 0; k < 100; ++k) EXPECT_EQ(uniform_below(a, 1024), b() % 1024);
}

class RandomMealyShapes
    : public testing::TestWithParam<std::tuple<std::size_t, std::size_t, std::size_t>> {};

TEST_P(RandomMealyShapes, ReachableMinimalAndDeterministic) {
    const auto [states, inputs, outputs] = GetParam();
    for (std::uint64_t seed : {1ULL, 2ULL, 12345ULL}) {
        const MealyMachine m = random_mealy(states, inputs, outputs, seed);
        ASSERT_EQ(m.num_states(), states);
        ASSERT_EQ(m.num_inputs(), inputs);
        ASSERT_EQ(m.outputs().size(), outputs);
        EXPECT_EQ(m.initial(), 0U);
        for (const auto& access : access_sequences(m)) EXPECT_TRUE(access.has_value());
        EXPECT_EQ(minimize(m).num_states(), states) << "seed " << seed;
        EXPECT_TRUE(same_table(m, random_mealy(states, inputs, outputs, seed)));
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, RandomMealyShapes,
                         testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(1, 3, 2),
                                         std::make_tuple(2, 1, 2), std::make_tuple(7, 1, 2),
                                         std::make_tuple(5, 2, 2), std::make_tuple(20, 2, 2),
                                         std::make_tuple(50, 3, 3), std::make_tuple(200, 5, 5),
                                         std::make_tuple(1000, 5, 5)));

TEST(RandomMealy, RepairReachesMinimalityOnHardShapes) {
    // One input or two outputs leave few minimal machines per transition structure: the repair
    // loop has to work here. Every seed must still succeed.
    for (std::size_t states : {2U, 3U, 5U, 9U, 16U, 40U}) {
        for (std::uint64_t seed = 0; seed < 40; ++seed) {
            const MealyMachine m = random_mealy(states, 1, 2, seed);
            ASSERT_EQ(minimize(m).num_states(), states) << states << " states, seed " << seed;
            const MealyMachine m2 = random_mealy(states, 2, 2, seed);
            ASSERT_EQ(minimize(m2).num_states(), states) << states << " states, seed " << seed;
        }
    }
}

TEST(RandomMealy, SeedsGiveDifferentMachines) {
    EXPECT_FALSE(same_table(random_mealy(30, 3, 3, 1), random_mealy(30, 3, 3, 2)));
}

TEST(RandomMealy, GoldenFingerprintIsPortable) {
    // Recorded with libstdc++ (g++ 12); must not change with the standard library or platform.
    EXPECT_EQ(fingerprint(random_mealy(100, 4, 3, 2024)), 0xad10d5ea252fd54dULL);
}

TEST(RandomMealy, RejectsImpossibleShapes) {
    EXPECT_THROW((void)random_mealy(0, 2, 2, 1), std::invalid_argument);
    EXPECT_THROW((void)random_mealy(3, 0, 2, 1), std::invalid_argument);
    EXPECT_THROW((void)random_mealy(3, 2, 0, 1), std::invalid_argument);
    EXPECT_THROW((void)random_mealy(3, 2, 1, 1), std::invalid_argument);
    EXPECT_NO_THROW((void)random_mealy(1, 2, 1, 1));
}

struct Expected {
    const char* name;
    std::size_t states;
    std::size_t bound;
};

TEST(ReferenceMachines, StatesAndDistinguisherBounds) {
    const Expected expected[] = {{"angluin_example", 4, 2},
                                 {"coffee_machine", 6, 2},
                                 {"combination_lock", 4, 3},
                                 {"single_state", 1, 0},
                                 {"quiet_timer", 4, 1}};
    const auto all = reference_machines();
    ASSERT_EQ(all.size(), std::size(expected));
    for (std::size_t k = 0; k < all.size(); ++k) {
        SCOPED_TRACE(all[k].name);
        EXPECT_EQ(all[k].name, expected[k].name);
        const MealyMachine& m = all[k].machine;
        EXPECT_EQ(m.num_states(), expected[k].states);
        EXPECT_EQ(minimize(m).num_states(), expected[k].states);
        for (const auto& access : access_sequences(m)) EXPECT_TRUE(access.has_value());
        EXPECT_EQ(distinguisher_bound(m), expected[k].bound);
    }
}

TEST(ReferenceMachines, CombinationLockOpensOnlyOnTheCode) {
    const MealyMachine m = combination_lock();
    const Alphabet& in = m.inputs();
    const Alphabet& out = m.outputs();
    EXPECT_EQ(to_string(m.outputs_of(word_of({"a", "b", "a"}, in)), out), "locked locked open");
    EXPECT_EQ(to_string(m.outputs_of(word_of({"a", "a", "b", "a"}, in)), out),
              "locked locked locked locked");
}

TEST(ReferenceMachines, QuietTimerIsAClosureWithAQuietMove) {
    const Typestate t = typestate_of(quiet_timer(), "QuietTimer");
    const auto armed = t.find_state("Armed");
    const auto elapsed = t.find_state("Elapsed");
    ASSERT_TRUE(armed && elapsed);
    EXPECT_FALSE(t.states[*armed].callback.has_value());
    EXPECT_EQ(t.states[*armed].wait, Typestate::Wait::Quiet);
    EXPECT_EQ(t.states[*armed].quiet_target, elapsed);
    EXPECT_TRUE(separating_word(synchronous_closure(t), quiet_timer()) == std::nullopt);
}

}  // namespace
}  // namespace typestar::testing_support
