#include "diff_pairing.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "typestar/core/algorithms.hpp"

namespace typestar::spec::detail {
namespace {

std::vector<std::string> sorted_union(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::set<std::string> all(a.begin(), a.end());
    all.insert(b.begin(), b.end());
    return {all.begin(), all.end()};
}

/// `t` over the given callins and callbacks (supersets of its own); new callins are refused
/// everywhere.
Typestate extended(const Typestate& t, const std::vector<std::string>& callins,
                   const std::vector<std::string>& callbacks, const std::vector<std::string>& outputs, bool has_wait) {
    const auto index_in = [](const std::vector<std::string>& names, const std::string& name) {
        return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
    };
    Typestate out;
    out.name = t.name;
    out.callins = callins;
    out.callbacks = callbacks;
    out.outputs = outputs;
    out.err_absorbing = t.err_absorbing;
    out.has_wait = has_wait;  // a typestate without `wait` read with one: every wait answers quiet
    out.initial = t.initial;
    for (const auto& s : t.states) {
        Typestate::State state;
        state.name = s.name;
        state.callins.assign(callins.size(), std::nullopt);
        if (s.callins.size() != t.callins.size())
            throw std::invalid_argument("typestate state '" + s.name + "' does not list every callin");
        for (std::size_t c = 0; c < s.callins.size(); ++c) state.callins[index_in(callins, t.callins[c])] = s.callins[c];
        if (s.callback) {
            if (s.callback->callback >= t.callbacks.size())
                throw std::invalid_argument("typestate callback index out of range");
            state.callback = Typestate::CallbackEdge{index_in(callbacks, t.callbacks[s.callback->callback]),
                                                     s.callback->target};
        }
        state.wait = s.wait;
        state.quiet_target = s.quiet_target;
        for (const auto& [c, u] : s.unknown) state.unknown.emplace(index_in(callins, t.callins[c]), u);
        for (const auto& [c, o] : s.answers)
            state.answers.emplace(index_in(callins, t.callins[c]), index_in(outputs, t.outputs.at(o)));
        out.states.push_back(std::move(state));
    }
    return out;
}

}  // namespace

AlignedTypestates align_typestates(const Typestate& old_typestate, const Typestate& new_typestate) {
    auto callins = sorted_union(old_typestate.callins, new_typestate.callins);
    auto callbacks = sorted_union(old_typestate.callbacks, new_typestate.callbacks);
    const auto outputs = sorted_union(old_typestate.outputs, new_typestate.outputs);
    const bool has_wait = old_typestate.has_wait || new_typestate.has_wait;
    Typestate new_ext = extended(new_typestate, callins, callbacks, outputs, has_wait);
    Typestate old_t = canonical(extended(old_typestate, callins, callbacks, outputs, has_wait));
    Typestate new_t = canonical(new_ext);
    MealyMachine old_c = synchronous_closure(old_t);
    MealyMachine new_c = synchronous_closure(new_t);
    // Both closures have the inputs callins (sorted union) then `wait` (if either has it), in the same
    // order, and the same outputs.
    auto order = old_c.inputs().sorted_ids();
    const auto old_states = old_t.states.size();
    const auto new_states = new_t.states.size();

    // Lockstep breadth-first walk over pairs of live states (neither side in its error sink). Each
    // old state is paired with the new state at the first pair it appears in, so its access word is
    // the shortest one both typestates accept; a removed callin thus does not unpair the states
    // behind it that stay reachable some other way.
    std::vector<std::optional<StateId>> pair(old_states);
    std::vector<Word> access(old_states);
    std::vector<bool> new_seen(new_states, false);
    std::vector<std::optional<StateId>> new_alongside(new_states);
    std::set<std::pair<StateId, StateId>> visited{{old_c.initial(), new_c.initial()}};
    std::vector<std::pair<std::pair<StateId, StateId>, Word>> queue{{{old_c.initial(), new_c.initial()}, {}}};
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const auto [states, word] = queue[head];
        const auto [p, q] = states;
        new_seen[q] = true;
        if (!new_alongside[q]) new_alongside[q] = p;
        if (!pair[p]) {
            pair[p] = q;
            access[p] = word;
        }
        for (const Symbol input : order) {
            const std::pair<StateId, StateId> next{old_c.successor(p, input), new_c.successor(q, input)};
            if (next.first >= old_states || next.second >= new_states) continue;  // an error sink
            if (!visited.insert(next).second) continue;
            Word longer = word;
            longer.push_back(input);
            queue.emplace_back(next, std::move(longer));
        }
    }

    // Which canonical new state each state name of the new spec stands for, so that a paired state
    // keeps its old name when the new spec has a state of that name with that behaviour.
    std::map<std::string, StateId> new_class_of;
    {
        const MealyMachine ext_c = synchronous_closure(new_ext);
        const auto ext_access = access_sequences(ext_c, order);
        for (StateId s = 0; s < new_ext.states.size(); ++s)
            if (ext_access[s]) new_class_of.emplace(new_ext.states[s].name, new_c.run(*ext_access[s]));
    }
    std::vector<std::string> paired_name(old_states);
    for (StateId p = 0; p < old_states; ++p) {
        if (!pair[p]) continue;
        const std::string& old_name = old_t.states[p].name;
        const auto it = new_class_of.find(old_name);
        paired_name[p] = it != new_class_of.end() && it->second == *pair[p] ? old_name : new_t.states[*pair[p]].name;
    }
    return AlignedTypestates{std::move(callins), std::move(callbacks), std::move(old_t),
                             std::move(new_t),   std::move(old_c),     std::move(new_c),   std::move(order),
                             std::move(pair),    std::move(access),    std::move(new_seen), std::move(new_alongside),
                             std::move(paired_name)};
}

}  // namespace typestar::spec::detail
