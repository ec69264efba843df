// The learning-purpose helpers shared by the real targets, and their registry.
#include <algorithm>
#include <mutex>
#include <utility>

#include "typestar/core/typestate.hpp"
#include "typestar/targets/targets.hpp"

namespace typestar::targets {

std::shared_ptr<std::atomic<std::size_t>> CallbackLedger::start_instance() {
    auto counter = std::make_shared<std::atomic<std::size_t>>(0);
    std::atomic_store(&current_, counter);
    return counter;
}

std::size_t CallbackLedger::emitted() const {
    const auto counter = std::atomic_load(&current_);
    return counter ? counter->load() : 0;
}

QueryFilter callbacks_drained(std::shared_ptr<CallbackLedger> ledger) {
    return [ledger = std::move(ledger)](std::span<const StepRecord> history, std::string_view next) {
        if (next == kWait) return true;
        const auto delivered = static_cast<std::size_t>(
            std::count_if(history.begin(), history.end(), [](const StepRecord& s) {
                return s.input == kWait && s.output != kQuiet && s.output != kErr;
            }));
        return ledger->emitted() <= delivered;
    };
}

QueryFilter both(QueryFilter first, QueryFilter second) {
    return [first = std::move(first), second = std::move(second)](std::span<const StepRecord> history,
                                                                  std::string_view next) {
        return (!first || first(history, next)) && (!second || second(history, next));
    };
}

const std::vector<RealTarget>& real_targets() {
    static const std::vector<RealTarget> targets{
        {"sqlite", "specs/targets/sqlite.yaml", [] { return sqlite(); }},
        {"steady_timer", "specs/targets/steady_timer.yaml", [] { return steady_timer(); }},
        {"tcp_socket", "specs/targets/tcp_socket.yaml", [] { return tcp_socket(); }},
    };
    return targets;
}

std::optional<RealTarget> find_target(std::string_view key) {
    for (const auto& t : real_targets())
        if (t.key == key) return t;
    return std::nullopt;
}

std::unique_ptr<InProcessDevice> make_target_device(ClassDefinition definition) {
    InProcessConfig config;
    config.variants = VariantMode::First;
    config.violations = TimingViolationPolicy::Error;
    return std::make_unique<InProcessDevice>(std::move(definition), config);
}

}  // namespace typestar::targets
