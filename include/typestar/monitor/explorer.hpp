// Testing a client against every order of callbacks the framework may produce, up to a bound.
// Design note: a schedule is a word over the client's actions (named stimuli such as "play") and
// deliveries of the callback the monitor's current state owes. Which callback is owed depends on
// the callins the client actually made, so schedules are enumerated by replay: every run builds a
// fresh ExplorationSession (new client, new monitor) through the user's setup function and executes one
// schedule; a run stops at its first violation or exception, so failing schedules are minimal.
// Results are values; plugin/gmock turns them into test failures.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/monitor/callback_driver.hpp"
#include "typestar/monitor/monitor.hpp"

namespace typestar {

/// One run's world: a fresh monitor, the client's actions, and its callback listeners.
class ExplorationSession {
public:
    /// A session with a fresh Collect-policy monitor over `model`.
    explicit ExplorationSession(std::shared_ptr<const MonitorModel> model);

    /// The run's monitor: fakes or mocks of the framework report the client's callins to it.
    [[nodiscard]] Monitor& monitor() const noexcept { return driver_.monitor(); }
    /// The same monitor, shared (for typestar::enforce on a mock created in the setup).
    [[nodiscard]] const std::shared_ptr<Monitor>& monitor_ptr() const noexcept { return driver_.monitor_ptr(); }

    /// Registers a client action (a stimulus such as a user tap). Throws std::invalid_argument on
    /// an empty name, a name starting with '<', or a duplicate.
    void action(std::string name, std::function<void()> run);
    /// Registers the client's listener for callback `name` (throws typestar::Error if undeclared).
    void listen(std::string_view callback, std::function<void()> listener);
    /// Registers a check run after the schedule; it fails the run by throwing.
    void at_end(std::function<void()> check);

    /// The registered action names, in registration order.
    [[nodiscard]] std::vector<std::string> action_names() const;

private:
    friend class Explorer;
    struct Action {
        std::string name;
        std::function<void()> run;
    };
    mutable CallbackDriver driver_;
    std::vector<Action> actions_;
    std::vector<std::function<void()>> at_end_;
};

/// Builds a session's client; called once per run, so it must create everything afresh.
using ExplorationSetup = std::function<void(ExplorationSession&)>;

/// How schedules are chosen.
enum class ExploreStrategy : std::uint8_t {
    Exhaustive,  ///< every schedule up to the bound (the seed only permutes the order)
    Random,      ///< `runs` random schedules, run i drawn from its own seed
};

/// Explorer configuration (a value).
struct ExploreOptions {
    std::size_t bound = 6;  ///< schedule length k
    ExploreStrategy strategy = ExploreStrategy::Exhaustive;
    /// Exhaustive: 0 keeps declared order, others permute the steps' order. Random: run 0 draws
    /// from `seed`, run i+1 from splitmix64(seed of run i), so a failure's seed with `runs` = 1
    /// draws that run again.
    std::uint64_t seed = 0;
    std::size_t runs = 1000;     ///< Random only: number of schedules drawn
    std::size_t max_runs = 0;    ///< Exhaustive only: stop after this many runs (0: no limit)
    /// How many failures are kept with details: the shortest ones, ties broken by the order found
    /// (all failures are counted).
    std::size_t keep_failures = 10;
    bool stop_at_first_failure = false;  ///< end the exploration at the first failing run
};

/// A failing schedule, replayable with Explorer::replay.
struct ExploreFailure {
    /// Steps: action names, and `<callback` for deliveries. Ends with the failing step.
    std::vector<std::string> schedule;
    std::uint64_t seed = 0;              ///< the run's seed (Random) or the exploration's seed
    std::string message;                 ///< the violation message or the exception text
    std::optional<Violation> violation;  ///< set when the monitor found it
    std::string trace;                   ///< the monitor's trace at the failure

    /// The schedule joined by spaces (the argument Explorer::replay takes).
    [[nodiscard]] std::string schedule_text() const;
};

/// What an exploration covered and found.
struct ExploreResult {
    std::uint64_t interleavings = 0;  ///< schedules run (distinct when Exhaustive)
    std::uint64_t failed = 0;         ///< of those, how many failed
    bool complete = false;            ///< Exhaustive and the whole bounded space was covered
    std::size_t bound = 0;   ///< ExploreOptions::bound
    std::uint64_t seed = 0;  ///< ExploreOptions::seed
    /// The ExploreOptions::keep_failures shortest failures, shortest first (then in the order found).
    std::vector<ExploreFailure> failures;

    /// True when no run failed.
    [[nodiscard]] bool ok() const noexcept { return failed == 0; }
    /// One deterministic paragraph: coverage (bounded evidence when nothing failed), then each
    /// kept failure with its seed, schedule, message and replay call.
    [[nodiscard]] std::string summary() const;
};

/// Runs a client against every (or randomly chosen) callback interleaving up to a bound.
class Explorer {
public:
    /// Throws std::invalid_argument when `model` is null or `setup` empty.
    Explorer(std::shared_ptr<const MonitorModel> model, ExplorationSetup setup, ExploreOptions options = {});

    /// Explores. Throws typestar::Error when setup registers no action or different actions on
    /// different runs (the client must be deterministic).
    [[nodiscard]] ExploreResult run() const;
    /// Re-executes one schedule in a fresh session; its failure, or nullopt when it passes.
    /// Throws typestar::Error for an unknown action, or a delivery the state does not owe.
    [[nodiscard]] std::optional<ExploreFailure> replay(const std::vector<std::string>& schedule) const;
    /// replay() of a space-separated schedule text (ExploreFailure::schedule_text).
    [[nodiscard]] std::optional<ExploreFailure> replay(std::string_view schedule_text) const;

private:
    struct Outcome;
    // Picks the step at `depth`: an index into `actions`, or actions.size() for the owed callback
    // (`owed` names it; null when nothing is owed).
    using Chooser = std::function<std::size_t(std::size_t depth, const std::vector<std::string>& actions,
                                              const std::string* owed)>;
    // Runs one schedule of at most `bound` steps in a fresh session.
    Outcome execute(const Chooser& choose, std::size_t bound, const std::vector<std::string>* expected_actions) const;

    std::shared_ptr<const MonitorModel> model_;
    ExplorationSetup setup_;
    ExploreOptions options_;
};

}  // namespace typestar
