// The GoogleTest plugin: a typestate spec becomes conformance tests, one per transition.
// Design note: the adapter is thin (rapidcheck's extras/gtest is the model). Registration only
// reads YAML; a test body creates the device lazily, runs its share of the DroidStar Algorithm 2
// suite through one cached oracle stack per spec (conformance/runner.hpp), and only here do the
// result values (a Counterexample, a learned machine) become gtest failures with a trace, a
// proposed spec, its diff, and a line that reproduces the failure. A missing spec is learned on
// first run; a counterexample makes L* re-learn once per spec, seeded with the stored spec.
// A register-automaton spec (`kind: register-automaton`) is registered the same way with a factory
// of data devices: the same tests, a plan per kind (session/test_plan.hpp), the generalised
// Algorithm 2 words of each transition, an SL*-style re-learned proposal.
//
//     // timer_service_test.cpp, linked with typestar::gtest_main:
//     TYPESTAR_SPEC_TESTS("timer_service.yaml", [] { return make_timer_service_device(); });
//
// or, with a custom main: `typestar::initialize(argc, argv); typestar::register_spec_tests(...);
// return RUN_ALL_TESTS();`. See docs/gtest-plugin.md.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>

#include "typestar/device/data_device.hpp"
#include "typestar/gtest/settings.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

/// Makes the device a spec is tested against. Called at most once per spec and process, lazily, in
/// the first test body that needs the device (never while tests are listed). Throwing DeviceError
/// means "cannot reach the device": the tests skip locally and fail on CI or with
/// --typestar_require_device; any other exception fails the test.
using DeviceFactory = std::function<std::unique_ptr<Device>()>;

/// Makes the data device a register-automaton spec is tested against, like DeviceFactory (called
/// at most once per spec and process, lazily; DeviceError: cannot reach the device).
using DataDeviceFactory = std::function<std::unique_ptr<DataDevice>()>;

/// Options of one registration. Plain data with defaults.
struct SpecTestOptions {
    /// Name of the spec learned when the file does not exist yet (and of its gtest test suite until
    /// then); default: the file's stem, with characters outside [A-Za-z0-9_.-] replaced by `_`.
    std::string name;
    /// A device URL (`model:PATH`, `inproc:NAME`, `http://HOST:PORT`) that reaches the same device as
    /// the factory (e.g. the class served by a typestar-device agent), for the `typestar check` line
    /// of failure messages. Default: `exec:<this binary>#<suite>` (the binary serves the factory's
    /// device, --typestar_serve), plus a line that reruns the gtest test. A device from
    /// --typestar_device has its URL anyway.
    std::string device_url;
};

/// Options of initialize(). Plain data with defaults.
struct InitOptions {
    /// Give loggers named typestar.* a stderr sink (level `warn`, then SPDLOG_LEVEL applied through
    /// spdlog::cfg::load_env_levels). Set false when the program installs its own spdlog logger.
    bool logging = true;
};

/// Registers the conformance tests of the spec at `spec` against the device `factory` makes (or
/// the device of --typestar_device / TYPESTAR_DEVICE, which takes precedence over the factory).
/// A relative `spec` is resolved against the directory of the file that registers it (`where`),
/// like `#include "..."`, so the binary runs from any directory; when that file name is relative
/// too, against the working directory.
///
/// Before initialize() the registration is queued; initialize() registers queued specs after
/// InitGoogleTest, in registration order. After initialize() it registers at once (call it before
/// RUN_ALL_TESTS()). Registration reads the YAML only: no device contact, no output.
///
/// Tests, in a stable order: for a loaded spec, `<Spec>.<State>_<symbol>` for every reachable
/// state (file order) and input (callins in declared order, then `wait`), located at the spec's
/// YAML line of that transition; for a missing file, one test `<Name>.learn`; for a file that does
/// not load, one failing test `<Name>.load` carrying the diagnostics. Names use [A-Za-z0-9_] only.
void register_spec_tests(const std::filesystem::path& spec, DeviceFactory factory = {},
                         SpecTestOptions options = {},
                         std::source_location where = std::source_location::current());

/// The same for a register-automaton spec (`kind: register-automaton`) and a factory of data
/// devices (--typestar_device's data device, make_data_device, takes precedence). Tests:
/// `<Spec>.<location>_<input>` per transition of the automaton, with `_<k>` (1-based, file order)
/// when the location has several transitions for that input (plan_register_tests); each runs the
/// generalised Algorithm 2 words of its transition at B through one data oracle (one cache) per
/// spec. A missing spec is learned SL*-style; a failing test re-learns once per process and writes
/// `<spec>.proposed.yaml` with the shortest data trace separating it from the stored spec. A spec
/// registered without a factory (its device from --typestar_device) is this kind when its file is
/// a `kind: register-automaton` spec.
void register_spec_tests(const std::filesystem::path& spec, DataDeviceFactory factory, SpecTestOptions options = {},
                         std::source_location where = std::source_location::current());

/// Reads the typestar flags (--typestar_update, --typestar_bound=B, --typestar_device=URL,
/// --typestar_require_device, with the environment fallbacks of settings.hpp) and removes them from
/// argv, calls testing::InitGoogleTest(&argc, argv), sets up logging (InitOptions::logging), and
/// registers queued specs. Call it once, before RUN_ALL_TESTS(); later calls do nothing. A bad flag
/// value does not stop the program: every typestar test then fails, naming it.
/// With --typestar_serve=HOST:PORT it runs no test and does not return: it serves the devices of
/// the specs registered so far as /v1 agents (settings.hpp), then exits (0 after SIGTERM/SIGINT/
/// SIGHUP, 2 with the reason on stderr when it cannot serve, or on a bad typestar flag).
void initialize(int& argc, char** argv, const InitOptions& options = {});

/// The settings in force (after initialize(); before it, those of the environment alone).
[[nodiscard]] const Settings& settings();

namespace detail {
/// Queues a registration at static-initialization time (TYPESTAR_SPEC_TESTS). Returns true.
bool queue_spec_tests(const char* spec, DeviceFactory factory = {}, SpecTestOptions options = {},
                      std::source_location where = std::source_location::current());
/// The same with a data device factory (a register-automaton spec).
bool queue_spec_tests(const char* spec, DataDeviceFactory factory, SpecTestOptions options = {},
                      std::source_location where = std::source_location::current());
}  // namespace detail

}  // namespace typestar

#define TYPESTAR_DETAIL_CAT2(a, b) a##b
#define TYPESTAR_DETAIL_CAT(a, b) TYPESTAR_DETAIL_CAT2(a, b)

/// One-line registration at namespace scope of a test file linked with typestar::gtest_main (or
/// with a main that calls typestar::initialize):
/// `TYPESTAR_SPEC_TESTS("spec.yaml"[, factory[, typestar::SpecTestOptions{...}]]);` — `factory`
/// makes a Device (a typestate spec) or a DataDevice (a register-automaton spec).
/// See typestar::register_spec_tests for what gets registered.
#define TYPESTAR_SPEC_TESTS(spec, ...)                                                             \
    [[maybe_unused]] static const bool TYPESTAR_DETAIL_CAT(typestar_spec_tests_, __LINE__) =      \
        ::typestar::detail::queue_spec_tests((spec)__VA_OPT__(, ) __VA_ARGS__)
