// learn_with_refinement: black-box alphabet refinement (PSYCO Algorithm 3) over any Device, and
// PartitionedDevice: the same abstraction with fixed partitions, for conformance checking.
#include "typestar/session/refinement.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "typestar/core/guard.hpp"
#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/stack.hpp"

#include <spdlog/spdlog.h>

namespace typestar {
namespace {

constexpr const char* kUnknownPurpose = kOutsidePurpose.data();  // "unknown:purpose"
constexpr const char* kUnknownUnresolved = "unknown:unresolved";
constexpr const char* kUnknownDisagreeing = "unknown:disagreeing";

struct AbstractPartition {
    std::string name;
    std::string guard;
    std::vector<std::size_t> values;  // indices into the callin's pool
    std::string split_from;
    std::string split_by;
};

/// One callin of the device: a plain input, or a parameterised callin with its value pool.
struct CallinEntry {
    std::string name;
    std::optional<Symbol> plain;                 // the device input of a plain callin
    std::vector<std::pair<std::string, std::string>> parameters;
    std::vector<Symbol> pool_inputs;             // parameterised: every value's device input, in order
    std::vector<std::string> pool_values;        // and its printed value
    std::set<std::size_t> from_code;             // pool values found in the class's code (run always)
    std::vector<AbstractPartition> partitions;
    [[nodiscard]] bool parameterised() const { return !plain.has_value(); }
};

/// One abstract input of the current alphabet.
struct AbstractInput {
    std::string name;
    std::size_t callin = 0;                // index into the callins (unused for wait)
    std::optional<std::size_t> partition;  // for a parameterised callin
    bool wait = false;
};

/// PSYCO Algorithm 1's REFINED answer, as a value the abstract device hands to the refinement loop:
/// split a partition, or an abstract transition turned out unknown after it was answered. The
/// iteration's learning finishes without the device; the loop applies the verdict and restarts.
struct Split {
    std::size_t callin = 0;
    std::size_t partition = 0;  // the partition split
    std::vector<AbstractPartition> into;
    RefinementRecord record;
};
struct LateUnknown {
    std::vector<std::string> word;  // the abstract word (by name) whose last callin is unknown
    Unknown why;
};
using RefinementVerdict = std::variant<Split, LateUnknown>;

/// Output names are symbol names; partition names allow [A-Za-z0-9_.=<>!-] only.
std::string partition_word(const std::string& output) {
    std::string out;
    for (char c : output)
        out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("_.=<>!-").find(c) != std::string_view::npos)
                   ? c
                   : '_';
    return out.empty() ? std::string("x") : out;
}

/// The guards of a split, in the guard language (docs/spec-format-v2.md, "Guards"), when they are
/// cheap to say and sound on the values: a callin with one `int` parameter whose values are
/// integers, split from a partition whose guard is empty or an expression. One group {c} whose
/// neighbours c-1 and c+1 answered with the other group (a value from the code and its neighbours)
/// is `v == c` / `v != c`; groups that are runs of the sorted values are cut at ordered boundaries
/// (`v < b`, `v >= b && v < b'`, `v >= b'`), b the least value of the run above; else equalities
/// (the largest group: `v != x && ...`). Each is conjoined with the parent's guard and checked on
/// every value of the split (its own group only) and on `others`, the values of the callin's other
/// partitions (none); nullopt, so the guard stays in words, otherwise.
std::optional<std::vector<std::string>> split_guards(const std::string& parent,
                                                     const std::vector<std::pair<std::string, std::string>>& parameters,
                                                     const std::vector<std::string>& pool_values,
                                                     const std::vector<std::vector<std::size_t>>& groups,
                                                     const std::vector<std::size_t>& others) {
    constexpr std::size_t kMaxAtoms = 16;  // a longer guard says less than the words and the values
    if (parameters.size() != 1 || parameters[0].second != "int" || groups.size() < 2) return std::nullopt;
    const std::vector<spec::Parameter> params{{parameters[0].first, "int"}};
    Guard base;  // true
    if (!parent.empty()) {
        auto g = spec::partition_guard(parent, params);
        if (!g.expression) return std::nullopt;
        base = std::move(*g.expression);
    }
    std::vector<std::pair<std::int64_t, std::size_t>> sorted;  // (value, group)
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (std::size_t v : groups[g]) {
            const std::string& text = pool_values[v];
            std::int64_t x = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
            if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
            sorted.emplace_back(x, g);
        }
    std::sort(sorted.begin(), sorted.end());
    const auto to_int = [](const std::string& text) {  // read above: an integer
        std::int64_t x = 0;
        std::from_chars(text.data(), text.data() + text.size(), x);
        return x;
    };
    const auto has = [&](std::size_t group, std::int64_t x) {
        return std::any_of(sorted.begin(), sorted.end(), [&](const auto& e) { return e.first == x && e.second == group; });
    };
    const Term v{Term::Kind::Param, 0};
    const auto lit = [](std::int64_t x) { return Term{Term::Kind::Literal, 0, x}; };
    std::vector<Guard> own(groups.size());
    // (a) one value and both its neighbours in the other group
    std::optional<std::size_t> single;
    if (groups.size() == 2)
        for (std::size_t g = 0; g < 2; ++g) {
            if (groups[g].size() != 1) continue;
            const std::int64_t c = to_int(pool_values[groups[g][0]]);
            if (c > INT64_MIN && c < INT64_MAX && has(1 - g, c - 1) && has(1 - g, c + 1)) single = g;
        }
    // (b) runs of the sorted values, one per group
    std::vector<std::size_t> run_groups;
    for (const auto& e : sorted)
        if (run_groups.empty() || run_groups.back() != e.second) run_groups.push_back(e.second);
    const bool runs = std::set<std::size_t>(run_groups.begin(), run_groups.end()).size() == run_groups.size();
    if (single) {
        own[*single] = Guard{{{Atom{v, Op::Eq, lit(to_int(pool_values[groups[*single][0]]))}}}};
        own[1 - *single] = Guard{{{Atom{v, Op::Ne, lit(to_int(pool_values[groups[*single][0]]))}}}};
    } else if (runs) {
        for (std::size_t r = 0; r < run_groups.size(); ++r) {
            std::vector<Atom> conj;
            const auto low = std::find_if(sorted.begin(), sorted.end(), [&](const auto& e) { return e.second == run_groups[r]; });
            if (r > 0) conj.push_back(Atom{v, Op::Ge, lit(low->first)});
            if (r + 1 < run_groups.size()) {
                const auto next = std::find_if(sorted.begin(), sorted.end(),
                                               [&](const auto& e) { return e.second == run_groups[r + 1]; });
                conj.push_back(Atom{v, Op::Lt, lit(next->first)});
            }
            own[run_groups[r]] = Guard{{conj}};
        }
    } else {
        std::size_t largest = 0;
        for (std::size_t g = 1; g < groups.size(); ++g)
            if (groups[g].size() > groups[largest].size()) largest = g;
        own[largest] = Guard{{{}}};
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (g == largest) continue;
            own[g].disjuncts.clear();
            for (std::size_t x : groups[g]) {
                const Term c = lit(to_int(pool_values[x]));
                own[g].disjuncts.push_back({Atom{v, Op::Eq, c}});
                own[largest].disjuncts.front().push_back(Atom{v, Op::Ne, c});
            }
        }
    }
    std::vector<std::string> out;
    const auto name = [&](const Term&) { return parameters[0].first; };
    for (std::size_t g = 0; g < groups.size(); ++g) {
        Guard both;  // base && own[g], in disjunctive normal form
        both.disjuncts.clear();
        std::size_t atoms = 0;
        for (const auto& b : base.disjuncts)
            for (const auto& o : own[g].disjuncts) {
                std::vector<Atom> conj = b;
                conj.insert(conj.end(), o.begin(), o.end());
                atoms += conj.size();
                both.disjuncts.push_back(std::move(conj));
            }
        if (atoms > kMaxAtoms) return std::nullopt;
        for (std::size_t h = 0; h <= groups.size(); ++h)
            for (std::size_t x : h < groups.size() ? groups[h] : others) {
                const auto holds = spec::guard_holds(both, params, pool_values[x]);
                if (!std::holds_alternative<bool>(holds) || std::get<bool>(holds) != (h == g)) return std::nullopt;
            }
        out.push_back(guard_text(both, name));
    }
    return out;
}

