// Seeded random Mealy machines for tests and benchmarks.
// Design note: randomness comes from std::mt19937_64 mapped to ranges by our own rejection
// sampling (never std::uniform_int_distribution, whose output differs across standard libraries),
// so a (states, inputs, outputs, seed) tuple names the same machine on every platform.
#pragma once

#include <cstdint>
#include <random>

#include "typestar/core/mealy.hpp"

namespace typestar::testing_support {

/// A uniform integer in [0, bound) from `rng`, by rejection sampling; the same sequence of draws on
/// every standard library. `bound` must be positive (0 yields 0 without drawing).
[[nodiscard]] std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound);

/// A random complete, deterministic, minimal Mealy machine with `states` states where every state is
/// reachable from the initial state 0. Inputs are named "i0".."i<inputs-1>", outputs "o0"..; states
/// are unnamed ("s<id>"). The same arguments give the same machine, byte for byte.
///
/// Construction: a random spanning tree first (each new state hangs off a uniformly drawn free
/// (state, input) slot of the tree built so far), then the remaining transitions get uniform
/// targets, and every transition a uniform output. Minimality is then enforced by repair: while
/// core `minimize` would merge states, the output of a random transition of a merged state is
/// re-drawn, keeping a change only if the number of equivalence classes does not drop; after a long
/// plateau all outputs are re-drawn (the transition structure stays). For
/// benchmark-sized alphabets (a few inputs and outputs) the first draw is minimal with
/// overwhelming probability, so the repair loop rarely runs.
///
/// Throws std::invalid_argument if `states` or `inputs` is 0, or if `outputs` is 0 or is 1 while
/// `states` > 1 (no minimal machine exists then). Throws std::runtime_error if the repair loop does
/// not reach a minimal machine within its budget (never observed for outputs >= 2; possible in
/// principle, e.g. for very long single-input machines).
[[nodiscard]] MealyMachine random_mealy(std::size_t states, std::size_t inputs, std::size_t outputs,
                                        std::uint64_t seed);

}  // namespace typestar::testing_support
