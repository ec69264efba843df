// One front door for every kind (typestar/session/document.hpp): the only place that asks what kind
// a document or a device is, and chooses the pipeline.
#include "typestar/session/document.hpp"

#include "typestar/session/kind.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "../spec/spec_detail.hpp"
#include "kind_detail.hpp"
#include "proposal_flow.hpp"
#include "session_detail.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/translate.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/ra/suite.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/register_automata.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/diff_dot.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/json.hpp"

namespace typestar {

spec::Spec detail::spec_for_diff(const Document& d) {
    if (d.spec) return *d.spec;
    return spec::load_dot_spec(d.path, spec::sanitize_name(std::filesystem::path(d.path).stem().string(), "imported"));
}

namespace {

using detail::spec_for_diff;
namespace fs = std::filesystem;

const char* suite_title(SuiteMethod m) {
    switch (m) {
        case SuiteMethod::Algorithm2: return "DroidStar Algorithm 2";
        case SuiteMethod::W: return "W-method";
        case SuiteMethod::Wp: return "Wp-method";
    }
    return "?";
}


/// Two register automata: the signatures, then the shortest separating data trace up to `depth`
/// steps (iterative deepening over one data word per data class).
DocumentDiff diff_register_automata(const Document& old_doc, const Document& new_doc, std::size_t depth) {
    const ra::RegisterAutomaton& a = old_doc.automaton->automaton;
    DocumentDiff out;
    std::ostringstream text;
    const auto sa = detail::signature_lines(a), sb = detail::signature_lines(new_doc.automaton->automaton);
    if (sa != sb) {
        text << "different signatures:\n";
        for (const auto& l : sa)
            if (std::find(sb.begin(), sb.end(), l) == sb.end()) text << "  - " << l << "  (only in " << old_doc.path << ")\n";
        for (const auto& l : sb)
            if (std::find(sa.begin(), sa.end(), l) == sa.end()) text << "  + " << l << "  (only in " << new_doc.path << ")\n";
        out.same = false;
        out.text = text.str();
        return out;
    }
    // Same symbols: numbered as in a, so data words mean the same.
    const ra::RegisterAutomaton b = ra::renumbered_like(a, new_doc.automaton->automaton);
    const auto cex = ra::separating_word(a, b, depth);
    if (!cex) {
        text << "same behaviour on every data word of up to " << depth
             << " steps (one per data class): bounded evidence, not a proof\n";
        out.text = text.str();
        return out;
    }
    ra::RaSimulator old_sim(a), new_sim(b);
    const ra::DataWord old_out = old_sim.run(cex->inputs), new_out = new_sim.run(cex->inputs);
    text << "different: a shortest separating data trace (" << cex->inputs.size() << " steps):\n";
    for (std::size_t i = 0; i < cex->inputs.size(); ++i) {
        const std::string o = ra::format_symbol(a.outputs, old_out[i]), n = ra::format_symbol(a.outputs, new_out[i]);
        text << "  " << i + 1 << ". " << ra::format_symbol(a.inputs, cex->inputs[i]) << " -> "
             << (i + 1 == cex->inputs.size() ? o + " (" + old_doc.path + ") vs " + n + " (" + new_doc.path + ")" : o)
             << "\n";
    }
    text << "  (" << cex->reason << ")\n";
    out.same = false;
    out.text = text.str();
    return out;
}

/// ", N timing retries (...)" when runs were repeated past a late callback, else "".
std::string timing_retries_note(std::uint64_t retries) {
    if (retries == 0) return "";
    return ", " + std::to_string(retries) + " timing retr" + (retries == 1 ? "y" : "ies") +
           " (runs repeated after a late, queued or early callback; every answer kept was on time)";
}

/// The one `--stats` schema of `learn`, for every kind: the counter's totals and phases, the
/// rounds, the learned states (locations of a register automaton) and the seconds.
nlohmann::json stats_json(const QueryStats& s, std::size_t states, double seconds) {
    const PhaseCounts t = s.total();
    nlohmann::json j;
    j["states"] = states;
    j["queries_asked"] = t.queries_asked;
    j["queries_executed"] = t.queries_executed;
    j["symbols_executed"] = t.symbols_executed;
    j["waits_executed"] = t.waits_executed;
    j["timing_retries"] = t.timing_retries;  // runs repeated after a late callback (not in queries_executed)
    j["learning_queries_asked"] = s.learning.queries_asked;
    j["learning_queries_executed"] = s.learning.queries_executed;
    j["learning_symbols_executed"] = s.learning.symbols_executed;
    j["learning_waits_executed"] = s.learning.waits_executed;
    j["equivalence_queries_asked"] = s.equivalence.queries_asked;
    j["equivalence_queries_executed"] = s.equivalence.queries_executed;
    j["equivalence_symbols_executed"] = s.equivalence.symbols_executed;
    j["equivalence_waits_executed"] = s.equivalence.waits_executed;
    j["verification_queries_executed"] = s.verification.queries_executed;
    j["verification_symbols_executed"] = s.verification.symbols_executed;
    j["verification_waits_executed"] = s.verification.waits_executed;
    j["equivalence_rounds"] = s.equivalence_rounds;
    j["seconds"] = seconds;
    return j;
}

// ---- check ------------------------------------------------------------------------------------

DocumentCheck check_register_document(const Document& document, Subject& subject, SuiteMethod method,
                                      std::optional<std::size_t> bound) {
    if (method != SuiteMethod::Algorithm2)
        throw std::invalid_argument(std::string("a register automaton is checked with the generalised Algorithm 2 "
                                                "suite: --method ") +
                                    method_name(method) + " does not apply");
    const ra::RegisterAutomaton& spec = document.automaton->automaton;
    if (!subject.device.data)
        throw std::invalid_argument(document.path + " is a register automaton, but " + subject.url +
                                    " is not a register-automaton device (a model: kind: register-automaton spec or "
                                    "RALib .xml, or an agent serving a data purpose)");
    std::unique_ptr<DataDevice> adapted;
    try {
        adapted = adapt_to_signature(spec, *subject.device.data);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(document.path + " and " + subject.url + ": " + e.what());
    }
    CheckOptions options;
    options.bound = bound.value_or(document.automaton->distinguisher);
    DocumentCheck out;
    out.report = check_register_spec(spec, *adapted, options);
    if (out.report.verdict == Verdict::Pass) {  // what reading the spec and the device assumed
        for (const auto& a : document.assumptions) out.report.assumptions.push_back(a + " (the spec)");
        for (const auto& a : subject.device.data->assumptions()) out.report.assumptions.push_back(a + " (the device)");
    }
    const CheckReport& report = out.report;
    std::ostringstream text;
    if (report.verdict == Verdict::Pass) {
        text << "conforms: " << subject.url << " passed the generalised Algorithm 2 suite of " << spec.name
             << " (distinguisher bound B=" << options.bound << ") on " << report.tests
             << " data words: bounded evidence, not a proof.\n"
             << evidence_note(report);
    } else {
        text << "counterexample: " << subject.url << " does not conform to " << spec.name << " (data trace, "
             << report.trace.size() << " steps): " << report.reason << "\n"
             << format_trace(report.trace);
    }
    out.text = text.str();
    return out;
}

DocumentCheck check_typestate_document(const Document& document, Subject& subject, SuiteMethod method,
                                       std::optional<std::size_t> bound) {
    if (!subject.device.typestate)
        throw std::invalid_argument(document.path + " is a typestate, but " + subject.url +
                                    " is a register-automaton (data) device");
    const std::size_t b = bound.value_or(document_bound(document, method));
    Device& device = *subject.device.typestate;
    PartitionPlan plan;  // a spec with partitions over a parameterised device: run with their values
    CheckOptions options;
    options.method = method;
    options.bound = b;
    DocumentCheck out;
    try {
        plan = plan_partitions(device, document.spec ? &*document.spec : nullptr);
        Device* devices[] = {&plan.device(device)};
        out.report = document.spec ? check_spec(*document.spec, devices, options)
                                   : check_spec(*document.machine, devices, options);
    } catch (const PartitionError& e) {  // values of one of the spec's partitions answer differently
        out.report = CheckReport{};
        out.report.verdict = Verdict::Fail;
        out.report.method = method;
        out.report.bound = b;
        out.report.reason = e.what();
        out.text = "counterexample: " + subject.url + " does not conform to " + document.name + ": " + e.what() + "\n";
        return out;
    } catch (const std::invalid_argument& e) {  // the device's inputs are not the spec's
        throw std::invalid_argument(document.path + " and " + subject.url + ": " + e.what());
    }
    CheckReport& report = out.report;
    if (plan.partitioned)
        if (std::string sampled = values_sampled(plan.partitioned->declarations_run()); !sampled.empty())
            report.assumptions.push_back(std::move(sampled));
    const PhaseCounts t = report.stats.total();
    std::ostringstream text;
    if (report.verdict == Verdict::Pass) {
        text << "conforms: " << subject.url << " passed all " << report.tests << " tests of the " << suite_title(method)
             << " suite of " << document.name << " (" << suite_bound_text(method, b) << ").\n"
             << evidence_note(report);
    } else {
        const Counterexample& cex = *report.counterexample;
        text << "counterexample: " << subject.url << " does not conform to " << document.name << " ("
             << detail::where_found(cex, report.tests, "test", "the") << cex.purpose << ")\n"
             << format_trace(report.trace);
        if (const std::string note = unpredicted_answer_note(report); !note.empty()) text << note << "\n";
    }
    out.text = text.str();
    // In the device's own terms: a device without `wait` (a Mealy device) has no waits to count.
    const bool has_wait = subject.device.typestate && subject.device.typestate->inputs().contains(kWait);
    out.counts = std::to_string(t.queries_executed) + " queries executed" +
                 (has_wait ? ", " + std::to_string(t.waits_executed) + " waits" : std::string()) +
                 timing_retries_note(t.timing_retries);
    return out;
}

// ---- learn ------------------------------------------------------------------------------------

LearnedDocument learn_register_document(Subject& subject, const LearnRequest& request) {
    if (request.learner != LearnerKind::LSharp || request.method != SuiteMethod::Algorithm2 || request.states ||
        !request.from.empty() || request.auto_bound)
        throw std::invalid_argument(
            "a data device is learned as a register automaton with the SL*-style learner: --learner, "
            "--equivalence, --states, --from and --bound auto do not apply");
    DataDevice& device = *subject.device.data;
    // --increments: the signature's theory plus the requested `+c` terms (validate names a bad one)
    ra::RegisterAutomaton signature = device.signature();
    for (const std::int64_t c : request.increments) {
        if (c < 1 || c > 1000)
            throw std::invalid_argument("--increments: " + std::to_string(c) + " is not from 1 to 1000");
        if (std::find(signature.increments.begin(), signature.increments.end(), c) == signature.increments.end())
            signature.increments.push_back(c);
    }
    if (!request.increments.empty() &&
        std::none_of(signature.inputs.begin(), signature.inputs.end(), [](const ra::SymbolDecl& d) {
            return std::any_of(d.params.begin(), d.params.end(),
                               [](const ra::Parameter& p) { return p.type == ra::DataType::Int; });
        }))
        throw std::invalid_argument("--increments: the device's callins have no int parameter (`+c` is for int data)");
    ra::RaLearnConfig config;
    config.equivalence_bound = request.bound;  // B: the spec records it, and the oracle runs check's suite at B
    config.max_executed = request.budget ? static_cast<std::size_t>(*request.budget) : 0;
    const auto start = std::chrono::steady_clock::now();
    const ra::RaLearnResult learned = ra::learn_register_automaton(device, signature, config);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const ra::RegisterAutomaton& h = learned.hypothesis;
    LearnedDocument out;
    out.converged = learned.converged;
    out.failure = learned.failure;
    out.stats = learned.stats;
    out.states = h.locations.size();
    out.seconds = seconds;
    nlohmann::json j = stats_json(learned.stats, h.locations.size(), seconds);
    j["registers"] = h.max_registers();
    j["transitions"] = h.num_transitions();
    j["converged"] = learned.converged;
    j["tree_queries"] = learned.tree_queries;
    j["certification_queries_executed"] = learned.certification_executed;  // of the equivalence phase's
    out.stats_json = j.dump(2) + "\n";
    if (!learned.converged) return out;
    const ra::RaSpec spec = learned_register_spec(learned, request.bound, subject.url);
    out.yaml = ra::write_register_spec(spec);
    out.dot = ra::write_register_dot(h);
    const PhaseCounts total = learned.stats.total();
    std::ostringstream report;
    report << "typestar: learned a register automaton with " << h.locations.size() << " locations, "
           << h.max_registers() << " registers at most, " << h.num_transitions() << " transitions in "
           << learned.stats.equivalence_rounds << " rounds (" << learned.learner << "): " << learned.tree_queries
           << " tree queries, " << total.queries_executed << " concrete queries executed (" << total.queries_asked
           << " asked), " << total.symbols_executed << " steps, " << std::fixed << std::setprecision(3) << seconds
           << " s\n"
           << "typestar: no counterexample from the equivalence oracle (" << learned.equivalence
           << "): bounded evidence, not a proof (distinguisher bound B=" << request.bound << ")\n"
           << "typestar: the learned spec relies on:\n"
           << assumptions_block(register_automaton_assumptions(request.bound), "typestar:   ")
           << assumptions_block(device.assumptions(), "typestar:   ");
    out.report = report.str();
    return out;
}

/// The evidence lines after a typestate `learn` (plain and refined): the bound as used, the
/// assumptions, the machine's own distinguisher bound and the tight-bound warning.
void learn_evidence(std::ostream& os, const LearnedSpec& learned, std::optional<SuiteMethod> method,
                    std::size_t bound, std::optional<std::size_t> states, const std::string& where = {}) {
    if (method) {
        os << "typestar: no counterexample from " << suite_title(*method) << " ("
           << (states ? "devices with at most " + std::to_string(*states) + " states (absolute --states)"
                      : suite_bound_text(*method, method == SuiteMethod::Algorithm2 ? learned.bound : bound) +
                            (method == SuiteMethod::Algorithm2 ? "" : " (relative to each hypothesis)"))
           << ")" << where << ": bounded evidence, not a proof. The learned spec relies on:\n"
           << assumptions_block(learned.assumptions, "typestar:   ");
        if (!learned.exploration_note.empty()) os << "typestar: " << learned.exploration_note << "\n";
    }
    if (method == SuiteMethod::Algorithm2) {
        os << "typestar: the learned machine's own distinguisher bound is " << learned.machine_bound << " (B="
           << learned.bound << ")\n";
        if (learned.bound_tight) os << "typestar: " << tight_bound_warning(learned) << "\n";
    }
}

/// A device that declares parameterised callins: alphabet refinement over its partitions.
LearnedDocument learn_refined(Subject& subject, const LearnRequest& request, const LearnOptions& options) {
    if (!request.from.empty())
        throw std::invalid_argument("--from cannot seed learning over partitions that refinement changes (" +
                                    subject.url + " declares parameterised callins)");
    const RefinedSpec r = learn_with_refinement(*subject.device.typestate, options, request.refinement);
    const LearnedSpec& learned = r.learned;
    LearnedDocument out;
    out.stats = learned.stats;
    out.states = learned.machine.num_states();
    out.seconds = learned.seconds;
    out.stats_json = stats_json(learned.stats, learned.machine.num_states(), learned.seconds).dump(2) + "\n";
    out.yaml = r.text;
    out.dot = spec::write_mealy_dot(learned.machine, subject.name);
    const RefinementReport& rep = r.report;
    std::ostringstream os;
    os << "typestar: learned " << learned.spec->typestate.states.size() << " typestate states over partitions with "
       << learned.learner << ": alphabet " << rep.initial_alphabet << " -> " << rep.final_alphabet << " inputs, "
       << rep.refinements.size() << " refinement" << (rep.refinements.size() == 1 ? "" : "s") << ", "
       << rep.unknown_transitions << " unknown transition" << (rep.unknown_transitions == 1 ? "" : "s") << "\n";
    for (const auto& rec : rep.refinements) {
        os << "typestar:   " << rec.callin << "[" << rec.from << "] split after '" << rec.split_by << "' into";
        for (const auto& i : rec.into) os << " " << i;
        os << "\n";
    }
    os << "typestar: concrete runs: " << rep.concrete_requested << " asked (without the cache), "
       << rep.concrete_executed << " executed (" << rep.concrete_rechecked << " of them re-checks past the cache), "
       << rep.reused_across_refinements << " answered by runs from before a refinement\n";
    learn_evidence(os, learned, options.equivalence.method, options.equivalence.bound, std::nullopt,
                   " on the last alphabet");
    if (const std::string sampled = values_sampled(learned.spec->declarations); !sampled.empty())
        os << "typestar: assumed: " << sampled << "\n";
    if (!rep.values_from_code.empty()) os << "typestar: assumed: " << rep.values_from_code << "\n";
    out.report = os.str();
    return out;
}

LearnedDocument learn_typestate_document(Subject& subject, const LearnRequest& request) {
    if (!request.increments.empty())
        throw std::invalid_argument("--increments applies to data devices (register automata), not to typestate devices");
    Device& device = *subject.device.typestate;
    const std::optional<MealyMachine>* truth = subject.model ? &subject.model->machine : nullptr;
    if (!request.method && !(truth && *truth))
        throw std::invalid_argument("--equivalence perfect needs a model device (model:PATH): only a model knows the truth");

    LearnOptions options;
    options.name = subject.name;
    options.device_label = subject.url;
    if (request.budget) options.max_queries = *request.budget;  // a hard cap from the first query
    options.learner = request.learner;
    options.probe = request.probe;
    if (request.method) {
        options.equivalence.method = *request.method;
        options.equivalence.bound = request.bound;
        options.equivalence.extra_states = request.states ? 0 : request.bound;  // --states replaces --bound (AALpy's m = n)
        options.equivalence.auto_bound = request.auto_bound;
        options.equivalence.state_bound = request.states;
        if (request.budget) options.equivalence.budget = *request.budget;
        options.equivalence.explore_words_per_transition = request.explore;
    } else {
        options.equivalence.perfect = **truth;
    }
    const PartitionPlan plan = plan_partitions(device, nullptr);  // refine or not: decided here, once
    std::optional<spec::Spec> stored;  // --from SPEC.yaml: a proposal (propose: the stored spec's strength)
    if (!request.from.empty() && !plan.refine) {
        Document seed = load_document(request.from);
        if (!seed.machine)
            throw std::invalid_argument(request.from + ": a register automaton cannot seed learning a typestate");
        try {
            (void)over_alphabets(*seed.machine, device.inputs(), device.outputs());
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(request.from + ": " + e.what());
        }
        options.seed = std::move(*seed.machine);
        stored = std::move(seed.spec);
    }
    // One progress line per round comes from the experiment loop (typestar.learn, level info).
    if (plan.refine) {
        if (!request.method || request.auto_bound || options.equivalence.method != SuiteMethod::Algorithm2)
            throw std::invalid_argument(subject.url + " declares parameterised callins: learning refines their "
                                        "partitions with --equivalence alg2 and a fixed --bound");
        return learn_refined(subject, request, options);
    }

    Device* devices[] = {&device};
    // Seeded with a stored spec: the one proposal pipeline (at least the stored spec's bound, its
    // states kept where the device still tells them apart, its state names and declarations).
    const LearnedSpec learned = stored ? propose(&*stored, devices, options) : learn_spec(devices, options);
    const MealyMachine& machine = learned.machine;
    LearnedDocument out;
    out.stats = learned.stats;
    out.states = machine.num_states();
    out.seconds = learned.seconds;
    out.stats_json = stats_json(learned.stats, machine.num_states(), learned.seconds).dump(2) + "\n";
    if (learned.spec) out.yaml = spec::write_spec(*learned.spec);
    out.not_a_closure = learned.not_a_closure;
    out.dot = spec::write_mealy_dot(machine, subject.name);

    const PhaseCounts t = learned.stats.total();
    std::string what = std::to_string(machine.num_states()) + " states";
    const bool has_wait = machine.inputs().contains(kWait);
    if (learned.spec) {
        const std::size_t typestate_states = learned.spec->typestate.states.size();
        // In the device's own terms: a Mealy device (no `wait`) has states, not typestate states.
        what = std::to_string(typestate_states) + (has_wait ? " typestate states" : " states");
        if (typestate_states < machine.num_states()) what += " (Mealy machine: + the err sink)";
    }
    std::ostringstream os;
    if (learned.timing_probe) os << learned.timing_probe->text;  // learning's first phase: what it measured
    os << "typestar: learned " << what << " with " << learned.learner << " in " << learned.rounds << " round"
       << (learned.rounds == 1 ? "" : "s") << ": " << t.queries_executed << " queries executed ("
       << learned.stats.learning.queries_executed << " learning, " << learned.stats.equivalence.queries_executed
       << " equivalence, " << learned.stats.verification.queries_executed << " verification), " << t.queries_asked
       << " asked, " << t.symbols_executed << " symbols, "
       << (has_wait ? std::to_string(t.waits_executed) + " waits, " : std::string()) << std::fixed
       << std::setprecision(3) << learned.seconds << " s" << timing_retries_note(t.timing_retries) << "\n";
    if (!learned.bound_note.empty()) os << "typestar: --bound auto: " << learned.bound_note << "\n";
    // What the flake policy re-ran and the chance it leaves, or that the device declares it cannot flake.
    if (!learned.flake_note.empty()) os << "typestar: " << learned.flake_note << "\n";
    if (stored && learned.bound > request.bound && request.method == SuiteMethod::Algorithm2 && !request.auto_bound)
        os << "typestar: learned at B=" << learned.bound << ", the bound " << request.from << " records (--bound "
           << request.bound << " asked less): a proposal keeps at least the stored spec's strength\n";
    if (!learned.seed_note.empty()) os << "typestar: " << learned.seed_note << "\n";
    learn_evidence(os, learned, request.method, request.bound, request.states);
    out.report = os.str();
    return out;
}

}  // namespace

std::string suite_bound_text(SuiteMethod method, std::size_t bound) {
    return method == SuiteMethod::Algorithm2 ? "distinguisher bound B=" + std::to_string(bound)
                                             : std::to_string(bound) + " extra states";
}

const char* suite_method_title(SuiteMethod method) noexcept { return suite_title(method); }

DocumentFormat document_format(const fs::path& path) {
    if (spec::detail::is_dot_path(path)) return DocumentFormat::MealyDot;
    if (spec::detail::lower_extension(path) == ".xml") return DocumentFormat::RalibXml;
    if (is_register_automaton_file(path)) return DocumentFormat::RegisterAutomatonYaml;
    return DocumentFormat::TypestateYaml;
}

Document load_document(const fs::path& path) {
    Document d;
    d.path = path.string();
    d.format = document_format(path);
    switch (d.format) {
        case DocumentFormat::MealyDot:
            d.machine = spec::load_mealy_dot(path);  // SpecError with the diagnostics
            d.name = spec::sanitize_name(path.stem().string());
            break;
        case DocumentFormat::RalibXml:
            d.automaton = ra::RaSpec{load_register_automaton(path, &d.assumptions), 2, {}};
            d.name = d.automaton->automaton.name;
            break;
        case DocumentFormat::RegisterAutomatonYaml:
            d.automaton = ra::load_register_spec(path);
            d.name = d.automaton->automaton.name;
            break;
        case DocumentFormat::TypestateYaml:
            d.spec = spec::load_spec(path);
            d.machine = synchronous_closure(d.spec->typestate);
            d.name = d.spec->typestate.name;
            break;
    }
    return d;
}

const MealyMachine& suite_model(const Document& document) {
    if (!document.machine)
        throw std::invalid_argument(
            document.path + " is a register automaton: its generalised Algorithm 2 suite is built on the device "
                            "(words use the device's output values), so it cannot be printed ahead; run it with "
                            "`typestar check " + document.path + " --device URL`");
    return *document.machine;
}

namespace {

/// `; guards: checked write[empty], write[nonempty]; in words connect[null]` for a spec with
/// partitions (docs/spec-format-v2.md, "Guards"); empty without partitions.
std::string partition_guards_summary(const spec::Spec& s) {
    std::string checked;
    std::string words;
    for (const auto& d : s.declarations)
        for (const auto& p : d.partitions) {
            std::string& list = spec::partition_guard(p.guard, d.parameters).expression ? checked : words;
            list += (list.empty() ? "" : ", ") + spec::abstract_input(d.name, p.name);
        }
    if (checked.empty() && words.empty()) return {};
    std::string out = "; guards: ";
    if (!checked.empty()) out += "checked " + checked;
    if (!words.empty()) out += (checked.empty() ? "" : "; ") + std::string("in words ") + words;
    return out;
}

/// Typestates and the Mealy machines they generalise: spec::diff_specs, learn_spec, check_spec.
class TypestateKind final : public SpecKind {
public:
    [[nodiscard]] DocumentKind id() const noexcept override { return DocumentKind::Typestate; }
    [[nodiscard]] std::string_view noun() const noexcept override { return "typestate"; }