/// The callins of `device` in input order: a parameterised callin (describe().parameterised) stands
/// where its first value input is; every other input but `wait` is a plain callin.
std::vector<CallinEntry> callins_of(const Device& device, const DeviceDescription& d) {
    const Alphabet& in = device.inputs();
    std::map<std::string, std::size_t> param_of_input;  // device input -> index into d.parameterised
    for (std::size_t p = 0; p < d.parameterised.size(); ++p)
        for (const auto& part : d.parameterised[p].partitions)
            for (const auto& v : part.values) {
                if (!in.contains(v.input))
                    throw std::invalid_argument(device.name() + ": value input '" + v.input + "' of callin '" +
                                                d.parameterised[p].callin + "' is not one of the device's inputs");
                const auto [at, fresh] = param_of_input.emplace(v.input, p);
                if (!fresh && at->second != p)
                    throw std::invalid_argument(device.name() + ": input '" + v.input + "' is a value of two callins");
            }
    std::vector<CallinEntry> out;
    std::vector<bool> placed(d.parameterised.size(), false);
    for (Symbol s = 0; s < in.size(); ++s) {
        const std::string& name = in.name(s);
        if (name == kWait) continue;
        const auto it = param_of_input.find(name);
        if (it == param_of_input.end()) {
            CallinEntry c;
            c.name = name;
            c.plain = s;
            out.push_back(std::move(c));
            continue;
        }
        if (placed[it->second]) continue;
        placed[it->second] = true;
        const auto& p = d.parameterised[it->second];
        CallinEntry c;
        c.name = p.callin;
        c.parameters = p.parameters;
        for (const auto& part : p.partitions) {
            AbstractPartition a{part.name, part.guard, {}, {}, {}};
            for (const auto& v : part.values) {
                const auto at = std::find(c.pool_values.begin(), c.pool_values.end(), v.value);
                std::size_t index = 0;
                if (at == c.pool_values.end()) {
                    index = c.pool_values.size();
                    c.pool_values.push_back(v.value);
                    c.pool_inputs.push_back(in.at(v.input));
                } else {
                    index = static_cast<std::size_t>(at - c.pool_values.begin());
                    if (c.pool_inputs[index] != in.at(v.input))
                        throw std::invalid_argument(device.name() + ": value '" + v.value + "' of callin '" + p.callin +
                                                    "' is two inputs");
                }
                if (v.from_code) c.from_code.insert(index);
                if (std::find(a.values.begin(), a.values.end(), index) != a.values.end()) continue;
                for (const auto& other : c.partitions)
                    if (std::find(other.values.begin(), other.values.end(), index) != other.values.end())
                        throw std::invalid_argument(device.name() + ": value '" + v.value + "' of callin '" +
                                                    p.callin + "' is in two partitions");
                a.values.push_back(index);
            }
            if (a.values.empty())
                throw std::invalid_argument(device.name() + ": partition '" + part.name + "' of callin '" + p.callin +
                                            "' has no value");
            c.partitions.push_back(std::move(a));
        }
        // The declared guards that are expressions hold on their values, and only there (the check
        // the spec reader applies): refused now, not when the learned spec is written.
        spec::CallinDeclaration declared{c.name, std::vector<spec::Parameter>{}, {}};
        for (const auto& [pname, ptype] : c.parameters) declared.parameters->push_back({pname, ptype});
        for (const auto& part : c.partitions) {
            spec::Partition sp{part.name, part.guard, {}, {}, {}};
            for (std::size_t v : part.values) sp.values.push_back(c.pool_values[v]);
            declared.partitions.push_back(std::move(sp));
        }
        const auto problems = spec::partition_guard_problems(declared, spec::ReadLimits::from_environment().max_transitions);
        if (!problems.empty()) throw std::invalid_argument(device.name() + ": " + problems.front().message);
        out.push_back(std::move(c));
    }
    return out;
}

