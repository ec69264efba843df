// Register automata on the command line (issue 18): `learn` and `check` with a data device
// (`model:` with a register-automaton spec or RALib XML, or an http:// agent declaring `data`).
// Design note: the edge where register-automaton files and data devices are opened; learning is
// one call of the SL*-style learner, checking one run of the generalised Algorithm 2 suite, and both
// go through the one data query path (ra::DataOracle) inside those calls.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "ra_commands.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/data_device.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/learner.hpp"
#include "typestar/session/register_automata.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::cli {

namespace {

std::unique_ptr<DataDevice> open_data_device(const std::string& url) {
    try {
        return make_data_device(url);  // SpecError (bad model file) and DeviceError: main reports them
    } catch (const std::invalid_argument& e) {
        print_error(e.what());
        exit_with(kExitBadInput);
    }
}

}  // namespace

bool is_data_device_url(const std::string& url) {
    if (url.rfind("model:", 0) == 0) return is_data_model_url(url);
    if (url.rfind("http://", 0) == 0) return agent_serves_data(url);
    return false;
}

void run_ra_learn(const RaLearnArgs& o) {
    auto device = open_data_device(o.device);
    ra::RaLearnConfig config;
    config.equivalence_bound = o.bound;  // B: the spec records it, and the learner's oracle runs check's suite at B
    config.max_executed = o.budget;
    const auto start = std::chrono::steady_clock::now();
    const ra::RaLearnResult learned = ra::learn_register_automaton(*device, device->signature(), config);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const ra::RegisterAutomaton& h = learned.hypothesis;
    if (!o.stats.empty()) {
        nlohmann::json j = stats_json(learned.stats, h.locations.size(), seconds);
        j["registers"] = h.max_registers();
        j["transitions"] = h.num_transitions();
        j["converged"] = learned.converged;
        j["tree_queries"] = learned.tree_queries;
        spec::write_file_atomically(o.stats, j.dump(2) + "\n");
    }
    if (!learned.converged) {
        print_error("learning " + o.device + " did not converge: " + learned.failure + " (nothing written)");
        exit_with(kExitFinding);
    }
    ra::RaSpec spec{h, o.bound, {}};
    spec.provenance["tool"] = version_string();
    spec.provenance["device"] = o.device;
    spec.provenance["learner"] = learned.learner + "-style tree queries (typestar ra)";
    spec.provenance["equivalence"] = learned.equivalence;
    if (o.out.empty()) {
        std::cout << ra::write_register_spec(spec) << std::flush;
    } else if (o.out_is_dot) {
        spec::write_file_atomically(o.out, ra::write_register_dot(h));
    } else {
        ra::save_register_spec(spec, o.out);
    }
    const PhaseCounts total = learned.stats.total();
    std::cerr << "typestar: learned a register automaton with " << h.locations.size() << " locations, "
              << h.max_registers() << " registers at most, " << h.num_transitions() << " transitions in "
              << learned.stats.equivalence_rounds << " rounds (" << learned.learner << "): " << learned.tree_queries
              << " tree queries, " << total.queries_executed << " concrete queries executed (" << total.queries_asked
              << " asked), " << total.symbols_executed << " steps, " << std::fixed << std::setprecision(3) << seconds
              << " s\n"
              << "typestar: no counterexample from the equivalence oracle (" << learned.equivalence
              << "): bounded evidence, not a proof (distinguisher bound B=" << o.bound << ")\n";
}

void run_ra_check(const std::string& spec_path, const std::string& url, std::optional<std::size_t> bound) {
    std::size_t b = 2;
    ra::RegisterAutomaton spec;
    if (is_register_automaton_file(spec_path) && spec_path.size() > 4 &&
        spec_path.substr(spec_path.size() - 4) != ".xml") {
        const ra::RaSpec s = ra::load_register_spec(spec_path);
        spec = s.automaton;
        b = s.distinguisher;
    } else {
        spec = load_register_automaton(spec_path);
    }
    if (bound) b = *bound;
    if (url.rfind("model:", 0) == 0 && !is_data_model_url(url)) {
        print_error(spec_path + " is a register automaton, but " + url +
                    " is not a register-automaton model (a kind: register-automaton spec or RALib .xml)");
        exit_with(kExitBadInput);
    }
    auto device = open_data_device(url);
    std::unique_ptr<DataDevice> adapted;
    try {
        adapted = adapt_to_signature(spec, *device);
    } catch (const std::invalid_argument& e) {
        print_error(spec_path + " and " + url + ": " + e.what());
        exit_with(kExitBadInput);
    }
    CheckOptions options;
    options.bound = b;
    const CheckReport report = check_register_spec(spec, *adapted, options);
    if (report.verdict == Verdict::Pass) {
        std::cout << "conforms: " << url << " passed the generalised Algorithm 2 suite of " << spec.name
                  << " (distinguisher bound B=" << b << ") on " << report.tests << " data words: bounded evidence, not a proof.\n"
                  << evidence_note(report);
        return;
    }
    std::cout << "counterexample: " << url << " does not conform to " << spec.name << " (data trace, "
              << report.trace.size() << " steps): " << report.reason << "\n"
              << format_trace(report.trace);
    exit_with(kExitFinding);
}

}  // namespace typestar::cli
