// SL*'s table: rows (a prefix's registers and its signature up to register renaming), the
// successors of a row per data class, equality classes covered by a sibling class, and closing the
// table (closedness and register consistency).
#include "sl_star.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace typestar::ra::sl_star {

std::pair<std::string, std::vector<std::size_t>> Table::least_signature(
    std::size_t ids, const std::function<std::string(const std::vector<std::size_t>&)>& signature) const {
    std::vector<std::size_t> perm(ids);
    std::iota(perm.begin(), perm.end(), 0);
    std::string best;
    std::vector<std::size_t> best_perm = perm;
    bool first = true;
    do {
        std::string sig = signature(perm);
        if (first || sig < best) {
            best = std::move(sig);
            best_perm = perm;
            first = false;
        }
        if (ids > config_.max_permuted) break;
    } while (std::next_permutation(perm.begin(), perm.end()));
    return {std::move(best), std::move(best_perm)};
}

const Row& Table::row(const DataWord& prefix) {
    if (auto it = rows_.find(prefix); it != rows_.end()) return it->second;
    Row r;
    r.prefix = prefix;
    r.outputs = oracle_.query(prefix);
    if (trees()) {
        // SL*: the registers are the prefix values the trees name; the row is its trees up to
        // a renaming of the registers (the least text over the renamings tried): `int` values
        // by rank (an order-preserving renaming), `id` values by every permutation
        std::vector<TV> ints, ids;
        for (const auto& v : memorable_sdt(prefix, r.outputs)) (v.type == DataType::Int ? ints : ids).push_back(v);
        std::sort(ints.begin(), ints.end());
        auto [best, best_perm] = least_signature(ids.size(), [&](const std::vector<std::size_t>& perm) {
            Subst subst;
            for (std::size_t i = 0; i < ints.size(); ++i) subst[value_token(ints[i])] = {'R', static_cast<long>(i)};
            for (std::size_t i = 0; i < ids.size(); ++i) subst[value_token(ids[i])] = {'r', static_cast<long>(perm[i])};
            std::string sig = std::to_string(ints.size()) + "/" + std::to_string(ids.size()) + ":";
            for (const auto& e : E_) sig += text(sdt(prefix, e), subst) + "|";
            return sig;
        });
        // the hypothesis's guards are built per data class of the access word's registers
        // relative to the constants: rows whose registers lie differently between the
        // constants are different rows, even when no tree names that order
        for (const auto& v : ints) {
            best += "|";
            for (const auto& c : constants_)
                if (c.type == DataType::Int) best += v.value < c.value ? '<' : v.value == c.value ? '=' : '>';
        }
        r.signature = best;
        r.memorable = ints;
        r.memorable.resize(ints.size() + ids.size(), TV{DataType::Id, 0});
        for (std::size_t i = 0; i < ids.size(); ++i) r.memorable[ints.size() + best_perm[i]] = ids[i];
        return rows_.emplace(prefix, std::move(r)).first->second;
    }
    std::vector<TV> mem = memorable(prefix, r.outputs);
    // base order: ints ascending, then ids in first-occurrence order
    std::vector<TV> ints, ids;
    for (const auto& v : mem) (v.type == DataType::Int ? ints : ids).push_back(v);
    std::sort(ints.begin(), ints.end());
    std::vector<TV> base = ints;
    base.insert(base.end(), ids.begin(), ids.end());
    std::vector<TV> non_mem;
    for (const auto& v : word_values(sig_, prefix, r.outputs))
        if (std::find(base.begin(), base.end(), v) == base.end()) non_mem.push_back(v);
    Env env;
    env.increments = increments_;
    for (std::size_t i = 0; i < base.size(); ++i) env.refs.push_back({kMem + static_cast<long>(i), base[i]});
    for (std::size_t c = 0; c < constants_.size(); ++c) env.refs.push_back({kConst + static_cast<long>(c), constants_[c]});
    std::vector<Tokens> entries;
    for (std::size_t ei = 0; ei < E_.size(); ++ei) {
        enumerate(prefix, E_[ei], base, [&](const DataWord& suf_in, const DataWord& suf_out) {
            Tokens t{static_cast<long>(ei)};
            path_tokens(env, suf_in, suf_out, t);
            t.push_back(-1);
            outcome_tokens(env, suf_in, suf_out, t, non_mem);
            entries.push_back(std::move(t));
        });
    }
    // canonical renaming of the ids: the least signature over the permutations tried
    const auto [best, best_perm] = least_signature(ids.size(), [&](const std::vector<std::size_t>& perm) {
        std::vector<Tokens> relabelled = entries;
        for (auto& t : relabelled)
            for (auto& tok : t)
                if (tok >= kMem + static_cast<long>(ints.size()) && tok < kMem + static_cast<long>(base.size()))
                    tok = kMem + static_cast<long>(ints.size() + perm[static_cast<std::size_t>(tok - kMem) - ints.size()]);
        std::sort(relabelled.begin(), relabelled.end());
        std::string sig = std::to_string(ints.size()) + "/" + std::to_string(ids.size()) + ":";
        for (const auto& t : relabelled) {
            for (long tok : t) sig += std::to_string(tok) + ",";
            sig += ";";
        }
        return sig;
    });
    r.signature = best;
    r.memorable = ints;
    r.memorable.resize(base.size(), TV{DataType::Id, 0});
    for (std::size_t i = 0; i < ids.size(); ++i) r.memorable[ints.size() + best_perm[i]] = ids[i];
    return rows_.emplace(prefix, std::move(r)).first->second;
}

