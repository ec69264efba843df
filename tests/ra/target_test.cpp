// A real C++ target with data (issue 18 item 5): std::priority_queue as a bounded min-queue, learned
// from scratch with the SL*-style learner and checked against the committed spec
// specs/ra/std_priority_queue.yaml with the generalised Algorithm 2 suite.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "std_priority_queue_target.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/learner.hpp"
#include "typestar/session/register_automata.hpp"
#include "typestar/ra/suite.hpp"

namespace typestar::ra {
namespace {

const std::string kSpec = std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/std_priority_queue.yaml";

TEST(RaTarget, StdPriorityQueueConformsToTheCommittedSpec) {
    const RaSpec spec = load_register_spec(kSpec);
    testing::StdPriorityQueueSul device;
    const auto result = check_register_automaton(spec.automaton, device, RaSuiteConfig{spec.distinguisher, 10000});
    EXPECT_FALSE(result.counterexample) << result.summary();
    EXPECT_FALSE(result.truncated);
    EXPECT_GT(result.words, 100U);
}

TEST(RaTarget, LearningFromScratchWritesTheCommittedSpecByteForByte) {
    testing::StdPriorityQueueSul device;
    const RaLearnResult learned = learn_register_automaton(device, testing::std_priority_queue_signature());
    ASSERT_TRUE(learned.converged) << learned.failure;
    std::ifstream in(kSpec);
    std::stringstream committed;
    committed << in.rdbuf();
    EXPECT_EQ(write_register_spec(RaSpec{learned.hypothesis, 2, {}}), committed.str());
}

/// The same library used as a max-queue: the suite must say where it differs.
class MaxQueueSul final : public DataSul {
public:
    void reset() override { queue_ = {}; }
    DataSymbol step(const DataSymbol& input) override {
        if (input.symbol == 0) {
            if (queue_.size() >= 3) return {1, {}};
            queue_.push(input.values.at(0));
            return {0, {}};
        }
        if (queue_.empty()) return {1, {}};
        const Value top = queue_.top();
        queue_.pop();
        return {2, {top}};
    }

private:
    std::priority_queue<Value> queue_;
};

TEST(RaTarget, AMaxQueueFailsTheSuiteWithADataTrace) {
    const RaSpec spec = load_register_spec(kSpec);
    MaxQueueSul device;
    const auto result = check_register_automaton(spec.automaton, device, RaSuiteConfig{spec.distinguisher, 10000});
    ASSERT_TRUE(result.counterexample);
    EXPECT_EQ(result.counterexample->inputs.size(), 3U);  // offer(a) offer(b) poll with a != b
    EXPECT_NE(result.summary().find("expected out("), std::string::npos) << result.summary();
}

}  // namespace
}  // namespace typestar::ra
