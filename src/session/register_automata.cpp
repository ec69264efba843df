#include "typestar/session/register_automata.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>

#include "grouped.hpp"
#include "kind_detail.hpp"
#include "proposal_flow.hpp"
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

std::vector<std::string> detail::signature_lines(const ra::RegisterAutomaton& a) {
    std::vector<std::string> out;
    auto add = [&](const char* what, const std::vector<ra::SymbolDecl>& ds) {
        for (const auto& d : ds) {
            std::string t = std::string(what) + " " + d.name + "(";
            for (std::size_t i = 0; i < d.params.size(); ++i)
                t += std::string(i ? ", " : "") + ra::type_name(d.params[i].type);
            out.push_back(t + ")");
        }
    };
    add("input", a.inputs);
    add("output", a.outputs);
    std::sort(out.begin(), out.end());
    return out;
}

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
            "order (int), as the spec's guards do, with no constant the signature does not declare (checked on "
            "every explored word run again with its values moved up and down, keeping their order against the "
            "constants)",
            "the steps after each transition are symbolic: each parameter equal to, or (where the spec's guards "
            "order) ordered against, each value the spec's guards compare it with where the spec is, else one fresh "
            "value, and equal to each value the spec held in a register and dropped (a parameter no guard reads "
            "also equal to each value of the previous step); `int` data are "
            "compared only for equality when the spec's guards never order, and (location, register equality type) "
            "pairs then stand for the order types"};
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

std::vector<std::string> proposal_mismatch(const ra::RaSpec& stored, const ra::RaSpec& proposal) {
    std::vector<std::string> out;
    const ra::RegisterAutomaton& s = stored.automaton;
    const ra::RegisterAutomaton& p = proposal.automaton;
    if (s.name != p.name) out.push_back("another class: the proposal is '" + p.name + "', the spec '" + s.name + "'");
    const auto before = detail::signature_lines(s), now = detail::signature_lines(p);
    if (before != now) out.push_back("another signature: the proposal " + detail::alphabet_change(before, now));
    return out;
}

std::string proposal_device_key(const std::string& url, const DataDevice& device) {
    return detail::proposal_device_key(url, device.describe());
}

namespace {

/// The register-automaton kind's part of sharing: the request in the kind-neutral terms.
detail::ShareRequest share_request(const RegisterProposalRequest& r) {
    detail::ShareRequest s;
    s.spec = r.spec;
    s.stored_bytes = r.stored_bytes;
    s.device_key = r.share_key;
    s.bound = r.bound;
    s.learner = "SL*";
    s.mode = r.mode;
    s.requester = r.requester;
    s.has_failure = r.stored != nullptr && r.counterexample != nullptr;
    return s;
}

/// The shortest data word (up to p.separating_depth steps) on which the stored spec and the
/// proposal differ, by name.
void separate(const RegisterProposalRequest& r, RegisterProposal& p) {
    if (!r.stored || !p.spec) return;
    if (const auto sep = ra::separating_word(r.stored->automaton, p.spec->automaton, p.separating_depth))
        p.separating = trace_of(r.stored->automaton, *sep);
}

/// The proposal another process left (sharing.reusable()), if it explains `r.counterexample`.
std::optional<RegisterProposal> reuse_shared(const RegisterProposalRequest& r, const detail::ProposalSharing& sharing) {
    const auto record = sharing.reusable();
    if (!record) return std::nullopt;
    RegisterProposal p;
    try {
        p.spec = ra::parse_register_spec(record->yaml, proposed_path(r.spec, "yaml").string());
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (!proposal_explains(p.spec->automaton, *r.counterexample)) return std::nullopt;
    p.shared_by = detail::ProposalSharing::shared_by(*record);
    p.yaml = record->yaml;
    p.file = r.mode == ProposalMode::Update ? r.spec : r.mode == ProposalMode::Write ? proposed_path(r.spec, "yaml")
                                                                                     : std::filesystem::path();
    p.wrote_spec = r.mode == ProposalMode::Update;
    separate(r, p);
    return p;
}

/// The learning phase: SL*-style from scratch at B, the summary of what ran.
void learn(const RegisterProposalRequest& r, RegisterProposal& p) {
    ra::RaLearnConfig config;
    config.equivalence_bound = r.bound;
    const ra::RaLearnResult learned = ra::learn_register_automaton(*r.device, r.signature, config);
    if (!learned.converged) {
        p.error = learned.learner + " (from scratch) did not converge: " + learned.failure;
        return;
    }
    const ra::RegisterAutomaton& h = learned.hypothesis;
    p.summary = learned.learner + " (from scratch), " + learned.equivalence + " as equivalence oracle: " +
                std::to_string(h.locations.size()) + " locations, " + std::to_string(h.max_registers()) +
                " registers at most, " + std::to_string(h.num_transitions()) + " transitions, bound " +
                std::to_string(r.bound) + "; " + detail::grouped(learned.stats.total().queries_executed) +
                " concrete queries.\nThe learned spec relies on:\n" +
                assumptions_block(register_automaton_assumptions(r.bound));
    p.spec = learned_register_spec(learned, r.bound, r.device_label, r.learned_by);
}

}  // namespace

RegisterProposal propose_register_spec(const RegisterProposalRequest& r) {
    RegisterProposal p;
    if (r.device == nullptr) {
        p.error = "no device to learn from";
        return p;
    }
    try {
        // Key and lock: one proposal per spec and change across the processes of a test run.
        const detail::ProposalSharing sharing(share_request(r));
        if (auto reused = reuse_shared(r, sharing)) return std::move(*reused);
        learn(r, p);
        if (!p.spec) return p;
        if (r.stored) (void)detail::name_locations_like(*r.stored, *p.spec);  // the stored names, as accept gives them
        p.yaml = ra::write_register_spec(*p.spec);
        if (r.mode != ProposalMode::Print) {
            const WrittenProposal w = detail::write_proposal_text(r.spec, p.yaml, r.mode == ProposalMode::Update);
            if (!w.wrote_spec)  // the picture beside the proposal, as a typestate's
                spec::write_file_atomically(proposed_path(r.spec, "dot"), ra::write_register_dot(p.spec->automaton));
            p.file = w.file;
            p.wrote_spec = w.wrote_spec;
        }
        separate(r, p);
        sharing.share(p.yaml);
    } catch (const NondeterminismError& e) {
        p.spec.reset();
        p.error = std::string("the device is not deterministic: ") + e.what();
    } catch (const std::exception& e) {
        p.spec.reset();
        p.error = e.what();
    }
    return p;
}

}  // namespace typestar
