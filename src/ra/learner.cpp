// SlStarLearner and the tree-oracle functions of typestar/ra/learner.hpp over SL*'s table (sl_star.hpp):
// the learner's steps (start, build, refine) and the helpers on data values every part shares.
#include "typestar/ra/learner.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <string>

#include "sl_star.hpp"
#include "typestar/log/logging.hpp"

namespace typestar::ra {
namespace sl_star {

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

void Env::class_tokens(const TV& v, Tokens& out) const {
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

Table::Table(const RegisterAutomaton& sig, DataOracle& oracle, const RaLearnConfig& config)
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

void Table::check_budget() const {
    const PhaseCounts st = oracle_.stats().total();
    if (config_.max_executed && (st.queries_executed > config_.max_executed || st.queries_asked > 10 * config_.max_executed))
        throw LearningLimit("query budget exhausted (" + std::to_string(config_.max_executed) +
                            " concrete queries executed or ten times that many asked)");
}

Suffix Table::make_suffix(const std::vector<std::size_t>& symbols, const std::function<bool(std::size_t j, std::size_t k)>& free_at) const {
    Suffix e{symbols, {}};
    for (std::size_t j = 0; j < symbols.size(); ++j) {
        const auto& decl = sig_.inputs[symbols[j]];
        for (std::size_t k = 0; k < decl.params.size(); ++k)
            e.free.push_back(!sdt_mode_ || decl.params[k].type == DataType::Int || free_at(j, k) ? 1 : 0);
    }
    return e;
}

void Table::start() {
    S_.push_back({});
    // SL*'s initial suffixes: each input alone, its parameters local (equal only to each other)
    for (std::size_t a = 0; a < sig_.inputs.size(); ++a)
        E_.push_back(make_suffix({a}, [](std::size_t, std::size_t) { return false; }));
    build();
}

void Table::build() {
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

RaCounterexample Table::shortened(const RaCounterexample& cex) {
    // One step left out at a time, earliest first: the shorter word is kept while the device and
    // the hypothesis still differ on it (cut after the differing step), until no step can go.
    RaCounterexample best = cex;
    LockstepCheck check(h_);
    for (bool progress = true; progress && best.inputs.size() > 1;) {
        progress = false;
        for (std::size_t drop = 0; drop < best.inputs.size() && !progress; ++drop) {
            DataWord word = best.inputs;
            word.erase(word.begin() + static_cast<std::ptrdiff_t>(drop));
            check_budget();
            const DataWord out = oracle_.query(word);
            check.reset();
            for (std::size_t i = 0; i < word.size(); ++i) {
                std::string why = check.step(word[i], out[i]);
                if (why.empty()) continue;
                best = {DataWord(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(i) + 1),
                        DataWord(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i) + 1), std::move(why)};
                progress = true;
                break;
            }
        }
    }
    return best;
}

bool Table::refine(const RaCounterexample& cex_in) {
    const RaCounterexample short_cex = shortened(cex_in);
    const RaCounterexample* cex = &short_cex;
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
