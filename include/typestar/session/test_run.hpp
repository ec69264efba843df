// Running a spec's test plan on a device, one test at a time: the one place that turns a planned
// test (test_plan.hpp) into its result — passed, failed with the message and trace, not tested,
// skipped — for every front end: the gtest plugin (one gtest test per planned test), `typestar
// check --format json` (every test, for the JUnit 5 and node:test runners) and the tests.
// Design note: a SpecTestRun is made by the document's kind (SpecKind::test_run) over one opened
// device; it keeps one oracle stack for all its tests (typestates: one Conformance, so the cache,
// the batching and the quiescence double-check are those of `typestar check`; register automata:
// one data oracle over the device seen through the spec's signature), so running every test costs
// about one check. What the front end does after a failure (a proposal, update mode) is its own;
// the result carries the counterexample it needs.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/device/data_device.hpp"
#include "typestar/ra/oracle.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/session.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

struct Document;
struct Subject;

/// What became of one planned test.
enum class TestStatus {
    Passed,     ///< its words ran and agreed: bounded evidence under the run's assumptions
    Failed,     ///< a difference, or the test could not run for a reason that is a failure
    NotTested,  ///< the spec leaves the transition unknown, or no explored data class takes it
    Skipped,    ///< the device could not run it (its learning purpose does not explore it)
};
/// "passed", "failed", "not_tested" or "skipped".
[[nodiscard]] const char* test_status_name(TestStatus status) noexcept;

/// Why a failed test failed.
enum class TestFailure {
    None,            ///< not failed
    Counterexample,  ///< the device answered a word otherwise than the spec (a protocol difference)
    Inputs,          ///< the device's inputs are not the spec's
    Plan,            ///< the suite could not be generated
    Partition,       ///< values of one partition of the spec answer differently on the device
    Nondeterminism,  ///< the device answered one word in two ways
    Timing,          ///< a timing failure that repeats (TimingError): not a protocol difference
    Device,          ///< the device failed (DeviceError or another error)
};

/// A test that failed by a timing failure that repeats, as data (typestar-check/2 `timing_failure`):
/// what broke, on how many runs, and the tmax in force, so a runner can show the delay beside tmax
/// without parsing the message.
struct TimingFailure {
    std::string kind;      ///< "late", "queued" or "early" (to_string(TimingError::Kind))
    std::string callback;  ///< the callback (empty: an adapter's own timing assumption)
    double delay_ms = 0;   ///< the delay seen on the last run
    double tmax_ms = 0, tmin_ms = 0;
    std::size_t runs = 1;        ///< runs of the word that broke it
    bool earlier_query = false;  ///< found after that query had answered (the run stopped there)
};

/// The result of one planned test.
struct TestResult {
    TransitionTest test;
    /// The transition in words: "Running start", or a register automaton's "location l0, offer(p)
    /// | true / ok -> l1".
    std::string transition;
    TestStatus status = TestStatus::Passed;
    TestFailure failure = TestFailure::None;
    /// Failed: the whole failure message (what differs, the named trace, what passing means, the
    /// reproduce line); Passed: "N words passed: bounded evidence, relying on:" and the assumptions;
    /// NotTested / Skipped: the sentence saying why, with the spec's file and line.
    std::string message;
    std::string reason;  ///< NotTested / Skipped: why, in a few words; empty otherwise
    std::size_t words = 0;  ///< the words the test ran (planned for it)
    std::string words_text;  ///< typestates: those words, "a b c; a d", for reports
    std::vector<std::string> assumptions;  ///< Passed: what the evidence relies on
    /// Failed by a typestate counterexample: the failing word (over the device's alphabets).
    std::optional<Counterexample> counterexample;
    /// Failed by a register-automaton difference: the data word.
    std::optional<ra::RaCounterexample> data_counterexample;
    /// Failed by a difference (either kind): the failing word as named steps (the spec's state
    /// before each input, the input, the expected and the actual answer), what the message's trace
    /// table shows (format_trace), as data for the runners (typestar-check/2).
    std::vector<TraceStep> trace;
    /// Failed by a timing failure (TestFailure::Timing) of a device that said what broke.
    std::optional<TimingFailure> timing;
};

