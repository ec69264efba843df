// Algorithms on Mealy machines: reachability, minimization, equivalence with a shortest separating
// word, access sequences, and the distinguisher bound a machine needs (DroidStar §4.3).
#pragma once

#include <optional>
#include <vector>

#include "typestar/core/mealy.hpp"

namespace typestar {

/// Shortest access sequence of every state, by breadth-first search from the initial state over
/// inputs in `input_order` (default: by id); nullopt for unreachable states. The result holds
/// every word in full: Θ(n²) symbols for a chain of n states (200 million for 20,000).
[[nodiscard]] std::vector<std::optional<Word>> access_sequences(
    const MealyMachine& machine, const std::vector<Symbol>& input_order = {});

/// The same machine restricted to reachable states, renumbered in breadth-first order over
/// `input_order` (default: inputs by name), keeping state names. The canonical state order.
[[nodiscard]] MealyMachine canonical(const MealyMachine& machine,
                                     const std::vector<Symbol>& input_order = {});

/// The minimal machine with the same traces, in canonical state order over `input_order` (default:
/// inputs by name). A state of the result keeps the name of the first (canonical order) original
/// state it stands for, if the input had names. O(n·k·log n) (Hopcroft-style partition refinement).
[[nodiscard]] MealyMachine minimize(const MealyMachine& machine,
                                    const std::vector<Symbol>& input_order = {});

/// For every state of `machine`, its class in the coarsest output-preserving partition
/// (classes numbered from 0 by first occurrence). O(n·k·log n).
[[nodiscard]] std::vector<std::uint32_t> equivalence_classes(const MealyMachine& machine);

/// A shortest input word on which `a` and `b` answer differently, or nullopt when equivalent.
/// Inputs and outputs are matched by name; throws std::invalid_argument when the input alphabets
/// differ as sets. The word is over `a`'s input alphabet.
[[nodiscard]] std::optional<Word> separating_word(const MealyMachine& a, const MealyMachine& b);

/// A shortest word telling states `p` and `q` of one machine apart, or nullopt if equivalent.
[[nodiscard]] std::optional<Word> separating_word(const MealyMachine& machine, StateId p, StateId q);

/// All words of exactly `length` over the inputs 0..num_inputs-1, in lexicographic order
/// (num_inputs^length words; one empty word for length 0).
[[nodiscard]] std::vector<Word> words_of_length(std::size_t num_inputs, std::size_t length);

/// A characterizing set of `machine`: words that tell every two inequivalent states apart, built
/// greedily from shortest separating words (at most |Q| - 1 words, in the order found; each word
/// costs O(n·|w|) besides its separating_word search). States are
/// first told apart by the outputs of the `known` words, which the result does not repeat (e.g.
/// the single inputs an observation table always has).
[[nodiscard]] std::vector<Word> characterizing_set(const MealyMachine& machine,
                                                   const std::vector<Word>& known = {});

/// The smallest k such that every two distinct states are separated by a word of length <= k
/// (DroidStar's distinguisher bound); 0 for one state; nullopt if two states are equivalent.
/// O(n·k·log n): the Moore rounds are counted by a level-synchronous refinement that only
/// re-examines predecessors of the smaller parts of blocks split in the previous round.
[[nodiscard]] std::optional<std::size_t> distinguisher_bound(const MealyMachine& machine);

}  // namespace typestar
