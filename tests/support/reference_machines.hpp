// Small named Mealy machines shared across typestar's tests (learner x model matrices, conformance
// mutants, printing). Each is minimal, complete and has every state reachable; the comments give
// the facts tests may rely on (state count, distinguisher bound).
#pragma once

#include <string>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar::testing_support {

/// Angluin's example (even number of a's and of b's) as a Mealy machine, identical to AALpy's
/// DotModels/Angluin_Mealy.dot: inputs {a, b}, outputs {0, 1} (1 when the reached state has even
/// counts of both). 4 states; distinguisher bound 2.
[[nodiscard]] MealyMachine angluin_example();

/// The coffee machine of Steffen, Howar & Merten, "Introduction to active automata learning from a
/// practical perspective" (LearnLib's example): inputs {water, pod, button, clean}, outputs
/// {ok, coffee, error}. 6 states (init, water, pod, water_pod, done, error sink); distinguisher
/// bound 2 (init vs water and init vs pod need two inputs).
[[nodiscard]] MealyMachine coffee_machine();

/// A combination lock opened by `a b a`: inputs {a, b}, outputs {locked, open}. States L0 (initial),
/// L1, L2 (code prefixes) and Open (just opened; every input relocks to L0). 4 states; distinguisher
/// bound 3 (L0 vs Open is only told apart by `a b a`).
[[nodiscard]] MealyMachine combination_lock();

/// One state with self-loops: inputs {a, b}, outputs {x, y} (a/x, b/y). Distinguisher bound 0.
[[nodiscard]] MealyMachine single_state();

/// A synchronous closure with a time-passing transition: a timer whose `wait` first answers `quiet`
/// while moving (Armed -> Elapsed), then delivers `onFire`. Inputs {start, cancel, wait}, outputs
/// {ok, quiet, err, onFire}; states Idle, Armed, Elapsed and the `__err` sink. 4 states;
/// distinguisher bound 1. typestate_of accepts it (Armed has `quiet` leading to Elapsed).
[[nodiscard]] MealyMachine quiet_timer();

/// A named reference machine.
struct NamedMachine {
    std::string name;  ///< [A-Za-z0-9_], usable as a gtest parameter name
    MealyMachine machine;
};

/// All the machines above, in the order declared here.
[[nodiscard]] std::vector<NamedMachine> reference_machines();

/// AsyncTask after DroidStar Fig. 3 as an in-memory typestate, in a deliberately non-canonical
/// state order: 0 Start, 1 Completed, 2 Running, 3 Cancelling, 4 CancelledEarly; callins
/// {execute, cancel}, callbacks {onPostExecute, onCancelled} (not sorted by name either).
[[nodiscard]] Typestate async_task_typestate();

}  // namespace typestar::testing_support
