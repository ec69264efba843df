#include "typestar/core/error.hpp"

#include <string_view>
#include <utility>

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


std::string join_diagnostics(const std::vector<Diagnostic>& diagnostics) {
    std::string text;
    for (const auto& d : diagnostics) {
        if (!text.empty()) text += '\n';
        text += d.str();
    }
    return text.empty() ? std::string("invalid input") : text;
}

std::string join(const std::vector<std::string>& words) {
    std::string text;
    for (const auto& w : words) {
        if (!text.empty()) text += ' ';
        text += w;
    }
    return text.empty() ? std::string("ε") : text;
}

}  // namespace

std::string Diagnostic::str() const {
    std::string text = file;
    if (line > 0) {
        text += ':' + std::to_string(line);
        if (column > 0) text += ':' + std::to_string(column);
    }
    return text + ": " + message;
}

SpecError::SpecError(std::vector<Diagnostic> diagnostics)
    : Error(join_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

NondeterminismError::NondeterminismError(std::vector<std::string> inputs,
                                         std::vector<std::string> first_outputs,
                                         std::vector<std::string> second_outputs)
    : NondeterminismError(std::move(inputs), std::vector<Answer>{{std::move(first_outputs), 1},
                                                                 {std::move(second_outputs), 1}}) {}

namespace {

std::string describe_answers(const std::vector<NondeterminismError::Answer>& answers) {
    std::size_t runs = 0;
    std::string out;
    for (std::size_t i = 0; i < answers.size(); ++i) {
        runs += answers[i].count;
        out += (i == 0 ? "" : ", ") + std::string("[") + join(answers[i].outputs) + "] " +
               std::to_string(answers[i].count) + (answers[i].count == 1 ? " time" : " times");
    }
    return out + " (" + std::to_string(runs) + " runs)";
}

}  // namespace

NondeterminismError::NondeterminismError(std::vector<std::string> inputs, std::vector<Answer> answers)
    : Error("non-determinism: input [" + join(inputs) + "] answered " + describe_answers(answers)),
      inputs_(std::move(inputs)),
      answers_(std::move(answers)) {
    if (answers_.size() < 2) answers_.resize(2);
}

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