/// What survives refinements: the callins and their partitions, and the one oracle stack over the
/// concrete device (its cache keeps every concrete answer across refinements, PSYCO's shared
/// MemoizedTable, and its non-determinism guard sees every run). In fixed mode (checking a stored
/// spec) nothing is refined and a disagreement is a PartitionError.
class Refiner {
public:
    Refiner(Device& device, std::vector<CallinEntry> callins, RefinementOptions options, bool fixed,
            std::optional<Typestate> stored = std::nullopt)
        : device_(device), stack_(device), callins_(std::move(callins)), options_(std::move(options)),
          fixed_(fixed), stored_(std::move(stored)) {
        for (const auto& c : callins_)
            if (c.parameterised() && c.partitions.empty())
                throw std::invalid_argument(device_.name() + ": parameterised callin '" + c.name + "' has no partition");
        report_.initial_alphabet = alphabet().size() - 1;
        if (options_.purpose_name.empty()) options_.purpose_name = device_.describe().class_name;
    }

    [[nodiscard]] Device& concrete() { return device_; }
    [[nodiscard]] const RefinementOptions& options() const { return options_; }
    [[nodiscard]] bool fixed() const { return fixed_; }
    /// Fixed mode: the stored spec whose unknown transitions are not tried.
    [[nodiscard]] const std::optional<Typestate>& stored() const { return stored_; }
    RefinementReport& report() { return report_; }
    [[nodiscard]] const RefinementReport& report() const { return report_; }
    [[nodiscard]] std::size_t round() const { return round_; }
    [[nodiscard]] OracleStack& stack() { return stack_; }

    /// A refinement verdict of the current iteration, if one was given (the first one wins).
    [[nodiscard]] bool refining() const { return verdict_.has_value(); }
    void give(RefinementVerdict verdict) {
        if (!verdict_) verdict_ = std::move(verdict);
    }
    /// Applies the pending verdict (if any) and starts the next iteration; false when there was none.
    bool apply_verdict() {
        if (!verdict_) return false;
        if (auto* split = std::get_if<Split>(&*verdict_)) {
            auto& parts = callins_[split->callin].partitions;
            const auto pos = parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(split->partition));
            parts.insert(pos, split->into.begin(), split->into.end());
            log()->info("refinement: {}[{}] split after '{}'", split->record.callin, split->record.from,
                        split->record.split_by);
            report_.refinements.push_back(std::move(split->record));
        } else {
            auto& late = std::get<LateUnknown>(*verdict_);
            std::string text;
            for (const auto& n : late.word) text += (text.empty() ? "" : " ") + n;
            log()->info("refinement: {} is unknown (the callback after it depends on its values); learning restarts",
                        text);
            late_unknowns_.emplace(std::move(late.word), std::move(late.why));
        }
        verdict_.reset();
        ++round_;
        round_start_nodes_ = stack_.cache().num_nodes();
        return true;
    }
    [[nodiscard]] std::vector<CallinEntry>& callins() { return callins_; }
    /// Abstract words (by name) found unknown after they were answered: learning restarted.
    std::map<std::vector<std::string>, Unknown>& late_unknowns() { return late_unknowns_; }

    /// The current abstract alphabet: callins in device order (partitions in order), then `wait`.
    [[nodiscard]] std::vector<AbstractInput> alphabet() const {
        std::vector<AbstractInput> out;
        for (std::size_t c = 0; c < callins_.size(); ++c) {
            const auto& callin = callins_[c];
            if (!callin.parameterised()) {
                out.push_back({callin.name, c, std::nullopt, false});
                continue;
            }
            for (std::size_t p = 0; p < callin.partitions.size(); ++p)
                out.push_back({spec::abstract_input(callin.name, callin.partitions[p].name), c, p, false});
        }
        out.push_back({std::string(kWait), 0, std::nullopt, true});
        return out;
    }

    /// The concrete input running callin `c` with pool value `value` (plain callins: its only input).
    [[nodiscard]] Symbol concrete_symbol(std::size_t c, std::optional<std::size_t> value) const {
        const auto& callin = callins_[c];
        return callin.plain ? *callin.plain : callin.pool_inputs.at(*value);
    }

    /// The outputs of `word` (concrete) through the oracle stack: answered by its cache when it
    /// knows them (counted as reused across refinements when only answers from an earlier iteration
    /// do), else run, and run `repeats` - 1 more times past the cache. Any answer that contradicts an
    /// earlier one is NondeterminismError naming the word and every answer (never a partition split).
    Word run_concrete(const Word& word) {
        CacheOracle& cache = stack_.cache();
        Word out(word.size());
        if (cache.lookup(word, out)) {
            ++report_.concrete_requested;  // asked, answered without a run
            if (const auto node = cache.node_of(word); round_ > 0 && node && *node < round_start_nodes_)
                ++report_.reused_across_refinements;
            return out;
        }
        out = stack_.oracle().query(word);
        ++report_.concrete_requested;
        if (options_.repeats > 1) {
            const std::vector<Word> again(options_.repeats - 1, word);
            (void)cache.rerun(again);
            report_.concrete_rechecked += again.size();
        }
        return out;
    }
    /// Runs each of `words` (concrete, already answered) options().rechecks more times past the
    /// cache: an answer that differs is NondeterminismError. Called before any answer that differs
    /// between values is believed (a split, an unknown, a PartitionError).
    void confirm(const std::vector<Word>& words) {
        const std::set<Word> distinct(words.begin(), words.end());
        const std::vector<Word> batch(distinct.begin(), distinct.end());
        for (std::size_t r = 0; r < std::max<std::size_t>(1, options_.rechecks); ++r) {
            (void)stack_.cache().rerun(batch);
            report_.concrete_rechecked += batch.size();
        }
    }
    /// Concrete runs executed so far (cache misses, repeats, re-checks, contradiction re-runs).
    [[nodiscard]] std::uint64_t executed() const { return stack_.stats().total().queries_executed; }

    /// The values of callin `c` that ran on the device in a live instance: an edge of the cache's
    /// tree from a node not past an absorbing answer.
    [[nodiscard]] std::set<std::size_t> values_run(std::size_t c) const {
        const auto& callin = callins_[c];
        std::map<Symbol, std::size_t> value_of;
        for (std::size_t v = 0; v < callin.pool_inputs.size(); ++v) value_of.emplace(callin.pool_inputs[v], v);
        std::set<std::size_t> out;
        const CacheOracle& cache = const_cast<OracleStack&>(stack_).cache();
        const auto absorbing = cache.traits().absorbing;
        std::vector<CacheOracle::NodeId> queue{CacheOracle::kRootNode};
        for (std::size_t k = 0; k < queue.size(); ++k)
            for (Symbol i = 0; i < device_.inputs().size(); ++i) {
                const auto e = cache.edge(queue[k], i);
                if (!e || e->target == queue[k]) continue;  // unknown, or a quiet / absorbing self-loop
                if (const auto it = value_of.find(i); it != value_of.end()) out.insert(it->second);
                if (!absorbing || e->output != *absorbing) queue.push_back(e->target);
            }
        return out;
    }

