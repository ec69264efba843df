// Single-transition mutants for the conformance tests.
#pragma once

#include <algorithm>
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

/// `m` plus `copies` new states: copy c of state `t` (c = 1..copies) goes on like t, except that
/// copy 1's input `j` leads to `u` (or to copy 2, which does the same with the next pair...), and
/// transition (s, i) enters copy 1. Only mutants that behave differently from `m`, stay complete,
/// keep the traits of `m` and have every state reachable are returned (at most n + copies states
/// each, so the theorems above apply).
inline std::vector<MealyMachine> extra_state_mutants(const MealyMachine& m, std::size_t copies) {
    std::vector<MealyMachine> result;
    const std::size_t n = m.num_states(), k = m.num_inputs();
    const DeviceTraits base = infer_traits(m);
    for (StateId s = 0; s < n; ++s)
        for (Symbol i = 0; i < k; ++i) {
            const StateId t = m.successor(s, i);
            for (Symbol j = 0; j < k; ++j)
                for (StateId u = 0; u < n + copies; ++u) {
                    std::vector<Transition> table(m.table().begin(), m.table().end());
                    table.resize((n + copies) * k);
                    for (std::size_t c = 0; c < copies; ++c) {
                        const StateId x = static_cast<StateId>(n + c);
                        for (Symbol a = 0; a < k; ++a) table[x * k + a] = m.transition(t, a);
                        // The first copy's j-transition goes to the next copy, the last one's to u.
                        table[x * k + j].target = c + 1 < copies ? static_cast<StateId>(x + 1) : u;
                    }
                    table[s * k + i].target = static_cast<StateId>(n);
                    MealyMachine mutant(m.inputs(), m.outputs(), m.initial(), std::move(table));
                    const DeviceTraits traits = infer_traits(mutant);
                    if ((base.absorbing && !traits.absorbing) || (base.quiet && !traits.quiet)) continue;
                    const auto access = access_sequences(mutant);
                    if (std::any_of(access.begin(), access.end(), [](const auto& a) { return !a.has_value(); }))
                        continue;
                    if (!separating_word(mutant, m)) continue;
                    result.push_back(std::move(mutant));
                }
        }
    return result;
}

}  // namespace typestar::conformance_test
