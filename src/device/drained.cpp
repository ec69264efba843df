// The drained rule's ledger and filter (include/typestar/device/drained.hpp).
#include "typestar/device/drained.hpp"

#include <algorithm>
#include <span>

#include "typestar/core/typestate.hpp"

namespace typestar {

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

}  // namespace typestar
