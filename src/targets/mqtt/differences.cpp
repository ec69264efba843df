// Every difference of two Mealy machines, each with a shortest witness (a product walk).
#include <deque>
#include <map>
#include <stdexcept>
#include <utility>

#include "typestar/targets/mqtt.hpp"

namespace typestar::targets {

std::vector<MealyDifference> mealy_differences(const MealyMachine& expected, const MealyMachine& actual) {
    if (expected.num_inputs() != actual.num_inputs())
        throw std::invalid_argument("mealy_differences: the machines have different inputs");
    std::vector<Symbol> to_actual;  // expected's input id -> actual's
    for (Symbol i = 0; i < expected.num_inputs(); ++i) {
        const auto j = actual.inputs().find(expected.inputs().name(i));
        if (!j) throw std::invalid_argument("mealy_differences: input '" + expected.inputs().name(i) +
                                            "' only in the first machine");
        to_actual.push_back(*j);
    }
    using Pair = std::pair<StateId, StateId>;
    std::map<Pair, Word> access;  // shortest word (expected's ids) reaching each product pair
    std::deque<Pair> queue;
    const Pair start{expected.initial(), actual.initial()};
    access.emplace(start, Word{});
    queue.push_back(start);
    std::vector<MealyDifference> out;
    while (!queue.empty()) {
        const Pair pair = queue.front();
        queue.pop_front();
        const Word word = access.at(pair);
        for (Symbol i = 0; i < expected.num_inputs(); ++i) {
            const auto& e = expected.transition(pair.first, i);
            const auto& a = actual.transition(pair.second, to_actual[i]);
            const std::string& e_out = expected.outputs().name(e.output);
            const std::string& a_out = actual.outputs().name(a.output);
            if (e_out != a_out) {
                MealyDifference d;
                d.witness = names_of(word, expected.inputs());
                d.witness.push_back(expected.inputs().name(i));
                d.expected = e_out;
                d.actual = a_out;
                d.expected_state = expected.state_name(pair.first);
                d.actual_state = actual.state_name(pair.second);
                out.push_back(std::move(d));
            }
            const Pair next{e.target, a.target};
            if (access.find(next) == access.end()) {
                Word longer = word;
                longer.push_back(i);
                access.emplace(next, std::move(longer));
                queue.push_back(next);
            }
        }
    }
    return out;
}

}  // namespace typestar::targets
