// Callback typestates (interface automata over callins and callbacks) and their synchronous
// closure (DroidStar §4.1): inputs callins + `wait`, outputs callbacks + `ok` (the paper's lambda) +
// `quiet` + `err`, `err` absorbing. Design note: a Typestate stores, per state, the enabled callins,
// at most one callback (Assumption 3) and what `wait` does otherwise, which is exactly what a
// synchronous-closure Mealy machine can express, so the two convert both ways without loss.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
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

/// Why a transition is *unknown* (three-valued typestates, PSYCO §3): neither legal nor illegal.
struct Unknown {
    enum class Source : std::uint8_t {
        Purpose,      ///< the learning purpose never tried the input in this state
        Unresolved,   ///< the device could not answer reliably (non-determinism within the retries)
        Disagreeing,  ///< values of one partition still answer differently after the refinement budget
    };
    Source source = Source::Purpose;
    std::string reason;  ///< in words, for messages and skips
    bool operator==(const Unknown&) const = default;
};
/// "purpose", "unresolved", "disagreeing".
[[nodiscard]] std::string_view to_string(Unknown::Source source) noexcept;
/// The source named `name`; nullopt otherwise.
[[nodiscard]] std::optional<Unknown::Source> parse_unknown_source(std::string_view name) noexcept;

/// The abstract input `callin[partition]`: one partition of a parameterised callin's arguments as
/// one input (PSYCO; spec format v2).
[[nodiscard]] std::string abstract_input(std::string_view callin, std::string_view partition);

/// Metadata of one input that does not change behaviour (spec format v2): the guard of an abstract
/// input `callin[partition]` in words, and whether the peer performs it (environment role).
struct InputInfo {
    std::string guard;         ///< empty when the input is a whole callin
    bool environment = false;  ///< performed by the peer, observed by monitors, never a client call
    bool operator==(const InputInfo&) const = default;
};

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
        /// Unknown transitions: callin index -> why. Such a callin has `callins[c] == nullopt`; the
        /// synchronous closure (two-valued) answers it `err`, canonical() keeps it apart.
        std::map<std::size_t, Unknown> unknown{};
        /// Named outputs (Mealy devices): callin index -> index into Typestate::outputs, for an
        /// enabled callin (`callins[c]` set) that answers that output instead of `ok`.
        std::map<std::size_t, std::size_t> answers{};
        bool operator==(const State&) const = default;
    };

    std::string name;
    std::vector<std::string> callins;
    std::vector<std::string> callbacks;
    std::vector<State> states;
    StateId initial = 0;
    /// Input metadata by callin name; absent = a client callin without guard. Entries are never the
    /// default InputInfo (so equal typestates have equal maps).
    std::map<std::string, InputInfo, std::less<>> input_info;
    /// Named outputs a callin may answer besides `ok` (Mealy devices, e.g. a broker's `CONNACK`),
    /// declared order. Empty for a plain callback typestate.
    std::vector<std::string> outputs{};
    /// Whether `err` is absorbing (DroidStar's rule 6: after it nothing runs; a refused callin is
    /// `callins[c] == nullopt`). False only when declared (a Mealy device whose `err` is an output
    /// like any other): then a callin answering `err` is an enabled callin whose answer names `err`
    /// in `outputs`, with a target.
    bool err_absorbing = true;
    /// Whether the device has the quiescence input `wait` (callbacks). False only when declared, for
    /// a device without callbacks (a protocol implementation answering every input at once): its
    /// inputs are the callins alone, and `callbacks` is empty.
    bool has_wait = true;

    /// True when the typestate uses anything of the Mealy generalisation (named outputs, `err` not
    /// absorbing, no `wait`): spec format version 2.
    [[nodiscard]] bool is_mealy() const { return !outputs.empty() || !err_absorbing || !has_wait; }
    /// The output callin `c` answers in `state` when enabled: `ok` or its named output.
    [[nodiscard]] std::string_view answer_of(StateId state, std::size_t callin) const;
    /// True when some state has an unknown transition.
    [[nodiscard]] bool has_unknown() const;
    /// The unknown entry of (state, callin), if any.
    [[nodiscard]] const Unknown* unknown_at(StateId state, std::size_t callin) const;
    /// The metadata of callin `name` (a static default when absent).
    [[nodiscard]] const InputInfo& info(std::string_view name) const;
    [[nodiscard]] std::optional<StateId> find_state(std::string_view name) const;
    bool operator==(const Typestate&) const = default;
};

