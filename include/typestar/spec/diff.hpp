// Behavioural diff of two typestate specs, for reviewing a framework upgrade.
// Design note: states are matched by behaviour, not by name. Both typestates are put in canonical
// (minimal) form over the union of their alphabets (a callin one side lacks is refused there).
// Their synchronous closures are walked in lockstep, breadth-first from the initial states over
// inputs sorted by name, through pairs of live (non-error) states; each old state is paired with the
// new state it first appears with, i.e. the one its shortest access sequence accepted by both
// reaches. Transitions are then compared pairwise; the pairing is a bisimulation exactly when no
// transition differs, so an empty diff means equal behaviour.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/spec/spec.hpp"

namespace typestar::spec {

/// One transition that differs between the old and the new typestate.
struct TransitionChange {
    enum class Kind {
        Added,    ///< refused (err) before, enabled now
        Removed,  ///< enabled before, refused (err) now
        Changed,  ///< enabled in both, but another target, another callback or other wait behaviour
    };
    Kind kind = Kind::Changed;
    std::string old_state;            ///< the state's name in the old spec
    std::string new_state;            ///< the paired state's name in the new spec
    std::string symbol;               ///< a callin, or `wait` for callbacks and quiescence
    std::vector<std::string> access;  ///< shortest input word, accepted by both, reaching the state
    std::string before;               ///< e.g. "-> Started", "onPrepared -> Prepared", "quiet", "err"
    std::string after;                ///< the same, in the new spec's names
    bool operator==(const TransitionChange&) const = default;
};

/// One transition of a state, by name: a callin or `wait`, and what it does ("-> Opened",
/// "onDone -> Idle", "quiet", "quiet -> S", "err", "unknown (...)").
struct StateTransition {
    std::string symbol;
    std::string effect;
    bool operator==(const StateTransition&) const = default;
};

/// A state of one side with no counterpart on the other: an old state the lockstep walk never
/// pairs, or a new state that no old state is paired with (reached only by words the old spec
/// refuses, or a split of an old state: `alongside` names the old state the same word reaches).
struct UnpairedState {
    std::string name;                 ///< name in the spec that has it
    std::vector<std::string> access;  ///< its shortest access sequence there
    /// New states only: every transition out of the state (inputs by name, `wait` among them);
    /// none of them has a counterpart to be compared with, so all are listed.
    std::vector<StateTransition> transitions;
    /// New states only: the old state that a word reaching this state reaches too (this state is a
    /// split of it), or empty when the old spec refuses every such word.
    std::string alongside;
    bool operator==(const UnpairedState&) const = default;
};

/// The shortest input word the two synchronous closures answer differently, with both answers.
struct SeparatingTrace {
    std::vector<std::string> inputs;
    std::vector<std::string> old_outputs;
    std::vector<std::string> new_outputs;
    bool operator==(const SeparatingTrace&) const = default;
};

/// An input whose guard or role differs (format v2 metadata; not behaviour, shown apart).
struct GuardChange {
    std::string input;   ///< an abstract input present on both sides
    std::string before;  ///< guard in words ("" when none), "; role: environment" appended for that role
    std::string after;
    bool operator==(const GuardChange&) const = default;
};

/// Old states that the new typestate has as one state: the lockstep walk pairs each of them with
/// the same new state (the words reaching them in the old spec reach one state in the new).
struct MergedStates {
    std::vector<std::string> old_states;  ///< at least two, old canonical order
    std::string new_state;                ///< the new state's name (in the new spec)
    bool operator==(const MergedStates&) const = default;
};

/// Everything that differs in behaviour between two specs. Names, bounds, timing and provenance
/// are not compared.
struct SpecDiff {
    std::string old_name;  ///< typestate names, for the report's title
    std::string new_name;
    std::vector<std::string> callins_added;  ///< sorted by name
    std::vector<std::string> callins_removed;
    std::vector<std::string> callbacks_added;
    std::vector<std::string> callbacks_removed;
    /// Per paired state (old canonical order) and symbol (by name, `wait` among them).
    std::vector<TransitionChange> changes;
    /// Old states in no live pair (old canonical order), with their access sequence in the old spec.
    std::vector<UnpairedState> old_only_states;
    /// New states that no old state is paired with (new canonical order): with their access
    /// sequence in the new spec and every transition out of them.
    std::vector<UnpairedState> new_only_states;
    /// Transitions that are unknown on one side (or unknown for another reason on both): legal or
    /// err <-> unknown, listed apart from `changes` (kind Changed; before/after say
    /// "unknown (source: reason)", "-> State" or "err").
    std::vector<TransitionChange> unknown_changes;
    /// Inputs on both sides whose guard or role differs, sorted by input.
    std::vector<GuardChange> guard_changes;
    /// Groups of old states merged into one new state (by the new state's canonical order).
    std::vector<MergedStates> merged_states;
    /// The number of (reachable) states of each typestate, the error sink not counted.
    std::size_t old_state_count = 0;
    std::size_t new_state_count = 0;
    /// The shortest word separating the closures (DroidStar §4.1; unknown answers count as err
    /// there); nullopt when equivalent.
    std::optional<SeparatingTrace> witness;

    /// True when both specs have the same behaviour and the same alphabets.
    [[nodiscard]] bool empty() const {
        return callins_added.empty() && callins_removed.empty() && callbacks_added.empty() &&
               callbacks_removed.empty() && changes.empty() && old_only_states.empty() &&
               new_only_states.empty() && !witness && unknown_changes.empty() && guard_changes.empty();
    }
};

/// An old state and the new state the lockstep walk pairs it with (canonical names of each side).
struct StatePair {
    std::string old_state;
    std::string new_state;
    bool operator==(const StatePair&) const = default;
};

/// The pairing diff_specs uses (see the design note), in old canonical order: every live old state
/// reachable by a word both typestates accept, with the new state that word reaches. Used to name
/// a re-learned typestate's states after the stored spec's. Throws like diff_specs.
[[nodiscard]] std::vector<StatePair> pair_states(const Typestate& old_typestate, const Typestate& new_typestate);

/// The behavioural difference from `old_spec` to `new_spec`. Deterministic. Throws
/// std::invalid_argument if either typestate is malformed (see typestar::synchronous_closure).
[[nodiscard]] SpecDiff diff_specs(const Spec& old_spec, const Spec& new_spec);

/// The old states that are gone in the new typestate, merged into another or no longer reached:
/// "3 of 8 stored states are gone: B, C merged into A; D not reached", or empty when every old
/// state has a state of its own in the new typestate. `old_word` names the old side ("stored",
/// "old").
[[nodiscard]] std::string states_gone(const SpecDiff& diff, std::string_view old_word = "old");

/// A Markdown report of `diff` (the old states that are gone (states_gone) first, alphabet
/// changes, a table of changed transitions, unpaired states, and the separating trace as an aligned
/// table), ready to paste into a code review; for an empty diff the single line "same behaviour".
/// Deterministic.
[[nodiscard]] std::string format_diff(const SpecDiff& diff);

}  // namespace typestar::spec
