// The values a word makes relevant and the inputs one step may take, one per data class: what the
// suite and the learner's equivalence search share. Private to src/ra.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "typestar/ra/automaton.hpp"
#include "typestar/ra/oracle.hpp"

namespace typestar::ra::internal {

/// Appends the constants of `spec` and then the values of `word` and its answer `out` to `ints` or
/// `ids` by their declared type, and sets `all` to `ints` followed by `ids`. With the `+c` theory
/// (offset_window(spec) > 0) every `int` value x is followed by x + d for each d in the window.
inline void word_values(const RegisterAutomaton& spec, const DataWord& word, const DataWord& out, std::vector<Value>& ints,
                 std::vector<Value>& ids, std::vector<Value>& all) {
    for (const auto& c : spec.constants) {
        ints.push_back(c.value);
        ids.push_back(c.value);
    }
    for (std::size_t i = 0; i < word.size(); ++i) {
        const auto& id = spec.inputs[word[i].symbol];
        for (std::size_t k = 0; k < word[i].values.size(); ++k)
            (id.params[k].type == DataType::Int ? ints : ids).push_back(word[i].values[k]);
        const auto& od = spec.outputs[out[i].symbol];
        for (std::size_t k = 0; k < out[i].values.size(); ++k)
            (od.params[k].type == DataType::Int ? ints : ids).push_back(out[i].values[k]);
    }
    if (const Value window = offset_window(spec); window > 0) {
        std::vector<Value> shifted;
        for (Value v : ints)
            for (Value d = -window; d <= window; ++d) shifted.push_back(v + d);
        ints = std::move(shifted);
    }
    all = ints;
    all.insert(all.end(), ids.begin(), ids.end());
}

/// True when the guards of `spec` order data: an atom with <, <=, > or >=, or a `+c` term or
/// increment (offset_window > 0). When false, `int` data are compared only for equality, as `id`.
inline bool orders_data(const RegisterAutomaton& spec) {
    if (offset_window(spec) > 0) return true;
    for (const auto& l : spec.locations)
        for (const auto& t : l.transitions)
            for (const auto& conjunction : t.guard.disjuncts)
                for (const auto& atom : conjunction)
                    if (atom.op != Op::Eq && atom.op != Op::Ne) return true;
    return false;
}

/// class_candidates of `type`, by equality only for `int` unless `ordered`: each relevant value,
/// then one fresh value — for `int` the one class_candidates takes above every value (kept apart from
/// them as in the ordered classes, so `x + 1` is never hit by chance).
inline std::vector<Value> typed_candidates(DataType type, bool ordered, const std::vector<Value>& relevant,
                                           const std::vector<Value>& avoid) {
    if (ordered || type == DataType::Id) return class_candidates(type, relevant, avoid);
    std::vector<Value> out;
    for (Value v : relevant)
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    std::vector<Value> taken = avoid;
    taken.insert(taken.end(), relevant.begin(), relevant.end());
    for (Value v : class_candidates(DataType::Int, {}, taken))
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    return out;
}

/// class_candidates for parameter `k` of `decl`, whose earlier parameters are `chosen`: relative to
/// the word's values of its type (`ints` or `ids`) and the earlier parameters of that type,
/// avoiding `all` and every earlier parameter; `int` classes by equality only unless `ordered`.
inline std::vector<Value> parameter_candidates(const SymbolDecl& decl, std::size_t k, const std::vector<Value>& chosen,
                                               const std::vector<Value>& ints, const std::vector<Value>& ids,
                                               const std::vector<Value>& all, bool ordered = true) {
    std::vector<Value> rel = decl.params[k].type == DataType::Int ? ints : ids, av = all;
    for (std::size_t q = 0; q < k; ++q) {
        if (decl.params[q].type == decl.params[k].type) rel.push_back(chosen[q]);
        av.push_back(chosen[q]);
    }
    return typed_candidates(decl.params[k].type, ordered, rel, av);
}

/// Calls `visit` with every input of `spec` (in declaration order) with every class of parameter
/// values (in parameter_candidates order, `ordered` passed on), and stops as soon as `stop()` is true.
inline void for_each_input_class(const RegisterAutomaton& spec, const std::vector<Value>& ints,
                                 const std::vector<Value>& ids, const std::vector<Value>& all,
                                 const std::function<bool()>& stop, const std::function<void(const DataSymbol&)>& visit,
                                 bool ordered = true) {
    for (std::size_t a = 0; a < spec.inputs.size() && !stop(); ++a) {
        const auto& decl = spec.inputs[a];
        DataSymbol in{a, {}};
        std::function<void(std::size_t)> param = [&](std::size_t k) {
            if (stop()) return;
            if (k == decl.params.size()) {
                visit(in);
                return;
            }
            for (Value v : parameter_candidates(decl, k, in.values, ints, ids, all, ordered)) {
                in.values.push_back(v);
                param(k + 1);
                in.values.pop_back();
                if (stop()) return;
            }
        };
        param(0);
    }
}

}  // namespace typestar::ra::internal
