// CacheOracle: what it answers without the device, what it runs in a batch, and the
// non-determinism guard; OracleStack's shared statistics.
#include <gtest/gtest.h>

#include <map>

#include <random>

#include "support/random_mealy.hpp"
#include "support/random_typestate.hpp"
#include "toy.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/sul/cache.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

using sul_test::toy_closure;

constexpr Symbol kStart = 0, kStop = 1, kWaitIn = 2;
constexpr Symbol kOkOut = 0, kQuietOut = 1, kErrOut = 2, kDoneOut = 3;

/// The toy closure with the quiet assumption declared (these tests are about the cache's use of it).
ModelDevice declared_quiet() {
    const MealyMachine m = toy_closure();
    return ModelDevice(m, "model", closure_traits(m.inputs(), m.outputs(), true));
}

struct Fixture {
    ModelDevice device{declared_quiet()};
    OracleStack stack{device};
    MembershipOracle& oracle = stack.oracle();
    std::uint64_t executed() const { return stack.stats().total().queries_executed; }
    std::uint64_t waits() const { return stack.stats().total().waits_executed; }
};

Word ask(MembershipOracle& oracle, const Word& w) { return oracle.query(w); }

TEST(CacheOracle, AnswersPrefixesWithoutTheDevice) {
    Fixture f;
    EXPECT_EQ(ask(f.oracle, {kStart, kWaitIn, kStart}), (Word{kOkOut, kDoneOut, kOkOut}));
    EXPECT_EQ(ask(f.oracle, {kStart, kWaitIn}), (Word{kOkOut, kDoneOut}));
    EXPECT_EQ(ask(f.oracle, {}), Word{});
    EXPECT_EQ(f.executed(), 1u);
    EXPECT_EQ(f.stack.stats().total().queries_asked, 3u);
    EXPECT_EQ(f.stack.cache().stats().hits, 2u);
}

TEST(CacheOracle, AnswersExtensionsOfAnErrWithoutTheDevice) {
    Fixture f;
    EXPECT_EQ(ask(f.oracle, {kStop}), (Word{kErrOut}));
    EXPECT_EQ(ask(f.oracle, {kStop, kStart, kWaitIn, kStop}), (Word{kErrOut, kErrOut, kErrOut, kErrOut}));
    EXPECT_EQ(f.executed(), 1u);
    EXPECT_EQ(f.stack.stats().total().symbols_executed, 1u);
}

TEST(CacheOracle, AnswersThroughAKnownQuietWait) {
    Fixture f;
    EXPECT_EQ(ask(f.oracle, {kWaitIn}), (Word{kQuietOut}));
    EXPECT_EQ(ask(f.oracle, {kStart, kWaitIn}), (Word{kOkOut, kDoneOut}));
    EXPECT_EQ(ask(f.oracle, {kWaitIn, kWaitIn, kStart, kWaitIn}), (Word{kQuietOut, kQuietOut, kOkOut, kDoneOut}));
    EXPECT_EQ(f.executed(), 2u);
}

TEST(CacheOracle, LeavesKnownQuietWaitsOutOfExecutedWords) {
    Fixture f;
    EXPECT_EQ(ask(f.oracle, {kWaitIn}), (Word{kQuietOut}));
    EXPECT_EQ(f.waits(), 1u);
    EXPECT_EQ(ask(f.oracle, {kWaitIn, kStart, kStop}), (Word{kQuietOut, kOkOut, kOkOut}));
    EXPECT_EQ(f.executed(), 2u);
    EXPECT_EQ(f.waits(), 1u);  // the second query ran as `start stop`
    EXPECT_EQ(f.stack.stats().total().symbols_executed, 3u);
}

TEST(CacheOracle, WithoutQuietTraitsWaitsRun) {
    ModelDevice device(toy_closure());
    QueryCounter counter;
    const QueryStats& stats = counter.stats();
    DeviceOracle executed(device, &counter);
    CacheOracle cache(executed, CacheConfig{1, true, false});
    EXPECT_FALSE(cache.traits().quiet.has_value());
    (void)cache.query(Word{kWaitIn});
    EXPECT_EQ(cache.query(Word{kWaitIn, kStart}), (Word{kQuietOut, kOkOut}));
    EXPECT_EQ(stats.learning.queries_executed, 2u);
    EXPECT_EQ(stats.learning.waits_executed, 2u);
}

