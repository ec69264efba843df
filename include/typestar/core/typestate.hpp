// Callback typestates (interface automata over callins and callbacks) and their synchronous
// closure (DroidStar §4.1): inputs callins + `wait`, outputs callbacks + `ok` (the paper's lambda) +
// `quiet` + `err`, `err` absorbing. Design note: a Typestate stores, per state, the enabled callins,
// at most one callback (Assumption 3) and what `wait` does otherwise, which is exactly what a
// synchronous-closure Mealy machine can express, so the two convert both ways without loss.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/core/mealy.hpp"

namespace typestar {

/// Reserved symbol names of the synchronous closure.
inline constexpr std::string_view kWait = "wait";
inline constexpr std::string_view kQuiet = "quiet";
inline constexpr std::string_view kOk = "ok";
inline constexpr std::string_view kErr = "err";
/// True for `wait`, `quiet`, `ok`, `err`.
[[nodiscard]] bool is_reserved(std::string_view name);

/// A callback typestate. Indices into `callins`, `callbacks` and `states` identify symbols and states.
struct Typestate {
    /// What `wait` does in a state that emits no callback.
    enum class Wait { Quiet, Err };

    struct CallbackEdge {
        std::size_t callback = 0;  ///< index into `callbacks`
        StateId target = 0;
        bool operator==(const CallbackEdge&) const = default;
    };

    struct State {
        std::string name;
        /// Per callin (same index as `callins`): the target if enabled; nullopt = refused with `err`.
        std::vector<std::optional<StateId>> callins;
        /// The callback `wait` delivers here, if any (then `wait` answers it and moves).
        std::optional<CallbackEdge> callback;
        /// Without a callback: `wait` answers `quiet` (moving to `quiet_target`, default itself) or `err`.
        Wait wait = Wait::Quiet;
        std::optional<StateId> quiet_target;
        bool operator==(const State&) const = default;
    };

    std::string name;
    std::vector<std::string> callins;
    std::vector<std::string> callbacks;
    std::vector<State> states;
    StateId initial = 0;

    [[nodiscard]] std::optional<StateId> find_state(std::string_view name) const;
    bool operator==(const Typestate&) const = default;
};

/// The state name the synchronous closure gives its error sink (added only when some transition errs).
inline constexpr std::string_view kErrorSinkName = "__err";

/// The synchronous closure of `typestate` as a Mealy machine. Inputs: callins (declared order) then
/// `wait`. Outputs: `ok`, `quiet`, `err`, then callbacks (declared order). States: the typestate's
/// (same ids and names), then an error sink if some transition answers `err`.
/// Throws std::invalid_argument if the typestate is malformed (index out of range, reserved name).
[[nodiscard]] MealyMachine synchronous_closure(const Typestate& typestate);

/// The typestate whose synchronous closure is `machine` (construction in the proof of DroidStar
/// Theorem 4.5): err transitions and their absorbing sink states dropped, `wait` transitions
/// replaced by their callback. Every state of `machine` from which only `err` can ever be output is
/// a sink and is dropped (unless it is the initial state). Throws NotAClosureError saying exactly
/// why when `machine` is not a synchronous closure: no `wait` input, a callin answering something
/// other than `ok`/`err`, `wait` answering `ok`, an `err` leading to a state that outputs anything
/// but `err`, a reserved name misused.
[[nodiscard]] Typestate typestate_of(const MealyMachine& machine, std::string name);

/// The canonical form of `typestate`: minimal, states in breadth-first order from the initial state
/// over inputs sorted by name (callins, then `wait`), callins and callbacks sorted by name, each
/// state keeping the name of the first original state it stands for. Equal behaviour gives equal
/// canonical forms up to state names.
[[nodiscard]] Typestate canonical(const Typestate& typestate);

}  // namespace typestar
