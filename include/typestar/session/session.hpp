// The session layer: the one learning-and-checking pipeline every front end calls.
// Design note: a front end (CLI, gtest plugin, targets, benches, tests) never assembles an oracle
// stack itself. It opens its devices (one, or a pool of one class), then calls learn_spec,
// check_spec or propose; each builds one OracleStack over the devices, runs the experiment or the
// suite through it, asks every device for its timing self-check before anything is reported, and
// returns values: a LearnedSpec with its provenance built here once, or a CheckReport with a
// verdict, the first counterexample as a rendered-ready trace, the assumptions the verdict relies
// on, and the statistics. (AALpy's run_Lstar and LearnLib's Experiment are the same idea.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/conformance/exploration.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/mealy.hpp"
#include "typestar/learn/learner.hpp"
#include "typestar/learn/lsharp.hpp"
#include "typestar/learn/lstar.hpp"
#include "typestar/session/timing_probe.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/cache.hpp"
#include "typestar/sul/device.hpp"
#include "typestar/sul/equivalence.hpp"
#include "typestar/sul/stack.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

/// "typestar X.Y.Z", the version of this build (for provenance and messages).
[[nodiscard]] std::string tool_version();

/// Which learning algorithm.
enum class LearnerKind {
    LStar,   ///< L* with Rivest–Schapire (DroidStar Algorithm 1)
    LSharp,  ///< L# (Vaandrager et al., TACAS 2022) with adaptive distinguishing sequences, err-aware
};
/// "lstar" or "lsharp".
[[nodiscard]] const char* learner_name(LearnerKind kind) noexcept;
/// The learner named `name` ("lstar", "lsharp"); nullopt otherwise.
[[nodiscard]] std::optional<LearnerKind> parse_learner(std::string_view name) noexcept;

/// How hypotheses are judged while learning. Plain data with defaults.
struct EquivalenceOptions {
    SuiteMethod method = SuiteMethod::Algorithm2;
    /// Algorithm 2: the distinguisher bound B (DroidStar §4.3).
    std::size_t bound = 2;
    /// W and Wp: the extra states k (relative to each hypothesis) ...
    std::size_t extra_states = 0;
    /// ... or an absolute bound on the device's states (k = state_bound − |hypothesis|, at least
    /// extra_states), as AALpy's W/Wp oracles take it.
    std::optional<std::size_t> state_bound;
    /// Learning alone against a known truth (a perfect oracle: shortest separating words, no
    /// queries). Only for benchmarks and model devices whose machine the caller loaded itself.
    std::optional<MealyMachine> perfect;
    /// Test cases handed to the oracle per batch (a pool of devices runs a batch in parallel).
    std::size_t batch_size = 1;
    /// Algorithm 2 only: after learning at B, run Algorithm 2 at B+1 against the result; raise B
    /// while that finds a counterexample, and stop at the smallest B (from `bound` up) after which
    /// B+1 finds nothing — never at B+1 itself. Up to `max_bound`, and not when B+1 would cost more
    /// than `budget` executed queries in all (an estimate; LearnOptions::max_queries is the hard
    /// cap); the cache keeps every answer across B. LearnedSpec::bound_note lists every B tried
    /// and the words each B+1 check ran.
    bool auto_bound = false;
    std::size_t max_bound = 8;
    std::uint64_t budget = 3'000'000;
    /// Algorithm 2 as the learner's equivalence oracle in chained words (SuiteConfig::chained,
    /// docs/conformance-chained.md): the same guarantee up to B with fewer resets, and L# then does
    /// not ask the plain suite's words ahead (LSharpConfig::explore_suggested). Only with L#, and
    /// only where the flake policy does not re-run the decisive words (a device that declares
    /// itself deterministic, or flake_check off); elsewhere, and with false, the plain suite. A
    /// proposal through a failing check's stack (propose with a Conformance) takes the plain suite
    /// where that check's cache leaves fewer of its words to run than of the chained words.
    bool chained = true;
    /// The search beyond the bound (conformance/exploration.hpp), on by default: after the bounded
    /// suite finds no counterexample to a hypothesis, random words from each of its states —
    /// access(q) · a random walk of up to 4·max(8, |Q|) inputs, biased towards the states the
    /// search entered least · a characterizing word — are run,
    /// shortest first; a counterexample goes back to the learner, and learning ends only when a
    /// whole search finds nothing. It finds states that need words longer than B to tell apart (a
    /// real broker, a TCP stack), which the bounded suite cannot; what it ran is recorded in the
    /// spec (`bounds: explored`) and named in the messages as evidence beyond the bound, never as a
    /// proof. 0 turns it off (the bounded suite alone, as before typestar 0.5).
    std::size_t explore_words_per_transition = kDefaultExploreWordsPerTransition;
    /// The seed of the search (the words are a function of the seed and the hypothesis).
    std::uint64_t explore_seed = 20260101;
    static constexpr std::size_t kDefaultExploreWordsPerTransition = 3;
};

