#include "typestar/core/printable.hpp"

#include <cstddef>

namespace typestar {
namespace {

/// Length of the UTF-8 sequence starting at `text[i]` if it is a valid one, else 0.
std::size_t utf8_length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;   // no overlong forms
        if (lead == 0xED) high = 0x9F;  // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    if (byte(i + 1) < low || byte(i + 1) > high) return 0;
    for (std::size_t k = 2; k < length; ++k) {
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    }
    return length;
}

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte >= 0x20 && byte < 0x7f) {
            out += text[i++];
            continue;
        }
        if (byte == '\n' || byte == '\t' || byte == '\r') {
            out += byte == '\n' ? "\\n" : byte == '\t' ? "\\t" : "\\r";
            ++i;
            continue;
        }
        if (byte >= 0x80) {
            const std::size_t length = utf8_length(text, i);
            const auto second = length == 2 ? static_cast<unsigned char>(text[i + 1]) : 0;
            if (length == 2 && byte == 0xC2 && second <= 0x9F) {  // C1 control U+0080..U+009F
                out += "\\u00";
                out += kHex[second >> 4];
                out += kHex[second & 0xf];
                i += 2;
                continue;
            }
            if (length > 0) {
                out.append(text.substr(i, length));
                i += length;
                continue;
            }
        }
        out += "\\x";
        out += kHex[byte >> 4];
        out += kHex[byte & 0xf];
        ++i;
    }
    return out;
}

}  // namespace typestar
