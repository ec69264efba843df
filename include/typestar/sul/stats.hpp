// Query statistics: plain data, counted by the oracle decorators into one QueryCounter, split into
// learning, equivalence and verification phases.
// Design note: the phase is a scope, not a field anyone can flip: the experiment loop opens a
// PhaseScope around each equivalence query, and every decorator of one oracle stack counts into the
// stack's own QueryCounter, so statistics never depend on callers passing "the same pointer".
#pragma once

#include <cstdint>
#include <optional>

namespace typestar {

/// Which phase queries are counted in.
enum class Phase {
    Learning,     ///< the learner's own queries (and a counterexample's processing)
    Equivalence,  ///< the equivalence suite, or a conformance run
    Verification  ///< the checks after a result: words re-run past the cache (flake policy), waits re-run
};

/// Counts of one phase.
struct PhaseCounts {
    std::uint64_t queries_asked = 0;     ///< membership queries asked (before any cache)
    std::uint64_t queries_executed = 0;  ///< queries that ran on the device (device resets)
    std::uint64_t symbols_executed = 0;  ///< inputs that ran on the device
    std::uint64_t waits_executed = 0;    ///< of which `wait`
    /// Runs of a word repeated because a run broke a timing assumption (a late, queued or early
    /// callback: TimingError); not in queries_executed. Also the longer waits and re-runs with which
    /// the cache judged a late callback at the end of a word (CacheOracle, LateCallbackListener): its
    /// re-runs are counted in queries_executed too. 0 on a machine that keeps the timing.
    std::uint64_t timing_retries = 0;

    PhaseCounts& operator+=(const PhaseCounts& other) noexcept;
    /// Each count minus `other`'s (for "what ran since"): `other` must be an earlier snapshot.
    PhaseCounts& operator-=(const PhaseCounts& other) noexcept;
    bool operator==(const PhaseCounts&) const = default;
};

/// All counts of a learning or testing session (a value: copy it, compare it, print it).
struct QueryStats {
    PhaseCounts learning;
    PhaseCounts equivalence;
    PhaseCounts verification;  ///< re-runs past the cache (session: flake policy, wait re-checks)
    std::uint64_t equivalence_rounds = 0;  ///< hypotheses submitted to an equivalence oracle

    /// learning + equivalence + verification.
    [[nodiscard]] PhaseCounts total() const noexcept;
    /// What was counted after the earlier snapshot `before`.
    [[nodiscard]] QueryStats since(const QueryStats& before) const noexcept;
    bool operator==(const QueryStats&) const = default;
};

/// Where the decorators of one oracle stack count: the statistics and the current phase. Not
/// thread-safe (a pool sums its threads' counts in batch order before adding them here).
class QueryCounter {
public:
    /// Sets the phase for its lifetime, then restores the previous one (also on exceptions).
    class PhaseScope {
    public:
        PhaseScope(QueryCounter& counter, Phase phase) noexcept : counter_(counter), previous_(counter.phase_) {
            counter_.phase_ = phase;
        }
        ~PhaseScope() { counter_.phase_ = previous_; }
        PhaseScope(const PhaseScope&) = delete;
        PhaseScope& operator=(const PhaseScope&) = delete;

    private:
        QueryCounter& counter_;
        Phase previous_;
    };

    /// Enters `phase` until the returned scope ends.
    [[nodiscard]] PhaseScope enter(Phase phase) noexcept { return PhaseScope(*this, phase); }
    [[nodiscard]] Phase phase() const noexcept { return phase_; }

    void count_asked(std::uint64_t queries) noexcept { current().queries_asked += queries; }
    void count_executed(std::uint64_t symbols, std::uint64_t waits, std::uint64_t timing_retries = 0) noexcept {
        PhaseCounts& c = current();
        ++c.queries_executed;
        c.symbols_executed += symbols;
        c.waits_executed += waits;
        c.timing_retries += timing_retries;
    }
    void count_round() noexcept { ++stats_.equivalence_rounds; }
    /// One run repeated past a timing violation outside the device path (a late callback found by
    /// the cache): counted as a timing retry of the current phase.
    void count_timing_retry() noexcept { ++current().timing_retries; }

    /// A hard cap: at most `queries` more queries executed through this counter from now on (both
    /// phases); nullopt: no cap.
    void set_budget(std::optional<std::uint64_t> queries) noexcept;
    /// The cap set last (the N of set_budget), if any.
    [[nodiscard]] std::optional<std::uint64_t> budget() const noexcept { return budget_; }
    /// Called by the executing oracles before running `queries` more: throws QueryBudgetError
    /// (core/error.hpp) when that would pass the cap, so no query beyond it ever runs.
    void reserve(std::uint64_t queries) const;

    [[nodiscard]] const QueryStats& stats() const noexcept { return stats_; }

private:
    PhaseCounts& current() noexcept {
        switch (phase_) {
            case Phase::Learning: return stats_.learning;
            case Phase::Equivalence: return stats_.equivalence;
            case Phase::Verification: break;
        }
        return stats_.verification;
    }

    QueryStats stats_;
    Phase phase_ = Phase::Learning;
    std::optional<std::uint64_t> budget_;
    std::uint64_t budget_limit_ = 0;  // executed queries allowed in total
};

}  // namespace typestar
