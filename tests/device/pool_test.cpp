// Device pools: a batch split across N devices gives the answers of one device, and learning
// through a pool gives the same hypothesis and the same query statistics for every pool size (and
// as the one-at-a-time cache of OracleStack).
#include <gtest/gtest.h>

#include <atomic>

#include "learning_support.hpp"
#include "support/random_mealy.hpp"
#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/session/session.hpp"
#include "typestar/sul/parallel.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar::testing_support {
// Test names print the machine's name, not its bytes.
inline void PrintTo(const NamedMachine& m, std::ostream* os) { *os << m.name; }
}  // namespace typestar::testing_support

namespace typestar {
namespace {

std::vector<std::unique_ptr<Device>> models(const MealyMachine& m, std::size_t n) {
    std::vector<std::unique_ptr<Device>> devices;
    for (std::size_t i = 0; i < n; ++i) devices.push_back(std::make_unique<ModelDevice>(m));
    return devices;
}

std::vector<Device*> raw(const std::vector<std::unique_ptr<Device>>& devices) {
    std::vector<Device*> out;
    for (const auto& d : devices) out.push_back(d.get());
    return out;
}

TEST(ParallelOracle, AnswersABatchLikeOneDevice) {
    const MealyMachine m = testing_support::random_mealy(12, 3, 3, 7);
    ModelDevice single(m);
    DeviceOracle reference(single);
    QueryCounter counter;
    const auto devices = models(m, 4);
    ParallelOracle pool(raw(devices), &counter);
    std::vector<Word> words;
    for (Symbol a = 0; a < 3; ++a)
        for (Symbol b = 0; b < 3; ++b)
            for (Symbol c = 0; c < 3; ++c) words.push_back({a, b, c, a, c});
    std::vector<Word> answers(words.size(), Word(5));
    std::vector<Query> batch;
    for (std::size_t i = 0; i < words.size(); ++i)
        batch.push_back(Query{std::span<const Symbol>(words[i]).first(2), std::span<const Symbol>(words[i]).subspan(2),
                              std::span<Symbol>(answers[i]).first(3)});
    pool.query_all(batch);
    for (std::size_t i = 0; i < words.size(); ++i) {
        const Word expected = reference.query(words[i]);
        EXPECT_EQ(Word(answers[i].begin(), answers[i].begin() + 3), Word(expected.begin() + 2, expected.end()));
    }
    EXPECT_EQ(counter.stats().learning.queries_executed, words.size());
    EXPECT_EQ(counter.stats().learning.symbols_executed, 5 * words.size());
}

TEST(ParallelOracle, RefusesDevicesWithDifferentAlphabets) {
    std::vector<std::unique_ptr<Device>> devices;
    devices.push_back(std::make_unique<ModelDevice>(testing_support::coffee_machine(), "coffee"));
    devices.push_back(std::make_unique<ModelDevice>(testing_support::angluin_example(), "angluin"));
    try {
        ParallelOracle pool(raw(devices));
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  "devices of a pool must have the same inputs, outputs and traits: 'angluin' differs from 'coffee'");
    }
    EXPECT_THROW(ParallelOracle(std::vector<Device*>{}), std::invalid_argument);
    EXPECT_THROW(OracleStack(std::vector<Device*>{}), std::invalid_argument);
}

/// A model device that fails on one word (a broken harness).
class FailingDevice final : public Device {
public:
    FailingDevice(MealyMachine m, Word poison) : model_(std::move(m)), poison_(std::move(poison)) {}
    const Alphabet& inputs() const override { return model_.inputs(); }
    const Alphabet& outputs() const override { return model_.outputs(); }
    DeviceTraits traits() const override { return model_.traits(); }
    std::string name() const override { return "failing"; }
    void reset() override { model_.reset(); }
    Symbol step(Symbol input) override { return model_.step(input); }
    RunResult run(std::span<const Symbol> word) override {
        if (Word(word.begin(), word.end()) == poison_) throw DeviceError("failing: the harness broke");
        return model_.run(word);
    }

private:
    ModelDevice model_;
    Word poison_;
};

TEST(ParallelOracle, ADeviceErrorStopsTheBatchAndIsRethrown) {
    const MealyMachine m = testing_support::angluin_example();
    std::vector<std::unique_ptr<Device>> devices;
    for (int i = 0; i < 3; ++i) devices.push_back(std::make_unique<FailingDevice>(m, Word{1, 1, 0}));
    QueryCounter counter;
    ParallelOracle pool(raw(devices), &counter);
    std::vector<Word> words{{0, 0, 0}, {1, 1, 0}, {0, 1, 0}, {1, 0, 1}};
    std::vector<Word> answers(words.size(), Word(3));
    std::vector<Query> batch;
    for (std::size_t i = 0; i < words.size(); ++i) batch.push_back(Query{{}, words[i], answers[i]});
    EXPECT_THROW(pool.query_all(batch), DeviceError);
    EXPECT_EQ(counter.stats().learning.queries_executed, 0u);  // a failed batch counts nothing
    // The pool stays usable.
    std::vector<Query> ok{batch[0], batch[2]};
    EXPECT_NO_THROW(pool.query_all(ok));
}

struct Outcome {
    MealyMachine hypothesis;
    QueryStats stats;
    std::uint64_t executed = 0;
};

Outcome learn_model(const MealyMachine& m, std::size_t pool_size) {
    const auto devices = models(m, pool_size);
    LearnOptions options;
    options.equivalence.bound = 2;
    options.equivalence.batch_size = 64;
    const LearnedSpec r = learn_spec(raw(devices), options);
    return {r.machine, r.stats, r.cache.executed};
}

class PoolEquality : public ::testing::TestWithParam<testing_support::NamedMachine> {};

TEST_P(PoolEquality, SameHypothesisAndStatisticsForEveryPoolSize) {
    const MealyMachine& m = GetParam().machine;
    const Outcome one_at_a_time = learn_model(m, 1);
    for (std::size_t n : {2u, 3u, 4u}) {
        const Outcome pooled = learn_model(m, n);
        EXPECT_FALSE(separating_word(pooled.hypothesis, one_at_a_time.hypothesis).has_value()) << n;
        EXPECT_EQ(pooled.hypothesis.num_states(), one_at_a_time.hypothesis.num_states()) << n;
        EXPECT_EQ(pooled.stats.learning, one_at_a_time.stats.learning) << n;
        EXPECT_EQ(pooled.stats.equivalence, one_at_a_time.stats.equivalence) << n;
        EXPECT_EQ(pooled.stats.equivalence_rounds, one_at_a_time.stats.equivalence_rounds) << n;
        EXPECT_EQ(pooled.executed, one_at_a_time.executed) << n;
    }
}

std::vector<testing_support::NamedMachine> machines() {
    auto all = testing_support::reference_machines();
    all.push_back({"random_20x4", testing_support::random_mealy(20, 4, 3, 11)});
    return all;
}

INSTANTIATE_TEST_SUITE_P(Reference, PoolEquality, ::testing::ValuesIn(machines()),
                         [](const auto& param_info) { return param_info.param.name; });

TEST(PoolEqualitySimulated, AsyncTaskPoolOfThreeEqualsOneDevice) {
    const auto one = testing_support::learn_from_scratch(
        make_devices({"inproc:asynctask"}, 1, testing_support::fast_device_options()), "AsyncTask");
    const auto three = testing_support::learn_from_scratch(
        make_devices({"inproc:asynctask"}, 3, testing_support::fast_device_options()), "AsyncTask");
    EXPECT_EQ(canonical(three.typestate), canonical(one.typestate));
    EXPECT_EQ(three.stats.learning, one.stats.learning);
    // A batch runs on the three devices at once, so a search that finds a counterexample may have
    // run up to two more words of its batch than one device (which stops at the failing word).
    EXPECT_EQ(three.stats.equivalence_rounds, one.stats.equivalence_rounds);
    EXPECT_GE(three.stats.equivalence.queries_executed, one.stats.equivalence.queries_executed);
    EXPECT_LE(three.stats.equivalence.queries_executed,
              one.stats.equivalence.queries_executed + 2 * one.stats.equivalence_rounds);
    EXPECT_LE(three.cache.executed, one.cache.executed + 2 * one.stats.equivalence_rounds);
}

}  // namespace
}  // namespace typestar
