#include "typestar/core/error.hpp"

#include <utility>

namespace typestar {
namespace {

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
    : Error("non-determinism: input [" + join(inputs) + "] answered first [" + join(first_outputs) +
            "], then [" + join(second_outputs) + "]"),
      inputs_(std::move(inputs)),
      first_(std::move(first_outputs)),
      second_(std::move(second_outputs)) {}

}  // namespace typestar
