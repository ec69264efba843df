// A class under learning run in this process, with real asynchronous callbacks.
// Design note: every query gets a fresh instance from the reset snippet and a fresh *epoch*: the
// sink its listeners hold belongs to that epoch only, so a callback of an old instance can never
// reach a later query. Callbacks are queued in arrival order, also while a callin runs; `wait`
// takes the oldest or answers `quiet` after tmax (DroidStar §5.2). A callback arriving after a
// `wait` answered `quiet` (before the next callin, in the same query or after it ended) proves tmax
// too small; one arriving less than tmin after a callin violates tmin. Both are recorded and, by
// default, thrown as DeviceError before the device answers again — never a wrong output.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "typestar/core/alphabet.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/purpose.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

namespace detail {
struct TimingMonitor;
}

/// How callins with several variants (DroidStar §2.1) become inputs.
enum class VariantMode {
    /// One input per callin; every query that uses such a callin runs once per variant index
    /// (variant v of each callin, v modulo its count) and a difference throws VariantError.
    Compare,
    /// One input per variant, named `callin/label` (DroidStar §2.3: splitting the symbol).
    Split,
    /// One input per callin, always its first variant.
    First,
};

/// What the device does when a timing assumption is violated.
enum class TimingViolationPolicy {
    Error,  ///< throw DeviceError before answering again (default)
    Warn,   ///< log a warning to "typestar.device" and count it
};

/// Options of InProcessDevice. Plain data with defaults.
struct InProcessConfig {
    VariantMode variants = VariantMode::Compare;
    /// Overrides the definition's timing.
    std::optional<QuiescenceTiming> timing;
    TimingViolationPolicy violations = TimingViolationPolicy::Error;
    /// After a run that ends in a `wait` answered quiet, listen this much longer before the answer
    /// is given: a callback arriving then breaks tmax in this run (TimingError), so the word is run
    /// again (run_with_timing_retries) instead of its answer entering a cache and the violation
    /// being found only when the next query starts; it ends at the first violation. nullopt: tmax;
    /// 0: off.
    std::optional<std::chrono::milliseconds> quiet_grace;
    /// What name() says: the device URL it was made from (make_device sets `inproc:KEY`), or empty
    /// for "<class> (in-process)", which is not a URL: a class of the user's own is not reachable as
    /// `inproc:` (serve it from its test binary, `exec:BINARY#SPEC`; docs/gtest-plugin.md).
    std::string label;
    /// Parameterised callins (LearningPurpose::callin_with): concrete values generated per partition
    /// (fixed generators give all theirs), with the seed `value_seed` + the callin's index.
    std::size_t values_per_partition = 4;
    std::uint64_t value_seed = 1;
    /// Values from the class's code (typestar/device/trace_cmp.hpp): when the test binary links the
    /// trace-cmp collector, the constructor runs a short probe (each sampled value of a callin with
    /// one `int` parameter, alone and followed by each callin, after nothing or each plain callin)
    /// and adds c-1, c, c+1 for every constant c the class compared against, to the partitions whose
    /// declared range holds them (describe() marks them from_code). False: sampled values only.
    bool values_from_code = true;
    /// At most this many values from the code per callin (the smallest distance to a constant first).
    std::size_t max_values_from_code = 32;
};

/// Timing observations of a device (plain data). Delays are measured from the start of the latest
/// callin of the query to the callback's arrival.
struct TimingReport {
    std::uint64_t callbacks = 0;        ///< callbacks that arrived during their query
    std::uint64_t late = 0;             ///< callbacks that arrived after their query ended (dropped)
    std::uint64_t tmax_violations = 0;  ///< callbacks after a `wait` answered `quiet`
    std::uint64_t tmin_violations = 0;  ///< callbacks sooner than tmin after a callin
    std::uint64_t harness_errors = 0;   ///< undeclared callback names emitted, CallbackSink::fail reports
    double min_delay_ms = 0;            ///< smallest observed delay (0 when none observed)
    double max_delay_ms = 0;            ///< largest observed delay
    std::vector<std::string> messages;  ///< the first violation messages (at most 16)
};

