#include "typestar/ra/suite.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <random>
#include <set>

#include "independence.hpp"
#include "input_classes.hpp"
#include "values.hpp"

namespace typestar::ra {

std::string RaSuiteResult::summary() const {
    if (counterexample) return "the device differs from the spec: " + counterexample->reason;
    return "no difference found up to the bound on " + std::to_string(words) + " data words from " +
           std::to_string(states) + " (location, register " + (ordered ? "order" : "equality") + " type) states" +
           (truncated ? " (exploration truncated: partial evidence)" : "");
}

namespace {

/// The suite's state of `spec` in `location` with `registers`: their order type (order_type) when
/// the spec's guards order data (internal::orders_data), else their equality type (which registers
/// hold equal values, and which equal a constant or a guard's literal), the only relations an
/// equality-only spec tells apart.
std::string suite_state(const RegisterAutomaton& spec, bool ordered, std::size_t location,
                        const std::vector<Value>& registers) {
    if (ordered) return order_type(spec, location, registers);
    std::vector<Value> anchors;
    for (const auto& c : spec.constants) anchors.push_back(c.value);
    for (Value literal : internal::guard_literals(spec)) anchors.push_back(literal);
    std::string key;
    for (std::size_t r = 0; r < registers.size(); ++r) {
        const auto a = std::find(anchors.begin(), anchors.end(), registers[r]);
        const auto first = std::find(registers.begin(), registers.end(), registers[r]);
        key += a != anchors.end() ? "c" + std::to_string(a - anchors.begin()) : std::to_string(first - registers.begin());
        key += ",";
    }
    return key;
}

/// Queues `next` when the (location, suite_state) that `check` reached with it is new; once
/// `max_states` pairs are seen, a new pair sets `truncated` instead.
void queue_if_new(const RegisterAutomaton& spec, LockstepCheck& check, const DataWord& next, std::size_t max_states,
                  std::set<std::pair<std::size_t, std::string>>& seen, std::deque<DataWord>& queue, bool& truncated) {
    const auto key = std::make_pair(check.simulator().location(),
                                    suite_state(spec, internal::orders_data(spec), check.simulator().location(),
                                                check.simulator().registers()));
    if (seen.size() < max_states && seen.insert(key).second) queue.push_back(next);
    else if (seen.size() >= max_states) truncated = true;
}

/// The words a suite run executes on the device (after the cache), counted through its oracle:
/// past `max_words` the run refuses, naming the knob, so a suite too large to run ends with a clear
/// error instead of hours and gigabytes of cache — on every path (check, learning's certification,
/// one transition's test).
class WordBudget {
public:
    WordBudget(const DataOracle& oracle, const RegisterAutomaton& spec, std::size_t max_words)
        : oracle_(&oracle), spec_(&spec), max_words_(max_words), start_(executed()) {}
    void charge() const {
        if (executed() - start_ > max_words_)
            throw Error("the suite of '" + spec_->name + "' needs more than " + std::to_string(max_words_) +
                        " data words on the device (set TYPESTAR_MAX_RA_WORDS to allow more, or lower the bound B)");
    }

private:
    [[nodiscard]] std::uint64_t executed() const { return oracle_->stats().total().queries_executed; }
    const DataOracle* oracle_;
    const RegisterAutomaton* spec_;
    std::uint64_t max_words_;
    std::uint64_t start_;
};

/// The suites' one breadth-first exploration: each word taken from `queue` (after `visit_word`, which
/// ends the exploration by returning false) is extended by one input in every data class relative to
/// its values, each extension handed to `visit_next` (which may queue it), until `stop()`.
template <class VisitWord, class VisitNext, class Stop>
void explore_classes(const RegisterAutomaton& spec, DataOracle& oracle, std::deque<DataWord>& queue,
                     VisitWord visit_word, VisitNext visit_next, Stop stop) {
    while (!queue.empty() && !stop()) {
        const DataWord word = queue.front();
        queue.pop_front();
        if (!visit_word(word)) return;
        const DataWord out = oracle.query(word);
        std::vector<Value> ints, ids, all;
        internal::word_values(spec, word, out, ints, ids, all);
        internal::for_each_input_class(
            spec, ints, ids, all, stop,
            [&](const DataSymbol& in) {
                DataWord next = word;
                next.push_back(in);
                visit_next(next);
            },
            internal::orders_data(spec));
    }
}

/// Runs `word` (with the device's answers `out`) in lockstep with `spec` from the start: the first
/// difference, if any.
std::optional<RaCounterexample> first_difference(LockstepCheck& check, const DataWord& word, const DataWord& out) {
    check.reset();
    for (std::size_t i = 0; i < word.size(); ++i) {
        const std::string why = check.step(word[i], out[i]);
        if (!why.empty())
            return RaCounterexample{DataWord(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(i) + 1),
                                    DataWord(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i) + 1), why};
    }
    return std::nullopt;
}

/// The values the hypothesis behind `check` holds after its steps, in the device's values, split as
/// word_values splits a word's: the constants, then its registers (with the `+c` window).
void hypothesis_values(const RegisterAutomaton& spec, const LockstepCheck& check, std::vector<Value>& ints,
                       std::vector<Value>& ids) {
    ints.clear();
    ids.clear();
    for (const auto& c : spec.constants) {
        ints.push_back(c.value);
        ids.push_back(c.value);
    }
    const auto& regs = spec.locations.at(check.simulator().location()).registers;
    const auto& values = check.simulator().registers();
    for (std::size_t r = 0; r < regs.size() && r < values.size(); ++r)
        (regs[r].type == DataType::Int ? ints : ids).push_back(check.device_value(values[r]));
    if (const Value window = offset_window(spec); window > 0) {
        std::vector<Value> shifted;
        for (Value v : ints)
            for (Value d = -window; d <= window; ++d) shifted.push_back(v + d);
        ints = std::move(shifted);
    }
}

/// Every word of up to `depth` steps from each of `starts` (the empty word when none), depth first,
/// each step one input per data class relative to the values `relevant(word, out, check, ints, ids,
/// all)` sets (`check` has run `word`; `all`: what a fresh value avoids), run in lockstep with
/// `spec`: the first difference. Each device run is charged to `budget` when given.
template <class Relevant>
std::optional<RaCounterexample> words_from(DataOracle& oracle, const RegisterAutomaton& spec,
                                           const std::vector<DataWord>& starts, std::size_t depth, Relevant relevant,
                                           const WordBudget* budget = nullptr) {
    LockstepCheck check(spec);
    std::optional<RaCounterexample> found;
    DataWord word;
    std::function<void(std::size_t)> extend = [&](std::size_t left) {
        if (found) return;
        const DataWord out = oracle.query(word);
        if (budget) budget->charge();
        if ((found = first_difference(check, word, out)) || left == 0) return;
        std::vector<Value> ints, ids, all;
        relevant(word, out, check, ints, ids, all);
        internal::for_each_input_class(spec, ints, ids, all, [&] { return found.has_value(); }, [&](const DataSymbol& in) {
            word.push_back(in);
            extend(left - 1);
            word.pop_back();
        });
    };
    for (const auto& s : starts.empty() ? std::vector<DataWord>{{}} : starts) {
        word = s;
        extend(depth);
        if (found) break;
    }
    return found;
}

/// The value `term` stands for in the device's run, the step's earlier parameters being `chosen`
/// (nothing for a later parameter or an output's: the guard compares those with this one later).
std::optional<Value> term_value(const RegisterAutomaton& spec, const LockstepCheck& check, const Term& term,
                                const std::vector<Value>& chosen) {
    switch (term.kind) {
    case Term::Kind::Register: {
        const auto& regs = check.simulator().registers();
        if (term.index >= regs.size()) return std::nullopt;
        return check.device_value(regs[term.index]) + term.offset;
    }
    case Term::Kind::Constant: return spec.constants.at(term.index).value + term.offset;
    case Term::Kind::Literal: return term.literal;
    case Term::Kind::Param:
        if (term.index >= chosen.size()) return std::nullopt;
        return chosen[term.index] + term.offset;
    case Term::Kind::OutputParam: return std::nullopt;
    }
    return std::nullopt;
}

/// What the symbolic continuations read of a spec, once: whether its guards order data, and which
/// input parameters no guard of the spec reads anywhere.
struct SymbolicSpec {
    explicit SymbolicSpec(const RegisterAutomaton& s) : spec(s), ordered(internal::orders_data(s)) {
        for (const auto& decl : s.inputs) unread.emplace_back(decl.params.size(), true);
        for (const auto& l : s.locations)
            for (const auto& t : l.transitions)
                for (const auto& conjunction : t.guard.disjuncts)
                    for (const auto& atom : conjunction)
                        for (const Term* term : {&atom.left, &atom.right})
                            if (term->kind == Term::Kind::Param && term->index < unread.at(t.input).size())
                                unread[t.input][term->index] = false;
    }
    const RegisterAutomaton& spec;
    bool ordered;
    std::vector<std::vector<bool>> unread;  ///< [input][parameter]
};

/// The symbolic classes of parameter `k` of input `a` from where `check` is: one value at and one
/// between/beyond (only when the spec orders data) every value a guard of the spec's current
/// location on `a` compares it with (registers, constants, literals, earlier parameters; `p + a op
/// y + b` compares p with y + b - a), fresh values avoiding `avoid`; then each value of `equal` not
/// among them.
std::vector<Value> symbolic_candidates(const SymbolicSpec& sym, const LockstepCheck& check, std::size_t a, std::size_t k,
                                       const std::vector<Value>& chosen, std::vector<Value> avoid,
                                       const std::vector<Value>& equal) {
    std::vector<Value> compared;
    const Location& loc = sym.spec.locations.at(check.simulator().location());
    for (const Transition& t : loc.transitions) {
        if (t.input != a) continue;
        for (const auto& conjunction : t.guard.disjuncts)
            for (const Atom& atom : conjunction)
                for (const auto& [self, other] : {std::pair{atom.left, atom.right}, std::pair{atom.right, atom.left}}) {
                    if (self.kind != Term::Kind::Param || self.index != k) continue;
                    if (auto v = term_value(sym.spec, check, other, chosen)) compared.push_back(*v - self.offset);
                }
    }
    std::sort(compared.begin(), compared.end());
    compared.erase(std::unique(compared.begin(), compared.end()), compared.end());
    avoid.insert(avoid.end(), chosen.begin(), chosen.end());
    std::vector<Value> out = internal::typed_candidates(sym.spec.inputs.at(a).params.at(k).type, sym.ordered, compared, avoid);
    for (Value v : equal)
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    return out;
}

/// The values of the last step of `word` (its inputs and the device's answer), by type.
void last_step_values(const RegisterAutomaton& spec, const DataWord& word, const DataWord& out, std::vector<Value>& ints,
                      std::vector<Value>& ids) {
    if (word.empty() || out.size() < word.size()) return;
    const DataSymbol* last[] = {&word.back(), &out[word.size() - 1]};
    const std::vector<SymbolDecl>* decls[] = {&spec.inputs, &spec.outputs};
    for (int side = 0; side < 2; ++side) {
        const auto& params = (*decls[side])[last[side]->symbol].params;
        for (std::size_t k = 0; k < last[side]->values.size() && k < params.size(); ++k)
            (params[k].type == DataType::Int ? ints : ids).push_back(last[side]->values[k]);
    }
}

/// The values (in the device's values, with their types) the spec has held in a register at some
/// point of a run: collected step by step as the lockstep check runs the word.
struct HeldValues {
    std::vector<std::pair<Value, DataType>> values;
    void reset() { values.clear(); }
    void add(const RegisterAutomaton& spec, const LockstepCheck& check) {
        const auto& regs = spec.locations.at(check.simulator().location()).registers;
        const auto& now = check.simulator().registers();
        for (std::size_t r = 0; r < regs.size() && r < now.size(); ++r) {
            const std::pair<Value, DataType> v{check.device_value(now[r]), regs[r].type};
            if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
        }
    }
};

/// Calls `visit` with every symbolic input after `word` (answered `out`; `check` has run them):
/// each input in declaration order, each parameter in symbolic_candidates order, also equal to each
/// value the spec held in a register earlier in the run (`once`) and holds no more, and — a parameter
/// no guard of the spec reads anywhere — to each value of the last step (a device may remember what
/// the spec forgot or ignores: the spec may lack a register there); fresh values avoid every value of
/// the word and of the spec's registers; stops when `stop()`.
void for_each_symbolic_input(const SymbolicSpec& sym, const LockstepCheck& check, const HeldValues& once,
                             const DataWord& word, const DataWord& out, const std::function<bool()>& stop,
                             const std::function<void(const DataSymbol&)>& visit) {
    const RegisterAutomaton& spec = sym.spec;
    std::vector<Value> ints, ids, held, last_ints, last_ids, gone_ints, gone_ids;
    internal::word_values(spec, word, out, ints, ids, held);
    std::vector<Value> now;
    for (Value v : check.simulator().registers()) now.push_back(check.device_value(v));
    held.insert(held.end(), now.begin(), now.end());
    for (const auto& [v, type] : once.values)
        if (std::find(now.begin(), now.end(), v) == now.end()) (type == DataType::Int ? gone_ints : gone_ids).push_back(v);
    last_step_values(spec, word, out, last_ints, last_ids);
    for (std::size_t a = 0; a < spec.inputs.size() && !stop(); ++a) {
        DataSymbol in{a, {}};
        const auto& params = spec.inputs[a].params;
        std::function<void(std::size_t)> param = [&](std::size_t k) {
            if (k == params.size()) {
                visit(in);
                return;
            }
            const bool is_int = params[k].type == DataType::Int;
            std::vector<Value> equal = is_int ? gone_ints : gone_ids;
            if (sym.unread[a][k]) equal.insert(equal.end(), (is_int ? last_ints : last_ids).begin(), (is_int ? last_ints : last_ids).end());
            for (Value v : symbolic_candidates(sym, check, a, k, in.values, held, equal)) {
                in.values.push_back(v);
                param(k + 1);
                in.values.pop_back();
                if (stop()) return;
            }
        };
        param(0);
    }
}

/// The first input for_each_symbolic_input visits.
DataSymbol first_symbolic_input(const SymbolicSpec& sym, const LockstepCheck& check, const HeldValues& once,
                                const DataWord& word, const DataWord& out) {
    std::optional<DataSymbol> first;
    for_each_symbolic_input(sym, check, once, word, out, [&] { return first.has_value(); },
                            [&](const DataSymbol& in) { first = in; });
    return *first;
}

/// The symbolic continuations: every data word of up to `depth` steps from each of
/// `starts`, each step one input per *symbolic* class of the spec where it is (for_each_symbolic_input:
/// the equality/order pattern of each parameter against the values the spec's guards compare it
/// with, a fresh value otherwise), run in lockstep with `spec`: the first difference. Prefixes are
/// shared: each node's answers come from one adaptive run down its first continuation, so the device
/// runs one word per leaf. Each device run is charged to `budget`.
std::optional<RaCounterexample> symbolic_words(DataOracle& oracle, const RegisterAutomaton& spec,
                                               const std::vector<DataWord>& starts, std::size_t depth,
                                               const WordBudget& budget) {
    if (spec.inputs.empty()) depth = 0;
    const SymbolicSpec sym(spec);
    LockstepCheck check(spec), probe(spec);
    HeldValues probe_held;
    std::optional<RaCounterexample> found;
    DataWord word;
    std::function<void(std::size_t)> extend = [&](std::size_t left) {
        if (found) return;
        const std::size_t target = word.size() + left;
        DataWord ran;
        DataWord out = oracle.query_adaptive(ran, [&](const DataWord& in, const DataWord& got) -> std::optional<DataSymbol> {
            if (in.empty()) {
                probe.reset();
                probe_held.reset();
            } else if (!probe.step(in.back(), got.back()).empty()) {
                return std::nullopt;  // differs: stop here
            }
            probe_held.add(spec, probe);
            if (in.size() < word.size()) return word[in.size()];
            if (in.size() >= target) return std::nullopt;
            return first_symbolic_input(sym, probe, probe_held, in, got);
        });
        budget.charge();
        if (out.size() < word.size()) out = oracle.query(word);  // the adaptive run stopped inside the word
        out.resize(word.size());
        if ((found = first_difference(check, word, out)) || left == 0) return;
        HeldValues once;  // what the spec held along the word (check agreed on every step)
        check.reset();
        once.add(spec, check);
        for (std::size_t i = 0; i < word.size(); ++i) {
            (void)check.step(word[i], out[i]);
            once.add(spec, check);
        }
        std::vector<DataSymbol> next;  // collected first: the continuations replay `check`
        for_each_symbolic_input(sym, check, once, word, out, [] { return false; },
                                [&](const DataSymbol& in) { next.push_back(in); });
        for (const DataSymbol& in : next) {
            word.push_back(in);
            extend(left - 1);
            word.pop_back();
            if (found) return;
        }
    };
    for (const auto& s : starts.empty() ? std::vector<DataWord>{{}} : starts) {
        word = s;
        extend(depth);
        if (found) break;
    }
    return found;
}

}  // namespace