private:
    [[nodiscard]] static std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.session"); }

    Device& device_;
    OracleStack stack_;
    std::vector<CallinEntry> callins_;
    RefinementOptions options_;
    bool fixed_ = false;
    std::optional<Typestate> stored_;
    std::map<std::vector<std::string>, Unknown> late_unknowns_;
    std::size_t round_ = 0;
    std::size_t round_start_nodes_ = 0;  // cache nodes when this iteration started
    std::optional<RefinementVerdict> verdict_;
    RefinementReport report_;
};

/// The abstract device of one learn-refine iteration (or of a check over fixed partitions): inputs
/// are the current alphabet's abstract inputs and `wait`; outputs the device's (by name) plus the
/// three unknown answers, after which everything answers `err` (absorbing).
class AbstractDevice final : public Device {
public:
    explicit AbstractDevice(Refiner& refiner) : refiner_(refiner), alphabet_(refiner.alphabet()) {
        std::vector<std::string> in;
        for (const auto& a : alphabet_) in.push_back(a.name);
        inputs_ = Alphabet(in);
        std::vector<std::string> out = refiner.concrete().outputs().names();
        if (!refiner.fixed() || (refiner.stored() && refiner.stored()->has_unknown()))
            for (const char* u : {kUnknownPurpose, kUnknownUnresolved, kUnknownDisagreeing})
                if (std::find(out.begin(), out.end(), u) == out.end()) out.emplace_back(u);  // a purpose's own
        outputs_ = Alphabet(out);
        err_ = outputs_.at(kErr);
        for (const char* u : {kUnknownPurpose, kUnknownUnresolved, kUnknownDisagreeing})
            if (const auto s = outputs_.find(u)) unknown_.insert(*s);
        const DeviceTraits concrete = refiner.concrete().traits();
        traits_ = closure_traits(inputs_, outputs_, concrete.quiet.has_value());
        std::size_t max_values = 1;
        for (const auto& c : refiner.callins())
            for (const auto& part : c.partitions) max_values = std::max(max_values, part.values.size());
        instantiations_ = refiner.fixed() ? max_values
                                          : std::max<std::size_t>(1, std::min(refiner.options().instantiations, max_values));
        // Values from the class's code run besides the sampled ones (the constants its guards compare
        // against are where partitions split): instantiation base_ + k gives each partition with
        // such values its k-th.
        base_ = instantiations_;
        if (!refiner.fixed())
            for (const auto& c : refiner.callins())
                for (const auto& part : c.partitions)
                    instantiations_ = std::max(instantiations_, base_ + code_values(c, part).size());
    }

