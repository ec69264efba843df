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
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "typestar/device/connection.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

namespace detail {
struct StatusAnswer;
}

/// A device served by a `typestar-device` agent. Inputs: the agent's callins then `wait`; outputs
/// `ok`, `quiet`, `err`, then its callbacks. Traits: closure_traits (without `quiet` when the agent
/// says quiet may change the state). Not thread-safe (one query at a time; use several for a pool).
class HttpDevice final : public Device {
public:
    /// Connects and reads /v1/status. Throws DeviceError (unreachable agent, refused token, another
    /// protocol version, a malformed status: e.g. tmax_ms or tmin_ms not an integer in [0, 3600000]
    /// or tmin above tmax), std::invalid_argument for a URL that is not http://HOST:PORT.
    explicit HttpDevice(HttpConfig config);
    /// With the agent's status already read (open_device reads it once to choose the kind of
    /// device). Throws DeviceError when the status declares a data device.
    HttpDevice(HttpConfig config, detail::StatusAnswer status);
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
    /// Every `wait` carries the user's tmax from now on: a one-round-trip run carries it as the
    /// run's `timeout_ms` when the agent declares `run_timeout` (else runs go step by step, as an
    /// older agent's run waits with its own tmax); tmin is recorded (the agent checks its own).
    bool override_timing(const TimingOverride& timing) override;
    bool declare_outputs(std::span<const std::string> names) override;
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
    void adopt(detail::StatusAnswer status);

    struct Curl;
    struct Reply;
    Reply request(const char* method, const std::string& path, const std::string& body,
                  std::chrono::milliseconds expected, const std::function<std::string()>& query);
    std::string word_text(std::span<const Symbol> word) const;
    const std::string& who() const { return who_; }

    HttpConfig config_;
    std::unique_ptr<Curl> curl_;
    AgentStatus status_;
    std::string timing_note_;  // DeviceDescription::timing_note after override_timing
    std::optional<std::chrono::milliseconds> run_timeout_;  // the overridden tmax a /v1/run carries
    std::string who_;          // "device URL (class)", prefixing messages
    std::vector<std::string> input_json_;  // each input's name as JSON text, for request bodies
    Alphabet inputs_;
    Alphabet outputs_;
    DeviceTraits traits_;
    std::optional<Symbol> first_named_;  ///< Mealy devices: named callin outputs from this id on
    std::string session_;
    std::string callin_path_, wait_path_;  // of session_
    std::uint64_t seq_ = 0;
    Word session_word_;
    std::uint64_t requests_ = 0;
    std::uint64_t retries_ = 0;
};

}  // namespace typestar
