#include "typestar/session/register_automata.hpp"

#include <cstdint>
#include <exception>

#include "grouped.hpp"
#include "typestar/core/error.hpp"
#include "typestar/ra/suite.hpp"

namespace typestar::ra {

RaLearnResult learn_register_automaton(DataSul& sul, const RegisterAutomaton& signature, const RaLearnConfig& config) {
    DataOracle oracle(sul, signature);
    SlStarLearner learner(signature, oracle, config);
    RaEquivalenceOracle equivalence(
        oracle, {config.equivalence_bound, kMaxSuiteStates, config.random_words, config.random_length, config.seed,
                 config.equivalence_suite, config.random_words_per_transition});
    BasicExperimentConfig<RaKind> experiment;
    experiment.max_rounds = config.max_rounds;
    const BasicLearnResult<RaKind> run = run_experiment(learner, equivalence, oracle.counter(), experiment);
    RaLearnResult result;
    result.hypothesis = run.hypothesis;
    result.stats = run.stats;
    result.tree_queries = oracle.tree_queries();
    result.covering_tree_queries = learner.covering_tree_queries();
    result.converged = run.converged;
    result.failure = run.failure;
    result.suffixes = learner.suffixes();
    result.learner = learner.name();
    result.equivalence = equivalence.description();
    result.certification_executed = equivalence.certification_executed();
    return result;
}

}  // namespace typestar::ra

