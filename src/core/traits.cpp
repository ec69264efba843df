#include "typestar/core/traits.hpp"

#include <vector>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {

DeviceTraits closure_traits(const Alphabet& inputs, const Alphabet& outputs, bool quiet_is_stable) {
    DeviceTraits traits;
    traits.wait = inputs.find(kWait);
    // Without `wait` the alphabets are no synchronous closure: a plain Mealy machine's `err` is an
    // output like any other unless declared absorbing (Typestate::err_absorbing, declared_traits).
    if (traits.wait) traits.absorbing = outputs.find(kErr);
    if (traits.wait && quiet_is_stable) traits.quiet = outputs.find(kQuiet);
    return traits;
}

DeviceTraits infer_traits(const MealyMachine& machine) {
    DeviceTraits traits;
    const std::size_t n = machine.num_states();
    const std::size_t k = machine.num_inputs();
    traits.wait = machine.inputs().find(kWait);

    if (const auto err = machine.outputs().find(kErr)) {
        // Greatest set of states that answer only err and stay in the set.
        std::vector<char> sink(n, 1);
        for (bool changed = true; changed;) {
            changed = false;
            for (StateId s = 0; s < n; ++s) {
                if (!sink[s]) continue;
                for (Symbol i = 0; i < k; ++i) {
                    const auto& t = machine.transition(s, i);
                    if (t.output != *err || !sink[t.target]) {
                        sink[s] = 0;
                        changed = true;
                        break;
                    }
                }
            }
        }
        bool absorbing = true;
        for (StateId s = 0; s < n && absorbing; ++s)
            for (Symbol i = 0; i < k; ++i) {
                const auto& t = machine.transition(s, i);
                if (t.output == *err && !sink[t.target]) {
                    absorbing = false;
                    break;
                }
            }
        if (absorbing) traits.absorbing = err;
    }

    if (traits.wait) {
        if (const auto quiet = machine.outputs().find(kQuiet)) {
            const auto classes = equivalence_classes(machine);
            bool identity = true;
            for (StateId s = 0; s < n && identity; ++s) {
                const auto& t = machine.transition(s, *traits.wait);
                if (t.output == *quiet && classes[t.target] != classes[s]) identity = false;
            }
            if (identity) traits.quiet = quiet;
        }
    }
    return traits;
}

}  // namespace typestar
