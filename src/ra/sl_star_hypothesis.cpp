// SL*'s hypothesis: a register automaton built from a closed table, one location per prefix, one
// transition per uncovered data class (merged where target, output and assignment agree).
#include "sl_star.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace typestar::ra::sl_star {

void Table::merge_intervals(std::vector<Transition>& trs, const std::vector<std::vector<std::size_t>>& members,
                            const std::vector<std::vector<Atom>>& class_guard, const std::vector<Successor>& succs) const {
    for (std::size_t t = 0; t < trs.size(); ++t) {
        const auto& decl = sig_.inputs[trs[t].input];
        if (members[t].size() < 2 || decl.params.size() != 1 || decl.params[0].type != DataType::Int) continue;
        std::vector<std::size_t> order;  // the input's classes, in increasing order of the parameter
        for (std::size_t si = 0; si < succs.size(); ++si)
            if (succs[si].input.symbol == trs[t].input) order.push_back(si);
        std::vector<std::size_t> at;
        for (std::size_t si : members[t])
            at.push_back(static_cast<std::size_t>(std::find(order.begin(), order.end(), si) - order.begin()));
        std::sort(at.begin(), at.end());
        if (at.back() - at.front() + 1 != at.size()) continue;  // not contiguous: keep the disjunction
        std::vector<Atom> conj;
        for (const Atom& a : class_guard[order[at.front()]]) {
            if (a.op == Op::Eq) conj.push_back({a.left, Op::Ge, a.right});
            if (a.op == Op::Gt) conj.push_back(a);
        }
        for (const Atom& a : class_guard[order[at.back()]]) {
            if (a.op == Op::Eq) conj.push_back({a.left, Op::Le, a.right});
            if (a.op == Op::Lt) conj.push_back(a);
        }
        trs[t].guard = conj.empty() ? Guard{} : Guard{{conj}};
    }
}

namespace {

/// Adds `tr` to the location's transitions, or merges it into an equal one (same input, output,
/// target and assignment) whose guard then takes class `si` too.
void add_or_merge(std::vector<Transition>& trs, std::vector<std::vector<std::size_t>>& members, Transition tr,
                  std::size_t si) {
    auto same = std::find_if(trs.begin(), trs.end(), [&](const Transition& x) {
        return x.input == tr.input && x.output == tr.output && x.output_args == tr.output_args &&
               x.target == tr.target && x.assign == tr.assign;
    });
    if (same != trs.end()) {
        if (!same->guard.is_true() && !tr.guard.is_true())
            same->guard.disjuncts.push_back(tr.guard.disjuncts.front());
        else same->guard = Guard{};
        members[static_cast<std::size_t>(same - trs.begin())].push_back(si);
    } else {
        trs.push_back(std::move(tr));
        members.push_back({si});
    }
}

/// `h` with its locations renamed in breadth-first order from the initial location, so equal
/// machines read equal.
RegisterAutomaton in_breadth_first_order(const RegisterAutomaton& h) {
    std::vector<std::size_t> order{h.initial}, pos(h.locations.size(), SIZE_MAX);
    pos[h.initial] = 0;
    for (std::size_t head = 0; head < order.size(); ++head)
        for (const auto& t : h.locations[order[head]].transitions)
            if (pos[t.target] == SIZE_MAX) {
                pos[t.target] = order.size();
                order.push_back(t.target);
            }
    for (std::size_t i = 0; i < h.locations.size(); ++i)
        if (pos[i] == SIZE_MAX) {
            pos[i] = order.size();
            order.push_back(i);
        }
    RegisterAutomaton renamed = h;
    for (std::size_t i = 0; i < order.size(); ++i) {
        renamed.locations[i] = h.locations[order[i]];
        renamed.locations[i].name = "l" + std::to_string(i);
        for (auto& t : renamed.locations[i].transitions) t.target = pos[t.target];
    }
    renamed.initial = 0;
    return renamed;
}

}  // namespace

RegisterAutomaton Table::hypothesis() {
    RegisterAutomaton h;
    h.name = sig_.name;
    h.inputs = sig_.inputs;
    h.outputs = sig_.outputs;
    h.constants = sig_.constants;
    h.increments = sig_.increments;
    // one location per prefix of S, its registers the row's memorable values
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < S_.size(); ++i) {
        const Row& r = row(S_[i]);
        index.emplace(r.signature, i);
        Location l;
        l.name = "l" + std::to_string(i);
        for (std::size_t m = 0; m < r.memorable.size(); ++m)
            l.registers.push_back({"r" + std::to_string(m + 1), r.memorable[m].type});
        h.locations.push_back(std::move(l));
    }
    for (std::size_t i = 0; i < S_.size(); ++i) {
        const Row s = row(S_[i]);
        h.locations[i].transitions = transitions_of(s, index);
    }
    return in_breadth_first_order(h);
}

