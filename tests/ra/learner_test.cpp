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
    // Offering a value equal to the stored one behaves like a larger one here, so the equality
    // class merges into `p > r1` (registers may then hold equal values): the truth's 3 locations.
    const auto r = learn(testing::priority_queue2(), 5);
    EXPECT_EQ(r.hypothesis.locations.size(), 3U);
    EXPECT_EQ(r.hypothesis.max_registers(), 2U);
}

TEST(RaLearner, LearnsFreshOutputs) {
    const auto r = learn(testing::key_store(), 4);
    EXPECT_EQ(r.hypothesis.locations.size(), 2U);
    EXPECT_EQ(r.hypothesis.max_registers(), 2U);
}

}  // namespace
}  // namespace typestar::ra

namespace typestar::ra {
namespace {

TEST(RaTreeOracle, EqualityTheoryOneLeafPerClass) {
    const RegisterAutomaton ks = testing::key_store();
    SimulatorSul sul(ks);
    DataOracle oracle(sul, ks);
    // after put(7) answered key(k): get's parameter is 7, k, or fresh
    const DataWord prefix{{0, {7}}};
    const auto leaves = tree_query(oracle, ks, prefix, {1});
    ASSERT_EQ(leaves.size(), 3U);
    const Value key = oracle.query(prefix)[0].values[0];
    std::vector<Value> params;
    std::size_t hits = 0;
    for (const auto& [in, out] : leaves) {
        params.push_back(in[0].values[0]);
        if (ks.outputs[out[0].symbol].name == "val") {
            ++hits;
            EXPECT_EQ(in[0].values[0], key);
            EXPECT_EQ(out[0].values, std::vector<Value>{7});
        }
    }
    EXPECT_EQ(hits, 1U);
    EXPECT_NE(std::find(params.begin(), params.end(), 7), params.end());
    EXPECT_EQ(oracle.stats().tree_queries, 1U);
    // the stored value is revealed by get(key), the key decides: both memorable; nothing else
    EXPECT_EQ(memorable_values(oracle, ks, prefix, {{1}}), (std::vector<Value>{7, key}));
    EXPECT_TRUE(memorable_values(oracle, ks, {{1, {4}}}, {{0}, {1}}).empty());
}

TEST(RaTreeOracle, OrderTheoryBelowBetweenAbove) {
    const RegisterAutomaton pq = testing::priority_queue2();
    SimulatorSul sul(pq);
    DataOracle oracle(sul, pq);
    const DataWord one{{0, {5}}};
    // offer after offer(5): below, equal, above
    const auto leaves = tree_query(oracle, pq, one, {0});
    ASSERT_EQ(leaves.size(), 3U);
    EXPECT_LT(leaves[0].first[0].values[0], 5);
    EXPECT_EQ(leaves[1].first[0].values[0], 5);
    EXPECT_GT(leaves[2].first[0].values[0], 5);
    // offer(5) offer(9), then offer poll poll: 5 classes of the new value (below, =5, between, =9, above)
    const DataWord two{{0, {5}}, {0, {9}}};
    const auto five = tree_query(oracle, pq, two, {0});
    ASSERT_EQ(five.size(), 5U);
    EXPECT_LT(five[0].first[0].values[0], 5);
    EXPECT_EQ(five[1].first[0].values[0], 5);
    EXPECT_GT(five[2].first[0].values[0], 5);
    EXPECT_LT(five[2].first[0].values[0], 9);
    EXPECT_EQ(five[3].first[0].values[0], 9);
    EXPECT_GT(five[4].first[0].values[0], 9);
    EXPECT_EQ(tree_query(oracle, pq, two, {1}).size(), 1U);
    EXPECT_EQ(tree_query(oracle, pq, {{0, {5}}}, {0, 1, 1}).size(), 3U);
    // poll reveals the smallest; poll poll both; a full queue forgets nothing, an empty one has nothing
    EXPECT_EQ(memorable_values(oracle, pq, two, {{1}}), std::vector<Value>{5});
    EXPECT_EQ(memorable_values(oracle, pq, two, {{1}, {1, 1}}), (std::vector<Value>{5, 9}));
    const DataWord polled{{0, {5}}, {1, {}}};
    EXPECT_TRUE(memorable_values(oracle, pq, polled, {{1}, {0, 1}}).empty());
    // after offer(5), "offer then poll" returns 5 when the new value is larger: memorable
    EXPECT_EQ(memorable_values(oracle, pq, one, {{0, 1}}), std::vector<Value>{5});
}

}  // namespace
}  // namespace typestar::ra

namespace typestar::ra {
namespace {

TEST(RaLearner, StopsHonestlyWhenTheBudgetIsExhausted) {
    const RegisterAutomaton truth = testing::login();
    SimulatorSul sul(truth);
    RaLearnConfig config;
    config.max_executed = 20;
    const RaLearnResult r = learn_register_automaton(sul, truth, config);
    EXPECT_FALSE(r.converged);
    EXPECT_NE(r.failure.find("query budget exhausted"), std::string::npos) << r.failure;
}

TEST(RaLearner, ANondeterministicDeviceIsAnError) {
    /// answers ok and nok alternately across runs: the same word, two answers
    class Flaky final : public DataSul {
    public:
        void reset() override {}
        DataSymbol step(const DataSymbol&) override { return {(calls_++ % 2) ? std::size_t{0} : std::size_t{1}, {}}; }

    private:
        std::size_t calls_ = 0;
    };
    Flaky flaky;
    EXPECT_THROW((void)learn_register_automaton(flaky, testing::login()), NondeterminismError);
}

}  // namespace
}  // namespace typestar::ra
