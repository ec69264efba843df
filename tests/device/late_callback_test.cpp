// A callback that arrives after tmax at the last `wait` of a word leaves that wait quiet, and
// nothing is left in the run to notice it: the only trace is a later run of the same word that
// disagrees. Such a disagreement (quiet against a callback at one wait) is judged as a question of
// time before it is called non-determinism: a longer wait that hears the callback makes it a late
// callback — re-run when the new run was late, a TimingError when the cache's own answer was —
// and one that does not hear it leaves the non-determinism standing.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "learning_support.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

/// AsyncTask's closure (specs/asynctask.yaml) with tmax 30 ms. A run whose word ends in a `wait`
/// the machine answers with a callback answers `quiet` there instead when `late(word, n)` says so
/// for the n-th run (from 0) of that word: the callback came after the run ended. A longer wait
/// (confirm_wait) hears the machine's answer, or `quiet` when `absent` (the callback truly did not
/// come: non-determinism, not time).
class TrailingLateDevice final : public Device {
public:
    using Late = std::function<bool(const std::string& word, std::size_t run)>;
    TrailingLateDevice(const spec::Spec& spec, Late late, bool absent = false)
        : model_(synchronous_closure(spec.typestate), "late", spec::declared_traits(spec)),
          late_(std::move(late)),
          absent_(absent) {}

    [[nodiscard]] const Alphabet& inputs() const override { return model_.inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return model_.outputs(); }
    [[nodiscard]] DeviceTraits traits() const override { return model_.traits(); }
    [[nodiscard]] std::string name() const override { return "late"; }
    [[nodiscard]] DeviceDescription describe() const override {
        DeviceDescription d = model_.describe();
        d.name = "late";
        d.tmax_ms = 30;
        d.tmin_ms = 0;
        return d;
    }
    void reset() override { model_.reset(); }
    Symbol step(Symbol input) override { return model_.step(input); }
    [[nodiscard]] RunResult run(std::span<const Symbol> word) override {
        const std::string key = to_string(Word(word.begin(), word.end()), inputs());
        const std::size_t n = runs_[key]++;
        RunResult r = model_.run(word);
        const DeviceTraits t = traits();
        if (!word.empty() && word.back() == *t.wait && r.outputs.back() != quiet() &&
            r.outputs.back() != *t.absorbing && late_(key, n)) {
            r.outputs.back() = quiet();
            ++late_runs;
        }
        return r;
    }
    [[nodiscard]] std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                     std::chrono::milliseconds timeout) override {
        ++listens;
        EXPECT_EQ(timeout.count(), 90);  // 3 x tmax, the quiescence double-check's wait
        Word w(prefix.begin(), prefix.end());
        w.push_back(*traits().wait);
        const RunResult r = model_.run(w);
        return absent_ || listens <= deaf_listens ? quiet() : r.outputs.back();
    }
    [[nodiscard]] Symbol quiet() const { return *outputs().find("quiet"); }
    std::size_t late_runs = 0, listens = 0;
    std::size_t deaf_listens = 0;  ///< the first listens end before the callback too (a busy machine)

private:
    ModelDevice model_;
    Late late_;
    bool absent_;
    std::map<std::string, std::size_t> runs_;
};

spec::Spec asynctask_spec() { return testing_support::source_spec("specs/asynctask.yaml"); }

Alphabet asynctask_device_inputs() {
    return synchronous_closure(asynctask_spec().typestate).inputs();
}

LearnOptions learn_options() {
    LearnOptions o;
    o.name = "AsyncTask";
    o.equivalence.bound = 2;
    return o;
}

/// The cache's re-run of `w` (one word); a NondeterminismError fails the test.
Word rerun_expecting_no_nondeterminism(OracleStack& stack, const Word& w) {
    try {
        std::vector<Word> again = stack.cache().rerun(std::vector<Word>{w});
        EXPECT_EQ(again.size(), 1u);
        return again.empty() ? Word{} : again.front();
    } catch (const NondeterminismError& e) {
        ADD_FAILURE() << "a late callback reported as non-determinism: " << e.what();
        return {};
    }
}

