// Shared by the HTTP device tests: an in-process agent on loopback, raw HTTP requests, and the
// typestar-device binary as a child process.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "http_server.hpp"
#include "learning_support.hpp"
#include "protocol.hpp"
#include "support/child_process.hpp"
#include "support/raw_connection.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/device/simulated.hpp"


namespace typestar::testing_support {

inline constexpr const char* kToken = "test-token-4f1c";

/// An agent serving a simulated class on 127.0.0.1, any port.
inline std::unique_ptr<Agent> start_agent(const std::string& key, AgentConfig config = {},
                                          sim::SimOptions options = fast_options()) {
    const auto entry = sim::find_simulated(key);
    if (!entry) throw std::invalid_argument("no class " + key);
    if (config.token.empty()) config.token = kToken;
    auto agent = std::make_unique<Agent>(
        [entry, options] {
            InProcessConfig c;
            c.variants = entry->variants;
            return std::make_unique<InProcessDevice>(entry->make(options), c);
        },
        config);
    agent->start();
    return agent;
}

inline HttpConfig http_config(const Agent& agent) {
    HttpConfig c;
    c.url = agent.url();
    c.token = kToken;
    return c;
}

using testing_support::RawReply;
using testing_support::raw_request;

/// A request with the test token.
inline RawReply authorized(const std::string& method, const std::string& url, const std::string& body = "") {
    return authorized_request(kToken, method, url, body);
}


/// A fake agent answering /v1/status with `status` (and 404 to everything else), started.
inline std::unique_ptr<detail::HttpServer> fake_agent(std::string status) {
    auto server = std::make_unique<detail::HttpServer>(
        detail::HttpServerConfig{}, [status = std::move(status)](const detail::HttpRequest& r) {
            detail::HttpResponse response;
            if (r.target == "/v1/status") {
                response.body = status;
            } else {
                response.status = 404;
                response.body = detail::dump_json(detail::error_json("unknown command", r.target));
            }
            return response;
        });
    server->start();
    return server;
}


/// The typestar-device binary running as a child process; killed (SIGTERM) on destruction.
class AgentProcess : public ChildProcess {
public:
    /// Starts it with `args` and `token` in TYPESTAR_DEVICE_TOKEN (unset when empty); reads the
    /// first line it prints. Throws std::runtime_error when it cannot be spawned.
    AgentProcess(const std::vector<std::string>& args, const std::string& token)
        : ChildProcess(command(args), token.empty() ? std::vector<std::string>{}
                                                    : std::vector<std::string>{"TYPESTAR_DEVICE_TOKEN=" + token}) {}

private:
    static std::vector<std::string> command(const std::vector<std::string>& args) {
        std::vector<std::string> argv{TYPESTAR_DEVICE_BIN};
        argv.insert(argv.end(), args.begin(), args.end());
        return argv;
    }
};

}  // namespace typestar::testing_support
