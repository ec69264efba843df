// Parallel dispatch: several devices answering one batch of membership queries at once.
// Design note: this is the bottom oracle of a stack over N > 1 devices, under the cache (as
// LearnLib keeps StaticParallelOracle apart from its caches). The cache decides which words run (a
// function of the asked queries and the answers, never of the number of devices); this oracle only
// decides who runs them, so results and statistics equal a one-device run. Its counts are summed in
// batch order after the batch, so they are deterministic too.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "typestar/sul/device.hpp"
#include "typestar/sul/oracle.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

/// A MembershipOracle over N devices with equal alphabets and traits (borrowed: they must outlive
/// it): a batch is split across them, one thread per device (the devices themselves need not be
/// thread-safe: each is used by its own thread only). Counts executed queries, symbols and waits
/// into `counter` like DeviceOracle. When a query throws, the rest of the batch is abandoned and the
/// exception of the lowest batch index is rethrown after every thread has stopped.
class ParallelOracle final : public MembershipOracle {
public:
    /// Throws std::invalid_argument for no device, a null device, or devices whose inputs, outputs
    /// or traits differ.
    explicit ParallelOracle(std::vector<Device*> devices, QueryCounter* counter = nullptr);
    ~ParallelOracle() override;
    ParallelOracle(const ParallelOracle&) = delete;
    ParallelOracle& operator=(const ParallelOracle&) = delete;

    [[nodiscard]] const Alphabet& inputs() const override { return devices_.front()->inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return devices_.front()->outputs(); }
    [[nodiscard]] DeviceTraits traits() const override { return devices_.front()->traits(); }
    /// The number of devices.
    [[nodiscard]] std::size_t parallelism() const override { return devices_.size(); }
    /// Answers the batch on all devices at once (a batch of one runs on the first device, in the
    /// calling thread). Throws DeviceError (or what a device throws).
    void query_all(std::span<const Query> batch) override;
    /// The devices' Device::runs_adaptively() (they are of one class).
    [[nodiscard]] bool adaptive() const override { return devices_.front()->runs_adaptively(); }
    /// When adaptive(), on the first device in the calling thread (as a batch of one); else the
    /// default. The same words and counts as one device.
    Word query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs) override;

private:
    /// After a batch: devices whose outputs grew (Mealy devices) get each other's new names; throws
    /// DeviceError when two of them gave one output id to different names.
    void check_outputs_agree();
    void worker(std::size_t index);
    void run_one(Device& device, std::size_t query);

    std::vector<Device*> devices_;
    QueryCounter* counter_;
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

}  // namespace typestar
