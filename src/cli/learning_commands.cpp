// Learning and conformance subcommands: learn, check, suite.
// Design note: this is the edge where files become machines (a spec's synchronous closure or a DOT
// Mealy machine) and devices are opened from `--device` strings; everything below works on
// MealyMachine values and the Device interface. Output is deterministic except timings.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "ra_commands.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/translate.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/data_device.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/session/refinement.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar::cli {
namespace {

namespace fs = std::filesystem;

std::string lower_extension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

bool is_dot(const std::string& path) {
    const std::string ext = lower_extension(path);
    return ext == ".dot" || ext == ".gv";
}

/// A spec name made from a file's stem.
std::string name_from(const std::string& path) { return spec::sanitize_name(fs::path(path).stem().string()); }

/// A machine from a file: a YAML spec's synchronous closure, or a DOT Mealy machine.
struct LoadedModel {
    MealyMachine machine;
    std::string name;                 // the spec's name, or the file's stem
    std::optional<spec::Spec> spec;   // for YAML files
};

LoadedModel load_model(const std::string& path) {
    if (is_dot(path)) {
        MealyMachine m = spec::load_mealy_dot(path);  // SpecError: main prints the diagnostics
        return LoadedModel{std::move(m), name_from(path), std::nullopt};
    }
    spec::Spec s = spec::load_spec(path);
    MealyMachine m = synchronous_closure(s.typestate);
    std::string name = s.typestate.name;
    return LoadedModel{std::move(m), std::move(name), std::move(s)};
}

/// An opened `--device`: `model:PATH` (which also knows its true machine, for the perfect oracle),
/// or any URL of the device factory (`inproc:NAME`, `http://HOST:PORT`).
struct OpenedDevice {
    std::unique_ptr<Device> device;
    std::optional<MealyMachine> truth;  // known for model devices
    std::string name;                   // spec name or file stem, for the learned spec
};

OpenedDevice open_device(const std::string& text) {
    const std::string model_scheme = "model:";
    if (text.rfind(model_scheme, 0) == 0 && text.size() > model_scheme.size()) {
        LoadedModel model = load_model(text.substr(model_scheme.size()));
        // A simulation declares only what the file declares (never read off the machine).
        auto device = model.spec ? std::make_unique<ModelDevice>(model.machine, text, spec::declared_traits(*model.spec))
                                 : std::make_unique<ModelDevice>(model.machine, text);
        return OpenedDevice{std::move(device), std::move(model.machine), std::move(model.name)};
    }
    std::unique_ptr<Device> device;
    try {
        device = make_device(text);  // DeviceError (unreachable agent): main reports it
    } catch (const std::invalid_argument& e) {
        print_error(e.what());  // names the device and the kinds it knows
        exit_with(kExitBadInput);
    }
    std::string name = device->describe().class_name;
    if (name.empty()) {
        name = device->name();
        if (const auto colon = name.find(':'); colon != std::string::npos) name = name.substr(colon + 1);
    }
    return OpenedDevice{std::move(device), std::nullopt, std::move(name)};
}

std::optional<SuiteMethod> method_of(const std::string& name) {
    if (name == "alg2") return SuiteMethod::Algorithm2;
    if (name == "wp") return SuiteMethod::Wp;
    if (name == "w") return SuiteMethod::W;
    return std::nullopt;
}

const char* method_title(SuiteMethod m) {
    switch (m) {
        case SuiteMethod::Algorithm2: return "DroidStar Algorithm 2";
        case SuiteMethod::W: return "W-method";
        case SuiteMethod::Wp: return "Wp-method";
    }
    return "?";
}

std::string bound_text(SuiteMethod m, std::size_t bound) {
    return m == SuiteMethod::Algorithm2 ? "distinguisher bound B=" + std::to_string(bound)
                                        : std::to_string(bound) + " extra states";
}

// ---- learn ------------------------------------------------------------------------------------

struct LearnArgs {
    std::string device;
    std::string learner = "lsharp";
    std::optional<std::size_t> states;
    std::string bound = "2";
    std::uint64_t budget = EquivalenceOptions{}.budget;
    std::string equivalence = "alg2";
    std::string from;
    std::string out;
    std::string stats;
    std::size_t instantiations = RefinementOptions{}.instantiations;
    std::size_t refinements = RefinementOptions{}.max_refinements;
    std::size_t repeats = RefinementOptions{}.repeats;
    bool budget_given = false;
};

/// The evidence lines after `learn` (plain and refined): the bound as used, the quiet-declared line,
/// the machine's own distinguisher bound and the tight-bound warning.
void print_learn_evidence(const LearnedSpec& learned, std::optional<SuiteMethod> method, std::size_t bound,
                          std::optional<std::size_t> states, const std::string& where = {}) {
    if (method) {
        std::cerr << "typestar: no counterexample from " << method_title(*method) << " ("
                  << (states ? "devices with at most " + std::to_string(*states) + " states (absolute --states)"
                             : bound_text(*method, method == SuiteMethod::Algorithm2 ? learned.bound : bound) +
                                   (method == SuiteMethod::Algorithm2 ? "" : " (relative to each hypothesis)"))
                  << ")" << where << ": bounded evidence, not a proof. The learned spec relies on:\n"
                  << assumptions_block(learned.assumptions, "typestar:   ");
    }
    if (method == SuiteMethod::Algorithm2) {
        std::cerr << "typestar: the learned machine's own distinguisher bound is " << learned.machine_bound << " (B="
                  << learned.bound << ")\n";
        if (learned.bound_tight) std::cerr << "typestar: " << tight_bound_warning(learned) << "\n";
    }
}

/// `learn` on a device that declares parameterised callins: alphabet refinement over its partitions.
void run_refined_learn(const LearnArgs& o, const OpenedDevice& opened, const LearnOptions& options) {
    if (!o.from.empty()) {
        print_error("--from cannot seed learning over partitions that refinement changes (" + o.device +
                    " declares parameterised callins)");
        exit_with(kExitBadInput);
    }
    RefinementOptions refine;
    refine.instantiations = o.instantiations;
    refine.max_refinements = o.refinements;
    refine.repeats = o.repeats;
    const RefinedSpec r = learn_with_refinement(*opened.device, options, refine);
    const LearnedSpec& learned = r.learned;
    if (!o.stats.empty())
        spec::write_file_atomically(
            o.stats, stats_json(learned.stats, learned.machine.num_states(), learned.seconds).dump(2) + "\n");
    if (!o.out.empty()) {
        if (is_dot(o.out)) spec::write_file_atomically(o.out, spec::write_mealy_dot(learned.machine, opened.name));
        else spec::write_file_atomically(o.out, r.text);
    } else {
        std::cout << r.text << std::flush;
    }
    const RefinementReport& rep = r.report;
    std::cerr << "typestar: learned " << learned.spec->typestate.states.size() << " typestate states over partitions with "
              << learned.learner << ": alphabet " << rep.initial_alphabet << " -> " << rep.final_alphabet << " inputs, "
              << rep.refinements.size() << " refinement" << (rep.refinements.size() == 1 ? "" : "s") << ", "
              << rep.unknown_transitions << " unknown transition" << (rep.unknown_transitions == 1 ? "" : "s") << "\n";
    for (const auto& rec : rep.refinements) {
        std::cerr << "typestar:   " << rec.callin << "[" << rec.from << "] split after '" << rec.split_by << "' into";
        for (const auto& i : rec.into) std::cerr << " " << i;
        std::cerr << "\n";
    }
    std::cerr << "typestar: concrete runs: " << rep.concrete_requested << " asked (without the cache), "
              << rep.concrete_executed << " executed (" << rep.concrete_rechecked << " of them re-checks past the cache), "
              << rep.reused_across_refinements
              << " answered by runs from before a refinement\n";
    print_learn_evidence(learned, options.equivalence.method, options.equivalence.bound, std::nullopt,
                         " on the last alphabet");
    if (const std::string sampled = values_sampled(learned.spec->declarations); !sampled.empty())
        std::cerr << "typestar: assumed: " << sampled << "\n";
    if (!rep.values_from_code.empty()) std::cerr << "typestar: assumed: " << rep.values_from_code << "\n";
}

void run_learn(const LearnArgs& o) {
    const auto method = o.equivalence == "perfect" ? std::optional<SuiteMethod>() : method_of(o.equivalence);
    if (o.equivalence != "perfect" && !method) {
        print_error("unknown --equivalence '" + o.equivalence + "' (alg2, wp or perfect)");
        exit_with(kExitBadInput);
    }
    if (!o.out.empty() && !is_dot(o.out) && lower_extension(o.out) != ".yaml" && lower_extension(o.out) != ".yml") {
        print_error("--out must end in .yaml, .yml or .dot: " + o.out);
        exit_with(kExitBadInput);
    }
    if (is_data_device_url(o.device)) {  // a register automaton (issue 18)
        if (o.learner != "lsharp" || o.equivalence != "alg2" || o.states || !o.from.empty() || o.bound == "auto") {
            print_error("a data device is learned as a register automaton with the SL*-style learner: --learner, "
                        "--equivalence, --states, --from and --bound auto do not apply");
            exit_with(kExitBadInput);
        }
        RaLearnArgs ra;
        ra.device = o.device;
        try {
            std::size_t used = 0;
            ra.bound = std::stoul(o.bound, &used);
            if (used != o.bound.size()) throw std::invalid_argument(o.bound);
        } catch (const std::exception&) {
            print_error("--bound takes a number, found '" + o.bound + "'");
            exit_with(kExitBadInput);
        }
        ra.budget = o.budget_given ? static_cast<std::size_t>(o.budget) : 0;
        ra.out = o.out;
        ra.out_is_dot = !o.out.empty() && is_dot(o.out);
        ra.stats = o.stats;
        run_ra_learn(ra);
        return;
    }
    const bool auto_bound = o.bound == "auto";
    std::size_t bound = 2;
    if (!auto_bound) {
        try {
            std::size_t used = 0;
            bound = std::stoul(o.bound, &used);
            if (used != o.bound.size()) throw std::invalid_argument(o.bound);
        } catch (const std::exception&) {
            print_error("--bound takes a number or 'auto', found '" + o.bound + "'");
            exit_with(kExitBadInput);
        }
    }
    if (o.states && (!method || method == SuiteMethod::Algorithm2)) {
        print_error("--states is an absolute state bound for --equivalence wp or w");
        exit_with(kExitBadInput);
    }
    if (auto_bound && method != SuiteMethod::Algorithm2) {
        print_error("--bound auto raises Algorithm 2's distinguisher bound: use it with --equivalence alg2");
        exit_with(kExitBadInput);
    }
    OpenedDevice opened = open_device(o.device);
    Device& device = *opened.device;
    if (!method && !opened.truth) {
        print_error("--equivalence perfect needs a model device (model:PATH): only a model knows the truth");
        exit_with(kExitBadInput);
    }

    LearnOptions options;
    options.name = opened.name;
    options.device_label = o.device;
    if (o.budget_given) options.max_queries = o.budget;  // a hard cap from the first query
    if (const auto kind = parse_learner(o.learner)) {
        options.learner = *kind;
    } else {
        print_error("unknown --learner '" + o.learner + "' (lstar or lsharp)");
        exit_with(kExitBadInput);
    }
    if (method) {
        options.equivalence.method = *method;
        options.equivalence.bound = bound;
        options.equivalence.extra_states = o.states ? 0 : bound;  // --states replaces --bound (AALpy's m = n)
        options.equivalence.auto_bound = auto_bound;
        options.equivalence.state_bound = o.states;
        options.equivalence.budget = o.budget;
    } else {
        options.equivalence.perfect = *opened.truth;
    }
    const PartitionPlan plan = plan_partitions(device, nullptr);  // refine or not: decided in the session
    if (!o.from.empty() && !plan.refine) {
        LoadedModel seed = load_model(o.from);
        try {
            (void)over_alphabets(seed.machine, device.inputs(), device.outputs());
        } catch (const std::invalid_argument& e) {
            print_error(o.from + ": " + e.what());
            exit_with(kExitBadInput);
        }
        options.seed = std::move(seed.machine);
    }
    // One progress line per round comes from the experiment loop (typestar.learn, level info).
    if (plan.refine) {
        if (!method || auto_bound || options.equivalence.method != SuiteMethod::Algorithm2) {
            print_error(o.device + " declares parameterised callins: learning refines their partitions with "
                        "--equivalence alg2 and a fixed --bound");
            exit_with(kExitBadInput);
        }
        run_refined_learn(o, opened, options);
        return;
    }

    Device* devices[] = {&device};
    const LearnedSpec learned = learn_spec(devices, options);
    const MealyMachine& machine = learned.machine;
    const auto& learned_spec = learned.spec;

    // Everything that can fail is written before --out, so a failing command leaves --out untouched.
    if (!o.stats.empty())
        spec::write_file_atomically(o.stats, stats_json(learned.stats, machine.num_states(), learned.seconds).dump(2) + "\n");
    if (!o.out.empty()) {
        if (is_dot(o.out)) {
            spec::write_file_atomically(o.out, spec::write_mealy_dot(machine, opened.name));
        } else if (learned_spec) {
            spec::save_spec(*learned_spec, o.out);
        } else {
            print_error("the learned machine is not a synchronous closure (" + learned.not_a_closure +
                        "); write it with --out FILE.dot");
            exit_with(kExitBadInput);
        }
    } else {
        std::cout << (learned_spec ? spec::write_spec(*learned_spec) : spec::write_mealy_dot(machine, opened.name))
                  << std::flush;
    }

    const PhaseCounts t = learned.stats.total();
    std::string what = std::to_string(machine.num_states()) + " states";
    if (learned_spec) {
        const std::size_t typestate_states = learned_spec->typestate.states.size();
        what = std::to_string(typestate_states) + " typestate states";
        if (typestate_states < machine.num_states()) what += " (Mealy machine: + the err sink)";
    }
    std::cerr << "typestar: learned " << what << " with " << learned.learner << " in " << learned.rounds << " round"
              << (learned.rounds == 1 ? "" : "s") << ": " << t.queries_executed << " queries executed ("
              << learned.stats.learning.queries_executed << " learning, " << learned.stats.equivalence.queries_executed
              << " equivalence, " << learned.stats.verification.queries_executed << " verification), "
              << t.queries_asked << " asked, " << t.symbols_executed << " symbols, "
              << t.waits_executed << " waits, " << std::fixed << std::setprecision(3) << learned.seconds << " s\n";
    if (!learned.bound_note.empty()) std::cerr << "typestar: --bound auto: " << learned.bound_note << "\n";
    const bool remote = o.device.rfind("http", 0) == 0 || o.device.rfind("exec:", 0) == 0;
    if (remote && !learned.flake_note.empty()) std::cerr << "typestar: " << learned.flake_note << "\n";
    print_learn_evidence(learned, method, bound, o.states);
}

// ---- check ------------------------------------------------------------------------------------

struct CheckArgs {
    std::string spec;
    std::string device;
    std::optional<std::size_t> bound;
    std::string method = "alg2";
};

void run_check(const CheckArgs& o) {
    const auto method = method_of(o.method);
    if (!method) {
        print_error("unknown --method '" + o.method + "' (alg2 or wp)");
        exit_with(kExitBadInput);
    }
    if (is_register_automaton_file(o.spec)) {  // the generalised suite (issue 18)
        if (*method != SuiteMethod::Algorithm2) {
            print_error("a register automaton is checked with the generalised Algorithm 2 suite: --method " + o.method +
                        " does not apply");
            exit_with(kExitBadInput);
        }
        run_ra_check(o.spec, o.device, o.bound);
        return;
    }
    const LoadedModel model = load_model(o.spec);
    const std::size_t bound = o.bound ? *o.bound
                                      : (model.spec && *method == SuiteMethod::Algorithm2 ? model.spec->bounds.distinguisher
                                                                                          : (*method == SuiteMethod::Algorithm2 ? 2 : 0));
    OpenedDevice opened = open_device(o.device);
    PartitionPlan plan;  // a spec with partitions over a parameterised device: run with their values
    CheckOptions options;
    options.method = *method;
    options.bound = bound;
    std::optional<CheckReport> ran;
    try {
        plan = plan_partitions(*opened.device, model.spec ? &*model.spec : nullptr);
        Device* devices[] = {&plan.device(*opened.device)};
        // The session's one check: suite, unknown transitions cut, run, timing and quiet checks, assumptions.
        ran.emplace(model.spec ? check_spec(*model.spec, devices, options) : check_spec(model.machine, devices, options));
    } catch (const PartitionError& e) {  // values of one of the spec's partitions answer differently
        std::cout << "counterexample: " << o.device << " does not conform to " << model.name << ": " << e.what() << "\n";
        exit_with(kExitFinding);
    } catch (const std::invalid_argument& e) {  // the device's inputs are not the spec's
        print_error(o.spec + " and " + o.device + ": " + e.what());
        exit_with(kExitBadInput);
    }
    CheckReport& report = *ran;
    if (plan.partitioned)
        if (std::string sampled = values_sampled(plan.partitioned->declarations_run()); !sampled.empty())
            report.assumptions.push_back(std::move(sampled));
    const PhaseCounts t = report.stats.total();
    if (report.verdict == Verdict::Pass) {
        std::cout << "conforms: " << o.device << " passed all " << report.tests << " tests of the "
                  << method_title(*method) << " suite of " << model.name << " (" << bound_text(*method, bound) << ").\n"
                  << evidence_note(report);
        std::cerr << "typestar: " << t.queries_executed << " queries executed, " << t.waits_executed << " waits\n";
        return;
    }
    const Counterexample& cex = *report.counterexample;
    std::cout << "counterexample: " << o.device << " does not conform to " << model.name << " (test "
              << *cex.test_case + 1 << " of " << report.tests << ": " << cex.purpose << ")\n"
              << format_trace(report.trace);
    std::cerr << "typestar: " << t.queries_executed << " queries executed, " << t.waits_executed << " waits\n";
    exit_with(kExitFinding);
}

// ---- suite ------------------------------------------------------------------------------------

struct SuiteArgs {
    std::string spec;
    std::optional<std::size_t> bound;
    std::string method = "alg2";
    std::string format = "text";
};

/// The additive `test_suite` and `transitions` fields of `suite --format json` for a spec: its tests
/// as the gtest plugin names them (`<Spec>.<State>_<symbol>`, gtest/plan.hpp) and, per transition,
/// the indices of the words in `tests` that check it (the plugin's assign_cases); a transition with
/// none runs `word` (its access word and input) alone. For runners in other languages.
void print_suite_transitions(const spec::Spec& spec, const MealyMachine& machine, const TestSuite& suite) {
    std::vector<Word> access;
    for (const auto& w : access_sequences(machine)) access.push_back(w.value_or(Word{}));  // unreachable: unused
    const auto groups = typestar::assign_cases(machine, access, suite);
    std::cout << ",\n  \"test_suite\": " << nlohmann::json(typestar::suite_identifier(spec)).dump() << ",\n  \"transitions\": [";
    bool first = true;
    std::map<std::string, StateId> state_of;
    for (StateId q = 0; q < machine.num_states(); ++q) state_of.emplace(machine.state_name(q), q);
    for (const auto& t : typestar::plan_transition_tests(spec)) {
        const auto found = state_of.find(t.state);
        const auto i = machine.inputs().find(t.input);
        if (found == state_of.end() || !i) continue;
        const StateId q = found->second;
        const auto& group = groups[q * machine.num_inputs() + *i];
        nlohmann::json j{{"name", t.name}, {"state", t.state}, {"input", t.input}, {"line", t.line}, {"tests", group}};
        if (group.empty()) {
            Word w = access[q];
            w.push_back(*i);
            j["word"] = {{"inputs", names_of(w, machine.inputs())}, {"expected", names_of(machine.outputs_of(w), machine.outputs())}};
            std::vector<std::string> states;  // additive: the spec's state before each input
            for (StateId s = machine.initial(); const Symbol a : w) {
                states.push_back(machine.state_name(s));
                s = machine.successor(s, a);
            }
            j["word"]["states"] = states;
        }
        // Additive (the node:test runner): the transition's output and target (a runner walks the
        // spec with them), the access word of its state, and why it is unknown (three-valued specs).
        j["output"] = machine.outputs().name(machine.output(q, *i));
        j["target"] = machine.state_name(machine.successor(q, *i));
        j["access"] = names_of(access[q], machine.inputs());
        const auto state = spec.typestate.find_state(t.state);
        const auto callin = std::find(spec.typestate.callins.begin(), spec.typestate.callins.end(), t.input);
        if (state && callin != spec.typestate.callins.end())
            if (const Unknown* u = spec.typestate.unknown_at(*state, static_cast<std::size_t>(callin - spec.typestate.callins.begin())))
                j["unknown"] = std::string(to_string(u->source)) + (u->reason.empty() ? "" : ": " + u->reason);
        std::cout << (first ? "\n    " : ",\n    ") << j.dump();
        first = false;
    }
    std::cout << (first ? "]" : "\n  ]");
}

void run_suite_command(const SuiteArgs& o) {
    const auto method = method_of(o.method);
    if (!method) {
        print_error("unknown --method '" + o.method + "' (alg2 or wp)");
        exit_with(kExitBadInput);
    }
    if (o.format != "text" && o.format != "json") {
        print_error("unknown --format '" + o.format + "' (text or json)");
        exit_with(kExitBadInput);
    }
    if (is_register_automaton_file(o.spec)) {
        print_error(o.spec + " is a register automaton: its generalised Algorithm 2 suite is built on the device "
                             "(words use the device's output values), so it cannot be printed ahead; run it with "
                             "`typestar check " + o.spec + " --device URL`");
        exit_with(kExitBadInput);
    }
    const LoadedModel model = load_model(o.spec);
    const std::size_t bound = o.bound ? *o.bound
                                      : (model.spec && *method == SuiteMethod::Algorithm2 ? model.spec->bounds.distinguisher
                                                                                          : (*method == SuiteMethod::Algorithm2 ? 2 : 0));
    SuiteConfig config;
    config.method = *method;
    config.bound = bound;
    config.extra_states = bound;
    // Streamed: the generator yields one case at a time, so memory does not grow with the suite.
    const Alphabet& inputs = model.machine.inputs();
    const Alphabet& outputs = model.machine.outputs();
    const auto wait = inputs.find(kWait);
    auto waits_of = [&](const Word& w) {
        return wait ? static_cast<std::size_t>(std::count(w.begin(), w.end(), *wait)) : std::size_t{0};
    };
    std::size_t tests = 0;
    std::size_t symbols = 0;
    std::size_t waits = 0;
    if (o.format == "json") {
        // Keys in a fixed order, counts after the tests (known only at the end); each test on one line.
        std::cout << "{\n  \"spec\": " << nlohmann::json(model.name).dump() << ",\n  \"method\": "
                  << nlohmann::json(method_name(*method)).dump() << ",\n  \"bound\": " << bound
                  << ",\n  \"inputs\": " << nlohmann::json(inputs.names()).dump() << ",\n  \"tests\": [";
        SuiteGenerator generator(model.machine, config);
        TestSuite kept;  // a spec's words, for grouping them by transition below
        while (auto c = generator.next()) {
            nlohmann::json t{{"inputs", names_of(c->inputs, inputs)},
                             {"expected", names_of(c->expected, outputs)},
                             {"purpose", c->purpose}};
            if (model.spec) {  // additive: the spec's state before each input (for aligned traces)
                std::vector<std::string> states;
                StateId q = model.machine.initial();
                for (const Symbol i : c->inputs) {
                    states.push_back(model.machine.state_name(q));
                    q = model.machine.successor(q, i);
                }
                t["states"] = states;
            }
            std::cout << (tests == 0 ? "\n    " : ",\n    ") << t.dump();
            ++tests;
            symbols += c->inputs.size();
            waits += waits_of(c->inputs);
            if (model.spec) kept.cases.push_back(std::move(*c));
        }
        std::cout << (tests == 0 ? "]" : "\n  ]") << ",\n  \"symbols\": " << symbols << ",\n  \"waits\": " << waits;
        if (model.spec) print_suite_transitions(*model.spec, model.machine, kept);
        std::cout << "\n}\n";
        return;
    }
    {  // First pass: the header's totals.
        SuiteGenerator counting(model.machine, config);
        while (auto c = counting.next()) {
            ++tests;
            symbols += c->inputs.size();
            waits += waits_of(c->inputs);
        }
    }
    std::cout << "# " << method_title(*method) << " suite of " << model.name << " (" << bound_text(*method, bound)
              << "): " << tests << " tests, " << symbols << " inputs, " << waits << " waits\n";
    SuiteGenerator generator(model.machine, config);
    std::size_t i = 0;
    while (auto c = generator.next())
        std::cout << ++i << ": " << to_string(c->inputs, inputs) << " -> " << to_string(c->expected, outputs)
                  << "  # " << c->purpose << '\n';
}

}  // namespace