/// Two variants of one callin answer the same input word differently (DroidStar §2.1): the
/// non-determinism is controllable, so split the symbol (VariantMode::Split).
class VariantError : public NondeterminismError {
public:
    VariantError(std::string callin, std::string first_label, std::string second_label,
                 std::vector<std::string> inputs, std::vector<std::string> first_outputs,
                 std::vector<std::string> second_outputs);
    [[nodiscard]] const std::string& callin() const noexcept { return callin_; }
    [[nodiscard]] const std::string& first_label() const noexcept { return first_label_; }
    [[nodiscard]] const std::string& second_label() const noexcept { return second_label_; }
    [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

private:
    std::string callin_, first_label_, second_label_, message_;
};

/// Runs a ClassDefinition: inputs are the callins (declared order; split variants in place; a
/// parameterised callin's concrete values in place, `callin/vK` for the K-th distinct value, or
/// `callin` when it has one value) then `wait`; outputs `ok`, `quiet`, `err`, then the callback symbols (declared order), all fixed at
/// construction, and `unknown:purpose` (kOutsidePurpose, last) when the definition has a learning
/// purpose: a callin the purpose denies answers it without running (a denied `wait` answers `err`),
/// and the query ends there like after `err` (typestar/core/outside_purpose.hpp). A callin that throws
/// answers `err`, and `err` is absorbing (every later input of the query answers `err` without
/// running). Traits: closure_traits, without `quiet` when the
/// definition's quiet_is_stable is false. Not thread-safe (one query at a time); callbacks may
/// arrive on any thread.
class InProcessDevice final : public Device {
public:
    /// Throws std::invalid_argument when the definition is invalid (ClassDefinition::validate), a
    /// partition generates no value, or one value is in two partitions of a callin.
    explicit InProcessDevice(ClassDefinition definition, InProcessConfig config = {});
    ~InProcessDevice() override;
    InProcessDevice(const InProcessDevice&) = delete;
    InProcessDevice& operator=(const InProcessDevice&) = delete;

    [[nodiscard]] const Alphabet& inputs() const override { return inputs_; }
    [[nodiscard]] const Alphabet& outputs() const override { return outputs_; }
    [[nodiscard]] DeviceTraits traits() const override { return traits_; }
    /// InProcessConfig::label, or "<class> (in-process)".
    [[nodiscard]] std::string name() const override {
        return config_.label.empty() ? definition_.name + " (in-process)" : config_.label;
    }
    /// The definition's `deterministic` declaration (a simulation), else false.
    [[nodiscard]] bool deterministic() const override { return definition_.deterministic; }
    /// tmax / tmin over the definition's (and the config's) from now on; describe() says so. Call it
    /// before the first query. Throws std::invalid_argument when tmin would exceed tmax.
    bool override_timing(const TimingOverride& timing) override;
    bool declare_outputs(std::span<const std::string> names) override;
    /// The class name, its framework version, the timing in force (how it was set, the largest
    /// delay observed), the environment callins and the
    /// parameterised callins with their partitions and value inputs (session/refinement.hpp).
    [[nodiscard]] DeviceDescription describe() const override;

    /// Tears down the previous instance if still there, then makes a fresh one. Throws DeviceError
    /// for a violation recorded since the last check (e.g. a late callback of the previous query)
    /// or when the reset snippet throws.
    void reset() override;
    /// One callin or `wait`. Throws DeviceError when a timing violation or harness error was
    /// recorded (the answer would not be trustworthy), and in VariantMode::Compare for a callin with
    /// several variants outside run() (they are compared on whole runs only; never its first variant
    /// alone, silently).
    Symbol step(Symbol input) override;
    /// Runs `prefix`, then a `wait` listening for `timeout`, in one fresh instance.
    [[nodiscard]] std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                     std::chrono::milliseconds timeout) override;
    /// `wait` with `timeout` instead of tmax (the agent's wait request). Same contract as step.
    Symbol step_wait(std::chrono::milliseconds timeout);
    /// Closes the epoch and tears the instance down. Inside run_settled, after a run that ended in
    /// a quiet `wait`, first listens for the quiet grace while the instance lives: a teardown that
    /// mutes its callbacks (CountingSink, asio::EventLoop, QuietWindow) cannot hide a late one.
    void finish() noexcept override;
    /// Device::run, once per variant index in VariantMode::Compare (throwing VariantError on a
    /// difference); RunResult counts every executed step.
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override;