    [[nodiscard]] std::string summary(const Document& d) const override {
        if (d.spec)
            return std::to_string(d.spec->typestate.states.size()) + " states, B=" +
                   std::to_string(d.spec->bounds.distinguisher) + partition_guards_summary(*d.spec);
        return "Mealy machine: " + std::to_string(d.machine->num_states()) + " states";
    }

    [[nodiscard]] std::string export_text(const Document& d, ExportFormat format) const override {
        if (!d.spec)
            throw std::invalid_argument(d.path + " is a Mealy machine, not a spec: turn it into one with `typestar import " +
                                        d.path + "`");
        const spec::Spec& s = *d.spec;
        switch (format) {
            case ExportFormat::Yaml: return spec::write_spec(s);
            case ExportFormat::Picture: return spec::write_typestate_dot(canonical(s.typestate));
            case ExportFormat::MealyDot:
                return spec::write_mealy_dot(synchronous_closure(canonical(s.typestate)), s.typestate.name);
            case ExportFormat::Json: return spec::write_spec_json(s);
        }
        return {};
    }

    [[nodiscard]] std::size_t default_bound(const Document& d, SuiteMethod method) const override {
        if (method != SuiteMethod::Algorithm2) return 0;
        return d.spec ? d.spec->bounds.distinguisher : 2;
    }

