// Errors of a broken harness or bad input. A refused callin is an output (`err`), never an exception.
#pragma once

#include <stdexcept>
#include <cstdint>
#include <cstddef>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

namespace typestar {

/// Base of every exception typestar throws on purpose.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// One problem in an input file, located as `file:line:col`.
struct Diagnostic {
    std::string file;
    int line = 0;    ///< 1-based; 0 when unknown
    int column = 0;  ///< 1-based; 0 when unknown
    std::string message;

    /// `file:line:col: message` (line and column left out when unknown).
    [[nodiscard]] std::string str() const;
    bool operator==(const Diagnostic&) const = default;
};

/// Bad input file: carries every diagnostic found, in file order. Never printed by the parser.
class SpecError : public Error {
public:
    explicit SpecError(std::vector<Diagnostic> diagnostics);
    [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const noexcept { return diagnostics_; }

private:
    std::vector<Diagnostic> diagnostics_;
};

/// A Mealy machine that is not the synchronous closure of any callback typestate; says exactly why.
class NotAClosureError : public Error {
public:
    using Error::Error;
    /// `message` about one transition: `state` (its name in the machine) on `input`.
    NotAClosureError(const std::string& message, std::string state, std::string input)
        : Error(message), state_(std::move(state)), input_(std::move(input)) {}
    /// The state of the offending transition; empty when the problem is not one transition.
    [[nodiscard]] const std::string& state() const noexcept { return state_; }
    /// The input of the offending transition; empty when the problem is not one transition.
    [[nodiscard]] const std::string& input() const noexcept { return input_; }

private:
    std::string state_;
    std::string input_;
};

/// The device could not answer (transport, timeout, crash, garbage). Never a wrong output.
class DeviceError : public Error {
public:
    using Error::Error;
};

/// A timing assumption of a device with real time was broken (DroidStar §5.2): a callback arrived
/// after the `wait` that answered quiet (tmax), was queued when a callin was due, or arrived sooner
/// than tmin after its callin. The run's answer is not trusted and never enters a cache. The one
/// device-driving path (run_with_timing_retries, sul/device.hpp) re-runs the word and throws this
/// only when the violation repeats on every run (runs() > 1), or when it belongs to an earlier query
/// whose answer was already given (earlier_query()). The message names the callback, the delay seen,
/// the tmax in force and the option that raises it. A DeviceError: a timing failure, never a
/// NondeterminismError, a counterexample or a spec.
class TimingError : public DeviceError {
public:
    enum class Kind {
        LateCallback,    ///< after a `wait` answered quiet: tmax too small for this run
        QueuedCallback,  ///< queued when a callin was due (arrived before the next callin ran)
        EarlyCallback,   ///< sooner than tmin after its callin
    };
    /// `message` says what happened in one run (without the retry count).
    TimingError(std::string message, Kind kind, std::string callback, double delay_ms, double tmax_ms,
                double tmin_ms, bool earlier_query = false, std::size_t runs = 1);
    [[nodiscard]] Kind kind() const noexcept { return kind_; }
    /// The callback that broke the timing.
    [[nodiscard]] const std::string& callback() const noexcept { return callback_; }
    /// The delay seen: from the start of the quiet `wait` (LateCallback) or of the latest callin.
    [[nodiscard]] double delay_ms() const noexcept { return delay_ms_; }
    [[nodiscard]] double tmax_ms() const noexcept { return tmax_ms_; }
    [[nodiscard]] double tmin_ms() const noexcept { return tmin_ms_; }
    /// Seen after its query had answered (found when the next query started): not re-runnable.
    [[nodiscard]] bool earlier_query() const noexcept { return earlier_query_; }
    /// How many runs of the word showed a violation (1: not re-run).
    [[nodiscard]] std::size_t runs() const noexcept { return runs_; }
    /// The one-run message, without what the retries added.
    [[nodiscard]] const std::string& detail() const noexcept { return detail_; }
    /// This error, seen on each of `runs` runs of `word` (printed): the message says so.
    [[nodiscard]] TimingError repeated(std::size_t runs, const std::string& word) const;

private:
    struct Repeated {};
    TimingError(Repeated, const TimingError& one, std::string what, std::size_t runs);
    std::string detail_;
    Kind kind_;
    std::string callback_;
    double delay_ms_, tmax_ms_, tmin_ms_;
    bool earlier_query_;
    std::size_t runs_;
};

/// "late", "queued" or "early": a TimingError kind's name in data (the device protocol's
/// `timing violation`, the runners' JSON); nullopt for any other text.
[[nodiscard]] const char* to_string(TimingError::Kind kind) noexcept;
[[nodiscard]] std::optional<TimingError::Kind> timing_kind_from_string(std::string_view name) noexcept;

/// A hard cap on executed queries (`--budget N`) was reached before a result: nothing is
/// reported from the partial run. `budget()` is the cap, counted from the run's first query.
class QueryBudgetError : public Error {
public:
    explicit QueryBudgetError(std::uint64_t budget);
    [[nodiscard]] std::uint64_t budget() const noexcept { return budget_; }

private:
    std::uint64_t budget_;
};

/// The device answered the same input word in two different ways (DroidStar §5.3).
class NondeterminismError : public Error {
public:
    /// One distinct answer to the input word and how often it was seen.
    struct Answer {
        std::vector<std::string> outputs;
        std::size_t count = 0;
        bool operator==(const Answer&) const = default;
    };
    /// Two answers, each seen once.
    NondeterminismError(std::vector<std::string> inputs, std::vector<std::string> first_outputs,
                        std::vector<std::string> second_outputs);
    /// Every distinct answer (at least two), in the order first seen, with counts.
    NondeterminismError(std::vector<std::string> inputs, std::vector<Answer> answers);
    [[nodiscard]] const std::vector<std::string>& inputs() const noexcept { return inputs_; }
    /// The first answer seen (the one a cache held).
    [[nodiscard]] const std::vector<std::string>& first_outputs() const noexcept { return answers_.at(0).outputs; }
    /// The first answer that differed from it.
    [[nodiscard]] const std::vector<std::string>& second_outputs() const noexcept { return answers_.at(1).outputs; }
    [[nodiscard]] const std::vector<Answer>& answers() const noexcept { return answers_; }

private:
    std::vector<std::string> inputs_;
    std::vector<Answer> answers_;
};

}  // namespace typestar
