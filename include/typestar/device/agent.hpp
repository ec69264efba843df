// The device agent: serves in-process devices over the HTTP protocol /v1 (device/PROTOCOL.md).
// Design note: every session owns one InProcessDevice instance slot for its lifetime (a fresh
// instance of the class), so concurrent clients — a pool of HttpDevices — never share an instance.
// Steps carry sequence numbers: a retried step is answered from the session's last response and
// never runs twice. Every request needs the bearer token; requests with an Origin header (browsers)
// are refused; header and body sizes, connections and their idle time are bounded. Every answer is
// valid JSON (bytes that are not UTF-8 become U+FFFD), and an internal failure answers 500 on its
// connection, never ends the agent.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "typestar/device/connection.hpp"
#include "typestar/device/data_device.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/device/inprocess.hpp"

namespace typestar {

/// A fault the agent injects, for testing clients (crash, hang, dropped connection, garbage).
struct FaultPlan {
    enum class Kind {
        None,
        Crash,    ///< calls AgentConfig::on_crash (the binary exits; by default every later request
                  ///< is dropped unanswered)
        Hang,     ///< sleeps `hang` before handling the request
        Drop,     ///< handles the request, then closes the connection without answering
        Garbage,  ///< handles the request, then answers bytes that are not JSON
    };
    Kind kind = Kind::None;
    std::size_t after = 0;  ///< requests (other than status) answered normally first
    std::size_t times = std::numeric_limits<std::size_t>::max();  ///< how many requests get the fault
    std::chrono::milliseconds hang{3000};
};

/// Parses "KIND[:AFTER[:TIMES]]" (KIND: none, crash, hang, drop, garbage). Throws
/// std::invalid_argument naming the bad part.
[[nodiscard]] FaultPlan parse_fault(const std::string& text);

/// Options of Agent. Plain data with defaults.
struct AgentConfig {
    std::string host = "127.0.0.1";  ///< loopback by default
    std::uint16_t port = 0;          ///< 0: an ephemeral port (see Agent::port)
    std::string token;               ///< required, non-empty: `Authorization: Bearer <token>`
    std::size_t max_header_bytes = 16 * 1024;
    std::size_t max_body_bytes = 1024 * 1024;
    std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};  ///< idle sessions are reaped
    std::size_t max_sessions = 64;  ///< instances alive at once (a create beyond it answers 503)
    /// Connections served at once, one thread each; a connection beyond it is answered 503 and
    /// closed (HttpDevice retries 503).
    std::size_t max_connections = 256;
    /// A connection that starts no request for this long, or does not complete a started one (or
    /// does not read its answer) within it, is closed.
    std::chrono::milliseconds connection_timeout{std::chrono::seconds(30)};
    FaultPlan fault;
    /// What FaultPlan::Crash does; empty: drop every later request unanswered.
    std::function<void()> on_crash;
};

namespace detail {
struct AgentTestAccess;  // tests and fuzzers: handle a request without sockets (src/device)
}  // namespace detail

/// Any device to serve (e.g. the factory of a gtest registration): plain data.
struct AnyDevices {
    /// Makes one device per concurrent session (called under the agent's lock, one at a time).
    std::function<std::unique_ptr<Device>()> make;
};

/// Data devices to serve (register automata): plain data.
struct DataDevices {
    /// Makes one data device per concurrent session (called under the agent's lock, one at a time).
    std::function<std::unique_ptr<DataDevice>()> make;
};

class Agent;

/// An agent serving the devices `make` opens (one per concurrent session), each of `kind`: Data
/// serves them as data devices (DataDevices), any other kind as AnyDevices. Throws like Agent's
/// constructors; `make` throws or returns no device of that kind: that session is not created.
[[nodiscard]] std::unique_ptr<Agent> make_agent(DeviceKind kind, std::function<OpenedDevice()> make, AgentConfig config);

/// Serves devices made by `factory` (one per concurrent session) over HTTP /v1.
class Agent {
public:
    using Factory = std::function<std::unique_ptr<InProcessDevice>()>;
    /// Throws std::invalid_argument for an empty token, no factory, no connections allowed or a
    /// connection timeout that is not positive.
    Agent(Factory factory, AgentConfig config);
    /// Serves any Device. Its status comes from Device::describe() (class name, framework, tmax and
    /// tmin rounded to milliseconds; 0 when the device has none) and traits(). A `wait` with a
    /// `timeout_ms` other than the device's tmax runs as Device::confirm_wait of the session's word
    /// so far, in a fresh instance; that session then answers 409 to further steps (clients delete
    /// it, as HttpDevice::confirm_wait does). A `/v1/run` with `timeout_ms` (status `run_timeout`,
    /// declared when the device takes Device::override_timing) runs with that tmax set through
    /// override_timing; a session's steps get the status tmax back. Throws like the other constructor.
    Agent(AnyDevices devices, AgentConfig config);
    /// Serves data devices (device/PROTOCOL.md, "Data devices"): /v1/status declares the `data`
    /// signature, `callin` steps and `/v1/run` inputs carry `values`, answers carry the output's
    /// values; there is no `wait` (a data device answers every input with one output). Throws like
    /// the other constructors.
    Agent(DataDevices devices, AgentConfig config);
    ~Agent();
    Agent(const Agent&) = delete;
    Agent& operator=(const Agent&) = delete;

    /// Makes a first device (for /v1/status), binds and starts serving. Throws typestar::Error when
    /// the address cannot be bound.
    void start();
    /// Stops serving, ends every session. Idempotent.
    void stop();
    /// The bound port (after start).
    [[nodiscard]] std::uint16_t port() const noexcept;
    /// "http://HOST:PORT".
    [[nodiscard]] std::string url() const;
    /// Sessions alive now.
    [[nodiscard]] std::size_t sessions() const;
    /// Requests that got the configured fault so far.
    [[nodiscard]] std::size_t faults_injected() const;

private:
    friend struct detail::AgentTestAccess;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};


}  // namespace typestar
