// A device reached over the HTTP protocol /v1 (device/PROTOCOL.md), with libcurl.
// Design note: one CURL easy handle per device, reused for every request (keep-alive). Transport
// failures, garbage and "busy" answers are retried a bounded number of times with exponential
// backoff — safe, because a step carries a sequence number the agent uses to answer a retry from
// its last response, a session create carries a request id, and a batch run starts from a fresh
// instance. When the retries are used up the device throws a DeviceError that names the device and
// the query; an answer that does not fit the alphabet is never returned.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "typestar/device/purpose.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

/// Options of HttpDevice. Plain data with defaults.
struct HttpConfig {
    std::string url;    ///< the agent, "http://HOST:PORT"
    std::string token;  ///< the bearer token
    std::chrono::milliseconds connect_timeout{2000};
    /// Total time allowed for one request, on top of the time its waits may take (a wait's timeout,
    /// or waits × tmax for a batch run).
    std::chrono::milliseconds request_timeout{5000};
    std::size_t retries = 3;                  ///< attempts after the first
    std::chrono::milliseconds backoff{50};    ///< before the first retry; doubled each time
    bool batch = true;                        ///< run() is one POST /v1/run round trip
    /// The largest answer body read, bytes; a larger answer is a DeviceError naming this cap (not
    /// retried).
    std::size_t max_answer_bytes = 16 * 1024 * 1024;
};

/// What an agent reports in /v1/status.
struct AgentStatus {
    std::string protocol;
    std::string name;
    std::string framework;
    std::vector<std::string> callins;
    std::vector<std::string> callbacks;
    QuiescenceTiming timing;
    /// Whether a `wait` answered `quiet` leaves the state unchanged; false when the agent does not
    /// say so.
    bool quiet_is_stable = false;
    /// The callins the peer performs (optional field `environment`, spec `role: environment`), in
    /// the order of `callins`; empty when the agent does not say.
    std::vector<std::string> environment{};
    /// The parameterised callins it declares (`parameters`, PSYCO): each concrete value is one of
    /// `callins`; empty when the agent declares none.
    std::vector<DeviceDescription::Parameterised> parameters;
};

/// A device served by a `typestar-device` agent. Inputs: the agent's callins then `wait`; outputs
/// `ok`, `quiet`, `err`, then its callbacks. Traits: closure_traits (without `quiet` when the agent
/// says quiet may change the state). Not thread-safe (one query at a time; use several for a pool).
class HttpDevice final : public Device {
public:
    /// Connects and reads /v1/status. Throws DeviceError (unreachable agent, refused token, another
    /// protocol version, a malformed status: e.g. tmax_ms or tmin_ms not an integer in [0, 3600000]
    /// or tmin above tmax), std::invalid_argument for a URL that is not http://HOST:PORT.
    explicit HttpDevice(HttpConfig config);
    ~HttpDevice() override;
    HttpDevice(const HttpDevice&) = delete;
    HttpDevice& operator=(const HttpDevice&) = delete;

    [[nodiscard]] const Alphabet& inputs() const override { return inputs_; }
    [[nodiscard]] const Alphabet& outputs() const override { return outputs_; }
    [[nodiscard]] DeviceTraits traits() const override { return traits_; }
    /// The URL, e.g. "http://127.0.0.1:8765".
    [[nodiscard]] std::string name() const override { return config_.url; }
    /// The agent's class name, framework version, timing and parameterised callins (from /v1/status).
    [[nodiscard]] DeviceDescription describe() const override;

    /// Creates a session (a fresh instance). Throws DeviceError.
    void reset() override;
    /// One callin or `wait` (with the agent's tmax). Throws DeviceError.
    Symbol step(Symbol input) override;
    /// Runs `prefix`, then a `wait` with the given timeout, in one fresh session.
    [[nodiscard]] std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                     std::chrono::milliseconds timeout) override;
    /// Deletes the session (one attempt); errors are logged, never thrown.
    void finish() noexcept override;
    /// With HttpConfig::batch, the whole query in one round trip (POST /v1/run); else Device::run.
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override;

    /// The agent's status, as read at construction.
    [[nodiscard]] const AgentStatus& status() const noexcept { return status_; }
    /// Requests sent, including retries (plain data, for tests and benchmarks).
    [[nodiscard]] std::uint64_t requests() const noexcept { return requests_; }
    /// Retries made after transport errors or garbage.
    [[nodiscard]] std::uint64_t retries() const noexcept { return retries_; }

private:
    Symbol step_with(Symbol input, std::chrono::milliseconds wait_timeout);

    struct Curl;
    struct Reply;
    Reply request(const char* method, const std::string& path, const std::string& body,
                  std::chrono::milliseconds expected, const std::string& query);
    std::string word_text(std::span<const Symbol> word) const;
    std::string who() const;

    HttpConfig config_;
    std::unique_ptr<Curl> curl_;
    AgentStatus status_;
    Alphabet inputs_;
    Alphabet outputs_;
    DeviceTraits traits_;
    std::string session_;
    std::uint64_t seq_ = 0;
    Word session_word_;
    std::uint64_t requests_ = 0;
    std::uint64_t retries_ = 0;
};

}  // namespace typestar