/// Options of learn_spec and propose. Plain data with defaults.
struct LearnOptions {
    /// The spec's name; empty: the device's class name (Device::describe), else "learned".
    std::string name;
    /// L# by default: fewer device queries and waits than L* on every row typestar_learn_bench measures.
    LearnerKind learner = LearnerKind::LSharp;
    /// L*'s own options (counterexample strategy, initial suffixes, padding, seed).
    LearnerConfig lstar;
    EquivalenceOptions equivalence;
    /// Start from this machine (e.g. seed_of(stored spec)): see LearnerConfig::seed. Its states are
    /// kept apart wherever the device still tells them apart by the seed's own words (an equivalence
    /// check after the suite's; LearnedSpec::seed_note). Not with a perfect oracle.
    std::optional<MealyMachine> seed;
    /// A counterexample known up front (the word a conformance run failed on), used before the
    /// first equivalence query (ExperimentConfig::counterexample).
    std::optional<Counterexample> counterexample;
    /// Give up after this many equivalence queries (0: no limit).
    std::size_t max_rounds = 0;
    /// A hard cap on executed queries, counted from the first query of this learning run
    /// (learning, equivalence and the re-checks): QueryBudgetError when it runs out before a
    /// result. nullopt: no cap.
    std::optional<std::uint64_t> max_queries;
    /// Called after each round (a progress line); the experiment also logs one info line per round.
    std::function<void(const RoundInfo&)> on_round;
    /// The `device` recorded in the provenance (e.g. the URL the user passed); empty: the first
    /// device's name.
    std::string device_label;
    CacheConfig cache;
    /// Quiescence double-check (confirm_quiescence): every quiet `wait` of the result is run again
    /// listening this many times tmax; a run answering quiet where the cache holds a callback is
    /// judged with the same longer wait (OracleStack::listen_for_late_callbacks). 0 turns both off
    /// (a verdict then names that tmax is unchecked).
    double quiet_check_factor = 3;
    /// Determinism re-check (recheck_waits): the `wait` of every state of the result is run this
    /// many more times on the device, bypassing the cache; any other answer is NondeterminismError.
    /// Skipped for devices that declare themselves deterministic (Device::deterministic).
    /// Callbacks (asynchronous) are where a flaky device differs; 0 turns it off.
    std::size_t wait_rechecks = 2;
    /// The flake policy (docs/spec-format.md, "Rare flakes"): once the equivalence oracle finds no
    /// counterexample to a hypothesis, its decisive words — the equivalence suite it passed (with a
    /// perfect oracle, the Wp-method suite for no extra state), cut after an expected `err`, the
    /// maximal ones — run once more past the cache, counted in the verification phase, so every
    /// answer the result relies on (also those that made two observations one state) was seen in two
    /// independent runs. An answer the cache contradicts is a NondeterminismError naming the word; one
    /// that refutes the hypothesis is a counterexample. Each word is re-run at most once. If a run
    /// answers wrongly with probability p, a wrong result within the bound survives with probability
    /// at most N·p² for the N answers re-run (LearnedSpec::flake_note). Not run, and no `wait`
    /// re-checks either, when every device declares itself deterministic (Device::deterministic).
    /// false turns it off (then a wrong answer the cache keeps is never seen again).
    bool flake_check = true;
    /// The timing probe as learning's first phase (probe_timing, typestar/session/timing_probe.hpp):
    /// when set, the first device is probed with these options before any query, and every device's
    /// tmax / tmin are replaced by the probe's proposal. Unset: the probe runs with the default
    /// options only when the first device has `wait`, declares no tmax (DeviceDescription::tmax_ms)
    /// and runs in real time (not Device::deterministic: a model or a simulation has no delays to
    /// measure). A device that declares its timing keeps it. Either way the spec records the timing
    /// used and how it was obtained (provenance `timing`, the assumptions' tmax line).
    std::optional<TimingProbeOptions> probe;
};