RaSuiteResult check_register_automaton(const RegisterAutomaton& spec, DataSul& device, const RaSuiteConfig& config) {
    DataOracle oracle(device, spec);
    return check_register_automaton(spec, oracle, config);
}

namespace {

/// Every word of up to `bound` steps from each of `access`, one per data class relative to every
/// value of the word (find_difference), each run charged to `budget` when given.
std::optional<RaCounterexample> words_in_all_classes(DataOracle& oracle, const RegisterAutomaton& spec,
                                                     const std::vector<DataWord>& access, std::size_t bound,
                                                     const WordBudget* budget) {
    return words_from(
        oracle, spec, access, bound,
        [&](const DataWord& word, const DataWord& out, const LockstepCheck&, std::vector<Value>& ints,
            std::vector<Value>& ids, std::vector<Value>& all) { internal::word_values(spec, word, out, ints, ids, all); },
        budget);
}

}  // namespace

RaSuiteResult check_register_automaton(const RegisterAutomaton& spec, DataOracle& oracle, const RaSuiteConfig& config) {
    RaSuiteResult result;
    const std::uint64_t executed_before = oracle.stats().total().queries_executed;
    const WordBudget budget(oracle, spec, config.max_words);
    LockstepCheck check(spec);
    // Breadth-first over (location, order type): every input in every data class relative to all
    // values of the access word; each new pair keeps the first word that reached it.
    std::set<std::pair<std::size_t, std::string>> seen;
    std::deque<DataWord> queue{DataWord{}};
    std::vector<DataWord> access;
    seen.insert({spec.initial, suite_state(spec, internal::orders_data(spec), spec.initial, {})});
    auto run = [&](const DataWord& word) -> bool {  // false on a difference (stored)
        const DataWord out = oracle.query(word);
        budget.charge();
        result.counterexample = first_difference(check, word, out);
        return !result.counterexample;
    };
    internal::IndependenceCheck independence(spec);
    explore_classes(
        spec, oracle, queue,
        [&](const DataWord& word) {
            access.push_back(word);
            return run(word);
        },
        [&](const DataWord& next) {
            if (!run(next)) return;
            independence.check(oracle, next, oracle.query(next));  // the assumption the classes rely on
            budget.charge();
            queue_if_new(spec, check, next, config.max_states, seen, queue, result.truncated);
        },
        [&] { return result.counterexample.has_value(); });
    result.states = seen.size();
    result.ordered = internal::orders_data(spec);
    if (!result.counterexample) {
        // every transition again, followed by every word of up to B steps, in the spec's symbolic classes
        result.counterexample = symbolic_words(oracle, spec, access, config.bound + 1, budget);
    }
    result.words = oracle.stats().total().queries_executed - executed_before;
    return result;
}

