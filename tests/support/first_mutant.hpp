// Single-transition retargeting mutants of a machine: the learner tests (L*, L#) seed with the
// first one, and bench/relearn_bench measures proposals for all of them.
#pragma once

#include <stdexcept>
#include <vector>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/traits.hpp"

namespace typestar::testing_support {

/// Calls `visit(mutant)` for each change of one transition's target of `m` (in state, input, then
/// target order) that changes the behaviour and whose traits pass `keep(infer_traits(mutant))`,
/// until `visit` returns false.
template <class Keep, class Visit>
void for_each_mutant(const MealyMachine& m, Keep keep, Visit visit) {
    for (StateId s = 0; s < m.num_states(); ++s)
        for (Symbol i = 0; i < m.num_inputs(); ++i)
            for (StateId t = 0; t < m.num_states(); ++t) {
                std::vector<Transition> table(m.table().begin(), m.table().end());
                auto& tr = table[s * m.num_inputs() + i];
                if (tr.target == t) continue;
                tr.target = t;
                MealyMachine mutant(m.inputs(), m.outputs(), m.initial(), table);
                if (keep(infer_traits(mutant)) && separating_word(mutant, m) && !visit(std::move(mutant))) return;
            }
}

/// The first single-transition change of `m` (in state, input, then target order) that keeps the
/// traits that hold in `m` and changes the behaviour. Throws std::logic_error when there is none.
inline MealyMachine first_mutant(const MealyMachine& m) {
    const auto base = infer_traits(m);
    std::vector<MealyMachine> found;
    for_each_mutant(
        m, [&](const DeviceTraits& traits) { return traits == base; },
        [&](MealyMachine mutant) {
            found.push_back(std::move(mutant));
            return false;
        });
    if (found.empty()) throw std::logic_error("no mutant");
    return std::move(found.front());
}

}  // namespace typestar::testing_support