std::vector<Table::Successor> Table::successors(const Row& s) {
    std::vector<Successor> out;
    const auto avoid = word_values(sig_, s.prefix, s.outputs);
    for (std::size_t a = 0; a < sig_.inputs.size(); ++a) {
        const auto& decl = sig_.inputs[a];
        DataSymbol in{a, {}};
        std::function<void(std::size_t)> param = [&](std::size_t k) {
            if (k == decl.params.size()) {
                DataWord w = s.prefix;
                w.push_back(in);
                out.push_back({in, w});
                return;
            }
            std::vector<TV> rel = s.memorable, av = avoid;
            rel.insert(rel.end(), constants_.begin(), constants_.end());
            for (std::size_t q = 0; q < k; ++q) {
                rel.push_back({decl.params[q].type, in.values[q]});
                av.push_back({decl.params[q].type, in.values[q]});
            }
            for (Value v : candidates(decl.params[k].type, raw(rel, decl.params[k].type), raw_all(av))) {
                in.values.push_back(v);
                param(k + 1);
                in.values.pop_back();
            }
        };
        param(0);
    }
    return out;
}

std::optional<std::size_t> Table::last_equal_parameter(const Row& s, const Successor& succ) const {
    const auto& decl = sig_.inputs[succ.input.symbol];
    std::optional<std::size_t> k_eq;
    for (std::size_t k = 0; k < decl.params.size(); ++k) {
        const TV x{decl.params[k].type, succ.input.values[k]};
        bool equal_earlier = false;
        for (std::size_t q = 0; q < k; ++q)
            if (decl.params[q].type == x.type && succ.input.values[q] == x.value) equal_earlier = true;
        // with symbolic trees a parameter equal to a constant may be covered too (stored like a fresh value)
        if (equal_earlier || std::find(s.memorable.begin(), s.memorable.end(), x) != s.memorable.end() ||
            (sdt_mode_ && std::find(constants_.begin(), constants_.end(), x) != constants_.end()))
            k_eq = k;
    }
    return k_eq;
}