    [[nodiscard]] DocumentDiff diff(const Document& old_document, const Document& new_document, std::size_t,
                                    bool picture) const override {
        const spec::Spec old_spec = spec_for_diff(old_document);
        const spec::Spec new_spec = spec_for_diff(new_document);
        const spec::SpecDiff diff = spec::diff_specs(old_spec, new_spec);
        DocumentDiff out;
        out.same = diff.empty();
        if (picture) out.picture_dot = spec::write_diff_dot(old_spec, new_spec);
        out.text = spec::format_diff(diff);
        if (old_document.spec && new_document.spec) out.json = detail::typestate_diff_json(diff, out.same);
        // Not behaviour, but what every CI run executes: a change of B is said, with the suite sizes.
        // (Only between two specs: a Mealy DOT file declares no bound.)
        if (old_document.spec && new_document.spec)
            if (const std::string b = typestar::bound_change(old_spec, new_spec); !b.empty()) out.text += "\nNote: " + b + ".\n";
        return out;
    }

    [[nodiscard]] std::vector<std::string> proposal_mismatch(const Document& stored,
                                                             const Document& proposal) const override {
        return typestar::proposal_mismatch(spec_for_diff(stored), spec_for_diff(proposal));
    }

    [[nodiscard]] ProposalLoss proposal_loss(const Document& stored, const Document& proposal) const override {
        const spec::SpecDiff diff = spec::diff_specs(spec_for_diff(stored), spec_for_diff(proposal));
        return {stored_states_lost(diff), diff.new_state_count < diff.old_state_count, "states"};
    }

