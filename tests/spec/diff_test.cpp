#include "typestar/spec/diff.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/random_mealy.hpp"
#include "support/random_typestate.hpp"
#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"

namespace typestar::spec {
namespace {

using State = Typestate::State;
using Kind = TransitionChange::Kind;
using Strings = std::vector<std::string>;

Typestate async_task() { return testing_support::async_task_typestate(); }

Spec spec_of(Typestate ts) {
    Spec s;
    s.typestate = std::move(ts);
    return s;
}

TEST(DiffSpecs, SameBehaviourUnderOtherNamesAndOrderIsEmpty) {
    Typestate renamed = async_task();
    // Reverse the state order and rename every state.
    std::vector<State> states(renamed.states.rbegin(), renamed.states.rend());
    const auto flip = [&](StateId s) { return static_cast<StateId>(states.size() - 1 - s); };
    for (auto& s : states) {
        s.name = "x" + s.name;
        for (auto& c : s.callins)
            if (c) c = flip(*c);
        if (s.callback) s.callback->target = flip(s.callback->target);
    }
    renamed.states = states;
    renamed.initial = flip(0);
    renamed.callins = {"execute", "cancel"};
    renamed.name = "Other";
    const SpecDiff d = diff_specs(spec_of(async_task()), spec_of(renamed));
    EXPECT_TRUE(d.empty());
    EXPECT_EQ(format_diff(d), "same behaviour\n");
}

TEST(DiffSpecs, ChangedCallinTargetIsTheOnlyChangeWithItsTrace) {
    Typestate mutant = async_task();
    mutant.states[2].callins[1] = 1;  // Running: cancel -> Completed instead of Cancelling
    const SpecDiff d = diff_specs(spec_of(async_task()), spec_of(mutant));
    ASSERT_EQ(d.changes.size(), 1u);
    EXPECT_EQ(d.changes[0], (TransitionChange{Kind::Changed, "Running", "Running", "cancel", {"execute"},
                                              "-> Cancelling", "-> Completed"}));
    EXPECT_TRUE(d.old_only_states.empty());
    EXPECT_TRUE(d.new_only_states.empty());
    ASSERT_TRUE(d.witness);
    EXPECT_EQ(d.witness->inputs, (Strings{"execute", "cancel", "wait"}));
    EXPECT_EQ(d.witness->old_outputs, (Strings{"ok", "ok", "onCancelled"}));
    EXPECT_EQ(d.witness->new_outputs, (Strings{"ok", "ok", "quiet"}));
    EXPECT_EQ(format_diff(d),
              "## Typestate diff: `AsyncTask` (old) vs `AsyncTask` (new)\n"
              "\n"
              "### Transitions\n"
              "\n"
              "| state   | reached by | symbol | change  | old           | new          |\n"
              "|---------|------------|--------|---------|---------------|--------------|\n"
              "| Running | execute    | cancel | changed | -> Cancelling | -> Completed |\n"
              "\n"
              "### Shortest separating trace\n"
              "\n"
              "| #   | input   | old output  | new output |     |\n"
              "|-----|---------|-------------|------------|-----|\n"
              "| 1   | execute | ok          | ok         |     |\n"
              "| 2   | cancel  | ok          | ok         |     |\n"
              "| 3   | wait    | onCancelled | quiet      | <-  |\n");
}

TEST(DiffSpecs, RenamedStateShowsBothNames) {
    Typestate mutant = async_task();
    mutant.states[2].name = "Busy";
    mutant.states[2].callins[1] = 1;  // Busy (was Running): cancel -> Completed
    const SpecDiff d = diff_specs(spec_of(async_task()), spec_of(mutant));
    ASSERT_EQ(d.changes.size(), 1u);
    EXPECT_EQ(d.changes[0].old_state, "Running");
    EXPECT_EQ(d.changes[0].new_state, "Busy");
    EXPECT_NE(format_diff(d).find("| Running (new: Busy) | execute    | cancel | changed |"), std::string::npos)
        << format_diff(d);
}

TEST(DiffSpecs, RemovedCallinAndTheStateOnlyItReached) {
    Typestate mutant = async_task();
    mutant.states[0].callins[1] = std::nullopt;  // Start: cancel refused
    const SpecDiff d = diff_specs(spec_of(async_task()), spec_of(mutant));
    ASSERT_EQ(d.changes.size(), 1u) << format_diff(d);
    EXPECT_EQ(d.changes[0], (TransitionChange{Kind::Removed, "Start", "Start", "cancel", {}, "-> CancelledEarly", "err"}));
    EXPECT_EQ(d.old_only_states, (std::vector<UnpairedState>{{"CancelledEarly", {"cancel"}, {}, {}}}));
    ASSERT_TRUE(d.witness);
    EXPECT_EQ(d.witness->inputs, (Strings{"cancel"}));
    EXPECT_EQ(d.witness->new_outputs, (Strings{"err"}));
    const std::string text = format_diff(d);
    EXPECT_NE(text.find("| Start | ε          | cancel | removed | -> CancelledEarly | err |"), std::string::npos) << text;
    EXPECT_NE(text.find("- old state `CancelledEarly` (reached by `cancel`) is not reached in the new typestate"),
              std::string::npos)
        << text;
}

TEST(DiffSpecs, NewCallinIsAnAlphabetChangeAndAnAddedTransition) {
    Typestate upgraded = async_task();
    upgraded.callins.push_back("reset");
    for (auto& s : upgraded.states) s.callins.push_back(std::nullopt);
    upgraded.states[1].callins[2] = 0;  // Completed: reset -> Start
    const SpecDiff d = diff_specs(spec_of(async_task()), spec_of(upgraded));
    EXPECT_EQ(d.callins_added, (Strings{"reset"}));
    EXPECT_TRUE(d.callins_removed.empty());
    ASSERT_EQ(d.changes.size(), 1u);
    EXPECT_EQ(d.changes[0],
              (TransitionChange{Kind::Added, "Completed", "Completed", "reset", {"cancel", "wait"}, "err", "-> Start"}));
    EXPECT_NE(format_diff(d).find("### Alphabet\n\n- callin added: `reset`\n"), std::string::npos);

    // The reverse direction removes it.
    const SpecDiff back = diff_specs(spec_of(upgraded), spec_of(async_task()));
    EXPECT_EQ(back.callins_removed, (Strings{"reset"}));
    ASSERT_EQ(back.changes.size(), 1u);
    EXPECT_EQ(back.changes[0].kind, Kind::Removed);
}

TEST(DiffSpecs, DeclaredButNeverEnabledCallinIsOnlyAnAlphabetChange) {
    Typestate upgraded = async_task();
    upgraded.callins.push_back("reset");
    for (auto& s : upgraded.states) s.callins.push_back(std::nullopt);
    const SpecDiff d = diff_specs(spec_of(async_task()), spec_of(upgraded));
    EXPECT_FALSE(d.empty());
    EXPECT_TRUE(d.changes.empty());
    EXPECT_FALSE(d.witness);
    EXPECT_NE(format_diff(d).find("The closures have the same behaviour over the shared symbols."), std::string::npos);
}

TEST(DiffSpecs, CallbackAndWaitChanges) {
    Typestate mutant = async_task();
    mutant.states[2].callback->callback = 1;  // Running delivers onCancelled instead of onPostExecute
    mutant.states[1].wait = Typestate::Wait::Err;  // Completed: wait answers err
    const SpecDiff d = diff_specs(spec_of(async_task()), spec_of(mutant));
    ASSERT_EQ(d.changes.size(), 2u);
    // Old canonical order: Start, CancelledEarly, Running, Cancelling, Completed.
    EXPECT_EQ(d.changes[0], (TransitionChange{Kind::Changed, "Running", "Running", "wait", {"execute"},
                                              "onPostExecute -> Completed", "onCancelled -> Completed"}));
    EXPECT_EQ(d.changes[1],
              (TransitionChange{Kind::Removed, "Completed", "Completed", "wait", {"cancel", "wait"}, "quiet", "err"}));
}

/// Re-draws one transition of `ts` (a callin target or enabledness, or the wait behaviour).
Typestate mutate(Typestate ts, std::mt19937_64& rng) {
    const auto below = [&](std::size_t n) { return static_cast<std::size_t>(testing_support::uniform_below(rng, n)); };
    auto& s = ts.states[below(ts.states.size())];
    const std::size_t symbol = below(ts.callins.size() + 1);
    if (symbol < ts.callins.size()) {
        const std::size_t pick = below(ts.states.size() + 1);
        s.callins[symbol] = pick == ts.states.size() ? std::nullopt : std::optional<StateId>(static_cast<StateId>(pick));
    } else {
        s.callback.reset();
        s.wait = below(2) == 0 ? Typestate::Wait::Err : Typestate::Wait::Quiet;
        s.quiet_target = static_cast<StateId>(below(ts.states.size()));
    }
    return ts;
}

TEST(DiffSpecs, RandomMutantsDifferExactlyWhenTheClosuresDo) {
    std::mt19937_64 rng(7);
    int different = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const Typestate ts = testing_support::random_typestate(2 + seed % 12, 1 + seed % 3, seed % 3, seed);
        const Typestate mutant = mutate(ts, rng);
        SCOPED_TRACE("seed " + std::to_string(seed));
        const SpecDiff d = diff_specs(spec_of(ts), spec_of(mutant));
        const bool separated = separating_word(synchronous_closure(ts), synchronous_closure(mutant)).has_value();
        EXPECT_EQ(d.empty(), !separated);
        EXPECT_EQ(d.witness.has_value(), separated);
        if (separated) {
            ++different;
            EXPECT_FALSE(d.changes.empty()) << format_diff(d);
            // A shortest separating word: every output but the last agrees.
            const auto& w = *d.witness;
            ASSERT_EQ(w.old_outputs.size(), w.inputs.size());
            for (std::size_t i = 0; i + 1 < w.inputs.size(); ++i) EXPECT_EQ(w.old_outputs[i], w.new_outputs[i]);
            EXPECT_NE(w.old_outputs.back(), w.new_outputs.back());
        }
        EXPECT_TRUE(diff_specs(spec_of(ts), spec_of(ts)).empty());
        EXPECT_EQ(format_diff(d), format_diff(diff_specs(spec_of(ts), spec_of(mutant))));  // deterministic
    }
    EXPECT_GT(different, 30);  // the mutation operator mostly changes behaviour
}

/// Issue 24 item 7: a state of the old spec that splits into five, four of them new. Each new state no
/// old state is paired with is listed, with every transition out of it (the old text listed none of
/// the three and none of their transitions: they occur in the lockstep walk beside `Running`).
TEST(DiffSpecs, EveryNewStateIsListedWithEveryTransitionOutOfIt) {
    const std::string fixtures = std::string(TYPESTAR_SOURCE_DIR) + "/tests/spec/fixtures/diff/";
    const Spec old_spec = load_spec(fixtures + "ticker.yaml");
    const Spec new_spec = load_spec(fixtures + "ticker_split.yaml");
    const SpecDiff d = diff_specs(old_spec, new_spec);
    ASSERT_EQ(d.new_only_states.size(), 4u) << format_diff(d);
    EXPECT_EQ(d.new_only_states[0],
              (UnpairedState{"Second", {"start", "wait"},
                             {{"start", "err"}, {"stop", "-> Idle"}, {"wait", "onTick -> Third"}}, "Running"}));
    EXPECT_EQ(d.new_only_states[1].name, "Third");
    EXPECT_EQ(d.new_only_states[2].name, "Fourth");
    EXPECT_EQ(d.new_only_states[3],
              (UnpairedState{"Last", {"start", "wait", "wait", "wait", "wait"},
                             {{"start", "-> Last"}, {"stop", "err"}, {"wait", "quiet"}}, "Running"}));
    const std::string text = format_diff(d);
    EXPECT_NE(text.find("- new state `Last` (reached by `start wait wait wait wait`): a split of old state `Running`, "
                        "which the same words reach; its transitions:\n"
                        "  - `start`: `-> Last`\n"
                        "  - `stop`: `err`\n"
                        "  - `wait`: `quiet`\n"),
              std::string::npos)
        << text;
    for (const char* name : {"`Second`", "`Third`", "`Fourth`", "`Last`"}) EXPECT_NE(text.find(name), std::string::npos) << text;
}

// Issue 34 item 2: a diff says which old states are gone — merged into another or no longer reached.
TEST(DiffSpecs, SaysWhichOldStatesAreGoneMergedOrNotReached) {
    // Old: a counter A -> B -> C -> D (peek only in D), and `off` from A to E. New: B counts no more.
    const Spec old_spec = parse_spec(
        "typestar: 1\nname: Counter\ncallins: [inc, peek, off]\ncallbacks: []\ninitial: A\nstates:\n"
        "  A:\n    callins: {inc: B, off: E}\n  B:\n    callins: {inc: C}\n  C:\n    callins: {inc: D}\n"
        "  D:\n    callins: {inc: D, peek: D}\n  E:\n    callins: {}\n",
        "old.yaml");
    const Spec new_spec = parse_spec(
        "typestar: 1\nname: Counter\ncallins: [inc, peek, off]\ncallbacks: []\ninitial: A\nstates:\n"
        "  A:\n    callins: {inc: B}\n  B:\n    callins: {inc: B, peek: B}\n",
        "new.yaml");
    const SpecDiff d = diff_specs(old_spec, new_spec);
    EXPECT_EQ(d.old_state_count, 5u);
    EXPECT_EQ(d.new_state_count, 2u);
    ASSERT_EQ(d.merged_states.size(), 1u);
    EXPECT_EQ(d.merged_states[0], (MergedStates{{"B", "C", "D"}, "B"}));
    EXPECT_EQ(states_gone(d, "stored"), "3 of 5 stored states are gone: C, D merged into B; E not reached");
    EXPECT_NE(format_diff(d).find("**3 of 5 old states are gone: C, D merged into B; E not reached** (the old "
                                  "typestate has 5 states, the new one 2).\n"),
              std::string::npos)
        << format_diff(d);
    // The other way round nothing old is gone (the new spec has more states; they are listed as new).
    const SpecDiff back = diff_specs(new_spec, old_spec);
    EXPECT_EQ(states_gone(back), "");
    EXPECT_TRUE(back.merged_states.empty());
    // A merge into a state of another name lists every old state.
    Spec renamed = new_spec;
    renamed.typestate.states[1].name = "Counting";
    EXPECT_EQ(states_gone(diff_specs(old_spec, renamed)),
              "3 of 5 old states are gone: B, C, D merged into Counting; E not reached");
}

}  // namespace
}  // namespace typestar::spec
