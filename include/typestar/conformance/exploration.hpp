// The search beyond the bound: random words from every state of a hypothesis.
// Design note: a bounded suite (Algorithm 2 at B, Wp with k extra states) proves equivalence only
// for devices within its bound; a device whose states need longer words to tell apart passes it
// with a wrong hypothesis. The exploration suite looks further at a cost scaled to the hypothesis:
// from every state q, words access(q) · a random walk · a word of the characterizing set (AALpy's
// RandomWMethodEqOracle, LearnLib's RandomWMethodEQOracle), seeded, deterministic for one
// hypothesis, run shortest first. The walks are biased towards the hypothesis states the search
// has entered least (state coverage, as AALpy's StatePrefixEqOracle aims at rarely reached
// states): on the TCP servers of the AALpy benchmark uniform walks hit a merged state once in
// thousands of words, coverage-biased ones once in tens. Generation is separate from execution: exploration_suite makes a
// TestSuite; ExploringEquivalenceOracle runs an inner (bounded) oracle first, then the suite through
// the same MembershipOracle (and so the same cache).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "typestar/conformance/runner.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/mealy.hpp"
#include "typestar/core/traits.hpp"
#include "typestar/sul/equivalence.hpp"
#include "typestar/sul/oracle.hpp"

namespace typestar {

/// Options of the search beyond the bound. Plain data with defaults.
struct ExplorationConfig {
    /// Random words per transition of the hypothesis: from each state, this many times the number
    /// of inputs (0: no search). Scaled so the search costs a small, steady share of what a
    /// bounded suite (|Q|·|Σ|^(B+1) words) costs on the same hypothesis.
    std::size_t words_per_transition = 0;
    /// At least this many words per search (spread over the states), so that a small hypothesis —
    /// the one-state machine a learner starts from — is searched as well as a large one.
    std::size_t min_words = 40;
    /// The random walk after a state's access word: lengths drawn uniformly from 1 to this.
    /// 0: 4 · max(8, the hypothesis's states).
    std::size_t max_walk = 0;
    /// Percent of the walk's steps that take an input whose successor the search has entered
    /// least so far (ties drawn at random); the other steps take any input (0: uniform walks, as
    /// before typestar 0.6). Evens out state coverage: walks reach the rarely visited states.
    std::size_t coverage_percent = 75;
    /// The seed; the words for one hypothesis are a function of (seed, hypothesis, access words).
    std::uint64_t seed = 20260101;
    /// As SuiteConfig::access: one access word per state (empty: shortest ones).
    std::vector<Word> access;
    /// As SuiteConfig::traits (what the device declares): with an absorbing output, walks take no
    /// transition the hypothesis answers with it (its output is checked by the bounded suite) and
    /// words are err-truncated.
    std::optional<DeviceTraits> traits;
};

/// The exploration suite of `model`: for every reachable state q (in state order) and each of
/// `words_per_transition` × |inputs| words, access(q) · a random walk of 1..max_walk inputs (biased
/// by `coverage_percent` towards the states this suite's walks entered least) · one word of the
/// model's characterizing set (chosen at random), with the model's outputs; err-truncated,
/// prefix-deduplicated, then ordered shortest first (stable). Deterministic for equal inputs.
/// Throws std::invalid_argument when an access word does not reach its state.
[[nodiscard]] TestSuite exploration_suite(const MealyMachine& model, const ExplorationConfig& config);

/// What the search beyond the bound ran over a learning run, for the spec and the messages.
struct ExplorationRecord {
    std::size_t searches = 0;  ///< hypotheses searched
    std::size_t words = 0;     ///< words run in the last search that found nothing (0: none such)
    std::size_t longest = 0;   ///< the longest of them
    std::size_t counterexamples = 0;  ///< counterexamples the searches found in all
};

/// An equivalence oracle that asks `inner` (a bounded suite) first and, when it finds nothing, runs
/// the exploration suite of the hypothesis through `oracle` (share the learner's stack so the cache
/// answers what learning ran). Each call draws new words: the seed advances per search.
class ExploringEquivalenceOracle final : public EquivalenceOracle {
public:
    ExploringEquivalenceOracle(EquivalenceOracle& inner, MembershipOracle& oracle, ExplorationConfig config,
                               RunConfig run = {});
    [[nodiscard]] std::optional<Counterexample> find_counterexample(const MealyMachine& hypothesis,
                                                                    std::span<const Word> access) override;
    [[nodiscard]] std::size_t suggested_suffix_length() const override { return inner_->suggested_suffix_length(); }
    void set_inner(EquivalenceOracle& inner) noexcept { inner_ = &inner; }
    [[nodiscard]] const ExplorationRecord& record() const noexcept { return record_; }

private:
    EquivalenceOracle* inner_;
    MembershipOracle& oracle_;
    ExplorationConfig config_;
    RunConfig run_;
    ExplorationRecord record_;
};

}  // namespace typestar