namespace typestar {

ra::RaSpec learned_register_spec(const ra::RaLearnResult& learned, std::size_t bound, const std::string& device,
                                 const std::string& learned_by) {
    ra::RaSpec spec{learned.hypothesis, bound, {}};
    spec.provenance["tool"] = tool_version();
    if (!device.empty()) spec.provenance["device"] = device;
    spec.provenance["learner"] =
        learned.learner + "-style tree queries (typestar ra)" + (learned_by.empty() ? "" : ", " + learned_by);
    spec.provenance["equivalence"] = learned.equivalence;
    return spec;
}

std::vector<std::string> register_automaton_assumptions(std::size_t bound) {
    return {"the device's (location, register order type) states are told apart by data words of length <= " +
                std::to_string(bound) + " after each transition (distinguisher bound B=" + std::to_string(bound) + ")",
            "one data value per class stands for the class: the device compares data only for equality (id) and "
            "order (int), as the spec's guards do"};
}

std::vector<TraceStep> trace_of(const ra::RegisterAutomaton& spec, const ra::RaCounterexample& cex) {
    std::vector<TraceStep> steps;
    ra::LockstepCheck check(spec);
    for (std::size_t i = 0; i < cex.inputs.size() && i < cex.outputs.size(); ++i) {
        TraceStep step;
        step.state = spec.locations.at(check.simulator().location()).name;
        step.input = ra::format_symbol(spec.inputs, cex.inputs[i]);
        step.actual = ra::format_symbol(spec.outputs, cex.outputs[i]);
        const std::string why = check.step(cex.inputs[i], cex.outputs[i]);
        if (why.empty()) step.expected = step.actual;  // agreed (a fresh value identified with the spec's)
        else if (!check.expected()) step.expected = "(no transition)";
        else {
            step.expected = ra::format_symbol(spec.outputs, *check.expected());
            if (step.expected == step.actual) step.expected += " (fresh)";  // the device's value was not new
        }
        steps.push_back(std::move(step));
        if (!why.empty()) break;
    }
    return steps;
}

namespace {

/// The report of a suite run at `bound`: its words and statistics, and on a difference the Fail
/// verdict with the named trace (the caller decides a pass).
CheckReport report_of(const ra::RegisterAutomaton& spec, const ra::DataOracle& oracle, const ra::RaSuiteResult& result,
                      std::size_t bound) {
    CheckReport report;
    report.method = SuiteMethod::Algorithm2;
    report.bound = bound;
    report.tests = result.words;
    report.stats = oracle.stats();
    if (result.counterexample) {
        report.verdict = Verdict::Fail;
        report.trace = trace_of(spec, *result.counterexample);
        report.reason = result.counterexample->reason;
    }
    return report;
}

}  // namespace

CheckReport check_register_spec(const ra::RegisterAutomaton& spec, ra::DataSul& device, const CheckOptions& options) {
    ra::DataOracle oracle(device, spec);
    const ra::RaSuiteResult result = ra::check_register_automaton(spec, oracle, {options.bound, ra::kMaxSuiteStates});
    CheckReport report = report_of(spec, oracle, result, options.bound);
    if (result.counterexample) return report;
    report.verdict = Verdict::Pass;
    report.assumptions = register_automaton_assumptions(options.bound);
    if (result.truncated)
        report.assumptions.push_back("only the first " + std::to_string(result.states) +
                                     " (location, register order type) states were explored: partial evidence");
    return report;
}

bool proposal_explains(const ra::RegisterAutomaton& candidate, const ra::RaCounterexample& cex) {
    ra::LockstepCheck check(candidate);
    for (std::size_t i = 0; i < cex.inputs.size(); ++i)
        if (i >= cex.outputs.size() || !check.step(cex.inputs[i], cex.outputs[i]).empty()) return false;
    return true;
}

CheckReport run_register_test(const ra::RegisterAutomaton& spec, ra::DataOracle& oracle, const TransitionTest& test,
                              const CheckOptions& options, ra::RaCounterexample* counterexample) {
    const ra::RaSuiteResult result =
        ra::check_register_transition(spec, oracle, test.location, test.transition, {options.bound, ra::kMaxSuiteStates});
    CheckReport report = report_of(spec, oracle, result, options.bound);
    if (result.counterexample) {
        if (counterexample != nullptr) *counterexample = *result.counterexample;
        return report;
    }
    if (result.words == 0) {
        report.verdict = Verdict::Inconclusive;
        report.reason = "no explored data class takes this transition (from " + std::to_string(result.states) +
                        " (location, register order type) states): not exercised";
        return report;
    }
    if (result.truncated) {
        report.verdict = Verdict::Inconclusive;
        report.reason = "the exploration was truncated at " + std::to_string(ra::kMaxSuiteStates) +
                        " states: only part of the spec was tested (no difference found in that part)";
        return report;
    }
    report.verdict = Verdict::Pass;
    report.assumptions = register_automaton_assumptions(options.bound);
    return report;
}

RegisterProposal propose_register_spec(const RegisterProposalRequest& r) {
    RegisterProposal p;
    if (r.device == nullptr) {
        p.error = "no device to learn from";
        return p;
    }
    try {
        ra::RaLearnConfig config;
        config.equivalence_bound = r.bound;
        const ra::RaLearnResult learned = ra::learn_register_automaton(*r.device, r.signature, config);
        if (!learned.converged) {
            p.error = learned.learner + " (from scratch) did not converge: " + learned.failure;
            return p;
        }
        const ra::RegisterAutomaton& h = learned.hypothesis;
        p.summary = learned.learner + " (from scratch), " + learned.equivalence + " as equivalence oracle: " +
                    std::to_string(h.locations.size()) + " locations, " + std::to_string(h.max_registers()) +
                    " registers at most, " + std::to_string(h.num_transitions()) + " transitions, bound " +
                    std::to_string(r.bound) + "; " + detail::grouped(learned.stats.total().queries_executed) +
                    " concrete queries.\nThe learned spec relies on:\n" +
                    assumptions_block(register_automaton_assumptions(r.bound));
        const ra::RaSpec proposed = learned_register_spec(learned, r.bound, r.device_label, r.learned_by);
        if (r.stored) {
            if (const auto sep = ra::separating_word(r.stored->automaton, h, p.separating_depth))
                p.separating = trace_of(r.stored->automaton, *sep);
        }
        p.yaml = ra::write_register_spec(proposed);
        if (r.mode == ProposalMode::Update) {
            ra::save_register_spec(proposed, r.spec);
            std::error_code ec;
            for (const auto& f : proposal_files(r.spec)) std::filesystem::remove(f, ec);
            p.file = r.spec;
            p.wrote_spec = true;
        } else if (r.mode == ProposalMode::Write) {
            p.file = proposed_path(r.spec, "yaml");
            ra::save_register_spec(proposed, p.file);
        }
        p.spec = std::move(proposed);
    } catch (const NondeterminismError& e) {
        p.error = std::string("the device is not deterministic: ") + e.what();
    } catch (const std::exception& e) {
        p.error = e.what();
    }
    return p;
}

}  // namespace typestar
