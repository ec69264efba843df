// Shared pieces of the HTTP device protocol /v1 (device/PROTOCOL.md). Private to src/device.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "typestar/core/error.hpp"

namespace typestar::detail {

/// The protocol name and version the agent reports in /v1/status and the client requires.
inline constexpr const char* kProtocol = "typestar-device/1";

/// Sends all of `data` on a connected socket (MSG_NOSIGNAL; EINTR retried): false when the peer is
/// gone or the socket's send timeout (SO_SNDTIMEO) expired, errno saying which. The agent's answers
/// and the direct client's requests (http_server.cpp, http_direct.cpp).
bool send_all(int fd, std::string_view data);

/// The largest `timeout_ms` of a wait and the largest tmax/tmin an agent may declare: one hour.
inline constexpr long long kMaxTimingMs = 3'600'000;

/// JSON text of `value`, never throwing on strings that are not UTF-8: invalid bytes become
/// U+FFFD (strings may carry a request's bytes or an exception's message). Every JSON the agent
/// and the client write goes through here.
inline std::string dump_json(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// What a message is about, prefixing it (e.g. "device URL: query 'a b'"): a text, or a function
/// that makes it, called only when a message is made, so that a query's text is not built for
/// every request that succeeds.
class MessageContext {
public:
    MessageContext(const char* text) : text_(text) {}           // NOLINT(google-explicit-constructor)
    MessageContext(std::string text) : text_(std::move(text)) {}  // NOLINT(google-explicit-constructor)
    template <class F, std::enable_if_t<std::is_invocable_r_v<std::string, const F&> &&
                                            !std::is_convertible_v<F, std::string>, int> = 0>
    MessageContext(F make) : make_(std::move(make)) {}  // NOLINT(google-explicit-constructor)
    /// The text.
    [[nodiscard]] std::string str() const { return make_ ? make_() : text_; }

private:
    std::string text_;
    std::function<std::string()> make_;
};

/// The deepest nesting of arrays and objects a protocol JSON text may have (the top-level object is
/// level 1). Every agent refuses a deeper request body with 400 (device/PROTOCOL.md, "Limits"), and
/// the client refuses a deeper answer: nothing ever recurses over a hostile depth.
inline constexpr std::size_t kMaxJsonDepth = 64;

/// Whether `text` nests arrays and objects deeper than `max` levels. A linear scan that skips
/// strings (with their escapes); no recursion, no allocation. Says nothing about the text's syntax.
inline bool json_nests_deeper_than(std::string_view text, std::size_t max) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max) return true;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return false;
}

/// `text` parsed as JSON, or a discarded value (is_discarded()) when it is not JSON or nests deeper
/// than kMaxJsonDepth. Every JSON the agent and the client read goes through here.
inline nlohmann::json parse_json(std::string_view text) {
    if (json_nests_deeper_than(text, kMaxJsonDepth)) return nlohmann::json(nlohmann::json::value_t::discarded);
    return nlohmann::json::parse(text, nullptr, false);
}

/// `value` as JSON text for a message: ASCII only (control characters, invalid bytes and other
/// non-ASCII characters escaped) and at most about `max` bytes ("..." appended when cut), so a
/// hostile value can neither forge a line or a terminal code nor make a message unbounded.
inline std::string shown_json(const nlohmann::json& value, std::size_t max = 200) {
    std::string text = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    if (text.size() <= max) return text;
    text.resize(max);  // ASCII only: any cut is a character boundary
    return text + "...";
}

/// At most `max` bytes of `text` for a message, cut at a UTF-8 character boundary, "..." appended
/// when cut (the answer's JSON escapes the rest).
inline std::string clipped(std::string_view text, std::size_t max = 128) {
    if (text.size() <= max) return std::string(text);
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return std::string(text.substr(0, cut)) + "...";
}

/// A WebDriver-style error body: {"value": {"error": CODE, "message": MESSAGE, "stacktrace": ""}}.
inline nlohmann::json error_json(const std::string& code, const std::string& message) {
    return {{"value", {{"error", code}, {"message", message}, {"stacktrace", ""}}}};
}

/// The error code of a broken timing assumption (PROTOCOL.md, "Errors"): 500 with `value.timing`.
inline constexpr const char* kTimingViolation = "timing violation";

/// The body of a `timing violation`: error_json with `value.timing` = {kind, callback, delay_ms,
/// tmax_ms, tmin_ms, earlier_query, runs} from `e`, so a client re-runs the word (runs 1) or ends in
/// a TimingError naming the callback (runs > 1: the agent re-ran it already), never an answer.
inline nlohmann::json timing_violation_json(const TimingError& e) {
    nlohmann::json body = error_json(kTimingViolation, e.what());
    body["value"]["timing"] = {{"kind", to_string(e.kind())}, {"callback", e.callback()},
                               {"delay_ms", e.delay_ms()},         {"tmax_ms", e.tmax_ms()},
                               {"tmin_ms", e.tmin_ms()},           {"earlier_query", e.earlier_query()},
                               {"runs", e.runs()}};
    return body;
}

/// The error code of a device whose answers to one word differ (PROTOCOL.md, "Errors"): 500 with
/// `value.nondeterminism`.
inline constexpr const char* kNondeterminism = "nondeterminism";

/// The body of a `nondeterminism` error: error_json with `value.nondeterminism` = {inputs, answers:
/// [{outputs, count}, ...]} from `e`, so that a client reports the device as not deterministic
/// (NondeterminismError), not as a harness failure.
inline nlohmann::json nondeterminism_json(const NondeterminismError& e) {
    nlohmann::json body = error_json(kNondeterminism, e.what());
    nlohmann::json answers = nlohmann::json::array();
    for (const auto& a : e.answers()) answers.push_back({{"outputs", a.outputs}, {"count", a.count}});
    body["value"]["nondeterminism"] = {{"inputs", e.inputs()}, {"answers", std::move(answers)}};
    return body;
}

}  // namespace typestar::detail
