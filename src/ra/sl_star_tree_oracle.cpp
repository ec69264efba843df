// SL*'s tree oracle: concrete tree queries (one run per data class of a suffix's parameters) and
// symbolic decision trees with merged equality branches and interval guards, as canonical text
// for comparing rows and as readable text for people.
#include "sl_star.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace typestar::ra::sl_star {

std::vector<std::pair<DataWord, DataWord>> Table::leaves(const DataWord& prefix, const std::vector<std::size_t>& symbols) {
    const Suffix suffix = all_free(sig_, symbols);
    const auto vals = word_values(sig_, prefix, oracle_.query(prefix));
    std::vector<TV> relevant;
    for (const auto& v : vals)
        if (std::find(relevant.begin(), relevant.end(), v) == relevant.end()) relevant.push_back(v);
    std::vector<std::pair<DataWord, DataWord>> out;
    enumerate(prefix, suffix, relevant, [&](const DataWord& in, const DataWord& o) { out.emplace_back(in, o); });
    return out;
}

void Table::enumerate(const DataWord& prefix, const Suffix& suffix, const std::vector<TV>& relevant,
                      const std::function<void(const DataWord&, const DataWord&)>& visit) {
    oracle_.count_tree_query();
    check_budget();
    const DataWord prefix_out = oracle_.query(prefix);
    std::vector<TV> avoid = word_values(sig_, prefix, prefix_out);
    DataWord suf_in, suf_out;
    std::function<void(std::size_t)> step = [&](std::size_t j) {
        if (j == suffix.size()) {
            visit(suf_in, suf_out);
            return;
        }
        const SymbolDecl& decl = sig_.inputs[suffix[j]];
        DataSymbol in{suffix[j], {}};
        std::function<void(std::size_t)> param = [&](std::size_t k) {
            if (k == decl.params.size()) {
                DataWord word = prefix;
                word.insert(word.end(), suf_in.begin(), suf_in.end());
                word.push_back(in);
                check_budget();
                const DataWord out = oracle_.query(word);
                suf_in.push_back(in);
                suf_out.push_back(out.back());
                step(j + 1);
                suf_in.pop_back();
                suf_out.pop_back();
                return;
            }
            const DataType type = decl.params[k].type;
            std::vector<TV> rel;
            if (is_free(suffix, j, k)) rel = relevant;
            rel.insert(rel.end(), constants_.begin(), constants_.end());
            const auto suffix_vals = word_values(sig_, suf_in, suf_out);
            rel.insert(rel.end(), suffix_vals.begin(), suffix_vals.end());
            std::vector<TV> av = avoid;
            av.insert(av.end(), suffix_vals.begin(), suffix_vals.end());
            for (std::size_t q = 0; q < k; ++q) {
                rel.push_back({decl.params[q].type, in.values[q]});
                av.push_back({decl.params[q].type, in.values[q]});
            }
            for (Value v : candidates(type, raw(rel, type), raw_all(av))) {
                in.values.push_back(v);
                param(k + 1);
                in.values.pop_back();
            }
        };
        param(0);
    };
    step(0);
}

std::string Table::tok_text(TermTok t, const Subst& subst) {
    if (auto it = subst.find(t); it != subst.end()) t = it->second;
    return t.first + std::to_string(t.second);
}

std::string Table::interval_text(const Interval& g, const Subst& subst) {
    return std::string(g.lo_in ? "[" : "(") + (g.lo.first == '-' ? "-" : tok_text(g.lo, subst)) + "," +
           (g.hi.first == '-' ? "-" : tok_text(g.hi, subst)) + (g.hi_in ? "]" : ")");
}

std::string Table::text(const Sdt& n, const Subst& subst) {
    if (n.branch && !n.iv.empty()) {
        std::string s = "<";
        for (std::size_t i = 0; i < n.iv.size(); ++i) s += interval_text(n.iv[i], subst) + ":" + text(n.kids[i], subst) + ";";
        return s + ">";
    }
    if (n.branch) {
        std::vector<std::string> parts;
        for (std::size_t i = 0; i < n.eq.size(); ++i) parts.push_back(tok_text(n.eq[i], subst) + ":" + text(n.kids[i], subst));
        std::sort(parts.begin(), parts.end());
        std::string s = "{";
        for (const auto& p : parts) s += "=" + p + ";";
        return s + "*:" + text(n.kids.back(), subst) + "}";
    }
    if (n.kids.empty()) return ".";
    std::string s = "(";
    for (const auto& t : n.out) s += tok_text(t, subst) + ",";
    return s + ")" + text(n.kids[0], subst);
}

