// The equivalence oracle of register-automaton learning: what the SL*-style learner's
// hypotheses are checked with, as an EquivalenceOracle at the register-automaton kind's types
// (RALib's data-word equivalence oracles implement LearnLib's interface the same way).
// Design note: first the cheap search, guided by the hypothesis (ra::search_difference: from each
// of the learner's access words every data word of up to B steps in the data classes of the
// hypothesis's guards, then seeded random words, as many as the hypothesis has transitions times a
// factor (at least a floor), shortest first, each one device run) and, when it finds nothing, the certification: the
// generalised Algorithm 2 suite at the distinguisher bound B (the words `typestar check --bound B`
// runs, typestar/ra/suite.hpp), so a converged result passes that check. All through the learner's
// DataOracle: the cache is shared and the counts land in the Equivalence phase; the certification's
// share is counted apart (certification_executed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "typestar/ra/automaton.hpp"
#include "typestar/ra/oracle.hpp"
#include "typestar/ra/suite.hpp"
#include "typestar/sul/equivalence.hpp"

namespace typestar {

/// Options of RaEquivalenceOracle; plain values with defaults.
struct RaEquivalenceConfig {
    std::size_t bound = 2;          ///< distinguisher bound B of the suite
    std::size_t max_states = ra::kMaxSuiteStates; ///< (location, register order type) pairs the suite explores at most
    std::size_t random_words = 500; ///< then random data words: at most this many
    std::size_t random_length = 12; ///< of up to this many steps (shortest first)
    std::uint64_t seed = 1;         ///< the n-th query's random words are seeded with seed + n
    /// Run check's suite at B when the cheap search finds nothing. Off: the cheap search only —
    /// weaker evidence than `check --bound B` (the RALib bench measures the learner that way).
    bool suite = true;
    /// Random data words per transition of the hypothesis (at most random_words): the search
    /// scales with the hypothesis, not a fixed count.
    std::size_t words_per_transition = 8;
    std::size_t min_random_words = 100;  ///< at least this many random words (at most random_words)
};

/// The guided search, then the suite at B (see the design note).
class RaEquivalenceOracle final
    : public BasicEquivalenceOracle<ra::RegisterAutomaton, ra::DataWord, ra::RaCounterexample> {
public:
    /// `oracle` outlives this.
    RaEquivalenceOracle(ra::DataOracle& oracle, RaEquivalenceConfig config = {}) : oracle_(oracle), config_(config) {}

    /// `access`: the learner's access words (one per location), where the cheap search starts;
    /// the suite explores every (location, register order type) pair itself.
    [[nodiscard]] std::optional<ra::RaCounterexample> find_counterexample(const ra::RegisterAutomaton& hypothesis,
                                                                          std::span<const ra::DataWord> access) override;
    /// What a passing query ran, for messages and provenance: "every data word of up to 2 steps
    /// from each location in the data classes of the hypothesis's guards, 8 random data words per
    /// transition (at least 100, at most 500) of up to 12 steps, shortest first, and the generalised
    /// Algorithm 2 suite at B=2 (...)".
    [[nodiscard]] std::string description() const;
    /// Whether the last query's suite stopped exploring at max_states (its evidence is partial).
    [[nodiscard]] bool truncated() const noexcept { return truncated_; }
    /// Queries the certification (the suite at B) executed over every query so far: part of the
    /// Equivalence phase's count, the rest is the search's.
    [[nodiscard]] std::uint64_t certification_executed() const noexcept { return certification_executed_; }

private:
    ra::DataOracle& oracle_;
    RaEquivalenceConfig config_;
    std::size_t queries_ = 0;
    bool truncated_ = false;
    std::uint64_t certification_executed_ = 0;
};

}  // namespace typestar
