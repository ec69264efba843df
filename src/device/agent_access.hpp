// Access to the agent's request handler without sockets, for tests and fuzzers (tests/fuzz/agent/).
// Private to src/device.
#pragma once

#include "http_server.hpp"
#include "typestar/device/agent.hpp"

namespace typestar::detail {

struct AgentTestAccess {
    /// Handles `request` exactly as the agent's server does after parsing it (Origin, token,
    /// routing, sessions, faults). Requires a started agent. Exceptions propagate (the server
    /// would answer them 500 `unknown error`; for a fuzzer each one is a finding).
    static HttpResponse handle(Agent& agent, const HttpRequest& request);
};

}  // namespace typestar::detail
