// Numbers in the session's messages. Private to src/session.
#pragma once

#include <cstdint>
#include <string>

namespace typestar::detail {

/// `n` with thousands separators: 57637 -> "57,637".
inline std::string grouped(std::uint64_t n) {
    std::string digits = std::to_string(n);
    for (std::size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, ",");
    return digits;
}

}  // namespace typestar::detail
