// Client-side checking (DroidStar §1, second use of a callback typestate): a runtime monitor that
// holds app code to a spec. Design note: the Monitor is fed the events of one framework object —
// callins the client makes, callbacks the framework delivers — in the order they take its mutex,
// and follows the MonitorModel's table. A refused event is a Violation value (spec file:line, state,
// trace); the policy decides whether it is only collected, thrown, or handed to a handler. A refused
// event leaves the state unchanged (the framework refused it), so checking continues after it.
// The monitor never includes gtest; plugin/gmock turns violations into test failures.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/monitor/monitor_model.hpp"

namespace typestar {

/// What went wrong.
enum class ViolationKind : std::uint8_t {
    DisabledCallin,      ///< the client called a callin the current state refuses
    UnexpectedCallback,  ///< a callback arrived that the current state cannot produce
    PendingCallback,     ///< at finish(): the state still owes the client a callback
};

/// One violation of the spec, self-contained (names, not ids, so it outlives the monitor).
struct Violation {
    ViolationKind kind = ViolationKind::DisabledCallin;
    Event event;                    ///< the refused event; for PendingCallback the owed callback
    std::string symbol;             ///< its name
    std::string typestate;          ///< the typestate's name
    std::string state;              ///< the state it happened in
    std::vector<std::string> allowed;  ///< what that state allowed (`>callin`, `<callback`)
    std::vector<std::string> trace;    ///< events before it (`>callin`, `<callback`), oldest first
    std::size_t trace_omitted = 0;     ///< earlier events not kept in `trace`
    std::string file;               ///< spec file; empty when built in memory
    int line = 0;                   ///< spec line of (state, symbol) or of the state; 0 if unknown

    /// A multi-line message: `file:line: what happened`, then what was allowed and the trace, with
    /// the offending event in brackets. Deterministic.
    [[nodiscard]] std::string message() const;
    bool operator==(const Violation&) const = default;
};

/// The text of a kind: "disabled callin", "unexpected callback", "pending callback".
[[nodiscard]] std::string_view to_string(ViolationKind kind) noexcept;

/// Thrown by a monitor whose policy is Throw. what() is Violation::message().
class ViolationError : public Error {
public:
    /// Wraps `violation`; what() is its message().
    explicit ViolationError(Violation violation);
    /// The violation thrown.
    [[nodiscard]] const Violation& violation() const noexcept { return violation_; }

private:
    Violation violation_;
};

/// A call the spec cannot judge (three-valued specs, docs/spec-format-v2.md): a callin into an
/// *unknown* transition, or an environment event the current state does not list. Never a
/// violation of the protocol. After it the monitor no longer knows the state: it stops checking
/// (every later event is accepted and counted in Monitor::unchecked_events()) until reset().
struct Unverified {
    Event event;
    std::string symbol;
    std::string typestate;
    std::string state;                 ///< where it happened
    std::optional<Unknown> unknown;    ///< the spec's reason, for an unknown transition
    std::string reason;                ///< in words (the unknown's source and reason, or why not listed)
    std::vector<std::string> trace;    ///< events before it, oldest first
    std::string file;
    int line = 0;
    /// `file:line: callin x() is unverified in state S of T (unknown: purpose: reason)`, the trace.
    [[nodiscard]] std::string message() const;
    bool operator==(const Unverified&) const = default;
};

/// What a monitor does with an Unverified call.
enum class UnverifiedPolicy : std::uint8_t {
    Allow,  ///< record it, say nothing, accept the call
    Warn,   ///< record it, log a warning on `typestar.monitor`, accept the call (default)
    Fail,   ///< record it and refuse the call (returns false; with ViolationPolicy::Throw, throws UnverifiedError)
};

/// Thrown for an Unverified call under UnverifiedPolicy::Fail with ViolationPolicy::Throw. Not a
/// ViolationError: the spec does not say the call is wrong.
class UnverifiedError : public Error {
public:
    explicit UnverifiedError(Unverified unverified);
    [[nodiscard]] const Unverified& unverified() const noexcept { return unverified_; }

private:
    Unverified unverified_;
};

/// What a monitor does with a violation besides recording it.
enum class ViolationPolicy : std::uint8_t {
    Collect,  ///< only record it (violations(), violation_count())
    Throw,    ///< record it and throw ViolationError from the reporting call
    Handler,  ///< record it and call MonitorOptions::handler (outside the monitor's lock)
};

/// Monitor configuration (a value; defaults suit a unit test).
struct MonitorOptions {
    ViolationPolicy policy = ViolationPolicy::Collect;
    /// Called for each violation under ViolationPolicy::Handler, on the thread that reported it.
    /// It may call back into the monitor.
    std::function<void(const Violation&)> handler{};
    /// 0: keep every event of the trace. Otherwise keep at least the last `trace_limit` events
    /// (memory stays bounded in long runs; trace_omitted() counts the dropped ones).
    std::size_t trace_limit = 0;
    /// At most this many of the latest events are copied into a Violation's trace.
    std::size_t violation_trace = 1000;
    /// What a call into an unknown transition (or an unlisted environment event) does.
    UnverifiedPolicy unverified = UnverifiedPolicy::Warn;
};

/// A thread-safe runtime monitor of one framework object against a callback typestate.
/// Every member may be called concurrently from any thread.
class Monitor {
public:
    /// Throws std::invalid_argument when `model` is null or the policy is Handler without a handler.
    explicit Monitor(std::shared_ptr<const MonitorModel> model, MonitorOptions options = {});
    /// Compiles `typestate` (see MonitorModel).
    explicit Monitor(Typestate typestate, MonitorOptions options = {});
    Monitor(const Monitor&) = delete;
    Monitor& operator=(const Monitor&) = delete;

