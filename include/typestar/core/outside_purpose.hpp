// The output of a callin that a learning purpose denies: the purpose said "not explored
// here", the class was not called, so it is no answer of the class.
// Design note: a device names it among its outputs like `err` (closure_traits finds `err` by name);
// oracles that know it (Device::run, CacheOracle) end a query there like after the absorbing output,
// and every later answer is `err`. Learning makes it an unknown transition with source `purpose`
// (spec format v2 `unknown`); a device over HTTP gets it as `err` marked `"outside_purpose"`
// (device/PROTOCOL.md). A device that cannot deny anything never has it among its outputs.
#pragma once

#include <string_view>

namespace typestar {

/// "unknown:purpose": the output of a callin outside the learning purpose (see above).
inline constexpr std::string_view kOutsidePurpose = "unknown:purpose";

}  // namespace typestar
