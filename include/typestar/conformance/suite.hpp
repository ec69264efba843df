// Conformance test suites: explicit test cases generated from a model, never touching a device.
// Design note: generation is separate from execution. A generator turns a model into input words
// with the model's expected outputs and a sentence saying what each checks; one runner
// (conformance/runner.hpp) executes any suite through a MembershipOracle. Every suite is
// err-truncated (a word ends at its first expected absorbing `err`: nothing after it can differ)
// and prefix-deduplicated (a word that is a prefix of another is dropped: running the longer one
// checks it), in a deterministic order, so a suite's size is the number of device resets it costs.
//
// DroidStar Algorithm 2 becomes a suite against a known model M by comparing with M: the check
// "R(q)·i·s and R(δ(q,i))·s end in the same |s| outputs" passes whenever the device agrees with M on
// both words, and a disagreement on either is a counterexample (Theorem 4.4's guarantee holds when
// the device has distinguisher bound B).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "typestar/core/algorithms.hpp"  // characterizing_set, used by W and Wp
#include "typestar/core/mealy.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

/// One test: run `inputs` from a fresh instance and expect `expected` (one output per input).
struct TestCase {
    Word inputs;
    Word expected;
    std::string purpose;  ///< e.g. "state Preparing, input start, then suffix wait wait"
    bool operator==(const TestCase&) const = default;
};

/// Which generator.
enum class SuiteMethod {
    Algorithm2,  ///< DroidStar Algorithm 2 with distinguisher bound B
    W,           ///< Chow's W-method with k extra states
    Wp,          ///< Fujiwara et al.'s Wp-method with k extra states
};

/// The stable lower-case name of a method: "alg2", "w", "wp".
[[nodiscard]] const char* method_name(SuiteMethod method) noexcept;
/// The method named `name` ("alg2", "w", "wp"); nullopt otherwise.
[[nodiscard]] std::optional<SuiteMethod> parse_method(std::string_view name) noexcept;

/// A generated suite over the model's alphabets.
struct TestSuite {
    Alphabet inputs;
    Alphabet outputs;
    SuiteMethod method = SuiteMethod::Algorithm2;
    std::size_t bound = 0;  ///< distinguisher bound B (Algorithm 2) or extra states k (W, Wp)
    std::vector<TestCase> cases;

    /// Total inputs over all cases.
    [[nodiscard]] std::size_t symbols() const noexcept;
    /// Inputs named `wait` over all cases.
    [[nodiscard]] std::size_t waits() const;
};

/// Options of the generators. Plain data with defaults.
struct SuiteConfig {
    SuiteMethod method = SuiteMethod::Algorithm2;
    /// Distinguisher bound B of Algorithm 2 (DroidStar §4.3; default 2).
    std::size_t bound = 2;
    /// Extra states k of the W- and Wp-methods (the device may have up to |Q| + k states).
    std::size_t extra_states = 0;
    /// W and Wp: an absolute state bound instead (as AALpy's W/Wp oracles take): the device has at
    /// most this many states, so k = max(extra_states, state_bound − |Q|) for each model.
    std::optional<std::size_t> state_bound;
    /// W and Wp as an equivalence oracle (AALpy's order for m = n): candidates by middle length
    /// first — every middle of length d, for each prefix (W, then Wp's second phase), before any of
    /// length d + 1 — and not deduplicated (a repeat or a prefix of an earlier word is the cache's
    /// to answer), so that a run stops at the first counterexample without enumerating the long
    /// middles a large k allows. The suite is then no longer prefix-free: for conformance runs
    /// leave it false.
    bool shortest_first = false;
    /// Algorithm 2 (B >= 1) in chained words: the same checks, and the same guarantee (a device
    /// with distinguisher bound B that passes is equivalent to the model), with fewer, longer words.
    /// A word from access(q) goes on, after its first check, through transitions whose own checks
    /// are completed by other words, making one more check at each step; the order of the checks
    /// keeps the proof an induction (docs/conformance-chained.md). Fewer resets and fewer inputs on
    /// the models typestar_learn_bench measures; a word no longer stands for one transition, so
    /// conformance runs that name a transition per test (the gtest plugin) leave it false. Falls
    /// back to the plain suite when the model has more than 2^24 checks. Unlike the plain suite,
    /// a chained one is made whole up front (SuiteGenerator then holds its cases).
    bool chained = false;
    /// Chained only: words run before against the same device (an equivalence oracle's earlier
    /// rounds; the cache answers them, so they cost no reset): they come first in the suite, as
    /// they are, and the checks they make count, so fewer new words are needed. A prior word the
    /// model does not predict fails the suite like any other.
    std::vector<Word> prior;
    /// One access sequence per state, each reaching its state (e.g. L*'s short prefixes, as the
    /// Remark after Algorithm 2 suggests). Empty: shortest ones (core access_sequences).
    std::vector<Word> access;
    /// What the device's answers are assumed to satisfy — what the *device* declares, never what
    /// the model suggests: `absorbing` truncates words after an expected absorbing output and skips
    /// those transitions' fidelity checks; `wait` + `quiet` skip the checks of quiet self-loops
    /// (DroidStar's optimisations (b) and (a)). nullopt: closure_traits(model's alphabets), i.e.
    /// `err` absorbing and quiet self-loops tested like every other transition.
    std::optional<DeviceTraits> traits;
};

