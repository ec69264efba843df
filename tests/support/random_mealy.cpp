#include "support/random_mealy.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/algorithms.hpp"

namespace typestar::testing_support {

std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound) {
    if (bound <= 1) return 0;
    // Reject the lowest (2^64 mod bound) values so that every residue is equally likely.
    const std::uint64_t threshold = (std::uint64_t{0} - bound) % bound;
    for (;;) {
        const std::uint64_t r = rng();
        if (r >= threshold) return r % bound;
    }
}

namespace {

Alphabet numbered_alphabet(char prefix, std::size_t size) {
    std::vector<std::string> names;
    names.reserve(size);
    for (std::size_t k = 0; k < size; ++k) {
        std::string name(1, prefix);
        name += std::to_string(k);  // (not `string + string`: g++ 12 -O2 warns -Wrestrict falsely)
        names.push_back(std::move(name));
    }
    return Alphabet(std::move(names));
}

std::size_t class_count(const std::vector<std::uint32_t>& classes) {
    std::uint32_t top = 0;
    for (std::uint32_t c : classes) top = std::max(top, c);
    return classes.empty() ? 0 : static_cast<std::size_t>(top) + 1;
}

}  // namespace

MealyMachine random_mealy(std::size_t states, std::size_t inputs, std::size_t outputs,
                          std::uint64_t seed) {
    if (states == 0) throw std::invalid_argument("random_mealy: states must be positive");
    if (inputs == 0) throw std::invalid_argument("random_mealy: inputs must be positive");
    if (outputs == 0) throw std::invalid_argument("random_mealy: outputs must be positive");
    if (outputs == 1 && states > 1)
        throw std::invalid_argument(
            "random_mealy: with one output all states are equivalent; no minimal machine with " +
            std::to_string(states) + " states exists");

    std::mt19937_64 rng(seed);
    const std::size_t width = inputs;
    constexpr StateId kUnset = static_cast<StateId>(-1);
    std::vector<Transition> table(states * width, Transition{kUnset, 0});

    // Spanning tree: state k (k >= 1) is the target of a uniformly chosen free slot of states < k.
    // The free-slot list only grows by inputs - 1 per state, so it is never empty.
    std::vector<std::size_t> free_slots;
    free_slots.reserve(states * (width - 1) + width);
    for (std::size_t i = 0; i < width; ++i) free_slots.push_back(i);
    for (std::size_t k = 1; k < states; ++k) {
        const std::size_t pick = uniform_below(rng, free_slots.size());
        const std::size_t slot = free_slots[pick];
        free_slots[pick] = free_slots.back();
        free_slots.pop_back();
        table[slot].target = static_cast<StateId>(k);
        for (std::size_t i = 0; i < width; ++i) free_slots.push_back(k * width + i);
    }
    // Remaining transitions (in table order, for determinism): uniform targets. Then outputs.
    for (auto& t : table)
        if (t.target == kUnset) t.target = static_cast<StateId>(uniform_below(rng, states));
    for (auto& t : table) t.output = static_cast<Symbol>(uniform_below(rng, outputs));

    const Alphabet in = numbered_alphabet('i', inputs);
    const Alphabet out = numbered_alphabet('o', outputs);
    auto build = [&] { return MealyMachine(in, out, 0, table); };
    MealyMachine machine = build();
    if (states == 1) return machine;

    std::vector<std::uint32_t> classes = equivalence_classes(machine);
    std::size_t count = class_count(classes);
    const std::size_t budget = 4096 + 256 * states;
    const std::size_t patience = 64 + 8 * states;  // steps without progress before a restart
    std::size_t best = count;
    std::size_t since_progress = 0;
    for (std::size_t step = 0; count < states; ++step) {
        if (step == budget)
            throw std::runtime_error("random_mealy: could not make a minimal machine with " +
                                     std::to_string(states) + " states (seed " +
                                     std::to_string(seed) + ")");
        if (since_progress == patience) {  // stuck on a plateau: re-draw every output
            for (auto& t : table) t.output = static_cast<Symbol>(uniform_below(rng, outputs));
            machine = build();
            classes = equivalence_classes(machine);
            count = class_count(classes);
            best = count;
            since_progress = 0;
            continue;
        }
        // Candidates: every state of a class with two or more members.
        std::vector<std::size_t> class_size(count, 0);
        for (std::uint32_t c : classes) ++class_size[c];
        std::vector<StateId> merged;
        for (std::size_t s = 0; s < states; ++s)
            if (class_size[classes[s]] > 1) merged.push_back(static_cast<StateId>(s));
        const StateId s = merged[uniform_below(rng, merged.size())];
        const std::size_t slot = s * width + uniform_below(rng, width);
        const Symbol old_output = table[slot].output;
        table[slot].output =
            static_cast<Symbol>((old_output + 1 + uniform_below(rng, outputs - 1)) % outputs);
        MealyMachine candidate = build();
        std::vector<std::uint32_t> candidate_classes = equivalence_classes(candidate);
        const std::size_t candidate_count = class_count(candidate_classes);
        if (candidate_count >= count) {
            machine = std::move(candidate);
            classes = std::move(candidate_classes);
            count = candidate_count;
        } else {
            table[slot].output = old_output;  // the change merged more than it split: undo it
        }
        if (count > best) {
            best = count;
            since_progress = 0;
        } else {
            ++since_progress;
        }
    }
    return machine;
}

}  // namespace typestar::testing_support
