// GoogleMock integration: hold the client code under test to a callback typestate through the
// mocks it already uses. Design note: enforce() installs, per bound mock method, an ON_CALL
// default action that reports the call to a Monitor and then does what the user chose — for an
// allowed call the binding's allowed action (else gmock's default value); for a refused call the
// binding's refusal action (what the real framework does: throw, return an error code), else a
// test failure carrying the spec file:line, state and trace. Because it is a default action,
// existing EXPECT_CALLs keep counting calls; an EXPECT_CALL whose own action replaces the default
// (WillOnce(Return(3))) bypasses the check unless that action is wrapped in Enforcer::checked.
//
// gmock (1.12) has no public per-call hook reachable from a member-function pointer such as
// &MockPlayer::start, so a method is bound by name with TYPESTAR_CALLIN(start), which expands to
// gmock's own ON_CALL(mock, start).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "typestar/monitor/callback_driver.hpp"
#include "typestar/monitor/monitor.hpp"
#include "typestar/spec/monitor.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {

/// What a refused callin does when its binding names no refusal action.
enum class OnRefused : std::uint8_t {
    FailTest,  ///< ADD_FAILURE with the violation (spec file:line, state, trace); return the default
    Record,    ///< only record it in the monitor (for exploration, or to inspect violations later)
};

/// enforce() configuration (a value).
struct EnforceOptions {
    OnRefused on_refused = OnRefused::FailTest;
    /// A call into an *unknown* transition of a three-valued spec (docs/spec-format-v2.md): never a
    /// violation. Allow: accepted silently; Warn (default): accepted, a warning on
    /// `typestar.monitor`; Fail: a test failure that says "unverified", not "violation". A monitor
    /// made by enforce() from a spec uses the same policy.
    UnverifiedPolicy unverified = UnverifiedPolicy::Warn;
};

namespace detail {

/// "No action given": use the default behaviour.
struct UnsetAction {};

/// What the installed actions share (kept alive by them, so a mock may outlive its Enforcer).
struct EnforceState {
    std::shared_ptr<Monitor> monitor;
    OnRefused on_refused = OnRefused::FailTest;
    UnverifiedPolicy unverified = UnverifiedPolicy::Warn;
};

/// Reports an unverified call under `policy`: nothing, a warning on `typestar.monitor`, or a
/// non-fatal gtest failure naming it unverified (located like report_violation).
void report_unverified(const Unverified& unverified, UnverifiedPolicy policy, const char* file, int line);

/// Adds a non-fatal gtest failure for `violation`, located at the spec's file:line when known,
/// else at `file`:`line` (where the callin was bound).
void report_violation(const Violation& violation, const char* file, int line);

/// gmock's default value of R (nothing for void).
template <class R>
R default_result() {
    if constexpr (std::is_void_v<R>) {
        return;
    } else {
        return ::testing::DefaultValue<R>::Get();
    }
}

/// `action` as an Action<F>; the null (default) action for UnsetAction.
template <class F, class A>
::testing::Action<F> to_action(const A& action) {
    if constexpr (std::is_same_v<A, UnsetAction>) {
        return {};
    } else {
        return ::testing::Action<F>(action);
    }
}

/// The checking action for a mocked callin of signature R(Args...). A null `refused` or `allowed`
/// action means the default. With `allowed_when_refused`, a refused call without a refusal action
/// still performs `allowed` (after reporting).
template <class R, class... Args>
::testing::Action<R(Args...)> checking_action(std::shared_ptr<const EnforceState> state, Event callin,
                                              ::testing::Action<R(Args...)> refused,
                                              ::testing::Action<R(Args...)> allowed, bool allowed_when_refused,
                                              const char* file, int line) {
    return [state = std::move(state), callin, refused = std::move(refused), allowed = std::move(allowed),
            allowed_when_refused, file, line](Args... args) -> R {
        bool perform_allowed = true;
        const auto outcome = state->monitor->check_event(callin);
        if (outcome.unverified) report_unverified(*outcome.unverified, state->unverified, file, line);
        if (const auto& violation = outcome.violation) {
            if (!refused.IsDoDefault())
                return refused.Perform(std::tuple<Args...>(std::forward<Args>(args)...));
            if (state->on_refused == OnRefused::FailTest) report_violation(*violation, file, line);
            perform_allowed = allowed_when_refused;
        }
        if (perform_allowed && !allowed.IsDoDefault())
            return allowed.Perform(std::tuple<Args...>(std::forward<Args>(args)...));
        return default_result<R>();
    };
}

/// A mocked method bound to a spec callin (made by TYPESTAR_CALLIN). `Getter` returns the method's
/// gmock OnCallSpec for a mock object.
template <class Getter, class Refused = UnsetAction, class Allowed = UnsetAction>
struct CallinBinding {
    std::string name;  ///< the callin's name in the spec
    Getter on_call;
    const char* file = "";
    int line = 0;
    Refused refused{};
    Allowed allowed{};

