// Devices: the default run contract (err absorbing, quiet waits), the model device, trait inference,
// DeviceSession, DeviceOracle counting and over_alphabets.
#include <gtest/gtest.h>

#include <stdexcept>

#include "support/reference_machines.hpp"
#include "toy.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/oracle.hpp"

namespace typestar {
namespace {

using sul_test::toy_closure;

constexpr Symbol kStart = 0, kStop = 1, kWaitIn = 2;
constexpr Symbol kOkOut = 0, kQuietOut = 1, kErrOut = 2, kDoneOut = 3;

TEST(ToyClosure, HasTheDocumentedIds) {
    const MealyMachine m = toy_closure();
    EXPECT_EQ(m.inputs().names(), (std::vector<std::string>{"start", "stop", "wait"}));
    EXPECT_EQ(m.outputs().names(), (std::vector<std::string>{"ok", "quiet", "err", "done"}));
}

TEST(InferTraits, ClosureHasAllThree) {
    const DeviceTraits t = infer_traits(toy_closure());
    EXPECT_EQ(t.wait, kWaitIn);
    EXPECT_EQ(t.absorbing, kErrOut);
    EXPECT_EQ(t.quiet, kQuietOut);
    // What a closure device declares: quiet only when declared.
    EXPECT_EQ(t, closure_traits(toy_closure().inputs(), toy_closure().outputs(), true));
    EXPECT_FALSE(closure_traits(toy_closure().inputs(), toy_closure().outputs()).quiet.has_value());
}

TEST(InferTraits, QuietMoveIsNotIdentity) {
    // quiet_timer: Armed --wait/quiet--> Elapsed, a different state.
    const DeviceTraits t = infer_traits(testing_support::quiet_timer());
    EXPECT_TRUE(t.wait.has_value());
    EXPECT_TRUE(t.absorbing.has_value());
    EXPECT_FALSE(t.quiet.has_value());
}

TEST(InferTraits, GenericMachineHasNone) {
    EXPECT_EQ(infer_traits(testing_support::coffee_machine()), DeviceTraits{});
}

TEST(InferTraits, ErrThatIsNotAbsorbing) {
    // err answered, but the machine goes on answering ok afterwards.
    MealyBuilder b(Alphabet({"a"}), Alphabet({"ok", "err"}));
    const auto s0 = b.add_state(), s1 = b.add_state();
    b.set_transition(s0, 0, s1, 1);
    b.set_transition(s1, 0, s0, 0);
    EXPECT_FALSE(infer_traits(b.build()).absorbing.has_value());
}

TEST(ModelDevice, StepsTheMachine) {
    ModelDevice d(toy_closure(), "toy");
    EXPECT_EQ(d.name(), "toy");
    d.reset();
    EXPECT_EQ(d.step(kStart), kOkOut);
    EXPECT_EQ(d.step(kWaitIn), kDoneOut);
    EXPECT_EQ(d.step(kStop), kErrOut);
    d.reset();
    EXPECT_EQ(d.step(kWaitIn), kQuietOut);
}

TEST(ModelDevice, RunStopsAtErrAndSkipsQuietWaitsWhenDeclared) {
    const MealyMachine m = toy_closure();
    EXPECT_FALSE(ModelDevice(m).traits().quiet.has_value());  // never read off the machine
    ModelDevice d(m, "model", closure_traits(m.inputs(), m.outputs(), true));
    const RunResult r = d.run(Word{kStop, kStart, kWaitIn});
    EXPECT_EQ(r.outputs, (Word{kErrOut, kErrOut, kErrOut}));
    EXPECT_EQ(r.steps, 1u);
    EXPECT_EQ(r.waits, 0u);
    const RunResult q = d.run(Word{kWaitIn, kWaitIn, kWaitIn, kStart, kWaitIn});
    EXPECT_EQ(q.outputs, (Word{kQuietOut, kQuietOut, kQuietOut, kOkOut, kDoneOut}));
    EXPECT_EQ(q.steps, 3u);  // the second and third wait are not run
    EXPECT_EQ(q.waits, 2u);
}

TEST(ModelDevice, WithoutTraitsRunsEverything) {
    ModelDevice d(toy_closure(), "toy", DeviceTraits{});
    const RunResult r = d.run(Word{kStop, kStart, kWaitIn, kWaitIn});
    EXPECT_EQ(r.outputs, toy_closure().outputs_of(Word{kStop, kStart, kWaitIn, kWaitIn}));
    EXPECT_EQ(r.steps, 4u);
    EXPECT_EQ(r.waits, 0u);  // no wait input declared: nothing is counted as a wait
}

/// A device that uses Device::run's default and counts finish() calls; throws on input 1 if asked.
class ScriptedDevice final : public Device {
public:
    explicit ScriptedDevice(bool throw_on_stop) : model_(toy_closure()), throw_on_stop_(throw_on_stop) {}
    const Alphabet& inputs() const override { return model_.inputs(); }
    const Alphabet& outputs() const override { return model_.outputs(); }
    DeviceTraits traits() const override { return closure_traits(inputs(), outputs()); }
    std::string name() const override { return "scripted"; }
    void reset() override {
        ++resets;
        model_.reset();
    }
    Symbol step(Symbol input) override {
        ++steps;
        if (throw_on_stop_ && input == kStop) throw DeviceError("harness lost");
        return model_.step(input);
    }
    void finish() noexcept override { ++finishes; }
    int resets = 0, steps = 0, finishes = 0;

private:
    ModelDevice model_;
    bool throw_on_stop_;
};

TEST(Device, DefaultRunMatchesTheModelDeviceContract) {
    ScriptedDevice scripted(false);
    ModelDevice model(toy_closure());
    for (const Word& w : {Word{kWaitIn, kWaitIn, kStart, kWaitIn, kWaitIn}, Word{kStart, kStart, kStop},
                          Word{}, Word{kStart, kStop, kWaitIn, kWaitIn, kStart}}) {
        const RunResult a = scripted.run(w);
        const RunResult b = model.run(w);
        EXPECT_EQ(a.outputs, b.outputs);
        EXPECT_EQ(a.steps, b.steps);
        EXPECT_EQ(a.waits, b.waits);
    }
    EXPECT_EQ(scripted.resets, 4);
    EXPECT_EQ(scripted.finishes, 4);
}

/// An adaptive chooser over the toy: `start`; then `wait` if it was accepted, else `stop`; then the
/// same input once more after an err (a chooser may go on past an absorbing output), and stop.
std::optional<Symbol> start_then_wait(std::span<const Symbol> outputs) {
    if (outputs.empty()) return kStart;
    if (outputs.size() == 1) return outputs[0] == kOkOut ? kWaitIn : kStop;
    if (outputs.size() == 2 && outputs[1] == kErrOut) return kStop;
    return std::nullopt;
}

TEST(Device, AnAdaptiveRunChoosesEachInputFromTheLastOutputInOneSession) {
    ScriptedDevice scripted(false);
    Word chosen;
    RunResult r = scripted.run_adaptive(Word{}, start_then_wait, chosen);
    EXPECT_EQ(chosen, (Word{kStart, kWaitIn}));
    EXPECT_EQ(r.outputs, (Word{kOkOut, kDoneOut}));
    EXPECT_EQ(r.steps, 2u);
    EXPECT_EQ(r.waits, 1u);
    // After the prefix `start` the chooser's `start` is refused: err is absorbing, so its `stop`s are
    // answered err without running (the contract of run()).
    chosen.clear();
    r = scripted.run_adaptive(Word{kStart}, start_then_wait, chosen);
    EXPECT_EQ(chosen, (Word{kStart, kStop, kStop}));
    EXPECT_EQ(r.outputs, (Word{kOkOut, kErrOut, kErrOut, kErrOut}));
    EXPECT_EQ(r.steps, 2u);
    EXPECT_EQ(scripted.resets, 2);
    EXPECT_EQ(scripted.finishes, 2);
    EXPECT_FALSE(scripted.runs_adaptively()) << "a device says so itself";
    EXPECT_TRUE(ModelDevice(toy_closure()).runs_adaptively());
}

TEST(DeviceSession, FinishesWhenAStepThrows) {
    ScriptedDevice scripted(true);
    EXPECT_THROW((void)scripted.run(Word{kStart, kStop}), DeviceError);
    EXPECT_EQ(scripted.resets, 1);
    EXPECT_EQ(scripted.finishes, 1);
}

TEST(DeviceOracle, CountsExecutedWorkIntoTheCurrentPhase) {
    const MealyMachine m = toy_closure();
    ModelDevice d(m, "model", closure_traits(m.inputs(), m.outputs(), true));
    QueryCounter counter;
    const QueryStats& stats = counter.stats();
    DeviceOracle oracle(d, &counter);
    EXPECT_EQ(oracle.query(Word{kStart, kWaitIn, kStop}), (Word{kOkOut, kDoneOut, kErrOut}));
    {
        const auto phase = counter.enter(Phase::Equivalence);
        EXPECT_EQ(oracle.query(Word{kWaitIn, kWaitIn}), (Word{kQuietOut, kQuietOut}));
    }
    EXPECT_EQ(stats.learning, (PhaseCounts{0, 1, 3, 1}));
    EXPECT_EQ(stats.equivalence, (PhaseCounts{0, 1, 1, 1}));
    EXPECT_EQ(stats.total(), (PhaseCounts{0, 2, 4, 2}));
}

TEST(DeviceOracle, AnswersOnlyTheSuffixOfAQuery) {
    ModelDevice d(toy_closure());
    DeviceOracle oracle(d);
    const Word prefix{kStart}, suffix{kWaitIn, kWaitIn};
    Word answer(2);
    const Query q{prefix, suffix, answer};
    oracle.query_all(std::span<const Query>(&q, 1));
    EXPECT_EQ(answer, (Word{kDoneOut, kQuietOut}));
}

TEST(CountingOracle, CountsAskedQueries) {
    ModelDevice d(toy_closure());
    QueryCounter counter;
    const QueryStats& stats = counter.stats();
    DeviceOracle executed(d, &counter);
    CountingOracle asked(executed, &counter);
    (void)asked.query(Word{kStart});
    (void)asked.query(Word{kStart});
    EXPECT_EQ(stats.learning.queries_asked, 2u);
    EXPECT_EQ(stats.learning.queries_executed, 2u);
    Word out(1);
    EXPECT_FALSE(asked.lookup(Word{kStart}, out));  // no cache below: nothing known
}

TEST(OverAlphabets, MatchesByName) {
    const MealyMachine m = toy_closure();
    const Alphabet inputs({"wait", "stop", "start"});
    const Alphabet outputs({"done", "err"});
    const MealyMachine t = over_alphabets(m, inputs, outputs);
    EXPECT_EQ(t.inputs(), inputs);
    EXPECT_EQ(t.outputs().names(), (std::vector<std::string>{"done", "err", "ok", "quiet"}));
    const Word w{inputs.at("start"), inputs.at("wait"), inputs.at("stop")};
    EXPECT_EQ(names_of(t.outputs_of(w), t.outputs()), (std::vector<std::string>{"ok", "done", "err"}));
    EXPECT_FALSE(separating_word(m, t).has_value());
}

TEST(OverAlphabets, RejectsOtherInputs) {
    try {
        (void)over_alphabets(toy_closure(), Alphabet({"start", "halt", "wait"}), Alphabet());
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "model input 'stop' is not an input of the device");
    }
    try {
        (void)over_alphabets(toy_closure(), Alphabet({"start", "stop", "wait", "pause"}), Alphabet());
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "input 'pause' is not an input of the model");
    }
}