TEST(CacheOracle, RunsOnlyMaximalWordsOfABatchLongestFirst) {
    Fixture f;
    const std::vector<Word> words{{kStart}, {kStart, kWaitIn}, {kWaitIn}, {kStart, kWaitIn, kStart}, {kStop}};
    std::vector<Word> answers(words.size());
    std::vector<Query> batch;
    for (std::size_t i = 0; i < words.size(); ++i) {
        answers[i].resize(words[i].size());
        batch.push_back(Query{{}, words[i], answers[i]});
    }
    f.oracle.query_all(batch);
    for (std::size_t i = 0; i < words.size(); ++i) EXPECT_EQ(answers[i], toy_closure().outputs_of(words[i])) << i;
    EXPECT_EQ(f.executed(), 3u);  // start·wait·start, wait, stop
    EXPECT_EQ(f.stack.stats().total().queries_asked, 5u);
}

TEST(CacheOracle, BatchUsesAnErrFoundByALongerWord) {
    Fixture f;
    // `stop stop` runs first (longest) and answers err: `stop start` is then known without a run.
    const Word a{kStop, kStart}, b{kStop, kStop, kWaitIn};
    Word out_a(2), out_b(3);
    const std::vector<Query> batch{Query{{}, a, out_a}, Query{{}, b, out_b}};
    f.oracle.query_all(batch);
    EXPECT_EQ(out_a, (Word{kErrOut, kErrOut}));
    EXPECT_EQ(out_b, (Word{kErrOut, kErrOut, kErrOut}));
    EXPECT_EQ(f.executed(), 1u);
}

TEST(CacheOracle, BatchLeavesOutAQuietWaitFoundByAnotherWord) {
    Fixture f;
    // `wait start` runs first and finds `wait` quiet; `wait stop` then runs as `stop`, without a wait.
    const Word a{kWaitIn, kStart}, b{kWaitIn, kStop};
    Word out_a(2), out_b(2);
    const std::vector<Query> batch{Query{{}, a, out_a}, Query{{}, b, out_b}};
    f.oracle.query_all(batch);
    EXPECT_EQ(out_a, (Word{kQuietOut, kOkOut}));
    EXPECT_EQ(out_b, (Word{kQuietOut, kErrOut}));
    EXPECT_EQ(f.executed(), 2u);
    EXPECT_EQ(f.waits(), 1u);
}

TEST(CacheOracle, LookupNeverRuns) {
    Fixture f;
    Word out(2);
    EXPECT_FALSE(f.oracle.lookup(Word{kStart, kStop}, out));
    (void)ask(f.oracle, {kStart, kStop});
    EXPECT_TRUE(f.oracle.lookup(Word{kStart, kStop}, out));
    EXPECT_EQ(out, (Word{kOkOut, kOkOut}));
    EXPECT_EQ(f.executed(), 1u);
    EXPECT_EQ(f.stack.stats().total().queries_asked, 1u);
}

/// The toy model, except that from reset number `from` on (1-based), output number `position` of a
/// run (0-based) answers `flipped` instead — for `times` resets (0: for ever).
class FlippingDevice final : public Device {
public:
    FlippingDevice(int from, std::size_t position, Symbol flipped, int times, bool adaptive = false)
        : model_(toy_closure()), from_(from), position_(position), flipped_(flipped), times_(times),
          adaptive_(adaptive) {}
    bool runs_adaptively() const override { return adaptive_; }
    const Alphabet& inputs() const override { return model_.inputs(); }
    const Alphabet& outputs() const override { return model_.outputs(); }
    DeviceTraits traits() const override { return model_.traits(); }
    std::string name() const override { return "flipping"; }
    void reset() override {
        ++resets_;
        steps_ = 0;
        model_.reset();
    }
    Symbol step(Symbol input) override {
        const Symbol out = model_.step(input);
        const bool active = resets_ >= from_ && (times_ == 0 || resets_ < from_ + times_);
        const bool flip = active && steps_ == position_;
        ++steps_;
        return flip ? flipped_ : out;
    }

private:
    ModelDevice model_;
    int from_;
    std::size_t position_;
    Symbol flipped_;
    int times_;
    bool adaptive_;
    int resets_ = 0;
    std::size_t steps_ = 0;
};