    [[nodiscard]] std::string bound_change(const Document& stored, const Document& proposal) const override {
        if (!stored.spec || !proposal.spec) return {};  // a Mealy DOT file declares no bound
        return typestar::bound_change(*stored.spec, *proposal.spec);
    }

    [[nodiscard]] std::vector<TransitionTest> test_plan(const Document& d) const override {
        return plan_transition_tests(spec_for_diff(d));
    }

    [[nodiscard]] DocumentCheck check(const Document& document, Subject& subject, SuiteMethod method,
                                      std::optional<std::size_t> bound) const override {
        return check_typestate_document(document, subject, method, bound);
    }

    [[nodiscard]] std::unique_ptr<SpecTestRun> test_run(const Document& document, Subject& subject,
                                                        const TestRunOptions& options) const override {
        return detail::typestate_test_run(document, subject, options);
    }

    [[nodiscard]] LearnedDocument learn(Subject& subject, const LearnRequest& request) const override {
        return learn_typestate_document(subject, request);
    }

    [[nodiscard]] std::size_t size(const Document& d) const override {
        return d.spec ? d.spec->typestate.states.size() : d.machine->num_states();
    }
    [[nodiscard]] DeviceKind device_kind() const noexcept override { return DeviceKind::Typestate; }
    [[nodiscard]] DocumentProposal propose(const DocumentProposalRequest& request) const override {
        return detail::propose_typestate(request);
    }
    [[nodiscard]] bool explains(const Document& proposal, const TestResult& failure, SpecTestRun& run) const override {
        return detail::typestate_explains(proposal, failure, run);
    }
    [[nodiscard]] std::string answer_word(const TestResult& failure, SpecTestRun& run) const override {
        return detail::typestate_answer_word(failure, run);
    }
    [[nodiscard]] std::string changes(const DocumentProposal& proposal, const TransitionTest& test) const override {
        return detail::typestate_changes(proposal, test);
    }
    [[nodiscard]] AcceptedProposal accept(const Document* stored, const Document& proposal,
                                          const AcceptNames& names) const override {
        return detail::accept_typestate(stored, proposal, names);
    }
};

/// Register automata: their YAML or RALib XML, separating data words, SL*, the generalised suite.
class RegisterAutomatonKind final : public SpecKind {
public:
    [[nodiscard]] DocumentKind id() const noexcept override { return DocumentKind::RegisterAutomaton; }
    [[nodiscard]] std::string_view noun() const noexcept override { return "register automaton"; }

