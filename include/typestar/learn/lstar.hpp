// L* for Mealy machines (DroidStar Algorithm 1) with Rivest–Schapire counterexample analysis.
// Design note: the learner is a small loop over an ObservationTable that only *asks*; what runs on
// the device is decided by the oracle stack below it (sul/). Every cell of the table is asked in
// batches, so a CacheOracle runs only the maximal words of each batch, answers everything past an
// `err` and through a quiet `wait` without the device (DroidStar §4.1), and — when the equivalence
// oracle asks through the same cache — the final conformance run reuses what learning ran.
// Counterexample analysis first evaluates the decomposition points the cache already knows, so an
// Algorithm 2 counterexample usually costs no query at all (the Remark after Algorithm 2).
//
// Typical use (front ends call the session layer, which does exactly this):
//
//     ModelDevice device(machine);                 // sul/model_device.hpp
//     OracleStack stack(device);                   // cache + counters, sul/stack.hpp
//     SuiteEquivalenceOracle alg2(stack.oracle()); // DroidStar Algorithm 2, B = 2 (conformance/)
//     // or: PerfectOracle perfect(machine);       // learning alone, no equivalence queries
//     LStar lstar(stack.oracle());
//     LearnResult r = run_experiment(lstar, alg2, stack.counter());
//     // r.hypothesis, r.rounds, r.stats.learning / r.stats.equivalence / r.stats.total()
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/learn/learner.hpp"
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

/// Options of L*. Plain data with defaults.
struct LearnerConfig {
    CexStrategy counterexamples = CexStrategy::RivestSchapire;
    /// E starts as every input word of length 1..this; 0 (the default) takes the equivalence
    /// oracle's suggested_suffix_length() (Learner::prepare_for). With DroidStar Algorithm 2 at
    /// distinguisher bound B that is B: the final suite asks every row for every suffix of length
    /// <= B anyway, so asking them up front makes the first hypothesis final whenever the bound
    /// holds, and the suite then runs from the cache. With a perfect oracle it is 1 (classic L*).
    std::size_t initial_suffix_length = 0;
    /// Ask cells of rows outside SQ one input longer (ObservationTable::fill): no extra resets, and
    /// a row that becomes a state then costs almost nothing more. Pads with the first input that
    /// is not `wait` (waits are slow on a device), if any.
    bool pad_queries = true;
    /// Start from this machine (e.g. an old spec's synchronous closure; see seed_of). Its
    /// separating suffixes seed E, and every cell the cache cannot answer is *predicted* by it
    /// instead of asked, so the first hypothesis is the seed itself and a right seed costs one
    /// equivalence query and no learning query. A counterexample marks the seed transition its
    /// analysis lands on as refuted; cells whose words run through a refuted transition are asked
    /// for real from then on (if that stops making progress, every cell is asked: plain L*). The
    /// equivalence oracle judges every hypothesis, so the result is as exact as without a seed.
    /// Its inputs must equal the device's by name; its outputs are matched by name.
    std::optional<MealyMachine> seed;
};

/// L* (DroidStar Algorithm 1) as a Learner: fills the table, closes it, builds a hypothesis; a
/// counterexample becomes new suffixes (config.counterexamples). Throws std::invalid_argument from
/// start() for a seed over other inputs; typestar::Error from refine() if a counterexample does not
/// refine the table (answers contradicting each other without a cache).
class LStar final : public Learner {
public:
    explicit LStar(MembershipOracle& oracle, LearnerConfig config = {});
    ~LStar() override;
    LStar(const LStar&) = delete;
    LStar& operator=(const LStar&) = delete;

    void prepare_for(std::size_t suggested_suffix_length) override;
    void start() override;
    bool refine(const Counterexample& cex) override;
    [[nodiscard]] MealyMachine hypothesis() const override;
    [[nodiscard]] std::vector<Word> access_sequences() const override;
    [[nodiscard]] std::string progress() const override;
    [[nodiscard]] std::string name() const override { return "L*"; }

    /// The table's suffixes E.
    [[nodiscard]] std::vector<Word> suffixes() const;

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

/// The synchronous closure of `typestate`, for LearnerConfig::seed.
[[nodiscard]] MealyMachine seed_of(const Typestate& typestate);

/// Suffixes that tell every two states of `machine` apart (a characterizing set, built greedily
/// from shortest separating words; the single inputs are assumed present and left out).
/// For `machine` minimal, the table whose E holds these suffixes separates its states.
[[nodiscard]] std::vector<Word> separating_suffixes(const MealyMachine& machine);

}  // namespace typestar