std::optional<std::size_t> Table::covering_sibling(const Row& s, const std::vector<Successor>& succs, std::size_t si) {
    if (!covering_) return std::nullopt;
    const Successor& succ = succs[si];
    auto cached = covered_.find(succ.word);
    if (cached != covered_.end()) {
        if (!cached->second) return std::nullopt;
        for (std::size_t j = 0; j < succs.size(); ++j)
            if (succs[j].word == *cached->second) return j;
        return std::nullopt;
    }
    const auto& decl = sig_.inputs[succ.input.symbol];
    const std::optional<std::size_t> k_eq = last_equal_parameter(s, succ);
    std::optional<std::size_t> found;
    if (k_eq) {
        const std::size_t k = *k_eq;
        const TV v{decl.params[k].type, succ.input.values[k]};
        // siblings: same input and other values; parameter k not a register, constant or earlier parameter
        std::vector<std::size_t> siblings;
        for (std::size_t j = 0; j < succs.size(); ++j) {
            const auto& o = succs[j].input;
            if (j == si || o.symbol != succ.input.symbol) continue;
            bool same = true;
            if (sdt_mode_) {
                // the same class but parameter k fresh: equal values before k, fresh after it
                auto fresh_at = [&](const DataSymbol& x, std::size_t q) {
                    const TV w{decl.params[q].type, x.values[q]};
                    for (std::size_t r = 0; r < q; ++r)
                        if (decl.params[r].type == w.type && x.values[r] == w.value) return false;
                    return std::find(s.memorable.begin(), s.memorable.end(), w) == s.memorable.end() &&
                           std::find(constants_.begin(), constants_.end(), w) == constants_.end();
                };
                for (std::size_t q = 0; q < o.values.size(); ++q)
                    if ((q < k && o.values[q] != succ.input.values[q]) || (q > k && (!fresh_at(o, q) || !fresh_at(succ.input, q))))
                        same = false;
            } else {
                for (std::size_t q = 0; q < o.values.size(); ++q)
                    if (q != k && o.values[q] != succ.input.values[q]) same = false;
            }
            const TV f{v.type, o.values[k]};
            if (!same || std::find(s.memorable.begin(), s.memorable.end(), f) != s.memorable.end() ||
                std::find(constants_.begin(), constants_.end(), f) != constants_.end())
                continue;
            bool earlier = false;
            for (std::size_t q = 0; q < k; ++q)
                if (decl.params[q].type == v.type && o.values[q] == f.value) earlier = true;
            if (!earlier) siblings.push_back(j);
        }
        if (v.type == DataType::Int && siblings.size() > 2) {
            // only the neighbouring intervals can cover an equality
            std::optional<std::size_t> below, above;
            for (std::size_t j : siblings) {
                const Value x = succs[j].input.values[k];
                if (x < v.value && (!below || x > succs[*below].input.values[k])) below = j;
                if (x > v.value && (!above || x < succs[*above].input.values[k])) above = j;
            }
            siblings.clear();
            if (below) siblings.push_back(*below);
            if (above) siblings.push_back(*above);
        }
        for (std::size_t j : siblings)
            if (behaves_as(succs[j], succ, k)) {
                found = j;
                break;
            }
    }
    covered_[succ.word] = found ? std::optional<DataWord>(succs[*found].word) : std::nullopt;
    return found;
}

std::vector<std::optional<std::size_t>> Table::covers(const Row& s, const std::vector<Successor>& succs) {
    std::vector<std::optional<std::size_t>> cover(succs.size());
    if (!sdt_mode_) {
        for (std::size_t si = 0; si < succs.size(); ++si) cover[si] = covering_sibling(s, succs, si);
        return cover;
    }
    // A class with its last equality at k is uncovered below (whatever its own check says) when an
    // uncovered class of the same input has the same values up to k: such a class is not checked
    // (its check's trees are never asked). Known uncovered here: classes without an equality and
    // classes whose check failed; the fixpoint below adds the rest, so the result is the one of
    // checking every class.
    std::vector<char> uncovered(succs.size(), 0);
    std::vector<std::optional<std::size_t>> k_eq(succs.size());
    for (std::size_t si = 0; si < succs.size(); ++si) {
        k_eq[si] = last_equal_parameter(s, succs[si]);
        if (!k_eq[si] || !covering_) uncovered[si] = 1;
    }
    auto decided = [&](std::size_t si) {
        const auto& a = succs[si].input.values;
        for (std::size_t sj = 0; sj < succs.size(); ++sj)
            if (sj != si && uncovered[sj] && succs[sj].input.symbol == succs[si].input.symbol &&
                std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(*k_eq[si] + 1), succs[sj].input.values.begin()))
                return true;
        return false;
    };
    for (std::size_t si = 0; si < succs.size(); ++si) {
        if (uncovered[si]) continue;
        if (decided(si)) {
            uncovered[si] = 1;
            continue;
        }
        cover[si] = covering_sibling(s, succs, si);
        if (!cover[si]) uncovered[si] = 1;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t si = 0; si < succs.size(); ++si) {
            if (!cover[si]) continue;
            const auto& a = succs[si].input.values;
            const auto& b = succs[*cover[si]].input.values;
            const auto k = static_cast<std::size_t>(std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin());
            for (std::size_t sj = 0; sj < succs.size(); ++sj) {
                const auto& o = succs[sj].input;
                if (sj == si || cover[sj] || o.symbol != succs[si].input.symbol) continue;
                if (std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(k + 1), o.values.begin())) {
                    cover[si].reset();
                    changed = true;
                    break;
                }
            }
        }
    }
    return cover;
}

