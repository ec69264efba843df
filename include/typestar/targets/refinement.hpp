// Learning an in-process class with parameterised callins by automatic alphabet refinement: a thin
// wrapper over the session layer's learn_with_refinement (typestar/session/refinement.hpp), which
// holds the design note (PSYCO Algorithm 3, black-box) and works over any Device that declares its
// partitions (DeviceDescription::parameterised). This wrapper builds the InProcessDevice (each
// concrete value one input `callin/vK`) and applies the definition's purpose to abstract words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "typestar/device/purpose.hpp"
#include "typestar/session/refinement.hpp"
#include "typestar/targets/learning.hpp"

namespace typestar::targets {

using typestar::RefinementRecord;
using typestar::RefinementReport;

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
    /// Each concrete word the cache cannot answer is executed this many times; different answers are
    /// NondeterminismError (typestar::RefinementOptions::repeats). 1: run once.
    std::size_t repeats = 1;
    /// Distinguisher bound B of the equivalence oracle (DroidStar Algorithm 2).
    std::size_t bound = 2;
};

/// The outcome of learn_with_refinement.
struct RefinedTarget {
    LearnedTarget learned;  ///< spec (format v2 when it has partitions or unknowns), text, stats
    RefinementReport report;
};

/// Learns `definition` (parameterised callins declared with LearningPurpose::callin_with and
/// partition) with typestar::learn_with_refinement over an InProcessDevice in VariantMode::Split.
/// The spec declares every parameterised callin with its signature, its final partitions (guard,
/// values, split_from, split_by) and the environment role, and lists unknown transitions with their
/// source and reason; the definition's purpose makes the inputs it denies unknown (source purpose).
/// Deterministic for a given definition and options. Throws std::invalid_argument for an invalid
/// definition, DeviceError / NondeterminismError like learn_target.
[[nodiscard]] RefinedTarget learn_with_refinement(const ClassDefinition& definition,
                                                  const RefinementOptions& options = {});

}  // namespace typestar::targets