    [[nodiscard]] std::string summary(const Document& d) const override {
        const ra::RegisterAutomaton& a = d.automaton->automaton;
        return "register automaton: " + std::to_string(a.locations.size()) + " locations, " +
               std::to_string(a.max_registers()) + " registers at most, " + std::to_string(a.num_transitions()) +
               " transitions";
    }

    [[nodiscard]] std::string export_text(const Document& d, ExportFormat format) const override {
        switch (format) {
            case ExportFormat::Yaml: {
                if (d.format != DocumentFormat::RalibXml) return ra::write_register_spec(*d.automaton);
                ra::RaSpec r = *d.automaton;
                r.provenance["imported_from"] = d.path;
                return ra::write_register_spec(r);
            }
            case ExportFormat::Picture: return ra::write_register_dot(d.automaton->automaton);
            case ExportFormat::MealyDot:
            case ExportFormat::Json: break;
        }
        throw std::invalid_argument(d.path + " is a register automaton: --format " +
                                    (format == ExportFormat::Json ? "json" : "mealy-dot") +
                                    " is for typestates (use yaml, dot or svg)");
    }

    [[nodiscard]] std::size_t default_bound(const Document& d, SuiteMethod method) const override {
        return method == SuiteMethod::Algorithm2 ? d.automaton->distinguisher : 0;
    }

