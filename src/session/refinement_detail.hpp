// Internal to the session: what learn_with_refinement and PartitionedDevice share of alphabet
// refinement beside the learners' abstraction (typestar/learn/abstraction.hpp): the callins a
// device declares, validated against the spec format's guard rules, and the guards of a split in
// that language (handed to the Refiner as its SplitGuards).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "typestar/learn/abstraction.hpp"
#include "typestar/sul/device.hpp"

namespace typestar::detail {

/// The guards of a split, in the guard language (docs/spec-format-v2.md, "Guards"), when they are
/// cheap to say and sound on the values: a callin with one `int` parameter whose values are
/// integers, split from a partition whose guard is empty or an expression. One group {c} whose
/// neighbours c-1 and c+1 answered with the other group (a value from the code and its neighbours)
/// is `v == c` / `v != c`; groups that are runs of the sorted values are cut at ordered boundaries
/// (`v < b`, `v >= b && v < b'`, `v >= b'`), b the least value of the run above; else equalities
/// (the largest group: `v != x && ...`). Each is conjoined with the parent's guard and checked on
/// every value of the split (its own group only) and on `others`, the values of the callin's other
/// partitions (none); nullopt, so the guard stays in words, otherwise. The Refiner's SplitGuards.
std::optional<std::vector<std::string>> split_guards(const std::string& parent,
                                                     const std::vector<std::pair<std::string, std::string>>& parameters,
                                                     const std::vector<std::string>& pool_values,
                                                     const std::vector<std::vector<std::size_t>>& groups,
                                                     const std::vector<std::size_t>& others);

/// The callins of `device` in input order: a parameterised callin (describe().parameterised) stands
/// where its first value input is; every other input but `wait` is a plain callin. Throws
/// std::invalid_argument for a value in two partitions, an empty partition, or declared guards
/// that do not hold on their values (the spec reader's check).
std::vector<CallinEntry> callins_of(const Device& device, const DeviceDescription& d);

}  // namespace typestar::detail
