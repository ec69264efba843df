// Data SULs and the concrete query path for register automata: a black-box device that answers a
// data word, a cache with counters and a determinism check, and the lockstep comparison of a
// device's answers with a register automaton. Design note: a data word is a word over concrete
// values; every concrete query goes through DataOracle, so the counts are the queries executed. The
// roles are the typestate pipeline's: DataSul is the device, DataOracle the cached, counted oracle
// (QueryCounter, the same phases and non-determinism policy as sul/cache.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "typestar/ra/automaton.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar::ra {

/// A device over data words: reset, then one output per input.
class DataSul {
public:
    virtual ~DataSul() = default;
    /// Back to the initial state. Throws DeviceError when the device cannot.
    virtual void reset() = 0;
    /// One input; the device's output. Throws DeviceError when the device cannot answer.
    virtual DataSymbol step(const DataSymbol& input) = 0;
};

/// A simulated register automaton as a device (for tests, benches and `model:` specs).
class SimulatorSul final : public DataSul {
public:
    /// Keeps a reference; check_valid(ra) must have passed.
    explicit SimulatorSul(const RegisterAutomaton& ra) : sim_(ra) {}
    void reset() override { sim_.reset(); }
    DataSymbol step(const DataSymbol& input) override { return sim_.step(input); }

private:
    RaSimulator sim_;
};

/// What learning or checking a register automaton cost, before the one counter. Deprecated: the
/// data oracle counts into a QueryCounter (QueryStats, with phases) like every other oracle; the
/// learner's tree queries are RaLearnResult::tree_queries / DataOracle::tree_queries().
struct [[deprecated("use QueryStats (DataOracle::stats()) and DataOracle::tree_queries()")]] RaStats {
    std::size_t queries = 0;
    std::size_t executed = 0;
    std::size_t steps = 0;
    std::size_t tree_queries = 0;
    std::size_t equivalence_queries = 0;
    std::size_t rounds = 0;
};

/// A data word on which a device and a register automaton differ: the inputs up to and including
/// the differing step, the device's answers to them, and why they differ (expected vs got).
struct RaCounterexample {
    DataWord inputs;
    DataWord outputs;     ///< the device's answers
    std::string reason;   ///< expected vs got
};

/// The one path to a device: a prefix-closed cache (a word answered once is never run again, and
/// every prefix of it is answered too) that counts into a QueryCounter like the typestate oracle
/// stack (queries asked, executed, symbols executed, in the counter's current phase), and the same
/// non-determinism policy: a device that answers a cached prefix differently has that prefix run
/// again `reruns` times to collect evidence, then NondeterminismError names the word and every
/// distinct answer with how often it was seen.
class DataOracle {
public:
    /// `decls` name the symbols in error messages; both must outlive the oracle. Counts into the
    /// oracle's own counter.
    DataOracle(DataSul& sul, const RegisterAutomaton& decls) : sul_(&sul), decls_(&decls), counter_(&own_) {}
    /// Counts into `counter` (outliving the oracle).
    DataOracle(DataSul& sul, const RegisterAutomaton& decls, QueryCounter& counter)
        : sul_(&sul), decls_(&decls), counter_(&counter) {}
    DataOracle(const DataOracle&) = delete;
    DataOracle& operator=(const DataOracle&) = delete;

    /// The outputs answering `inputs` (one per input).
    DataWord query(const DataWord& inputs);
    /// The next input of an adaptive word given its inputs and answers so far, or nothing to stop.
    using NextInput = std::function<std::optional<DataSymbol>(const DataWord& inputs, const DataWord& outputs)>;
    /// A word built step by step from the device's answers (`next` chooses each input, e.g. from an
    /// output value): answered from the cache while it can, then the device runs it once (one reset,
    /// replaying the cached prefix): one query executed for the whole word, where querying each
    /// prefix costs one per step. Same cache, counts and non-determinism policy as query. Sets
    /// `inputs` to the word; returns its outputs.
    DataWord query_adaptive(DataWord& inputs, const NextInput& next);
    /// The counter's statistics.
    [[nodiscard]] const QueryStats& stats() const noexcept { return counter_->stats(); }
    /// The counter (the experiment loop opens its phases on it).
    [[nodiscard]] QueryCounter& counter() noexcept { return *counter_; }
    /// SL* tree queries asked through this oracle (each a prefix and a symbolic suffix).
    [[nodiscard]] std::size_t tree_queries() const noexcept { return tree_queries_; }
    void count_tree_query() noexcept { ++tree_queries_; }
    /// Re-runs of a contradicted prefix before NondeterminismError.
    std::size_t reruns = 2;

private:
    [[noreturn]] void throw_nondeterminism(const DataWord& prefix, const DataWord& cached, const DataWord& fresh);
    /// Caches `o` as the answer to `prefix`'s last step and appends it to `out` (the answers so far);
    /// a different cached answer is run again, then a NondeterminismError.
    void remember(const DataWord& prefix, DataWord& out, DataSymbol o);

    DataSul* sul_;
    const RegisterAutomaton* decls_;
    QueryCounter own_;
    QueryCounter* counter_;
    std::map<DataWord, DataSymbol> cache_;  // input prefix -> the output of its last step
    std::size_t tree_queries_ = 0;
};

/// Compares a device's run with a register automaton step by step. Values the automaton outputs
/// as `fresh` may differ from the device's: a device value answering a `fresh` output must be new
/// in the device's run, and is then identified with the automaton's value from there on (inputs
/// are translated through that identification).
class LockstepCheck {
public:
    /// Keeps a reference to `spec` (valid, outliving the check).
    explicit LockstepCheck(const RegisterAutomaton& spec);
    /// Back to the start of a run.
    void reset();
    /// One step: `input` and `output` as the device saw them. Returns an empty string when the
    /// automaton agrees, else why not (expected vs got, in the device's values).
    std::string step(const DataSymbol& input, const DataSymbol& output);
    /// The spec's location and register values after the steps so far.
    [[nodiscard]] const RaSimulator& simulator() const noexcept { return sim_; }
    /// The spec's answer to the last step (in the spec's values), nothing when it could not step.
    [[nodiscard]] const std::optional<DataSymbol>& expected() const noexcept { return expected_; }
    /// The device's value that `spec_value` (a value of the spec's registers) stands for: the device's
    /// value answering a `fresh` output identified with it, else itself.
    [[nodiscard]] Value device_value(Value spec_value) const;

private:
    const RegisterAutomaton* spec_;
    RaSimulator sim_;
    std::map<Value, Value> device_to_spec_;
    std::vector<Value> device_values_;
    std::optional<DataSymbol> expected_;
};

/// Candidate values for the next parameter of `type`, one per data class relative to the
/// `relevant` values (in first-occurrence order for `id`): each relevant value, then for `id` one
/// fresh value, for `int` below, between neighbours and above; fresh values avoid every value in
/// `avoid` (the whole word so far). The order is a function of the order type alone, so the i-th
/// candidate means the same class in two runs whose values have the same order type.
[[nodiscard]] std::vector<Value> class_candidates(DataType type, const std::vector<Value>& relevant,
                                                  const std::vector<Value>& avoid);

}  // namespace typestar::ra
