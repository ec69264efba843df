#include "serve.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <pthread.h>
#include <string>

#include "typestar/core/error.hpp"
#include "typestar/device/agent.hpp"

namespace typestar::detail {

namespace {

int fail(const std::string& message) {
    std::fprintf(stderr, "typestar: --typestar_serve: %s\n", message.c_str());
    return 2;
}

}  // namespace

int serve_devices(const std::vector<SpecTests*>& specs, const Settings& settings) {
    // HOST:PORT, HOST possibly [IPv6].
    const auto colon = settings.serve.rfind(':');
    std::string host = settings.serve.substr(0, colon);
    const std::string port_text = settings.serve.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    char* end = nullptr;
    const unsigned long port = std::strtoul(port_text.c_str(), &end, 10);
    if (host.empty() || port_text.empty() || *end != '\0' || port > 65535)
        return fail("'" + settings.serve + "' is not HOST:PORT");

    std::string token;
    try {
        token = find_token(settings.token_file);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    if (token.empty())
        return fail("no bearer token: pass --typestar_token_file=PATH (mode 0600) or set TYPESTAR_DEVICE_TOKEN");

    std::vector<SpecTests*> chosen;
    std::string known;
    for (SpecTests* s : specs) {
        known += (known.empty() ? "" : ", ") + s->suite_name();
        if (settings.serve_spec.empty() || s->answers_to(settings.serve_spec)) chosen.push_back(s);
    }
    const std::size_t served = chosen.size();
    if (served == 0)
        return fail(settings.serve_spec.empty() ? std::string("no spec is registered")
                                                : "no registered spec '" + settings.serve_spec + "' (registered: " +
                                                      (known.empty() ? std::string("none") : known) + ")");

    // Signals are taken by sigwait below: block them before any agent thread starts (threads
    // inherit the mask), so no handler runs on another thread.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

    std::vector<std::unique_ptr<Agent>> agents;
    for (SpecTests* s : chosen) {
        AgentConfig config;
        config.host = host;
        config.port = static_cast<std::uint16_t>(served == 1 ? port : 0);
        config.token = token;
        try {
            auto agent = make_agent(s->device_kind(), [s] { return s->make_device(); }, config);
            agent->start();  // makes a first device: a factory that throws stops here
            std::printf("typestar: serving %s at %s (spec %s)\n", s->suite_name().c_str(), agent->url().c_str(),
                        s->path().string().c_str());
            agents.push_back(std::move(agent));
        } catch (const std::exception& e) {
            return fail("cannot serve " + s->suite_name() + ": " + e.what());
        }
    }
    std::printf("typestar: ready\n");
    std::fflush(stdout);

    int signal = 0;
    sigwait(&stop_signals, &signal);
    for (auto& agent : agents) agent->stop();
    return 0;
}

}  // namespace typestar::detail
