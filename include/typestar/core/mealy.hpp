// The Mealy machine: an immutable value with dense state, input and output ids.
// Design note: stepping a machine is the job of a simulator device (sul/); this type only stores
// delta and Out as one flat table, row-major by state then input (hybrid-ads lib/mealy.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "typestar/core/alphabet.hpp"

namespace typestar {

using StateId = std::uint32_t;

/// One transition of a Mealy machine: target state and output symbol.
struct Transition {
    StateId target = 0;
    Symbol output = 0;
    bool operator==(const Transition&) const = default;
};

/// A complete deterministic Mealy machine <Q, q0, I, O, delta, Out> (DroidStar §4.1).
class MealyMachine {
public:
    /// `table[s * |inputs| + i]` is the transition of state s on input i. Throws
    /// std::invalid_argument when the table size, a target, an output or the initial state is out of
    /// range, or `state_names` is neither empty nor one unique name per state.
    MealyMachine(Alphabet inputs, Alphabet outputs, StateId initial, std::vector<Transition> table,
                 std::vector<std::string> state_names = {});

    [[nodiscard]] std::size_t num_states() const noexcept { return num_states_; }
    [[nodiscard]] std::size_t num_inputs() const noexcept { return inputs_.size(); }
    [[nodiscard]] StateId initial() const noexcept { return initial_; }
    [[nodiscard]] const Alphabet& inputs() const noexcept { return inputs_; }
    [[nodiscard]] const Alphabet& outputs() const noexcept { return outputs_; }

    [[nodiscard]] const Transition& transition(StateId state, Symbol input) const {
        return table_[static_cast<std::size_t>(state) * inputs_.size() + input];
    }
    [[nodiscard]] StateId successor(StateId state, Symbol input) const {
        return transition(state, input).target;
    }
    [[nodiscard]] Symbol output(StateId state, Symbol input) const {
        return transition(state, input).output;
    }
    /// The state reached from `from` by `word`.
    [[nodiscard]] StateId run(const Word& word, StateId from) const;
    [[nodiscard]] StateId run(const Word& word) const { return run(word, initial_); }
    /// Out(from, word): one output per input.
    [[nodiscard]] Word outputs_of(const Word& word, StateId from) const;
    [[nodiscard]] Word outputs_of(const Word& word) const { return outputs_of(word, initial_); }

    /// The state's name: the given one, or "s<id>".
    [[nodiscard]] std::string state_name(StateId state) const;
    [[nodiscard]] bool has_state_names() const noexcept { return !state_names_.empty(); }
    [[nodiscard]] std::span<const Transition> table() const noexcept { return table_; }

private:
    Alphabet inputs_;
    Alphabet outputs_;
    std::size_t num_states_ = 0;
    StateId initial_ = 0;
    std::vector<Transition> table_;
    std::vector<std::string> state_names_;
};

/// Builds a MealyMachine state by state; `build()` checks that every transition is defined.
class MealyBuilder {
public:
    MealyBuilder(Alphabet inputs, Alphabet outputs);
    /// Adds a state; the first one added is initial unless `set_initial` says otherwise.
    StateId add_state(std::string name = {});
    void set_initial(StateId state);
    void set_transition(StateId state, Symbol input, StateId target, Symbol output);
    [[nodiscard]] bool has_transition(StateId state, Symbol input) const;
    [[nodiscard]] std::size_t num_states() const noexcept { return names_.size(); }
    [[nodiscard]] Alphabet& inputs() noexcept { return inputs_; }
    [[nodiscard]] Alphabet& outputs() noexcept { return outputs_; }
    /// Throws std::invalid_argument naming the first undefined (state, input).
    [[nodiscard]] MealyMachine build() const;

private:
    Alphabet inputs_;
    Alphabet outputs_;
    StateId initial_ = 0;
    std::vector<std::string> names_;
    std::vector<std::optional<Transition>> table_;  // grows with states; re-laid out when inputs grow
    std::size_t width_ = 0;
};

}  // namespace typestar
