// The GoogleTest plugin for register automata (issue 18): a `kind: register-automaton` spec becomes
// conformance tests, one per transition, run like typestates. Design note: registration reads only
// the YAML (test names and lines); the first test body makes the data device and one ra::DataOracle
// (one cache) shared by the spec's tests; each test runs the generalised Algorithm 2 words of its
// transition (ra::check_register_transition). A difference fails the test with the data trace,
// expected vs observed, and a reproduce line; the first failure re-learns the device (SL*-style,
// from scratch) once per process, writes `<spec>.proposed.yaml` (never on CI; the spec itself with
// --typestar_update) and prints the shortest separating data trace between the stored spec and the
// proposal. A missing spec is learned on first run, as for typestates.
//
//     TYPESTAR_RA_SPEC_TESTS("std_priority_queue.yaml", [] {
//         return std::make_unique<typestar::InProcessDataDevice>(make_queue_purpose()); });
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <source_location>

#include "typestar/device/data_device.hpp"
#include "typestar/gtest/gtest.hpp"

namespace typestar {

/// Makes the data device a register-automaton spec is tested against; called at most once per spec
/// and process, lazily, in the first test body. DeviceError means "cannot reach the device" (skip
/// locally, fail on CI or with --typestar_require_device); any other exception fails the tests.
using DataDeviceFactory = std::function<std::unique_ptr<DataDevice>()>;

/// Registers the conformance tests of the register-automaton spec at `spec` (resolved like
/// register_spec_tests) against the device `factory` makes, or the data device of
/// --typestar_device (make_data_device: model:PATH or http://HOST:PORT), which takes precedence.
/// Registers at once (call it before RUN_ALL_TESTS(); the macro does at static initialization).
/// Tests: `<Spec>.<location>_<input>` per transition, with `_<k>` (1-based, file order) when the
/// location has several transitions for that input, located at the transition's YAML line; a spec
/// that does not load is one failing test `<Name>.load` with its file:line:col diagnostics; a
/// missing spec is one test `<Name>.learn` that learns it from the device (never on CI) and writes
/// `<spec>.proposed.yaml` and fails, or with --typestar_update writes the spec itself and passes.
/// --typestar_bound overrides the spec's distinguisher bound. With --typestar_update a failing test
/// writes the re-learned spec over the stored one and passes when it explains the device's answer.
/// With --typestar_serve the registered data device is served as a /v1 data agent (no test runs).
void register_register_automaton_tests(const std::filesystem::path& spec, DataDeviceFactory factory = {},
                                       SpecTestOptions options = {},
                                       std::source_location where = std::source_location::current());

namespace detail {
/// TYPESTAR_RA_SPEC_TESTS at static-initialization time. Returns true.
bool queue_register_automaton_tests(const char* spec, DataDeviceFactory factory = {}, SpecTestOptions options = {},
                                    std::source_location where = std::source_location::current());
}  // namespace detail

}  // namespace typestar

/// `TYPESTAR_RA_SPEC_TESTS("spec.yaml"[, factory[, typestar::SpecTestOptions{...}]]);` at namespace
/// scope; see typestar::register_register_automaton_tests.
#define TYPESTAR_RA_SPEC_TESTS(spec, ...)                                                          \
    [[maybe_unused]] static const bool TYPESTAR_DETAIL_CAT(typestar_ra_spec_tests_, __LINE__) =   \
        ::typestar::detail::queue_register_automaton_tests((spec)__VA_OPT__(, ) __VA_ARGS__)
