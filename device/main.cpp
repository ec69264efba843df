// typestar-device: the reference agent. Serves a simulated class (or, by linking your own factory,
// any in-process device) over the HTTP device protocol /v1 (device/PROTOCOL.md).
// It shows the security defaults: loopback only unless told otherwise, a bearer token on every
// request (TYPESTAR_DEVICE_TOKEN, or a 0600 file), no browser (Origin) requests, bounded sizes.
// Exit codes: 0 stopped by SIGINT/SIGTERM; 2 bad usage or configuration (an option, the class, the
// token: missing, unreadable, empty or not private); 1 cannot serve (e.g. the port is taken); 70 the
// `crash` fault.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <pthread.h>
#include <string>

#include <CLI/CLI.hpp>

#include "typestar/core/error.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/device/data_device.hpp"
#include "typestar/device/simulated.hpp"
#include "typestar/log/logging.hpp"

namespace {
constexpr int kExitCannotServe = 1;
constexpr int kExitBadConfiguration = 2;
}  // namespace

int main(int argc, char** argv) {
    using namespace typestar;
    CLI::App app{"typestar-device: serves a class under learning over HTTP (protocol /v1)"};
    std::string class_name;
    std::string host = "127.0.0.1";
    int port = 8765;
    std::string token_file;
    int delay_min = 20, delay_max = 50, tmax = 100, tmin = 5;
    std::uint64_t seed = 1;
    std::string variants;
    std::size_t max_sessions = 64;
    std::size_t max_connections = 256;
    int connection_timeout_s = 30;
    int idle_timeout_s = 60;
    std::size_t max_body = 1024 * 1024;
    std::string fault = "none";
    int hang_ms = 3000;
    bool list = false;
    std::string data_model;
    app.add_option("--class", class_name, "simulated class to serve (see --list)");
    app.add_option("--data-model", data_model,
                   "serve a register automaton as a data device instead of a class: a kind: register-automaton "
                   "spec (.yaml) or a RALib model (.xml), simulated (device/PROTOCOL.md, \"Data devices\")");
    app.add_flag("--list", list, "list the simulated classes and exit");
    app.add_option("--host", host, "address to bind (default 127.0.0.1; anything else exposes the device)");
    app.add_option("--port", port, "port (0: any free port; the chosen one is printed)")->check(CLI::Range(0, 65535));
    app.add_option("--token-file", token_file,
                   "file with the bearer token, mode 0600 (default: $TYPESTAR_DEVICE_TOKEN, "
                   "else $TYPESTAR_DEVICE_TOKEN_FILE)");
    app.add_option("--delay-min", delay_min, "smallest callback delay, ms")->check(CLI::NonNegativeNumber);
    app.add_option("--delay-max", delay_max, "largest callback delay, ms")->check(CLI::NonNegativeNumber);
    app.add_option("--tmax", tmax, "quiescence timeout, ms")->check(CLI::NonNegativeNumber);
    app.add_option("--tmin", tmin, "minimum callback delay assumed, ms")->check(CLI::NonNegativeNumber);
    app.add_option("--seed", seed, "seed of the delays and the environment");
    app.add_option("--variants", variants, "compare, split or first (default: the class's)");
    app.add_option("--max-sessions", max_sessions, "instances alive at once")->check(CLI::PositiveNumber);
    app.add_option("--idle-timeout", idle_timeout_s, "idle sessions are reaped after this many seconds")
        ->check(CLI::PositiveNumber);
    app.add_option("--max-body", max_body, "largest request body, bytes")->check(CLI::PositiveNumber);
    app.add_option("--max-connections", max_connections,
                   "connections served at once; more are answered 503 (default 256)")
        ->check(CLI::PositiveNumber);
    app.add_option("--connection-timeout", connection_timeout_s,
                   "an idle connection (or one sending a request too slowly) is closed after this many "
                   "seconds (default 30)")
        ->check(CLI::PositiveNumber);
    app.add_option("--fault", fault, "inject a fault for testing clients: KIND[:AFTER[:TIMES]], "
                                     "KIND one of none, crash, hang, drop, garbage");
    app.add_option("--hang-ms", hang_ms, "how long a `hang` fault sleeps, ms")->check(CLI::NonNegativeNumber);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : kExitBadConfiguration;  // --help, or bad usage
    }
    log_to_stderr();  // warnings and internal errors of the agent

    if (list) {
        for (const auto& c : sim::simulated_classes()) std::cout << c.key << "\t" << c.spec << "\n";
        return 0;
    }
    std::shared_ptr<const ra::RegisterAutomaton> automaton;
    if (!data_model.empty()) {
        if (!class_name.empty()) {
            std::cerr << "typestar-device: --class and --data-model exclude each other\n";
            return kExitBadConfiguration;
        }
        try {
            automaton = std::make_shared<const ra::RegisterAutomaton>(load_register_automaton(data_model));
            ra::check_valid(*automaton);
        } catch (const SpecError& e) {
            for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
            return kExitBadConfiguration;
        } catch (const std::exception& e) {
            std::cerr << "typestar-device: " << data_model << ": " << e.what() << "\n";
            return kExitBadConfiguration;
        }
    }
    const auto entry = automaton ? std::optional<sim::SimulatedClass>() : sim::find_simulated(class_name);
    if (!automaton && !entry) {
        std::cerr << "typestar-device: unknown class '" << class_name << "' (see --list)\n";
        return kExitBadConfiguration;
    }
    AgentConfig config;
    config.host = host;
    config.port = static_cast<std::uint16_t>(port);
    try {
        config.token = find_token(token_file);
        if (config.token.empty()) {
            std::cerr << "typestar-device: a bearer token is required: set TYPESTAR_DEVICE_TOKEN or use --token-file\n";
            return kExitBadConfiguration;
        }
        config.fault = parse_fault(fault);
    } catch (const std::exception& e) {  // the token file (typestar::Error) or --fault
        std::cerr << "typestar-device: " << e.what() << "\n";
        return kExitBadConfiguration;
    }
    try {
        config.max_sessions = max_sessions;
        config.max_connections = max_connections;
        config.connection_timeout = std::chrono::seconds(connection_timeout_s);
        config.idle_timeout = std::chrono::seconds(idle_timeout_s);
        config.max_body_bytes = max_body;
        config.fault.hang = std::chrono::milliseconds(hang_ms);
        config.on_crash = [] { std::_Exit(70); };

        sim::SimOptions options;
        options.delay_min = std::chrono::milliseconds(delay_min);
        options.delay_max = std::chrono::milliseconds(delay_max);
        options.timing = {std::chrono::milliseconds(tmax), std::chrono::milliseconds(tmin)};
        options.seed = seed;
        InProcessConfig device_config;
        device_config.variants = entry->variants;
        if (variants == "compare") device_config.variants = VariantMode::Compare;
        else if (variants == "split") device_config.variants = VariantMode::Split;
        else if (variants == "first") device_config.variants = VariantMode::First;
        else if (!variants.empty()) {
            std::cerr << "typestar-device: --variants must be compare, split or first\n";
            return kExitBadConfiguration;
        }
        if (host != "127.0.0.1" && host != "::1" && host != "localhost")
            std::cerr << "typestar-device: warning: listening on " << host
                      << " exposes the device beyond this machine; the token is sent in clear text\n";

        // Block the stop signals in every thread; the main thread waits for them below.
        sigset_t stop_signals;
        sigemptyset(&stop_signals);
        sigaddset(&stop_signals, SIGINT);
        sigaddset(&stop_signals, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

        std::unique_ptr<Agent> served;
        if (automaton) {
            const std::string label = "model:" + data_model;
            served = std::make_unique<Agent>(DataDevices{[automaton, label] {
                                                 return std::make_unique<ModelDataDevice>(*automaton, label);
                                             }},
                                             config);
        } else {
            served = std::make_unique<Agent>([entry, options, device_config] {
                return std::make_unique<InProcessDevice>(entry->make(options), device_config);
            }, config);
        }
        Agent& agent = *served;
        agent.start();
        std::cout << "typestar-device: serving " << (automaton ? data_model : entry->key) << " on " << agent.url()
                  << std::endl;
        int signal = 0;
        sigwait(&stop_signals, &signal);
        agent.stop();
        std::cout << "typestar-device: stopped" << std::endl;
        return 0;
    } catch (const std::invalid_argument& e) {  // the class with these options (e.g. --tmin > --tmax)
        std::cerr << "typestar-device: " << e.what() << "\n";
        return kExitBadConfiguration;
    } catch (const std::exception& e) {
        std::cerr << "typestar-device: " << e.what() << "\n";
        return kExitCannotServe;
    }
}