    [[nodiscard]] const Alphabet& inputs() const override { return inputs_; }
    [[nodiscard]] const Alphabet& outputs() const override { return outputs_; }
    [[nodiscard]] DeviceTraits traits() const override { return traits_; }
    [[nodiscard]] std::string name() const override {
        return refiner_.concrete().name() + (refiner_.fixed() ? " (partitions)" : " (abstract)");
    }
    [[nodiscard]] DeviceDescription describe() const override {
        DeviceDescription d = refiner_.concrete().describe();
        if (!refiner_.fixed()) d.name = name();  // fixed partitions: the spec's provenance names the device
        d.parameterised.clear();  // its inputs are the abstract ones
        return d;
    }
    void check_timing() override { refiner_.concrete().check_timing(); }
    bool override_timing(const TimingOverride& timing) override { return refiner_.concrete().override_timing(timing); }
    void reset() override { current_.clear(); }
    Symbol step(Symbol input) override {
        current_.push_back(input);
        return answer(current_).back();
    }
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override {
        RunResult r;
        r.outputs = answer(Word(inputs.begin(), inputs.end()));
        r.steps = inputs.size();
        for (Symbol i : inputs) r.waits += alphabet_[i].wait ? 1 : 0;
        return r;
    }
    [[nodiscard]] std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                     std::chrono::milliseconds timeout) override {
        if (refiner_.refining()) return std::nullopt;  // this iteration's result is discarded
        const Word p(prefix.begin(), prefix.end());
        const Word a = answer(p);
        if (std::any_of(a.begin(), a.end(), [&](Symbol o) { return unknown_.count(o) != 0; }))
            return err_;  // after an unknown answer everything answers err
        // Every instantiation of the prefix: the quiet wait must hold for each declared value.
        std::optional<Symbol> first;
        for (std::size_t j = 0; j < instantiations_; ++j) {
            const auto got = refiner_.concrete().confirm_wait(instantiate(p, j), timeout);
            if (!got) return std::nullopt;
            const Symbol s = abstract_output(*got);
            if (!first) first = s;
            if (s != *first) return s;  // a different answer than quiet: the caller reports it
        }
        return first;
    }

    /// The abstract answer of `word` (memoised for this iteration).
    Word answer(const Word& word) {
        if (word.empty()) return {};
        if (const auto it = answers_.find(word); it != answers_.end()) return it->second;
        Word prefix(word.begin(), word.end() - 1);
        Word result = answer(prefix);
        const auto finish = [&](Symbol output, std::optional<Unknown> why = std::nullopt) {
            result.push_back(output);
            if (why) reasons_[word] = std::move(*why);
            answers_[word] = result;
            return result;
        };
        if (!result.empty() && (result.back() == err_ || unknown_.count(result.back()) != 0)) return finish(err_);
        // A refinement verdict is pending: this iteration ends without the device (answers it gave stay
        // as they were; everything new is `err`, absorbing, so the learner finishes on what it knows).
        if (refiner_.refining()) return finish(err_);
        const AbstractInput& last = alphabet_[word.back()];
        if (refiner_.fixed() && refiner_.stored() && !last.wait) {
            const std::vector<std::string> n = names(word);
            if (const auto u = first_unknown(*refiner_.stored(), n); u && u->index + 1 == n.size()) {
                const char* output = u->unknown.source == Unknown::Source::Purpose      ? kUnknownPurpose
                                     : u->unknown.source == Unknown::Source::Unresolved ? kUnknownUnresolved
                                                                                        : kUnknownDisagreeing;
                return finish(outputs_.at(output), u->unknown);
            }
        }
        if (!refiner_.fixed()) {
            if (const auto& purpose = refiner_.options().purpose; purpose && !last.wait) {
                std::vector<AbstractStep> history;
                for (std::size_t i = 0; i < prefix.size(); ++i)
                    history.push_back({inputs_.name(prefix[i]), outputs_.name(result[i])});
                if (!purpose(history, last.name))
                    return finish(outputs_.at(kUnknownPurpose),
                                  Unknown{Unknown::Source::Purpose,
                                          "the learning purpose of " + refiner_.options().purpose_name +
                                              " never calls it here"});
            }
            if (const auto it = refiner_.late_unknowns().find(names(word)); it != refiner_.late_unknowns().end())
                return finish(outputs_.at(kUnknownDisagreeing), it->second);
        }
        std::vector<Word> concrete(instantiations_);
        std::vector<Word> answers;
        for (std::size_t j = 0; j < instantiations_; ++j) {
            concrete[j] = instantiate(word, j);
            answers.push_back(refiner_.run_concrete(concrete[j]));
        }
        bool agree = true;
        for (const auto& a : answers) agree = agree && a == answers.front();
        if (agree) return finish(abstract_output(answers.front().back()));
        // Values answer differently: first make sure each answer is the device's, not a flake (a
        // different answer on a re-run is NondeterminismError, never value dependence).
        refiner_.confirm(concrete);
        if (refiner_.fixed()) {
            std::size_t j = 1;
            while (answers[j] == answers.front()) ++j;
            throw PartitionError(names(word), output_names(answers.front()), output_names(answers[j]),
                                 "instantiations " + concrete_text(concrete.front()) + " and " + concrete_text(concrete[j]) +
                                     " of the spec's partitions answer differently: the partitions do not describe the device");
        }
        // Same concrete prefix for every instantiation's prefix (same picks, one cache): only the
        // last step can differ. Find the partition whose values alone make the difference.
        auto explained = refine_or_explain(word, concrete.front());
        if (!explained) return finish(err_);  // a split: the verdict is with the refinement loop
        auto [why, position] = std::move(*explained);
        if (last.wait) {
            // The callback depends on argument values no partition explains (PSYCO: the symbolic
            // executor's unknown): the callin whose values make the difference is unknown, and learning
            // restarts with it (its answer `ok` was already given to the learner).
            if (!position)
                throw Error("the callback after " + text(word) + " depends on argument values that no single "
                            "partition explains (" + why.reason + ") and no parameterised callin precedes it");
            const Word at(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(*position + 1));
            why.reason = "the callback after " + text(word) + " depends on the values of " + inputs_.name(word[*position]) +
                         ": " + why.reason;
            refiner_.give(LateUnknown{names(at), std::move(why)});
            return finish(err_);
        }
        return finish(outputs_.at(kUnknownDisagreeing), std::move(why));
    }

    /// Re-runs past the concrete cache, options().rechecks times, every instantiation of every
    /// transition of `machine` (over this device's alphabets) from its states' access words: the
    /// transition cover the result relies on, so that no single cached answer is believed unseen
    /// twice. Transitions after `err` or answered unknown have nothing concrete behind them.
    void recheck_cover(const MealyMachine& machine, const std::vector<Word>& access) {
        std::vector<Word> words;
        for (const Word& u : access)
            for (Symbol i = 0; i < machine.num_inputs(); ++i) {
                Word w = u;
                w.push_back(i);
                const Word a = answer(w);
                if (refiner_.refining()) return;
                bool live = true;
                for (std::size_t k = 0; k < a.size(); ++k)
                    live = live && unknown_.count(a[k]) == 0 && (a[k] != err_ || k + 1 == a.size());
                if (!live) continue;
                for (std::size_t j = 0; j < instantiations_; ++j) words.push_back(instantiate(w, j));
            }
        refiner_.confirm(words);
    }

    /// Why `word` (abstract) was answered unknown, if it was.
    [[nodiscard]] const Unknown* reason(const Word& word) const {
        const auto it = reasons_.find(word);
        return it == reasons_.end() ? nullptr : &it->second;
    }