/// Runs access(q)·wait for every state q of `machine` (over the stack's alphabets) `times` times
/// (`times` − 1 for the states marked in `ran_once`: one re-run happened already), past the
/// stack's cache as one batch over its devices (CacheOracle::rerun), counting into the stack; an
/// answer other than the cache's or the machine's throws NondeterminismError with every answer seen
/// and how often.
void recheck_waits(const MealyMachine& machine, const std::vector<Word>& access, OracleStack& stack,
                   std::size_t times, std::span<const char> ran_once = {});

/// What learn_spec and propose return.
struct LearnedSpec {
    MealyMachine machine;                ///< the learned Mealy machine, minimal, over the device's alphabets
    std::vector<Word> access_sequences;  ///< of the experiment's last hypothesis
    /// The typestate spec when `machine` is a synchronous closure: canonical, named, bound and
    /// timing set, provenance filled in (tool, device, framework). Else nullopt and `not_a_closure`
    /// says why (write `machine` as DOT instead).
    std::optional<spec::Spec> spec;
    std::string not_a_closure;
    std::size_t rounds = 0;
    bool converged = false;  ///< the equivalence oracle found no counterexample to the last hypothesis
    QueryStats stats;
    CacheStats cache;
    double seconds = 0;      ///< wall time of the experiment
    std::string learner;     ///< e.g. "L*"
    /// Algorithm 2: the bound B the last experiment used, and the learned machine's own
    /// distinguisher bound. When it reaches B the bound is tight: states that need longer words
    /// to tell apart are likely missed (`bound_tight`; say so, with the command for B+1) — unless
    /// auto_bound checked the result with Algorithm 2 at B+1 and found nothing.
    std::size_t bound = 0;
    std::size_t machine_bound = 0;
    bool bound_tight = false;
    /// Why learning stopped at `bound` (auto_bound), or empty.
    std::string bound_note;
    /// What the flake policy re-ran and the residual chance it leaves (LearnOptions::flake_check), or
    /// that it did not run because the device declares itself deterministic;
    /// one sentence for messages; empty when it was off.
    std::string flake_note;
    /// Every assumption the learned spec relies on, one sentence each (the bound first): the one
    /// assumptions block a check of it would print (assumptions_of). Refinement appends one
    /// "values sampled: ..." line per partition it ran values of.
    std::vector<std::string> assumptions;
    /// What the search beyond the bound ran (EquivalenceOptions::explore_words_per_transition): searches,
    /// the words and longest word of the last search, which found nothing; all zero when it was off.
    ExplorationRecord explored;
    /// One sentence on that search for messages ("beyond the bound: ..."), empty when it was off.
    std::string exploration_note;
    /// With a seed (LearnOptions::seed, e.g. the stored spec of a proposal): what checking the
    /// seed's states cost, one sentence for messages. Every two seed states a hypothesis merges are
    /// run with the seed's own word telling them apart (after their access words in the seed); an
    /// answer the hypothesis does not predict is a counterexample, so seed states merge only where
    /// the device no longer tells them apart by those words. Empty without a seed.
    std::string seed_note;
    /// The probe of learning's first phase (LearnOptions::probe), when it ran: its table and proposal.
    std::optional<TimingProbe> timing_probe;
};

/// The warning of a tight bound (`learned.bound_tight`): the learned machine needs words of length
/// B to tell its states apart, so states that need longer ones are likely merged; with the command
/// to re-learn at B+1. Empty when the bound is not tight.
[[nodiscard]] std::string tight_bound_warning(const LearnedSpec& learned);

/// The one rendering of an assumptions block: one "<indent>- <assumption>" line each.
[[nodiscard]] std::string assumptions_block(const std::vector<std::string>& assumptions,
                                            std::string_view indent = "  ");

/// Learns the devices' class: one OracleStack over `devices` (one, or several of one class
/// answering batches in parallel), the learner of `options`, the equivalence oracle of
/// `options.equivalence` asking through the same cache, the experiment loop; then every device's
/// timing self-check. Throws DeviceError (a timing violation voids the result), NondeterminismError,
/// std::invalid_argument (no device; a seed over other inputs; devices that differ).
[[nodiscard]] LearnedSpec learn_spec(std::span<Device* const> devices, const LearnOptions& options = {});