void Table::used_terms(const Sdt& n, std::set<TermTok>& used) {
    for (const auto& t : n.out) used.insert(t);
    for (const auto& t : n.eq) used.insert(t);
    for (const auto& g : n.iv) {
        used.insert(g.lo);
        used.insert(g.hi);
    }
    for (const auto& k : n.kids) used_terms(k, used);
}

const Table::Sdt& Table::sdt(const DataWord& prefix, const Suffix& suffix) {
    auto key = std::make_pair(prefix, suffix);
    if (auto it = sdts_.find(key); it != sdts_.end()) return it->second;
    oracle_.count_tree_query();
    check_budget();
    const DataWord prefix_out = oracle_.query(prefix);
    std::vector<std::pair<TermTok, TV>> env;
    for (std::size_t c = 0; c < constants_.size(); ++c) env.push_back({{'c', static_cast<long>(c)}, constants_[c]});
    for (const auto& v : word_values(sig_, prefix, prefix_out)) env.push_back({value_token(v), v});
    auto resolve = [&](const TV& v) -> TermTok {
        for (const auto& [tok, x] : env)
            if (x == v) return tok;
        return {'n', 0};
    };
    DataWord word = prefix;
    long out_pos = 0;
    std::function<Sdt(std::size_t, std::size_t, DataSymbol&)> go = [&](std::size_t j, std::size_t k, DataSymbol& in) -> Sdt {
        if (j == suffix.size()) return Sdt{};
        const SymbolDecl& decl = sig_.inputs[suffix[j]];
        if (k == decl.params.size()) {
            word.push_back(in);
            check_budget();
            const DataSymbol o = oracle_.query(word).back();
            Sdt node;
            node.out.push_back({'#', static_cast<long>(o.symbol)});
            const auto& od = sig_.outputs[o.symbol];
            for (std::size_t q = 0; q < o.values.size(); ++q) node.out.push_back(resolve({od.params[q].type, o.values[q]}));
            const std::size_t mark = env.size();
            for (std::size_t q = 0; q < o.values.size(); ++q) env.push_back({{'o', out_pos++}, {od.params[q].type, o.values[q]}});
            DataSymbol next{j + 1 < suffix.size() ? suffix[j + 1] : 0, {}};
            node.kids.push_back(go(j + 1, 0, next));
            env.resize(mark);
            out_pos -= static_cast<long>(o.values.size());
            word.pop_back();
            return node;
        }
        const DataType type = decl.params[k].type;
        const long g = static_cast<long>(param_index(suffix, j, k));
        const bool free = is_free(suffix, j, k);
        std::vector<std::pair<TermTok, Value>> potential;
        std::optional<Value> largest;
        for (const auto& [tok, x] : env) {
            largest = std::max(largest.value_or(x.value), x.value);
            if (x.type != type || ((tok.first == 'v' || tok.first == 'w') && !free)) continue;
            if (std::none_of(potential.begin(), potential.end(), [&](const auto& p) { return p.second == x.value; }) &&
                resolve(x) == tok)
                potential.push_back({tok, x.value});
        }
        Sdt node;
        node.branch = true;
        node.param = g;
        auto child = [&](Value v) {
            in.values.push_back(v);
            env.push_back({{'s', g}, {type, v}});
            Sdt c = go(j, k + 1, in);
            env.pop_back();
            in.values.pop_back();
            return c;
        };
        if (type == DataType::Int) return ordered_branch(std::move(node), potential, env, child);
        // a value equal to none of the environment's: the one after the largest (when int64 has it)
        Value fresh = 0;
        if (largest && *largest < internal::kMaxValue) {
            fresh = *largest + 1;
        } else if (largest) {
            std::set<Value> seen;
            for (const auto& [tok, x] : env) seen.insert(x.value);
            fresh = internal::unused_id(seen);
        }
        Sdt other = child(fresh);
        for (const auto& [tok, v] : potential) {
            Sdt c = child(v);
            // merged when it behaves like the else branch with this parameter read as `tok`
            if (text(c, {}) == text(other, Subst{{{'s', g}, tok}})) continue;
            node.eq.push_back(tok);
            node.kids.push_back(std::move(c));
        }
        node.kids.push_back(std::move(other));
        return node;
    };
    DataSymbol first{suffix.size() ? suffix[0] : 0, {}};
    Sdt tree = go(0, 0, first);
    return sdts_.emplace(std::move(key), std::move(tree)).first->second;
}

