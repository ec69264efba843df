#include "typestar/sul/model_device.hpp"

#include <cassert>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {

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

ModelDevice::ModelDevice(MealyMachine machine, std::string name, std::optional<DeviceTraits> traits)
    : machine_(std::move(machine)), name_(std::move(name)), state_(machine_.initial()) {
    traits_ = traits ? *traits : infer_traits(machine_);
}

Symbol ModelDevice::step(Symbol input) {
    assert(input < machine_.num_inputs());
    const auto& t = machine_.transition(state_, input);
    state_ = t.target;
    return t.output;
}

RunResult ModelDevice::run(std::span<const Symbol> inputs) {
    // Same contract as Device::run, without a virtual call per step.
    RunResult result;
    result.outputs.resize(inputs.size());
    StateId state = machine_.initial();
    const bool has_wait = traits_.wait.has_value();
    const Symbol wait = has_wait ? *traits_.wait : 0;
    const bool has_quiet = has_wait && traits_.quiet.has_value();
    const Symbol quiet = has_quiet ? *traits_.quiet : 0;
    const bool has_absorbing = traits_.absorbing.has_value();
    const Symbol absorbing = has_absorbing ? *traits_.absorbing : 0;
    bool quiescent = false;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Symbol input = inputs[i];
        const bool is_wait = has_wait && input == wait;
        if (is_wait && quiescent) {
            result.outputs[i] = quiet;
            continue;
        }
        const auto& t = machine_.transition(state, input);
        state = t.target;
        ++result.steps;
        if (is_wait) ++result.waits;
        result.outputs[i] = t.output;
        if (has_absorbing && t.output == absorbing) {
            for (std::size_t j = i + 1; j < inputs.size(); ++j) result.outputs[j] = absorbing;
            break;
        }
        quiescent = is_wait && has_quiet && t.output == quiet;
    }
    state_ = state;
    return result;
}

}  // namespace typestar

namespace typestar {

MealyMachine over_alphabets(const MealyMachine& machine, const Alphabet& inputs, const Alphabet& outputs) {
    if (machine.inputs().size() != inputs.size()) {
        for (const auto& name : inputs.names())
            if (!machine.inputs().contains(name))
                throw std::invalid_argument("input '" + name + "' is not an input of the model");
        for (const auto& name : machine.inputs().names())
            if (!inputs.contains(name))
                throw std::invalid_argument("model input '" + name + "' is not an input of the device");
    }
    std::vector<Symbol> input_map(machine.num_inputs());
    for (Symbol i = 0; i < machine.num_inputs(); ++i) {
        const auto id = inputs.find(machine.inputs().name(i));
        if (!id)
            throw std::invalid_argument("model input '" + machine.inputs().name(i) + "' is not an input of the device");
        input_map[i] = *id;
    }
    Alphabet result_outputs = outputs;
    std::vector<Symbol> output_map(machine.outputs().size());
    for (Symbol o = 0; o < machine.outputs().size(); ++o)
        output_map[o] = result_outputs.intern(machine.outputs().name(o));
    const std::size_t k = inputs.size();
    std::vector<Transition> table(machine.num_states() * k);
    for (StateId s = 0; s < machine.num_states(); ++s)
        for (Symbol i = 0; i < k; ++i) {
            const auto& t = machine.transition(s, i);
            table[s * k + input_map[i]] = Transition{t.target, output_map[t.output]};
        }
    std::vector<std::string> names;
    if (machine.has_state_names())
        for (StateId s = 0; s < machine.num_states(); ++s) names.push_back(machine.state_name(s));
    return MealyMachine(inputs, std::move(result_outputs), machine.initial(), std::move(table), std::move(names));
}

}  // namespace typestar