/// DroidStar Algorithm 2 as a suite: for every state q and input i, the output of R(q)·i; and,
/// unless (q, i) is an `err` transition, a `wait`/`quiet` self-loop, or a transition of the
/// access-sequence tree (R(δ(q,i)) = R(q)·i, where the check is vacuous), the words R(q)·i·s and
/// R(δ(q,i))·s for every s of length B (shorter suffixes are their prefixes). At most
/// |Q|·|Σ|·(2·|Σ|^B) words before deduplication (Theorem 4.4: |Q|·|Σ|^(B+1) queries).
/// Throws std::invalid_argument if an access sequence does not reach its state or the model has an
/// unreachable state and no access sequences were given.
[[nodiscard]] TestSuite algorithm2_suite(const MealyMachine& model, const SuiteConfig& config = {});

/// The W-method: P·Σ^{<=k}·W, where P is the transition cover (access sequences and their
/// one-input extensions) and W a characterizing set. Same failure modes as algorithm2_suite.
[[nodiscard]] TestSuite w_method_suite(const MealyMachine& model, const SuiteConfig& config = {});

/// The Wp-method: Q·Σ^{<=k}·W for the state cover Q, then (P∖Q)·Σ^{<=k} each followed by the
/// identification set of the state it reaches. Same failure modes as algorithm2_suite.
[[nodiscard]] TestSuite wp_method_suite(const MealyMachine& model, const SuiteConfig& config = {});

/// The extra states k the W/Wp suite of `model` uses under `config` (extra_states, or what
/// state_bound leaves above the model's states).
[[nodiscard]] std::size_t extra_states_for(const MealyMachine& model, const SuiteConfig& config) noexcept;

/// The suite of `config.method` (drains a SuiteGenerator).
[[nodiscard]] TestSuite generate_suite(const MealyMachine& model, const SuiteConfig& config = {});

/// The suite of `config.method`, lazily: next() yields exactly the cases of generate_suite(model,
/// config), in the same order, one at a time. Memory is proportional to the model (its access
/// sequences, W and identification sets, a trie of the words the cases start with), never to the
/// suite: deduplication decides for each candidate word, from the generator's structure, whether
/// a later or earlier candidate stands for it (a word that is a prefix of another, or equal to an
/// earlier one after err-truncation, is dropped). Copies nothing of `model`'s lifetime: the
/// generator keeps its own copy. Same failure modes as generate_suite (thrown by the constructor).
class SuiteGenerator {
public:
    explicit SuiteGenerator(const MealyMachine& model, const SuiteConfig& config = {});
    ~SuiteGenerator();
    SuiteGenerator(SuiteGenerator&&) noexcept;
    SuiteGenerator& operator=(SuiteGenerator&&) noexcept;

    /// The next test case, or nullopt when the suite is exhausted.
    [[nodiscard]] std::optional<TestCase> next();
    /// The next candidate before deduplication (err-truncated only), or nullopt: what
    /// finalize_cases would receive; for tests and measurements. Do not mix with next().
    [[nodiscard]] std::optional<TestCase> next_candidate();

    [[nodiscard]] const Alphabet& inputs() const noexcept;
    [[nodiscard]] const Alphabet& outputs() const noexcept;
    [[nodiscard]] SuiteMethod method() const noexcept;
    /// B (Algorithm 2) or the extra states k (W, Wp) the suite uses.
    [[nodiscard]] std::size_t bound() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};


/// Err-truncates (after the first expected `absorbing` output, if given) and prefix-deduplicates
/// `cases` in place, keeping the survivors in their original order (of equal words, the first).
void finalize_cases(std::vector<TestCase>& cases, std::optional<Symbol> absorbing);

}  // namespace typestar
