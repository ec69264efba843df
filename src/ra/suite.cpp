#include "typestar/ra/suite.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <random>
#include <set>

#include "input_classes.hpp"

namespace typestar::ra {

std::string RaSuiteResult::summary() const {
    if (counterexample) return "the device differs from the spec: " + counterexample->reason;
    return "no difference found up to the bound on " + std::to_string(words) + " data words from " +
           std::to_string(states) + " (location, register order type) states" +
           (truncated ? " (exploration truncated: partial evidence)" : "");
}

namespace {

/// Queues `next` when the (location, order type) that `check` reached with it is new; once
/// `max_states` pairs are seen, a new pair sets `truncated` instead.
void queue_if_new(const RegisterAutomaton& spec, LockstepCheck& check, const DataWord& next, std::size_t max_states,
                  std::set<std::pair<std::size_t, std::string>>& seen, std::deque<DataWord>& queue, bool& truncated) {
    const auto key = std::make_pair(check.simulator().location(),
                                    order_type(spec, check.simulator().location(), check.simulator().registers()));
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
        internal::for_each_input_class(spec, ints, ids, all, stop, [&](const DataSymbol& in) {
            DataWord next = word;
            next.push_back(in);
            visit_next(next);
        });
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
    seen.insert({spec.initial, order_type(spec, spec.initial, {})});
    auto run = [&](const DataWord& word) -> bool {  // false on a difference (stored)
        const DataWord out = oracle.query(word);
        budget.charge();
        result.counterexample = first_difference(check, word, out);
        return !result.counterexample;
    };
    explore_classes(
        spec, oracle, queue,
        [&](const DataWord& word) {
            access.push_back(word);
            return run(word);
        },
        [&](const DataWord& next) {
            if (!run(next)) return;
            queue_if_new(spec, check, next, config.max_states, seen, queue, result.truncated);
        },
        [&] { return result.counterexample.has_value(); });
    result.states = seen.size();
    if (!result.counterexample) {
        // every transition again, followed by every word of up to B steps
        result.counterexample = words_in_all_classes(oracle, spec, access, config.bound + 1, &budget);
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

std::optional<RaCounterexample> random_walk_difference(DataOracle& oracle, const RegisterAutomaton& hypothesis,
                                                       const RaRandomWalkConfig& config) {
    if (hypothesis.inputs.empty() || config.max_depth == 0) return std::nullopt;
    std::mt19937_64 rng(config.seed);
    auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    auto chance = [&](double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p; };
    LockstepCheck check(hypothesis);
    for (std::size_t n = 0; n < config.runs; ++n) {
        // the word is drawn first (it depends on no answer of the device: as RALib's), then asked once
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
                if (from.empty()) return std::nullopt;  // int64 has no value left in any class
                in.values.push_back(from[pick(from.size())]);
            }
            for (std::size_t k = 0; k < in.values.size(); ++k)
                (decl.params[k].type == DataType::Int ? ints : ids).push_back(in.values[k]);
            word.push_back(std::move(in));
            if (chance(config.stop_probability)) break;
        }
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
    seen.insert({spec.initial, order_type(spec, spec.initial, {})});
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
    explore_classes(
        spec, oracle, queue, [](const DataWord&) { return true; },
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
            if (from == location && taken == transition) starts.push_back(next);
            queue_if_new(spec, check, next, config.max_states, seen, queue, result.truncated);
        },
        [&] { return result.counterexample.has_value(); });
    result.states = seen.size();
    if (!result.counterexample && !starts.empty())
        result.counterexample = words_in_all_classes(oracle, spec, starts, config.bound, &budget);
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
