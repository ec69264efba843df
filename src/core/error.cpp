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

namespace {

std::string budget_message(std::uint64_t budget) {
    const std::string n = std::to_string(budget);
    std::string text = "the query budget of ";
    text.append(n).append(" executed queries ran out before a result (--budget ").append(n);
    text.append("): nothing was learned; raise the budget, or lower the bound");
    return text;
}

}  // namespace

TimingError::TimingError(std::string message, Kind kind, std::string callback, double delay_ms, double tmax_ms,
                         double tmin_ms, bool earlier_query, std::size_t runs)
    : DeviceError(message),
      detail_(std::move(message)),
      kind_(kind),
      callback_(std::move(callback)),
      delay_ms_(delay_ms),
      tmax_ms_(tmax_ms),
      tmin_ms_(tmin_ms),
      earlier_query_(earlier_query),
      runs_(runs) {}

const char* to_string(TimingError::Kind kind) noexcept {
    switch (kind) {
        case TimingError::Kind::LateCallback: return "late";
        case TimingError::Kind::QueuedCallback: return "queued";
        case TimingError::Kind::EarlyCallback: return "early";
    }
    return "late";
}

std::optional<TimingError::Kind> timing_kind_from_string(std::string_view name) noexcept {
    for (const auto kind : {TimingError::Kind::LateCallback, TimingError::Kind::QueuedCallback,
                            TimingError::Kind::EarlyCallback})
        if (name == to_string(kind)) return kind;
    return std::nullopt;
}

TimingError::TimingError(Repeated, const TimingError& one, std::string what, std::size_t runs)
    : DeviceError(what),
      detail_(one.detail_),
      kind_(one.kind_),
      callback_(one.callback_),
      delay_ms_(one.delay_ms_),
      tmax_ms_(one.tmax_ms_),
      tmin_ms_(one.tmin_ms_),
      earlier_query_(one.earlier_query_),
      runs_(runs) {}

TimingError TimingError::repeated(std::size_t runs, const std::string& word) const {
    return TimingError(Repeated{}, *this,
                       detail_ + " — the timing broke on each of " + std::to_string(runs) + " runs of '" +
                           (word.empty() ? std::string("ε") : word) +
                           "' (re-run after a pause each time)",
                       runs);
}

QueryBudgetError::QueryBudgetError(std::uint64_t budget) : Error(budget_message(budget)), budget_(budget) {}

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

}  // namespace typestar
