#include "typestar/monitor/interleavings.hpp"

#include <limits>
#include <stdexcept>
#include <utility>

namespace typestar {

Interleavings::Interleavings(std::shared_ptr<const MonitorModel> model, std::size_t bound)
    : model_(std::move(model)), bound_(bound) {
    if (!model_) throw std::invalid_argument("Interleavings: null model");
}

std::optional<std::vector<Event>> Interleavings::next() {
    auto push = [this](StateId state) {
        // Frame i holds the state after word_[0..i) and the events still to try there.
        stack_.push_back(Frame{state, word_.size() < bound_ ? model_->enabled(state) : std::vector<Event>{}, 0});
    };
    if (!started_) {
        started_ = true;
        push(model_->initial());
    } else {
        if (stack_.empty()) return std::nullopt;  // exhausted earlier
        for (;;) {  // backtrack to the deepest frame with an untried event
            stack_.pop_back();
            if (stack_.empty()) return std::nullopt;
            word_.pop_back();
            if (stack_.back().next < stack_.back().choices.size()) break;
        }
    }
    while (word_.size() < bound_) {
        Frame& top = stack_.back();
        if (top.next >= top.choices.size()) break;  // nothing can happen here: a maximal trace
        const Event e = top.choices[top.next++];
        word_.push_back(e);
        push(*model_->step(top.state, e));
    }
    ++produced_;
    return word_;
}

std::uint64_t count_interleavings(const MonitorModel& model, std::size_t bound) {
    constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
    const std::size_t n = model.num_states();
    std::vector<std::vector<StateId>> successors(n);
    for (StateId s = 0; s < n; ++s)
        for (const auto& e : model.enabled(s)) successors[s].push_back(*model.step(s, e));
    std::vector<std::uint64_t> count(n, 1);  // traces of length 0
    for (std::size_t d = 1; d <= bound; ++d) {
        std::vector<std::uint64_t> next(n, 1);
        for (StateId s = 0; s < n; ++s) {
            if (successors[s].empty()) continue;  // maximal already: one trace
            std::uint64_t sum = 0;
            for (const StateId t : successors[s]) sum = count[t] > kMax - sum ? kMax : sum + count[t];
            next[s] = sum;
        }
        count = std::move(next);
    }
    return count[model.initial()];
}

}  // namespace typestar