private:
    [[nodiscard]] static std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.session"); }

    [[nodiscard]] Symbol abstract_output(Symbol concrete) {
        const std::string& n = refiner_.concrete().outputs().name(concrete);
        if (const auto s = outputs_.find(n)) return *s;
        return outputs_.intern(n);  // a callback the device saw first now (outputs may grow)
    }

    [[nodiscard]] std::vector<std::string> names(const Word& word) const {
        std::vector<std::string> out;
        for (Symbol s : word) out.push_back(inputs_.name(s));
        return out;
    }
    [[nodiscard]] std::vector<std::string> output_names(const Word& concrete_outputs) const {
        std::vector<std::string> out;
        for (Symbol s : concrete_outputs) out.push_back(refiner_.concrete().outputs().name(s));
        return out;
    }
    [[nodiscard]] std::string concrete_text(const Word& concrete) {
        std::string out;
        for (Symbol s : concrete) out += (out.empty() ? "" : " ") + refiner_.concrete().inputs().name(s);
        return "'" + out + "'";
    }

    [[nodiscard]] std::string text(const Word& word, std::size_t end = static_cast<std::size_t>(-1)) const {
        std::string out;
        for (std::size_t i = 0; i < word.size() && i < end; ++i) out += (out.empty() ? "" : " ") + inputs_.name(word[i]);
        return out;
    }

    /// The values of `part` found in the class's code, in partition order.
    [[nodiscard]] static std::vector<std::size_t> code_values(const CallinEntry& c, const AbstractPartition& part) {
        std::vector<std::size_t> out;
        for (std::size_t v : part.values)
            if (c.from_code.count(v) != 0) out.push_back(v);
        return out;
    }

    /// Instantiation `j` of `word`: position i of partition values L takes L[(j + i) mod |L|]; from
    /// j = base_ on, a partition with values from the code takes the (j - base_)-th of them.
    [[nodiscard]] Word instantiate(const Word& word, std::size_t j) const {
        Word out;
        for (std::size_t i = 0; i < word.size(); ++i) {
            const AbstractInput& a = alphabet_[word[i]];
            if (a.wait) {
                out.push_back(refiner_.concrete().inputs().at(kWait));
                continue;
            }
            std::optional<std::size_t> value;
            if (a.partition) {
                const auto& callin = refiner_.callins()[a.callin];
                const auto& values = callin.partitions[*a.partition].values;
                const auto code = j < base_ ? std::vector<std::size_t>{} : code_values(callin, callin.partitions[*a.partition]);
                value = code.empty() ? values[(j + i) % values.size()] : code[(j - base_) % code.size()];
            }
            out.push_back(refiner_.concrete_symbol(a.callin, value));
        }
        return out;
    }

    /// Varies the value of one partitioned position q of `base` (the first instantiation), last
    /// position first, keeping every other value. When the values answer differently there (each
    /// answer confirmed by re-runs), gives the refinement loop a split of the partition by the answers
    /// (returns nullopt) or, over budget, explains (with q); when no single position explains the
    /// difference, explains that (with the last partitioned position, if any).
    std::optional<std::pair<Unknown, std::optional<std::size_t>>> refine_or_explain(const Word& word, const Word& base) {
        const std::size_t n = word.size();
        const auto& out_names = refiner_.concrete().outputs();
        std::optional<std::size_t> last_partitioned;
        for (std::size_t q = n; q-- > 0;) {
            const AbstractInput& a = alphabet_[word[q]];
            if (!a.partition) continue;
            if (!last_partitioned) last_partitioned = q;
            auto& callin = refiner_.callins()[a.callin];
            const AbstractPartition part = callin.partitions[*a.partition];
            if (part.values.size() < 2) continue;
            std::vector<Word> keys;                       // answers from q on, in order of first appearance
            std::vector<std::vector<std::size_t>> groups;
            std::vector<Word> ran;
            for (std::size_t v : part.values) {
                Word c = base;
                c[q] = refiner_.concrete_symbol(a.callin, v);
                const Word r = refiner_.run_concrete(c);
                ran.push_back(std::move(c));
                const Word key(r.begin() + static_cast<std::ptrdiff_t>(q), r.end());
                const auto at = std::find(keys.begin(), keys.end(), key);
                if (at == keys.end()) {
                    keys.push_back(key);
                    groups.push_back({v});
                } else {
                    groups[static_cast<std::size_t>(at - keys.begin())].push_back(v);
                }
            }
            if (groups.size() < 2) continue;
            refiner_.confirm(ran);  // every answer the split would rest on, re-run past the cache
            std::size_t d = 0;  // first position (from q) where the groups' answers differ
            while (std::all_of(keys.begin(), keys.end(), [&](const Word& k) { return k[d] == keys.front()[d]; })) ++d;
            const std::string split_by = text(word, q + d + 1);
            std::string example;
            for (std::size_t g = 0; g < groups.size(); ++g)
                example += (g ? ", " : "") + std::string("'") + callin.pool_values[groups[g].front()] + "' " +
                           out_names.name(keys[g][d]);
            if (refiner_.report().refinements.size() >= refiner_.options().max_refinements)
                return std::pair{Unknown{Unknown::Source::Disagreeing,
                                "values of " + inputs_.name(word[q]) + " still answer differently after the refinement budget (" +
                                    std::to_string(refiner_.options().max_refinements) + " splits): " + example},
                        q};
            // Split: one partition per answer, named after it, in order of first appearance.
            std::vector<AbstractPartition> into;
            std::set<std::string> used;
            for (const auto& p : callin.partitions) used.insert(p.name);
            used.erase(part.name);
            RefinementRecord record{callin.name, part.name, {}, split_by};
            std::vector<std::size_t> others;
            for (std::size_t o = 0; o < callin.partitions.size(); ++o)
                if (o != *a.partition)
                    others.insert(others.end(), callin.partitions[o].values.begin(), callin.partitions[o].values.end());
            const auto expressions = split_guards(part.guard, callin.parameters, callin.pool_values, groups, others);
            for (std::size_t g = 0; g < groups.size(); ++g) {
                const std::string answer = out_names.name(keys[g][d]);
                // Named after the answer that tells the groups apart: its own (`any.ok`), or a later
                // one when the difference shows only further on (`any.then-err`).
                const std::string stem = part.name + (d == 0 ? "." : ".then-") + partition_word(answer);
                std::string name = stem;
                for (int k = 2; used.count(name); ++k) name = stem + "-" + std::to_string(k);
                used.insert(name);
                // The guard: an expression of the language when split_guards finds one (what the
                // values answered stays in the name and split_by), else the parent's words and the answer.
                AbstractPartition np{name,
                                     expressions ? (*expressions)[g]
                                                 : (part.guard.empty() ? std::string() : part.guard + "; ") +
                                                       "answers " + answer + " at the end of " + split_by,
                                     groups[g], part.name, split_by};
                record.into.push_back(name);
                into.push_back(std::move(np));
            }
            refiner_.give(Split{a.callin, *a.partition, std::move(into), std::move(record)});
            return std::nullopt;
        }
        return std::pair{Unknown{Unknown::Source::Disagreeing,
                        "instantiations of " + text(word) + " answer differently, and no single partition's values explain it"},
                last_partitioned};
    }

    Refiner& refiner_;
    std::vector<AbstractInput> alphabet_;
    Alphabet inputs_;
    Alphabet outputs_;
    Symbol err_ = 0;
    std::set<Symbol> unknown_;
    DeviceTraits traits_;
    std::size_t instantiations_ = 1;
    std::size_t base_ = 1;  // instantiations of sampled values; the rest run values from the code
    Word current_;
    std::map<Word, Word> answers_;
    std::map<Word, Unknown> reasons_;
};

/// Access words of the typestate's states over its legal transitions (callins, then `wait`).
std::vector<std::optional<std::vector<std::string>>> access_words(const Typestate& t) {
    std::vector<std::optional<std::vector<std::string>>> access(t.states.size());
    std::deque<StateId> queue{t.initial};
    access[t.initial].emplace();
    while (!queue.empty()) {
        const StateId s = queue.front();
        queue.pop_front();
        const auto visit = [&](StateId to, const std::string& input) {
            if (access[to]) return;
            access[to] = *access[s];
            access[to]->push_back(input);
            queue.push_back(to);
        };
        for (std::size_t c = 0; c < t.callins.size(); ++c)
            if (t.states[s].callins[c]) visit(*t.states[s].callins[c], t.callins[c]);
        if (t.states[s].callback) visit(t.states[s].callback->target, std::string(kWait));
        else if (t.states[s].quiet_target) visit(*t.states[s].quiet_target, std::string(kWait));
    }
    return access;
}

}  // namespace

