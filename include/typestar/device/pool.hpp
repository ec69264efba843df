// Device pools: several devices answering one batch of membership queries in parallel.
// Design note: the pool is the bottom oracle of the stack, under the cache. The cache decides
// which words run (a function of the asked queries and the answers, never of the pool size); the
// pool only decides who runs them, so results and statistics equal a one-device run. Its counts
// are summed in batch order after the batch, so they are deterministic too.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "typestar/sul/cache.hpp"
#include "typestar/sul/device.hpp"
#include "typestar/sul/oracle.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

/// A MembershipOracle over N devices with equal alphabets and traits: a batch is split across them,
/// one thread per device (the devices themselves need not be thread-safe: each is used by its own
/// thread only). Counts executed queries, symbols and waits into `stats` like DeviceOracle. When a
/// query throws, the rest of the batch is abandoned and the exception of the lowest batch index is
/// rethrown after every thread has stopped.
class PoolOracle final : public MembershipOracle {
public:
    /// Throws std::invalid_argument for no device, or devices whose inputs, outputs or traits differ.
    explicit PoolOracle(std::vector<std::unique_ptr<Device>> devices, QueryStats* stats = nullptr);
    ~PoolOracle() override;
    PoolOracle(const PoolOracle&) = delete;
    PoolOracle& operator=(const PoolOracle&) = delete;

    [[nodiscard]] const Alphabet& inputs() const override { return devices_.front()->inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return devices_.front()->outputs(); }
    [[nodiscard]] DeviceTraits traits() const override { return devices_.front()->traits(); }
    /// Answers the batch on all devices at once (a batch of one runs on the first device, in the
    /// calling thread). Throws DeviceError (or what a device throws).
    void query_all(std::span<const Query> batch) override;

    [[nodiscard]] std::size_t size() const noexcept { return devices_.size(); }
    [[nodiscard]] Device& device(std::size_t i) { return *devices_.at(i); }
    /// Sets the QueryStats counted into (may be null).
    void set_stats(QueryStats* stats) noexcept { stats_ = stats; }

private:
    void worker(std::size_t index);
    void run_one(Device& device, std::size_t query);

    std::vector<std::unique_ptr<Device>> devices_;
    QueryStats* stats_;
    std::vector<std::thread> threads_;

    std::mutex mutex_;
    std::condition_variable start_, done_;
    std::span<const Query> batch_;
    std::vector<RunResult> runs_;
    std::vector<std::exception_ptr> errors_;
    std::size_t next_ = 0;      // next query index to take
    std::size_t busy_ = 0;      // workers still working on the current batch
    std::uint64_t round_ = 0;   // batch counter, wakes workers
    bool failed_ = false;
    bool stopping_ = false;
};

/// The usual composition over a pool: pool -> CacheOracle (with parallel waves) -> CountingOracle,
/// sharing one QueryStats, like OracleStack over one device.
class PooledStack {
public:
    /// Takes the devices (at least one). Throws std::invalid_argument like PoolOracle.
    explicit PooledStack(std::vector<std::unique_ptr<Device>> devices, CacheConfig cache = pool_cache_config());
    PooledStack(const PooledStack&) = delete;
    PooledStack& operator=(const PooledStack&) = delete;

    /// The top of the stack: ask queries here.
    [[nodiscard]] MembershipOracle& oracle() noexcept { return asked_; }
    [[nodiscard]] QueryStats& stats() noexcept { return stats_; }
    [[nodiscard]] CacheOracle& cache() noexcept { return cache_; }
    [[nodiscard]] PoolOracle& pool() noexcept { return pool_; }

    /// The default cache configuration of a pooled stack (CacheConfig with parallel waves on, so
    /// that independent words reach the pool as one batch).
    [[nodiscard]] static CacheConfig pool_cache_config();

private:
    QueryStats stats_;
    PoolOracle pool_;
    CacheOracle cache_;
    CountingOracle asked_;
};

}  // namespace typestar
