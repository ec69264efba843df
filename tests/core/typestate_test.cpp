#include "typestar/core/typestate.hpp"

#include <gtest/gtest.h>

#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"

namespace typestar {
namespace {

using State = Typestate::State;

Typestate async_task() { return testing_support::async_task_typestate(); }

Word run(const MealyMachine& m, const std::vector<std::string>& inputs) {
    return m.outputs_of(word_of(inputs, m.inputs()));
}

TEST(SynchronousClosure, FollowsDroidStarSection41) {
    const auto m = synchronous_closure(async_task());
    EXPECT_EQ(m.inputs().names(), (std::vector<std::string>{"execute", "cancel", "wait"}));
    EXPECT_EQ(m.outputs().names(),
              (std::vector<std::string>{"ok", "quiet", "err", "onPostExecute", "onCancelled"}));
    EXPECT_EQ(m.num_states(), 6u);  // five states and the error sink
    EXPECT_EQ(names_of(run(m, {"execute", "wait", "wait", "cancel"}), m.outputs()),
              (std::vector<std::string>{"ok", "onPostExecute", "quiet", "ok"}));
    // A refused callin answers err, and err is absorbing.
    EXPECT_EQ(names_of(run(m, {"execute", "execute", "cancel", "wait"}), m.outputs()),
              (std::vector<std::string>{"ok", "err", "err", "err"}));
    EXPECT_EQ(m.state_name(5), kErrorSinkName);
}

TEST(SynchronousClosure, AddsNoSinkWhenNothingErrs) {
    Typestate ts;
    ts.name = "Free";
    ts.callins = {"poke"};
    ts.states = {State{"Only", {0}, {}, Typestate::Wait::Quiet, {}}};
    EXPECT_EQ(synchronous_closure(ts).num_states(), 1u);
}

TEST(SynchronousClosure, RejectsReservedNames) {
    Typestate ts;
    ts.name = "Bad";
    ts.callins = {"wait"};
    ts.states = {State{"Only", {0}, {}, Typestate::Wait::Quiet, {}}};
    EXPECT_THROW((void)synchronous_closure(ts), std::invalid_argument);
}

TEST(TypestateOf, InvertsTheClosure) {
    const auto ts = async_task();
    const auto back = typestate_of(synchronous_closure(ts), ts.name);
    EXPECT_EQ(back, ts);
}

TEST(TypestateOf, KeepsTimePassingAndRefusedWaits) {
    Typestate ts;
    ts.name = "Recognizer";
    ts.callins = {"start", "cancel"};
    ts.callbacks = {"onReady"};
    ts.states = {
        State{"Idle", {1, std::nullopt}, {}, Typestate::Wait::Quiet, {}},
        State{"Starting", {std::nullopt, 2}, Typestate::CallbackEdge{0, 0}, Typestate::Wait::Quiet, {}},
        State{"Cancelling", {std::nullopt, 2}, {}, Typestate::Wait::Quiet, StateId{0}},  // quiet, then Idle
        State{"Dead", {std::nullopt, std::nullopt}, {}, Typestate::Wait::Err, {}},
    };
    ts.states[0].callins[1] = 3;  // cancel first: dead
    const auto m = synchronous_closure(ts);
    EXPECT_EQ(names_of(run(m, {"start", "cancel", "start", "wait", "start"}), m.outputs()),
              (std::vector<std::string>{"ok", "ok", "err", "err", "err"}));
    EXPECT_EQ(names_of(run(m, {"start", "cancel", "wait", "start"}), m.outputs()),
              (std::vector<std::string>{"ok", "ok", "quiet", "ok"}));
    EXPECT_EQ(typestate_of(m, ts.name), ts);
    // Canonical form keeps the user's name for the dead state, although it equals the error sink.
    const auto c = canonical(ts);
    ASSERT_TRUE(c.find_state("Dead").has_value());
    EXPECT_FALSE(c.find_state(kErrorSinkName).has_value());
    EXPECT_EQ(c.states[*c.find_state("Cancelling")].quiet_target, c.find_state("Idle"));
    EXPECT_EQ(c.states[*c.find_state("Dead")].wait, Typestate::Wait::Err);
}

TEST(TypestateOf, ErrMustBeAbsorbingEvenWhenTheOtherAnswerIsFarAway) {
    // A's `c` answers err and leads to Y; Y and W answer only err, but W leads to V, which answers
    // quiet: Y is no err sink (two err steps from V's quiet), so A's err is not absorbing.
    MealyBuilder b{Alphabet({"c", "wait"}), Alphabet({"ok", "quiet", "err"})};
    const auto a = b.add_state("A"), y = b.add_state("Y"), w = b.add_state("W"), v = b.add_state("V");
    b.set_transition(a, 0, y, 2);
    b.set_transition(a, 1, a, 1);
    for (Symbol i : {0u, 1u}) {
        b.set_transition(y, i, w, 2);
        b.set_transition(w, i, v, 2);
    }
    b.set_transition(v, 0, v, 0);
    b.set_transition(v, 1, v, 1);
    try {
        (void)typestate_of(b.build(), "Far");
        ADD_FAILURE() << "accepted";
    } catch (const NotAClosureError& e) {
        EXPECT_EQ(std::string(e.what()), "not a synchronous closure: state A, input 'c' answers err but leads to "
                                         "state Y, which answers something other than err: err must be absorbing");
    }
    // With V answering err too, all three are sinks and the machine is A with `c` refused.
    b.set_transition(v, 0, v, 2);
    b.set_transition(v, 1, v, 2);
    const auto ts = typestate_of(b.build(), "Far");
    ASSERT_EQ(ts.states.size(), 1u);
    EXPECT_EQ(ts.states[0].callins, (std::vector<std::optional<StateId>>{std::nullopt}));
}

TEST(TypestateOf, KeepsAnInitialStateThatRefusesEverything) {
    // The initial state is an err sink itself (every callin and `wait` answer err): it is the whole
    // typestate and must survive, while the closure's own sink (entered only by err) is dropped.
    Typestate ts;
    ts.name = "Broken";
    ts.callins = {"open", "close"};
    ts.states = {State{"Dead", {std::nullopt, std::nullopt}, {}, Typestate::Wait::Err, {}}};
    const auto m = synchronous_closure(ts);
    ASSERT_EQ(m.num_states(), 2u);  // Dead and __err
    const auto back = typestate_of(m, ts.name);
    EXPECT_EQ(back, ts);
    ASSERT_EQ(back.states.size(), 1u);
    EXPECT_EQ(back.initial, 0u);
    // A one-state machine whose only state answers err to everything, with no separate sink.
    MealyBuilder b{Alphabet({"open", "wait"}), Alphabet({"ok", "quiet", "err"})};
    b.add_state("Nothing");
    b.set_transition(0, 0, 0, 2);
    b.set_transition(0, 1, 0, 2);
    const auto lone = typestate_of(b.build(), "Lone");
    ASSERT_EQ(lone.states.size(), 1u);
    EXPECT_EQ(lone.states[0].name, "Nothing");
    EXPECT_EQ(lone.states[0].callins, (std::vector<std::optional<StateId>>{std::nullopt}));
    EXPECT_EQ(lone.states[0].wait, Typestate::Wait::Err);
    // And its canonical form is that one state, under the user's name.
    const auto c = canonical(ts);
    ASSERT_EQ(c.states.size(), 1u);
    EXPECT_EQ(c.states[0].name, "Dead");
}

TEST(Canonical, UserDeadStateNamesTheSinkEvenWhenAnErrComesFirst) {
    // Breadth-first over the sorted callins (a, b, wait), Idle's refused `a` reaches the closure's
    // err sink before `b` reaches the user's Dead state, which behaves the same: the minimal state
    // still takes the user's name, not "__err" (nor the "Error" a kept closure sink would get).
    Typestate ts;
    ts.name = "Late";
    ts.callins = {"a", "b"};
    ts.states = {State{"Idle", {std::nullopt, 1}, {}, Typestate::Wait::Quiet, {}},
                 State{"Dead", {std::nullopt, std::nullopt}, {}, Typestate::Wait::Err, {}}};
    const auto closure = synchronous_closure(ts);
    EXPECT_EQ(names_of(run(closure, {"a", "wait"}), closure.outputs()), (std::vector<std::string>{"err", "err"}));
    const auto c = canonical(ts);
    std::vector<std::string> names;
    for (const auto& st : c.states) names.push_back(st.name);
    EXPECT_EQ(names, (std::vector<std::string>{"Idle", "Dead"}));
    EXPECT_EQ(c.states[0].callins, (std::vector<std::optional<StateId>>{std::nullopt, StateId{1}}));
    // The same with the dead state declared first and reached last: still "Dead".
    Typestate swapped = ts;
    std::swap(swapped.states[0], swapped.states[1]);
    swapped.states[1].callins[1] = 0;
    swapped.initial = 1;
    EXPECT_EQ(canonical(swapped), c);
}

TEST(TypestateOf, SaysWhyAMachineIsNotAClosure) {
    auto expect_reason = [](const MealyMachine& m, const std::string& reason) {
        try {
            (void)typestate_of(m, "X");
            ADD_FAILURE() << "accepted: " << reason;
        } catch (const NotAClosureError& e) {
            EXPECT_EQ(std::string(e.what()), "not a synchronous closure: " + reason);
        }
    };
    auto one_state = [](std::vector<std::string> in, std::vector<std::string> out, std::vector<Symbol> outputs) {
        MealyBuilder b{Alphabet(std::move(in)), Alphabet(std::move(out))};
        b.add_state("S");
        for (Symbol i = 0; i < outputs.size(); ++i) b.set_transition(0, i, 0, outputs[i]);
        return b.build();
    };
    expect_reason(one_state({"a", "wait"}, {"ok", "quiet"}, {1, 1}),
                  "state S, input 'a' answers 'quiet': a callin answers ok, err or a named output, never 'quiet'");
    expect_reason(one_state({"a", "wait"}, {"ok"}, {0, 0}),
                  "state S, input 'wait' answers 'ok': wait answers a callback, quiet or err");
    expect_reason(one_state({"a", "wait"}, {"ok", "err", "quiet"}, {1, 2}),
                  "state S, input 'a' answers err but leads to state S, which answers something other "
                  "than err: err must be absorbing");
    expect_reason(one_state({"quiet", "wait"}, {"ok", "quiet"}, {0, 1}),
                  "reserved name 'quiet' is used as an input");
}

TEST(Canonical, IsMinimalSortedAndIndependentOfStateOrder) {
    const auto c = canonical(async_task());
    EXPECT_EQ(c.callins, (std::vector<std::string>{"cancel", "execute"}));
    EXPECT_EQ(c.callbacks, (std::vector<std::string>{"onCancelled", "onPostExecute"}));
    std::vector<std::string> names;
    for (const auto& s : c.states) names.push_back(s.name);
    // Breadth-first over cancel, execute, wait from Start.
    EXPECT_EQ(names, (std::vector<std::string>{"Start", "CancelledEarly", "Running", "Cancelling", "Completed"}));
    EXPECT_EQ(c.initial, 0u);
    // Reversing the declared state order changes nothing.
    auto shuffled = async_task();
    std::reverse(shuffled.states.begin(), shuffled.states.end());
    auto remap = [](StateId s) { return static_cast<StateId>(4 - s); };
    for (auto& st : shuffled.states) {
        for (auto& t : st.callins)
            if (t) t = remap(*t);
        if (st.callback) st.callback->target = remap(st.callback->target);
    }
    shuffled.initial = remap(0);
    EXPECT_EQ(canonical(shuffled), c);
    EXPECT_FALSE(separating_word(synchronous_closure(c), synchronous_closure(async_task())).has_value());
}

TEST(Canonical, MergesEquivalentStates) {
    auto ts = async_task();
    // A copy of Completed, reached from Cancelling instead of Completed.
    ts.states.push_back(State{"Completed2", {std::nullopt, 5}, {}, Typestate::Wait::Quiet, {}});
    ts.states[3].callback->target = 5;
    const auto c = canonical(ts);
    EXPECT_EQ(c.states.size(), 5u);
}

}  // namespace
}  // namespace typestar