std::vector<Transition> Table::transitions_of(const Row& s, const std::map<std::string, std::size_t>& index) {
    std::vector<Transition> trs;
    std::vector<std::vector<std::size_t>> members;  // per transition: the classes it takes (succs indices)
    std::vector<std::vector<Atom>> class_guard;      // per class: its own conjunction
    const auto succs = successors(s);
    class_guard.resize(succs.size());
    const auto cover = covers(s, succs);
    for (std::size_t si = 0; si < succs.size(); ++si) {
        const Successor& succ = succs[si];
        // a class covered by a sibling class takes the sibling's transition, with its own
        // guard; with symbolic trees the sibling's guard already includes it (in guard_of)
        const auto sibling = cover[si];
        if (sdt_mode_ && sibling) continue;
        const Successor& basis = sibling ? succs[*sibling] : succ;
        const Row& t = row(basis.word);
        const auto& decl = sig_.inputs[succ.input.symbol];
        Transition tr;
        tr.input = succ.input.symbol;
        tr.target = index.at(t.signature);
        class_guard[si] = guard_of(s, succs, cover, si);
        tr.guard = Guard{{class_guard[si]}};
        const DataSymbol& out = t.outputs.back();
        tr.output = out.symbol;
        tr.output_args = output_args_of(s, decl, basis.input, out);
        tr.assign = assignments_of(s, decl, basis.input, out, t);
        add_or_merge(trs, members, std::move(tr), si);
    }
    if (ordered_trees_ && interval_guards_) merge_intervals(trs, members, class_guard, succs);
    // a single transition for an input covers every class: its guard is true
    for (auto& tr : trs) {
        const auto n = std::count_if(trs.begin(), trs.end(), [&](const Transition& x) { return x.input == tr.input; });
        if (n == 1) tr.guard = Guard{};
    }
    return trs;
}

void Table::add_shifted(GuardEnv& env, std::size_t from) const {
    const std::size_t n = env.size();
    for (Value c : increments_)
        for (std::size_t e = from; e < n; ++e)
            if (env[e].second.type == DataType::Int)
                if (const auto r = internal::plus(env[e].second.value, c)) {
                    Term shifted = env[e].first;
                    shifted.offset = c;
                    env.push_back({shifted, TV{DataType::Int, *r}});
                }
}

std::vector<Atom> Table::guard_of(const Row& s, const std::vector<Successor>& succs,
                                  const std::vector<std::optional<std::size_t>>& cover, std::size_t si) const {
    const Successor& succ = succs[si];
    const auto& decl = sig_.inputs[succ.input.symbol];
    // the class of each parameter relative to registers, constants, earlier parameters
    GuardEnv env;
    for (std::size_t m = 0; m < s.memorable.size(); ++m) env.push_back({Term{Term::Kind::Register, m}, s.memorable[m]});
    for (std::size_t c = 0; c < constants_.size(); ++c) env.push_back({Term{Term::Kind::Constant, c}, constants_[c]});
    add_shifted(env, 0);
    std::vector<Atom> conj;
    for (std::size_t k = 0; k < decl.params.size(); ++k) {
        const TV v{decl.params[k].type, succ.input.values[k]};
        const Term p{Term::Kind::Param, k};
        auto eq = std::find_if(env.begin(), env.end(), [&](const auto& x) { return x.second == v; });
        if (sdt_mode_) {
            // SL*'s guards: only the equalities some uncovered class with the same
            // earlier parameters keeps are tested; the else class excludes them, an
            // equality excludes the kept ones before it (first match: registers may
            // hold equal values, guards stay disjoint and complete)
            std::vector<std::size_t> kept;  // positions in env
            for (std::size_t sj = 0; sj < succs.size(); ++sj) {
                const auto& o = succs[sj].input;
                if (cover[sj] || o.symbol != succ.input.symbol ||
                    !std::equal(o.values.begin(), o.values.begin() + static_cast<std::ptrdiff_t>(k), succ.input.values.begin()))
                    continue;
                const TV w{v.type, o.values[k]};
                auto at = std::find_if(env.begin(), env.end(), [&](const auto& x) { return x.second == w; });
                const auto pos = static_cast<std::size_t>(at - env.begin());
                if (at != env.end() && std::find(kept.begin(), kept.end(), pos) == kept.end()) kept.push_back(pos);
            }
            std::sort(kept.begin(), kept.end());
            const auto mine = static_cast<std::size_t>(eq - env.begin());
            for (std::size_t pos : kept)
                if (eq == env.end() || pos < mine) conj.push_back({p, Op::Ne, env[pos].first});
            if (eq != env.end()) conj.push_back({p, Op::Eq, eq->first});
        } else if (eq != env.end()) {
            conj.push_back({p, Op::Eq, eq->first});
        } else if (v.type == DataType::Id) {
            for (const auto& [term, x] : env)
                if (x.type == DataType::Id) conj.push_back({p, Op::Ne, term});
        } else {
            const std::pair<Term, TV>* lo = nullptr;
            const std::pair<Term, TV>* hi = nullptr;
            for (const auto& x : env) {
                if (x.second.type != DataType::Int) continue;
                if (x.second.value < v.value && (!lo || x.second.value > lo->second.value)) lo = &x;
                if (x.second.value > v.value && (!hi || x.second.value < hi->second.value)) hi = &x;
            }
            if (lo) conj.push_back({p, Op::Gt, lo->first});
            if (hi) conj.push_back({p, Op::Lt, hi->first});
        }
        const std::size_t at = env.size();
        env.push_back({p, v});
        add_shifted(env, at);
    }
    return conj;
}

