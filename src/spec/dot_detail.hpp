// What the Mealy DOT reader (dot.cpp) and writer (dot_writer.cpp) share: the DOT identifier
// characters, keyword case-folding and the initial-state marker. Private to src/spec.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace typestar::spec::detail {

/// A character that may start a bare DOT identifier (letters, '_', any non-ASCII byte).
inline bool is_id_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
/// A character that may continue a bare DOT identifier.
inline bool is_id_char(unsigned char c) { return is_id_start(c) || std::isdigit(c); }

/// `s` in ASCII lower case (DOT keywords are case-insensitive).
inline std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

/// True for the invisible initial-state marker node: `__start` followed by digits.
inline bool is_marker(std::string_view id) {
    constexpr std::string_view prefix = "__start";
    if (id.substr(0, prefix.size()) != prefix) return false;
    const auto rest = id.substr(prefix.size());
    return std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace typestar::spec::detail