/// Where a word first enters an unknown transition (three-valued typestates).
struct UnknownStep {
    std::size_t index = 0;  ///< position of the input in the word
    std::string state;      ///< the state it is made in
    Unknown unknown;
};

/// Runs `inputs` (callin names or `wait`) on `typestate` from its initial state and returns the
/// first step into an unknown transition; nullopt when the word enters none before it ends, is
/// refused (err), or names an input the typestate does not declare. Suites cut words there: what
/// follows an unknown answer cannot be predicted.
[[nodiscard]] std::optional<UnknownStep> first_unknown(const Typestate& typestate, std::span<const std::string> inputs);

/// The state name the synchronous closure gives its error sink (added only when some transition errs).
inline constexpr std::string_view kErrorSinkName = "__err";

/// The synchronous closure of `typestate` as a Mealy machine. Inputs: callins (declared order) then
/// `wait` (unless `has_wait` is false). Outputs: `ok`, `quiet`, `err`, then callbacks (declared
/// order), then the named callin outputs not already listed (declared order). States: the
/// typestate's (same ids and names), then an error sink if some transition answers an absorbing `err`.
/// Throws std::invalid_argument if the typestate is malformed (index out of range, reserved name,
/// callbacks without `wait`, `err` named as an output while absorbing).
[[nodiscard]] MealyMachine synchronous_closure(const Typestate& typestate);

/// The typestate whose synchronous closure is `machine` (construction in the proof of DroidStar
/// Theorem 4.5): err transitions and their absorbing sink states dropped, `wait` transitions
/// replaced by their callback. Every state of `machine` from which only `err` can ever be output is
/// a sink and is dropped (unless it is the initial state). A machine without `wait` is a plain
/// Mealy machine (`has_wait` false, `err` not absorbing); a callin answering another output than
/// `ok`/`err` answers a named output (Typestate::outputs). Throws NotAClosureError saying exactly
/// why when no typestate can hold `machine`: a callin answering `quiet`, `wait` answering `ok`, an
/// absorbing `err` leading to a state that outputs anything but `err`, a reserved name misused.
[[nodiscard]] Typestate typestate_of(const MealyMachine& machine, std::string name);

/// typestate_of for a three-valued closure: a callin answering one of `unknown_outputs` is an
/// unknown transition with that Unknown (whatever follows it is ignored), and those outputs are not
/// callbacks. Same failures as typestate_of otherwise.
[[nodiscard]] Typestate typestate_of(const MealyMachine& machine, std::string name,
                                     const std::map<Symbol, Unknown>& unknown_outputs);

/// How typestate_of reads a machine's outputs (Mealy devices).
struct ClosureReading {
    /// `err` is absorbing: a callin answering it is refused (and must lead where only `err` follows).
    /// typestate_of's default: true when the machine has `wait` (a synchronous closure), false
    /// otherwise (a plain Mealy machine stores every `err` transition as it is).
    std::optional<bool> err_absorbing;
    /// Outputs known to be callbacks / named callin outputs (kept, in this order, even when no
    /// transition answers them). Others are classified by what answers them: an output of a callin
    /// other than `ok` (and absorbing `err`) is a named output; one of `wait` (or of nothing) a callback.
    std::vector<std::string> callbacks;
    std::vector<std::string> outputs;
};

/// The generalised typestate of `machine` (callback typestates and Mealy machines alike): without a
/// `wait` input it is a typestate with `has_wait` false (every output a callin answers besides
/// `ok` is a named output); callins may answer named outputs. Throws NotAClosureError only for what
/// no typestate can hold: reserved names misused, `wait` answering `ok` or a callin answering
/// `quiet`, an absorbing `err` that leads somewhere else than `err` forever.
[[nodiscard]] Typestate typestate_of(const MealyMachine& machine, std::string name,
                                     const std::map<Symbol, Unknown>& unknown_outputs,
                                     const ClosureReading& reading);

/// The canonical form of `typestate` (unknown transitions and input metadata kept; states whose
/// unknown transitions differ, in input or reason, are never merged): minimal, states in breadth-first order from the initial state
/// over inputs sorted by name (callins, then `wait`), callins and callbacks sorted by name, each
/// state keeping the name of the first original state it stands for. Equal behaviour gives equal
/// canonical forms up to state names.
[[nodiscard]] Typestate canonical(const Typestate& typestate);

}  // namespace typestar
