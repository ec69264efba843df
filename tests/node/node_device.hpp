// A device factory for the GoogleTest plugin: starts the Node agent serving a purpose (chosen by an
// environment variable, so one test binary checks a spec against another package version) and
// returns an HttpDevice on it. The agent lives until the test process exits (then SIGTERM).
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "node_support.hpp"
#include "typestar/device/http_device.hpp"

namespace typestar::node_testing {

/// The purpose in environment variable `variable`, else `fallback`.
inline std::string purpose_from(const char* variable, const char* fallback) {
    const char* v = std::getenv(variable);
    return v != nullptr && *v != '\0' ? std::string(v) : std::string(fallback);
}

/// Starts `node device/node/agent.js --purpose PURPOSE --port 0` (once per purpose and process) and
/// connects an HttpDevice. Throws std::runtime_error (a test failure, not a skip) when the agent
/// does not start, with what it printed.
inline std::unique_ptr<Device> node_device(const std::string& purpose) {
    static std::map<std::string, std::unique_ptr<NodeAgent>> agents;  // killed at exit
    auto& agent = agents[purpose];
    if (!agent) agent = std::make_unique<NodeAgent>(std::vector<std::string>{"--purpose", purpose, "--port", "0"});
    if (agent->url().empty()) {
        const int code = agent->wait_exit();
        throw std::runtime_error("the Node agent for purpose '" + purpose + "' did not start (exit " +
                                 std::to_string(code) + "): " + agent->first_line() + agent->error_output());
    }
    HttpConfig c;
    c.url = agent->url();
    c.token = kToken;
    return std::make_unique<HttpDevice>(c);
}

}  // namespace typestar::node_testing