std::optional<RaCounterexample> find_difference(DataOracle& oracle, const RegisterAutomaton& spec,
                                                const std::vector<DataWord>& access, std::size_t bound) {
    return words_in_all_classes(oracle, spec, access, bound, nullptr);
}

namespace {

/// Options of random_words.
struct RandomWords {
    std::size_t count = 0, min_length = 1, max_length = 1;
    std::uint64_t seed = 1;
    bool guided = false;  ///< each parameter relative to the hypothesis's registers half of the time
};

/// `count` random words, the n-th of min_length + n * (max_length - min_length + 1) / count steps,
/// each one adaptive device run checked in lockstep; the first difference.
std::optional<RaCounterexample> random_words(DataOracle& oracle, const RegisterAutomaton& spec, const RandomWords& opt) {
    if (spec.inputs.empty() || opt.max_length == 0) return std::nullopt;
    std::mt19937_64 rng(opt.seed);
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    LockstepCheck check(spec);
    std::optional<RaCounterexample> found;
    const std::size_t span = opt.max_length >= opt.min_length ? opt.max_length - opt.min_length + 1 : 1;
    for (std::size_t n = 0; n < opt.count && !found; ++n) {
        const std::size_t length = std::min(opt.max_length, opt.min_length + n * span / opt.count);
        check.reset();
        DataWord word;
        const DataWord out = oracle.query_adaptive(word, [&](const DataWord& in, const DataWord& got) -> std::optional<DataSymbol> {
            if (!in.empty()) {
                const std::string why = check.step(in.back(), got.back());
                if (!why.empty()) {
                    found = RaCounterexample{in, got, why};
                    return std::nullopt;
                }
            }
            if (in.size() >= length) return std::nullopt;
            std::vector<Value> ints, ids, all;
            internal::word_values(spec, in, got, ints, ids, all);
            if (opt.guided && pick(2) == 0) hypothesis_values(spec, check, ints, ids);
            const std::size_t a = pick(spec.inputs.size());
            const auto& decl = spec.inputs[a];
            DataSymbol next{a, {}};
            for (std::size_t k = 0; k < decl.params.size(); ++k) {
                const auto cands = internal::parameter_candidates(decl, k, next.values, ints, ids, all);
                next.values.push_back(cands[pick(cands.size())]);
            }
            return next;
        });
        (void)out;
    }
    return found;
}

}  // namespace