Table::Sdt Table::ordered_branch(Sdt node, std::vector<std::pair<TermTok, Value>> terms, const std::vector<std::pair<TermTok, TV>>& env,
                                 const std::function<Sdt(Value)>& child) const {
    std::stable_sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    std::vector<Value> rel, avoid;
    for (const auto& t : terms) rel.push_back(t.second);
    for (const auto& e : env) avoid.push_back(e.second.value);
    const TermTok me{'s', node.param};
    std::size_t next = 0;  // the first term not below the classes seen so far
    bool rep_interval = false;  // the current group's subtree: an interval's (names `me`), else an equality's
    TermTok rep_term{'-', 0};
    for (Value c : class_candidates(DataType::Int, rel, avoid)) {
        Interval g;
        const bool is_eq = next < terms.size() && terms[next].second == c;
        if (is_eq) {
            g = {terms[next].first, true, terms[next].first, true};
            ++next;
        } else {
            if (next > 0) g.lo = terms[next - 1].first;
            if (next < terms.size()) g.hi = terms[next].first;
        }
        Sdt kid = child(c);
        bool same = false;
        if (!node.kids.empty()) {
            const Sdt& rep = node.kids.back();
            if (rep_interval && !is_eq) same = text(kid, {}) == text(rep, {});
            else if (rep_interval) same = text(rep, Subst{{me, g.lo}}) == text(kid, {});
            else if (!is_eq) same = text(kid, Subst{{me, rep_term}}) == text(rep, {});
        }
        if (same) {
            node.iv.back().hi = g.hi;
            node.iv.back().hi_in = g.hi_in;
            if (!rep_interval && !is_eq) {
                node.kids.back() = std::move(kid);  // an interval's subtree stands for the group
                rep_interval = true;
            }
            continue;
        }
        node.iv.push_back(g);
        node.kids.push_back(std::move(kid));
        rep_interval = !is_eq;
        rep_term = g.lo;
    }
    return node;
}

std::string Table::readable(const Sdt& n, const Suffix& suffix, std::size_t depth) const {
    auto term = [&](const TermTok& t) -> std::string {
        switch (t.first) {
            case 'c': return sig_.constants[static_cast<std::size_t>(t.second)].name;
            case 'v':
            case 'w': return std::to_string(t.second);
            case 's': return "p" + std::to_string(t.second + 1);
            case 'o': return "o" + std::to_string(t.second + 1);
            case 'n': return "fresh";
            default: return "?";
        }
    };
    const std::string pad(depth * 2, ' ');
    if (n.branch && !n.iv.empty()) {
        std::string s;
        const std::string p = "p" + std::to_string(n.param + 1);
        for (std::size_t i = 0; i < n.iv.size(); ++i) {
            const Interval& g = n.iv[i];
            std::string guard;
            if (g.lo.first != '-' && g.lo == g.hi && g.lo_in && g.hi_in) {
                guard = p + " == " + term(g.lo);
            } else {
                if (g.lo.first != '-') guard = term(g.lo) + (g.lo_in ? " <= " : " < ") + p;
                if (g.hi.first != '-') guard = (guard.empty() ? p : guard) + (g.hi_in ? " <= " : " < ") + term(g.hi);
            }
            s += pad + "[" + (guard.empty() ? "true" : guard) + "]\n" + readable(n.kids[i], suffix, depth + 1);
        }
        return s;
    }
    if (n.branch) {
        std::string s;
        const std::string p = "p" + std::to_string(n.param + 1);
        for (std::size_t i = 0; i < n.eq.size(); ++i)
            s += pad + "[" + p + " == " + term(n.eq[i]) + "]\n" + readable(n.kids[i], suffix, depth + 1);
        std::string guard;
        for (const auto& t : n.eq) guard += (guard.empty() ? "" : " && ") + p + " != " + term(t);
        s += pad + "[" + (guard.empty() ? "true" : guard) + "]\n" + readable(n.kids.back(), suffix, depth + 1);
        return s;
    }
    if (n.kids.empty()) return "";
    std::string s = pad + sig_.outputs[static_cast<std::size_t>(n.out[0].second)].name;
    if (n.out.size() > 1) {
        s += "(";
        for (std::size_t i = 1; i < n.out.size(); ++i) s += (i > 1 ? "," : "") + term(n.out[i]);
        s += ")";
    }
    return s + "\n" + readable(n.kids[0], suffix, depth + 1);
}

}  // namespace typestar::ra::sl_star
