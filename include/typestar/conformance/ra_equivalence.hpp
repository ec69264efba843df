// The equivalence oracle of register-automaton learning (issue 23): what the SL*-style learner's
// hypotheses are checked with, as an EquivalenceOracle at the register-automaton kind's types
// (RALib's data-word equivalence oracles implement LearnLib's interface the same way).
// Design note: first the cheap search — every data word of up to B steps from each of the
// learner's access words, then seeded random data words — and, when they find nothing, the
// generalised Algorithm 2 suite at the distinguisher bound B (the words `typestar check --bound B`
// runs, typestar/ra/suite.hpp), so a converged result passes that check. All through the
// learner's DataOracle: the cache is shared and the counts land in the Equivalence phase.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "typestar/ra/automaton.hpp"
#include "typestar/ra/oracle.hpp"
#include "typestar/sul/equivalence.hpp"

namespace typestar {

/// Options of RaEquivalenceOracle; plain values with defaults.
struct RaEquivalenceConfig {
    std::size_t bound = 2;          ///< distinguisher bound B of the suite
    std::size_t max_states = 10000; ///< (location, register order type) pairs the suite explores at most
    std::size_t random_words = 500; ///< then this many random data words
    std::size_t random_length = 12; ///< of this many steps
    std::uint64_t seed = 1;         ///< the n-th query's random words are seeded with seed + n
    /// Run check's suite at B when the cheap search finds nothing. Off: the cheap search only —
    /// weaker evidence than `check --bound B` (the RALib bench measures the learner that way).
    bool suite = true;
};

/// The suite at B, then random words (see the design note).
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
    /// from each location, one per data class, 500 random data words of 12 steps, and the
    /// generalised Algorithm 2 suite at B=2 (...)".
    [[nodiscard]] std::string description() const;
    /// Whether the last query's suite stopped exploring at max_states (its evidence is partial).
    [[nodiscard]] bool truncated() const noexcept { return truncated_; }

private:
    ra::DataOracle& oracle_;
    RaEquivalenceConfig config_;
    std::size_t queries_ = 0;
    bool truncated_ = false;
};

}  // namespace typestar
