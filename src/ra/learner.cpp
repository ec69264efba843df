#include "typestar/ra/learner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "input_classes.hpp"
#include "values.hpp"
#include "typestar/log/logging.hpp"

namespace typestar::ra {
// Named, not anonymous: SlStarLearner::Impl (external linkage) derives from Table.
namespace sl_star {

/// A symbolic suffix (SL*): input symbols and, per parameter (flattened in order), whether it is
/// *free* (any data class relative to the prefix's values, the constants and the suffix's earlier
/// values) or *local* (only relative to the constants and the suffix's earlier values: never equal
/// to a prefix value). Local parameters keep a tree from branching on prefix values that do not
/// matter for this suffix; `int` parameters are always free.
struct Suffix {
    std::vector<std::size_t> symbols;
    std::vector<char> free;
    bool operator==(const Suffix&) const = default;
    auto operator<=>(const Suffix&) const = default;
    [[nodiscard]] std::size_t size() const { return symbols.size(); }
    [[nodiscard]] std::size_t operator[](std::size_t i) const { return symbols[i]; }
};
using Tokens = std::vector<long>;

/// A typed value: values of different types are different values.
struct TV {
    DataType type;
    Value value;
    bool operator==(const TV&) const = default;
    auto operator<=>(const TV&) const = default;
};

constexpr long kMem = 1000, kConst = 2000, kSufIn = 3000, kSufOut = 5000, kNew = 5, kNonMem = 7, kEq = 9,
               kBetween = 6, kSymbol = 100000;
/// A reference's token plus kShift * (i + 1) names the reference's value plus the i-th increment.
constexpr long kShift = 1000000;

/// `ints` followed by each of them plus each increment (SL*'s terms x + c); `ints` without any.
std::vector<Value> with_increments(std::vector<Value> ints, const std::vector<Value>& increments) {
    const std::size_t n = ints.size();
    for (Value c : increments)
        for (std::size_t i = 0; i < n; ++i)
            if (const auto r = internal::plus(ints[i], c)) ints.push_back(*r);  // x + c beyond int64 is no value
    return ints;
}

/// Every value of a word (inputs and outputs interleaved), with types, in order of occurrence.
std::vector<TV> word_values(const RegisterAutomaton& sig, const DataWord& in, const DataWord& out) {
    std::vector<TV> vals;
    for (std::size_t i = 0; i < in.size(); ++i) {
        for (std::size_t k = 0; k < in[i].values.size(); ++k)
            vals.push_back({sig.inputs[in[i].symbol].params[k].type, in[i].values[k]});
        if (i < out.size())
            for (std::size_t k = 0; k < out[i].values.size(); ++k)
                vals.push_back({sig.outputs[out[i].symbol].params[k].type, out[i].values[k]});
    }
    return vals;
}

std::vector<Value> raw(const std::vector<TV>& vals, DataType type) {
    std::vector<Value> out;
    for (const auto& v : vals)
        if (v.type == type) out.push_back(v.value);
    return out;
}
std::vector<Value> raw_all(const std::vector<TV>& vals) {
    std::vector<Value> out;
    for (const auto& v : vals) out.push_back(v.value);
    return out;
}

/// The symbolic environment of a suffix: references to values, in a fixed order.
struct Env {
    std::vector<std::pair<long, TV>> refs;  // token, value
    std::vector<Value> increments;          // SL*'s +c theory: `int` refs also name ref + c
    [[nodiscard]] std::optional<long> first(const TV& v) const {
        for (const auto& [tok, x] : refs)
            if (x == v) return tok;
        return std::nullopt;
    }
    [[nodiscard]] std::optional<long> latest(const TV& v) const {
        for (auto it = refs.rbegin(); it != refs.rend(); ++it)
            if (it->second == v) return it->first;
        return std::nullopt;
    }
    /// The first `int` ref + increment equal to `v` (no ref itself is), as a shifted token.
    [[nodiscard]] std::optional<long> shifted(const TV& v) const {
        if (v.type != DataType::Int) return std::nullopt;
        for (std::size_t i = 0; i < increments.size(); ++i)
            for (const auto& [tok, x] : refs)
                if (x.type == DataType::Int && internal::plus(x.value, increments[i]) == v.value)
                    return tok + kShift * static_cast<long>(i + 1);
        return std::nullopt;
    }
    /// The class of a new parameter value relative to the environment.
    void class_tokens(const TV& v, Tokens& out) const {
        if (auto r = first(v)) {
            out.push_back(kEq);
            out.push_back(*r);
            return;
        }
        if (auto r = shifted(v)) {
            out.push_back(kEq);
            out.push_back(*r);
            return;
        }
        if (v.type == DataType::Id) {
            out.push_back(kNew);
            return;
        }
        std::optional<TV> lo, hi;
        auto see = [&](Value x) {
            if (x < v.value && (!lo || x > lo->value)) lo = TV{DataType::Int, x};
            if (x > v.value && (!hi || x < hi->value)) hi = TV{DataType::Int, x};
        };
        for (const auto& [tok, x] : refs) {
            if (x.type != DataType::Int) continue;
            see(x.value);
            for (Value c : increments)
                if (const auto r = internal::plus(x.value, c)) see(*r);
        }
        auto token = [&](const TV& x) { return first(x) ? *first(x) : *shifted(x); };
        out.push_back(kBetween);
        out.push_back(lo ? token(*lo) : -1);
        out.push_back(hi ? token(*hi) : -1);
    }
};

struct Row {
    DataWord prefix;
    DataWord outputs;
    std::vector<TV> memorable;  // canonical order: the registers
    std::string signature;
};

class Table {
public:
    Table(const RegisterAutomaton& sig, DataOracle& oracle, const RaLearnConfig& config)
        : sig_(sig), oracle_(oracle), config_(config), log_(detail::logger("typestar.learn")) {
        for (const auto& c : sig_.constants) constants_.push_back({c.type, c.value});
        sdt_mode_ = std::none_of(sig_.constants.begin(), sig_.constants.end(),
                                 [](const Constant& c) { return c.type == DataType::Int; });
        for (const auto* decls : {&sig_.inputs, &sig_.outputs})
            for (const auto& d : *decls)
                for (const auto& prm : d.params)
                    if (prm.type == DataType::Int) sdt_mode_ = false;
        if (!sdt_mode_) increments_ = sig_.increments;  // the +c theory: `int` data only
        // the ordered theory's symbolic trees; with SL*'s +c terms the trees keep one branch per
        // data class (increments make x + c a boundary of every interval: not merged yet)
        ordered_trees_ = !sdt_mode_ && increments_.empty();
        interval_guards_ = config_.interval_guards;
    }
    /// Symbolic decision trees: the equality theory, or the ordered theory without increments.
    [[nodiscard]] bool trees() const noexcept { return sdt_mode_ || ordered_trees_; }
    /// The token of a prefix value in a tree: 'v' an id, 'w' an int (so equal numbers of two
    /// types are two terms).
    static std::pair<char, long> value_token(const TV& v) { return {v.type == DataType::Int ? 'w' : 'v', v.value}; }