TEST(LateCallbacks, AQuietALongerWaitContradictsIsRerunNotNondeterminism) {
    // `execute wait` answers onPostExecute on time; its second run (a flake-policy re-run past the
    // cache) ends before the callback. Before: NondeterminismError. Now the longer wait hears it,
    // the word runs again, and the on-time answer stands; every extra run is a timing retry.
    const spec::Spec truth = asynctask_spec();
    TrailingLateDevice device(truth, [](const std::string&, std::size_t run) { return run == 1; });
    OracleStack stack(device);
    const Word w = word_of({"execute", "wait"}, device.inputs());
    const Word first = stack.oracle().query(w);
    ASSERT_EQ(names_of(first, device.outputs()), (std::vector<std::string>{"ok", "onPostExecute"}));
    EXPECT_EQ(rerun_expecting_no_nondeterminism(stack, w), first);
    EXPECT_EQ(device.late_runs, 1u);
    EXPECT_EQ(device.listens, 1u);
    EXPECT_EQ(stack.cache().stats().late_callbacks, 1u);
    EXPECT_EQ(stack.cache().stats().contradictions, 0u);
    EXPECT_EQ(stack.stats().total().timing_retries, 2u);  // the longer wait and the re-run
    EXPECT_EQ(stack.stats().total().queries_executed, 3u);
}

TEST(LateCallbacks, ALongerWaitThatIsLateItselfIsListenedAgainNotNondeterminism) {
    // Found under load (a learn of the bundled mediaplayer at load average 20 ended in "answered
    // [.. onPrepared] 3 times, [.. quiet] 1 time"): the longer wait that should hear the late
    // callback was descheduled past it too. Before: the non-determinism stood after one listen. Now
    // the listen is repeated after the timing retries' pauses; the second one hears it.
    const spec::Spec truth = asynctask_spec();
    TrailingLateDevice device(truth, [](const std::string&, std::size_t run) { return run == 1; });
    device.deaf_listens = 1;
    OracleStack stack(device);
    const Word w = word_of({"execute", "wait"}, device.inputs());
    const Word first = stack.oracle().query(w);
    EXPECT_EQ(rerun_expecting_no_nondeterminism(stack, w), first);
    EXPECT_EQ(device.listens, 2u);
    EXPECT_EQ(stack.cache().stats().contradictions, 0u);
    EXPECT_EQ(stack.cache().stats().late_callbacks, 1u);
}

TEST(LateCallbacks, ALateAnswerTheCacheHeldIsReplacedAndLearningStartsAgain) {
    // The first run that ends in a callback's wait ends too early: the learner rests on its `quiet`
    // until a later run disagrees. Before: NondeterminismError. Now the cache drops the late answer,
    // keeps the on-time one, and learning starts again over it: the true spec.
    const spec::Spec truth = asynctask_spec();
    TrailingLateDevice device(truth, [fired = false](const std::string&, std::size_t) mutable {
        const bool late = !fired;
        fired = true;
        return late;
    });
    Device* d[] = {&device};
    std::optional<LearnedSpec> result;
    try {
        result.emplace(learn_spec(d, learn_options()));
    } catch (const NondeterminismError& e) {
        FAIL() << "a late callback reported as non-determinism: " << e.what();
    }
    ASSERT_TRUE(result->spec);
    EXPECT_TRUE(spec::same_behaviour(*result->spec, truth));
    EXPECT_EQ(device.late_runs, 1u);
    EXPECT_GE(device.listens, 1u);  // and the quiescence double-check's, after learning
    // The longer wait and the replaced answer; the stats cover both attempts.
    EXPECT_EQ(result->stats.total().timing_retries, 2u);
    EXPECT_GT(result->stats.total().queries_executed, 0u);

    // A check meets it too: the first run ending in a callback's wait is late. Whether the suite
    // first compares it with the spec (re-listened) or a later run disagrees with the cache, the
    // verdict is a pass or a TimingError — never a Fail, never non-determinism.
    TrailingLateDevice checked(truth, [fired = false](const std::string&, std::size_t) mutable {
        const bool late = !fired;
        fired = true;
        return late;
    });
    Device* c[] = {&checked};
    try {
        const CheckReport report = check_spec(truth, c);
        EXPECT_EQ(report.verdict, Verdict::Pass);
    } catch (const NondeterminismError& e) {
        FAIL() << "a late callback reported as non-determinism: " << e.what();
    } catch (const TimingError& e) {
        EXPECT_EQ(checked.late_runs, 1u) << e.what();
    }
    EXPECT_EQ(checked.late_runs, 1u);
}