bool Table::behaves_as(const Successor& sibling, const Successor& eq, std::size_t k) {
    if (trees()) return behaves_as_sdt(sibling, eq, k);
    const Value f = sibling.input.values[k], v = eq.input.values[k];
    const DataType type = sig_.inputs[sibling.input.symbol].params[k].type;
    const DataWord sib_out = oracle_.query(sibling.word);
    const DataWord eq_out = oracle_.query(eq.word);
    auto subst_word = [&](DataWord w) {
        for (auto& x : w)
            for (std::size_t q = 0; q < x.values.size(); ++q)
                if (sig_.inputs[x.symbol].params[q].type == type && x.values[q] == f) x.values[q] = v;
        return w;
    };
    auto same_answers = [&](const DataWord& in_a, const DataWord& out_a, const DataWord& in_b, const DataWord& out_b,
                            std::size_t from) {
        std::vector<TV> seen_a, seen_b;
        for (std::size_t i = 0; i < in_a.size(); ++i) {
            const auto& id = sig_.inputs[in_a[i].symbol];
            for (std::size_t q = 0; q < in_a[i].values.size(); ++q) {
                seen_a.push_back({id.params[q].type, in_a[i].values[q]});
                seen_b.push_back({id.params[q].type, in_b[i].values[q]});
            }
            if (out_a[i].symbol != out_b[i].symbol) return false;
            const auto& od = sig_.outputs[out_a[i].symbol];
            for (std::size_t q = 0; q < out_a[i].values.size(); ++q) {
                const TV x{od.params[q].type, out_a[i].values[q]}, y{od.params[q].type, out_b[i].values[q]};
                const bool x_new = std::find(seen_a.begin(), seen_a.end(), x) == seen_a.end() &&
                                   std::find(constants_.begin(), constants_.end(), x) == constants_.end();
                const bool y_new = std::find(seen_b.begin(), seen_b.end(), y) == seen_b.end() &&
                                   std::find(constants_.begin(), constants_.end(), y) == constants_.end();
                if (i >= from) {
                    if (x_new != y_new) return false;
                    if (!x_new && (x.type == type && x.value == f ? v : x.value) != y.value) return false;
                }
                seen_a.push_back(x);
                seen_b.push_back(y);
            }
        }
        return true;
    };
    const std::size_t from = sibling.word.size() - 1;
    if (!same_answers(sibling.word, sib_out, eq.word, eq_out, from)) return false;
    struct Mismatch {};  // stops the enumeration at the first differing leaf
    for (const auto& e : E_) {
        bool ok = true;
        const auto vals = word_values(sig_, sibling.word, sib_out);
        std::vector<TV> relevant;
        for (const auto& x : vals)
            if (std::find(relevant.begin(), relevant.end(), x) == relevant.end()) relevant.push_back(x);
        try {
        enumerate(sibling.word, e, relevant, [&](const DataWord& suf_in, const DataWord& suf_out) {
            DataWord a = sibling.word;
            a.insert(a.end(), suf_in.begin(), suf_in.end());
            DataWord a_out = sib_out;
            a_out.insert(a_out.end(), suf_out.begin(), suf_out.end());
            const DataWord b = subst_word(a);
            const DataWord b_out = oracle_.query(b);
            if (!same_answers(a, a_out, b, b_out, from)) {
                ok = false;
                throw Mismatch{};
            }
        });
        } catch (const Mismatch&) {
        }
        if (!ok) return false;
    }
    return true;
}

bool Table::behaves_as_sdt(const Successor& sibling, const Successor& eq, std::size_t k) {
    Subst rename;
    std::map<Value, Value> values;
    // a value equal to a constant reads as the constant in eq's trees
    auto token = [&](const TV& x) -> TermTok {
        for (std::size_t c = 0; c < constants_.size(); ++c)
            if (constants_[c] == x) return {'c', static_cast<long>(c)};
        return value_token(x);
    };
    const auto& params = sig_.inputs[sibling.input.symbol].params;
    for (std::size_t q = k; q < sibling.input.values.size(); ++q) {
        rename[value_token({params[q].type, sibling.input.values[q]})] = token({params[q].type, eq.input.values[q]});
        values[sibling.input.values[q]] = eq.input.values[q];
    }
    DataWord out_a = oracle_.query(sibling.word), out_b = oracle_.query(eq.word);
    const DataSymbol a = out_a.back(), b = out_b.back();
    if (a.symbol != b.symbol) return false;
    out_a.pop_back();
    out_b.pop_back();
    const auto seen_a = word_values(sig_, sibling.word, out_a);
    const auto seen_b = word_values(sig_, eq.word, out_b);
    const auto& od = sig_.outputs[a.symbol];
    for (std::size_t q = 0; q < a.values.size(); ++q) {
        const TV x{od.params[q].type, a.values[q]}, y{od.params[q].type, b.values[q]};
        const bool x_old = std::find(seen_a.begin(), seen_a.end(), x) != seen_a.end() ||
                           std::find(constants_.begin(), constants_.end(), x) != constants_.end();
        const bool y_old = std::find(seen_b.begin(), seen_b.end(), y) != seen_b.end() ||
                           std::find(constants_.begin(), constants_.end(), y) != constants_.end();
        if (x_old != y_old) return false;
        if (x_old && (values.count(x.value) ? values[x.value] : x.value) != y.value) return false;
        if (!x_old) rename[value_token(x)] = token(y);  // a fresh output reads as the other's
    }
    // the trees eq's word needs only for this check count as covering tree queries when it
    // is covered (SL* has no branch, so no tree, for a merged class)
    std::size_t own = 0;
    for (const auto& e : E_) {
        const Suffix full = all_free(sig_, e.symbols);
        const std::string mine = text(sdt(sibling.word, full), rename);
        const std::size_t before = oracle_.tree_queries();
        const std::string theirs = text(sdt(eq.word, full), {});
        own += oracle_.tree_queries() - before;
        if (mine != theirs) return false;
    }
    covering_trees_ += own;
    return true;
}