    /// class_candidates with SL*'s +c terms: `int` values relative to each relevant x and x + c.
    [[nodiscard]] std::vector<Value> candidates(DataType type, const std::vector<Value>& relevant,
                                                const std::vector<Value>& avoid) const {
        if (type != DataType::Int || increments_.empty()) return class_candidates(type, relevant, avoid);
        return class_candidates(type, with_increments(relevant, increments_), avoid);
    }

    void check_budget() const {
        const PhaseCounts st = oracle_.stats().total();
        if (config_.max_executed && (st.queries_executed > config_.max_executed || st.queries_asked > 10 * config_.max_executed))
            throw LearningLimit("query budget exhausted (" + std::to_string(config_.max_executed) +
                                " concrete queries executed or ten times that many asked)");
    }

    /// Index of parameter k of step j among the suffix's parameters.
    [[nodiscard]] std::size_t param_index(const Suffix& suffix, std::size_t j, std::size_t k) const {
        std::size_t g = k;
        for (std::size_t i = 0; i < j; ++i) g += sig_.inputs[suffix.symbols[i]].params.size();
        return g;
    }
    [[nodiscard]] bool is_free(const Suffix& suffix, std::size_t j, std::size_t k) const {
        const std::size_t g = param_index(suffix, j, k);
        return g >= suffix.free.size() || suffix.free[g];
    }
    /// A suffix over `symbols` whose parameters are free exactly where `free_at` says (always for
    /// `int` parameters, and everywhere when the signature has `int` data: the ordered theory keeps
    /// one branch per data class relative to every prefix value).
    Suffix make_suffix(const std::vector<std::size_t>& symbols, const std::function<bool(std::size_t j, std::size_t k)>& free_at) const {
        Suffix e{symbols, {}};
        for (std::size_t j = 0; j < symbols.size(); ++j) {
            const auto& decl = sig_.inputs[symbols[j]];
            for (std::size_t k = 0; k < decl.params.size(); ++k)
                e.free.push_back(!sdt_mode_ || decl.params[k].type == DataType::Int || free_at(j, k) ? 1 : 0);
        }
        return e;
    }

