// Learning and conformance subcommands: learn, check, suite.
// Design note: the tool parses options, calls the session's front door (typestar/session/
// document.hpp: load_document, open_subject, learn_document, check_document), prints what it
// returns and writes files; the session chooses the pipeline by kind and words the messages.
// Output is deterministic except timings.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/session/test_run.hpp"
#include "typestar/session/timing_probe.hpp"
#include "typestar/spec/spec.hpp"
#if TYPESTAR_HAVE_RENDER
#include "typestar/render/pictures.hpp"
#endif

namespace typestar::cli {
namespace {

std::optional<SuiteMethod> method_of(const std::string& name) {
    if (name == "alg2") return SuiteMethod::Algorithm2;
    if (name == "wp") return SuiteMethod::Wp;
    if (name == "w") return SuiteMethod::W;
    return std::nullopt;
}

/// `--tmax MS` / `--tmin MS`: the device's timing overridden, for every device kind (recorded in
/// the learned spec's `timing:` and named in the assumptions).
struct TimingArgs {
    std::optional<long long> tmax;
    std::optional<long long> tmin;
};

DeviceOptions device_options(const TimingArgs& t) {
    DeviceOptions options;
    std::string origin;
    for (const auto& [flag, value, field] : {std::tuple{"--tmax", t.tmax, &options.timing.tmax},
                                             std::tuple{"--tmin", t.tmin, &options.timing.tmin}}) {
        if (!value) continue;
        if (*value < 0 || *value > 3'600'000) {
            print_error(std::string(flag) + " takes milliseconds from 0 to 3600000, found " + std::to_string(*value));
            exit_with(kExitBadInput);
        }
        *field = std::chrono::milliseconds(*value);
        origin += (origin.empty() ? "" : " ") + std::string(flag) + " " + std::to_string(*value);
    }
    options.timing.origin = origin;
    return options;
}

void add_timing_options(CLI::App* cmd, TimingArgs& t) {
    cmd->add_option("--tmax", t.tmax, "quiescence timeout in ms over the device's own (every kind; recorded in the spec's timing and the assumptions): a wait answers quiet when no callback came within it");
    cmd->add_option("--tmin", t.tmin, "minimum callback delay in ms over the device's own (every kind; recorded)");
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
    std::vector<std::int64_t> increments;
    std::size_t explore = EquivalenceOptions::kDefaultExploreWordsPerTransition;
    bool budget_given = false;
    bool probe = false;
    TimingArgs timing;
};

void run_learn(const LearnArgs& o) {
    const auto method = o.equivalence == "perfect" ? std::optional<SuiteMethod>() : method_of(o.equivalence);
    if (o.equivalence != "perfect" && !method) {
        print_error("unknown --equivalence '" + o.equivalence + "' (alg2, wp or perfect)");
        exit_with(kExitBadInput);
    }
    if (!o.out.empty() && !is_dot_file(o.out) && lower_extension(o.out) != ".yaml" && lower_extension(o.out) != ".yml") {
        print_error("--out must end in .yaml, .yml or .dot: " + o.out);
        exit_with(kExitBadInput);
    }
    LearnRequest request;
    request.method = method;
    request.auto_bound = o.bound == "auto";
    if (!request.auto_bound) {
        try {
            std::size_t used = 0;
            request.bound = std::stoul(o.bound, &used);
            if (used != o.bound.size()) throw std::invalid_argument(o.bound);
        } catch (const std::exception&) {
            print_error("--bound takes a number or 'auto', found '" + o.bound + "'");
            exit_with(kExitBadInput);
        }
    }
    if (o.states && method != SuiteMethod::W && method != SuiteMethod::Wp) {
        print_error("--states is an absolute state bound for --equivalence wp or w");
        exit_with(kExitBadInput);
    }
    if (request.auto_bound && method != SuiteMethod::Algorithm2) {
        print_error("--bound auto raises Algorithm 2's distinguisher bound: use it with --equivalence alg2");
        exit_with(kExitBadInput);
    }
    if (const auto kind = parse_learner(o.learner)) {
        request.learner = *kind;
    } else {
        print_error("unknown --learner '" + o.learner + "' (lstar or lsharp)");
        exit_with(kExitBadInput);
    }
    request.states = o.states;
    if (o.budget_given) request.budget = o.budget;
    request.from = o.from;
    request.refinement.instantiations = o.instantiations;
    request.refinement.max_refinements = o.refinements;
    request.refinement.repeats = o.repeats;
    request.increments = o.increments;
    request.explore = o.explore;
    if (o.probe) {
        if (o.timing.tmax || o.timing.tmin) {
            print_error("--probe measures tmax and tmin; --tmax/--tmin set them: give one or the other");
            exit_with(kExitBadInput);
        }
        request.probe = TimingProbeOptions{};
    }

    // The session opens the device once and learns it by its kind; std::invalid_argument (options
    // that do not apply, an unknown device) is bad input, reported by main.
    Subject subject = open_subject(o.device, device_options(o.timing));
    const LearnedDocument learned = learn_document(subject, request);

    // Everything that can fail is written before --out, so a failing command leaves --out untouched.
    if (!o.stats.empty()) spec::write_file_atomically(o.stats, learned.stats_json);
    if (!learned.converged) {
        print_error("learning " + o.device + " did not converge: " + learned.failure + " (nothing written)");
        exit_with(kExitFinding);
    }
    if (!o.out.empty()) {
        if (is_dot_file(o.out)) {
            spec::write_file_atomically(o.out, learned.dot);
        } else if (!learned.yaml.empty()) {
            spec::write_file_atomically(o.out, learned.yaml);
        } else {
            print_error("the learned machine is not a synchronous closure (" + learned.not_a_closure +
                        "); write it with --out FILE.dot");
            exit_with(kExitBadInput);
        }
    } else {
        std::cout << (learned.yaml.empty() ? learned.dot : learned.yaml) << std::flush;
    }
    std::cerr << learned.report;
}

// ---- check ------------------------------------------------------------------------------------

struct CheckArgs {
    std::string spec;
    std::string device;
    std::optional<std::size_t> bound;
    std::string bound_text;  // --bound as given: a number, or 'auto' (json)
    std::string method = "alg2";
    std::string format = "text";
    TimingArgs timing;
    bool propose = false;  // json: after a difference (or for a missing spec), write a proposal
    bool update = false;   // json: update mode (the spec itself, keeping its names)
    bool ci = false;       // json: CI (nothing written; beats --update)
    std::string learner = "lsharp";
    std::string device_label;  // json: the proposal's provenance device (a runner's loopback agent)
    std::string bound_from;    // json: who asked for the bound (a first run's summary says so)
};

/// `check --format json`: the session runs every planned test and composes the object the
/// runners read (write_check_json); a run that cannot start is an "error" object too, besides the
/// message on stderr, so that a runner always has JSON to read.
void run_check_json(const CheckArgs& o) {
    if (o.method != "alg2") {
        print_error("--format json runs the spec's tests (DroidStar Algorithm 2): --method " + o.method +
                    " does not apply");
        exit_with(kExitBadInput);
    }
    const auto learner = parse_learner(o.learner);
    if (!learner) {
        print_error("unknown --learner '" + o.learner + "' (lstar or lsharp)");
        exit_with(kExitBadInput);
    }
    CheckJsonOptions options;
    options.bound = o.bound;
    options.auto_bound = o.bound_text == "auto";
    options.proposal = proposal_mode(o.propose, o.update, o.ci);
    options.learner = *learner;
    options.device_label = o.device_label;
    options.bound_from = o.bound_from;
#if TYPESTAR_HAVE_RENDER
    options.pictures = render::write_proposal_pictures;
#endif
    int code = kExitBadInput;
    try {
        std::error_code ec;
        if (options.proposal && !std::filesystem::exists(o.spec, ec)) {  // a runner's first run
            Subject subject = open_subject(o.device, device_options(o.timing));
            code = write_first_run_json(std::cout, o.spec, subject, options);
        } else {
            const Document document = load_document(o.spec);
            Subject subject = open_subject(o.device, device_options(o.timing));
            code = write_check_json(std::cout, document, subject, options);
        }
    } catch (const SpecError& e) {
        std::string text;
        for (const auto& d : e.diagnostics()) text += (text.empty() ? "" : "\n") + d.str();
        std::cerr << text << '\n';
        write_check_error_json(std::cout, o.spec, text);
    } catch (const std::exception& e) {
        print_error(e.what());
        write_check_error_json(std::cout, o.spec, e.what());
    }
    std::cout << std::flush;
    if (code != kExitOk) exit_with(code);
}

void run_check(CheckArgs o) {
    if (o.format != "text" && o.format != "json") {
        print_error("unknown --format '" + o.format + "' (text or json)");
        exit_with(kExitBadInput);
    }
    if (!o.bound_text.empty() && o.bound_text != "auto") {
        try {
            std::size_t used = 0;
            o.bound = std::stoul(o.bound_text, &used);
            if (used != o.bound_text.size() || o.bound_text.front() == '-') throw std::invalid_argument(o.bound_text);
        } catch (const std::exception&) {
            print_error("--bound takes a number" + std::string(o.format == "json" ? " or 'auto'" : "") + ", found '" +
                        o.bound_text + "'");
            exit_with(kExitBadInput);
        }
    }
    if (o.bound_text == "auto" && o.format != "json") {
        print_error("--bound auto applies to --format json (a runner's first run or proposal learns raising B); a "
                    "check runs at a bound: give a number, or none for the spec's");
        exit_with(kExitBadInput);
    }
    if (o.format == "json") return run_check_json(o);
    const auto method = method_of(o.method);
    if (!method) {
        print_error("unknown --method '" + o.method + "' (alg2 or wp)");
        exit_with(kExitBadInput);
    }
    // The session checks by kind: the suite, the partition plan, the run, the assumptions.
    const Document document = load_document(o.spec);
    Subject subject = open_subject(o.device, device_options(o.timing));
    const DocumentCheck ran = check_document(document, subject, *method, o.bound);
    std::cout << ran.text;
    if (!ran.counts.empty()) std::cerr << "typestar: " << ran.counts << "\n";
    if (ran.report.verdict != Verdict::Pass) exit_with(kExitFinding);
}

// ---- suite ------------------------------------------------------------------------------------

struct SuiteArgs {
    std::string spec;
    std::optional<std::size_t> bound;
    std::string method = "alg2";
    std::string format = "text";
    std::string device_status;  ///< a /v1/status body's file ("-": stdin): also compare the spec with it
};

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
    const Document model = load_document(o.spec);
    const std::size_t bound = o.bound.value_or(document_bound(model, *method));
    std::optional<DeviceMismatch> mismatch;
    if (!o.device_status.empty()) {
        if (o.format != "json") {
            print_error("--device-status needs --format json");
            exit_with(kExitBadInput);
        }
        const std::string who = o.device_status == "-" ? "--device-status (stdin)" : o.device_status;
        std::ifstream file;
        if (o.device_status != "-") file.open(o.device_status, std::ios::binary);
        std::istream& in = o.device_status == "-" ? std::cin : file;
        if (!in) {
            print_error(who + ": cannot be read");
            exit_with(kExitBadInput);
        }
        const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        try {
            mismatch = compare_with_device(model, o.spec, text, who);
        } catch (const DeviceError& e) {
            print_error(e.what());
            exit_with(kExitBadInput);
        }
    }
    // The session composes either format (document.hpp); the JSON is the runners' machine interface.
    if (o.format == "json")
        write_suite_json(std::cout, model, *method, bound, mismatch ? &*mismatch : nullptr);
    else
        write_suite_text(std::cout, model, *method, bound);
}

/// `typestar probe`: the callback delays of a device and a proposed tmax / tmin.
struct ProbeArgs {
    std::string device;
    std::size_t depth = 1;
    std::size_t repeats = 3;
    long long window = 1000;
    double margin = 3.0;
};

void run_probe(const ProbeArgs& o) {
    if (o.window < 1 || o.window > 3'600'000 || o.repeats < 1 || !(o.margin >= 1.0 && o.margin <= 100.0)) {
        print_error("probe: --window takes 1 to 3600000 ms, --repeats at least 1, --margin 1 to 100");
        exit_with(kExitBadInput);
    }
    Subject subject = open_subject(o.device);
    if (!subject.device.typestate) {
        print_error("probe: " + o.device + " is a data device (register automaton): it has no callbacks to time");
        exit_with(kExitBadInput);
    }
    TimingProbeOptions options;
    options.depth = o.depth;
    options.repeats = o.repeats;
    options.window = std::chrono::milliseconds(o.window);
    options.margin = o.margin;
    std::cout << probe_timing(*subject.device.typestate, options).text;
}

}  // namespace

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
        cmd->add_option("--explore", o->explore, "the search beyond the bound: random words from every state of each hypothesis that the bounded suite passes, until a whole search finds nothing (default " + std::to_string(EquivalenceOptions::kDefaultExploreWordsPerTransition) + " per transition of the hypothesis; 0: off, the bounded suite alone)");
        cmd->add_option("--from", o->from, "seed learning with an old spec (.yaml) or Mealy machine (.dot)");
        cmd->add_option("--out", o->out, "write the learned spec (.yaml) or Mealy machine (.dot) here, atomically; default: stdout");
        cmd->add_option("--stats", o->stats, "write query statistics as JSON here");
        cmd->add_option("--instantiations", o->instantiations, "devices with parameterised callins: concrete runs per abstract query, each with other values (default 3)");
        cmd->add_option("--refinements", o->refinements, "devices with parameterised callins: most partition splits; a disagreement after that is an unknown transition (default 8)");
        cmd->add_option("--repeats", o->repeats, "devices with parameterised callins: runs of each concrete word the cache cannot answer; differing answers are a non-determinism error naming the word and every answer (default 1)");
        cmd->add_option("--increments", o->increments, "data devices: SL*'s +c theory, the increments c (1 to 1000, comma-separated: 1,2) whose terms x + c the learner tries, besides the device signature's own")->delimiter(',');
        add_timing_options(cmd, o->timing);
        cmd->add_flag("--probe", o->probe, "measure the callback delays first (typestar probe's defaults) and learn with the proposed tmax/tmin instead of the device's own (recorded in the spec's provenance and the assumptions); a real-time device that declares no tmax is probed without it");
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
        cmd->add_option("--bound", o->bound_text, "distinguisher bound B for alg2 (default: the spec's), extra states for wp (default 0); json: 'auto' checks at the spec's bound and learns a missing spec or a proposal raising B while the learned machine needs all of it");
        cmd->add_option("--method", o->method, "suite: alg2 (default) or wp");
        cmd->add_option("--format", o->format, "text (default) or json: every planned test's result (typestar-check/2, the object the JUnit 5 and node:test runners read; docs/runners.md)");
        add_timing_options(cmd, o->timing);
        cmd->add_flag("--propose", o->propose, "json: after a difference, learn the proposal (seeded with the spec) and write <spec>.proposed.yaml; a missing spec is learned (the runners' first run)");
        cmd->add_flag("--update", o->update, "json: update mode: write the spec itself (keeping its state names); the tests its answers explain pass");
        cmd->add_flag("--ci", o->ci, "json: CI: nothing is learned for a missing spec and nothing is written (the proposal is printed); beats --update");
        cmd->add_option("--learner", o->learner, "json: the proposal's learner: lsharp (default) or lstar");
        cmd->add_option("--bound-from", o->bound_from, "json: who asked for the bound (e.g. -Dtypestar.bound=3); a first run's summary says so");
        cmd->add_option("--device-label", o->device_label, "json: the proposal's provenance device instead of the URL (a runner serving its device on a loopback port names it, so the same answers give the same bytes)");
        cmd->callback([o] { run_check(*o); });
    }
    {
        auto o = std::make_shared<ProbeArgs>();
        auto* cmd = app.add_subcommand(
            "probe", "Measure each callin's callback delay on a device and propose tmax/tmin (exit 0; 2 bad input or device error).");
        cmd->add_option("--device", o->device, "the device: inproc:NAME, http://HOST:PORT or exec:TEST_BINARY#SPEC")->required();
        cmd->add_option("--depth", o->depth, "states probed: those reached by up to this many callins (default 1)");
        cmd->add_option("--repeats", o->repeats, "runs of each measurement (default 3)");
        cmd->add_option("--window", o->window, "how long each wait listens, in ms (default 1000)");
        cmd->add_option("--margin", o->margin, "the proposed tmax is this many times the largest delay (default 3)");
        cmd->callback([o] { run_probe(*o); });
    }
    {
        auto o = std::make_shared<SuiteArgs>();
        auto* cmd = app.add_subcommand("suite", "Print a spec's conformance test suite.");
        cmd->add_option("spec", o->spec, "the spec (.yaml) or Mealy machine (.dot)")->required();
        cmd->add_option("--bound", o->bound, "distinguisher bound B for alg2 (default: the spec's), extra states for wp (default 0)");
        cmd->add_option("--method", o->method, "suite: alg2 (default) or wp");
        cmd->add_option("--format", o->format, "text (default) or json");
        cmd->add_option("--device-status", o->device_status,
                        "with --format json: compare the spec with this device (a /v1/status body in FILE, - for "
                        "stdin) and add device_mismatch (what the runners report before running a word)");
        cmd->callback([o] { run_suite_command(*o); });
    }
}

}  // namespace typestar::cli