PartitionError::PartitionError(std::vector<std::string> inputs, std::vector<std::string> first,
                               std::vector<std::string> second, std::string detail)
    : NondeterminismError(std::move(inputs), std::move(first), std::move(second)), detail_(std::move(detail)) {
    message_ = std::string(NondeterminismError::what()) + ": " + detail_;
}

bool is_parameterised(const Device& device) { return !device.describe().parameterised.empty(); }

RefinedSpec learn_with_refinement(Device& device, const LearnOptions& learn_options, const RefinementOptions& options) {
    const DeviceDescription description = device.describe();
    Refiner refiner(device, callins_of(device, description), options, false);
    double seconds = 0;
    for (;; refiner.apply_verdict()) {
        AbstractDevice abstract(refiner);
        Device* devices[] = {&abstract};
        LearnOptions learn = learn_options;
        learn.seed.reset();            // the alphabet changes between iterations
        learn.counterexample.reset();
        // The flake policy runs below on the concrete device (recheck_cover); the abstract device
        // answers err once a refinement is pending, which a re-run would read as non-determinism.
        learn.flake_check = false;
        // Not yet searched beyond the bound: its random words run abstract inputs with values that
        // refinement has not split yet, and a disagreement there is a NondeterminismError, not a
        // split. The refined spec is then established by the bound alone (no provenance.explored).
        learn.equivalence.explore_words_per_transition = 0;
        if (learn.name.empty()) learn.name = description.class_name;
        if (learn.device_label.empty()) learn.device_label = description.name;
        LearnedSpec learned = learn_spec(devices, learn);
        seconds += learned.seconds;
        if (refiner.refining()) continue;  // a split or a late unknown: learn again on the new alphabet
        // The three-valued typestate of the learned machine, with each unknown's reason.
        const MealyMachine& m = learned.machine;
        const std::string name = spec::sanitize_name(learn.name);
        std::map<Symbol, Unknown> unknown_outputs;
        unknown_outputs[m.outputs().at(kUnknownPurpose)] = Unknown{Unknown::Source::Purpose, ""};
        unknown_outputs[m.outputs().at(kUnknownUnresolved)] = Unknown{Unknown::Source::Unresolved, ""};
        unknown_outputs[m.outputs().at(kUnknownDisagreeing)] = Unknown{Unknown::Source::Disagreeing, ""};
        Typestate t = typestate_of(m, name, unknown_outputs);
        const auto access = access_words(t);
        for (StateId s = 0; s < t.states.size(); ++s)
            for (auto& [c, u] : t.states[s].unknown) {
                if (!access[s]) continue;
                std::vector<std::string> names = *access[s];
                names.push_back(t.callins[c]);
                const Word w = word_of(names, abstract.inputs());
                (void)abstract.answer(w);
                if (const Unknown* why = abstract.reason(w)) u.reason = why->reason;
            }
        // No answer of the result is believed on one run: its transition cover, again past the cache.
        abstract.recheck_cover(m, learned.access_sequences);
        if (refiner.refining()) continue;
        // Declarations: signatures, the final partitions with the values that ran, the environment role.
        std::vector<spec::CallinDeclaration> declarations;
        for (std::size_t c = 0; c < refiner.callins().size(); ++c) {
            const auto& callin = refiner.callins()[c];
            spec::CallinDeclaration d;
            d.name = callin.name;
            for (const auto& e : description.environment) {
                if (e == callin.name) d.environment = true;
                for (Symbol s : callin.pool_inputs)
                    if (device.inputs().name(s) == e) d.environment = true;
            }
            if (callin.parameterised()) {
                d.parameters.emplace();
                for (const auto& [pname, ptype] : callin.parameters) d.parameters->push_back({pname, ptype});
                const std::set<std::size_t> ran = refiner.values_run(c);
                for (const auto& part : callin.partitions) {
                    spec::Partition sp{part.name, part.guard, {}, part.split_from, part.split_by};
                    for (std::size_t v : part.values) {
                        (ran.count(v) != 0 ? sp.values : sp.not_run).push_back(callin.pool_values[v]);
                        if (ran.count(v) != 0 && callin.from_code.count(v) != 0) sp.from_code.push_back(callin.pool_values[v]);
                    }
                    d.partitions.push_back(std::move(sp));
                }
            }
            if (d.parameters || d.environment) declarations.push_back(std::move(d));
        }
        // The spec as a value, in the form the reader gives it (write_spec reads it back to check).
        spec::Spec s;
        if (learned.spec) {
            s = *learned.spec;  // bounds, timing, assumptions, provenance as learn_spec fills them
        } else {
            s.bounds.distinguisher = std::max(learned.bound, learn.equivalence.bound);
            s.timing.tmax_ms = description.tmax_ms;
            if (description.tmin_ms && *description.tmin_ms > 0) s.timing.tmin_ms = description.tmin_ms;
            s.assumptions.quiet_is_stable = abstract.traits().quiet.has_value();
            s.provenance.tool = tool_version();
            s.provenance.device = learn.device_label;
            s.provenance.framework = description.framework;
        }
        s.declarations = spec::normalised_declarations(std::move(declarations));
        t.input_info = spec::input_info_of(s.declarations);
        s.typestate = canonical(t);
        s.source = {};
        RefinedSpec out{std::move(learned), spec::write_spec(s), {}};
        out.learned.spec = std::move(s);
        out.learned.not_a_closure.clear();
        out.learned.seconds = seconds;
        RefinementReport& r = refiner.report();
        r.final_alphabet = refiner.alphabet().size() - 1;
        r.learning_rounds = refiner.round() + 1;
        r.concrete_executed = refiner.executed();
        r.unknown_transitions = 0;
        for (const auto& st : out.learned.spec->typestate.states) r.unknown_transitions += st.unknown.size();
        r.values_from_code = values_from_code(device);
        out.report = r;
        return out;
    }
}

// ---- PartitionedDevice ----

struct PartitionedDevice::Impl {
    Impl(Device& concrete, std::vector<CallinEntry> callins, const Typestate* stored,
         std::vector<spec::CallinDeclaration> declared)
        : refiner(concrete, std::move(callins), RefinementOptions{}, true,
                  stored && stored->has_unknown() ? std::optional<Typestate>(*stored) : std::nullopt),
          abstract(refiner),
          declarations(std::move(declared)) {}
    Refiner refiner;
    AbstractDevice abstract;
    std::vector<spec::CallinDeclaration> declarations;
};

