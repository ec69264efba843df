// The client side of the device protocol /v1 (device/PROTOCOL.md): what HttpDevice makes of an
// agent's answers. Pure functions (bytes or JSON in, a value or a DeviceError out, no I/O), so they
// are unit-tested and fuzzed (tests/fuzz/agent/) without an agent. Private to src/device.
// Every check here guards "never a wrong answer": an answer that does not fit the protocol, the
// alphabet or the contract of Device::run is refused, never guessed into an output.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "protocol.hpp"
#include "typestar/core/alphabet.hpp"
#include "typestar/core/error.hpp"
#include "typestar/ra/automaton.hpp"
#include "typestar/device/connection.hpp"
#include "typestar/sul/device.hpp"

namespace typestar::detail {

/// The data of a `timing violation` error (PROTOCOL.md: `value.timing`), thrown as TimingError.
struct TimingFault {
    TimingError::Kind kind = TimingError::Kind::LateCallback;
    std::string callback;  ///< empty: the agent named none (an adapter's own assumption)
    double delay_ms = 0, tmax_ms = 0, tmin_ms = 0;
    bool earlier_query = false;  ///< seen after that query had answered: never re-run
    std::size_t runs = 1;        ///< > 1: the agent re-ran the word already, on each run broken
};

/// The data of a `nondeterminism` error (PROTOCOL.md: `value.nondeterminism`), thrown as
/// NondeterminismError.
struct NondeterminismFault {
    std::vector<std::string> inputs;
    std::vector<NondeterminismError::Answer> answers;  ///< at least two, each seen `count` >= 1 times
};

/// A `nondeterminism` error of an agent as the client throws it: the data for every reader of a
/// NondeterminismError, and the agent's own words (e.g. which variants of a callin differ and what
/// to do) with the request they answered as its message.
class AgentNondeterminismError final : public NondeterminismError {
public:
    AgentNondeterminismError(NondeterminismFault fault, std::string message)
        : NondeterminismError(std::move(fault.inputs), std::move(fault.answers)), message_(std::move(message)) {}
    [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

private:
    std::string message_;
};

/// How one HTTP exchange ended.
struct JudgedAnswer {
    enum class Kind {
        Accepted,   ///< a 2xx answer whose body is a JSON object (`body`)
        Retryable,  ///< worth another attempt: garbage in a 2xx answer, 502/503/504
        Final,      ///< an error answer, or an answer over the size cap: retrying cannot help
    };
    Kind kind = Kind::Final;
    long status = 0;
    nlohmann::json body;  ///< the parsed body (a JSON object when Accepted; else possibly discarded)
    std::string what;     ///< for Retryable and Final, e.g. "HTTP 404 invalid session id: no session 'x'"
    /// Final `timing violation` with well-formed `value.timing`: a timing failure, never an answer
    /// (ill-formed data leaves it empty: the error is then an ordinary DeviceError).
    std::optional<TimingFault> timing;
    /// Final `nondeterminism` with well-formed `value.nondeterminism`: the device is not deterministic
    /// (ill-formed data leaves it empty: the error is then an ordinary DeviceError).
    std::optional<NondeterminismFault> nondeterminism;
};

/// Judges an answer: HTTP `status` with `body` (already received; at most `max_bytes` are
/// accepted, a longer body is Final with a message naming the cap). Never throws (but bad_alloc).
[[nodiscard]] JudgedAnswer judge_answer(long status, std::string_view body, std::size_t max_bytes);

/// "answer over the N-byte cap (HttpConfig::max_answer_bytes)": the message for a too large answer.
[[nodiscard]] std::string answer_cap_message(std::size_t max_bytes);


/// The agent's /v1/status and what the client derives from it.
struct StatusAnswer {
    AgentStatus status;
    Alphabet inputs;      ///< callins, then `wait`
    Alphabet outputs;     ///< `ok`, `quiet`, `err`, then callbacks
    DeviceTraits traits;  ///< closure_traits, without `quiet` unless the agent declares quiet_is_stable
    /// Mealy devices (status `outputs`): outputs with this id or above are named callin outputs, and
    /// a callin answering a name not yet known adds it (learn_output_name). nullopt: not Mealy.
    std::optional<Symbol> first_named;
    /// The typed signature of a data device (the status declares `data`; then only protocol, name
    /// and framework of `status` are read, and inputs, outputs and traits are empty).
    std::optional<ra::RegisterAutomaton> data;
};

/// Reads a /v1/status body. Throws DeviceError "<who>: ..." when the protocol is another one, a
/// field is missing or ill-typed, a symbol name is empty, has control characters, is reserved or
/// repeated, the timing is not 0 <= tmin_ms <= tmax_ms <= 3,600,000 (integers), or the optional
/// `environment` is not an array naming each of its entries, once, among `callins`; and when the
/// optional `parameters` does not have PROTOCOL.md's shape (the message names the field, e.g.
/// "parameters[0].partitions[1].name"): a callin that is itself an input or declared twice, a
/// partition name outside [A-Za-z0-9_.=<>!-]+ or repeated in its callin, a value input that is not
/// one of `callins`, not named `callin/label`, or listed twice.
[[nodiscard]] StatusAnswer read_status_answer(const nlohmann::json& body, const std::string& who);

class HttpTransport;

/// The one way a client reads an agent's status: GET /v1/status through `transport` (retried like
/// every request; errors say "device URL: status: ..."), then read_status_answer. Throws DeviceError.
[[nodiscard]] StatusAnswer fetch_status(HttpTransport& transport, const HttpConfig& config);

/// Reads the session id of a `POST /v1/sessions` answer: 1 to 128 characters of [A-Za-z0-9._~-]
/// (it goes into URLs). Throws DeviceError "<context>: ...".
[[nodiscard]] std::string read_session_answer(const nlohmann::json& body, const MessageContext& context);

/// Reads the output of a callin or wait answer for step `seq`: the answer must echo `seq` and name
/// an output of `outputs` that fits the input (a callin: `ok` or `err`, or a Mealy device's named
/// output, callin_output; a wait: `quiet` or a callback). Throws DeviceError "<context>: answer ... does not fit the protocol".
[[nodiscard]] Symbol read_step_answer(const nlohmann::json& body, std::uint64_t seq, bool is_wait,
                                      Alphabet& outputs, std::optional<Symbol> first_named,
                                      const MessageContext& context);
/// read_step_answer for a device whose outputs are fixed (not a Mealy device: nothing is learned).
[[nodiscard]] Symbol read_step_answer(const nlohmann::json& body, std::uint64_t seq, bool is_wait,
                                      const Alphabet& outputs, const MessageContext& context);

/// Reads a `POST /v1/run` answer for `word`: one known output per input, each fitting its input,
/// the contract of Device::run kept (everything after an absorbing output is that output; with a
/// quiet output in `traits`, a wait right after a wait answered quiet is quiet), 0 <= waits <=
/// steps <= the word's length and waits <= the word's waits. nullopt when it does not fit.
[[nodiscard]] std::optional<RunResult> read_run_answer(const nlohmann::json& body, std::span<const Symbol> word,
                                                       const DeviceTraits& traits, Alphabet& outputs,
                                                       std::optional<Symbol> first_named);
/// read_run_answer for a device whose outputs are fixed (not a Mealy device: nothing is learned).
[[nodiscard]] std::optional<RunResult> read_run_answer(const nlohmann::json& body, std::span<const Symbol> word,
                                                       const DeviceTraits& traits, const Alphabet& outputs);

/// The id of the callin answer `name` of a Mealy device (`first_named` set): a known named output,
/// `ok` or `err`; a new valid name (non-empty, at most 256 bytes, no control characters, not
/// `wait`, `quiet` or `unknown:...`) is added to `outputs`, so an output never declared is learned
/// and recorded. nullopt when the name cannot be an output or the device is not Mealy.
[[nodiscard]] std::optional<Symbol> callin_output(const std::string& name, Alphabet& outputs,
                                                  std::optional<Symbol> first_named);

/// The request bodies of HttpDevice, written by hand but byte for byte what dump_json writes for
/// the same objects (keys in order, no spaces), so that a query costs no JSON document:
/// `name_json` is dump_json of a name, made once per input (json_text).
[[nodiscard]] std::string json_text(const std::string& name);
/// {"callin":NAME,"seq":SEQ}
[[nodiscard]] std::string callin_body(std::uint64_t seq, std::string_view name_json);
/// {"seq":SEQ,"timeout_ms":TIMEOUT}
[[nodiscard]] std::string wait_body(std::uint64_t seq, std::chrono::milliseconds timeout);
/// {"inputs":[NAME,...]} with `names_json[s]` for each symbol s of `word`; with `timeout`,
/// {"inputs":[...],"timeout_ms":TIMEOUT} (every wait of the run waits that long; status `run_timeout`).
[[nodiscard]] std::string run_body(std::span<const Symbol> word, std::span<const std::string> names_json,
                                   std::optional<std::chrono::milliseconds> timeout = std::nullopt);

/// `base + per_wait * waits` without overflow (saturates at a day; a timeout is never negative).
[[nodiscard]] std::chrono::milliseconds request_budget(std::chrono::milliseconds base,
                                                       std::chrono::milliseconds per_wait, std::size_t waits);

}  // namespace typestar::detail
