// Data independence, the assumption every register-automaton suite and SL* rely on ("one data value
// per class stands for the class"): the device compares its data only with each other, with the
// signature's constants and the spec's literals, by equality (id) and order (int), and by the `+c`
// terms of its increments. A device that compares with a value its signature does not declare (Node's
// EventEmitter refuses setMaxListeners(n) below 0) breaks it, and a suite or a learner that picks one
// value per class would then pass or learn what the class does not do. Checked, not assumed: a word
// is run again with its values moved by an order-preserving map that keeps every constant and literal
// in place, and a data-independent device answers the moved word with the moved answers.
// Private to src/ra.
#pragma once

#include <cstddef>

#include "typestar/ra/automaton.hpp"
#include "typestar/ra/oracle.hpp"

namespace typestar::ra::internal {

class IndependenceCheck {
public:
    explicit IndependenceCheck(const RegisterAutomaton& spec);

    /// Runs `word` (which the device answered `out`) again with its values moved far away, once up
    /// (+kShift) and once down (-kShift), as far as the move keeps every value's order against the
    /// constants and literals (a word is cut where it cannot). Throws Error (no verdict) naming both
    /// words and answers when the device's answer is not `out` moved alike.
    void check(DataOracle& oracle, const DataWord& word, const DataWord& out);

    /// Moved words run so far.
    [[nodiscard]] std::size_t checked() const noexcept { return checked_; }

    /// How far values move: beyond the values the suites and the learner pick (within +-2^21).
    static constexpr Value kShift = Value{1} << 24;

private:
    const RegisterAutomaton* spec_;
    std::size_t checked_ = 0;
};

}  // namespace typestar::ra::internal
