// One retargeting mutant of a machine, shared by the learner tests (L*, L#) for seeding.
#pragma once

#include <stdexcept>
#include <vector>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/traits.hpp"

namespace typestar::testing_support {

/// The first single-transition change of `m` (in state, input, then target order) that keeps the
/// traits that hold in `m` and changes the behaviour. Throws std::logic_error when there is none.
inline MealyMachine first_mutant(const MealyMachine& m) {
    const auto base = infer_traits(m);
    for (StateId s = 0; s < m.num_states(); ++s)
        for (Symbol i = 0; i < m.num_inputs(); ++i)
            for (StateId t = 0; t < m.num_states(); ++t) {
                std::vector<Transition> table(m.table().begin(), m.table().end());
                auto& tr = table[s * m.num_inputs() + i];
                if (tr.target == t) continue;
                tr.target = t;
                MealyMachine mutant(m.inputs(), m.outputs(), m.initial(), table);
                if (infer_traits(mutant) == base && separating_word(mutant, m)) return mutant;
            }
    throw std::logic_error("no mutant");
}

}  // namespace typestar::testing_support
