#include "typestar/session/register_automata.hpp"

#include "typestar/ra/suite.hpp"

namespace typestar::ra {

RaLearnResult learn_register_automaton(DataSul& sul, const RegisterAutomaton& signature, const RaLearnConfig& config) {
    DataOracle oracle(sul, signature);
    SlStarLearner learner(signature, oracle, config);
    RaEquivalenceOracle equivalence(
        oracle, {config.equivalence_bound, 10000, config.random_words, config.random_length, config.seed,
                 config.equivalence_suite});
    BasicExperimentConfig<RaKind> experiment;
    experiment.max_rounds = config.max_rounds;
    const BasicLearnResult<RaKind> run = run_experiment(learner, equivalence, oracle.counter(), experiment);
    RaLearnResult result;
    result.hypothesis = run.hypothesis;
    result.stats = run.stats;
    result.tree_queries = oracle.tree_queries();
    result.converged = run.converged;
    result.failure = run.failure;
    result.suffixes = learner.suffixes();
    result.learner = learner.name();
    result.equivalence = equivalence.description();
    return result;
}

}  // namespace typestar::ra

namespace typestar {

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

CheckReport check_register_spec(const ra::RegisterAutomaton& spec, ra::DataSul& device, const CheckOptions& options) {
    ra::DataOracle oracle(device, spec);
    const ra::RaSuiteResult result = ra::check_register_automaton(spec, oracle, {options.bound, 10000});
    CheckReport report;
    report.method = SuiteMethod::Algorithm2;
    report.bound = options.bound;
    report.tests = result.words;
    report.stats = oracle.stats();
    if (result.counterexample) {
        report.verdict = Verdict::Fail;
        report.trace = trace_of(spec, *result.counterexample);
        report.reason = result.counterexample->reason;
        return report;
    }
    report.verdict = Verdict::Pass;
    report.assumptions = register_automaton_assumptions(options.bound);
    if (result.truncated)
        report.assumptions.push_back("only the first " + std::to_string(result.states) +
                                     " (location, register order type) states were explored: partial evidence");
    return report;
}

}  // namespace typestar
