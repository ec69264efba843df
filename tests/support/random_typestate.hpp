// Seeded random callback typestates for tests (round trips, diffs, conformance on closures).
// Design note: drawn with std::mt19937_64 and uniform_below (random_mealy.hpp), so a
// (states, callins, callbacks, seed) tuple names the same typestate on every platform.
#pragma once

#include <cstdint>

#include "typestar/core/typestate.hpp"

namespace typestar::testing_support {

/// A random callback typestate named "random_<seed>" with `states` states named "q0".."q<n-1>"
/// (q0 initial), callins "c0".., callbacks "cb0"... Every state is reachable from q0 by callins
/// (each state q<i>, i > 0, is the target of some callin of an earlier state). Each callin is
/// enabled with probability about 2/3 (uniform target); with `callbacks` > 0 a state emits a
/// callback with probability about 1/3 (uniform callback and target); otherwise `wait` answers
/// `quiet` (staying, or with probability 1/4 moving to a uniform state) or, rarely, `err`.
/// The typestate need not be canonical (equivalent states may occur). Throws
/// std::invalid_argument if `states` is 0, or `callins` is 0 while `states` > 1.
[[nodiscard]] Typestate random_typestate(std::size_t states, std::size_t callins, std::size_t callbacks,
                                         std::uint64_t seed);

}  // namespace typestar::testing_support