/// Options of a test run.
struct TestRunOptions {
    std::optional<std::size_t> bound;  ///< default: the spec's distinguisher bound
    std::string suite;                 ///< the suite's name in messages; default: suite_identifier
    std::string device_url;            ///< the device as a URL, for the reproduce line (default: its name)
    /// The reproduce lines of the test named `test`, ending in a line break. Default:
    /// "Reproduce: typestar check SPEC --device URL --bound B\n" (check_command).
    std::function<std::string(const std::string& test)> reproduce;
};

/// The timing a run relied on.
struct TestRunTiming {
    std::optional<double> tmax_ms;       ///< the tmax in force (the device's, or an override)
    std::optional<double> spec_tmax_ms;  ///< the spec's `timing:` tmax, if it declares one
    std::optional<double> max_delay_ms;  ///< the largest callback delay the device observed
    std::string note;                    ///< how tmax was set when not the device's own, or that it differs from the spec's
};

/// A spec's tests over one device (SpecKind::test_run). Not thread-safe: one test at a time.
class SpecTestRun {
public:
    virtual ~SpecTestRun() = default;
    /// The planned tests, in the plan's order (SpecKind::test_plan).
    [[nodiscard]] const std::vector<TransitionTest>& plan() const noexcept { return plan_; }
    /// Runs planned test `index` (its words, through the run's one oracle stack). Never throws for
    /// the device's behaviour: a difference, a device error, a timing failure are results.
    [[nodiscard]] virtual TestResult run(std::size_t index) = 0;
    /// The bound the tests run at.
    [[nodiscard]] std::size_t bound() const noexcept { return bound_; }
    /// What the passes so far rely on: each passing test's assumptions once, in the order first
    /// met, then what the run adds (the values sampled per partition, what reading the spec and the
    /// device assumed).
    [[nodiscard]] virtual std::vector<std::string> assumptions() const;
    [[nodiscard]] virtual TestRunTiming timing() const = 0;
    /// What the run executed so far (the one counter of its oracle stack).
    [[nodiscard]] virtual QueryStats stats() const = 0;
    /// The device's name, for messages.
    [[nodiscard]] virtual std::string device_name() const = 0;
    /// The reproduce line of the whole run: `typestar check SPEC --device URL --bound B`.
    [[nodiscard]] const std::string& reproduce() const noexcept { return reproduce_; }
    /// Typestates: the device the tests ran on (a PartitionedDevice over the given one when the
    /// spec's partitions apply) and the oracle stack, for a proposal through the same cache; null
    /// for register automata, or before the first test (conformance).
    [[nodiscard]] virtual Device* device() noexcept { return nullptr; }
    [[nodiscard]] virtual Conformance* conformance() noexcept { return nullptr; }
    /// Register automata: the device seen through the spec's signature; null for typestates.
    [[nodiscard]] virtual DataDevice* data_device() noexcept { return nullptr; }

protected:
    /// Records a passing result's assumptions.
    void note_assumptions(const std::vector<std::string>& assumptions);
    std::vector<TransitionTest> plan_;
    std::size_t bound_ = 0;
    std::string reproduce_;
    std::vector<std::string> assumptions_;  // of the passes, in first-met order
};

/// The result of planned test `test` of the spec at `spec_path` when the spec leaves its transition
/// unknown (test.unknown): NotTested, with the reason and the message, known without a device (a
/// front end reports it before making one); nullopt for any other test. SpecTestRun::run gives the
/// same result.
[[nodiscard]] std::optional<TestResult> unknown_result(const std::string& spec_path, const TransitionTest& test);