TEST(LateCallbacks, ALateAnswerTheCacheAlreadyHeldIsATimingErrorNeverASpec) {
    // The first run of each word is the late one: the learner may already rest on its `quiet`, and
    // starting again meets new late answers each time; after kTimingRetries restarts, a TimingError.
    const spec::Spec truth = asynctask_spec();
    TrailingLateDevice device(truth, [](const std::string&, std::size_t run) { return run == 0; });
    Device* d[] = {&device};
    try {
        const LearnedSpec learned = learn_spec(d, learn_options());
        FAIL() << "expected a TimingError, got a spec of " << learned.spec->typestate.states.size() << " states";
    } catch (const NondeterminismError& e) {
        FAIL() << "a late callback reported as non-determinism: " << e.what();
    } catch (const TimingError& e) {
        EXPECT_EQ(e.kind(), TimingError::Kind::LateCallback);
        EXPECT_TRUE(e.earlier_query());
        EXPECT_NE(dynamic_cast<const LateAnswerRemoved*>(&e), nullptr);
        const std::string what = e.what();
        EXPECT_NE(what.find("a late callback reached the cache"), std::string::npos) << what;
        EXPECT_NE(what.find("(tmax 30 ms)"), std::string::npos) << what;
        EXPECT_NE(what.find("a wait of 90 ms heard '" + e.callback() + "'"), std::string::npos) << what;
        EXPECT_NE(what.find("--tmax MS, TYPESTAR_TMAX"), std::string::npos) << what;
    }
}

TEST(LateCallbacks, AQuietOnEveryRunIsATimingErrorNamingTheCallbackAndTmax) {
    // From the second run on, every run of `execute wait` ends before its callback; the longer wait
    // hears it. Re-running cannot help: a TimingError after kTimingRetries re-runs.
    const spec::Spec truth = asynctask_spec();
    TrailingLateDevice device(truth, [](const std::string&, std::size_t run) { return run >= 1; });
    OracleStack stack(device);
    const Word w = word_of({"execute", "wait"}, device.inputs());
    (void)stack.oracle().query(w);
    try {
        (void)stack.cache().rerun(std::vector<Word>{w});
        FAIL() << "expected a TimingError";
    } catch (const NondeterminismError& e) {
        FAIL() << "a late callback reported as non-determinism: " << e.what();
    } catch (const TimingError& e) {
        EXPECT_EQ(e.runs(), kTimingRetries + 1);
        EXPECT_FALSE(e.earlier_query());
        EXPECT_EQ(e.callback(), "onPostExecute");
        const std::string what = e.what();
        EXPECT_NE(what.find("late: after 'execute', a wait answered quiet on each of " + std::to_string(kTimingRetries + 1) + " runs"), std::string::npos) << what;
        EXPECT_NE(what.find("heard 'onPostExecute'"), std::string::npos) << what;
        EXPECT_NE(what.find("later than tmax 30 ms"), std::string::npos) << what;
        EXPECT_NE(what.find("--tmax MS"), std::string::npos) << what;
    }
    EXPECT_EQ(device.late_runs, 1u + kTimingRetries);
}

TEST(LateCallbacks, ACallbackALongerWaitDoesNotHearStaysNondeterminism) {
    // Soundness: when even the longer wait hears nothing, the callback sometimes does not come at
    // all. That is non-determinism, never forgiven as a late callback.
    const spec::Spec truth = asynctask_spec();
    const Word w = word_of({"execute", "wait"}, asynctask_device_inputs());
    TrailingLateDevice absent(truth, [](const std::string&, std::size_t run) { return run == 1; }, /*absent=*/true);
    OracleStack stack(absent);
    (void)stack.oracle().query(w);
    EXPECT_THROW((void)stack.cache().rerun(std::vector<Word>{w}), NondeterminismError);
    EXPECT_EQ(absent.listens, 1u + kTimingRetries);  // the longer wait, listened again after each pause
    EXPECT_EQ(stack.cache().stats().late_callbacks, 0u);
    // With the longer wait off (quiet_check_factor 0), nothing is judged: non-determinism.
    TrailingLateDevice unjudged(truth, [](const std::string&, std::size_t run) { return run == 1; });
    OracleStack off(unjudged);
    off.listen_for_late_callbacks(0);
    (void)off.oracle().query(w);
    EXPECT_THROW((void)off.cache().rerun(std::vector<Word>{w}), NondeterminismError);
    EXPECT_EQ(unjudged.listens, 0u);
}

}  // namespace
}  // namespace typestar
