#include "typestar/core/mealy.hpp"

#include <set>
#include <stdexcept>
#include <utility>

namespace typestar {

MealyMachine::MealyMachine(Alphabet inputs, Alphabet outputs, StateId initial,
                           std::vector<Transition> table, std::vector<std::string> state_names)
    : inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      initial_(initial),
      table_(std::move(table)),
      state_names_(std::move(state_names)) {
    if (inputs_.empty()) throw std::invalid_argument("a Mealy machine needs at least one input");
    if (table_.size() % inputs_.size() != 0 || table_.empty())
        throw std::invalid_argument("transition table size is not states x inputs");
    num_states_ = table_.size() / inputs_.size();
    if (initial_ >= num_states_) throw std::invalid_argument("initial state out of range");
    for (const auto& t : table_) {
        if (t.target >= num_states_) throw std::invalid_argument("transition target out of range");
        if (t.output >= outputs_.size()) throw std::invalid_argument("transition output out of range");
    }
    if (!state_names_.empty()) {
        if (state_names_.size() != num_states_)
            throw std::invalid_argument("state names do not match the number of states");
        std::set<std::string> seen(state_names_.begin(), state_names_.end());
        if (seen.size() != state_names_.size()) throw std::invalid_argument("duplicate state name");
    }
}

StateId MealyMachine::run(const Word& word, StateId from) const {
    StateId s = from;
    for (Symbol i : word) s = successor(s, i);
    return s;
}

Word MealyMachine::outputs_of(const Word& word, StateId from) const {
    Word out;
    out.reserve(word.size());
    StateId s = from;
    for (Symbol i : word) {
        const auto& t = transition(s, i);
        out.push_back(t.output);
        s = t.target;
    }
    return out;
}

std::string MealyMachine::state_name(StateId state) const {
    if (!state_names_.empty()) return state_names_.at(state);
    return "s" + std::to_string(state);
}

MealyBuilder::MealyBuilder(Alphabet inputs, Alphabet outputs)
    : inputs_(std::move(inputs)), outputs_(std::move(outputs)), width_(inputs_.size()) {}

StateId MealyBuilder::add_state(std::string name) {
    names_.push_back(std::move(name));
    table_.resize(names_.size() * width_);
    return static_cast<StateId>(names_.size() - 1);
}

void MealyBuilder::set_initial(StateId state) { initial_ = state; }

void MealyBuilder::set_transition(StateId state, Symbol input, StateId target, Symbol output) {
    if (inputs_.size() != width_) {  // inputs were interned since the last call: re-lay the table
        std::vector<std::optional<Transition>> wider(names_.size() * inputs_.size());
        for (std::size_t s = 0; s < names_.size(); ++s)
            for (std::size_t i = 0; i < width_; ++i) wider[s * inputs_.size() + i] = table_[s * width_ + i];
        table_ = std::move(wider);
        width_ = inputs_.size();
    }
    if (state >= names_.size() || target >= names_.size())
        throw std::invalid_argument("state out of range");
    if (input >= width_ || output >= outputs_.size()) throw std::invalid_argument("symbol out of range");
    table_[state * width_ + input] = Transition{target, output};
}

bool MealyBuilder::has_transition(StateId state, Symbol input) const {
    if (input >= width_ || state >= names_.size()) return false;
    return table_[state * width_ + input].has_value();
}

MealyMachine MealyBuilder::build() const {
    const std::size_t width = inputs_.size();
    std::vector<Transition> table(names_.size() * width);
    for (std::size_t s = 0; s < names_.size(); ++s) {
        for (std::size_t i = 0; i < width; ++i) {
            const bool defined = i < width_ && table_[s * width_ + i].has_value();
            if (!defined) {
                const std::string state = names_[s].empty() ? "s" + std::to_string(s) : names_[s];
                throw std::invalid_argument("state " + state + " has no transition on input '" +
                                            inputs_.name(static_cast<Symbol>(i)) + "'");
            }
            table[s * width + i] = *table_[s * width_ + i];
        }
    }
    bool named = false;
    for (const auto& n : names_) named = named || !n.empty();
    std::vector<std::string> names;
    if (named) {
        names = names_;
        for (std::size_t s = 0; s < names.size(); ++s)
            if (names[s].empty()) names[s] = "s" + std::to_string(s);
    }
    return MealyMachine(inputs_, outputs_, initial_, std::move(table), std::move(names));
}

}  // namespace typestar