    /// When the state refuses the callin, perform `action` (any gmock action: Throw(e),
    /// Return(error_code), a lambda) instead of failing the test. The violation is still recorded.
    template <class A>
    [[nodiscard]] CallinBinding<Getter, A, Allowed> on_refused(A action) const {
        return {name, on_call, file, line, std::move(action), allowed};
    }
    /// When the state allows the callin, perform `action` (else gmock's default value for the
    /// return type). Replaces an earlier ON_CALL's action, so give return values here.
    template <class A>
    [[nodiscard]] CallinBinding<Getter, Refused, A> on_allowed(A action) const {
        return {name, on_call, file, line, refused, std::move(action)};
    }
};

/// True for CallinBinding types (constrains enforce's variadic bindings).
template <class T>
inline constexpr bool is_callin_binding = false;
template <class G, class R, class A>
inline constexpr bool is_callin_binding<CallinBinding<G, R, A>> = true;

/// A CallinBinding with no actions (used by TYPESTAR_CALLIN).
template <class Getter>
CallinBinding<Getter> make_binding(std::string name, Getter getter, const char* file, int line) {
    return {std::move(name), std::move(getter), file, line, {}, {}};
}

/// Installs the checking action of `binding` as the method's ON_CALL default (R and Args deduced
/// from a pointer to the mocked function type, so no gmock-internal type is named here).
template <class R, class... Args, class OnCall, class Binding>
void install_with(OnCall& on_call, R (*)(Args...), const std::shared_ptr<const EnforceState>& state,
                  const Binding& binding) {
    using F = R(Args...);
    const Event callin = state->monitor->model().callin(binding.name);
    on_call.WillByDefault(checking_action<R, Args...>(state, callin, to_action<F>(binding.refused),
                                                      to_action<F>(binding.allowed), false, binding.file,
                                                      binding.line));
}

/// `on_call` is what ON_CALL returns for a method of function type F.
template <template <class> class OnCallSpec, class F, class Binding>
void install_on(OnCallSpec<F>& on_call, const std::shared_ptr<const EnforceState>& state, const Binding& binding) {
    install_with(on_call, static_cast<F*>(nullptr), state, binding);
}

/// An action that reports a callin to the monitor before performing `Inner` (Enforcer::checked).
template <class Inner>
struct CheckedAction {
    std::shared_ptr<const EnforceState> state;
    Event callin;
    Inner inner;

    template <class R, class... Args>
    operator ::testing::Action<R(Args...)>() const {  // NOLINT: converts like gmock's own actions
        return checking_action<R, Args...>(state, callin, {}, to_action<R(Args...)>(inner), true, "", 0);
    }
    template <class R, class... Args>
    operator ::testing::OnceAction<R(Args...)>() const {  // NOLINT
        return static_cast<::testing::Action<R(Args...)>>(*this);
    }
};

}  // namespace detail

/// Binds the mocked method `method` to the spec callin of the same name, e.g. TYPESTAR_CALLIN(start).
#define TYPESTAR_CALLIN(method) TYPESTAR_CALLIN_NAMED(#method, method)
/// Binds the mocked method `method` to the spec callin `name` (a string), for C++ names that differ
/// from the spec's (TYPESTAR_CALLIN_NAMED("setDataSource", set_data_source)).
#define TYPESTAR_CALLIN_NAMED(name, method)                                                        \
    ::typestar::detail::make_binding(                                                              \
        name, [](auto& typestar_mock_) -> decltype(auto) { return ON_CALL(typestar_mock_, method); }, \
        __FILE__, __LINE__)