    // ---- the learner's steps (BasicLearner<RaKind>, run by run_experiment) ----

    void start() {
        S_.push_back({});
        // SL*'s initial suffixes: each input alone, its parameters local (equal only to each other)
        for (std::size_t a = 0; a < sig_.inputs.size(); ++a)
            E_.push_back(make_suffix({a}, [](std::size_t, std::size_t) { return false; }));
        build();
    }

    /// Closes the table and builds the hypothesis; throws LearningLimit when closing gives up.
    void build() {
        while (true) {
            if (!close()) throw LearningLimit(failure_);
            h_ = hypothesis();
            if (interval_guards_ && ordered_trees_ && !validate(h_).empty()) {
                log_->info("ra: merged interval guards do not hold for every register valuation ({}); keeping one disjunct per data class",
                           validate(h_).front());
                interval_guards_ = false;
                continue;
            }
            if (covering_ && !validate(h_).empty()) {
                // Merged equality classes made guards overlap on equal register values: learn
                // without merging (every equality class its own branch, registers distinct).
                log_->info("ra: equality merging gives overlapping guards ({}); every equality class gets its own branch",
                           validate(h_).front());
                covering_ = false;
                rows_.clear();
                covered_.clear();
                continue;
            }
            if (!increments_.empty()) {
                // Trust first: guards that still overlap are no automaton. With SL*'s +c terms they do
                // where two registers differ by an increment (x == r1 + c and x == r2 when r2 = r1 + c),
                // which a location's register order type does not tell apart: refuse, naming the theory.
                if (const auto problems = validate(h_); !problems.empty()) {
                    std::string terms;
                    for (const Value c : increments_) terms += (terms.empty() ? "x + " : ", x + ") + std::to_string(c);
                    throw LearningLimit("the ordered theory with increments (SL*'s +c terms " + terms +
                                        ") does not apply to " + sig_.name + ": its hypothesis has overlapping guards (" +
                                        problems.front() +
                                        "): the learner's locations do not tell apart register values that differ by "
                                        "an increment; learn it without increments (the ordered theory)");
                }
            }
            return;
        }
    }

    bool refine(const RaCounterexample& cex_in) {
        const RaCounterexample* cex = &cex_in;
        log_->debug("ra counterexample: {} ({})", format_word(sig_, cex->inputs, cex->outputs), cex->reason);
        // Suffixes of the counterexample, shortest first, until the hypothesis answers it right
        // (Maler–Pnueli adds them all; adding them lazily keeps the trees small).
        std::size_t added = 0;
        bool fixed = false;
        for (std::size_t len = 1; len <= cex->inputs.size() && !fixed; ++len) {
            // a suffix parameter is free where the counterexample's value occurs in its prefix
            const std::size_t split = cex->inputs.size() - len;
            const auto before = word_values(sig_, DataWord(cex->inputs.begin(), cex->inputs.begin() + static_cast<std::ptrdiff_t>(split)),
                                            DataWord(cex->outputs.begin(), cex->outputs.begin() + static_cast<std::ptrdiff_t>(split)));
            std::vector<std::size_t> symbols;
            for (std::size_t j = split; j < cex->inputs.size(); ++j) symbols.push_back(cex->inputs[j].symbol);
            const Suffix e = make_suffix(symbols, [&](std::size_t j, std::size_t k) {
                const TV v{sig_.inputs[symbols[j]].params[k].type, cex->inputs[split + j].values[k]};
                return std::find(before.begin(), before.end(), v) != before.end();
            });
            if (std::find(E_.begin(), E_.end(), e) != E_.end()) continue;
            E_.push_back(e);
            ++added;
            rows_.clear();
            covered_.clear();
            if (!close()) throw LearningLimit(failure_);
            const RegisterAutomaton h = hypothesis();
            LockstepCheck check(h);
            const DataWord out = oracle_.query(cex->inputs);
            fixed = true;
            for (std::size_t i = 0; i < out.size() && fixed; ++i)
                if (!check.step(cex->inputs[i], out[i]).empty()) fixed = false;
        }
        rows_.clear();
        covered_.clear();
        if (added == 0)
            throw LearningLimit("no progress: the counterexample " + format_word(sig_, cex->inputs, cex->outputs) +
                                " adds no new suffix");
        build();
        return true;
    }

