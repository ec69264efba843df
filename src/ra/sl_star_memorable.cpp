// SL*'s memorable values: the prefix values some suffix's answer depends on or an output reveals
// (from the symbolic trees, or by replacing values in concrete runs), which become registers.
#include "sl_star.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace typestar::ra::sl_star {

std::vector<Value> Table::memorable_of(const DataWord& prefix) {
    std::vector<Value> out;
    const DataWord prefix_out = oracle_.query(prefix);
    for (const auto& v : trees() ? memorable_sdt(prefix, prefix_out) : memorable(prefix, prefix_out))
        out.push_back(v.value);
    return out;
}

std::vector<TV> Table::memorable_sdt(const DataWord& prefix, const DataWord& prefix_out) {
    std::set<TermTok> used;
    for (const auto& e : E_) used_terms(sdt(prefix, e), used);
    std::vector<TV> out;
    for (const auto& v : word_values(sig_, prefix, prefix_out))
        if (std::find(constants_.begin(), constants_.end(), v) == constants_.end() &&
            std::find(out.begin(), out.end(), v) == out.end() && used.count(value_token(v)))
            out.push_back(v);
    return out;
}

void Table::outcome_tokens(const Env& base, const DataWord& suf_in, const DataWord& suf_out, Tokens& out,
                           const std::vector<TV>& non_memorable) const {
    Env env = base;
    for (std::size_t j = 0; j < suf_in.size(); ++j) {
        const auto& id = sig_.inputs[suf_in[j].symbol];
        for (std::size_t k = 0; k < suf_in[j].values.size(); ++k)
            env.refs.push_back({kSufIn + static_cast<long>(j * 16 + k), {id.params[k].type, suf_in[j].values[k]}});
        const auto& od = sig_.outputs[suf_out[j].symbol];
        out.push_back(kSymbol + static_cast<long>(suf_out[j].symbol));
        for (std::size_t k = 0; k < suf_out[j].values.size(); ++k) {
            const TV v{od.params[k].type, suf_out[j].values[k]};
            if (auto r = env.latest(v)) out.push_back(*r);
            else if (auto sh = env.shifted(v)) out.push_back(*sh);
            else if (std::find(non_memorable.begin(), non_memorable.end(), v) != non_memorable.end())
                out.push_back(kNonMem);
            else out.push_back(kNew);
        }
        for (std::size_t k = 0; k < suf_out[j].values.size(); ++k)
            env.refs.push_back({kSufOut + static_cast<long>(j * 16 + k), {od.params[k].type, suf_out[j].values[k]}});
    }
}

void Table::path_tokens(const Env& base, const DataWord& suf_in, const DataWord& suf_out, Tokens& out) const {
    Env env = base;
    for (std::size_t j = 0; j < suf_in.size(); ++j) {
        const auto& id = sig_.inputs[suf_in[j].symbol];
        for (std::size_t k = 0; k < suf_in[j].values.size(); ++k) {
            const TV v{id.params[k].type, suf_in[j].values[k]};
            env.class_tokens(v, out);
            env.refs.push_back({kSufIn + static_cast<long>(j * 16 + k), v});
        }
        const auto& od = sig_.outputs[suf_out[j].symbol];
        for (std::size_t k = 0; k < suf_out[j].values.size(); ++k)
            env.refs.push_back({kSufOut + static_cast<long>(j * 16 + k), {od.params[k].type, suf_out[j].values[k]}});
    }
}

