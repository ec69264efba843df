#include "typestar/monitor/monitor.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <spdlog/spdlog.h>

#include "typestar/log/logging.hpp"

namespace typestar {

std::string_view to_string(ViolationKind kind) noexcept {
    switch (kind) {
        case ViolationKind::DisabledCallin: return "disabled callin";
        case ViolationKind::UnexpectedCallback: return "unexpected callback";
        case ViolationKind::PendingCallback: return "pending callback";
    }
    return "violation";
}

std::string Violation::message() const {
    std::string out;
    if (!file.empty()) {
        out += file;
        if (line > 0) {
            out += ':';
            out += std::to_string(line);
        }
        out += ": ";
    }
    switch (kind) {
        case ViolationKind::DisabledCallin:
            out += "callin " + symbol + "() is disabled in state " + state;
            break;
        case ViolationKind::UnexpectedCallback:
            out += "callback " + symbol + "() cannot be delivered in state " + state;
            break;
        case ViolationKind::PendingCallback:
            out += "callback " + symbol + "() is still pending in state " + state + " at the end";
            break;
    }
    out += " of " + typestate + "\n  allowed: ";
    if (allowed.empty()) out += "nothing";
    for (std::size_t i = 0; i < allowed.size(); ++i) out += (i ? " " : "") + allowed[i];
    out += "\n  trace:   ";
    bool first = true;
    auto put = [&](const std::string& token) {
        if (!first) out += ' ';
        out += token;
        first = false;
    };
    if (trace_omitted > 0) put("... (" + std::to_string(trace_omitted) + " earlier events)");
    for (const auto& e : trace) put(e);
    if (kind == ViolationKind::PendingCallback) {
        if (first) put("ε");
        put("(owed: <" + symbol + ")");
    } else {
        put(std::string("[") + (kind == ViolationKind::DisabledCallin ? ">" : "<") + symbol + "]");
    }
    return out;
}

std::string Unverified::message() const {
    std::string out;
    if (!file.empty()) out += file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": ";
    out += (event.kind == EventKind::Callin ? "callin " : "callback ") + symbol + "() is unverified in state " + state +
           " of " + typestate + " (" + reason + "): the spec does not say whether it is legal; not a protocol "
           "violation. The monitor stops checking this object until reset.\n  trace:   ";
    for (const auto& e : trace) out += e + " ";
    out += "[>" + symbol + "?]";
    return out;
}

UnverifiedError::UnverifiedError(Unverified unverified)
    : Error(unverified.message()), unverified_(std::move(unverified)) {}

ViolationError::ViolationError(Violation violation)
    : Error(violation.message()), violation_(std::move(violation)) {}

Monitor::Monitor(std::shared_ptr<const MonitorModel> model, MonitorOptions options)
    : model_(std::move(model)), options_(std::move(options)) {
    if (!model_) throw std::invalid_argument("Monitor: null model");
    if (options_.policy == ViolationPolicy::Handler && !options_.handler)
        throw std::invalid_argument("Monitor: policy Handler needs a handler");
    state_ = model_->initial();
}

Monitor::Monitor(Typestate typestate, MonitorOptions options)
    : Monitor(std::make_shared<const MonitorModel>(std::move(typestate)), std::move(options)) {}

bool Monitor::callin(std::string_view name) { return observe(model_->callin(name)); }

bool Monitor::callback(std::string_view name) { return observe(model_->callback(name)); }

bool Monitor::environment(std::string_view name) {
    const Event e = model_->callin(name);
    if (!model_->is_environment(e.symbol))
        throw Error("Monitor: '" + std::string(name) + "' is a client callin, not an environment event: report it with callin()");
    auto outcome = check_event(e, true);
    if (outcome.unverified) return apply_unverified(*outcome.unverified);
    return apply_policy(std::move(outcome.violation));
}

bool Monitor::observe(Event event) {
    if (event.kind == EventKind::Callin && event.symbol < model_->num_callins() && model_->is_environment(event.symbol))
        throw Error("Monitor: '" + model_->name(event) + "' has the environment role: report it with environment()");
    auto outcome = check_event(event);
    if (outcome.unverified) return apply_unverified(*outcome.unverified);
    return apply_policy(std::move(outcome.violation));
}

std::optional<Violation> Monitor::check(Event event) { return check_event(event).violation; }

Monitor::Outcome Monitor::check_event(Event event, bool environment) {
    const std::size_t limit = event.kind == EventKind::Callin ? model_->num_callins() : model_->num_callbacks();
    if (event.symbol >= limit)
        throw std::out_of_range("Monitor: event id " + std::to_string(event.symbol) + " out of range");
    std::lock_guard lock(mu_);
    Outcome outcome;
    outcome.violation = record_locked(event, environment, &outcome.unverified);
    return outcome;
}

void Monitor::push_trace_locked(Event event) {
    trace_.push_back(event);
    if (options_.trace_limit > 0 && trace_.size() >= 2 * options_.trace_limit) {
        const std::size_t drop = trace_.size() - options_.trace_limit;
        trace_.erase(trace_.begin(), trace_.begin() + static_cast<std::ptrdiff_t>(drop));
        trace_omitted_ += drop;
    }
}

std::optional<Violation> Monitor::record_locked(Event event, bool environment, std::optional<Unverified>* unverified) {
    ++events_;
    if (lost_) {  // an earlier unverified call: the state is not known, nothing can be checked
        ++unchecked_;
        push_trace_locked(event);
        return std::nullopt;
    }
    if (const auto target = model_->step(state_, event)) {
        state_ = *target;
        push_trace_locked(event);
        return std::nullopt;
    }
    const Unknown* unknown = event.kind == EventKind::Callin ? model_->unknown(state_, event.symbol) : nullptr;
    if (unknown != nullptr || environment) {
        const MonitorModel& m = *model_;
        Unverified u;
        u.event = event;
        u.symbol = m.name(event);
        u.typestate = m.name();
        u.state = m.state_name(state_);
        if (unknown != nullptr) {
            u.unknown = *unknown;
            u.reason = "unknown: " + std::string(to_string(unknown->source)) +
                       (unknown->reason.empty() ? "" : ": " + unknown->reason);
        } else {
            u.reason = "environment event not listed in this state";
        }
        const std::size_t keep = std::min(trace_.size(), options_.violation_trace);
        for (std::size_t i = trace_.size() - keep; i < trace_.size(); ++i) u.trace.push_back(m.to_string(trace_[i]));
        u.file = m.file();
        u.line = m.line_of(state_, event);
        unverified_.push_back(u);
        if (options_.unverified != UnverifiedPolicy::Fail) {
            lost_ = true;
            push_trace_locked(event);
        }
        if (unverified != nullptr) *unverified = std::move(u);
        return std::nullopt;
    }
    const auto kind = event.kind == EventKind::Callin ? ViolationKind::DisabledCallin
                                                      : ViolationKind::UnexpectedCallback;
    violations_.push_back(make_violation_locked(kind, event));
    return violations_.back();
}

Violation Monitor::make_violation_locked(ViolationKind kind, Event event) const {
    const MonitorModel& m = *model_;
    Violation v;
    v.kind = kind;
    v.event = event;
    v.symbol = m.name(event);
    v.typestate = m.name();
    v.state = m.state_name(state_);
    for (const auto& e : m.enabled(state_)) v.allowed.push_back(m.to_string(e));
    const std::size_t keep = std::min(trace_.size(), options_.violation_trace);
    v.trace_omitted = trace_omitted_ + (trace_.size() - keep);
    for (std::size_t i = trace_.size() - keep; i < trace_.size(); ++i) v.trace.push_back(m.to_string(trace_[i]));
    v.file = m.file();
    v.line = m.line_of(state_, event);
    return v;
}

bool Monitor::apply_policy(std::optional<Violation> violation) {
    if (!violation) return true;
    switch (options_.policy) {
        case ViolationPolicy::Collect: break;
        case ViolationPolicy::Throw: throw ViolationError(std::move(*violation));
        case ViolationPolicy::Handler: options_.handler(*violation); break;
    }
    return false;
}

bool Monitor::apply_unverified(const Unverified& unverified) {
    switch (options_.unverified) {
        case UnverifiedPolicy::Allow: return true;
        case UnverifiedPolicy::Warn:
            detail::logger("typestar.monitor")->warn("{}", unverified.message());
            return true;
        case UnverifiedPolicy::Fail:
            if (options_.policy == ViolationPolicy::Throw) throw UnverifiedError(unverified);
            return false;
    }
    return true;
}

std::vector<Unverified> Monitor::unverified() const {
    std::lock_guard lock(mu_);
    return unverified_;
}

bool Monitor::checking() const {
    std::lock_guard lock(mu_);
    return !lost_;
}

std::uint64_t Monitor::unchecked_events() const {
    std::lock_guard lock(mu_);
    return unchecked_;
}

std::optional<Event> Monitor::take_pending() {
    std::lock_guard lock(mu_);
    const auto owed = model_->pending(state_);
    if (!owed || lost_) return std::nullopt;
    const Event e = Event::callback(*owed);
    (void)record_locked(e);  // cannot be refused: the state owes it
    return e;
}

bool Monitor::finish() { return apply_policy(check_finish()); }

std::optional<Violation> Monitor::check_finish() {
    std::lock_guard lock(mu_);
    const auto owed = model_->pending(state_);
    if (!owed || lost_) return std::nullopt;  // lost: what is owed is not known
    violations_.push_back(make_violation_locked(ViolationKind::PendingCallback, Event::callback(*owed)));
    return violations_.back();
}

StateId Monitor::state_id() const {
    std::lock_guard lock(mu_);
    return state_;
}

std::string Monitor::state() const { return model_->state_name(state_id()); }

std::optional<std::string> Monitor::pending_callback() const {
    const auto owed = model_->pending(state_id());
    if (!owed) return std::nullopt;
    return model_->name(Event::callback(*owed));
}

bool Monitor::can_callin(std::string_view name) const {
    return model_->step(state_id(), model_->callin(name)).has_value();
}

bool Monitor::can_deliver(std::string_view name) const {
    return model_->step(state_id(), model_->callback(name)).has_value();
}

std::vector<Event> Monitor::trace() const {
    std::lock_guard lock(mu_);
    return trace_;
}

std::string Monitor::trace_text() const { return model_->to_string(trace()); }

std::size_t Monitor::trace_omitted() const {
    std::lock_guard lock(mu_);
    return trace_omitted_;
}

std::uint64_t Monitor::event_count() const {
    std::lock_guard lock(mu_);
    return events_;
}

std::vector<Violation> Monitor::violations() const {
    std::lock_guard lock(mu_);
    return violations_;
}

std::size_t Monitor::violation_count() const {
    std::lock_guard lock(mu_);
    return violations_.size();
}

void Monitor::reset() {
    std::lock_guard lock(mu_);
    state_ = model_->initial();
    trace_.clear();
    trace_omitted_ = 0;
    events_ = 0;
    violations_.clear();
    unverified_.clear();
    lost_ = false;
    unchecked_ = 0;
}

}  // namespace typestar