    [[nodiscard]] const RegisterAutomaton& current() const noexcept { return h_; }
    [[nodiscard]] const std::vector<DataWord>& prefixes() const noexcept { return S_; }
    [[nodiscard]] std::size_t suffix_count() const noexcept { return E_.size(); }
    [[nodiscard]] std::size_t covering_tree_queries() const noexcept { return covering_trees_; }

    // ---- the tree oracle, also for tree_query and memorable_values ----
    static Suffix all_free(const RegisterAutomaton& sig, const std::vector<std::size_t>& symbols) {
        Suffix e{symbols, {}};
        for (std::size_t a : symbols) e.free.resize(e.free.size() + sig.inputs[a].params.size(), 1);
        return e;
    }
    void set_suffixes(const std::vector<std::vector<std::size_t>>& e) {
        E_.clear();
        for (const auto& symbols : e) E_.push_back(all_free(sig_, symbols));
    }
    std::string tree_text(const DataWord& prefix, const std::vector<std::size_t>& symbols) {
        const Suffix e = all_free(sig_, symbols);
        if (!trees()) return {};
        return readable(sdt(prefix, e), e, 0);
    }
    std::vector<std::pair<DataWord, DataWord>> leaves(const DataWord& prefix, const std::vector<std::size_t>& symbols) {
        const Suffix suffix = all_free(sig_, symbols);
        const auto vals = word_values(sig_, prefix, oracle_.query(prefix));
        std::vector<TV> relevant;
        for (const auto& v : vals)
            if (std::find(relevant.begin(), relevant.end(), v) == relevant.end()) relevant.push_back(v);
        std::vector<std::pair<DataWord, DataWord>> out;
        enumerate(prefix, suffix, relevant, [&](const DataWord& in, const DataWord& o) { out.emplace_back(in, o); });
        return out;
    }
    std::vector<Value> memorable_of(const DataWord& prefix) {
        std::vector<Value> out;
        const DataWord prefix_out = oracle_.query(prefix);
        for (const auto& v : trees() ? memorable_sdt(prefix, prefix_out) : memorable(prefix, prefix_out))
            out.push_back(v.value);
        return out;
    }

private:

