#include "typestar/gmock/enforce.hpp"

#include <stdexcept>

#include "typestar/gmock/assertions.hpp"
#include <spdlog/spdlog.h>

#include "typestar/log/logging.hpp"

namespace typestar {

namespace detail {

void report_violation(const Violation& violation, const char* file, int line) {
    const std::string message = "typestar: " + violation.message();
    if (!violation.file.empty()) {
        ADD_FAILURE_AT(violation.file.c_str(), violation.line > 0 ? violation.line : -1) << message;
    } else if (file != nullptr && *file != '\0') {
        ADD_FAILURE_AT(file, line) << message;
    } else {
        ADD_FAILURE() << message;
    }
}

void report_unverified(const Unverified& unverified, UnverifiedPolicy policy, const char* file, int line) {
    const std::string message = "typestar: " + unverified.message();
    switch (policy) {
        case UnverifiedPolicy::Allow: return;
        case UnverifiedPolicy::Warn: detail::logger("typestar.monitor")->warn("{}", message); return;
        case UnverifiedPolicy::Fail: break;
    }
    if (!unverified.file.empty()) {
        ADD_FAILURE_AT(unverified.file.c_str(), unverified.line > 0 ? unverified.line : -1) << message;
    } else if (file != nullptr && *file != '\0') {
        ADD_FAILURE_AT(file, line) << message;
    } else {
        ADD_FAILURE() << message;
    }
}

}  // namespace detail

bool Enforcer::environment(std::string_view name) {
    const Event e = state_->monitor->model().callin(name);
    if (!state_->monitor->model().is_environment(e.symbol))
        throw Error("Enforcer: '" + std::string(name) + "' is a client callin, not an environment event");
    const auto outcome = state_->monitor->check_event(e, true);
    if (outcome.unverified) {
        detail::report_unverified(*outcome.unverified, state_->unverified, nullptr, 0);
        return state_->unverified != UnverifiedPolicy::Fail;
    }
    return true;
}

Enforcer::Enforcer(std::shared_ptr<Monitor> monitor, EnforceOptions options)
    : state_(std::make_shared<detail::EnforceState>(
          detail::EnforceState{std::move(monitor), options.on_refused, options.unverified})) {
    if (!state_->monitor) throw std::invalid_argument("Enforcer: null monitor");
    driver_ = std::make_shared<CallbackDriver>(state_->monitor);
}

void Enforcer::listen(std::string_view callback, std::function<void()> listener) {
    driver_->listen(callback, std::move(listener));
}

bool Enforcer::deliver(std::string_view callback) {
    if (const auto violation = driver_->try_deliver(callback)) {
        detail::report_violation(*violation, nullptr, 0);
        return false;
    }
    return true;
}

std::optional<std::string> Enforcer::deliver_pending() { return driver_->deliver_pending(); }

bool Enforcer::expect_nothing_pending() {
    if (const auto violation = state_->monitor->check_finish()) {
        detail::report_violation(*violation, nullptr, 0);
        return false;
    }
    return true;
}

::testing::AssertionResult Enforcer::no_violations() const { return typestar::no_violations(*state_->monitor); }

::testing::AssertionResult no_violations(const Monitor& monitor) {
    const auto violations = monitor.violations();
    if (violations.empty())
        return ::testing::AssertionSuccess() << "no violation of " << monitor.model().name() << " in "
                                             << monitor.event_count() << " events";
    auto failure = ::testing::AssertionFailure();
    failure << violations.size() << " violation(s) of " << monitor.model().name() << ":";
    for (const auto& v : violations) failure << "\n" << v.message();
    return failure;
}

::testing::AssertionResult every_interleaving_passes(const ExploreResult& result) {
    if (result.ok()) return ::testing::AssertionSuccess() << result.summary();
    return ::testing::AssertionFailure() << result.summary();
}

}  // namespace typestar
