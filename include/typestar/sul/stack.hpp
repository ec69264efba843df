// The one oracle stack over one device or a pool of devices, for every front end.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "typestar/sul/cache.hpp"
#include "typestar/sul/device.hpp"
#include "typestar/sul/oracle.hpp"
#include "typestar/sul/parallel.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

/// device(s) -> DeviceOracle (one device) or ParallelOracle (several; counts executed) ->
/// CacheOracle -> CountingOracle (counts asked), all counting into the stack's own QueryCounter.
/// Learning and its equivalence oracle both use `oracle()`, so the final conformance run is answered
/// from what learning already ran. The devices are borrowed: they must outlive the stack. Not
/// copyable or movable (the layers refer to each other).
class OracleStack {
public:
    /// One device.
    explicit OracleStack(Device& device, CacheConfig cache = {});
    /// Several devices of one class (equal alphabets and traits), answering batches in parallel;
    /// results and statistics equal a one-device run. Throws std::invalid_argument for no device, a
    /// null device, or devices that differ.
    explicit OracleStack(std::vector<Device*> devices, CacheConfig cache = {});
    OracleStack(const OracleStack&) = delete;
    OracleStack& operator=(const OracleStack&) = delete;

    /// The top of the stack: ask queries here.
    [[nodiscard]] MembershipOracle& oracle() noexcept { return *asked_; }
    /// Where every layer counts (phases are scopes on it).
    [[nodiscard]] QueryCounter& counter() noexcept { return counter_; }
    /// The statistics so far.
    [[nodiscard]] const QueryStats& stats() const noexcept { return counter_.stats(); }
    [[nodiscard]] CacheOracle& cache() noexcept { return *cache_; }
    /// Lets the cache judge a contradiction of `quiet` against a callback at a `wait` as a late
    /// callback (CacheOracle, LateCallbackListener): listening `factor` x tmax on the first device.
    /// Installed with factor 3 by the constructors for a device with real time (tmax and `wait`);
    /// factor 0 removes it.
    void listen_for_late_callbacks(double factor);
    /// The devices, in the order given.
    [[nodiscard]] const std::vector<Device*>& devices() const noexcept { return devices_; }

private:
    std::vector<Device*> devices_;
    QueryCounter counter_;
    std::unique_ptr<MembershipOracle> executed_;
    std::unique_ptr<CacheOracle> cache_;
    std::unique_ptr<CountingOracle> asked_;
};

}  // namespace typestar
