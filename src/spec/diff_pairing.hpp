// Internal: the behaviour-matched state pairing shared by diff_specs and write_diff_dot (not
// installed). One walk, so that the table and the picture of a diff can never disagree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar::spec::detail {

/// Two typestates over one alphabet, in canonical form, with the lockstep pairing of their states
/// (see the design note of diff.hpp).
struct AlignedTypestates {
    std::vector<std::string> callins;    ///< sorted union of both sides' callins
    std::vector<std::string> callbacks;  ///< sorted union of both sides' callbacks
    Typestate old_t;                     ///< canonical(old over the union)
    Typestate new_t;                     ///< canonical(new over the union)
    MealyMachine old_c;                  ///< synchronous_closure(old_t)
    MealyMachine new_c;                  ///< synchronous_closure(new_t)
    std::vector<Symbol> order;           ///< the closures' inputs sorted by name (same ids on both)
    /// Per old state: the new state it is paired with (its first live pair in the walk), if any.
    std::vector<std::optional<StateId>> pair;
    /// Per paired old state: the shortest word accepted by both that reaches the pair.
    std::vector<Word> access;
    /// Per new state: whether it occurs in some live pair of the walk.
    std::vector<bool> new_seen;
    /// Per new state: the old state of the first live pair it occurs in, if any.
    std::vector<std::optional<StateId>> new_alongside;
    /// Per paired old state p: the name its partner goes by in the new spec — p's own name when the
    /// new spec has a state of that name with the partner's behaviour, else the canonical name.
    std::vector<std::string> paired_name;
};

/// Aligns `old_typestate` and `new_typestate` and walks their closures in lockstep, breadth-first
/// from the initial states over inputs sorted by name, through pairs of live states. Throws
/// std::invalid_argument if either typestate is malformed.
[[nodiscard]] AlignedTypestates align_typestates(const Typestate& old_typestate, const Typestate& new_typestate);

}  // namespace typestar::spec::detail
