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
// alphabet (PSYCO Algorithm 1, REFINED): the abstract device hands the split to the refinement loop
// as a value (the iteration's learner finishes without the device), never an exception through the
// oracle stack. Every concrete run goes through one OracleStack over the concrete device, kept across
// refinements: its cache is PSYCO's shared MemoizedTable (a query over a refined symbol whose concrete
// run was asked before a split is not run again) and its non-determinism guard sees every run. Values
// that answer differently are believed only after each answer is re-run past the cache
// (RefinementOptions::rechecks): a re-run that differs is NondeterminismError naming the word and
// every answer, never a split; so is the transition cover of the result. Unknown answers
// (three-valued specs): inputs the purpose never tries (purpose), partitions whose values still
// disagree once the refinement budget is spent or no single value explains the difference, and
// callins whose values decide a later callback that no partition explains (disagreeing). The spec
// lists, per partition, the values that ran (`values`) and those offered that never ran (`not_run`).
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

#include "typestar/core/typestate.hpp"
#include "typestar/learn/refinement.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

/// The outcome of learn_with_refinement.
struct RefinedSpec {
    /// The last iteration's learning result over the abstract alphabet. Its `spec` is the refined
    /// spec below (format v2 when it has partitions or unknowns); stats/rounds are the last iteration's.
    LearnedSpec learned;
    std::string text;  ///< spec::write_spec(*learned.spec) (the spec is built as a value; this is its text)
    RefinementReport report;
};

/// True when `device` declares parameterised callins (describe().parameterised non-empty).
[[nodiscard]] bool is_parameterised(const Device& device);

/// Learns `device`'s class over the partitions it declares (describe().parameterised), refining them
/// automatically (see the design note); plain callins stay single inputs. The spec declares every
/// parameterised callin with its signature and final partitions (guard, values, split_from, split_by),
/// the environment role of describe().environment, and lists unknown transitions with their source and
/// reason. Each partition lists the values that ran on the device (`values`) and those it offered
/// that never ran (`not_run`: nothing is claimed for them). A `wait` whose callback depends on values no partition explains (within the budget) makes
/// the callin whose values decide it unknown (source disagreeing) in the state it is called from, and
/// learning restarts: the spec claims nothing after that callin (docs/spec-format-v2.md).
/// `learn` as for learn_spec (name, learner, bound, device_label...; its seed and counterexample are
/// ignored: the alphabet changes). Deterministic for a given device and options. Throws
/// std::invalid_argument for an inconsistent description (a value input in two partitions, an input
/// the device does not have), DeviceError / NondeterminismError like learn_spec (two runs of one
/// concrete word that answer differently, in any phase).
[[nodiscard]] RefinedSpec learn_with_refinement(Device& device, const LearnOptions& learn = {},
                                                const RefinementOptions& options = {});

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
    bool override_timing(const TimingOverride& timing) override;
    void reset() override;
    Symbol step(Symbol input) override;
    [[nodiscard]] std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                     std::chrono::milliseconds timeout) override;
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override;
    /// Concrete runs executed so far.
    [[nodiscard]] std::uint64_t concrete_runs() const noexcept;
    /// The declarations this device runs, each partition's `values` narrowed to those that ran so
    /// far (in a live instance) and the rest in `not_run` (for "values sampled").
    [[nodiscard]] std::vector<spec::CallinDeclaration> declarations_run() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// "values sampled: set[any]: 0, 1, 2; ..." — one line naming, per partition, the values that ran,
/// with "(offered, never run: 7; the guard is wider than the values run)" where some did not; empty
/// when no declaration has partitions. An assumption of every verdict over partitions.
[[nodiscard]] std::string values_sampled(const std::vector<spec::CallinDeclaration>& declarations);

/// "values from the code: trace-cmp: 2 constant(s) compared, 5 value(s) added", or "values from the
/// code: not collected (why)" — the device's DeviceDescription::values_from_code, or, when it does
/// not say (a device over HTTP, a model), that they were not collected and values are sampled only.
/// An assumption of every refined learn (typestar/device/trace_cmp.hpp).
[[nodiscard]] std::string values_from_code(const Device& device);

/// How a front end runs a device for a spec: the one place that decides it (CLI and plugin call it).
struct PartitionPlan {
    /// A PartitionedDevice over the device when it declares parameterised callins and the spec
    /// declares partitions (the spec's unknown transitions are not tried), else null: run the device
    /// itself (e.g. a model of the spec, over its abstract inputs already).
    std::unique_ptr<PartitionedDevice> partitioned;
    /// Learning (no spec, or a spec without partitions) must refine the device's own partitions:
    /// the device declares parameterised callins and no stored partition is kept.
    bool refine = false;
    /// The device to run: the PartitionedDevice, else `concrete`.
    [[nodiscard]] Device& device(Device& concrete) const { return partitioned ? *partitioned : concrete; }
};
/// The plan for `concrete` and `spec` (null: no spec yet). Throws std::invalid_argument (from
/// PartitionedDevice) when the spec's partitions name values or callins the device does not offer.
[[nodiscard]] PartitionPlan plan_partitions(Device& concrete, const spec::Spec* spec);

}  // namespace typestar