    [[nodiscard]] DocumentDiff diff(const Document& old_document, const Document& new_document, std::size_t depth,
                                    bool picture) const override {
        if (picture)
            throw std::invalid_argument("--picture is for typestates; draw each register automaton with `export --format svg`");
        return diff_register_automata(old_document, new_document, depth);
    }

    [[nodiscard]] std::vector<std::string> proposal_mismatch(const Document& stored,
                                                             const Document& proposal) const override {
        return typestar::proposal_mismatch(*stored.automaton, *proposal.automaton);
    }

    [[nodiscard]] ProposalLoss proposal_loss(const Document& stored, const Document& proposal) const override {
        const std::size_t before = stored.automaton->automaton.locations.size();
        const std::size_t after = proposal.automaton->automaton.locations.size();
        if (after >= before) return {{}, false, "locations"};
        return {"the proposal has " + std::to_string(after) + " locations, the stored spec " + std::to_string(before),
                true, "locations"};
    }

    [[nodiscard]] std::string bound_change(const Document& stored, const Document& proposal) const override {
        const std::size_t before = stored.automaton->distinguisher, after = proposal.automaton->distinguisher;
        if (before == after) return {};
        return "the distinguisher bound changes from B=" + std::to_string(before) + " to B=" + std::to_string(after);
    }

