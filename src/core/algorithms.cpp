#include "typestar/core/algorithms.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace typestar {
namespace {

std::vector<Symbol> order_or_default(const MealyMachine& m, const std::vector<Symbol>& order,
                                     bool by_name) {
    if (!order.empty()) {
        if (order.size() != m.num_inputs()) throw std::invalid_argument("input order has the wrong size");
        return order;
    }
    if (by_name) return m.inputs().sorted_ids();
    std::vector<Symbol> ids(m.num_inputs());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<Symbol>(i);
    return ids;
}

/// Hash of a vector of 32-bit values (FNV-1a over the values).
struct VectorHash {
    std::size_t operator()(const std::vector<std::uint32_t>& v) const noexcept {
        std::uint64_t h = 1469598103934665603ULL;
        for (auto x : v) {
            h ^= x;
            h *= 1099511628211ULL;
        }
        return static_cast<std::size_t>(h);
    }
};

/// One round of Moore refinement: the new class of each state from its old class, its outputs and
/// its successors' old classes. Returns the number of classes.
std::size_t refine(const MealyMachine& m, const std::vector<std::uint32_t>& old_classes,
                   std::vector<std::uint32_t>& new_classes, bool with_outputs) {
    const std::size_t k = m.num_inputs();
    std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, VectorHash> ids;
    ids.reserve(m.num_states() * 2);
    std::vector<std::uint32_t> sig(1 + 2 * k);
    new_classes.assign(m.num_states(), 0);
    for (StateId s = 0; s < m.num_states(); ++s) {
        sig[0] = old_classes[s];
        for (std::size_t i = 0; i < k; ++i) {
            const auto& t = m.transition(s, static_cast<Symbol>(i));
            sig[1 + 2 * i] = with_outputs ? t.output : 0;
            sig[2 + 2 * i] = old_classes[t.target];
        }
        auto [it, inserted] = ids.try_emplace(sig, static_cast<std::uint32_t>(ids.size()));
        new_classes[s] = it->second;
    }
    return ids.size();
}

/// Classes after outputs only (1-equivalence).
std::size_t output_classes(const MealyMachine& m, std::vector<std::uint32_t>& classes) {
    // With all old classes equal, the successor classes carry no information: outputs decide.
    const std::size_t k = m.num_inputs();
    std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, VectorHash> ids;
    std::vector<std::uint32_t> sig(k);
    classes.assign(m.num_states(), 0);
    for (StateId s = 0; s < m.num_states(); ++s) {
        for (std::size_t i = 0; i < k; ++i) sig[i] = m.output(s, static_cast<Symbol>(i));
        auto [it, inserted] = ids.try_emplace(sig, static_cast<std::uint32_t>(ids.size()));
        classes[s] = it->second;
    }
    return ids.size();
}

/// Breadth-first search over pairs of states, returning a shortest word that leads from (p, q) to a
/// pair answering differently. `differ(p, q, i)` tells whether outputs differ on input i;
/// `succ(p, q, i)` gives the successor pair.
template <typename Differ, typename Succ>
std::optional<Word> search_pairs(StateId p0, StateId q0, std::size_t num_inputs, std::uint64_t q_count,
                                 Differ differ, Succ succ) {
    struct Parent {
        std::uint64_t from;
        Symbol input;
    };
    auto key = [q_count](StateId p, StateId q) { return static_cast<std::uint64_t>(p) * q_count + q; };
    std::unordered_map<std::uint64_t, Parent> parent;
    std::deque<std::pair<StateId, StateId>> queue;
    const auto start = key(p0, q0);
    parent.emplace(start, Parent{start, 0});
    queue.emplace_back(p0, q0);
    auto word_to = [&](std::uint64_t k) {
        Word w;
        while (k != start) {
            const auto& par = parent.at(k);
            w.push_back(par.input);
            k = par.from;
        }
        std::reverse(w.begin(), w.end());
        return w;
    };
    while (!queue.empty()) {
        auto [p, q] = queue.front();
        queue.pop_front();
        const auto here = key(p, q);
        for (std::size_t i = 0; i < num_inputs; ++i) {
            const auto in = static_cast<Symbol>(i);
            if (differ(p, q, in)) {
                Word w = word_to(here);
                w.push_back(in);
                return w;
            }
            auto [np, nq] = succ(p, q, in);
            const auto next = key(np, nq);
            if (parent.try_emplace(next, Parent{here, in}).second) queue.emplace_back(np, nq);
        }
    }
    return std::nullopt;
}

}  // namespace

