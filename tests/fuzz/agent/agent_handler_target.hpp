// Fuzz target body: the whole agent behind its socket — parse_request, then the agent's handler
// (token, Origin, routing, sessions, steps, runs) through detail::AgentTestAccess — on a started
// in-process agent serving a small synchronous class ("Door", tmax 0 ms, so no step waits).
// Shared by the libFuzzer entry point and the corpus replay test.
// Input: pipelined HTTP requests (up to 16); "{s}" in a target stands for the last session the
// input created; a wait's accepted timeout_ms is cut to 2 ms. Sessions created by an input are
// deleted after it.
// Oracles beyond "no crash": the handler never throws; every answer has a known status and a body
// that is strict JSON (UTF-8) — an object, and for errors {"value": {"error": string, "message":
// string, ...}}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent_access.hpp"
#include "fuzz_check.hpp"
#include "http_server.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/device/purpose.hpp"

namespace typestar::fuzz {

struct Door {
    std::shared_ptr<CallbackSink> sink;
    bool open = false;
};

/// One agent for the whole fuzzing process (started once; its port is never used).
inline Agent& handler_agent() {
    static Agent* agent = [] {
        AgentConfig config;
        config.token = "test-token";
        config.max_sessions = 8;
        config.idle_timeout = std::chrono::hours(1);
        auto* a = new Agent(
            [] {
                return std::make_unique<InProcessDevice>(
                    LearningPurpose<Door>("Door")
                        .reset([](const std::shared_ptr<CallbackSink>& sink) {
                            auto d = std::make_shared<Door>();
                            d->sink = sink;
                            return d;
                        })
                        .callin("open",
                                [](Door& d) {
                                    if (d.open) throw std::logic_error("already open");
                                    d.open = true;
                                    d.sink->emit("onOpen");
                                })
                        .callin("close",
                                [](Door& d) {
                                    if (!d.open) throw std::logic_error("not open");
                                    d.open = false;
                                })
                        .callback("onOpen")
                        .timing({std::chrono::milliseconds(0), std::chrono::milliseconds(0)})
                        .build());
            },
            config);
        a->start();
        return a;
    }();
    return *agent;
}

/// The agent's handler on `request`; a throw is a finding (abort).
inline detail::HttpResponse handled(Agent& agent, const detail::HttpRequest& request) {
    try {
        return detail::AgentTestAccess::handle(agent, request);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz check failed: the agent's handler threw: %s\n", e.what());
        std::abort();
    }
}

/// The promises every answer keeps: a known status, no fault, a body that is a JSON object, for
/// errors {"value": {"error": string, "message": string, ...}}. Returns the body.
inline nlohmann::json checked_answer(const detail::HttpResponse& response) {
    static const std::set<int> kStatuses{200, 201, 400, 401, 403, 404, 405, 409, 500, 503};
    TYPESTAR_FUZZ_CHECK(kStatuses.count(response.status) == 1);
    TYPESTAR_FUZZ_CHECK(response.fault == detail::HttpResponse::Fault::None);
    nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
    TYPESTAR_FUZZ_CHECK(!body.is_discarded() && body.is_object());
    if (response.status >= 400) {
        const auto value = body.find("value");
        TYPESTAR_FUZZ_CHECK(value != body.end() && value->is_object());
        TYPESTAR_FUZZ_CHECK(value->contains("error") && (*value)["error"].is_string());
        TYPESTAR_FUZZ_CHECK(value->contains("message") && (*value)["message"].is_string());
    }
    if (response.status == 201) TYPESTAR_FUZZ_CHECK(body.contains("session") && body["session"].is_string());
    return body;
}

/// Deletes the sessions an input created.
inline void end_sessions(Agent& agent, const std::vector<std::string>& sessions) {
    for (const auto& id : sessions) {
        detail::HttpRequest end;
        end.method = "DELETE";
        end.target = "/v1/sessions/" + id;
        end.headers["authorization"] = "Bearer test-token";
        (void)detail::AgentTestAccess::handle(agent, end);
    }
}

/// The next complete request of `buffer` (then consumed), "{s}" in its target replaced by the last
/// of `sessions`; nullopt when no complete request is left.
inline std::optional<detail::HttpRequest> next_request(std::string_view& buffer,
                                                       const std::vector<std::string>& sessions) {
    detail::HttpLimits limits;
    limits.max_header_bytes = 2048;
    limits.max_body_bytes = 4096;
    detail::ParsedRequest p = detail::parse_request(buffer, limits);
    if (p.state != detail::ParsedRequest::State::Complete) return std::nullopt;
    buffer.remove_prefix(p.consumed);
    if (const auto at = p.request.target.find("{s}"); at != std::string::npos && !sessions.empty())
        p.request.target.replace(at, 3, sessions.back());
    return std::move(p.request);
}

inline int agent_handler_one_input(const std::uint8_t* data, std::size_t size) {
    Agent& agent = handler_agent();
    std::string_view buffer(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> sessions;
    for (int n = 0; n < 16; ++n) {
        std::optional<detail::HttpRequest> next = next_request(buffer, sessions);
        if (!next) break;
        detail::HttpRequest& request = *next;
        // A wait may last up to an hour by the protocol: keep accepted timeouts short (larger ones
        // still reach the agent's validation).
        if (nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
            body.is_object() && body.contains("timeout_ms") && body["timeout_ms"].is_number_unsigned() &&
            body["timeout_ms"].get<std::uint64_t>() > 2 && body["timeout_ms"].get<std::uint64_t>() <= 3600000) {
            body["timeout_ms"] = 2;
            request.body = body.dump();
        }
        const detail::HttpResponse response = handled(agent, request);
        const nlohmann::json body = checked_answer(response);
        if (response.status == 201) sessions.push_back(body["session"].get<std::string>());
    }
    end_sessions(agent, sessions);
    return 0;
}

}  // namespace typestar::fuzz