std::vector<OutputArg> Table::output_args_of(const Row& s, const SymbolDecl& decl, const DataSymbol& basis,
                                             const DataSymbol& out) const {
    std::vector<OutputArg> args;
    const auto& od = sig_.outputs[out.symbol];
    for (std::size_t k = 0; k < out.values.size(); ++k) {
        const TV v{od.params[k].type, out.values[k]};
        std::optional<Term> term;
        // registers first, so classes that differ only in equalities merge
        for (std::size_t m = 0; m < s.memorable.size() && !term; ++m)
            if (s.memorable[m] == v) term = Term{Term::Kind::Register, m};
        for (std::size_t q = 0; q < decl.params.size() && !term; ++q)
            if (TV{decl.params[q].type, basis.values[q]} == v) term = Term{Term::Kind::Param, q};
        for (std::size_t c = 0; c < constants_.size() && !term; ++c)
            if (constants_[c] == v) term = Term{Term::Kind::Constant, c};
        // SL*'s +c: a register, parameter or constant plus an increment
        for (Value inc : increments_) {
            if (term || v.type != DataType::Int) break;
            for (std::size_t m = 0; m < s.memorable.size() && !term; ++m)
                if (s.memorable[m].type == DataType::Int && internal::plus(s.memorable[m].value, inc) == v.value)
                    term = Term{Term::Kind::Register, m, 0, inc};
            for (std::size_t q = 0; q < decl.params.size() && !term; ++q)
                if (decl.params[q].type == DataType::Int && basis.values[q] + inc == v.value)
                    term = Term{Term::Kind::Param, q, 0, inc};
            for (std::size_t c = 0; c < constants_.size() && !term; ++c)
                if (constants_[c].type == DataType::Int && internal::plus(constants_[c].value, inc) == v.value)
                    term = Term{Term::Kind::Constant, c, 0, inc};
        }
        args.push_back(term ? OutputArg{false, *term} : OutputArg{true, {}});
    }
    return args;
}

std::vector<Term> Table::assignments_of(const Row& s, const SymbolDecl& decl, const DataSymbol& basis,
                                        const DataSymbol& out, const Row& t) const {
    std::vector<Term> assign;
    const auto& od = sig_.outputs[out.symbol];
    for (const auto& m : t.memorable) {
        std::optional<Term> term;
        for (std::size_t r = 0; r < s.memorable.size() && !term; ++r)
            if (s.memorable[r] == m) term = Term{Term::Kind::Register, r};
        for (std::size_t q = 0; q < decl.params.size() && !term; ++q)
            if (TV{decl.params[q].type, basis.values[q]} == m) term = Term{Term::Kind::Param, q};
        for (std::size_t k = 0; k < out.values.size() && !term; ++k)
            if (TV{od.params[k].type, out.values[k]} == m) term = Term{Term::Kind::OutputParam, k};
        assign.push_back(term.value_or(Term{Term::Kind::Literal, 0, 0}));
    }
    return assign;
}

}  // namespace typestar::ra::sl_star
