#include "typestar/core/algorithms.hpp"

#include <algorithm>
#include <deque>
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

/// The coarsest output-preserving partition of a machine's states and the number of Moore rounds
/// it takes (DroidStar's distinguisher bound when the partition is discrete).
struct Partition {
    std::vector<std::uint32_t> block;  ///< block of each state (numbering arbitrary)
    std::size_t num_blocks = 0;
    /// The smallest r such that r-equivalence (same outputs on every word of length <= r) is
    /// already the fixpoint; 1 when the output rows alone decide (also for one block).
    std::size_t rounds = 0;
};

/// Level-synchronous partition refinement in O(n·k·log n) (Hopcroft's "process the smaller half",
/// with the refinable-partition arrays of Valmari and Lehtinen, STACS 2008), hand-written because no
/// Debian library offers Mealy-machine minimisation. Round r+1 computes the Moore partition P_{r+1}
/// from P_r exactly: two states of one P_r block have successors in one P_{r-1} block on every
/// input, so it suffices to split by "the a-successor lies in part X" for every part X of a P_{r-1}
/// block that split in round r, except its largest part. Each state lies in such a part at most
/// log2 n times, so marking predecessors costs O(n·k·log n) over all rounds; rounds without
/// splitters cost nothing, so the round count (up to n) is exact and free.
// Over 120 lines: one partition-refinement algorithm (Hopcroft-style rounds) whose state lives in its locals; not yet split.
Partition refine_partition(const MealyMachine& m) {
    const std::size_t n = m.num_states();
    const std::size_t k = m.num_inputs();
    Partition result;
    // Initial partition: by output row, blocks numbered by first occurrence.
    std::vector<std::uint32_t> row_class(n);
    {
        std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, VectorHash> ids;
        ids.reserve(n);
        std::vector<std::uint32_t> sig(k);
        for (StateId s = 0; s < n; ++s) {
            for (std::size_t i = 0; i < k; ++i) sig[i] = m.output(s, static_cast<Symbol>(i));
            row_class[s] = ids.try_emplace(sig, static_cast<std::uint32_t>(ids.size())).first->second;
        }
        result.num_blocks = ids.size();
    }
    result.rounds = 1;
    if (result.num_blocks == n || n <= 1) {
        result.block = std::move(row_class);
        return result;
    }
    // Predecessors by (input, target), compressed rows: pred[start[a*n+t] .. start[a*n+t+1]).
    std::vector<std::uint32_t> start(n * k + 1, 0);
    for (StateId s = 0; s < n; ++s)
        for (std::size_t a = 0; a < k; ++a) ++start[a * n + m.successor(s, static_cast<Symbol>(a)) + 1];
    for (std::size_t x = 1; x < start.size(); ++x) start[x] += start[x - 1];
    std::vector<StateId> pred(n * k);
    {
        std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
        for (StateId s = 0; s < n; ++s)
            for (std::size_t a = 0; a < k; ++a) pred[fill[a * n + m.successor(s, static_cast<Symbol>(a))]++] = s;
    }
    // Refinable partition: each block is the range [first, end) of `elems`; its marked states are
    // moved to the front, [first, mid).
    std::vector<StateId> elems(n);
    std::vector<std::uint32_t> loc(n), block(n);
    std::vector<std::uint32_t> first(result.num_blocks + 1, 0), end, mid;
    for (StateId s = 0; s < n; ++s) ++first[row_class[s] + 1];
    for (std::size_t b = 1; b < first.size(); ++b) first[b] += first[b - 1];
    first.pop_back();
    end.assign(first.begin() + 1, first.end());
    end.push_back(static_cast<std::uint32_t>(n));
    {
        std::vector<std::uint32_t> fill = first;
        for (StateId s = 0; s < n; ++s) {
            block[s] = row_class[s];
            loc[s] = fill[row_class[s]]++;
            elems[loc[s]] = s;
        }
    }
    mid = first;
    constexpr std::uint32_t kNone = static_cast<std::uint32_t>(-1);
    std::vector<std::uint32_t> origin(result.num_blocks, kNone);   // block at the round's start
    std::vector<std::size_t> born(result.num_blocks, 0);           // round that created the block
    std::vector<std::uint32_t> first_child(result.num_blocks, kNone), next_child(result.num_blocks, kNone);
    std::vector<std::size_t> origin_split(result.num_blocks, 0);   // last round the origin split

    // Splitters: states of every part but a largest one, per split block (flat, with offsets).
    std::vector<StateId> splitter_states;
    std::vector<std::size_t> splitter_start{0};
    auto add_splitter = [&](std::uint32_t b) {
        splitter_states.insert(splitter_states.end(), elems.begin() + first[b], elems.begin() + end[b]);
        splitter_start.push_back(splitter_states.size());
    };
    {  // P_0 is one block: every output class but a largest one
        std::uint32_t largest = 0;
        for (std::uint32_t b = 1; b < result.num_blocks; ++b)
            if (end[b] - first[b] > end[largest] - first[largest]) largest = b;
        for (std::uint32_t b = 0; b < result.num_blocks; ++b)
            if (b != largest) add_splitter(b);
    }
    std::vector<std::uint32_t> touched, split_origins;
    std::vector<StateId> current;
    std::vector<std::size_t> current_start;
    for (std::size_t round = 2; splitter_start.size() > 1; ++round) {
        current.swap(splitter_states);
        current_start.swap(splitter_start);
        splitter_states.clear();
        splitter_start.assign(1, 0);
        split_origins.clear();
        for (std::size_t x = 0; x + 1 < current_start.size(); ++x) {
            for (std::size_t a = 0; a < k; ++a) {
                for (std::size_t y = current_start[x]; y < current_start[x + 1]; ++y) {
                    const std::size_t row = a * n + current[y];
                    for (std::uint32_t z = start[row]; z < start[row + 1]; ++z) {
                        const StateId s = pred[z];
                        const std::uint32_t b = block[s];
                        if (loc[s] < mid[b]) continue;  // already marked (cannot happen twice per (x, a))
                        if (mid[b] == first[b]) touched.push_back(b);
                        const StateId other = elems[mid[b]];
                        std::swap(elems[loc[s]], elems[mid[b]]);
                        loc[other] = loc[s];
                        loc[s] = mid[b]++;
                    }
                }
                for (const std::uint32_t b : touched) {
                    if (mid[b] == end[b]) {  // every state marked: no split
                        mid[b] = first[b];
                        continue;
                    }
                    const auto nb = static_cast<std::uint32_t>(first.size());
                    const std::uint32_t o = born[b] == round ? origin[b] : b;
                    first.push_back(first[b]);
                    end.push_back(mid[b]);
                    mid.push_back(first[b]);
                    first[b] = mid[b];
                    for (std::uint32_t z = first[nb]; z < end[nb]; ++z) block[elems[z]] = nb;
                    origin.push_back(o);
                    born.push_back(round);
                    first_child.push_back(kNone);
                    if (origin_split[o] != round) {
                        origin_split[o] = round;
                        first_child[o] = kNone;
                        split_origins.push_back(o);
                    }
                    next_child.push_back(first_child[o]);
                    first_child[o] = nb;
                    origin_split.push_back(0);
                }
                touched.clear();
            }
        }
        if (split_origins.empty()) break;  // P_{round} = P_{round-1}: the fixpoint
        result.rounds = round;
        for (const std::uint32_t o : split_origins) {
            std::uint32_t largest = o;
            for (std::uint32_t c = first_child[o]; c != kNone; c = next_child[c])
                if (end[c] - first[c] > end[largest] - first[largest]) largest = c;
            if (largest != o) add_splitter(o);
            for (std::uint32_t c = first_child[o]; c != kNone; c = next_child[c])
                if (c != largest) add_splitter(c);
        }
    }
    result.num_blocks = first.size();
    result.block = std::move(block);
    return result;
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
    const Partition p = refine_partition(machine);
    constexpr std::uint32_t kNone = static_cast<std::uint32_t>(-1);
    std::vector<std::uint32_t> number(p.num_blocks, kNone);  // renumber by first occurrence
    std::vector<std::uint32_t> classes(machine.num_states());
    std::uint32_t next = 0;
    for (StateId s = 0; s < machine.num_states(); ++s) {
        auto& c = number[p.block[s]];
        if (c == kNone) c = next++;
        classes[s] = c;
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
    // States are grouped by their outputs on the words so far; each new word refines the groups in
    // O(n·|w|), instead of re-sorting every state's whole output history after each word.
    const std::size_t n = machine.num_states();
    const auto classes = equivalence_classes(machine);
    std::vector<std::uint32_t> group(n, 0);
    std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, VectorHash> ids;
    std::vector<std::uint32_t> key;
    auto extend = [&](const Word& w) {
        ids.clear();
        for (StateId s = 0; s < n; ++s) {
            key.assign(1, group[s]);
            StateId q = s;
            for (Symbol i : w) {
                const auto& t = machine.transition(q, i);
                key.push_back(t.output);
                q = t.target;
            }
            group[s] = ids.try_emplace(key, static_cast<std::uint32_t>(ids.size())).first->second;
        }
    };
    for (const Word& w : known) extend(w);
    std::vector<Word> result;
    constexpr StateId kNone = static_cast<StateId>(-1);
    std::vector<StateId> first_of;
    for (;;) {
        // The first state (by id) that shares its outputs with an inequivalent earlier state,
        // paired with the first state of its group.
        first_of.assign(n, kNone);
        std::optional<std::pair<StateId, StateId>> clash;
        for (StateId s = 0; s < n && !clash; ++s) {
            StateId& f = first_of[group[s]];
            if (f == kNone) f = s;
            else if (classes[f] != classes[s]) clash = std::make_pair(f, s);
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
    const Partition p = refine_partition(machine);
    if (p.num_blocks < n) return std::nullopt;  // equivalent states
    return p.rounds;
}

}  // namespace typestar