std::vector<TV> Table::memorable(const DataWord& prefix, const DataWord& prefix_out) {
    std::vector<TV> candidates;
    for (const auto& v : word_values(sig_, prefix, prefix_out))
        if (std::find(constants_.begin(), constants_.end(), v) == constants_.end() &&
            std::find(candidates.begin(), candidates.end(), v) == candidates.end())
            candidates.push_back(v);
    std::set<TV> mem;
    std::set<TV> shifted_use;  // memorable through a suffix value x + c (needs x itself)
    if (candidates.empty()) return {};
    for (const auto& e : E_) {
        enumerate(prefix, e, candidates, [&](const DataWord& suf_in, const DataWord& suf_out) {
            // (a) an output reveals a prefix value the suffix's inputs did not carry
            std::vector<TV> seen;
            for (std::size_t j = 0; j < suf_in.size(); ++j) {
                const auto& id = sig_.inputs[suf_in[j].symbol];
                for (std::size_t k = 0; k < suf_in[j].values.size(); ++k) seen.push_back({id.params[k].type, suf_in[j].values[k]});
                const auto& od = sig_.outputs[suf_out[j].symbol];
                for (std::size_t k = 0; k < suf_out[j].values.size(); ++k) {
                    const TV v{od.params[k].type, suf_out[j].values[k]};
                    if (std::find(candidates.begin(), candidates.end(), v) != candidates.end() &&
                        std::find(seen.begin(), seen.end(), v) == seen.end())
                        mem.insert(v);
                    else if (auto base = shifted_candidate(v, candidates); base && std::find(seen.begin(), seen.end(), v) == seen.end()) {
                        mem.insert(*base);  // an output x + c reveals x
                        shifted_use.insert(*base);
                    }
                    seen.push_back(v);
                }
            }
            // (b) replacing a prefix value in the suffix by a neighbour or a fresh value changes the answer
            for (std::size_t j = 0; j < suf_in.size(); ++j) {
                const auto& id = sig_.inputs[suf_in[j].symbol];
                for (std::size_t k = 0; k < suf_in[j].values.size(); ++k) {
                    const TV d{id.params[k].type, suf_in[j].values[k]};
                    // the prefix value the suffix's value stands for: itself, or x where it is x + c
                    TV owner = d;
                    if (std::find(candidates.begin(), candidates.end(), d) == candidates.end()) {
                        const auto base = shifted_candidate(d, candidates);
                        if (!base) continue;
                        owner = *base;
                    }
                    // (a shifted use is looked for even once owner is memorable: it decides
                    // whether owner may be read as an earlier value + c)
                    if (mem.count(owner) && (owner == d || shifted_use.count(owner))) continue;
                    for (Value replacement : replacements(d, prefix, prefix_out, suf_in, suf_out)) {
                        DataWord mod = suf_in;
                        for (std::size_t jj = j; jj < mod.size(); ++jj) {
                            const auto& idd = sig_.inputs[mod[jj].symbol];
                            for (std::size_t kk = (jj == j ? k : 0); kk < mod[jj].values.size(); ++kk)
                                if (idd.params[kk].type == d.type && mod[jj].values[kk] == d.value)
                                    mod[jj].values[kk] = replacement;
                        }
                        DataWord word = prefix;
                        word.insert(word.end(), mod.begin(), mod.end());
                        const DataWord out = oracle_.query(word);
                        const DataWord mod_out(out.begin() + static_cast<std::ptrdiff_t>(prefix.size()), out.end());
                        if (position_outcome(prefix, prefix_out, suf_in, suf_out) !=
                            position_outcome(prefix, prefix_out, mod, mod_out)) {
                            mem.insert(owner);
                            if (owner != d) shifted_use.insert(owner);
                            break;
                        }
                    }
                }
            }
        });
    }
    // SL*'s +c: a memorable value equal to x + c for an earlier prefix value x, used only as
    // itself (never through v + c), is read as x + c: the register holds x (the trees name the
    // earliest term, as SL*'s do)
    if (!increments_.empty())
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            const TV& v = candidates[i];
            if (!mem.count(v) || v.type != DataType::Int || shifted_use.count(v)) continue;
            for (std::size_t j = 0; j < i; ++j)
                if (candidates[j].type == DataType::Int &&
                    std::any_of(increments_.begin(), increments_.end(),
                                [&](Value c) { return internal::plus(candidates[j].value, c) == v.value; })) {
                    mem.erase(v);
                    mem.insert(candidates[j]);
                    break;
                }
        }
    std::vector<TV> out;
    for (const auto& v : candidates)
        if (mem.count(v)) out.push_back(v);
    return out;
}

