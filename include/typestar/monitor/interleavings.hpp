// Enumerating the callin/callback interleavings of a callback typestate up to a bound.
// Design note: generation is separate from execution. The generator walks the typestate depth
// first (events in MonitorModel::enabled order: callins as declared, then the owed callback) and
// yields each trace of exactly `bound` events, or fewer when it reaches a state where nothing can
// happen. Every trace of length <= bound is a prefix of exactly one yielded trace.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "typestar/monitor/monitor_model.hpp"

namespace typestar {

/// Lazily yields the maximal traces of a typestate up to length `bound`, in a fixed order.
class Interleavings {
public:
    /// Throws std::invalid_argument when `model` is null.
    Interleavings(std::shared_ptr<const MonitorModel> model, std::size_t bound);

    /// The next trace, or nullopt when every one was yielded. Deterministic.
    [[nodiscard]] std::optional<std::vector<Event>> next();
    /// How many traces were yielded so far.
    [[nodiscard]] std::uint64_t produced() const noexcept { return produced_; }

private:
    struct Frame {
        StateId state;
        std::vector<Event> choices;
        std::size_t next = 0;
    };
    std::shared_ptr<const MonitorModel> model_;
    std::size_t bound_;
    std::vector<Frame> stack_;
    std::vector<Event> word_;
    bool started_ = false;
    std::uint64_t produced_ = 0;
};

/// How many traces Interleavings(model, bound) yields, by dynamic programming over states
/// (saturating at UINT64_MAX): the size of the space before enumerating it.
[[nodiscard]] std::uint64_t count_interleavings(const MonitorModel& model, std::size_t bound);

}  // namespace typestar
