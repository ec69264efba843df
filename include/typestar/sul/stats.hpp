// Query statistics: plain data, counted by the oracle decorators, split into learning and
// equivalence phases.
#pragma once

#include <cstdint>

namespace typestar {

/// Which phase queries are counted in. The learner switches it around equivalence queries.
enum class Phase { Learning, Equivalence };

/// Counts of one phase.
struct PhaseCounts {
    std::uint64_t queries_asked = 0;     ///< membership queries asked (before any cache)
    std::uint64_t queries_executed = 0;  ///< queries that ran on the device (device resets)
    std::uint64_t symbols_executed = 0;  ///< inputs that ran on the device
    std::uint64_t waits_executed = 0;    ///< of which `wait`

    PhaseCounts& operator+=(const PhaseCounts& other) noexcept;
    bool operator==(const PhaseCounts&) const = default;
};

/// All counts of a learning or testing session. CountingOracle adds `queries_asked`, DeviceOracle
/// the executed counts, both to the phase in `phase`.
struct QueryStats {
    PhaseCounts learning;
    PhaseCounts equivalence;
    std::uint64_t equivalence_rounds = 0;  ///< hypotheses submitted to an equivalence oracle
    Phase phase = Phase::Learning;         ///< where new counts go

    /// The counts of the current phase.
    [[nodiscard]] PhaseCounts& current() noexcept { return phase == Phase::Learning ? learning : equivalence; }
    /// learning + equivalence.
    [[nodiscard]] PhaseCounts total() const noexcept;
};

}  // namespace typestar
