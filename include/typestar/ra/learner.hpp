// An SL*-style learner for register automata (Cassel, Howar, Jonsson, Steffen: "Learning Extended
// Finite State Machines", SEFM 2014). Design note: tree queries are realised by black-box testing.
// For a prefix u (a concrete data word) and a symbolic suffix (a sequence of inputs), the tree
// oracle enumerates one concrete continuation per data class of the suffix's parameters (equal to
// each earlier value, fresh, and for `int` below, between and above them) and records the output
// words symbolically: that is the tree. A prefix value is *memorable* when some branch depends on
// it (replacing it by a neighbouring or fresh value in the suffix changes the answer) or an output
// reveals it; memorable values become registers. Rows are compared by their trees over the
// memorable values, up to an order-preserving renaming of `int` values and any renaming of `id`
// values (tried exhaustively for up to RaLearnConfig::max_permuted ids, else first-occurrence
// order, which can only add locations, never merge wrong ones). Closedness adds prefixes, register
// consistency adds suffixes, counterexamples add all their suffixes (Maler–Pnueli).
// Equality theory (no `int` data): the tree oracle builds SL*'s symbolic decision trees — an
// equality branch that behaves like the else branch (the parameter read as the equal term) is
// merged into it — and the registers are the prefix values the merged trees name; rows are
// compared as trees up to register renaming, an equality class of a successor is absorbed into the
// else class when its trees are the else class's read that way (so registers may hold equal values
// and guards are first-match), and symbolic suffixes mark each parameter free (may equal a prefix
// value) or local (only the suffix's own values and constants): the initial suffixes are local,
// a counterexample's suffix is free where its value occurred before. The ordered theory (`int`)
// keeps one branch per data class and every parameter free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "typestar/ra/automaton.hpp"
#include "typestar/ra/oracle.hpp"

namespace typestar::ra {

/// Options of the learner and its equivalence oracle; plain values with defaults.
struct RaLearnConfig {
    std::size_t max_locations = 64;   ///< give up (converged = false) beyond this many locations
    std::size_t max_rounds = 64;      ///< give up after this many hypotheses
    std::size_t max_permuted = 5;     ///< try every renaming of up to this many memorable ids
    /// Equivalence oracle: from every location's access word, every data word of up to this many
    /// steps, one per data class relative to all values of the word (and the constants).
    std::size_t equivalence_bound = 2;
    /// Then this many random data words (each parameter in a uniformly chosen data class relative
    /// to all values of the word) of `random_length` steps, from a generator seeded with `seed`.
    std::size_t random_words = 500;
    std::size_t random_length = 12;
    std::uint64_t seed = 1;
    /// Give up (converged = false) once this many concrete queries were executed, or ten times as
    /// many were asked (cache hits included); 0: no limit.
    std::size_t max_executed = 0;
};

/// The result of learning. `converged` is true when the last hypothesis passed the equivalence
/// oracle (bounded evidence: words of up to equivalence_bound steps from each location); else
/// `failure` says why learning stopped and `hypothesis` is the last one.
struct RaLearnResult {
    RegisterAutomaton hypothesis;
    RaStats stats;
    bool converged = false;
    std::string failure;
    std::size_t suffixes = 0;  ///< symbolic suffixes in the final table
};

/// Learns the register automaton behind `sul`. `signature` gives the name, inputs, outputs and
/// constants (its locations are ignored). Throws NondeterminismError when the device answers a
/// data word in two ways, DeviceError when it fails.
[[nodiscard]] RaLearnResult learn_register_automaton(DataSul& sul, const RegisterAutomaton& signature,
                                                     const RaLearnConfig& config = {});

/// The tree oracle alone: one concrete continuation of `prefix` per data class of `suffix`'s
/// parameters relative to every value of the prefix (and its outputs), the constants of
/// `signature` and the suffix's own earlier values; each leaf is the suffix's inputs and the
/// device's outputs. Counts one tree query.
[[nodiscard]] std::vector<std::pair<DataWord, DataWord>> tree_query(DataOracle& oracle, const RegisterAutomaton& signature,
                                                                    const DataWord& prefix,
                                                                    const std::vector<std::size_t>& suffix);
/// SL*'s tree query for the equality theory: the symbolic decision tree of `suffix` (every
/// parameter free) after `prefix`, one line per guard or output, indented by depth: `[p1 == 7]`,
/// `[p1 != 7]` (the else branch), `ok`, `val(7)`, `key(fresh)`; suffix parameters are p1, p2, ...
/// across the suffix, prefix values appear as themselves. Equality branches that behave like the
/// else branch are merged into it. Empty when `signature` has `int` data (the ordered theory keeps
/// one concrete run per data class: see tree_query). Counts one tree query.
[[nodiscard]] std::string symbolic_tree(DataOracle& oracle, const RegisterAutomaton& signature, const DataWord& prefix,
                                        const std::vector<std::size_t>& suffix);
/// The memorable values of `prefix` with respect to the symbolic `suffixes` (each a sequence of
/// input indices): the prefix values (constants excluded) that some tree depends on or some output
/// reveals, in order of first occurrence.
[[nodiscard]] std::vector<Value> memorable_values(DataOracle& oracle, const RegisterAutomaton& signature,
                                                  const DataWord& prefix,
                                                  const std::vector<std::vector<std::size_t>>& suffixes);

/// Looks for a data word on which `sul` and `spec` differ: from the access word of every location
/// of `spec` as reached in `access` (concrete words, one per location, in the device's values) —
/// or from the empty word when `access` is empty — every word of up to `bound` steps, one per data
/// class relative to all values of the word and the constants. Returns the first difference (the
/// inputs up to and including the differing step) and the reason, or nothing.
struct RaCounterexample {
    DataWord inputs;
    DataWord outputs;     ///< the device's answers
    std::string reason;   ///< expected vs got
};
[[nodiscard]] std::optional<RaCounterexample> find_difference(DataOracle& oracle, const RegisterAutomaton& spec,
                                                              const std::vector<DataWord>& access, std::size_t bound);
/// Looks for a difference on `count` random data words of `length` steps (inputs uniform, each
/// parameter in a uniformly chosen data class relative to all values of the word), seeded.
[[nodiscard]] std::optional<RaCounterexample> random_difference(DataOracle& oracle, const RegisterAutomaton& spec,
                                                                std::size_t count, std::size_t length,
                                                                std::uint64_t seed);

}  // namespace typestar::ra
