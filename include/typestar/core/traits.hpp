// What may be assumed about a machine's or a device's answers (DroidStar §4.1), as data.
// Design note: traits are assumptions. A device declares them; oracles and suites exploit only
// what is declared. infer_traits reads them off a known machine, for tests and for checking a
// declaration against a model, never to fill in what a device did not declare.
#pragma once

#include <optional>

#include "typestar/core/alphabet.hpp"
#include "typestar/core/mealy.hpp"

namespace typestar {

/// What the oracles may assume about a device's answers. Every field is optional; an empty
/// DeviceTraits assumes nothing (a generic Mealy machine).
struct DeviceTraits {
    /// The input whose steps are counted as waits (`wait`).
    std::optional<Symbol> wait;
    /// An absorbing output (`err`): once answered, every later answer of the run is the same, so
    /// nothing after it is ever executed (DroidStar §4.1, rule 6 of the synchronous closure).
    std::optional<Symbol> absorbing;
    /// An output of `wait` that leaves the state unchanged (`quiet`: async(τ·wait·quiet) = async(τ)).
    /// Only meaningful together with `wait`; a second `wait` right after it is answered without
    /// running it. This is the assumption behind DroidStar's skip of wait/quiet self-loops.
    std::optional<Symbol> quiet;

    bool operator==(const DeviceTraits&) const = default;
};

/// The traits of a synchronous closure (DroidStar §4.1) over these alphabets: `wait` counted and
/// `err` absorbing (rule 6 of the closure: a device built on it stops a query at `err`), each only
/// if the alphabet has the name (`err` only together with `wait`: alphabets without `wait` are a
/// plain Mealy machine's, whose `err` is absorbing only when declared); `quiet` changing nothing only when `quiet_is_stable` is declared
/// (never by default: time may pass silently, as in DroidStar's SpeechRecognizer).
[[nodiscard]] DeviceTraits closure_traits(const Alphabet& inputs, const Alphabet& outputs,
                                          bool quiet_is_stable = false);

/// The traits that really hold in `machine`: `wait` if the input exists; `err` as absorbing output
/// if every transition answering it leads to states that answer only `err` forever; `quiet` if every
/// `wait` transition answering it leads to a state equivalent to its source.
[[nodiscard]] DeviceTraits infer_traits(const MealyMachine& machine);

}  // namespace typestar
