// The data classes of a register automaton: order types, the exploration of its (location, data
// class) states under a budget, and the product of two automata (product_difference).
#include "typestar/ra/automaton.hpp"

#include "../spec/spec_detail.hpp"
#include "values.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <set>

namespace typestar::ra {

using internal::term_value;

namespace {

/// Counts the data classes an exploration visits and refuses, naming the knob, past the limit.
class ClassBudget {
public:
    ClassBudget(const RegisterAutomaton& ra, const RaLimits& limits) : ra_(&ra), limits_(limits) {}
    /// One data class whose guards have `atoms` atoms in all (its cost: at least 1).
    void take_class(std::size_t atoms) {
        work_ += std::max<std::size_t>(atoms, 1);
        if (work_ > limits_.max_work)
            throw Error("register automaton '" + spec::detail::printable(ra_->name) +
                        "': exploring its data classes takes more than " + std::to_string(limits_.max_work) +
                        " units of work (one per guard atom in each class of input parameters; set "
                        "TYPESTAR_MAX_RA_WORK to allow more)");
    }
    void check_states(std::size_t states) const {
        if (states > limits_.max_states)
            throw Error("register automaton '" + spec::detail::printable(ra_->name) + "': exploring it reaches more than " +
                        std::to_string(limits_.max_states) +
                        " (location, register pattern) states (set TYPESTAR_MAX_RA_STATES to allow more)");
    }

private:
    const RegisterAutomaton* ra_;
    RaLimits limits_;
    std::size_t work_ = 0;
};

/// Marks the parameters of `input` that a transition of `from` on it reads (in a guard, an output
/// or an assignment): the only ones whose data class can change what happens.
/// Returns the number of guard atoms of those transitions (what evaluating them in one class costs).
std::size_t mark_relevant(const Location& from, std::size_t input, std::vector<bool>& relevant) {
    auto mark = [&](const Term& t) {
        if (t.kind == Term::Kind::Param && t.index < relevant.size()) relevant[t.index] = true;
    };
    std::size_t atoms = 0;
    for (const auto& t : from.transitions) {
        if (t.input != input) continue;
        for (const auto& conj : t.guard.disjuncts)
            for (const auto& a : conj) {
                mark(a.left);
                mark(a.right);
                ++atoms;
            }
        for (const auto& arg : t.output_args)
            if (!arg.fresh) mark(arg.term);
        for (const auto& term : t.assign) mark(term);
    }
    return atoms;
}

// Enumerates every data class of the relevant parameters among `types` (values chosen one after
// another relative to `known` and the earlier relevant ones), calling `visit` with one
// representative valuation per class; an irrelevant parameter gets one value above every known one.
// With `+c` terms (window > 0) the classes of an `int` parameter are relative to every known value
// shifted by each d in [-window, window] (window = twice the largest offset: an atom
// `p + a op y + b` compares p with y + (b - a)).
std::vector<Value> shifted(const std::vector<Value>& known, Value window) {
    if (window == 0) return known;
    std::vector<Value> out;
    out.reserve(known.size() * static_cast<std::size_t>(2 * window + 1));
    for (Value v : known)
        for (Value d = -window; d <= window; ++d) out.push_back(v + d);
    return out;
}

void enumerate_classes(const std::vector<DataType>& types, const std::vector<bool>& relevant,
                       const std::vector<Value>& known_int, const std::vector<Value>& known_id,
                       std::vector<Value>& current, ClassBudget& budget, std::size_t atoms, Value window,
                       const std::function<void(const std::vector<Value>&)>& visit) {
    if (current.size() == types.size()) {
        budget.take_class(atoms);
        visit(current);
        return;
    }
    const std::size_t k = current.size();
    const DataType type = types[k];
    const auto& known = type == DataType::Int ? known_int : known_id;
    const auto candidates = value_classes(type, type == DataType::Int ? shifted(known, window) : known);
    if (!relevant[k]) {
        current.push_back(candidates.back());  // sorted: the last one is above every known value
        enumerate_classes(types, relevant, known_int, known_id, current, budget, atoms, window, visit);
        current.pop_back();
        return;
    }
    for (Value v : candidates) {
        current.push_back(v);
        auto ki = known_int, kd = known_id;
        (type == DataType::Int ? ki : kd).push_back(v);
        enumerate_classes(types, relevant, ki, kd, current, budget, atoms, window, visit);
        current.pop_back();
    }
}

std::vector<Value> anchors(const RegisterAutomaton& ra, DataType type) {
    std::vector<Value> out;
    for (const auto& c : ra.constants)
        if (c.type == type) out.push_back(c.value);
    for (Value literal : internal::guard_literals(ra)) out.push_back(literal);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// With `+c` terms (window > 0) the key is the order type of the `int` values each shifted by every
// d in [-window, window]: it keeps their exact differences up to 2 * window.
std::string order_type_key(const std::vector<DataType>& types, const std::vector<Value>& values,
                           const std::vector<Value>& anchors_int, const std::vector<Value>& anchors_id,
                           Value window = 0) {
    std::string key;
    for (DataType type : {DataType::Int, DataType::Id}) {
        std::vector<Value> all = type == DataType::Int ? anchors_int : anchors_id;
        for (std::size_t i = 0; i < values.size(); ++i)
            if (types[i] == type) all.push_back(values[i]);
        if (type == DataType::Int && window > 0) {
            all = shifted(all, window);
            std::sort(all.begin(), all.end());
            all.erase(std::unique(all.begin(), all.end()), all.end());
            auto pos = [&](Value v) { return std::to_string(std::lower_bound(all.begin(), all.end(), v) - all.begin()); };
            for (std::size_t i = 0; i < values.size(); ++i)
                if (types[i] == type)
                    for (Value d = -window; d <= window; ++d) key += pos(values[i] + d) + ",";
            key += "|";
            for (Value a : anchors_int)
                for (Value d = -window; d <= window; ++d) key += pos(a + d) + ",";
            key += "/";
            continue;
        }
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        auto pos = [&](Value v) { return std::to_string(std::lower_bound(all.begin(), all.end(), v) - all.begin()); };
        for (std::size_t i = 0; i < values.size(); ++i)
            if (types[i] == type) key += pos(values[i]) + ",";
        key += "|";
        for (Value a : type == DataType::Int ? anchors_int : anchors_id) key += pos(a) + ",";
        key += "/";
    }
    return key;
}

}  // namespace

std::string order_type(const RegisterAutomaton& ra, std::size_t location, const std::vector<Value>& registers) {
    std::vector<DataType> types;
    for (const auto& r : ra.locations.at(location).registers) types.push_back(r.type);
    return order_type_key(types, registers, anchors(ra, DataType::Int), anchors(ra, DataType::Id), offset_window(ra));
}

RaLimits RaLimits::from_environment() {
    RaLimits limits;
    if (const auto v = spec::detail::limit_from_environment("TYPESTAR_MAX_GUARD_DISJUNCTS")) limits.max_guard_disjuncts = *v;
    if (const auto v = spec::detail::limit_from_environment("TYPESTAR_MAX_RA_STATES")) limits.max_states = *v;
    if (const auto v = spec::detail::limit_from_environment("TYPESTAR_MAX_RA_WORK")) limits.max_work = *v;
    if (const auto v = spec::detail::limit_from_environment("TYPESTAR_MAX_RA_WORDS")) limits.max_words = *v;
    return limits;
}

std::size_t explore_classes(const RegisterAutomaton& ra, const ClassVisitor& visit, const RaLimits& limits) {
    const auto anchors_int = anchors(ra, DataType::Int), anchors_id = anchors(ra, DataType::Id);
    const Value window = offset_window(ra);
    ClassBudget budget(ra, limits);
    std::set<std::pair<std::size_t, std::string>> seen;
    std::vector<std::pair<std::size_t, std::vector<Value>>> queue{{ra.initial, {}}};
    seen.insert({ra.initial, order_type_key({}, {}, anchors_int, anchors_id, window)});
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const auto [loc, regs] = queue[head];
        const Location& l = ra.locations[loc];
        std::vector<Value> ki = anchors_int, kd = anchors_id;
        for (std::size_t r = 0; r < regs.size(); ++r) (l.registers[r].type == DataType::Int ? ki : kd).push_back(regs[r]);
        for (std::size_t in = 0; in < ra.inputs.size(); ++in) {
            std::vector<DataType> types;
            for (const auto& p : ra.inputs[in].params) types.push_back(p.type);
            std::vector<bool> relevant(types.size(), false);
            const std::size_t atoms = mark_relevant(l, in, relevant);
            std::vector<Value> current;
            enumerate_classes(types, relevant, ki, kd, current, budget, atoms, window, [&](const std::vector<Value>& params) {
                std::vector<std::size_t> holding;
                for (std::size_t ti = 0; ti < l.transitions.size(); ++ti)
                    if (l.transitions[ti].input == in && evaluate(ra, l.transitions[ti].guard, params, regs))
                        holding.push_back(ti);
                visit(loc, regs, in, params, holding);
                if (holding.size() != 1) return;
                const Transition& t = l.transitions[holding[0]];
                Value fresh = 0;
                bool any = false;
                for (const std::vector<Value>* vs : std::initializer_list<const std::vector<Value>*>{&ki, &kd, &params})
                    for (Value v : *vs) {
                        fresh = any ? std::max(fresh, v) : v;
                        any = true;
                    }
                std::vector<Value> outs;
                for (const auto& arg : t.output_args) {
                    if (arg.fresh) {
                        fresh = internal::fresh_after(any ? std::optional<Value>(fresh) : std::nullopt);
                        any = true;
                        outs.push_back(fresh);
                    } else {
                        outs.push_back(term_value(ra, arg.term, params, regs));
                        fresh = any ? std::max(fresh, outs.back()) : outs.back();
                        any = true;
                    }
                }
                std::vector<Value> next;
                std::vector<DataType> next_types;
                for (std::size_t r = 0; r < t.assign.size(); ++r) {
                    next.push_back(term_value(ra, t.assign[r], params, regs, outs));
                    next_types.push_back(ra.locations[t.target].registers[r].type);
                }
                if (seen.insert({t.target, order_type_key(next_types, next, anchors_int, anchors_id, window)}).second) {
                    budget.check_states(seen.size());
                    queue.emplace_back(t.target, std::move(next));
                }
            });
        }
    }
    return queue.size();
}

namespace {

/// The transition of `l` on `input` whose guard holds (a valid automaton has exactly one).
const Transition& holding_transition(const RegisterAutomaton& ra, const Location& l, std::size_t input,
                                     const std::vector<Value>& params, const std::vector<Value>& regs) {
    for (const auto& t : l.transitions)
        if (t.input == input && evaluate(ra, t.guard, params, regs)) return t;
    throw Error("register automaton '" + ra.name + "': no guard of " + ra.inputs.at(input).name +
                " holds in location " + l.name);
}

bool has_fresh_output(const RegisterAutomaton& ra) {
    for (const auto& l : ra.locations)
        for (const auto& t : l.transitions)
            for (const auto& arg : t.output_args)
                if (arg.fresh) return true;
    return false;
}

}  // namespace

RegisterAutomaton renumbered_like(const RegisterAutomaton& reference, const RegisterAutomaton& b) {
    RegisterAutomaton out = b;
    out.inputs = reference.inputs;
    out.outputs = reference.outputs;
    for (auto& l : out.locations)
        for (auto& t : l.transitions) {
            const auto in = reference.input_index(b.inputs.at(t.input).name);
            const auto o = reference.output_index(b.outputs.at(t.output).name);
            if (!in || !o)
                throw Error("register automaton '" + spec::detail::printable(b.name) + "': symbol " +
                            spec::detail::printable(in ? b.outputs[t.output].name : b.inputs[t.input].name) +
                            " is not declared by '" + spec::detail::printable(reference.name) + "'");
            t.input = *in;
            t.output = *o;
        }
    return out;
}

ProductDifference product_difference(const RegisterAutomaton& a, const RegisterAutomaton& b, std::size_t max_depth,
                                     const std::function<bool(const DataWord&)>& confirm, const RaLimits& limits) {
    ProductDifference result;
    std::vector<Value> anchors_int = anchors(a, DataType::Int), anchors_id = anchors(a, DataType::Id);
    for (Value v : anchors(b, DataType::Int)) anchors_int.push_back(v);
    for (Value v : anchors(b, DataType::Id)) anchors_id.push_back(v);
    for (auto* v : {&anchors_int, &anchors_id}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
    }
    // b's fresh values decide future comparisons only through the largest value seen (RaSimulator)
    const bool track_max = has_fresh_output(b);
    const Value window = std::max(offset_window(a), offset_window(b));
    struct Node {
        std::size_t la = 0, lb = 0;
        std::vector<Value> ra, rb;
        std::optional<Value> max_seen;
        DataWord word;
    };
    auto key_of = [&](const Node& n) {
        std::vector<DataType> types;
        std::vector<Value> values;
        for (std::size_t r = 0; r < n.ra.size(); ++r) {
            types.push_back(a.locations[n.la].registers[r].type);
            values.push_back(n.ra[r]);
        }
        for (std::size_t r = 0; r < n.rb.size(); ++r) {
            types.push_back(b.locations[n.lb].registers[r].type);
            values.push_back(n.rb[r]);
        }
        if (track_max && n.max_seen)
            for (DataType t : {DataType::Int, DataType::Id}) {
                types.push_back(t);
                values.push_back(*n.max_seen);
            }
        return std::to_string(n.la) + ":" + std::to_string(n.lb) + ":" +
               order_type_key(types, values, anchors_int, anchors_id, window);
    };
    Node start;
    start.la = a.initial;
    start.lb = b.initial;
    for (const auto& c : b.constants) start.max_seen = std::max(start.max_seen.value_or(c.value), c.value);
    std::set<std::string> seen{key_of(start)};
    result.pairs.emplace_back(start.la, start.lb);
    ClassBudget budget(b, limits);
    std::vector<Node> level{start};
    for (std::size_t depth = 0; depth < max_depth && !level.empty(); ++depth) {
        std::vector<Node> next_level;
        for (const Node& n : level) {
            const Location& la = a.locations[n.la];
            const Location& lb = b.locations[n.lb];
            std::vector<Value> ki = anchors_int, kd = anchors_id;
            for (std::size_t r = 0; r < n.ra.size(); ++r) (la.registers[r].type == DataType::Int ? ki : kd).push_back(n.ra[r]);
            for (std::size_t r = 0; r < n.rb.size(); ++r) (lb.registers[r].type == DataType::Int ? ki : kd).push_back(n.rb[r]);
            for (std::size_t in = 0; in < a.inputs.size(); ++in) {
                std::vector<DataType> types;
                for (const auto& p : a.inputs[in].params) types.push_back(p.type);
                std::vector<bool> relevant(types.size(), false);
                const std::size_t atoms = mark_relevant(la, in, relevant) + mark_relevant(lb, in, relevant);
                std::vector<Value> current;
                enumerate_classes(types, relevant, ki, kd, current, budget, atoms, window, [&](const std::vector<Value>& params) {
                    if (result.inputs) return;
                    const Transition& ta = holding_transition(a, la, in, params, n.ra);
                    const Transition& tb = holding_transition(b, lb, in, params, n.rb);
                    Node m;
                    m.la = ta.target;
                    m.lb = tb.target;
                    m.max_seen = n.max_seen;
                    for (Value v : params) m.max_seen = std::max(m.max_seen.value_or(v), v);
                    m.word = n.word;
                    m.word.push_back(DataSymbol{in, params});
                    bool differs = ta.output != tb.output || ta.output_args.size() != tb.output_args.size();
                    std::vector<Value> outs_a, outs_b;
                    for (std::size_t i = 0; !differs && i < ta.output_args.size(); ++i) {
                        const OutputArg &oa = ta.output_args[i], &ob = tb.output_args[i];
                        if (oa.fresh && ob.fresh) {
                            const Value v = internal::fresh_after(m.max_seen);
                            m.max_seen = v;
                            outs_a.push_back(v);
                            outs_b.push_back(v);
                        } else if (oa.fresh || ob.fresh) {
                            differs = true;
                        } else {
                            outs_a.push_back(term_value(a, oa.term, params, n.ra));
                            outs_b.push_back(term_value(b, ob.term, params, n.rb));
                            differs = outs_a.back() != outs_b.back();
                            m.max_seen = std::max(m.max_seen.value_or(outs_b.back()), outs_b.back());
                        }
                    }
                    if (differs) {
                        if (confirm(m.word)) result.inputs = m.word;
                        else result.inconclusive = true;
                        return;
                    }
                    for (const auto& term : ta.assign) m.ra.push_back(term_value(a, term, params, n.ra, outs_a));
                    for (const auto& term : tb.assign) {
                        m.rb.push_back(term_value(b, term, params, n.rb, outs_b));
                        m.max_seen = std::max(m.max_seen.value_or(m.rb.back()), m.rb.back());
                    }
                    if (seen.insert(key_of(m)).second) {
                        budget.check_states(seen.size());
                        result.pairs.emplace_back(m.la, m.lb);
                        next_level.push_back(std::move(m));
                    }
                });
                if (result.inputs) {
                    result.states = seen.size();
                    return result;
                }
            }
        }
        level = std::move(next_level);
    }
    result.states = seen.size();
    return result;
}

std::vector<std::optional<std::size_t>> pair_locations(const RegisterAutomaton& stored,
                                                       const RegisterAutomaton& proposal, const RaLimits& limits) {
    std::vector<std::optional<std::size_t>> out(proposal.locations.size());
    if (stored.inputs != proposal.inputs || stored.outputs != proposal.outputs) return out;  // no common words
    // The search ends when no new product state is found (finitely many: locations and order types,
    // bounded by `limits`); the depth only bounds the words' length.
    const std::size_t depth = 4096;
    const ProductDifference product =
        product_difference(stored, proposal, depth, [](const DataWord&) { return false; }, limits);
    for (const auto& [s, p] : product.pairs)
        if (!out.at(p)) out[p] = s;
    return out;
}

}  // namespace typestar::ra
