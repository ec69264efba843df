// Alphabet refinement's learner side (PSYCO, Giannakopoulou et al., SAS 2012, Algorithm 3, black
// box): what a refinement is asked (RefinementOptions, an AbstractPurpose over abstract words), what
// it did (RefinementRecord, RefinementReport) and how a partition fails a check (PartitionError).
// The abstraction itself — the Refiner and the abstract device a learner runs on — is
// typestar/learn/abstraction.hpp; the session's learn_with_refinement (typestar/session/refinement.hpp)
// drives it with learn_spec and writes the refined spec in the spec format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/core/error.hpp"

namespace typestar {

/// One step of an abstract query as a refinement purpose sees it (abstract input, its answer).
struct AbstractStep {
    std::string input;   ///< an abstract input (`callin[partition]`, a plain callin) or `wait`
    std::string output;  ///< `ok`, `err`, `quiet` or a callback
};
/// A learning purpose over abstract words: true when `next` may be explored after `history`. An input
/// it denies is an *unknown* transition (source purpose), never `err`.
using AbstractPurpose = std::function<bool(std::span<const AbstractStep> history, std::string_view next)>;

/// Options of learn_with_refinement. Plain data with defaults.
struct RefinementOptions {
    /// Concrete instantiations run per abstract query (at most the largest partition's size).
    std::size_t instantiations = 3;
    /// Refinement budget: after this many splits a disagreement is recorded as unknown (disagreeing).
    std::size_t max_refinements = 8;
    /// Each concrete word the cache cannot answer is executed this many times; different answers are
    /// NondeterminismError (the word and every answer). 1: run once.
    std::size_t repeats = 1;
    /// Before answers that differ between values are believed (a split, an unknown), and for the
    /// transition cover of the result, each concrete word is re-run this many times past the cache;
    /// a different answer is NondeterminismError. A wrong answer of a device that flakes with
    /// probability p survives only if every re-run repeats it: p^rechecks per word. At least 1.
    std::size_t rechecks = 2;
    /// Optional purpose over abstract words (see AbstractPurpose).
    AbstractPurpose purpose;
    /// Named in the reason of purpose unknowns; empty: the device's class name.
    std::string purpose_name;
};

/// One automatic split of a partition.
struct RefinementRecord {
    std::string callin;
    std::string from;               ///< the partition split
    std::vector<std::string> into;  ///< the new partitions, in order
    std::string split_by;           ///< the abstract word after which its values answered differently
    bool operator==(const RefinementRecord&) const = default;
};

/// What refinement did and cost. Query counts are concrete runs of the device.
struct RefinementReport {
    std::size_t initial_alphabet = 0;  ///< abstract callin inputs before refinement (no `wait`)
    std::size_t final_alphabet = 0;    ///< after it
    std::vector<RefinementRecord> refinements;
    std::size_t learning_rounds = 0;   ///< learn-refine iterations (refinements + 1)
    std::uint64_t concrete_requested = 0;  ///< concrete runs asked for: the cost without the cache
    /// Concrete runs executed: cache misses (times `repeats`), re-checks and contradiction re-runs.
    std::uint64_t concrete_executed = 0;
    std::uint64_t concrete_rechecked = 0;  ///< of the executed runs: re-runs past the cache (repeats, rechecks)
    std::uint64_t reused_across_refinements = 0;  ///< runs answered by the cache from before a split
    std::size_t unknown_transitions = 0;
    /// values_from_code(device): whether values from the class's code were run besides sampled ones.
    std::string values_from_code;
};

/// Values of one partition answered differently after the same prefix while checking fixed partitions
/// (PartitionedDevice): the partition does not describe the device. The message names the word, the
/// partition, the values and their answers.
class PartitionError : public NondeterminismError {
public:
    /// `inputs` the abstract word, `first`/`second` two instantiations' answers, `detail` which values
    /// of which partition answered what.
    PartitionError(std::vector<std::string> inputs, std::vector<std::string> first, std::vector<std::string> second,
                   std::string detail);
    [[nodiscard]] const std::string& detail() const noexcept { return detail_; }
    [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

private:
    std::string detail_;
    std::string message_;
};

}  // namespace typestar