TEST(CacheOracle, PersistentContradictionIsNondeterminismWithEveryAnswer) {
    // From the second run on, the second output (done) comes back as quiet.
    FlippingDevice device(2, 1, kQuietOut, 0);
    OracleStack stack(device);
    EXPECT_EQ(stack.oracle().query(Word{kStart, kWaitIn}), (Word{kOkOut, kDoneOut}));
    try {
        (void)stack.oracle().query(Word{kStart, kWaitIn, kStart});
        FAIL() << "no NondeterminismError";
    } catch (const NondeterminismError& e) {
        EXPECT_EQ(e.inputs(), (std::vector<std::string>{"start", "wait"}));
        EXPECT_EQ(e.first_outputs(), (std::vector<std::string>{"ok", "done"}));
        EXPECT_EQ(e.second_outputs(), (std::vector<std::string>{"ok", "quiet"}));
        // The cached answer once, the contradicting run and both re-runs: quiet three times.
        EXPECT_EQ(e.answers(), (std::vector<NondeterminismError::Answer>{{{"ok", "done"}, 1}, {{"ok", "quiet"}, 3}}));
        EXPECT_NE(std::string(e.what()).find("[ok done] 1 time, [ok quiet] 3 times (4 runs)"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(stack.cache().stats().contradictions, 1u);
    EXPECT_EQ(stack.stats().total().queries_executed, 4u);  // first run, contradicting run, two re-runs
}

TEST(CacheOracle, ATransientContradictionIsNeverDropped) {
    // Only the second run flips: the re-runs agree with the cache, and still the run ends — a re-run
    // that agrees never wins (DroidStar's Assumption 3 is checked, not assumed).
    FlippingDevice device(2, 1, kQuietOut, 1);
    OracleStack stack(device);
    (void)stack.oracle().query(Word{kStart, kWaitIn});
    try {
        (void)stack.oracle().query(Word{kStart, kWaitIn, kStart});
        FAIL() << "no NondeterminismError";
    } catch (const NondeterminismError& e) {
        EXPECT_EQ(e.answers(), (std::vector<NondeterminismError::Answer>{{{"ok", "done"}, 3}, {{"ok", "quiet"}, 1}}));
    }
    EXPECT_EQ(stack.cache().stats().contradictions, 1u);
    EXPECT_EQ(stack.stats().total().queries_executed, 4u);
}

TEST(CacheOracle, ZeroRerunsThrowsAtOnce) {
    FlippingDevice device(2, 1, kQuietOut, 1);
    QueryCounter counter;
    const QueryStats& stats = counter.stats();
    DeviceOracle executed(device, &counter);
    CacheOracle cache(executed, CacheConfig{0, true, true});
    (void)cache.query(Word{kStart, kWaitIn});
    EXPECT_THROW((void)cache.query(Word{kStart, kWaitIn, kStop}), NondeterminismError);
    EXPECT_EQ(stats.learning.queries_executed, 2u);
}

/// An adaptive chooser over the toy: `start`; then `wait` if it was accepted, else `stop`; then stop.
std::optional<Symbol> start_then_wait(std::span<const Symbol> outputs) {
    if (outputs.empty()) return kStart;
    if (outputs.size() == 1) return outputs[0] == kOkOut ? kWaitIn : kStop;
    return std::nullopt;
}

TEST(CacheOracle, AnAdaptiveQueryRunsOnceAndIsAnsweredFromTheTreeAfter) {
    Fixture f;
    ASSERT_TRUE(f.oracle.adaptive()) << "a model device steps as cheaply as it runs";
    Word outputs;
    EXPECT_EQ(f.oracle.query_adaptive(Word{kWaitIn}, start_then_wait, outputs), (Word{kStart, kWaitIn}));
    EXPECT_EQ(outputs, (Word{kQuietOut, kOkOut, kDoneOut}));  // the prefix's answer too
    EXPECT_EQ(f.executed(), 1u);
    EXPECT_EQ(f.stack.stats().total().queries_asked, 1u);
    // The answer is in the tree: the same query, and the fixed word it ran, run nothing.
    EXPECT_EQ(f.oracle.query_adaptive(Word{kWaitIn}, start_then_wait, outputs), (Word{kStart, kWaitIn}));
    EXPECT_EQ(ask(f.oracle, {kWaitIn, kStart, kWaitIn}), (Word{kQuietOut, kOkOut, kDoneOut}));
    EXPECT_EQ(f.executed(), 1u);
    // A new word past a known err: the tree answers every choice (err is absorbing), nothing runs
    // but the query that found the err.
    (void)ask(f.oracle, {kStop});
    EXPECT_EQ(f.oracle.query_adaptive(Word{kStop}, start_then_wait, outputs), (Word{kStart, kStop}));
    EXPECT_EQ(outputs, (Word{kErrOut, kErrOut, kErrOut}));
    EXPECT_EQ(f.executed(), 2u);
    // Known up to `start`, not past it: the device runs the word once from a fresh instance, and
    // the choices follow its answers (`start` refused in Running: err, then `stop`).
    EXPECT_EQ(f.oracle.query_adaptive(Word{kStart}, start_then_wait, outputs), (Word{kStart, kStop}));
    EXPECT_EQ(outputs, (Word{kOkOut, kErrOut, kErrOut}));
    EXPECT_EQ(f.executed(), 3u);
}

TEST(CacheOracle, AnAdaptiveQueryOverAnOracleThatCannotStepIsOneQueryPerInput) {
    // Not adaptive below (a device that runs words only): the default asks the word so far once per
    // chosen input; the answers and choices are the same.
    FlippingDevice device(1000, 0, kOkOut, 1);  // never flips in this test
    OracleStack stack(device);
    ASSERT_FALSE(stack.oracle().adaptive());
    Word outputs;
    EXPECT_EQ(stack.oracle().query_adaptive(Word{}, start_then_wait, outputs), (Word{kStart, kWaitIn}));
    EXPECT_EQ(outputs, (Word{kOkOut, kDoneOut}));
    EXPECT_EQ(stack.stats().total().queries_executed, 2u);
}

TEST(CacheOracle, AnAdaptiveAnswerThatContradictsTheTreeIsNondeterminism) {
    // From the second run on, the second output (done) comes back as quiet: the adaptive run's
    // answer is checked against the tree like any other, and re-run to report every answer.
    FlippingDevice device(2, 1, kQuietOut, 0, true);
    OracleStack stack(device);
    ASSERT_TRUE(stack.oracle().adaptive());
    EXPECT_EQ(stack.oracle().query(Word{kStart, kWaitIn}), (Word{kOkOut, kDoneOut}));
    Word outputs;
    EXPECT_THROW((void)stack.oracle().query_adaptive(Word{kStart, kWaitIn, kStart}, start_then_wait, outputs),
                 NondeterminismError);
    EXPECT_EQ(stack.cache().stats().contradictions, 1u);
}

TEST(CacheOracle, InsertChecksAgainstTheTree) {
    ModelDevice device(toy_closure());
    DeviceOracle executed(device);
    CacheOracle cache(executed);
    cache.insert(Word{kStart, kWaitIn}, Word{kOkOut, kDoneOut});
    Word out(2);
    EXPECT_TRUE(cache.lookup(Word{kStart, kWaitIn}, out));
    EXPECT_EQ(out, (Word{kOkOut, kDoneOut}));
    EXPECT_THROW(cache.insert(Word{kStart, kWaitIn, kStop}, Word{kOkOut, kQuietOut, kOkOut}), NondeterminismError);
    // An answer that continues after an absorbing err contradicts it.
    cache.insert(Word{kStop}, Word{kErrOut});
    EXPECT_THROW(cache.insert(Word{kStop, kStart}, Word{kErrOut, kOkOut}), NondeterminismError);
}

/// An oracle over the toy model that breaks its own traits: the input right after the first `err`
/// of a word answers `ok` (a device whose err is not absorbing, run by something that does not stop
/// at an err, e.g. a remote pool).
class PastErrOracle final : public MembershipOracle {
public:
    const Alphabet& inputs() const override { return model_.inputs(); }
    const Alphabet& outputs() const override { return model_.outputs(); }
    DeviceTraits traits() const override { return infer_traits(model_); }
    /// Runs batches "in parallel", so a cache above sends words in waves (as to a device pool).
    std::size_t parallelism() const override { return 2; }
    void query_all(std::span<const Query> batch) override {
        for (const Query& q : batch) {
            Word w(q.prefix.begin(), q.prefix.end());
            w.insert(w.end(), q.suffix.begin(), q.suffix.end());
            Word out = model_.outputs_of(w);
            const auto err = std::find(out.begin(), out.end(), kErrOut);
            if (err != out.end() && err + 1 != out.end()) *(err + 1) = kOkOut;
            std::copy(out.begin() + static_cast<std::ptrdiff_t>(q.prefix.size()), out.end(), q.answer.begin());
            ++runs;
        }
    }
    int runs = 0;

private:
    MealyMachine model_ = toy_closure();
};

TEST(CacheOracle, AnAnswerPastAKnownErrIsCaughtInAWave) {
    // With parallel waves (as a device pool runs them) the two words of one batch leave the tree by
    // different edges (`wait`, `stop`) and run in one wave. The first puts `stop`/err at the root
    // (its quiet `wait` loops back there); the second's answer goes on after that err with `ok` —
    // every time, so it is non-determinism, not an answer taken at face value.
    PastErrOracle inner;
    CacheConfig config;
    CacheOracle cache(inner, config);
    const Word first{kWaitIn, kStop, kStart}, second{kStop, kWaitIn};
    Word a1(3), a2(2);
    const std::vector<Query> batch{Query{{}, first, a1}, Query{{}, second, a2}};
    try {
        cache.query_all(batch);
        FAIL() << "no NondeterminismError";
    } catch (const NondeterminismError& e) {
        EXPECT_EQ(e.inputs(), (std::vector<std::string>{"stop", "wait"}));
        EXPECT_EQ(e.first_outputs(), (std::vector<std::string>{"err", "err"}));
        EXPECT_EQ(e.second_outputs(), (std::vector<std::string>{"err", "ok"}));
    }
    EXPECT_EQ(cache.stats().contradictions, 1u);
    EXPECT_EQ(inner.runs, 2 + static_cast<int>(config.reruns));  // both words, and the contradicting one again
    // Answers that stay err after the err are consistent: the same batch on the honest model passes.
    ModelDevice honest(toy_closure());
    DeviceOracle honest_executed(honest);
    CacheOracle honest_cache(honest_executed, config);
    honest_cache.query_all(batch);
    EXPECT_EQ(a1, (Word{kQuietOut, kErrOut, kErrOut}));
    EXPECT_EQ(a2, (Word{kErrOut, kErrOut}));
    EXPECT_EQ(honest_cache.stats().contradictions, 0u);
}

TEST(CacheOracle, InsertChecksAKnownQuietWait) {
    // A quiet `wait` at the root is a self-loop of the tree: an answer giving that `wait` anything
    // else contradicts it, wherever the word goes on; answers through the loop that agree are fine.
    ModelDevice device = declared_quiet();
    DeviceOracle executed(device);
    CacheOracle cache(executed);
    cache.insert(Word{kWaitIn}, Word{kQuietOut});
    EXPECT_THROW(cache.insert(Word{kWaitIn, kStart}, Word{kDoneOut, kOkOut}), NondeterminismError);
    EXPECT_THROW(cache.insert(Word{kWaitIn, kWaitIn, kStart}, Word{kQuietOut, kOkOut, kOkOut}), NondeterminismError);
    cache.insert(Word{kWaitIn, kWaitIn, kStart}, Word{kQuietOut, kQuietOut, kOkOut});
    Word out(2);
    EXPECT_TRUE(cache.lookup(Word{kWaitIn, kStart}, out));
    EXPECT_EQ(out, (Word{kQuietOut, kOkOut}));
}

TEST(CacheOracle, AQuietWaitLeadsBackIntoTheKnownTree) {
    // `wait` (quiet) at the root loops back to the root, whose `start` child is already known: the
    // rest of the word must follow that child, not replace it.
    Fixture f;
    (void)ask(f.oracle, {kStart, kStop});
    EXPECT_EQ(ask(f.oracle, {kWaitIn, kStart, kWaitIn}), (Word{kQuietOut, kOkOut, kDoneOut}));
    Word out(2);
    EXPECT_TRUE(f.oracle.lookup(Word{kStart, kStop}, out));
    EXPECT_EQ(out, (Word{kOkOut, kOkOut}));
    EXPECT_TRUE(f.oracle.lookup(Word{kStart, kWaitIn}, out));
    EXPECT_EQ(out, (Word{kOkOut, kDoneOut}));
}

TEST(CacheOracle, OptionalTailIsAnsweredFromTheKnownPart) {
    Fixture f;
    (void)ask(f.oracle, {kStart, kWaitIn});
    const Word prefix{kStart}, suffix{kWaitIn, kStop};
    Word answer(2, 99);
    Query q{prefix, suffix, answer, 1};
    f.oracle.query_all(std::span<const Query>(&q, 1));
    EXPECT_EQ(answer[0], kDoneOut);  // the tail's slot is unspecified
    EXPECT_EQ(f.executed(), 1u);
    // Unknown before the tail: the whole word runs.
    const Word suffix2{kStop, kStart};
    Query q2{prefix, suffix2, answer, 1};
    f.oracle.query_all(std::span<const Query>(&q2, 1));
    EXPECT_EQ(answer, (Word{kOkOut, kOkOut}));
    EXPECT_EQ(f.executed(), 2u);
}

TEST(CacheOracle, RandomBatchesAgreeWithTheModel) {
    // Property: whatever the batch, every answer is the model's, and what was asked stays known.
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const MealyMachine m = minimize(synchronous_closure(testing_support::random_typestate(2 + seed % 5, 3, 2, seed)));
        ModelDevice device(m);
        OracleStack stack(device);
        std::mt19937_64 rng(seed);
        std::vector<Word> asked;
        for (int round = 0; round < 30; ++round) {
            const std::size_t n = 1 + testing_support::uniform_below(rng, 12);
            std::vector<Word> prefixes(n), suffixes(n), answers(n);
            std::vector<Query> batch;
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t lp = testing_support::uniform_below(rng, 5), ls = testing_support::uniform_below(rng, 5);
                // Inputs drawn with `wait` (the last input) about half of the time.
                auto draw = [&] {
                    const auto r = testing_support::uniform_below(rng, 2 * m.num_inputs());
                    return static_cast<Symbol>(r < m.num_inputs() ? r : m.num_inputs() - 1);
                };
                for (std::size_t k = 0; k < lp; ++k) prefixes[i].push_back(draw());
                for (std::size_t k = 0; k < ls; ++k) suffixes[i].push_back(draw());
                answers[i].resize(ls);
            }
            for (std::size_t i = 0; i < n; ++i) batch.push_back(Query{prefixes[i], suffixes[i], answers[i]});
            stack.oracle().query_all(batch);
            for (std::size_t i = 0; i < n; ++i) {
                Word w = prefixes[i];
                w.insert(w.end(), suffixes[i].begin(), suffixes[i].end());
                const Word expected = m.outputs_of(w);
                EXPECT_TRUE(std::equal(answers[i].begin(), answers[i].end(), expected.end() - static_cast<std::ptrdiff_t>(answers[i].size())))
                    << "seed " << seed << " round " << round;
                asked.push_back(w);
            }
        }
        for (const Word& w : asked) {
            Word out(w.size());
            ASSERT_TRUE(stack.oracle().lookup(w, out)) << "seed " << seed;
            EXPECT_EQ(out, m.outputs_of(w));
        }
    }
}

TEST(OracleStack, CountsAskedAndExecutedPerPhase) {
    Fixture f;
    (void)ask(f.oracle, {kStart, kWaitIn});
    {
        const auto phase = f.stack.counter().enter(Phase::Equivalence);
        (void)ask(f.oracle, {kStart});          // cached
        (void)ask(f.oracle, {kStart, kStop});   // runs
    }
    EXPECT_EQ(f.stack.counter().phase(), Phase::Learning);  // the scope restored it
    const QueryStats& s = f.stack.stats();
    EXPECT_EQ(s.learning, (PhaseCounts{1, 1, 2, 1}));
    EXPECT_EQ(s.equivalence, (PhaseCounts{2, 1, 2, 0}));
}

}  // namespace
}  // namespace typestar