    /// Enumerates one continuation of `prefix` per data class of `suffix`'s parameters, relative to
    /// `relevant` prefix values, the constants and the suffix's own earlier values.
    void enumerate(const DataWord& prefix, const Suffix& suffix, const std::vector<TV>& relevant,
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

    // ---- symbolic decision trees (SL*'s tree oracle: equality and ordered theories) ----

    /// A term of a tree: 'v' an `id` and 'w' an `int` prefix value (by value), 'c' a constant, 's' a
    /// suffix parameter and 'o' a suffix output value (by position), 'n' a value new in the run,
    /// 'r' an `id` register and 'R' an `int` register by rank (after renaming), '#' an output
    /// symbol, '-' no bound (an interval's open side).
    using TermTok = std::pair<char, long>;
    using Subst = std::map<TermTok, TermTok>;
    /// A guard of the ordered theory: lo < p (lo <= p when lo_in) and p < hi (p <= hi when hi_in);
    /// an unbounded side is ('-', 0). `p == t` is [t, t].
    struct Interval {
        TermTok lo{'-', 0};
        bool lo_in = false;
        TermTok hi{'-', 0};
        bool hi_in = false;
    };
    /// A symbolic decision tree: a leaf (end of the suffix), an output (then `kids[0]`), or the
    /// branches of one suffix parameter. An `id` parameter: equal to `eq[i]` -> `kids[i]`, else ->
    /// `kids.back()`; equality branches that behave like the else branch (with the parameter read
    /// as the equal term) are merged into it. An `int` parameter: one interval guard `iv[i]` ->
    /// `kids[i]` per group of adjacent data classes (below t1, == t1, between t1 and t2, ...) whose
    /// subtrees are the same with the parameter read accordingly (SL*'s guard merging), in
    /// increasing order; so only the comparisons that matter remain.
    struct Sdt {
        bool branch = false;
        long param = 0;              // branch: the suffix parameter's position
        std::vector<TermTok> out;    // output: ('#', symbol), then one term per value
        std::vector<TermTok> eq;
        std::vector<Interval> iv;    // ordered theory: the merged guards (never empty for `int`)
        std::vector<Sdt> kids;
    };

    static std::string tok_text(TermTok t, const Subst& subst) {
        if (auto it = subst.find(t); it != subst.end()) t = it->second;
        return t.first + std::to_string(t.second);
    }
    static std::string interval_text(const Interval& g, const Subst& subst) {
        return std::string(g.lo_in ? "[" : "(") + (g.lo.first == '-' ? "-" : tok_text(g.lo, subst)) + "," +
               (g.hi.first == '-' ? "-" : tok_text(g.hi, subst)) + (g.hi_in ? "]" : ")");
    }
    /// Canonical text of a tree under a renaming of its terms (equality branches sorted after it;
    /// interval guards in their order, which an order-preserving renaming keeps).
    static std::string text(const Sdt& n, const Subst& subst) {
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
    static void used_terms(const Sdt& n, std::set<TermTok>& used) {
        for (const auto& t : n.out) used.insert(t);
        for (const auto& t : n.eq) used.insert(t);
        for (const auto& g : n.iv) {
            used.insert(g.lo);
            used.insert(g.hi);
        }
        for (const auto& k : n.kids) used_terms(k, used);
    }

    /// The tree of `suffix` after `prefix` (cached; one tree query per computation).
    const Sdt& sdt(const DataWord& prefix, const Suffix& suffix) {
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

    /// The branches of an `int` parameter (SL*'s guard merging for the ordered theory): one run per
    /// data class relative to the `terms` (below the least, equal to each, between neighbours,
    /// above the greatest; an empty interval has none), then adjacent classes whose subtrees are the
    /// same merge into one guard. An interval's subtree names the parameter ('s', param); an
    /// equality's names the equal term, so the two compare with the parameter read as that term.
    /// Two adjacent equalities (nothing between them) never merge: there is no subtree to read both.
    Sdt ordered_branch(Sdt node, std::vector<std::pair<TermTok, Value>> terms, const std::vector<std::pair<TermTok, TV>>& env,
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

    /// The tree as text for people: `login(s1,s2): s1 == v7 ...`.
    std::string readable(const Sdt& n, const Suffix& suffix, std::size_t depth) const {
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

    /// The memorable values of a prefix in the equality theory: the prefix values its trees name.
    std::vector<TV> memorable_sdt(const DataWord& prefix, const DataWord& prefix_out) {
        std::set<TermTok> used;
        for (const auto& e : E_) used_terms(sdt(prefix, e), used);
        std::vector<TV> out;
        for (const auto& v : word_values(sig_, prefix, prefix_out))
            if (std::find(constants_.begin(), constants_.end(), v) == constants_.end() &&
                std::find(out.begin(), out.end(), v) == out.end() && used.count(value_token(v)))
                out.push_back(v);
        return out;
    }

    /// Output tokens of a suffix run: each output value by its latest reference.
    void outcome_tokens(const Env& base, const DataWord& suf_in, const DataWord& suf_out, Tokens& out,
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

    /// Class tokens of a suffix's parameters relative to the environment.
    void path_tokens(const Env& base, const DataWord& suf_in, const DataWord& suf_out, Tokens& out) const {
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

    /// The memorable values of a prefix: those some suffix of E depends on or an output reveals.
    std::vector<TV> memorable(const DataWord& prefix, const DataWord& prefix_out) {
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

    /// The candidate x (an `int` prefix value) with x + c == v for an increment c, if any.
    [[nodiscard]] std::optional<TV> shifted_candidate(const TV& v, const std::vector<TV>& candidates) const {
        if (v.type != DataType::Int) return std::nullopt;
        for (Value c : increments_)
            for (const auto& x : candidates)
                if (x.type == DataType::Int && internal::plus(x.value, c) == v.value) return x;
        return std::nullopt;
    }

    /// Values to put in place of `d`: a fresh id, or the integers just above and below an int.
    std::vector<Value> replacements(const TV& d, const DataWord& prefix, const DataWord& prefix_out,
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

    /// Output words with each value as the latest earlier position holding it (run-independent).
    Tokens position_outcome(const DataWord& prefix, const DataWord& prefix_out, const DataWord& suf_in,
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

    /// The row of a prefix: memorable values in canonical order and the signature.
    const Row& row(const DataWord& prefix) {
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
            std::vector<std::size_t> perm(ids.size());
            std::iota(perm.begin(), perm.end(), 0);
            std::string best;
            std::vector<std::size_t> best_perm = perm;
            bool first = true;
            do {
                Subst subst;
                for (std::size_t i = 0; i < ints.size(); ++i) subst[value_token(ints[i])] = {'R', static_cast<long>(i)};
                for (std::size_t i = 0; i < ids.size(); ++i) subst[value_token(ids[i])] = {'r', static_cast<long>(perm[i])};
                std::string sig = std::to_string(ints.size()) + "/" + std::to_string(ids.size()) + ":";
                for (const auto& e : E_) sig += text(sdt(prefix, e), subst) + "|";
                if (first || sig < best) {
                    best = std::move(sig);
                    best_perm = perm;
                    first = false;
                }
                if (ids.size() > config_.max_permuted) break;
            } while (std::next_permutation(perm.begin(), perm.end()));
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
        std::vector<std::size_t> perm(ids.size());
        std::iota(perm.begin(), perm.end(), 0);
        std::string best;
        std::vector<std::size_t> best_perm = perm;
        bool first = true;
        do {
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
            if (first || sig < best) {
                best = sig;
                best_perm = perm;
                first = false;
            }
            if (ids.size() > config_.max_permuted) break;
        } while (std::next_permutation(perm.begin(), perm.end()));
        r.signature = best;
        r.memorable = ints;
        r.memorable.resize(base.size(), TV{DataType::Id, 0});
        for (std::size_t i = 0; i < ids.size(); ++i) r.memorable[ints.size() + best_perm[i]] = ids[i];
        return rows_.emplace(prefix, std::move(r)).first->second;
    }

    // ---- closedness and consistency ----

    struct Successor {
        DataSymbol input;
        DataWord word;
    };
    /// One successor of row s per data class of each input, relative to s's registers.
    std::vector<Successor> successors(const Row& s) {
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

    /// For a successor whose parameter k equals a register of s: a sibling class (the same input
    /// and values, parameter k fresh or in a neighbouring interval) whose every tree answers the
    /// same once its value of parameter k is replaced by the register's (SL*'s guard merging: the
    /// equality needs no branch of its own). Cached until E changes.
    std::optional<std::size_t> covering_sibling(const Row& s, const std::vector<Successor>& succs, std::size_t si) {
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

    /// covering_sibling for every successor. With symbolic trees a class is covered only when its
    /// whole branch is: an equality p_k == t stays a branch of its own (SL*: the subtree differs
    /// from the else branch's) when some uncovered class has the same parameters up to k, and then
    /// every class in it is uncovered (to a fixpoint), so the guards stay complete.
    std::vector<std::optional<std::size_t>> covers(const Row& s, const std::vector<Successor>& succs) {
        std::vector<std::optional<std::size_t>> cover(succs.size());
        for (std::size_t si = 0; si < succs.size(); ++si) cover[si] = covering_sibling(s, succs, si);
        if (!sdt_mode_) return cover;
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

    /// True when every tree of `sibling` answers like `eq` once the sibling's parameter k value is
    /// replaced by eq's (outputs compared as values under that replacement; new values as new).
    bool behaves_as(const Successor& sibling, const Successor& eq, std::size_t k) {
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

    /// behaves_as with symbolic trees: the sibling's parameters from k on read as eq's (k equal,
    /// the later ones fresh in both), the step answers the same and every tree of the sibling (all
    /// parameters free) is eq's tree under that reading.
    bool behaves_as_sdt(const Successor& sibling, const Successor& eq, std::size_t k) {
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

    /// Makes the table closed and register-consistent. False (with failure_) when it gives up.
    bool close() {
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
                        for (const auto& e : current) {
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

    // ---- the hypothesis ----

    /// SL*'s guard merging in the hypothesis (ordered theory): a transition of a one-parameter
    /// `int` input that takes a contiguous run of data classes (in increasing order) gets one
    /// interval guard instead of their disjunction: `p < r1 || p == r1` is `p <= r1`. Valid for
    /// the register order type of the access word, as the per-class guards are (build() checks
    /// every hypothesis with validate and falls back to the disjunctions).
    void merge_intervals(std::vector<Transition>& trs, const std::vector<std::vector<std::size_t>>& members,
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

    RegisterAutomaton hypothesis() {
        RegisterAutomaton h;
        h.name = sig_.name;
        h.inputs = sig_.inputs;
        h.outputs = sig_.outputs;
        h.constants = sig_.constants;
        h.increments = sig_.increments;
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
            std::vector<Transition> trs;
            std::vector<std::vector<std::size_t>> members;  // per transition: the classes it takes (succs indices)
            std::vector<std::vector<Atom>> class_guard;      // per class: its own conjunction
            const auto succs = successors(s);
            class_guard.resize(succs.size());
            const auto cover = covers(s, succs);
            for (std::size_t si = 0; si < succs.size(); ++si) {
                const Successor& succ = succs[si];
                // a class covered by a sibling class takes the sibling's transition, with its own
                // guard; with symbolic trees the sibling's guard already includes it (below)
                const auto sibling = cover[si];
                if (sdt_mode_ && sibling) continue;
                const Successor& basis = sibling ? succs[*sibling] : succ;
                const Row& t = row(basis.word);
                const std::size_t target = index.at(t.signature);
                const Row& target_row = row(S_[target]);
                (void)target_row;
                const auto& decl = sig_.inputs[succ.input.symbol];
                Transition tr;
                tr.input = succ.input.symbol;
                tr.target = target;
                // guard: the class of each parameter relative to registers, constants, earlier parameters
                std::vector<std::pair<Term, TV>> env;
                for (std::size_t m = 0; m < s.memorable.size(); ++m) env.push_back({Term{Term::Kind::Register, m}, s.memorable[m]});
                for (std::size_t c = 0; c < constants_.size(); ++c) env.push_back({Term{Term::Kind::Constant, c}, constants_[c]});
                // SL*'s +c terms x + c after every plain one (an equality names x first)
                auto add_shifted = [&](std::size_t from) {
                    const std::size_t n = env.size();
                    for (Value c : increments_)
                        for (std::size_t e = from; e < n; ++e)
                            if (env[e].second.type == DataType::Int)
                                if (const auto r = internal::plus(env[e].second.value, c)) {
                                    Term shifted = env[e].first;
                                    shifted.offset = c;
                                    env.push_back({shifted, TV{DataType::Int, *r}});
                                }
                };
                add_shifted(0);
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
                    add_shifted(at);
                }
                tr.guard = Guard{{conj}};
                class_guard[si] = conj;
                // output
                const DataSymbol& out = t.outputs.back();
                tr.output = out.symbol;
                const auto& od = sig_.outputs[out.symbol];
                for (std::size_t k = 0; k < out.values.size(); ++k) {
                    const TV v{od.params[k].type, out.values[k]};
                    std::optional<Term> term;
                    // registers first, so classes that differ only in equalities merge
                    for (std::size_t m = 0; m < s.memorable.size() && !term; ++m)
                        if (s.memorable[m] == v) term = Term{Term::Kind::Register, m};
                    for (std::size_t q = 0; q < decl.params.size() && !term; ++q)
                        if (TV{decl.params[q].type, basis.input.values[q]} == v) term = Term{Term::Kind::Param, q};
                    for (std::size_t c = 0; c < constants_.size() && !term; ++c)
                        if (constants_[c] == v) term = Term{Term::Kind::Constant, c};
                    // SL*'s +c: a register, parameter or constant plus an increment
                    for (Value inc : increments_) {
                        if (term || v.type != DataType::Int) break;
                        for (std::size_t m = 0; m < s.memorable.size() && !term; ++m)
                            if (s.memorable[m].type == DataType::Int && internal::plus(s.memorable[m].value, inc) == v.value)
                                term = Term{Term::Kind::Register, m, 0, inc};
                        for (std::size_t q = 0; q < decl.params.size() && !term; ++q)
                            if (decl.params[q].type == DataType::Int && basis.input.values[q] + inc == v.value)
                                term = Term{Term::Kind::Param, q, 0, inc};
                        for (std::size_t c = 0; c < constants_.size() && !term; ++c)
                            if (constants_[c].type == DataType::Int && internal::plus(constants_[c].value, inc) == v.value)
                                term = Term{Term::Kind::Constant, c, 0, inc};
                    }
                    tr.output_args.push_back(term ? OutputArg{false, *term} : OutputArg{true, {}});
                }
                // assignments: the target's registers (its canonical order) from t's memorable values
                for (const auto& m : t.memorable) {
                    std::optional<Term> term;
                    for (std::size_t r = 0; r < s.memorable.size() && !term; ++r)
                        if (s.memorable[r] == m) term = Term{Term::Kind::Register, r};
                    for (std::size_t q = 0; q < decl.params.size() && !term; ++q)
                        if (TV{decl.params[q].type, basis.input.values[q]} == m) term = Term{Term::Kind::Param, q};
                    for (std::size_t k = 0; k < out.values.size() && !term; ++k)
                        if (TV{od.params[k].type, out.values[k]} == m) term = Term{Term::Kind::OutputParam, k};
                    tr.assign.push_back(term.value_or(Term{Term::Kind::Literal, 0, 0}));
                }
                // merge with an equal transition (same output, target, assignment): one guard
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
            if (ordered_trees_ && interval_guards_) merge_intervals(trs, members, class_guard, succs);
            // a single transition for an input covers every class: its guard is true
            for (auto& tr : trs) {
                const auto n = std::count_if(trs.begin(), trs.end(), [&](const Transition& x) { return x.input == tr.input; });
                if (n == 1) tr.guard = Guard{};
            }
            h.locations[i].transitions = std::move(trs);
        }
        // names in breadth-first order from the initial location, so equal machines read equal
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

    const RegisterAutomaton& sig_;
    DataOracle& oracle_;
    RaLearnConfig config_;
    std::shared_ptr<spdlog::logger> log_;
    std::vector<TV> constants_;
    std::vector<Value> increments_;  // SL*'s +c theory (ordered data only)
    std::vector<DataWord> S_;
    std::vector<Suffix> E_;
    std::map<DataWord, Row> rows_;
    std::map<std::pair<DataWord, Suffix>, Sdt> sdts_;
    bool sdt_mode_ = true;  // no `int` data: symbolic decision trees with merged equality branches
    bool ordered_trees_ = false;  // `int` data, no increments: trees with merged interval guards
    std::size_t covering_trees_ = 0;  // trees first built to cover an equality class that was covered
    std::map<DataWord, std::optional<DataWord>> covered_;
    bool covering_ = true;
    bool interval_guards_ = false;  // merge_intervals in the hypothesis (RaLearnConfig::interval_guards)
    std::string failure_;
    RegisterAutomaton h_;  // the hypothesis of the last build()
};

}  // namespace sl_star

class SlStarLearner::Impl : public sl_star::Table {
public:
    using Table::Table;
};

SlStarLearner::SlStarLearner(const RegisterAutomaton& signature, DataOracle& oracle, const RaLearnConfig& config)
    : impl_(std::make_unique<Impl>(signature, oracle, config)) {}
SlStarLearner::~SlStarLearner() = default;
void SlStarLearner::start() { impl_->start(); }
bool SlStarLearner::refine(const RaCounterexample& cex) { return impl_->refine(cex); }
RegisterAutomaton SlStarLearner::hypothesis() const { return impl_->current(); }
std::vector<DataWord> SlStarLearner::access_sequences() const { return impl_->prefixes(); }
std::string SlStarLearner::progress() const { return std::to_string(impl_->suffix_count()) + " suffixes"; }
std::size_t SlStarLearner::suffixes() const { return impl_->suffix_count(); }
std::size_t SlStarLearner::covering_tree_queries() const { return impl_->covering_tree_queries(); }

bool RaKind::refutes(const RegisterAutomaton& hypothesis, const RaCounterexample& cex) {
    LockstepCheck check(hypothesis);
    for (std::size_t i = 0; i < cex.inputs.size() && i < cex.outputs.size(); ++i)
        if (!check.step(cex.inputs[i], cex.outputs[i]).empty()) return true;
    return false;
}

std::vector<std::pair<DataWord, DataWord>> tree_query(DataOracle& oracle, const RegisterAutomaton& signature,
                                                      const DataWord& prefix, const std::vector<std::size_t>& suffix) {
    sl_star::Table learner(signature, oracle, RaLearnConfig{});
    return learner.leaves(prefix, suffix);
}

std::string symbolic_tree(DataOracle& oracle, const RegisterAutomaton& signature, const DataWord& prefix,
                          const std::vector<std::size_t>& suffix) {
    sl_star::Table learner(signature, oracle, RaLearnConfig{});
    return learner.tree_text(prefix, suffix);
}

std::vector<Value> memorable_values(DataOracle& oracle, const RegisterAutomaton& signature, const DataWord& prefix,
                                    const std::vector<std::vector<std::size_t>>& suffixes) {
    sl_star::Table learner(signature, oracle, RaLearnConfig{});
    learner.set_suffixes(suffixes);
    return learner.memorable_of(prefix);
}

}  // namespace typestar::ra
