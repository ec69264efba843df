// Internal helpers of the spec module: did-you-mean, name checks, YAML scalar quoting.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "spec_detail.hpp"

namespace typestar::spec::detail {

std::optional<std::string> did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
    std::optional<std::string> best;
    std::size_t best_distance = 3;
    for (const std::string_view candidate : candidates) {
        // Levenshtein distance, one row at a time.
        std::vector<std::size_t> row(candidate.size() + 1);
        for (std::size_t j = 0; j < row.size(); ++j) row[j] = j;
        for (std::size_t i = 1; i <= word.size(); ++i) {
            std::size_t diagonal = row[0];
            row[0] = i;
            for (std::size_t j = 1; j <= candidate.size(); ++j) {
                const std::size_t above = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (word[i - 1] == candidate[j - 1] ? 0 : 1)});
                diagonal = above;
            }
        }
        if (row.back() < best_distance) {
            best_distance = row.back();
            best = std::string(candidate);
        }
    }
    return best;
}

bool is_valid_spec_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '-';
    });
}

namespace {

bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Words some YAML reader resolves to null or a boolean (YAML 1.1 and 1.2), compared lowercase.
bool is_special_word(std::string_view text) {
    static constexpr std::array<std::string_view, 11> kWords = {"null", "true", "false", "yes", "no", "on",
                                                                "off",  "y",    "n",     "nan", "inf"};
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
        return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return std::find(kWords.begin(), kWords.end(), lower) != kWords.end();
}

}  // namespace

std::string yaml_scalar(std::string_view text, bool allow_number) {
    const bool all_digits = !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
    bool plain = !text.empty() && (is_letter(text.front()) || text.front() == '_') && !is_special_word(text) &&
                 std::all_of(text.begin(), text.end(), [](char c) {
                     return is_letter(c) || is_digit(c) || c == '_' || c == '.' || c == '-' || c == '/';
                 });
    if (allow_number && all_digits && (text.size() == 1 || text.front() != '0')) plain = true;
    if (plain) return std::string(text);
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (byte < 0x20 || byte == 0x7f) {
                    static constexpr char kHex[] = "0123456789abcdef";
                    out += "\\x";
                    out += kHex[byte >> 4];
                    out += kHex[byte & 0xf];
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

}  // namespace typestar::spec::detail