std::optional<RaCounterexample> random_difference(DataOracle& oracle, const RegisterAutomaton& spec, std::size_t count,
                                                  std::size_t length, std::uint64_t seed) {
    return random_words(oracle, spec, {count, length, length, seed, false});
}

std::vector<DataWord> random_walk_words(const RegisterAutomaton& hypothesis, const RaRandomWalkConfig& config) {
    std::vector<DataWord> words;
    if (hypothesis.inputs.empty() || config.max_depth == 0) return words;
    std::mt19937_64 rng(config.seed);
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    auto chance = [&](double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p; };
    for (std::size_t n = 0; n < config.runs; ++n) {
        DataWord word;
        std::vector<Value> ints, ids;  // the word's values by type, in order
        for (std::size_t step = 0; step < config.max_depth; ++step) {
            const std::size_t a = pick(hypothesis.inputs.size());
            const auto& decl = hypothesis.inputs[a];
            DataSymbol in{a, {}};
            for (std::size_t k = 0; k < decl.params.size(); ++k) {
                const DataType type = decl.params[k].type;
                std::vector<Value> old = type == DataType::Int ? ints : ids;
                for (std::size_t q = 0; q < k; ++q)
                    if (decl.params[q].type == type) old.push_back(in.values[q]);
                for (const auto& c : hypothesis.constants)
                    if (c.type == type) old.push_back(c.value);
                std::sort(old.begin(), old.end());
                old.erase(std::unique(old.begin(), old.end()), old.end());
                std::vector<Value> all = ints;
                all.insert(all.end(), ids.begin(), ids.end());
                all.insert(all.end(), in.values.begin(), in.values.end());
                std::vector<Value> fresh;
                for (Value v : class_candidates(type, old, all))
                    if (!std::binary_search(old.begin(), old.end(), v)) fresh.push_back(v);
                const bool want_fresh = chance(config.fresh_probability) || old.empty();
                const std::vector<Value>& from = (want_fresh && !fresh.empty()) || old.empty() ? fresh : old;
                if (from.empty()) return words;  // int64 has no value left in any class
                in.values.push_back(from[pick(from.size())]);
            }
            for (std::size_t k = 0; k < in.values.size(); ++k)
                (decl.params[k].type == DataType::Int ? ints : ids).push_back(in.values[k]);
            word.push_back(std::move(in));
            if (chance(config.stop_probability)) break;
        }
        words.push_back(std::move(word));
    }
    return words;
}

