// The transport shared by HttpDevice and HttpDataDevice (device/PROTOCOL.md /v1): one keep-alive
// connection (libcurl's easy handle, or for a loopback agent the direct socket of http_direct.hpp),
// JSON requests with bounded retries and exponential backoff for transport errors, garbage and
// 502/503/504, answers capped and judged by detail::judge_answer. Private to src/device.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "protocol.hpp"
#include "typestar/device/connection.hpp"

namespace spdlog {
class logger;
}

namespace typestar::detail {

/// One request to the agent (a client request; the server side has its own detail::HttpRequest,
/// http_server.hpp: distinct names, or the two inline destructors collide at link time).
struct AgentRequest {
    const char* method = "GET";  ///< "GET", "POST" or "DELETE"
    std::string path;            ///< e.g. "/v1/status"
    std::string body;            ///< sent unless `method` is GET
    std::chrono::milliseconds timeout{0};  ///< each attempt's total time (CURLOPT_TIMEOUT_MS)
    std::size_t retries = 0;               ///< attempts after the first
    /// What the request is for, prefixing every error, e.g. "device URL: status" (made only for a message).
    MessageContext context;
};

/// The host of an http:// URL ("127.0.0.1", "::1" without its brackets, "localhost").
std::string_view url_host(std::string_view url);
/// Whether `host` is this machine: 127.0.0.0/8, ::1 or localhost. Such a device never goes
/// through a proxy from the environment.
bool is_loopback_host(std::string_view host);

/// A keep-alive connection to the agent at HttpConfig::url. Not thread-safe.
class HttpTransport {
public:
    /// Checks `config.url` and drops its trailing slashes (in place: the caller's copy is the one
    /// its messages use), then sets up the handle; `requests` and `retries` (may be null) count
    /// every request sent and every retry, and must outlive the transport. Throws
    /// std::invalid_argument for a URL that is not http://HOST:PORT, DeviceError when libcurl
    /// cannot be initialised.
    HttpTransport(HttpConfig& config, std::uint64_t& requests, std::uint64_t* retries);
    ~HttpTransport();
    HttpTransport(const HttpTransport&) = delete;
    HttpTransport& operator=(const HttpTransport&) = delete;

    /// Sends `request` and returns the accepted answer's JSON object (an empty object for a DELETE
    /// answered 404: already gone). Throws DeviceError "<context>: <why>" for an answer over
    /// max_answer_bytes or an error answer (not retried), and "<context>: <last failure> (N
    /// attempts)" when the retries are used up.
    nlohmann::json request(const AgentRequest& request);

    /// A fresh session: POST /v1/sessions with a random request_id (so a retried create returns the
    /// same session), retried like every request. Its id; throws DeviceError "<who>: creating a
    /// session: ...".
    std::string create_session(const MessageContext& who);
    /// DELETE /v1/sessions/`id`, one attempt (an agent that lost the session reaps it anyway); a
    /// failure is logged as a warning, never thrown.
    void end_session(const std::string& id, const MessageContext& who) noexcept;

private:
    struct Handle;
    HttpConfig config_;
    std::uint64_t& requests_;
    std::uint64_t* retries_;
    std::unique_ptr<Handle> handle_;
    std::shared_ptr<spdlog::logger> log_;  ///< typestar.device, looked up once
};

}  // namespace typestar::detail
