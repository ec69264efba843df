// The SL*-style learner and its tree oracle (issue 18): the small machines are learned exactly.
#include "typestar/ra/learner.hpp"

#include <gtest/gtest.h>

#include "ra_fixtures.hpp"

namespace typestar::ra {
namespace {

/// Learns `truth` through a simulator device and checks the result against the truth with words
/// of up to `depth` steps from each of its locations' access words (the truth's exploration).
RaLearnResult learn(const RegisterAutomaton& truth, std::size_t depth = 4) {
    SimulatorSul sul(truth);
    RaLearnResult r = learn_register_automaton(sul, truth);
    EXPECT_TRUE(r.converged) << r.failure;
    EXPECT_TRUE(validate(r.hypothesis).empty()) << validate(r.hypothesis).front();
    SimulatorSul again(truth);
    DataOracle oracle(again, truth);
    auto cex = find_difference(oracle, r.hypothesis, {}, depth);
    EXPECT_FALSE(cex.has_value()) << format_word(truth, cex->inputs, cex->outputs) << ": " << cex->reason;
    return r;
}

TEST(RaLearner, LearnsLoginOverIds) {
    // Registers hold distinct values (SL*'s memorable data): a user whose password equals the user
    // name needs one register, so "registered" and "logged in" each come in two locations.
    const auto r = learn(testing::login(), 3);
    EXPECT_EQ(r.hypothesis.locations.size(), 5U);
    EXPECT_EQ(r.hypothesis.max_registers(), 2U);
    EXPECT_GT(r.stats.tree_queries, 0U);
    EXPECT_GT(r.stats.executed, 0U);
}

TEST(RaLearner, LearnsThePriorityQueueOverOrderedInts) {
    // As in RALib's pq3.xml, a queue holding two equal values is its own location (one register).
    const auto r = learn(testing::priority_queue2(), 5);
    EXPECT_EQ(r.hypothesis.locations.size(), 4U);
    EXPECT_EQ(r.hypothesis.max_registers(), 2U);
}

TEST(RaLearner, LearnsFreshOutputs) {
    const auto r = learn(testing::key_store(), 4);
    EXPECT_EQ(r.hypothesis.locations.size(), 2U);
    EXPECT_EQ(r.hypothesis.max_registers(), 2U);
}

}  // namespace
}  // namespace typestar::ra