    /// The definition being run.
    [[nodiscard]] const ClassDefinition& definition() const noexcept { return definition_; }
    /// The timing in force.
    [[nodiscard]] const QuiescenceTiming& timing() const noexcept { return timing_; }
    /// A snapshot of the timing observations.
    [[nodiscard]] TimingReport timing_report() const;
    /// Throws a violation recorded and not yet thrown (call it after the last query: a late callback
    /// can still arrive then): TimingError for a late, queued or early callback (naming the
    /// callback, the delay, tmax and the option that raises it), DeviceError for a harness error.
    void check_timing() override;

private:
    struct InputInfo {
        std::size_t callin = 0;                // index into definition_.callins
        std::optional<std::size_t> variant;    // fixed variant (Split) or value index, else chosen per run
        bool wait = false;
    };

    /// check_timing(); `earlier_query`: the violations belong to a query that has answered (reset).
    void check_timing(bool earlier_query);
    Symbol step_impl(Symbol input, std::chrono::milliseconds timeout);
    /// Device::run with the quiet grace (InProcessConfig::quiet_grace) before the teardown when it
    /// ended quiet; a callback seen in the grace is a timing violation of this run (TimingError).
    RunResult run_settled(std::span<const Symbol> inputs);
    Symbol run_callin(const InputInfo& info);
    /// The output a callin_answering snippet returned (Mealy devices): known, or learned (added to
    /// the outputs); DeviceError for a name that cannot be an output.
    Symbol named_output(const std::string& callin, const std::string& answer);
    Symbol run_wait(std::chrono::milliseconds timeout);
    /// The "a callin ran while a callback was still queued" message (the epoch's mutex held).
    [[nodiscard]] std::string queued_callback_message(const std::string& callin, const std::string& callback,
                                                      double after) const;
    /// Marks whether a step runs (callbacks arriving outside one came between two steps).
    void set_in_step(bool running);
    /// Before a callin that a learning purpose filters: records a QueuedCallback violation when a
    /// queued callback arrived after the previous step had returned (an answer of the purpose that
    /// would depend on the callin's scheduling); true when it did.
    bool record_queued_between_steps(const std::string& callin);
    /// Per callin and partition, the values to run (sampled, then those from the code); per callin,
    /// the values from the code. Sets values_from_code_.
    struct CodeValues {
        std::vector<std::vector<std::vector<std::string>>> values;
        std::vector<std::set<std::string>> from_code;
    };
    CodeValues values_from_code();
    /// The constants compared while callin `c` ran with each of `sampled`, and the callins after it.
    std::set<std::int64_t> probe_constants(std::size_t c, const std::vector<std::string>& sampled) const;

    ClassDefinition definition_;
    InProcessConfig config_;
    QuiescenceTiming timing_;
    Alphabet inputs_;
    Alphabet outputs_;
    DeviceTraits traits_;
    std::vector<InputInfo> input_info_;
    std::vector<std::vector<std::string>> values_;  // per callin: a parameterised callin's value pool
    std::vector<DeviceDescription::Parameterised> parameterised_;
    std::string values_from_code_;  // DeviceDescription::values_from_code
    std::shared_ptr<detail::TimingMonitor> monitor_;  // shared with every epoch's sink
    std::shared_ptr<detail::Epoch> epoch_;
    std::shared_ptr<void> instance_;
    std::vector<StepRecord> history_;
    bool errored_ = false;
    std::optional<Symbol> outside_purpose_;  ///< kOutsidePurpose, when the definition has a filter
    Symbol first_named_ = 0;  ///< named callin outputs (Mealy devices) have this id or above
    std::size_t variant_round_ = 0;
    std::uint64_t query_number_ = 0;
    std::chrono::milliseconds quiet_grace_{0};
    bool settling_ = false;  ///< inside run_settled: finish() listens for the quiet grace first
    std::string timing_note_;  // DeviceDescription::timing_note after override_timing
};

}  // namespace typestar
