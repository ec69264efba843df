// Delivering a spec's callbacks to the client's listeners, only in orders the typestate allows.
// Design note: the driver plays the framework's side. deliver() first records the callback in the
// monitor (atomically checking that the current state can produce it) and only then calls the
// listener, outside the monitor's lock, so callins the listener makes are checked in the state the
// callback led to.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/monitor/monitor.hpp"

namespace typestar {

/// Plays the framework's side of one object: delivers callbacks to registered listeners.
/// Thread-safe as long as listeners are registered before delivering starts.
class CallbackDriver {
public:
    /// Throws std::invalid_argument when `monitor` is null.
    explicit CallbackDriver(std::shared_ptr<Monitor> monitor);

    /// The monitor deliveries are recorded in.
    [[nodiscard]] Monitor& monitor() const noexcept { return *monitor_; }
    /// The same monitor, shared.
    [[nodiscard]] const std::shared_ptr<Monitor>& monitor_ptr() const noexcept { return monitor_; }

    /// Registers the client's listener for callback `name` (replacing an earlier one). Throws
    /// typestar::Error when the spec declares no such callback.
    void listen(std::string_view callback, std::function<void()> listener);

    /// Delivers callback `name`: when the current state can produce it, records it and calls the
    /// listener (if any) and returns true; otherwise records an UnexpectedCallback violation,
    /// applies the monitor's policy, calls nothing and returns false. Throws typestar::Error for an
    /// undeclared name.
    bool deliver(std::string_view callback);
    /// deliver() without the monitor's policy: returns the violation instead (nullopt: delivered).
    std::optional<Violation> try_deliver(std::string_view callback);
    /// Delivers the callback the current state owes, if any, and returns its name.
    std::optional<std::string> deliver_pending();

private:
    void notify(Event event) const;

    std::shared_ptr<Monitor> monitor_;
    std::vector<std::function<void()>> listeners_;  // by callback index
};

}  // namespace typestar