/// Re-learns after a failed conformance run: seeded with the stored spec when its alphabet is the
/// devices' (else from scratch), its states named after the stored spec's where the lockstep
/// pairing of typestar diff pairs them, and the stored timing kept when the devices declare none.
/// At least at the stored spec's strength, whatever `options` ask: Algorithm 2 at
/// max(options.equivalence.bound, stored B), W/Wp with at least the stored state bound; and every
/// stored state the device still tells apart by the stored spec's words survives (LearnOptions::seed).
/// Every front end (the gtest plugin, `typestar learn --from SPEC`, the runners through it) calls
/// this. Throws like learn_spec.
[[nodiscard]] LearnedSpec propose(const spec::Spec* stored, std::span<Device* const> devices,
                                  const LearnOptions& options = {});

/// The verdict of a conformance run.
enum class Verdict {
    Pass,          ///< no counterexample within the suite: bounded evidence under `assumptions`
    Fail,          ///< a counterexample
    Inconclusive,  ///< the run could not decide (reason given)
};
[[nodiscard]] const char* verdict_name(Verdict verdict) noexcept;

/// One step of a counterexample, by name: the spec's state before it, the input, both answers.
struct TraceStep {
    std::string state;
    std::string input;
    std::string expected;
    std::string actual;
    bool operator==(const TraceStep&) const = default;
};

/// The one trace renderer (CLI and plugin): columns step, state, input, expected, actual, aligned,
/// with "<- differs" after the first differing step; each line indented by `indent` spaces.
[[nodiscard]] std::string format_trace(const std::vector<TraceStep>& steps, std::size_t indent = 2);

/// Checks the timing assumption a `wait` answered `quiet` relies on (tmax, DroidStar §5.2): for
/// every state of `machine` (over the devices' alphabets) whose `wait` answers `quiet`, runs its
/// access word, and the access word of every non-refused transition into it (access[p]·i: a callin
/// there may have scheduled a callback that the state's own access word never sees), each followed
/// by a `wait` listening `factor` times the device's tmax. A callback arriving then is
/// a DeviceError "tmax too small: ..." naming the word, the callback and the times — never a spec
/// or a pass that relies on it. Devices without real time (simulations) have nothing to check.
/// Only the states marked in `only`, when given. Returns the number of waits confirmed.
std::size_t confirm_quiescence(const MealyMachine& machine, const std::vector<Word>& access, Device& device,
                               double factor, const std::vector<char>* only = nullptr);
/// The same over a pool of devices of one class: the waits are spread over the devices (one
/// thread each), and the answers are judged in word order, so the error (the first late callback
/// by word) is the one a single device would report. Throws std::invalid_argument for no device.
std::size_t confirm_quiescence(const MealyMachine& machine, const std::vector<Word>& access,
                               std::span<Device* const> devices, double factor,
                               const std::vector<char>* only = nullptr);

/// Options of check_spec. Plain data with defaults.
struct CheckOptions {
    SuiteMethod method = SuiteMethod::Algorithm2;
    /// Algorithm 2: B; W / Wp: extra states.
    std::size_t bound = 2;
    std::size_t batch_size = 1;
    CacheConfig cache;
    /// As LearnOptions::quiet_check_factor, for the spec's quiet waits after a pass.
    double quiet_check_factor = 3;
};

/// A transition of a spec by name: a state and an input (a callin or `wait`).
struct TransitionRef {
    std::string state;
    std::string input;
    bool operator==(const TransitionRef&) const = default;
};

/// What a conformance run found.
struct CheckReport {
    Verdict verdict = Verdict::Pass;
    std::optional<Counterexample> counterexample;  ///< inputs/actual over the device's alphabets
    std::vector<TraceStep> trace;                  ///< the counterexample by name, with the spec's states
    std::string reason;                            ///< why inconclusive
    std::size_t tests = 0;                         ///< test cases in the suite
    std::size_t tests_symbols = 0;
    std::size_t tests_waits = 0;
    SuiteMethod method = SuiteMethod::Algorithm2;
    std::size_t bound = 0;
    /// Every assumption a pass relies on, one sentence each (the bound first): B, err absorbing,
    /// quiet when declared, tmax and its double-check, unknown transitions skipped, and (appended by
    /// refinement) the values sampled per partition. Printed with assumptions_block.
    std::vector<std::string> assumptions;
    QueryStats stats;
    /// Transitions the spec says are refused (err) that the device's learning purpose would not try
    /// (it answered `unknown:purpose` there): not tested, named among the assumptions. Where the spec
    /// expects ok or a callback such an answer is a difference (Fail), never listed here.
    std::vector<TransitionRef> not_tested;
};