bool Table::close() {
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t si = 0; si < S_.size() && !changed; ++si) {
            const Row s = row(S_[si]);
            const auto succs = successors(s);
            const auto cover = covers(s, succs);
            for (std::size_t ci = 0; ci < succs.size(); ++ci) {
                const Successor& succ = succs[ci];
                if (cover[ci]) continue;
                const Row& t = row(succ.word);
                // register consistency: every memorable value of t is a register of s, a
                // parameter or an output of the step
                std::vector<TV> allowed = s.memorable;
                const auto step_vals = word_values(sig_, {succ.input}, {t.outputs.back()});
                allowed.insert(allowed.end(), step_vals.begin(), step_vals.end());
                bool consistent = true;
                for (const auto& m : t.memorable)
                    if (std::find(allowed.begin(), allowed.end(), m) == allowed.end()) consistent = false;
                if (!consistent) {
                    std::size_t added = 0;
                    const auto current = E_;
                    const auto prefix_vals = word_values(sig_, s.prefix, s.outputs);
                    // SL*: with symbolic trees only the suffixes e whose tree after the successor
                    // names a value its prefix forgot (the others cannot reveal it one step
                    // earlier); when those are all in E already, every e as before
                    std::set<TermTok> forgot;
                    for (const auto& m : t.memorable)
                        if (std::find(allowed.begin(), allowed.end(), m) == allowed.end()) forgot.insert(value_token(m));
                    for (const bool only_naming : {trees(), false}) {
                        for (const auto& e : current) {
                            if (only_naming) {
                                std::set<TermTok> used;
                                used_terms(sdt(succ.word, e), used);
                                if (std::none_of(forgot.begin(), forgot.end(), [&](const TermTok& x) { return used.count(x) > 0; }))
                                    continue;
                            }
                            Suffix ae = make_suffix({succ.input.symbol}, [&](std::size_t, std::size_t k) {
                                const TV v{sig_.inputs[succ.input.symbol].params[k].type, succ.input.values[k]};
                                return std::find(prefix_vals.begin(), prefix_vals.end(), v) != prefix_vals.end();
                            });
                            ae.symbols.insert(ae.symbols.end(), e.symbols.begin(), e.symbols.end());
                            ae.free.insert(ae.free.end(), e.free.begin(), e.free.end());
                            if (std::find(E_.begin(), E_.end(), ae) == E_.end()) {
                                E_.push_back(ae);
                                ++added;
                            }
                        }
                        if (added > 0 || !only_naming) break;
                    }
                    if (added == 0) {
                        failure_ = "register consistency: " + format_word(sig_, succ.word) +
                                   " remembers a value its prefix forgot, and no suffix is left to add";
                        return false;
                    }
                    rows_.clear();
            covered_.clear();
                    changed = true;
                    break;
                }
                bool found = false;
                for (const auto& other : S_)
                    if (row(other).signature == t.signature) {
                        found = true;
                        break;
                    }
                if (!found) {
                    if (S_.size() >= config_.max_locations) {
                        failure_ = "more than " + std::to_string(config_.max_locations) + " locations";
                        return false;
                    }
                    S_.push_back(succ.word);
                    changed = true;
                    break;
                }
            }
        }
    }
    return true;
}

}  // namespace typestar::ra::sl_star