std::vector<std::optional<Word>> access_sequences(const MealyMachine& machine,
                                                  const std::vector<Symbol>& input_order) {
    const auto order = order_or_default(machine, input_order, false);
    std::vector<std::optional<Word>> access(machine.num_states());
    std::deque<StateId> queue{machine.initial()};
    access[machine.initial()] = Word{};
    while (!queue.empty()) {
        const StateId s = queue.front();
        queue.pop_front();
        for (Symbol i : order) {
            const StateId t = machine.successor(s, i);
            if (access[t]) continue;
            Word w = *access[s];
            w.push_back(i);
            access[t] = std::move(w);
            queue.push_back(t);
        }
    }
    return access;
}

MealyMachine canonical(const MealyMachine& machine, const std::vector<Symbol>& input_order) {
    const auto order = order_or_default(machine, input_order, true);
    constexpr StateId kNone = static_cast<StateId>(-1);
    std::vector<StateId> renumber(machine.num_states(), kNone);
    std::vector<StateId> visit{machine.initial()};
    renumber[machine.initial()] = 0;
    for (std::size_t head = 0; head < visit.size(); ++head) {
        for (Symbol i : order) {
            const StateId t = machine.successor(visit[head], i);
            if (renumber[t] != kNone) continue;
            renumber[t] = static_cast<StateId>(visit.size());
            visit.push_back(t);
        }
    }
    const std::size_t k = machine.num_inputs();
    std::vector<Transition> table(visit.size() * k);
    std::vector<std::string> names;
    for (std::size_t n = 0; n < visit.size(); ++n) {
        for (std::size_t i = 0; i < k; ++i) {
            const auto& t = machine.transition(visit[n], static_cast<Symbol>(i));
            table[n * k + i] = Transition{renumber[t.target], t.output};
        }
        if (machine.has_state_names()) names.push_back(machine.state_name(visit[n]));
    }
    return MealyMachine(machine.inputs(), machine.outputs(), 0, std::move(table), std::move(names));
}

std::vector<std::uint32_t> equivalence_classes(const MealyMachine& machine) {
    std::vector<std::uint32_t> classes;
    std::size_t count = output_classes(machine, classes);
    std::vector<std::uint32_t> next;
    for (;;) {
        const std::size_t refined = refine(machine, classes, next, false);
        classes.swap(next);
        if (refined == count) break;
        count = refined;
    }
    return classes;
}

MealyMachine minimize(const MealyMachine& machine, const std::vector<Symbol>& input_order) {
    const MealyMachine reach = canonical(machine, input_order);
    const auto classes = equivalence_classes(reach);
    const std::size_t n = *std::max_element(classes.begin(), classes.end()) + 1;
    const std::size_t k = reach.num_inputs();
    std::vector<Transition> table(n * k);
    std::vector<bool> done(n, false);
    std::vector<std::string> names(reach.has_state_names() ? n : 0);
    for (StateId s = 0; s < reach.num_states(); ++s) {  // canonical order: first state names its class
        const auto c = classes[s];
        if (done[c]) continue;
        done[c] = true;
        if (!names.empty()) names[c] = reach.state_name(s);
        for (std::size_t i = 0; i < k; ++i) {
            const auto& t = reach.transition(s, static_cast<Symbol>(i));
            table[c * k + i] = Transition{classes[t.target], t.output};
        }
    }
    MealyMachine quotient(reach.inputs(), reach.outputs(), classes[reach.initial()], std::move(table),
                          std::move(names));
    return canonical(quotient, input_order);
}