    /// The compiled typestate this monitor follows.
    [[nodiscard]] const MonitorModel& model() const noexcept { return *model_; }
    /// The same model, shared (e.g. to build more monitors or an Explorer).
    [[nodiscard]] const std::shared_ptr<const MonitorModel>& model_ptr() const noexcept { return model_; }

    /// Reports that the client called callin `name`. True when the state allowed it; otherwise
    /// records a DisabledCallin violation and applies the policy. Throws typestar::Error for a name
    /// the spec does not declare (a harness bug, not a violation).
    bool callin(std::string_view name);
    /// Fast path: the callin with index `id` (MonitorModel::callin(name).symbol); no name lookup.
    bool callin(Symbol id) { return observe(Event::callin(id)); }
    /// Reports that the peer performed the environment-role input `name` (docs/spec-format-v2.md):
    /// an observed event, never a client call. Enabled: the monitor moves. Not listed in the current
    /// state: an Unverified record under the unverified policy, never a violation. Throws
    /// typestar::Error when `name` is undeclared or is a client callin (report those with callin()).
    bool environment(std::string_view name);
    /// Reports that the framework delivered callback `name`; as callin() with UnexpectedCallback.
    bool callback(std::string_view name);
    /// Fast path: the callback with index `id`; no name lookup.
    bool callback(Symbol id) { return observe(Event::callback(id)); }
    /// Records `event` and applies the policy to its violation, if any. True when allowed. Throws
    /// std::out_of_range when the event's id is not declared.
    bool observe(Event event);
    /// Records `event` and returns its violation (also recorded) without applying the policy: for
    /// adapters that report violations their own way.
    std::optional<Violation> check(Event event);
    /// What one event did, for adapters: a violation, an unverified call (recorded, policy not
    /// applied), or neither.
    struct Outcome {
        std::optional<Violation> violation;
        std::optional<Unverified> unverified;
    };
    /// As check(), also returning an unverified call. `environment` marks an environment-role event.
    Outcome check_event(Event event, bool environment = false);
    /// Atomically delivers the callback the current state owes (MonitorModel::pending), recording
    /// it. nullopt when nothing is owed.
    std::optional<Event> take_pending();

    /// Ends observation: when the state still owes a callback, records a PendingCallback violation
    /// and applies the policy. True when nothing is pending. The monitor stays usable.
    bool finish();
    /// finish() without the policy.
    std::optional<Violation> check_finish();

    /// The current state.
    [[nodiscard]] StateId state_id() const;
    /// The current state's name.
    [[nodiscard]] std::string state() const;
    /// The name of the callback the current state owes, if any.
    [[nodiscard]] std::optional<std::string> pending_callback() const;
    /// True when the current state enables callin `name` (throws typestar::Error if undeclared).
    [[nodiscard]] bool can_callin(std::string_view name) const;
    /// True when the current state can produce callback `name` (throws typestar::Error if undeclared).
    [[nodiscard]] bool can_deliver(std::string_view name) const;

    /// The accepted events kept so far (refused ones are not part of the trace).
    [[nodiscard]] std::vector<Event> trace() const;
    /// MonitorModel::to_string of trace().
    [[nodiscard]] std::string trace_text() const;
    /// Accepted events dropped because of MonitorOptions::trace_limit.
    [[nodiscard]] std::size_t trace_omitted() const;
    /// Every event reported, accepted or refused.
    [[nodiscard]] std::uint64_t event_count() const;
    /// Every violation so far, oldest first.
    [[nodiscard]] std::vector<Violation> violations() const;
    /// How many violations were recorded.
    [[nodiscard]] std::size_t violation_count() const;
    /// True when no violation was recorded.
    [[nodiscard]] bool ok() const { return violation_count() == 0; }
    /// Every unverified call so far, oldest first.
    [[nodiscard]] std::vector<Unverified> unverified() const;
    /// True while the monitor knows its state (no unverified call since the last reset()).
    [[nodiscard]] bool checking() const;
    /// Events accepted without a check because an unverified call made the state unknown.
    [[nodiscard]] std::uint64_t unchecked_events() const;

    /// Back to the initial state with an empty trace and no violations.
    void reset();

private:
    // Under mu_: records the event or builds its violation.
    std::optional<Violation> record_locked(Event event, bool environment = false,
                                           std::optional<Unverified>* unverified = nullptr);
    void push_trace_locked(Event event);
    Violation make_violation_locked(ViolationKind kind, Event event) const;
    bool apply_policy(std::optional<Violation> violation);
    // Applies the unverified policy to a record made by record_locked (outside the lock).
    bool apply_unverified(const Unverified& unverified);

    std::vector<Unverified> unverified_;
    bool lost_ = false;                              // an unverified call made the state unknown
    std::uint64_t unchecked_ = 0;
    std::shared_ptr<const MonitorModel> model_;
    MonitorOptions options_;
    mutable std::mutex mu_;
    StateId state_ = 0;
    std::vector<Event> trace_;
    std::size_t trace_omitted_ = 0;
    std::uint64_t events_ = 0;
    std::vector<Violation> violations_;
};

}  // namespace typestar
