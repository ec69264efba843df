// The data part of the device protocol /v1 (device/PROTOCOL.md, "Data devices"): the `data`
// signature of /v1/status and data symbols on the wire. Pure functions shared by the agent and
// HttpDataDevice. Private to src/device.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "typestar/ra/automaton.hpp"

namespace typestar::detail {

/// `{"inputs": [{"name", "parameters": [[name, type]...]}...], "outputs": [... "callback": bool],
/// "constants": [{"name", "type", "value"}...]}` for a signature.
[[nodiscard]] nlohmann::json data_signature_json(const ra::RegisterAutomaton& signature);

/// Reads a `data` signature (name from `name`). Throws DeviceError "<who>: malformed status: ..."
/// naming the field: not an object, a symbol without a name or named twice, a parameter that is
/// not [name, "int"|"id"], a constant that is not {name, type, integer value}.
[[nodiscard]] ra::RegisterAutomaton read_data_signature(const nlohmann::json& data, const std::string& name,
                                                        const std::string& who);

/// Reads the values of a data symbol of `decl` from `values` (absent: none). Returns an empty
/// string and fills `out`, or says what is wrong (not an array of integers, wrong count).
[[nodiscard]] std::string read_values(const nlohmann::json* values, const ra::SymbolDecl& decl,
                                      std::vector<ra::Value>& out);

}  // namespace typestar::detail
