// Learning parameterised callins with automatic alphabet refinement: the black-box counterpart of
// PSYCO's Algorithm 3 (Giannakopoulou et al., "Symbolic Learning of Component Interfaces", SAS 2012).
// Design note: each partition of a parameterised callin is an abstract input; the learner (L* with
// DroidStar Algorithm 2 as equivalence oracle, through the session layer) runs unchanged on the
// abstract alphabet. An abstract query is answered by several concrete instantiations (different
// values of each partition, chosen deterministically from a seeded pool). When they answer
// differently, the values of one partition are run one by one after the same concrete prefix; if
// they answer differently there, the partition is split by the observed answer (split_from /
// split_by record it) and learning restarts on the refined alphabet (PSYCO Algorithm 1, REFINED).
// Concrete answers are memoised across refinements (PSYCO's shared MemoizedTable: a query over a
// refined symbol whose concrete run was asked before a split is not run again). Unknown answers
// (three-valued specs): inputs the purpose filter never tries (source purpose), concrete runs that
// answer differently when repeated (unresolved), and partitions whose values still disagree once
// the refinement budget is spent or no single value explains the difference (disagreeing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "typestar/device/purpose.hpp"
#include "typestar/targets/learning.hpp"

namespace typestar::targets {

/// Options of learn_with_refinement. Plain data with defaults.
struct RefinementOptions {
    /// Concrete values generated per declared partition (seeded; fixed generators give all theirs).
    std::size_t values_per_partition = 4;
    /// Concrete instantiations run per abstract query (at most the largest partition's size).
    std::size_t instantiations = 3;
    /// Seed of the value generators.
    std::uint64_t seed = 1;
    /// Refinement budget: after this many splits a disagreement is recorded as unknown (disagreeing).
    std::size_t max_refinements = 8;
    /// Each concrete run is executed this many times; different answers make the transition unknown
    /// (unresolved) instead of failing. 1: run once (a difference between runs is then not seen).
    std::size_t repeats = 1;
    /// Distinguisher bound B of the equivalence oracle (DroidStar Algorithm 2).
    std::size_t bound = 2;
};

/// One automatic split of a partition.
struct RefinementRecord {
    std::string callin;
    std::string from;               ///< the partition split
    std::vector<std::string> into;  ///< the new partitions, in order
    std::string split_by;           ///< the abstract word after which its values answered differently
    bool operator==(const RefinementRecord&) const = default;
};

/// What refinement did and cost. Query counts are concrete runs of the class.
struct RefinementReport {
    std::size_t initial_alphabet = 0;  ///< abstract callin inputs before refinement (no `wait`)
    std::size_t final_alphabet = 0;    ///< after it
    std::vector<RefinementRecord> refinements;
    std::size_t learning_rounds = 0;   ///< learn-refine iterations (refinements + 1)
    std::uint64_t concrete_requested = 0;  ///< concrete runs asked for: the cost without memoisation
    std::uint64_t concrete_executed = 0;   ///< concrete runs executed (memoised: each word once per repeat)
    std::uint64_t reused_across_refinements = 0;  ///< runs answered by an answer obtained before a split
    std::size_t unknown_transitions = 0;
};

/// The outcome of learn_with_refinement.
struct RefinedTarget {
    LearnedTarget learned;  ///< spec (format v2 when it has partitions or unknowns), text, stats
    RefinementReport report;
};

/// Learns `definition` (parameterised callins declared with LearningPurpose::callin_with and
/// partition) with automatic alphabet refinement (see the design note). The spec declares every
/// parameterised callin with its signature, its final partitions (guard, values, split_from,
/// split_by) and the environment role, and lists unknown transitions with their source and reason.
/// Deterministic for a given definition and options. Throws std::invalid_argument for an invalid
/// definition, DeviceError / NondeterminismError like learn_target (a `wait` whose callback depends
/// on values no single partition explains is a typestar::Error: it cannot be an unknown callin).
[[nodiscard]] RefinedTarget learn_with_refinement(const ClassDefinition& definition,
                                                  const RefinementOptions& options = {});

}  // namespace typestar::targets