namespace {

/// The device's callins with the partitions of `declarations` (values matched by printed value).
std::vector<CallinEntry> fixed_callins(const Device& device, const std::vector<spec::CallinDeclaration>& declarations) {
    std::vector<CallinEntry> callins = callins_of(device, device.describe());
    for (const auto& d : declarations) {
        if (d.partitions.empty()) continue;
        const auto it = std::find_if(callins.begin(), callins.end(), [&](const CallinEntry& c) { return c.name == d.name; });
        if (it == callins.end() || !it->parameterised())
            throw std::invalid_argument(device.name() + " declares no parameterised callin '" + d.name +
                                        "' (the spec's partitions need its values)");
        std::vector<AbstractPartition> parts;
        for (const auto& p : d.partitions) {
            AbstractPartition a{p.name, p.guard, {}, p.split_from, p.split_by};
            for (const auto& v : p.values) {
                const auto at = std::find(it->pool_values.begin(), it->pool_values.end(), v);
                if (at == it->pool_values.end())
                    throw std::invalid_argument(device.name() + " offers no value '" + v + "' for callin '" + d.name +
                                                "' (partition '" + p.name + "' of the spec)");
                a.values.push_back(static_cast<std::size_t>(at - it->pool_values.begin()));
            }
            if (a.values.empty())
                throw std::invalid_argument("partition '" + p.name + "' of callin '" + d.name + "' lists no value to run");
            parts.push_back(std::move(a));
        }
        it->partitions = std::move(parts);
    }
    return callins;
}

}  // namespace

PartitionedDevice::PartitionedDevice(Device& concrete, const std::vector<spec::CallinDeclaration>& declarations,
                                     const Typestate* stored)
    : impl_(std::make_unique<Impl>(concrete, fixed_callins(concrete, declarations), stored, declarations)) {}
PartitionedDevice::~PartitionedDevice() = default;
const Alphabet& PartitionedDevice::inputs() const { return impl_->abstract.inputs(); }
const Alphabet& PartitionedDevice::outputs() const { return impl_->abstract.outputs(); }
DeviceTraits PartitionedDevice::traits() const { return impl_->abstract.traits(); }
std::string PartitionedDevice::name() const { return impl_->abstract.name(); }
DeviceDescription PartitionedDevice::describe() const { return impl_->abstract.describe(); }
void PartitionedDevice::check_timing() { impl_->abstract.check_timing(); }
bool PartitionedDevice::override_timing(const TimingOverride& timing) { return impl_->abstract.override_timing(timing); }
void PartitionedDevice::reset() { impl_->abstract.reset(); }
Symbol PartitionedDevice::step(Symbol input) { return impl_->abstract.step(input); }
std::optional<Symbol> PartitionedDevice::confirm_wait(std::span<const Symbol> prefix, std::chrono::milliseconds timeout) {
    return impl_->abstract.confirm_wait(prefix, timeout);
}
RunResult PartitionedDevice::run(std::span<const Symbol> inputs) { return impl_->abstract.run(inputs); }
std::uint64_t PartitionedDevice::concrete_runs() const noexcept { return impl_->refiner.executed(); }

std::vector<spec::CallinDeclaration> PartitionedDevice::declarations_run() const {
    std::vector<spec::CallinDeclaration> out = impl_->declarations;
    auto& callins = impl_->refiner.callins();
    for (auto& d : out) {
        if (d.partitions.empty()) continue;
        const auto it = std::find_if(callins.begin(), callins.end(), [&](const CallinEntry& c) { return c.name == d.name; });
        if (it == callins.end()) continue;
        const std::set<std::size_t> ran = impl_->refiner.values_run(static_cast<std::size_t>(it - callins.begin()));
        for (std::size_t p = 0; p < d.partitions.size() && p < it->partitions.size(); ++p) {
            spec::Partition& part = d.partitions[p];
            part.values.clear();  // the declared values, narrowed to those that ran; the others join not_run
            for (std::size_t v : it->partitions[p].values)
                (ran.count(v) != 0 ? part.values : part.not_run).push_back(it->pool_values[v]);
        }
    }
    return spec::normalised_declarations(std::move(out));
}

std::string values_sampled(const std::vector<spec::CallinDeclaration>& declarations) {
    std::string out;
    for (const auto& d : spec::normalised_declarations(declarations))
        for (const auto& p : d.partitions) {
            std::string line = spec::abstract_input(d.name, p.name) + ": ";
            for (std::size_t i = 0; i < p.values.size(); ++i) line += (i ? ", " : "") + p.values[i];
            if (p.values.empty()) line += "none";
            if (!p.from_code.empty()) {
                line += " (from the code: ";
                for (std::size_t i = 0; i < p.from_code.size(); ++i) line += (i ? ", " : "") + p.from_code[i];
                line += ")";
            }
            if (!p.not_run.empty()) {
                line += " (offered, never run: ";
                for (std::size_t i = 0; i < p.not_run.size(); ++i) line += (i ? ", " : "") + p.not_run[i];
                line += "; the guard is wider than the values run)";
            }
            out += (out.empty() ? "values sampled: " : "; ") + line;
        }
    return out;
}

std::string values_from_code(const Device& device) {
    const std::string status = device.describe().values_from_code;
    return "values from the code: " +
           (status.empty() ? std::string("not collected (") + device.name() +
                                 " does not report the values its code compares against; values are sampled only)"
                           : status);
}

PartitionPlan plan_partitions(Device& concrete, const spec::Spec* spec) {
    PartitionPlan plan;
    const bool has_partitions =
        spec != nullptr && std::any_of(spec->declarations.begin(), spec->declarations.end(),
                                       [](const spec::CallinDeclaration& d) { return !d.partitions.empty(); });
    // A device over abstract inputs already (a model of the spec) runs as it is; the alphabet check
    // of the caller names any mismatch.
    if (!is_parameterised(concrete)) return plan;
    if (has_partitions)
        plan.partitioned = std::make_unique<PartitionedDevice>(concrete, spec->declarations, &spec->typestate);
    else
        plan.refine = true;
    return plan;
}

}  // namespace typestar