/// Runs conformance suites of one model against devices through one oracle stack kept across runs
/// (the plugin runs one transition's words per test; the cache serves the rest).
class Conformance {
public:
    /// `model` over the spec's alphabets; the devices (borrowed, one class). Throws
    /// std::invalid_argument when the devices' inputs are not the model's (by name).
    Conformance(const MealyMachine& model, std::vector<Device*> devices, CacheConfig cache = {});

    /// `model` over the devices' alphabets (same state ids).
    [[nodiscard]] const MealyMachine& expected() const noexcept { return expected_; }
    /// The suite of `options` for the model, over the devices' inputs, with the assumptions the
    /// devices declare (never inferred from the model).
    [[nodiscard]] TestSuite suite(const CheckOptions& options) const;
    /// Runs `suite` (over the devices' inputs, expected outputs over expected().outputs()), then the
    /// devices' timing self-checks, and — when no counterexample was found — the quiescence
    /// double-check (confirm_quiescence) of every state the suite's words wait in expecting quiet,
    /// once per state. When the cache finds that an answer it held was a late callback
    /// (LateAnswerRemoved), the suite runs again over the repaired cache (at most kTimingRetries
    /// times). Statistics are those of this run, every attempt. Throws DeviceError (TimingError),
    /// NondeterminismError.
    [[nodiscard]] CheckReport run(const TestSuite& suite, std::size_t batch_size = 1);
    [[nodiscard]] OracleStack& stack() noexcept { return stack_; }
    [[nodiscard]] const OracleStack& stack() const noexcept { return stack_; }
    /// The factor of the quiescence double-check and of the cache's late-callback judgement
    /// (OracleStack::listen_for_late_callbacks; 0: both off). Default 3.
    void set_quiet_check_factor(double factor) {
        quiet_check_factor_ = factor;
        stack_.listen_for_late_callbacks(factor);
    }

private:
    CheckReport run_once(const TestSuite& suite, std::size_t batch_size);
    MealyMachine expected_;
    OracleStack stack_;
    double quiet_check_factor_ = 3;
    std::vector<char> confirmed_;  // per state of expected_: its quiet wait was double-checked
};

/// propose() after a failed conformance run, through that run's oracle stack: every answer the
/// run executed is reused, and the failing word (`counterexample`, over the devices' alphabets) is
/// the first thing the seeded learner refines with. The proposal is the same spec whichever word
/// failed first (the result is the device's behaviour up to the bound, in canonical form); its
/// statistics count only what ran after the failure. Throws like learn_spec.
[[nodiscard]] LearnedSpec propose(const spec::Spec* stored, Conformance& conformance,
                                  const Counterexample* counterexample, const LearnOptions& options = {});

/// check_spec on a model: Conformance(model, devices).run(suite(options)).
[[nodiscard]] CheckReport check_spec(const MealyMachine& model, std::span<Device* const> devices,
                                     const CheckOptions& options = {});
/// The spec's synchronous closure checked against the devices. Unknown transitions (format v2)
/// are not tested: every word is cut before its first unknown step (cut_at_unknown), and the
/// report's assumptions name how many unknown transitions were skipped.
[[nodiscard]] CheckReport check_spec(const spec::Spec& spec, std::span<Device* const> devices,
                                     const CheckOptions& options = {});

/// Cuts every case of `suite` (over `suite.inputs`) before its first step into an unknown transition
/// of `typestate`, dropping cases left empty. Returns one line per distinct unknown transition met,
/// "state S, input x: unknown (source: reason)", sorted.
std::vector<std::string> cut_at_unknown(TestSuite& suite, const Typestate& typestate);

/// When the first differing step of `report`'s trace is an answer `unknown:<source>` (e.g. the
/// device's learning purpose denied the callin: `unknown:purpose`) where the spec expects ok or a
/// callback: one sentence saying it is a difference — the device is not in the state the spec says
/// — and never an untested transition; empty otherwise.
[[nodiscard]] std::string unpredicted_answer_note(const CheckReport& report);

/// "Passing is bounded evidence ..." : one paragraph naming every assumption of `report`.
[[nodiscard]] std::string evidence_note(const CheckReport& report);

}  // namespace typestar
