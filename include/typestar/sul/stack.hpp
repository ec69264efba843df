// The usual oracle composition in one object, for tools, benchmarks and tests.
#pragma once

#include "typestar/sul/cache.hpp"
#include "typestar/sul/device.hpp"
#include "typestar/sul/oracle.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

/// device -> DeviceOracle (counts executed) -> CacheOracle -> CountingOracle (counts asked), all
/// sharing one QueryStats. Learning and its equivalence oracle should both use `oracle()`, so the
/// final conformance run is answered from what learning already ran. Not copyable or movable
/// (the layers refer to each other).
class OracleStack {
public:
    explicit OracleStack(Device& device, CacheConfig cache = {})
        : executed_(device, &stats_), cache_(executed_, cache), asked_(cache_, &stats_) {}
    OracleStack(const OracleStack&) = delete;
    OracleStack& operator=(const OracleStack&) = delete;

    /// The top of the stack: ask queries here.
    [[nodiscard]] MembershipOracle& oracle() noexcept { return asked_; }
    [[nodiscard]] QueryStats& stats() noexcept { return stats_; }
    [[nodiscard]] const QueryStats& stats() const noexcept { return stats_; }
    [[nodiscard]] CacheOracle& cache() noexcept { return cache_; }

private:
    QueryStats stats_;
    DeviceOracle executed_;
    CacheOracle cache_;
    CountingOracle asked_;
};

}  // namespace typestar
