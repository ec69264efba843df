// Learning a real target from scratch into a spec (L* + DroidStar Algorithm 2), for the learning
// program and the `learn`-labelled tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "typestar/device/purpose.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar::targets {

/// The outcome of learn_target.
struct LearnedTarget {
    spec::Spec spec;         ///< canonical, named after the definition, provenance filled in
    std::string text;        ///< spec::write_spec(spec): what gets committed
    QueryStats stats;        ///< measured query statistics
    std::size_t rounds = 0;  ///< equivalence queries
    bool converged = false;  ///< Algorithm 2 found no counterexample to the last hypothesis
    double seconds = 0;      ///< wall-clock time
    /// Answers the cache saw contradict an earlier answer (each re-run; a re-run that agreed won).
    std::uint64_t contradictions = 0;
};

/// Learns `definition` on a fresh InProcessDevice (make_target_device) through the session layer
/// (learn_spec: L* with the DroidStar Algorithm 2 equivalence oracle of distinguisher bound
/// `bound`). The spec records the tool, the device, the framework and the timing; no query counts
/// (they are in `stats`), so the same behaviour gives the same text. Throws DeviceError (timing violation, broken harness),
/// NondeterminismError, NotAClosureError when the result is not a synchronous closure.
[[nodiscard]] LearnedTarget learn_target(const ClassDefinition& definition, std::size_t bound = 2);

}  // namespace typestar::targets