    [[nodiscard]] std::vector<TransitionTest> test_plan(const Document& d) const override {
        return plan_register_tests(d.automaton->automaton);
    }

    [[nodiscard]] DocumentCheck check(const Document& document, Subject& subject, SuiteMethod method,
                                      std::optional<std::size_t> bound) const override {
        return check_register_document(document, subject, method, bound);
    }

    [[nodiscard]] std::unique_ptr<SpecTestRun> test_run(const Document& document, Subject& subject,
                                                        const TestRunOptions& options) const override {
        return detail::register_test_run(document, subject, options);
    }

    [[nodiscard]] LearnedDocument learn(Subject& subject, const LearnRequest& request) const override {
        return learn_register_document(subject, request);
    }

    [[nodiscard]] std::size_t size(const Document& d) const override { return d.automaton->automaton.locations.size(); }
    [[nodiscard]] DeviceKind device_kind() const noexcept override { return DeviceKind::Data; }
    [[nodiscard]] DocumentProposal propose(const DocumentProposalRequest& request) const override {
        return detail::propose_register(request);
    }
    [[nodiscard]] bool explains(const Document& proposal, const TestResult& failure, SpecTestRun&) const override {
        return detail::register_explains(proposal, failure);
    }
    [[nodiscard]] std::string answer_word(const TestResult&, SpecTestRun&) const override { return {}; }
    [[nodiscard]] std::string changes(const DocumentProposal&, const TransitionTest&) const override { return {}; }
    [[nodiscard]] AcceptedProposal accept(const Document* stored, const Document& proposal,
                                          const AcceptNames& names) const override {
        return detail::accept_register(stored, proposal, names);
    }
};

}  // namespace

const SpecKind& spec_kind(DocumentKind id) noexcept {
    static const TypestateKind typestate;
    static const RegisterAutomatonKind register_automaton;
    if (id == DocumentKind::RegisterAutomaton) return register_automaton;
    if (id == DocumentKind::Typestate) return typestate;
    const SpecKind* registered = detail::registered_kind(id);
    return registered != nullptr ? *registered : typestate;
}

const SpecKind& kind_of(const Document& document) noexcept { return spec_kind(document.kind()); }

const SpecKind& kind_of(const Subject& subject) noexcept { return spec_kind(subject.kind()); }

std::size_t document_bound(const Document& document, SuiteMethod method) {
    return kind_of(document).default_bound(document, method);
}

std::string document_summary(const Document& d) { return kind_of(d).summary(d); }

std::string export_document(const Document& d, ExportFormat format) { return kind_of(d).export_text(d, format); }

DocumentDiff diff_documents(const Document& old_document, const Document& new_document, std::size_t depth,
                            bool picture) {
    const SpecKind& kind = kind_of(old_document);
    if (kind_of(new_document).id() != kind.id()) {
        const bool old_ra = kind.id() == DocumentKind::RegisterAutomaton;
        throw std::invalid_argument("cannot compare a register automaton with a typestate: " +
                                    (old_ra ? old_document.path : new_document.path) + " is a register automaton, " +
                                    (old_ra ? new_document.path : old_document.path) + " is not");
    }
    return kind.diff(old_document, new_document, depth, picture);
}

Subject open_subject(const std::string& url, const DeviceOptions& options) {
    Subject s;
    s.url = url;
    s.device = open_device(url, options, DeviceKind::Any);  // one opening: the URL says the kind
    const std::string model_scheme = "model:";
    if (url.rfind(model_scheme, 0) == 0) {
        s.model = load_document(url.substr(model_scheme.size()));  // the truth the simulation runs
        s.name = s.model->name;
    } else if (s.device.data) {
        s.name = s.device.data->signature().name;
    } else {
        s.name = s.device.typestate->describe().class_name;
        if (s.name.empty()) {
            s.name = s.device.typestate->name();
            if (const auto colon = s.name.find(':'); colon != std::string::npos) s.name = s.name.substr(colon + 1);
        }
    }
    return s;
}

DocumentCheck check_document(const Document& document, Subject& subject, SuiteMethod method,
                             std::optional<std::size_t> bound) {
    return kind_of(document).check(document, subject, method, bound);
}

LearnedDocument learn_document(Subject& subject, const LearnRequest& request) {
    return kind_of(subject).learn(subject, request);
}

}  // namespace typestar
