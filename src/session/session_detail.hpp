// Internal to the session: the small pieces learning (session.cpp) and checking (check.cpp) share
// — the device list, the outputs declared to devices, a suite's configuration, the assumptions of
// a verdict, and the quiescence double-check's report of a callback the spec does not have.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/conformance/suite.hpp"
#include "typestar/core/mealy.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/sul/device.hpp"
#include "typestar/sul/equivalence.hpp"

namespace typestar {
struct Document;
struct Subject;
struct TestRunOptions;
class SpecTestRun;
}  // namespace typestar

namespace typestar::detail {

/// The spec of a typestate document: its spec, or a DOT file's machine as a spec (SpecError at
/// the edge's line when it is no synchronous closure).
[[nodiscard]] spec::Spec spec_for_diff(const Document& document);

/// The test runs of the two kinds (SpecKind::test_run; test_run.cpp).
[[nodiscard]] std::unique_ptr<SpecTestRun> typestate_test_run(const Document& document, Subject& subject,
                                                              const TestRunOptions& options);
[[nodiscard]] std::unique_ptr<SpecTestRun> register_test_run(const Document& document, Subject& subject,
                                                             const TestRunOptions& options);

/// `devices` as a vector; std::invalid_argument("no device") when empty.
[[nodiscard]] std::vector<Device*> device_list(std::span<Device* const> devices);

/// Declares `outputs` to every device whose outputs grow as answered (a Mealy device: named outputs
/// learned when first answered), so that the model's output ids and the devices' agree by name.
void declare_outputs(std::span<Device* const> devices, const Alphabet& outputs);

/// A SuiteConfig of `method` at `bound` (Algorithm 2) or `extra_states` (W, Wp).
[[nodiscard]] SuiteConfig suite_config(SuiteMethod method, std::size_t bound, std::size_t extra_states);

/// What a verdict of a suite of `method` at `bound` relies on, one sentence each: the bound, the
/// traits the device declares, and its timing (with how quiet waits were double-checked).
[[nodiscard]] std::vector<std::string> assumptions_of(SuiteMethod method, std::size_t bound,
                                                      const DeviceTraits& traits, const DeviceDescription& device,
                                                      double quiet_check_factor);

/// The middle of the assumption naming refused transitions a check could not test (after their count).
inline constexpr std::string_view kRefusedNotTested =
    " transition(s) the spec says are refused (err) were not tested: the device's learning purpose does not "
    "explore them (it answered unknown:purpose; re-learn the spec to record them as unknown): ";

/// The assumption of a device that declares every run of a word answers alike (Device::deterministic):
/// learning then re-runs nothing to rule out a flake; learn and check name it alike.
inline constexpr std::string_view kDeclaredDeterministic =
    "every run of a word answers alike (declared by the device: a model or a simulation), so no answer was re-run "
    "to rule out a flake";

/// Whether every device declares itself deterministic (Device::deterministic): none can flake.
/// Learning then runs no flake-policy verification, and learn and check name kDeclaredDeterministic.
[[nodiscard]] inline bool all_deterministic(std::span<Device* const> devices) {
    return std::all_of(devices.begin(), devices.end(), [](const Device* d) { return d->deterministic(); });
}

/// Where a failing check's counterexample was found, for its message: "<unit> K of N: " for the
/// K-th word of the `total` run, else "beyond <whose> N <unit>s, found by the quiescence
/// double-check: " — a counterexample without a test index is the double-check's (a callback the
/// spec does not have), whose word is none of those run, so it is never numbered as one of them.
[[nodiscard]] inline std::string where_found(const Counterexample& cex, std::size_t total, std::string_view unit,
                                             std::string_view whose) {
    if (cex.test_case)
        return std::string(unit) + " " + std::to_string(*cex.test_case + 1) + " of " + std::to_string(total) + ": ";
    return "beyond " + std::string(whose) + " " + std::to_string(total) + " " + std::string(unit) +
           (total == 1 ? "" : "s") + ", found by the quiescence double-check: ";
}

/// A callback the machine has on no transition, heard by a quiescence double-check after `word`.
struct NewCallback {
    Word word;             ///< the word before the double-checking wait, over the machine's inputs
    std::string callback;  ///< its name
};

/// Whether `machine` outputs `name` on some transition.
[[nodiscard]] bool has_output(const MealyMachine& machine, const std::string& name);

/// confirm_quiescence; with `found` (checking a spec), a callback the machine never outputs is a
/// protocol difference, never "raise tmax": written to `found`, and the count so far is returned.
std::size_t confirm_quiescence_impl(const MealyMachine& machine, const std::vector<Word>& access,
                                    std::span<Device* const> devices, double factor, const std::vector<char>* only,
                                    std::optional<NewCallback>* found);

/// The JSON of `typestar diff --format json` for the diff of two typestate specs (write_suite_json's
/// sibling: the machine interface the runners read).
[[nodiscard]] std::string typestate_diff_json(const spec::SpecDiff& diff, bool same);

}  // namespace typestar::detail
