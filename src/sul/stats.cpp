#include "typestar/sul/stats.hpp"

#include "typestar/core/error.hpp"

namespace typestar {

PhaseCounts& PhaseCounts::operator+=(const PhaseCounts& other) noexcept {
    queries_asked += other.queries_asked;
    queries_executed += other.queries_executed;
    symbols_executed += other.symbols_executed;
    waits_executed += other.waits_executed;
    timing_retries += other.timing_retries;
    return *this;
}

PhaseCounts& PhaseCounts::operator-=(const PhaseCounts& other) noexcept {
    queries_asked -= other.queries_asked;
    queries_executed -= other.queries_executed;
    symbols_executed -= other.symbols_executed;
    waits_executed -= other.waits_executed;
    timing_retries -= other.timing_retries;
    return *this;
}

QueryStats QueryStats::since(const QueryStats& before) const noexcept {
    QueryStats d = *this;
    d.learning -= before.learning;
    d.equivalence -= before.equivalence;
    d.verification -= before.verification;
    d.equivalence_rounds -= before.equivalence_rounds;
    return d;
}

PhaseCounts QueryStats::total() const noexcept {
    PhaseCounts sum = learning;
    sum += equivalence;
    sum += verification;
    return sum;
}

void QueryCounter::set_budget(std::optional<std::uint64_t> queries) noexcept {
    budget_ = queries;
    budget_limit_ = queries ? stats_.total().queries_executed + *queries : 0;
}

void QueryCounter::reserve(std::uint64_t queries) const {
    if (budget_ && stats_.total().queries_executed + queries > budget_limit_) throw QueryBudgetError(*budget_);
}

}  // namespace typestar
