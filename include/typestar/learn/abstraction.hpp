// The alphabet abstraction of alphabet refinement (PSYCO): callins and their partitions, the
// refinement verdicts, the Refiner (what survives refinements) and the AbstractDevice a learner runs
// on (src/learn/abstract_device.cpp). Internal (namespace detail), installed because the session
// builds on it: its learn_with_refinement drives the Refiner with learn_spec, its PartitionedDevice
// runs a stored spec's fixed partitions through it. The guard language of the spec format is handed
// in (SplitGuards), so the learners read no format.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/learn/refinement.hpp"
#include "typestar/sul/stack.hpp"

#include <spdlog/spdlog.h>

namespace typestar::detail {

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
std::string partition_word(const std::string& output);

/// The guards of a split in the spec format's guard language, given the parent partition's guard,
/// the callin's parameters (name, type), its pool of printed values, the groups of pool indices the
/// split makes and the pool indices of the callin's other partitions: one guard per group, or
/// nullopt when the guards stay in words. The session's split_guards (the format's guard language);
/// empty in fixed mode, where nothing is split.
using SplitGuards = std::function<std::optional<std::vector<std::string>>(
    const std::string& parent, const std::vector<std::pair<std::string, std::string>>& parameters,
    const std::vector<std::string>& pool_values, const std::vector<std::vector<std::size_t>>& groups,
    const std::vector<std::size_t>& others)>;

/// What survives refinements: the callins and their partitions, and the one oracle stack over the
/// concrete device (its cache keeps every concrete answer across refinements, PSYCO's shared
/// MemoizedTable, and its non-determinism guard sees every run). In fixed mode (checking a stored
/// spec) nothing is refined and a disagreement is a PartitionError.
class Refiner {
public:
    Refiner(Device& device, std::vector<CallinEntry> callins, RefinementOptions options, bool fixed,
            std::optional<Typestate> stored = std::nullopt, SplitGuards split_guards = {})
        : device_(device), stack_(device), callins_(std::move(callins)), options_(std::move(options)),
          fixed_(fixed), stored_(std::move(stored)), split_guards_(std::move(split_guards)) {
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
    /// The guards of a split (SplitGuards), nullopt when none was handed in.
    [[nodiscard]] std::optional<std::vector<std::string>> split_guards(
        const std::string& parent, const std::vector<std::pair<std::string, std::string>>& parameters,
        const std::vector<std::string>& pool_values, const std::vector<std::vector<std::size_t>>& groups,
        const std::vector<std::size_t>& others) const {
        if (!split_guards_) return std::nullopt;
        return split_guards_(parent, parameters, pool_values, groups, others);
    }

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
                out.push_back({abstract_input(callin.name, callin.partitions[p].name), c, p, false});
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
    [[nodiscard]] static std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.learn"); }

    Device& device_;
    OracleStack stack_;
    std::vector<CallinEntry> callins_;
    RefinementOptions options_;
    bool fixed_ = false;
    std::optional<Typestate> stored_;
    SplitGuards split_guards_;
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
    explicit AbstractDevice(Refiner& refiner);

    [[nodiscard]] const Alphabet& inputs() const override { return inputs_; }
    [[nodiscard]] const Alphabet& outputs() const override { return outputs_; }
    [[nodiscard]] DeviceTraits traits() const override { return traits_; }
    [[nodiscard]] std::string name() const override {
        return refiner_.concrete().name() + (refiner_.fixed() ? " (partitions)" : " (abstract)");
    }
    [[nodiscard]] DeviceDescription describe() const override;
    void check_timing() override { refiner_.concrete().check_timing(); }
    bool override_timing(const TimingOverride& timing) override { return refiner_.concrete().override_timing(timing); }
    void reset() override { current_.clear(); }
    Symbol step(Symbol input) override {
        current_.push_back(input);
        return answer(current_).back();
    }
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override;
    [[nodiscard]] std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                     std::chrono::milliseconds timeout) override;

    /// The abstract answer of `word` (memoised for this iteration).
    Word answer(const Word& word);

    /// Re-runs past the concrete cache, options().rechecks times, every instantiation of every
    /// transition of `machine` (over this device's alphabets) from its states' access words: the
    /// transition cover the result relies on, so that no single cached answer is believed unseen
    /// twice. Transitions after `err` or answered unknown have nothing concrete behind them.
    void recheck_cover(const MealyMachine& machine, const std::vector<Word>& access);

    /// Why `word` (abstract) was answered unknown, if it was.
    [[nodiscard]] const Unknown* reason(const Word& word) const {
        const auto it = reasons_.find(word);
        return it == reasons_.end() ? nullptr : &it->second;
    }

private:
    [[nodiscard]] static std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.learn"); }

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
    [[nodiscard]] static std::vector<std::size_t> code_values(const CallinEntry& c, const AbstractPartition& part);

    /// Instantiation `j` of `word`: position i of partition values L takes L[(j + i) mod |L|]; from
    /// j = base_ on, a partition with values from the code takes the (j - base_)-th of them.
    [[nodiscard]] Word instantiate(const Word& word, std::size_t j) const;

    /// Varies the value of one partitioned position q of `base` (the first instantiation), last
    /// position first, keeping every other value. When the values answer differently there (each
    /// answer confirmed by re-runs), gives the refinement loop a split of the partition by the answers
    /// (returns nullopt) or, over budget, explains (with q); when no single position explains the
    /// difference, explains that (with the last partitioned position, if any).
    std::optional<std::pair<Unknown, std::optional<std::size_t>>> refine_or_explain(const Word& word, const Word& base);

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

}  // namespace typestar::detail
