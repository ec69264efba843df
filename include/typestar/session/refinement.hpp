// Parameterised callins over any Device: automatic alphabet refinement, the black-box counterpart of
// PSYCO's Algorithm 3 (Giannakopoulou et al., "Symbolic Learning of Component Interfaces", SAS 2012),
// and the same abstraction with fixed partitions for conformance checking.
// Design note: a device declares its parameterised callins in describe().parameterised: each concrete
// value is one of its inputs (e.g. `connect/v2`), grouped into named partitions. Each partition is an
// abstract input `callin[partition]`; the learner (through learn_spec, unchanged) runs on the abstract
// alphabet. An abstract query is answered by several concrete instantiations (different values of each
// partition, chosen deterministically). When they answer differently, the values of one partition are
// run one by one after the same concrete prefix; if they answer differently there, the partition is
// split by the observed answer (split_from / split_by record it) and learning restarts on the refined
// alphabet (PSYCO Algorithm 1, REFINED). Concrete answers are memoised across refinements (PSYCO's
// shared MemoizedTable: a query over a refined symbol whose concrete run was asked before a split is
// not run again). Unknown answers (three-valued specs): inputs the purpose never tries (purpose),
// concrete runs that answer differently when repeated (unresolved), partitions whose values still
// disagree once the refinement budget is spent or no single value explains the difference, and
// callbacks whose choice depends on argument values no partition explains (disagreeing).
// PartitionedDevice is the checking side: a stored spec's partitions, fixed, each abstract input run
// with its declared values; values of one partition that answer differently are a failure, never
// averaged away.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/device.hpp"

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
    /// Each concrete run is executed this many times; different answers make the transition unknown
    /// (unresolved) instead of failing. 1: run once (a difference between runs is then not seen).
    std::size_t repeats = 1;
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
    std::uint64_t concrete_requested = 0;  ///< concrete runs asked for: the cost without memoisation
    std::uint64_t concrete_executed = 0;   ///< concrete runs executed (memoised: each word once per repeat)
    std::uint64_t reused_across_refinements = 0;  ///< runs answered by an answer obtained before a split
    std::size_t unknown_transitions = 0;
};

/// The outcome of learn_with_refinement.
struct RefinedSpec {
    /// The last iteration's learning result over the abstract alphabet. Its `spec` is the refined
    /// spec below (format v2 when it has partitions or unknowns); stats/rounds are the last iteration's.
    LearnedSpec learned;
    std::string text;  ///< spec::write_spec(*learned.spec)
    RefinementReport report;
};

/// True when `device` declares parameterised callins (describe().parameterised non-empty).
[[nodiscard]] bool is_parameterised(const Device& device);

/// Learns `device`'s class over the partitions it declares (describe().parameterised), refining them
/// automatically (see the design note); plain callins stay single inputs. The spec declares every
/// parameterised callin with its signature and final partitions (guard, values, split_from, split_by),
/// the environment role of describe().environment, and lists unknown transitions with their source and
/// reason (a `wait` whose callback depends on values no partition explains is an unknown `wait`).
/// `learn` as for learn_spec (name, learner, bound, device_label...; its seed and counterexample are
/// ignored: the alphabet changes). Deterministic for a given device and options. Throws
/// std::invalid_argument for an inconsistent description (a value input in two partitions, an input
/// the device does not have), DeviceError / NondeterminismError like learn_spec.
[[nodiscard]] RefinedSpec learn_with_refinement(Device& device, const LearnOptions& learn = {},
                                                const RefinementOptions& options = {});

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

/// A parameterised device seen through fixed partitions (a stored spec's): inputs are the spec's
/// abstract inputs (`callin[partition]`, plain callins, `wait`), outputs the device's. Each abstract
/// word runs once per instantiation: instantiation j gives position i of a partition with values L the
/// value L[(j + i) mod |L|], j over the largest partition in the word, so every declared value runs.
/// When instantiations answer differently, PartitionError (a failure of the spec, never a pass).
/// Borrows `concrete`; forwards traits, timing and describe (with the abstract name).
class PartitionedDevice final : public Device {
public:
    /// Throws std::invalid_argument when a declared value is not one the device offers for that callin
    /// (matched by printed value), or a plain callin of the spec is not a device input.
    /// With `stored` (the spec's typestate, over these abstract inputs), its unknown transitions are
    /// never tried: a word entering one answers `unknown:<source>` there (and `err` after it), so a
    /// re-learned proposal keeps them unknown (learn_spec turns these outputs into unknown
    /// transitions; propose takes their reasons from the stored spec).
    PartitionedDevice(Device& concrete, const std::vector<spec::CallinDeclaration>& declarations,
                      const Typestate* stored = nullptr);
    ~PartitionedDevice() override;
    PartitionedDevice(const PartitionedDevice&) = delete;
    PartitionedDevice& operator=(const PartitionedDevice&) = delete;

    [[nodiscard]] const Alphabet& inputs() const override;
    [[nodiscard]] const Alphabet& outputs() const override;
    [[nodiscard]] DeviceTraits traits() const override;
    [[nodiscard]] std::string name() const override;
    [[nodiscard]] DeviceDescription describe() const override;
    void check_timing() override;
    void reset() override;
    Symbol step(Symbol input) override;
    [[nodiscard]] std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                     std::chrono::milliseconds timeout) override;
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override;
    /// Concrete runs executed so far.
    [[nodiscard]] std::uint64_t concrete_runs() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace typestar