/// `text` quoted for a POSIX shell when it needs it (kept as is when it is only [A-Za-z0-9_./:=@%+-]).
[[nodiscard]] std::string shell_quote(std::string_view text);
/// `typestar check SPEC --device URL --bound B`, shell-quoted.
[[nodiscard]] std::string check_command(const std::string& spec, std::string_view device_url, std::size_t bound);

/// `typestar check SPEC --device URL --format json`: runs every test of `document`'s plan on
/// `subject` (its kind's test_run at `bound`, default the spec's) and writes the object the JUnit 5
/// and node:test runners read (format "typestar-check/1", docs/runners.md): the verdict and exit
/// code, the summary, the assumptions, the timing, the reproduce line, the statistics, one entry
/// per planned test and the count of tests not tested. Returns the exit code: 0 pass, 1 a
/// difference (fail), 2 a timing failure or a device error (as the text mode). Throws
/// std::invalid_argument like SpecKind::test_run (a device of the other kind).
int write_check_json(std::ostream& out, const Document& document, Subject& subject,
                     std::optional<std::size_t> bound = std::nullopt);

/// Options of `typestar check --format json` (write_check_json, write_first_run_json).
struct CheckJsonOptions {
    std::optional<std::size_t> bound;       ///< default: the spec's distinguisher bound
    /// `--bound auto`: check at the spec's bound, and learn a missing spec or a proposal raising B
    /// from it (from 2 for a first run) while the learned machine needs all of it (learn --bound auto).
    bool auto_bound = false;
    /// After a difference (or for a missing spec): propose as the gtest plugin does, by this mode
    /// (proposal_mode); nullopt: nothing is learned or written (typestar-check/1's behaviour).
    std::optional<ProposalMode> proposal;
    LearnerKind learner = LearnerKind::LSharp;  ///< the learner of the proposal
    ProposalPictures pictures;              ///< Write mode: the pictures next to the proposal
    /// The proposal's provenance `device` (empty: the device's name, e.g. a loopback URL).
    std::string device_label;
    /// Who asked for the bound (a runner's "-Dtypestar.bound=3", "TYPESTAR_BOUND=auto"): a first
    /// run's summary says so ("(The bound was asked by ...)"). Empty: not said.
    std::string bound_from;
};

/// The gtest plugin's rules for what a failing or first run writes: on CI nothing (Print, which
/// beats update mode), else with `update` the spec itself (keeping the stored names; the tests its
/// answers explain pass), else with `propose` `<spec>.proposed.yaml` for review; nullopt: neither
/// asked.
[[nodiscard]] std::optional<ProposalMode> proposal_mode(bool propose, bool update, bool ci) noexcept;

/// write_check_json with every option: with `options.proposal`, a run with a difference learns the
/// proposal once (the session's propose_spec, seeded with the stored spec through the run's oracle
/// stack), writes it by mode and adds it to the object (`proposal`: path, the accept command that
/// works, the diff as data, the report text; per test: `transition_changed`, `updated`); update
/// mode passes the tests whose answers the written spec explains. Another kind (a register
/// automaton) proposes through its SpecKind::propose, the gtest plugin's workflow and texts.
int write_check_json(std::ostream& out, const Document& document, Subject& subject, const CheckJsonOptions& options);

/// The first run of a runner, when the spec at `spec` does not exist: the same object with no
/// tests and `learned` (states, bound, learner, summary with the bound change and tight-bound
/// warnings) and `proposal`. CI (Print): nothing is learned, verdict "fail" saying so. Write: the
/// proposal is learned and written for review, verdict "fail" (exit 1). Update: the spec is
/// written, verdict "pass" (exit 0). A learning failure is "error" (exit 2). A data device is
/// learned as a register automaton through its kind's propose.
int write_first_run_json(std::ostream& out, const std::string& spec, Subject& subject, const CheckJsonOptions& options);

/// The object of write_check_json for a run that could not start (`message`: the spec does not
/// load, the device cannot be opened): verdict "error", exit code 2, no tests.
void write_check_error_json(std::ostream& out, const std::string& spec, const std::string& message);

}  // namespace typestar