std::optional<Word> separating_word(const MealyMachine& a, const MealyMachine& b) {
    if (a.num_inputs() != b.num_inputs())
        throw std::invalid_argument("the machines have different input alphabets");
    std::vector<Symbol> b_input(a.num_inputs());  // a's input id -> b's
    for (Symbol i = 0; i < a.num_inputs(); ++i) {
        auto found = b.inputs().find(a.inputs().name(i));
        if (!found) throw std::invalid_argument("input '" + a.inputs().name(i) + "' is missing from the second machine");
        b_input[i] = *found;
    }
    constexpr Symbol kForeign = static_cast<Symbol>(-1);
    std::vector<Symbol> b_output(b.outputs().size());  // b's output id -> a's (or foreign)
    for (Symbol o = 0; o < b.outputs().size(); ++o)
        b_output[o] = a.outputs().find(b.outputs().name(o)).value_or(kForeign);
    return search_pairs(
        a.initial(), b.initial(), a.num_inputs(), b.num_states(),
        [&](StateId p, StateId q, Symbol i) { return a.output(p, i) != b_output[b.output(q, b_input[i])]; },
        [&](StateId p, StateId q, Symbol i) {
            return std::pair{a.successor(p, i), b.successor(q, b_input[i])};
        });
}

std::optional<Word> separating_word(const MealyMachine& machine, StateId p, StateId q) {
    if (p >= machine.num_states() || q >= machine.num_states()) throw std::invalid_argument("state out of range");
    return search_pairs(
        p, q, machine.num_inputs(), machine.num_states(),
        [&](StateId x, StateId y, Symbol i) { return machine.output(x, i) != machine.output(y, i); },
        [&](StateId x, StateId y, Symbol i) {
            return std::pair{machine.successor(x, i), machine.successor(y, i)};
        });
}

std::vector<Word> words_of_length(std::size_t num_inputs, std::size_t length) {
    std::vector<Word> result;
    if (num_inputs == 0 && length > 0) return result;
    Word w(length, 0);
    for (;;) {
        result.push_back(w);
        std::size_t i = length;
        for (;;) {
            if (i == 0) return result;
            --i;
            if (++w[i] < num_inputs) break;
            w[i] = 0;
        }
    }
}

std::vector<Word> characterizing_set(const MealyMachine& machine, const std::vector<Word>& known) {
    const std::size_t n = machine.num_states();
    const auto classes = equivalence_classes(machine);
    std::vector<Word> signature(n);  // each state's outputs on the words so far, concatenated
    auto extend = [&](const Word& w) {
        for (StateId s = 0; s < n; ++s) {
            const Word out = machine.outputs_of(w, s);
            signature[s].insert(signature[s].end(), out.begin(), out.end());
        }
    };
    for (const Word& w : known) extend(w);
    std::vector<Word> result;
    for (;;) {
        // Two inequivalent states with the same outputs on every word so far?
        std::map<Word, StateId> first_of;
        std::optional<std::pair<StateId, StateId>> clash;
        for (StateId s = 0; s < n && !clash; ++s) {
            const auto [it, inserted] = first_of.emplace(signature[s], s);
            if (!inserted && classes[it->second] != classes[s]) clash = std::make_pair(it->second, s);
        }
        if (!clash) return result;
        auto w = separating_word(machine, clash->first, clash->second);  // exists: classes differ
        extend(*w);
        result.push_back(std::move(*w));
    }
}

std::optional<std::size_t> distinguisher_bound(const MealyMachine& machine) {
    const std::size_t n = machine.num_states();
    if (n <= 1) return 0;
    std::vector<std::uint32_t> classes;
    std::size_t count = output_classes(machine, classes);
    std::size_t k = 1;
    std::vector<std::uint32_t> next;
    while (count < n) {
        const std::size_t refined = refine(machine, classes, next, false);
        classes.swap(next);
        if (refined == count) return std::nullopt;  // stable but not discrete: equivalent states
        count = refined;
        ++k;
    }
    return k;
}

}  // namespace typestar
