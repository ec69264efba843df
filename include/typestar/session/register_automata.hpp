// Register automata in the one pipeline (issue 23): the session puts the roles together for the
// register-automaton kind as learn_spec does for typestates — the SL*-style learner
// (ra::SlStarLearner, a BasicLearner<ra::RaKind>), the equivalence oracle in conformance
// (RaEquivalenceOracle: the generalised Algorithm 2 suite at B, then random data words), one
// DataOracle counting into one QueryCounter, and the one experiment loop (run_experiment).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "typestar/conformance/ra_equivalence.hpp"
#include "typestar/learn/learner.hpp"
#include "typestar/ra/learner.hpp"
#include "typestar/ra/oracle.hpp"
#include "typestar/session/session.hpp"

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

/// The named trace of a register-automaton counterexample (steps of `cex` run on `spec` in
/// lockstep): every step but the last as the device answered it, the last with the spec's answer.
[[nodiscard]] std::vector<TraceStep> trace_of(const ra::RegisterAutomaton& spec, const ra::RaCounterexample& cex);

}  // namespace typestar
