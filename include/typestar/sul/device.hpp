// The system under learning: one Device interface for learning and conformance alike.
// Design note: a device answers one input with one output (a callin with `ok`/`err`, `wait` with a
// callback or `quiet`); a refused callin is an output, a broken harness is a DeviceError. Every
// query runs as reset + steps inside a DeviceSession (RAII), so the tear-down always happens.
// What may be assumed about the answers (err absorbing, quiescent waits changing nothing,
// DroidStar §4.1) is declared by the device as DeviceTraits, and only the oracles exploit it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/alphabet.hpp"
#include "typestar/core/traits.hpp"

namespace typestar {

/// What one run of a word executed: its outputs (one per input, the tail after an absorbing output
/// filled in without running it) and how many steps and waits really ran.
struct RunResult {
    Word outputs;
    std::size_t steps = 0;
    std::size_t waits = 0;
    /// Runs of the word repeated past a timing violation before this answer (run_with_timing_retries).
    std::size_t timing_retries = 0;
};

/// What a device says about itself, for provenance and messages (asked, never inferred by casts).
struct DeviceDescription {
    std::string name;        ///< as Device::name(), e.g. "inproc:asynctask" or "http://127.0.0.1:4040"
    std::string class_name;  ///< the class behind it (learning purpose or agent status), may be empty
    std::string framework;   ///< the framework version it reports, may be empty
    std::optional<double> tmax_ms;  ///< the quiescence timeout it runs with, if it has one
    std::optional<double> tmin_ms;  ///< the minimum callback delay it assumes, if any
    /// Inputs performed by the peer, not the client (spec `role: environment`), in input order.
    /// Learning records them in the spec; the Monitor feeds them with Monitor::environment.
    std::vector<std::string> environment;

    /// One concrete value of a parameterised callin: running `input` runs the callin with `value`.
    struct ValueInput {
        std::string input;  ///< a device input, e.g. "connect/v2" (listed in inputs())
        std::string value;  ///< the printed argument tuple, e.g. "null"
        /// Found in the class's code (a constant it compares against, or one beside it), not
        /// sampled: refinement runs every such value (typestar/device/trace_cmp.hpp).
        bool from_code = false;
        bool operator==(const ValueInput&) const = default;
    };
    /// A declared partition of a parameterised callin: the abstract input `callin[name]`.
    struct Partition {
        std::string name;   ///< [A-Za-z0-9_.=<>!-]+
        std::string guard;  ///< the predicate in words, for the spec
        std::vector<ValueInput> values;
        bool operator==(const Partition&) const = default;
    };
    /// A parameterised callin (PSYCO): its concrete values are inputs of the device, grouped into
    /// partitions; alphabet refinement learns over the partitions (device/PROTOCOL.md, `parameters`).
    struct Parameterised {
        std::string callin;
        std::vector<std::pair<std::string, std::string>> parameters;  ///< (name, type) in order
        std::vector<Partition> partitions;
        bool operator==(const Parameterised&) const = default;
    };
    std::vector<Parameterised> parameterised;
    /// Whether the values of parameterised callins include values from the class's code: e.g.
    /// "trace-cmp: 3 constants compared, 5 values added", or "not collected (why)". Empty: the device
    /// does not say (a device over HTTP): refinement records "not collected" and samples only.
    std::string values_from_code;
    /// The largest callback delay it observed so far (from the latest callin to the callback), if it
    /// measures one: printed beside tmax, so that a user sees how much margin tmax leaves.
    std::optional<double> max_delay_ms;
    /// How tmax / tmin were obtained when not the device's own, e.g. "tmax 300 ms set by --tmax 300
    /// (the device's own: tmax 40 ms, tmin 2 ms)"; empty: the device's own.
    std::string timing_note;
    bool operator==(const DeviceDescription&) const = default;
};

/// tmax / tmin set by the user over a device's own (`--tmax MS` / `--tmin MS` of typestar learn and
/// check, TYPESTAR_TMAX / TYPESTAR_TMIN and --typestar_tmax / --typestar_tmin in tests), for every
/// device kind (Device::override_timing). The device says so in describe(), so the learned spec's
/// `timing:` and every assumptions block record it.
struct TimingOverride {
    std::optional<std::chrono::milliseconds> tmax;
    std::optional<std::chrono::milliseconds> tmin;
    /// Where it came from, for messages, e.g. "--tmax 300"; empty: "an override".
    std::string origin;
    [[nodiscard]] bool empty() const noexcept { return !tmax && !tmin; }
    /// "tmax 300 ms set by --tmax 300 (the device's own: tmax 40 ms, tmin 2 ms)" (own values when known).
    [[nodiscard]] std::string note(std::optional<double> own_tmax_ms, std::optional<double> own_tmin_ms) const;
    bool operator==(const TimingOverride&) const = default;
};

/// The next input of an adaptive run (Device::run_adaptive, MembershipOracle::query_adaptive),
/// chosen from the outputs of the inputs chosen so far; nullopt ends the run. A pure function of
/// those outputs: a run repeated (after a timing violation, or past a cache) asks it again from
/// the first output and must get the same inputs.
using NextInput = std::function<std::optional<Symbol>(std::span<const Symbol> outputs)>;

/// A system under learning or test. Not thread-safe: one query at a time per device.
/// Decorators (devices wrapping devices) must forward every virtual member, in particular
/// describe(), deterministic() and check_timing().
class Device {
public:
    virtual ~Device() = default;

