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

Word MembershipOracle::query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs) {
    Word chosen;
    Word word(prefix.begin(), prefix.end());
    outputs.clear();
    // The first input needs no answer yet; every later one the answers of the word so far.
    while (const std::optional<Symbol> input =
               next(outputs.empty() ? std::span<const Symbol>() : std::span<const Symbol>(outputs).subspan(prefix.size()))) {
        chosen.push_back(*input);
        word.push_back(*input);
        outputs = query(word);
    }
    if (chosen.empty()) outputs = query(word);
    return chosen;
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

Word detail::adaptive_query_on(Device& device, QueryCounter* counter, std::span<const Symbol> prefix,
                               const NextInput& next, Word& outputs) {
    if (counter != nullptr) counter->reserve(1);
    Word chosen;
    RunResult run = run_adaptive_with_timing_retries(device, prefix, next, chosen);
    if (counter != nullptr) counter->count_executed(run.steps, run.waits, run.timing_retries);
    outputs = std::move(run.outputs);
    return chosen;
}

Word DeviceOracle::query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs) {
    if (!adaptive()) return MembershipOracle::query_adaptive(prefix, next, outputs);
    return detail::adaptive_query_on(device_, counter_, prefix, next, outputs);
}

CountingOracle::CountingOracle(MembershipOracle& inner, QueryCounter* counter) : inner_(inner), counter_(counter) {}

void CountingOracle::query_all(std::span<const Query> batch) {
    if (counter_ != nullptr) counter_->count_asked(batch.size());
    inner_.query_all(batch);
}

}  // namespace typestar

namespace typestar {

Word CountingOracle::query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs) {
    if (counter_ != nullptr) counter_->count_asked(1);
    return inner_.query_adaptive(prefix, next, outputs);
}

}  // namespace typestar