std::optional<TV> Table::shifted_candidate(const TV& v, const std::vector<TV>& candidates) const {
    if (v.type != DataType::Int) return std::nullopt;
    for (Value c : increments_)
        for (const auto& x : candidates)
            if (x.type == DataType::Int && internal::plus(x.value, c) == v.value) return x;
    return std::nullopt;
}

std::vector<Value> Table::replacements(const TV& d, const DataWord& prefix, const DataWord& prefix_out,
                                       const DataWord& suf_in, const DataWord& suf_out) const {
    auto all = word_values(sig_, prefix, prefix_out);
    const auto more = word_values(sig_, suf_in, suf_out);
    all.insert(all.end(), more.begin(), more.end());
    all.insert(all.end(), constants_.begin(), constants_.end());
    if (!increments_.empty()) {
        // x + c are values of the theory too: a replacement stays strictly between them (those
        // of d itself move with d)
        const std::size_t n = all.size();
        for (Value c : increments_)
            for (std::size_t i = 0; i < n; ++i)
                if (all[i].type == DataType::Int && all[i] != d)
                    if (const auto r = internal::plus(all[i].value, c)) all.push_back({DataType::Int, *r});
    }
    std::set<Value> taken;
    for (const auto& v : all) taken.insert(v.value);
    if (d.type == DataType::Id) return {internal::unused_id(taken)};
    std::vector<Value> out;
    for (const std::optional<Value> next : {internal::plus(d.value, 1), internal::plus(d.value, -1)}) {
        if (!next) continue;  // int64 has no value on that side
        const Value cand = *next;
        // strictly between d and its neighbour among the word's ints, and unused
        bool ok = !taken.count(cand);
        for (const auto& v : all)
            if (v.type == DataType::Int && ((v.value > d.value && v.value <= cand) || (v.value < d.value && v.value >= cand)))
                ok = false;
        if (ok) out.push_back(cand);
    }
    return out;
}

Tokens Table::position_outcome(const DataWord& prefix, const DataWord& prefix_out, const DataWord& suf_in,
                               const DataWord& suf_out) const {
    Env env;
    long pos = 0;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        const auto& id = sig_.inputs[prefix[i].symbol];
        for (std::size_t k = 0; k < prefix[i].values.size(); ++k) env.refs.push_back({pos++, {id.params[k].type, prefix[i].values[k]}});
        const auto& od = sig_.outputs[prefix_out[i].symbol];
        for (std::size_t k = 0; k < prefix_out[i].values.size(); ++k)
            env.refs.push_back({pos++, {od.params[k].type, prefix_out[i].values[k]}});
    }
    for (std::size_t c = 0; c < constants_.size(); ++c) env.refs.insert(env.refs.begin(), {kConst + static_cast<long>(c), constants_[c]});
    Tokens out;
    for (std::size_t j = 0; j < suf_in.size(); ++j) {
        const auto& id = sig_.inputs[suf_in[j].symbol];
        for (std::size_t k = 0; k < suf_in[j].values.size(); ++k) env.refs.push_back({pos++, {id.params[k].type, suf_in[j].values[k]}});
        const auto& od = sig_.outputs[suf_out[j].symbol];
        out.push_back(kSymbol + static_cast<long>(suf_out[j].symbol));
        for (std::size_t k = 0; k < suf_out[j].values.size(); ++k) {
            const TV v{od.params[k].type, suf_out[j].values[k]};
            auto r = env.latest(v);
            out.push_back(r ? *r : -kNew);
        }
        for (std::size_t k = 0; k < suf_out[j].values.size(); ++k)
            env.refs.push_back({pos++, {od.params[k].type, suf_out[j].values[k]}});
    }
    return out;
}

}  // namespace typestar::ra::sl_star