    /// The inputs (for a typestate: the callins, then `wait`). Fixed for the device's lifetime.
    [[nodiscard]] virtual const Alphabet& inputs() const = 0;
    /// The outputs seen or declared so far. May grow (a new callback); existing ids never change.
    [[nodiscard]] virtual const Alphabet& outputs() const = 0;
    /// What may be assumed about the answers (default: nothing).
    [[nodiscard]] virtual DeviceTraits traits() const { return {}; }
    /// A short name for messages and provenance, e.g. "model:specs/asynctask.yaml".
    [[nodiscard]] virtual std::string name() const = 0;
    /// Whether every run of a word answers the same outputs, by construction (a model device, a
    /// simulation): then learning runs no flake-policy verification (nothing is re-run past the
    /// cache, LearnOptions::flake_check) and says so. Default false: a device with real code, real
    /// threads or a network (in-process classes, HTTP agents) may answer a run wrongly now and
    /// then, and keeps the verification. Decorators forward it, unless they add answers of their own.
    [[nodiscard]] virtual bool deterministic() const { return false; }

    /// Who the device is (default: name() only). Decorators forward it.
    [[nodiscard]] virtual DeviceDescription describe() const;
    /// Throws DeviceError for a timing violation the device recorded and has not thrown yet (a late
    /// callback can arrive after the last query). Default: nothing to check. Call it once learning
    /// or a suite is over, before a verdict or a spec is reported. Decorators forward it.
    virtual void check_timing() {}
    /// Runs with the user's tmax / tmin over its own from now on (call it before the first query) and
    /// says so in describe() (tmax_ms, tmin_ms, timing_note). Returns false when the device has no
    /// timing to set (the default). Throws std::invalid_argument when tmin would exceed tmax.
    /// Decorators forward it.
    virtual bool override_timing(const TimingOverride& /*timing*/) { return false; }
    /// Adds `names` to outputs() (in this order, those it lacks) when its outputs grow as they are
    /// answered (a Mealy device learning named outputs): a check or a seeded re-learn declares the
    /// spec's outputs first, so that an output id means one name on both sides. Returns false when
    /// the device's outputs are fixed (the default; nothing is added). Decorators forward it.
    virtual bool declare_outputs(std::span<const std::string> /*names*/) { return false; }

    /// Starts a fresh instance (a membership query begins here). Throws DeviceError on failure.
    virtual void reset() = 0;
    /// One input, one output. Throws DeviceError when the harness fails (never for a refused callin).
    virtual Symbol step(Symbol input) = 0;
    /// Ends the current instance (tear-down after a query). Must not throw. Default: nothing.
    virtual void finish() noexcept {}

    /// Quiescence, double-checked (DroidStar §5.2): runs `prefix` from a fresh instance, then one
    /// `wait` that listens for `timeout` instead of tmax, and returns its answer (a callback, or
    /// `quiet`). nullopt for devices without real time (simulations: nothing can arrive late).
    /// Throws DeviceError.
    [[nodiscard]] virtual std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                             std::chrono::milliseconds timeout);

