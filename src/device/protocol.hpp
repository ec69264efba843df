// Shared pieces of the HTTP device protocol /v1 (device/PROTOCOL.md). Private to src/device.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace typestar::detail {

/// The protocol name and version the agent reports in /v1/status and the client requires.
inline constexpr const char* kProtocol = "typestar-device/1";

/// A WebDriver-style error body: {"value": {"error": CODE, "message": MESSAGE, "stacktrace": ""}}.
inline nlohmann::json error_json(const std::string& code, const std::string& message) {
    return {{"value", {{"error", code}, {"message", message}, {"stacktrace", ""}}}};
}

}  // namespace typestar::detail