nlohmann::json stats_json(const QueryStats& s, std::size_t states, double seconds) {
    const PhaseCounts t = s.total();
    nlohmann::json j;
    j["states"] = states;
    j["queries_asked"] = t.queries_asked;
    j["queries_executed"] = t.queries_executed;
    j["symbols_executed"] = t.symbols_executed;
    j["waits_executed"] = t.waits_executed;
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


void register_learning_commands(CLI::App& app) {
    {
        auto o = std::make_shared<LearnArgs>();
        auto* cmd = app.add_subcommand("learn", "Learn a device's callback typestate (L# by default, or L*; DroidStar Algorithm 2 as equivalence oracle).");
        cmd->add_option("--device", o->device, "the device: model:PATH (a .yaml spec, a .dot Mealy machine, or a register automaton: a kind: register-automaton .yaml or RALib .xml), inproc:NAME, http://HOST:PORT, or exec:TEST_BINARY#SPEC (a gtest binary serving its registered device)")->required();
        cmd->add_option("--bound", o->bound, "distinguisher bound B for alg2 (a number, or 'auto': raise B while the learned machine needs all of it, within --budget), extra states for wp (default 2)");
        cmd->add_option("--states", o->states, "wp/w: an absolute bound on the device's states (instead of --bound extra states)");
        cmd->add_option("--budget", o->budget, "a hard cap on executed queries, counted from the first query (exit 2 when it runs out before a result); --bound auto does not raise B past what it allows (default: no cap; auto's estimate limit 3000000)");
        cmd->add_option("--learner", o->learner, "lsharp (L#, the default: fewer device queries) or lstar (L*, DroidStar Algorithm 1)");
        cmd->add_option("--equivalence", o->equivalence, "equivalence oracle: alg2 (default), wp, or perfect (model devices)");
        cmd->add_option("--from", o->from, "seed learning with an old spec (.yaml) or Mealy machine (.dot)");
        cmd->add_option("--out", o->out, "write the learned spec (.yaml) or Mealy machine (.dot) here, atomically; default: stdout");
        cmd->add_option("--stats", o->stats, "write query statistics as JSON here");
        cmd->add_option("--instantiations", o->instantiations, "devices with parameterised callins: concrete runs per abstract query, each with other values (default 3)");
        cmd->add_option("--refinements", o->refinements, "devices with parameterised callins: most partition splits; a disagreement after that is an unknown transition (default 8)");
        cmd->add_option("--repeats", o->repeats, "devices with parameterised callins: runs of each concrete word the cache cannot answer; differing answers are a non-determinism error naming the word and every answer (default 1)");
        auto* budget = cmd->get_option("--budget");
        cmd->callback([o, budget] {
            o->budget_given = budget->count() > 0;
            run_learn(*o);
        });
    }
    {
        auto o = std::make_shared<CheckArgs>();
        auto* cmd = app.add_subcommand(
            "check", "Test a device against a spec (exit 0 conforms up to the bound, 1 counterexample, 2 bad input).");
        cmd->add_option("spec", o->spec, "the spec (.yaml) or Mealy machine (.dot)")->required();
        cmd->add_option("--device", o->device, "the device: model:PATH, inproc:NAME, http://HOST:PORT or exec:TEST_BINARY#SPEC")->required();
        cmd->add_option("--bound", o->bound, "distinguisher bound B for alg2 (default: the spec's), extra states for wp (default 0)");
        cmd->add_option("--method", o->method, "suite: alg2 (default) or wp");
        cmd->callback([o] { run_check(*o); });
    }
    {
        auto o = std::make_shared<SuiteArgs>();
        auto* cmd = app.add_subcommand("suite", "Print a spec's conformance test suite.");
        cmd->add_option("spec", o->spec, "the spec (.yaml) or Mealy machine (.dot)")->required();
        cmd->add_option("--bound", o->bound, "distinguisher bound B for alg2 (default: the spec's), extra states for wp (default 0)");
        cmd->add_option("--method", o->method, "suite: alg2 (default) or wp");
        cmd->add_option("--format", o->format, "text (default) or json");
        cmd->callback([o] { run_suite_command(*o); });
    }
}

}  // namespace typestar::cli
