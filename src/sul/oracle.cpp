#include "typestar/sul/oracle.hpp"

#include <algorithm>

namespace typestar {

bool MembershipOracle::lookup(std::span<const Symbol> /*word*/, std::span<Symbol> /*out*/) { return false; }

Word MembershipOracle::query(std::span<const Symbol> word) {
    Word answer(word.size());
    const Query q{{}, word, answer};
    query_all(std::span<const Query>(&q, 1));
    return answer;
}

DeviceOracle::DeviceOracle(Device& device, QueryCounter* counter) : device_(device), counter_(counter) {}

void DeviceOracle::query_all(std::span<const Query> batch) {
    for (const Query& q : batch) {
        buffer_.assign(q.prefix.begin(), q.prefix.end());
        buffer_.insert(buffer_.end(), q.suffix.begin(), q.suffix.end());
        if (counter_ != nullptr) counter_->reserve(1);
        RunResult run = run_with_timing_retries(device_, buffer_);
        if (counter_ != nullptr) counter_->count_executed(run.steps, run.waits, run.timing_retries);
        std::copy(run.outputs.begin() + static_cast<std::ptrdiff_t>(q.prefix.size()), run.outputs.end(),
                  q.answer.begin());
    }
}

CountingOracle::CountingOracle(MembershipOracle& inner, QueryCounter* counter) : inner_(inner), counter_(counter) {}

void CountingOracle::query_all(std::span<const Query> batch) {
    if (counter_ != nullptr) counter_->count_asked(batch.size());
    inner_.query_all(batch);
}

}  // namespace typestar