/// A model device whose runs break the timing on the first `late` runs (TimingError from run(), as a
/// late callback does), then answer on time. `earlier` marks the violation as an earlier query's.
class LateRuns final : public Device {
public:
    LateRuns(const MealyMachine& m, std::size_t late, bool earlier = false) : model_(m), late_(late), earlier_(earlier) {}
    const Alphabet& inputs() const override { return model_.inputs(); }
    const Alphabet& outputs() const override { return model_.outputs(); }
    std::string name() const override { return "late-runs"; }
    void reset() override { model_.reset(); }
    Symbol step(Symbol input) override { return model_.step(input); }
    RunResult run(std::span<const Symbol> word) override {
        ++runs;
        if (runs <= late_)
            throw TimingError("late callback", TimingError::Kind::LateCallback, "cb", 5.0, 1.0, 0.0, earlier_);
        return model_.run(word);
    }
    std::size_t runs = 0;

private:
    ModelDevice model_;
    std::size_t late_;
    bool earlier_;
};

// Issue 39 (mutants that survived): a timing failure is evidence to re-run, not a verdict. With
// `retries` re-runs allowed, a word late on `retries` runs is answered on the next one (and the
// answer says how many runs were repeated); late on every one of retries + 1 runs, it throws with
// that count; a failure that belongs to an earlier query is thrown at once, never re-run.
TEST(RunWithTimingRetries, RerunUpToTheLimitRecordTheRetriesAndNeverRerunAnEarlierQuery) {
    const MealyMachine m = testing_support::angluin_example();
    const Word word{0, 1, 0};
    for (std::size_t late = 0; late <= 2; ++late) {
        LateRuns d(m, late);
        const RunResult r = run_with_timing_retries(d, word, 2);
        EXPECT_EQ(r.outputs, m.outputs_of(word)) << late;
        EXPECT_EQ(r.timing_retries, late);
        EXPECT_EQ(d.runs, late + 1);
    }
    LateRuns always(m, 3);
    try {
        (void)run_with_timing_retries(always, word, 2);
        ADD_FAILURE() << "late on every run, answered";
    } catch (const TimingError& e) {
        EXPECT_EQ(e.runs(), 3u);  // the retries asked for (2), not the default
        EXPECT_EQ(always.runs, 3u);
    }
    LateRuns earlier(m, 1, true);
    EXPECT_THROW((void)run_with_timing_retries(earlier, word, 2), TimingError);
    EXPECT_EQ(earlier.runs, 1u) << "a violation of an earlier query's answer was re-run";
}

TEST(ModelDevice, AnErrThatLeadsOnIsNotAssumedAbsorbing) {
    // A machine with `wait` (a closure's alphabet) whose `err` does not absorb: without a declaration
    // the model device takes the machine at its word and runs what follows an `err`.
    MealyBuilder b(Alphabet({"go", "wait"}), Alphabet({"ok", "quiet", "err"}));
    const StateId s = b.add_state("s"), t = b.add_state("t");
    b.set_transition(s, 0, t, 2);  // go: err, to t
    b.set_transition(s, 1, s, 1);
    b.set_transition(t, 0, t, 0);  // then go: ok
    b.set_transition(t, 1, t, 1);
    ModelDevice leads_on(b.build(), "model:leads-on");
    EXPECT_FALSE(leads_on.traits().absorbing);
    const Word go_go = {0, 0};
    EXPECT_EQ(leads_on.run(go_go).outputs, (Word{2, 0}));
    ModelDevice closure(testing_support::quiet_timer(), "model:timer");
    EXPECT_EQ(closure.traits().absorbing, infer_traits(testing_support::quiet_timer()).absorbing);
}

}  // namespace
}  // namespace typestar
