// Register automata in the one pipeline: the session puts the roles together for the
// register-automaton kind as learn_spec does for typestates — the SL*-style learner
// (ra::SlStarLearner, a BasicLearner<ra::RaKind>), the equivalence oracle in conformance
// (RaEquivalenceOracle: a search guided by the hypothesis, then the generalised Algorithm 2 suite at B), one
// DataOracle counting into one QueryCounter, and the one experiment loop (run_experiment).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "typestar/conformance/ra_equivalence.hpp"
#include "typestar/device/data_device.hpp"
#include "typestar/learn/learner.hpp"
#include "typestar/ra/learner.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/oracle.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/session.hpp"
#include "typestar/session/test_plan.hpp"

namespace typestar::ra {

/// Learns the register automaton behind `sul`. `signature` gives the name, inputs, outputs and
/// constants (its locations are ignored); config.equivalence_bound is the distinguisher bound B
/// the result is evidence for (the words `typestar check --bound B` runs). Throws
/// NondeterminismError when the device answers a data word in two ways, DeviceError when it fails.
[[nodiscard]] RaLearnResult learn_register_automaton(DataSul& sul, const RegisterAutomaton& signature,
                                                     const RaLearnConfig& config = {});

}  // namespace typestar::ra

namespace typestar {

/// check_spec for a register automaton, in the one report shape: the generalised Algorithm 2
/// suite of `spec` (valid) at options.bound against `device` (over the spec's signature), its
/// verdict, the first difference as a named trace for format_trace (the spec's location before
/// each step, the data input, the spec's and the device's answers), the assumptions a pass relies
/// on, and the one counter's statistics. Throws NondeterminismError, DeviceError.
[[nodiscard]] CheckReport check_register_spec(const ra::RegisterAutomaton& spec, ra::DataSul& device,
                                              const CheckOptions& options = {});

/// What a register-automaton verdict at distinguisher bound `bound` relies on, one sentence each
/// (the bound first): the assumptions of a passing check_register_spec and of a learned register
/// automaton.
[[nodiscard]] std::vector<std::string> register_automaton_assumptions(std::size_t bound);

/// The spec a learned register automaton is written as: the hypothesis at distinguisher bound
/// `bound`, with its provenance (tool, device when not empty, learner — followed by `learned_by`
/// when not empty — and equivalence oracle), built once for `typestar learn` and proposals alike.
[[nodiscard]] ra::RaSpec learned_register_spec(const ra::RaLearnResult& learned, std::size_t bound,
                                               const std::string& device, const std::string& learned_by = {});

/// The named trace of a register-automaton counterexample (steps of `cex` run on `spec` in
/// lockstep): every step but the last as the device answered it, the last with the spec's answer.
[[nodiscard]] std::vector<TraceStep> trace_of(const ra::RegisterAutomaton& spec, const ra::RaCounterexample& cex);

/// One test of a register automaton's plan (plan_register_tests): the generalised Algorithm 2
/// words of transition `test` at options.bound through `oracle` (shared by the spec's tests, so one
/// cache and one counter). Pass: `assumptions` say what it relies on. Fail: `trace` is the first
/// difference by name and `reason` why. Inconclusive: `tests` 0 (no explored data class takes the
/// transition: not exercised) or the exploration stopped at its limit (`reason`). Throws
/// NondeterminismError, DeviceError. `counterexample`, when given, receives the difference (Fail).
[[nodiscard]] CheckReport run_register_test(const ra::RegisterAutomaton& spec, ra::DataOracle& oracle,
                                            const TransitionTest& test, const CheckOptions& options = {},
                                            ra::RaCounterexample* counterexample = nullptr);

/// True when `candidate` answers the data word of `cex` as the device did (cex.outputs), step by
/// step in lockstep: the proposal explains the device's answer. The register-automaton kind of
/// proposal_explains (session/proposal.hpp).
[[nodiscard]] bool proposal_explains(const ra::RegisterAutomaton& candidate, const ra::RaCounterexample& cex);

/// Why `proposal` is not a proposal for `stored`: one sentence per difference of automaton name,
/// inputs or outputs (with their parameter types), as proposal_mismatch of two typestate specs.
/// Empty when it is.
[[nodiscard]] std::vector<std::string> proposal_mismatch(const ra::RaSpec& stored, const ra::RaSpec& proposal);

/// The device part of the sharing key for a data device (proposal_device_key of proposal.hpp):
/// empty for an `http://` agent; else the URL (or the factory device's name), a `model:` file's
/// bytes, the environment and the working directory.
[[nodiscard]] std::string proposal_device_key(const std::string& url, const DataDevice& device);

/// A register-automaton spec re-learned from its device (or learned when there is none), the
/// register-automaton kind of ProposalRequest.
struct RegisterProposalRequest {
    std::filesystem::path spec;              ///< the spec file; the proposal sits next to it (proposed_path)
    const ra::RaSpec* stored = nullptr;      ///< the stored spec when it exists and loads
    ra::DataSul* device = nullptr;           ///< the device (seen through `signature`) (required)
    ra::RegisterAutomaton signature;         ///< name, inputs, outputs, constants (locations ignored)
    std::size_t bound = 2;                   ///< B: learned so that `check --bound B` finds nothing more
    ProposalMode mode = ProposalMode::Write;
    std::string device_label;                ///< recorded as the provenance's `device` (empty: none)
    std::string learned_by;                  ///< appended to the provenance's learner, e.g. "re-learned after a failing test"
    /// The sharing of ProposalRequest, for this kind: with a stored spec, its file's bytes, a failing
    /// data word and a non-empty `share_key` (proposal_device_key), the proposal is learned once per
    /// test run under the cross-process lock and reused when it explains the requester's word.
    std::string stored_bytes;
    const ra::RaCounterexample* counterexample = nullptr;  ///< the failing data word, when one failed
    std::string share_key;
    std::string requester;                   ///< who asks (a gtest `Suite.Name`), recorded for the others
};

/// What propose_register_spec did. `spec` empty: `error` says why.
struct RegisterProposal {
    std::optional<ra::RaSpec> spec;
    std::string error;
    /// What ran and what the result relies on: "SL* (from scratch), <equivalence> as equivalence
    /// oracle: 3 locations, 1 register at most, 8 transitions, bound 2; 1,234 concrete queries.",
    /// then the assumptions block.
    std::string summary;
    std::string yaml;                        ///< the proposal's text
    std::filesystem::path file;              ///< where it was written (empty in Print mode)
    bool wrote_spec = false;                 ///< Update mode wrote the spec itself
    /// With a stored spec: a shortest data word on which the stored spec and the proposal differ
    /// (the proposal's answers), searched up to `separating_depth` steps; empty when none is.
    std::vector<TraceStep> separating;
    std::size_t separating_depth = 6;
    /// Reused from another process of this run: "Suite.Name in test process N at WHEN".
    std::string shared_by;
    [[nodiscard]] bool shared() const noexcept { return !shared_by.empty(); }
};

/// The register-automaton proposal workflow, through the phases every kind shares (proposal.hpp):
/// key, lock and reuse (when shared), learn (SL*-style, from scratch, at B), build the spec with
/// its provenance, write it by mode (Write: `<spec>.proposed.yaml` and its picture as DOT; Update:
/// the spec itself, its proposal files removed), and separate it from the stored spec. `typestar
/// accept` takes the written proposal. Never throws for a device or a file: `error` says why.
[[nodiscard]] RegisterProposal propose_register_spec(const RegisterProposalRequest& request);

}  // namespace typestar