std::optional<RaCounterexample> random_walk_difference(DataOracle& oracle, const RegisterAutomaton& hypothesis,
                                                       const RaRandomWalkConfig& config) {
    // the words are drawn first (they depend on no answer of the device: as RALib's), then each asked once
    LockstepCheck check(hypothesis);
    for (const DataWord& word : random_walk_words(hypothesis, config)) {
        const DataWord out = oracle.query(word);
        if (auto found = first_difference(check, word, out)) return found;
    }
    return std::nullopt;
}

std::optional<RaCounterexample> search_difference(DataOracle& oracle, const RegisterAutomaton& hypothesis,
                                                  const std::vector<DataWord>& access, const RaSearchConfig& config) {
    // 1. guided words: each step one value per data class relative to what the hypothesis holds
    auto relevant = [&](const DataWord& word, const DataWord& out, const LockstepCheck& check, std::vector<Value>& ints,
                        std::vector<Value>& ids, std::vector<Value>& all) {
        internal::word_values(hypothesis, word, out, ints, ids, all);  // `all`: what a fresh value avoids
        hypothesis_values(hypothesis, check, ints, ids);
        if (!word.empty()) {  // and the last step's values: a value just seen that the hypothesis forgot
            const DataSymbol* last[] = {&word.back(), &out.back()};
            const std::vector<SymbolDecl>* decls[] = {&hypothesis.inputs, &hypothesis.outputs};
            for (int side = 0; side < 2; ++side) {
                const auto& params = (*decls[side])[last[side]->symbol].params;
                for (std::size_t k = 0; k < last[side]->values.size(); ++k)
                    (params[k].type == DataType::Int ? ints : ids).push_back(last[side]->values[k]);
            }
        }
        all.insert(all.end(), ints.begin(), ints.end());
    };
    if (auto found = words_from(oracle, hypothesis, access, config.depth, relevant)) return found;
    // 2. random words, as many as the hypothesis is large, shortest first
    const std::size_t count =
        std::min(config.random_words, std::max(config.min_words, config.words_per_transition * hypothesis.num_transitions()));
    return random_words(oracle, hypothesis,
                        {count, config.depth + 1, std::max(config.random_length, config.depth + 1), config.seed, true});
}