    /// reset + steps in one DeviceSession: stops running at an absorbing output (the rest of the
    /// outputs are that output) and answers a `wait` right after a `wait` that was answered by
    /// the quiet output without running it. A remote device may override this with one round trip,
    /// keeping the same contract. Throws DeviceError.
    [[nodiscard]] virtual RunResult run(std::span<const Symbol> inputs);

    /// Whether run_adaptive may be used: a step costs here what it costs inside run() (a table
    /// look-up, a method call), so a learner may choose each input from the last output and tell
    /// states apart in one reset where a fixed word guessed at the outputs and needed another.
    /// Default false: a remote device pays a round trip per step (its run() is one), and a device
    /// whose run() is more than reset + steps must keep to it. Decorators forward it.
    [[nodiscard]] virtual bool runs_adaptively() const { return false; }
    /// reset, `prefix`, then the inputs `next` chooses from the outputs after the prefix, until it
    /// answers nullopt, in one DeviceSession with run()'s contract (past an absorbing output nothing
    /// runs and every answer is that output; a `wait` right after a quiet `wait` is answered quiet).
    /// The chosen inputs are appended to `chosen`; the result's outputs cover prefix and chosen
    /// inputs. Always reset + step (run() is not called). Throws DeviceError.
    [[nodiscard]] RunResult run_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& chosen);
};

/// How often run_with_timing_retries re-runs a word whose run broke a timing assumption (after pauses
/// of tmax, 2, 4, 8 tmax): four, because on two cores shared with four busy processes at the same
/// priority two re-runs still lost 1 run in 100 to a burst (scripts/load_bench.sh); on time, none runs.
inline constexpr std::size_t kTimingRetries = 4;

/// The one device-driving path: `device.run(inputs)`, then `device.check_timing()`. A run that
/// throws TimingError (a late, queued or early callback) is evidence to re-check, not a verdict: its
/// answer is dropped and the word runs again, up to `retries` more times, after a pause that doubles
/// each time (tmax, 2 tmax, ...: a burst of load can pass); every run keeps the tmax in force, so an
/// answer returned was seen with the timing the spec records. Only a violation on every run throws,
/// as TimingError (runs() = retries + 1); one that belongs to an earlier query (earlier_query()) is
/// thrown at once (that answer was given), and so is one already seen on several runs (runs() > 1:
/// a remote agent that re-ran the word itself). Other errors pass through. On time, one run: no extra
/// query. RunResult::timing_retries says how many runs were repeated.
[[nodiscard]] RunResult run_with_timing_retries(Device& device, std::span<const Symbol> inputs,
                                                std::size_t retries = kTimingRetries);

/// run_adaptive under run_with_timing_retries' rule (a repeated run clears `chosen` and asks `next`
/// again from the start).
[[nodiscard]] RunResult run_adaptive_with_timing_retries(Device& device, std::span<const Symbol> prefix,
                                                         const NextInput& next, Word& chosen,
                                                         std::size_t retries = kTimingRetries);

/// `device.confirm_wait(prefix, timeout)` (the longer wait of the quiescence double-check and of a
/// late answer's judgement) under run_with_timing_retries' rule: a listen whose run breaks a timing
/// assumption of its own query is run again after the same pauses; only a violation on every run
/// throws. (Found under load: the Asio steady_timer's deadline passed during a listen's prefix, and
/// the one violation ended learning, not re-run.)
[[nodiscard]] std::optional<Symbol> confirm_wait_with_timing_retries(Device& device, std::span<const Symbol> prefix,
                                                                     std::chrono::milliseconds timeout,
                                                                     std::size_t retries = kTimingRetries);

/// The pause before re-run `attempt` + 1 of a word whose run broke the timing: tmax · 2^attempt, at
/// least 10 ms (10 ms when tmax is unknown, i.e. <= 0), at most 2 s — a burst of load can pass.
[[nodiscard]] std::chrono::milliseconds timing_retry_pause(double tmax_ms, std::size_t attempt);

/// RAII for one query: resets the device on construction and calls `finish()` on destruction, also
/// when a step throws.
class DeviceSession {
public:
    /// Calls `device.reset()` (which may throw DeviceError; then nothing is to finish).
    explicit DeviceSession(Device& device);
    ~DeviceSession();
    DeviceSession(const DeviceSession&) = delete;
    DeviceSession& operator=(const DeviceSession&) = delete;

    /// `device.step(input)`.
    Symbol step(Symbol input) { return device_.step(input); }

private:
    Device& device_;
};

}  // namespace typestar
