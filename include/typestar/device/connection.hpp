// What the HTTP client and the agents share (device/PROTOCOL.md): the connection settings, the
// agent's /v1/status, the quiescence timing and the bearer-token lookup. Design note: plain types
// below both the devices (HttpDevice, HttpDataDevice, open_device) and the agents (Agent, learning
// purposes), so that neither side includes the other.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "typestar/sul/device.hpp"

namespace typestar {

/// Quiescence timing (DroidStar §5.2, Assumption 1). The rule behind both bounds: no callin while a
/// callback is still queued. A callback that arrives while the device has not yet handed out the
/// previous ones (at a `wait`) would let the next callin run in a state the synchronous closure does
/// not describe, so the device reports it instead of answering. Callbacks that complete *during* a
/// call (an Asio handler run at once, a hook fired inside the library call) break it with any tmin;
/// for them, settle inside the callin and restrict the purpose with `callbacks_drained`
/// (typestar/device/drained.hpp; typestar/asio/event_loop.hpp for Asio-based classes).
struct QuiescenceTiming {
    /// `wait` answers `quiet` when no callback arrives for this long.
    std::chrono::milliseconds tmax{200};
    /// Callbacks are assumed to arrive at least this long after the callin that caused them; a
    /// faster callback is a tmin violation (the device reports it instead of answering).
    std::chrono::milliseconds tmin{0};
    bool operator==(const QuiescenceTiming&) const = default;
};

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
    /// An agent on a loopback host (127.0.0.0/8, ::1, localhost) is reached over one plain socket,
    /// its answers parsed with Boost.Beast (two system calls per request), when typestar was built
    /// with Boost's headers; false, or without Boost: libcurl for every host (five). Answers,
    /// timeouts, retries and the answer cap are the same either way; only the failure texts differ.
    bool direct_loopback = true;
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
    /// Whether its learning purpose may leave callins unexplored (optional field `outside_purpose`):
    /// a callin it denies answers `err` marked `"outside_purpose"`, read as kOutsidePurpose.
    bool outside_purpose = false;
    /// Mealy devices (optional field `outputs`): callins may answer these named outputs (and any
    /// other name, learned when first answered) besides `ok`/`err`; nullopt when the agent does not
    /// declare the field (then a callin answers `ok` or `err` only).
    std::optional<std::vector<std::string>> outputs{};
    /// Whether `err` is absorbing (optional field `absorbing`: ["err"], the default, or []).
    bool err_absorbing = true;
    /// Whether the device has the quiescence input `wait` (optional field `wait`, default true;
    /// false only without callbacks).
    bool has_wait = true;
    /// Whether `POST /v1/run` takes the wait timeout (optional field `run_timeout`): then a client
    /// whose tmax is overridden still sends one request per query; false when the agent does not say.
    bool run_timeout = false;
};

/// Reads an agent's /v1/status body given as text (a runner's own purpose described as its agent
/// would serve it), as every client reads it. Throws DeviceError "<who>: ..." for text that is not
/// JSON or a status of another shape. For a data device only protocol, name and framework are read.
[[nodiscard]] AgentStatus read_agent_status(const std::string& text, const std::string& who);

/// Reads a bearer token from `path` (surrounding whitespace trimmed). Throws typestar::Error when
/// the file cannot be read, is empty, or is readable or writable by group or others (mode must be
/// 0600 or stricter).
[[nodiscard]] std::string read_token_file(const std::filesystem::path& path);

/// The bearer token of a client or an agent, looked up in one order: the file `token_file` when
/// given, else TYPESTAR_DEVICE_TOKEN, else the file named by TYPESTAR_DEVICE_TOKEN_FILE
/// (read_token_file). Empty when none is set. Throws typestar::Error for a file that cannot be used.
[[nodiscard]] std::string find_token(const std::filesystem::path& token_file = {});

/// The message for a missing token: "no bearer token (set TYPESTAR_DEVICE_TOKEN or TYPESTAR_DEVICE_TOKEN_FILE)".
[[nodiscard]] std::string missing_token_message();

}  // namespace typestar
