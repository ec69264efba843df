// typestar_learn_mqtt: learns an MQTT broker from scratch through the two-client mapper (Mosquitto
// started on a free loopback port, or a broker already listening with --port), writes the learned
// Mealy machine as DOT, and lists every difference from a published model.
//
//   typestar_learn_mqtt [--method wp|alg2] [--bound B] [--state-bound N] [--extra-states K]
//                       [--explore N] [--learner lsharp|lstar] [--published FILE] [--out FILE] [--check FILE]
//                       [--svg FILE] [--port P] [--work-dir DIR]
//
// Exit codes: 0 learned (and, with --check, equivalent to FILE), 1 not equivalent to --check's
// model or not converged, 2 bad arguments, a device error (the broker unreachable, a timeout) or
// nondeterminism.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/targets/mqtt.hpp"
#ifdef TYPESTAR_HAVE_RENDER
#include "typestar/render/svg.hpp"
#endif

namespace fs = std::filesystem;
using namespace typestar;

// Over 120 lines: the option table of the MQTT learning program and its run; not yet split.
int main(int argc, char** argv) {
    CLI::App app{"Learn an MQTT broker (Mosquitto) through the two-client mapper"};
    std::string method = "wp";
    std::size_t bound = 2;
    std::optional<std::size_t> state_bound;
    std::size_t extra_states = 0;
    std::size_t explore = EquivalenceOptions::kDefaultExploreWordsPerTransition;
    std::string learner = "lsharp";
    std::string published;
    std::string out;
    std::string check;
    std::string svg;
    std::uint16_t port = 0;
    std::string work_dir = (fs::temp_directory_path() / "typestar-mqtt-learn").string();
    app.add_option("--method", method, "equivalence oracle: wp (Wp-method) or alg2 (DroidStar Algorithm 2)")
        ->check(CLI::IsMember({"wp", "alg2"}));
    app.add_option("--bound", bound, "Algorithm 2's distinguisher bound B")->check(CLI::Range(1, 6));
    app.add_option("--state-bound", state_bound, "Wp: an absolute bound on the broker's states");
    app.add_option("--extra-states", extra_states, "Wp: extra states k beyond each hypothesis");
    app.add_option("--explore", explore, "the search beyond the bound: random words per transition (0: off)");
    app.add_option("--learner", learner, "lsharp or lstar")->check(CLI::IsMember({"lsharp", "lstar"}));
    app.add_option("--published", published, "a published model (DOT) to list the differences from");
    app.add_option("--out", out, "write the learned machine here (DOT)");
    app.add_option("--svg", svg, "draw the learned machine here (SVG, through Graphviz's library)");
    app.add_option("--check", check, "exit 1 unless the learned machine is equivalent to this DOT model");
    app.add_option("--port", port, "a broker already listening on 127.0.0.1:PORT (default: start mosquitto)");
    app.add_option("--work-dir", work_dir, "where the started broker's configuration and log go");
    CLI11_PARSE(app, argc, argv);

    try {
        std::unique_ptr<targets::MosquittoBroker> broker;
        targets::MqttOptions options;
        if (port == 0) {
            const auto binary = targets::MosquittoBroker::find_binary();
            if (!binary) {
                std::cerr << "typestar_learn_mqtt: no mosquitto binary (apt-get install mosquitto, or set "
                             "TYPESTAR_MOSQUITTO)\n";
                return 2;
            }
            broker = std::make_unique<targets::MosquittoBroker>(*binary, work_dir);
            options.port = broker->port();
            options.broker = broker->version();
            std::cout << "broker: " << broker->version() << " (" << binary->string() << ") on 127.0.0.1:"
                      << broker->port() << std::endl;
        } else {
            options.port = port;
        }
        targets::MqttMapper mapper(options);
        Device* devices[] = {&mapper};

        LearnOptions learn;
        learn.name = "mqtt";
        learn.learner = *parse_learner(learner);
        learn.equivalence.method = method == "wp" ? SuiteMethod::Wp : SuiteMethod::Algorithm2;
        learn.equivalence.bound = bound;
        learn.equivalence.extra_states = extra_states;
        learn.equivalence.state_bound = state_bound;
        learn.equivalence.explore_words_per_transition = explore;
        learn.on_round = [](const RoundInfo& round) {
            const auto t = round.stats.total();
            std::cout << "  round " << round.round << ": " << round.states << " states, " << t.queries_executed
                      << " queries executed, " << std::fixed << std::setprecision(1) << round.seconds << " s"
                      << (round.counterexample ? ", counterexample" : "") << std::endl;
        };
        const LearnedSpec learned = learn_spec(devices, learn);
        const auto total = learned.stats.total();
        std::cout << "learned: " << learned.machine.num_states() << " states, " << learned.machine.outputs().size()
                  << " outputs, " << learned.rounds << " rounds, " << total.queries_executed << " queries executed ("
                  << learned.stats.learning.queries_executed << " learning, "
                  << learned.stats.equivalence.queries_executed << " equivalence), " << total.symbols_executed
                  << " symbols, " << std::fixed << std::setprecision(1) << learned.seconds << " s; "
                  << learned.learner << " with " << method_name(learn.equivalence.method);
        if (learn.equivalence.method == SuiteMethod::Algorithm2) std::cout << " B=" << bound;
        else if (state_bound) std::cout << " state bound " << *state_bound;
        else std::cout << " k=" << extra_states;
        std::cout << (learned.converged ? "" : " (NOT converged)") << std::endl;
        if (!learned.exploration_note.empty()) std::cout << learned.exploration_note << std::endl;
        const MealyMachine machine = minimize(learned.machine);
        if (const auto b = distinguisher_bound(machine))
            std::cout << "distinguisher bound of the learned machine: " << *b << std::endl;
        if (const std::string warning = tight_bound_warning(learned); !warning.empty())
            std::cout << warning << std::endl;
        if (!out.empty()) {
            std::ofstream file(out, std::ios::binary | std::ios::trunc);
            file << spec::write_mealy_dot(machine, "mosquitto");
            if (!file) throw Error("cannot write " + out);
            std::cout << "wrote " << out << std::endl;
        }
        if (!svg.empty()) {
#ifdef TYPESTAR_HAVE_RENDER
            std::ofstream file(svg, std::ios::binary | std::ios::trunc);
            file << render::render_svg(spec::write_mealy_dot(machine, "mosquitto"));
            if (!file) throw Error("cannot write " + svg);
            std::cout << "wrote " << svg << std::endl;
#else
            throw Error("--svg: this build has no typestar::render (TYPESTAR_BUILD_RENDER=OFF)");
#endif
        }
        if (!published.empty()) {
            const MealyMachine model = spec::load_mealy_dot(published);
            const auto differences = targets::mealy_differences(model, machine);
            std::cout << "differences from " << published << " (" << model.num_states() << " states): "
                      << differences.size() << std::endl;
            for (const auto& d : differences) {
                std::cout << "  ";
                for (std::size_t i = 0; i < d.witness.size(); ++i) std::cout << (i ? " " : "") << d.witness[i];
                std::cout << "\n    published (" << d.expected_state << "): " << d.expected << "\n    learned ("
                          << d.actual_state << "):   " << d.actual << '\n';
            }
        }
        int status = learned.converged ? 0 : 1;
        if (!check.empty()) {
            const MealyMachine model = spec::load_mealy_dot(check);
            const auto word = separating_word(model, machine);
            std::cout << (word ? "DIFFERS from " : "equivalent to ") << check << std::endl;
            if (word) status = 1;
        }
        return status;
    } catch (const SpecError& e) {
        for (const auto& d : e.diagnostics()) std::cerr << d.str() << '\n';
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "typestar_learn_mqtt: " << e.what() << '\n';
        return 2;
    }
}
