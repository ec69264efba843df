// Internal helpers of the spec module: did-you-mean, name checks, YAML scalar quoting, printable
// diagnostics, bounded file reading.
#include "spec_detail.hpp"

#include "fd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace typestar::spec::detail {
namespace {

/// Edit distance of `a` and `b` if at most `limit`, else limit + 1. Only the diagonal band
/// |i - j| <= limit is computed (hand-written: a few lines; no Debian library offers a bounded
/// Levenshtein for C++).
std::size_t bounded_distance(std::string_view a, std::string_view b, std::size_t limit) {
    const std::size_t over = limit + 1;
    if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return over;
    std::vector<std::size_t> previous(b.size() + 1, over);
    std::vector<std::size_t> current(b.size() + 1, over);
    for (std::size_t j = 0; j <= std::min(b.size(), limit); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        const std::size_t from = i > limit ? i - limit : 1;
        const std::size_t to = std::min(b.size(), i + limit);
        // Only the band is written; the cells just outside it, which this row and the next read,
        // are reset (clearing whole rows would make long names quadratic again).
        current[from - 1] = (from == 1 && i <= limit) ? i : over;
        if (to + 1 <= b.size()) current[to + 1] = over;
        std::size_t best = current[from - 1];
        for (std::size_t j = from; j <= to; ++j) {
            const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({substitution, previous[j] + 1, current[j - 1] + 1, over});
            best = std::min(best, current[j]);
        }
        if (best > limit) return over;
        std::swap(previous, current);
    }
    return std::min(previous[b.size()], over);
}

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

std::optional<std::string> did_you_mean(std::string_view word, std::span<const std::string_view> candidates,
                                        SuggestionBudget* budget) {
    if (budget != nullptr && !budget->take(candidates.size())) return std::nullopt;
    std::optional<std::string> best;
    std::size_t best_distance = 3;
    for (const std::string_view candidate : candidates) {
        const std::size_t gap =
            word.size() > candidate.size() ? word.size() - candidate.size() : candidate.size() - word.size();
        if (gap >= best_distance) continue;
        if (budget != nullptr && !budget->take(std::min(word.size(), candidate.size()))) break;
        const std::size_t distance = bounded_distance(word, candidate, best_distance - 1);
        if (distance < best_distance) {
            best_distance = distance;
            best = std::string(candidate);
            if (distance == 0) break;
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

std::vector<Diagnostic> printable(std::vector<Diagnostic> diagnostics) {
    for (Diagnostic& d : diagnostics) {
        d.file = printable(d.file);
        d.message = printable(d.message);
    }
    return diagnostics;
}

void throw_spec_error(std::vector<Diagnostic> diagnostics) { throw SpecError(printable(std::move(diagnostics))); }

std::optional<Diagnostic> size_diagnostic(std::size_t size, const std::string& file, const ReadLimits& limits) {
    if (size <= limits.max_bytes) return std::nullopt;
    return Diagnostic{file, 0, 0,
                      "input is larger than the limit of " + std::to_string(limits.max_bytes) +
                          " bytes (set TYPESTAR_MAX_INPUT_BYTES to allow more)"};
}

std::string read_input_file(const std::filesystem::path& path, const ReadLimits& limits, std::string_view what) {
    const std::string file = path.string();
    const auto fail = [&](const std::string& why) {
        throw_spec_error({Diagnostic{file, 0, 0, "cannot read " + std::string(what) + ": " + why}});
    };
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) fail(errno_text(errno));
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) fail(errno_text(errno));
    if (S_ISDIR(info.st_mode)) fail(errno_text(EISDIR));  // "Is a directory", like the other errno texts
    if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode)) {
        fail("Not a regular file (a device or socket)");
    }
    if (S_ISREG(info.st_mode)) {
        if (auto d = size_diagnostic(static_cast<std::size_t>(info.st_size), file, limits)) throw_spec_error({*d});
    }
    std::string text;
    std::array<char, 1 << 16> buffer{};
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(errno_text(errno));
        }
        text.append(buffer.data(), static_cast<std::size_t>(n));
        // A pipe, or a file that grew after fstat: bounded while reading.
        if (auto d = size_diagnostic(text.size(), file, limits)) throw_spec_error({*d});
    }
    return text;
}

std::optional<std::size_t> limit_from_environment(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    const std::string_view text(value);
    const auto bad = [&] {
        throw Error(std::string(name) + "='" + printable(text) +
                    "' is not a positive integer (optionally followed by K, M or G)");
    };
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 15) bad();
    std::size_t number = 0;
    for (std::size_t i = 0; i < digits; ++i) number = number * 10 + static_cast<std::size_t>(text[i] - '0');
    const std::string_view suffix = text.substr(digits);
    unsigned shift = 0;
    if (suffix == "K") {
        shift = 10;
    } else if (suffix == "M") {
        shift = 20;
    } else if (suffix == "G") {
        shift = 30;
    } else if (!suffix.empty()) {
        bad();
    }
    if (number == 0 || number > (std::numeric_limits<std::size_t>::max() >> shift)) bad();
    return number << shift;
}

}  // namespace typestar::spec::detail

namespace typestar::spec {

ReadLimits ReadLimits::from_environment() {
    ReadLimits limits;
    if (const auto v = detail::limit_from_environment("TYPESTAR_MAX_INPUT_BYTES")) limits.max_bytes = *v;
    if (const auto v = detail::limit_from_environment("TYPESTAR_MAX_TRANSITIONS")) limits.max_transitions = *v;
    return limits;
}

}  // namespace typestar::spec
