#include "typestar/core/translate.hpp"

#include <stdexcept>
#include <vector>

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
