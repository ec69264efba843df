// Shared pieces of the HTTP device protocol /v1 (device/PROTOCOL.md). Private to src/device.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace typestar::detail {

/// The protocol name and version the agent reports in /v1/status and the client requires.
inline constexpr const char* kProtocol = "typestar-device/1";

/// The largest `timeout_ms` of a wait and the largest tmax/tmin an agent may declare: one hour.
inline constexpr long long kMaxTimingMs = 3'600'000;

/// JSON text of `value`, never throwing on strings that are not UTF-8: invalid bytes become
/// U+FFFD (strings may carry a request's bytes or an exception's message). Every JSON the agent
/// and the client write goes through here.
inline std::string dump_json(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// A WebDriver-style error body: {"value": {"error": CODE, "message": MESSAGE, "stacktrace": ""}}.
inline nlohmann::json error_json(const std::string& code, const std::string& message) {
    return {{"value", {{"error", code}, {"message", message}, {"stacktrace", ""}}}};
}

}  // namespace typestar::detail