std::string format_trace(const RegisterAutomaton& spec, const RaCounterexample& cex) {
    std::string out;
    for (std::size_t i = 0; i < cex.inputs.size(); ++i) {
        out += "  " + std::to_string(i + 1) + ". " + format_symbol(spec.inputs, cex.inputs[i]) + " -> " +
               (i < cex.outputs.size() ? format_symbol(spec.outputs, cex.outputs[i]) : std::string("?"));
        if (i + 1 == cex.inputs.size()) out += "   <- " + cex.reason;
        out += "\n";
    }
    return out;
}

RaSuiteResult check_register_transition(const RegisterAutomaton& spec, DataOracle& oracle, std::size_t location,
                                        std::size_t transition, const RaSuiteConfig& config) {
    RaSuiteResult result;
    const WordBudget budget(oracle, spec, config.max_words);
    LockstepCheck check(spec);
    std::set<std::pair<std::size_t, std::string>> seen;
    std::deque<DataWord> queue{DataWord{}};
    seen.insert({spec.initial, suite_state(spec, internal::orders_data(spec), spec.initial, {})});
    std::vector<DataWord> starts;  // access word + one step taking the transition
    // Runs `word` in lockstep. Returns the index of the first differing step (word.size() if none),
    // and the spec's (location, transition) of the last step.
    auto run = [&](const DataWord& word, const DataWord& out, std::size_t& from, std::size_t& taken,
                   std::string& why) -> std::size_t {
        check.reset();
        for (std::size_t i = 0; i < word.size(); ++i) {
            from = check.simulator().location();
            why = check.step(word[i], out[i]);
            taken = check.simulator().last_transition();  // LockstepCheck steps the spec before comparing
            if (!why.empty()) return i;
        }
        return word.size();
    };
    internal::IndependenceCheck independence(spec);
    explore_classes(
        spec, oracle, queue,
        [](const DataWord&) { return true; },
        [&](const DataWord& next) {
            const std::size_t access_length = next.size() - 1;  // the dequeued word's
            const DataWord next_out = oracle.query(next);
            budget.charge();
            std::size_t from = 0, taken = 0;
            std::string why;
            const std::size_t differs = run(next, next_out, from, taken, why);
            const bool stepped = why.rfind("the spec cannot step", 0) != 0;
            if (differs < access_length) return;  // the access word differs: another transition's test
            if (differs == access_length) {  // the last step differs: ours when the spec took this transition
                if (stepped && from == location && taken == transition)
                    result.counterexample = RaCounterexample{next, next_out, why};
                return;
            }
            independence.check(oracle, next, next_out);  // the assumption the classes rely on
            budget.charge();
            if (from == location && taken == transition) starts.push_back(next);
            queue_if_new(spec, check, next, config.max_states, seen, queue, result.truncated);
        },
        [&] { return result.counterexample.has_value(); });
    result.states = seen.size();
    result.ordered = internal::orders_data(spec);
    if (!result.counterexample && !starts.empty())
        result.counterexample = symbolic_words(oracle, spec, starts, config.bound, budget);
    result.words = starts.size();
    return result;
}

std::optional<RaCounterexample> separating_word(const RegisterAutomaton& a, const RegisterAutomaton& b,
                                                std::size_t max_depth) {
    SimulatorSul device(b);
    DataOracle oracle(device, b);
    // Breadth-first over the product, each (locations, register pattern) once; a word it finds is
    // confirmed by running `b` as the device against `a` in lockstep (the suite's own comparison).
    std::optional<RaCounterexample> found;
    const ProductDifference search = product_difference(a, b, max_depth, [&](const DataWord& word) {
        found = find_difference(oracle, a, {word}, 0);
        return found.has_value();
    });
    if (found || !search.inconclusive) return found;
    // The symbolic and the concrete comparison disagreed on a candidate: every word, exhaustively.
    for (std::size_t depth = 1; depth <= max_depth; ++depth)
        if (auto cex = find_difference(oracle, a, {}, depth)) return cex;
    return std::nullopt;
}

}  // namespace typestar::ra
