// L* for Mealy machines (DroidStar Algorithm 1) with Rivest–Schapire counterexample analysis.
// Design note: the learner is a small loop over an ObservationTable that only *asks*; what runs on
// the device is decided by the oracle stack below it (sul/). Every cell of the table is asked in
// batches, so a CacheOracle runs only the maximal words of each batch, answers everything past an
// `err` and through a quiet `wait` without the device (DroidStar §4.1), and — when the equivalence
// oracle asks through the same cache — the final conformance run reuses what learning ran.
// Counterexample analysis first evaluates the decomposition points the cache already knows, so an
// Algorithm 2 counterexample usually costs no query at all (the Remark after Algorithm 2).
//
// Typical use (a model device; a real device plugs in the same way):
//
//     ModelDevice device(machine);                 // sul/model_device.hpp
//     OracleStack stack(device);                   // cache + counters, sul/stack.hpp
//     SuiteEquivalenceOracle alg2(stack.oracle()); // DroidStar Algorithm 2, B = 2 (conformance/)
//     // or: PerfectOracle perfect(machine);       // learning alone, no equivalence queries
//     LearnResult r = learn(stack.oracle(), alg2, {}, &stack.stats());
//     // r.hypothesis, r.rounds, r.stats.learning / r.stats.equivalence / r.stats.total()
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/sul/equivalence.hpp"
#include "typestar/sul/oracle.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

/// How a counterexample becomes new suffixes of the table (LearnLib ObservationTableCEXHandlers).
enum class CexStrategy {
    /// Rivest & Schapire: binary search for one distinguishing suffix (log |cex| queries, fewer when
    /// the cache already knows some decompositions).
    RivestSchapire,
    /// The same decomposition searched linearly from the end: the shortest distinguishing suffix
    /// (up to |cex| queries).
    ShortestSuffix,
    /// Every suffix of the counterexample (Maler & Pnueli / Shahbaz & Groz): no analysis queries,
    /// more columns.
    AllSuffixes,
};

/// What the learner reports after each equivalence query.
struct RoundInfo {
    std::size_t round = 0;          ///< 1-based
    std::size_t states = 0;         ///< of the hypothesis just checked
    std::size_t suffixes = 0;       ///< columns of the table
    bool counterexample = false;    ///< whether the equivalence oracle found one
    std::size_t counterexample_length = 0;
    QueryStats stats;               ///< a snapshot (zero if the learner has no stats)
};

/// Options of learn(). Plain data with defaults.
struct LearnerConfig {
    CexStrategy counterexamples = CexStrategy::RivestSchapire;
    /// E starts as every input word of length 1..this; 0 (the default) takes the equivalence
    /// oracle's suggested_suffix_length(). With DroidStar Algorithm 2 at distinguisher bound B that
    /// is B: the final suite asks every row for every suffix of length <= B anyway, so asking them up
    /// front makes the first hypothesis final whenever the bound holds, and the suite then runs from
    /// the cache. With a perfect oracle it is 1 (classic L*).
    std::size_t initial_suffix_length = 0;
    /// Ask cells of rows outside SQ one input longer (ObservationTable::fill): no extra resets, and
    /// a row that becomes a state then costs almost nothing more. Pads with the first input that
    /// is not `wait` (waits are slow on a device), if any.
    bool pad_queries = true;
    /// Give up after this many equivalence queries (0: no limit); the result then says not converged.
    std::size_t max_rounds = 0;
    /// Start from this machine (e.g. an old spec's synchronous closure; see seed_of). Its
    /// separating suffixes seed E, and every cell the cache cannot answer is *predicted* by it
    /// instead of asked, so the first hypothesis is the seed itself and a right seed costs one
    /// equivalence query and no learning query. A counterexample marks the seed transition its
    /// analysis lands on as refuted; cells whose words run through a refuted transition are asked
    /// for real from then on (if that stops making progress, every cell is asked: plain L*). The
    /// equivalence oracle judges every hypothesis, so the result is as exact as without a seed.
    /// Its inputs must equal the device's by name; its outputs are matched by name.
    std::optional<MealyMachine> seed;
    /// Called after each equivalence query (e.g. for a progress line). May be empty.
    std::function<void(const RoundInfo&)> on_round;
};

/// The result of learn().
struct LearnResult {
    /// The last hypothesis, minimal, over the device's inputs and (a snapshot of) its outputs.
    MealyMachine hypothesis;
    /// One access sequence per hypothesis state (state 0: ε).
    std::vector<Word> access_sequences;
    /// The table's suffixes E at the end.
    std::vector<Word> suffixes;
    std::size_t rounds = 0;   ///< equivalence queries asked
    bool converged = false;   ///< the equivalence oracle found no counterexample to `hypothesis`
    QueryStats stats;         ///< a copy of *stats at the end (zero if none was given)
};

/// L* (DroidStar Algorithm 1): fills the table, closes it, builds a hypothesis, asks `equivalence`,
/// and refines with the counterexample (a counterexample is re-used on the next hypothesis before
/// the oracle is asked again), until the oracle finds none or `config.max_rounds` is reached.
/// `stats`, if given, is the QueryStats the oracles count into: the learner switches its phase
/// around equivalence queries and counts the rounds. Logs one info line per round to
/// "typestar.learn". Throws DeviceError, NondeterminismError (from the oracles), std::invalid_argument
/// for a seed over other inputs, typestar::Error if a counterexample does not refine the table
/// (answers contradicting each other without a cache).
[[nodiscard]] LearnResult learn(MembershipOracle& oracle, EquivalenceOracle& equivalence,
                                const LearnerConfig& config = {}, QueryStats* stats = nullptr);

/// The synchronous closure of `typestate`, for LearnerConfig::seed.
[[nodiscard]] MealyMachine seed_of(const Typestate& typestate);

/// Suffixes that tell every two states of `machine` apart (a characterizing set, built greedily
/// from shortest separating words; the single inputs are assumed present and left out).
/// For `machine` minimal, the table whose E holds these suffixes separates its states.
[[nodiscard]] std::vector<Word> separating_suffixes(const MealyMachine& machine);

}  // namespace typestar
