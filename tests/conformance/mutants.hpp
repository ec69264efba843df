// Single-transition mutants for the conformance tests.
#pragma once

#include <vector>

#include "typestar/core/algorithms.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar::conformance_test {

/// Every machine that differs from `m` in one transition's output or target, behaves differently,
/// and still satisfies the traits `m` satisfies (so the suite's assumptions hold for the device).
inline std::vector<MealyMachine> single_transition_mutants(const MealyMachine& m) {
    std::vector<MealyMachine> result;
    const DeviceTraits base = infer_traits(m);
    auto keep = [&](const std::vector<Transition>& table) {
        MealyMachine mutant(m.inputs(), m.outputs(), m.initial(), table);
        const DeviceTraits t = infer_traits(mutant);
        if ((base.absorbing && !t.absorbing) || (base.quiet && !t.quiet)) return;
        if (!separating_word(mutant, m)) return;
        result.push_back(std::move(mutant));
    };
    for (StateId s = 0; s < m.num_states(); ++s)
        for (Symbol i = 0; i < m.num_inputs(); ++i) {
            const std::size_t at = s * m.num_inputs() + i;
            for (Symbol o = 0; o < m.outputs().size(); ++o) {
                std::vector<Transition> table(m.table().begin(), m.table().end());
                if (table[at].output == o) continue;
                table[at].output = o;
                keep(table);
            }
            for (StateId t = 0; t < m.num_states(); ++t) {
                std::vector<Transition> table(m.table().begin(), m.table().end());
                if (table[at].target == t) continue;
                table[at].target = t;
                keep(table);
            }
        }
    return result;
}

}  // namespace typestar::conformance_test