/// The result of enforce(): the monitor the bound mock methods report to, plus helpers that play
/// the framework's side in gtest style. Cheap to copy (shared state).
class Enforcer {
public:
    /// Throws std::invalid_argument when `monitor` is null.
    Enforcer(std::shared_ptr<Monitor> monitor, EnforceOptions options);

    /// The monitor the bound methods report to.
    [[nodiscard]] Monitor& monitor() const noexcept { return *state_->monitor; }
    /// The same monitor, shared.
    [[nodiscard]] const std::shared_ptr<Monitor>& monitor_ptr() const noexcept { return state_->monitor; }

    /// Registers the client's listener for callback `name` (typestar::Error if undeclared).
    void listen(std::string_view callback, std::function<void()> listener);
    /// Delivers callback `name` to its listener. When the current state cannot produce it, fails
    /// the test (ADD_FAILURE with spec file:line, state and trace) and returns false.
    bool deliver(std::string_view callback);
    /// Reports that the peer performed the environment-role input `name` (an observed event, never a
    /// client call): an event the current state does not list is unverified (EnforceOptions).
    bool environment(std::string_view name);
    /// Delivers the callback the current state owes, if any; returns its name.
    std::optional<std::string> deliver_pending();
    /// Fails the test when the current state still owes the client a callback. True otherwise.
    bool expect_nothing_pending();
    /// Success when the monitor recorded no violation; otherwise a failure listing each one.
    [[nodiscard]] ::testing::AssertionResult no_violations() const;

    /// Wraps a gmock action so that the call is checked first (for EXPECT_CALL(...).WillOnce(...),
    /// whose action replaces the checking default). A refused call follows the enforcer's
    /// OnRefused; `action` runs in either case.
    template <class A>
    [[nodiscard]] detail::CheckedAction<A> checked(std::string_view callin, A action) const {
        return {state_, state_->monitor->model().callin(callin), std::move(action)};
    }

    /// The shared state the installed actions hold (for enforce()).
    [[nodiscard]] const std::shared_ptr<detail::EnforceState>& state() const noexcept { return state_; }

private:
    std::shared_ptr<detail::EnforceState> state_;
    std::shared_ptr<CallbackDriver> driver_;
};

/// Makes every call of the bound mock methods go through `monitor` (see the design note). Throws
/// typestar::Error when a binding names a callin the spec does not declare.
template <class Mock, class... Bindings>
    requires(detail::is_callin_binding<Bindings> && ...)
Enforcer enforce(Mock& mock, std::shared_ptr<Monitor> monitor, EnforceOptions options, const Bindings&... bindings) {
    Enforcer enforcer(std::move(monitor), options);
    const std::shared_ptr<const detail::EnforceState> state = enforcer.state();
    (detail::install_on(bindings.on_call(mock), state, bindings), ...);
    return enforcer;
}

/// enforce() with default options.
template <class Mock, class... Bindings>
    requires(detail::is_callin_binding<Bindings> && ...)
Enforcer enforce(Mock& mock, std::shared_ptr<Monitor> monitor, const Bindings&... bindings) {
    return enforce(mock, std::move(monitor), EnforceOptions{}, bindings...);
}

/// enforce() against a fresh monitor of `spec`, e.g.
/// `auto e = typestar::enforce(player, spec, TYPESTAR_CALLIN(prepareAsync), TYPESTAR_CALLIN(start));`
template <class Mock, class... Bindings>
    requires(detail::is_callin_binding<Bindings> && ...)
Enforcer enforce(Mock& mock, const spec::Spec& spec, EnforceOptions options, const Bindings&... bindings) {
    MonitorOptions monitor_options;
    monitor_options.unverified = options.unverified;
    return enforce(mock, ::typestar::spec::monitor_of(spec, monitor_options), options, bindings...);
}

/// enforce() against a fresh monitor of `spec` with default options.
template <class Mock, class... Bindings>
    requires(detail::is_callin_binding<Bindings> && ...)
Enforcer enforce(Mock& mock, const spec::Spec& spec, const Bindings&... bindings) {
    return enforce(mock, spec, EnforceOptions{}, bindings...);
}

}  // namespace typestar
