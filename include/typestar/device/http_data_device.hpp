// A data device reached over the HTTP protocol /v1 (device/PROTOCOL.md, "Data devices"): an agent
// whose /v1/status declares a `data` signature. Design note: every data word runs in a session
// (POST /v1/sessions, then one `callin` with `values` per input, carrying sequence numbers, so a
// retried step never runs twice); transport failures and busy answers are retried with backoff like
// HttpDevice's, and an answer that does not fit the signature is a DeviceError, never an output.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "typestar/device/data_device.hpp"
#include "typestar/device/connection.hpp"

namespace typestar {

namespace detail {
struct StatusAnswer;
}

/// A data device served by a /v1 agent (Agent(DataDevices, ...) or any agent declaring `data`).
class HttpDataDevice final : public DataDevice {
public:
    /// Connects and reads /v1/status. Throws DeviceError (unreachable agent, refused token, another
    /// protocol, a status without `data` or with a malformed one), std::invalid_argument for a URL
    /// that is not http://HOST:PORT.
    explicit HttpDataDevice(HttpConfig config);
    /// With the agent's status already read (open_device reads it once to choose the kind of
    /// device). Throws DeviceError when the status declares no data device.
    HttpDataDevice(HttpConfig config, detail::StatusAnswer status);
    ~HttpDataDevice() override;
    HttpDataDevice(const HttpDataDevice&) = delete;
    HttpDataDevice& operator=(const HttpDataDevice&) = delete;

    /// Whether the agent's /v1/status declares `data` (throws DeviceError like the constructor).
    [[nodiscard]] static bool serves_data(HttpConfig config);

    [[nodiscard]] const ra::RegisterAutomaton& signature() const override { return signature_; }
    [[nodiscard]] std::string name() const override { return config_.url; }
    [[nodiscard]] DeviceDescription describe() const override;
    /// Ends the previous session (one attempt), creates a fresh one. Throws DeviceError.
    void reset() override;
    /// One callin with its values. Throws DeviceError (including an answer that is not a declared
    /// output with the declared number of integer values, or that does not echo the step's seq).
    ra::DataSymbol step(const ra::DataSymbol& input) override;
    /// Requests sent, including retries.
    [[nodiscard]] std::uint64_t requests() const noexcept { return requests_; }

private:
    struct Transport;
    void adopt(detail::StatusAnswer status);
    void end_session() noexcept;

    HttpConfig config_;
    std::unique_ptr<Transport> transport_;
    ra::RegisterAutomaton signature_;
    std::string class_name_;
    std::string framework_;
    std::string session_;
    std::uint64_t seq_ = 0;
    std::string word_;  // the session's inputs so far, for messages
    std::uint64_t requests_ = 0;
};

}  // namespace typestar
