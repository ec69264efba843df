#include "typestar/sul/stack.hpp"

#include <chrono>
#include <stdexcept>
#include <utility>

namespace typestar {

OracleStack::OracleStack(Device& device, CacheConfig cache) : OracleStack(std::vector<Device*>{&device}, cache) {}

OracleStack::OracleStack(std::vector<Device*> devices, CacheConfig cache) : devices_(std::move(devices)) {
    if (devices_.empty()) throw std::invalid_argument("an oracle stack needs at least one device");
    if (devices_.size() == 1) {
        if (devices_.front() == nullptr) throw std::invalid_argument("an oracle stack got a null device");
        executed_ = std::make_unique<DeviceOracle>(*devices_.front(), &counter_);
    } else {
        executed_ = std::make_unique<ParallelOracle>(devices_, &counter_);
    }
    cache_ = std::make_unique<CacheOracle>(*executed_, cache);
    asked_ = std::make_unique<CountingOracle>(*cache_, &counter_);
    listen_for_late_callbacks(3);
}

void OracleStack::listen_for_late_callbacks(double factor) {
    Device& device = *devices_.front();
    const DeviceDescription d = device.describe();
    if (factor <= 0 || !d.tmax_ms || !device.traits().wait) {
        cache_->set_late_callback_listener(std::nullopt);
        return;
    }
    LateCallbackListener l;
    l.tmax_ms = *d.tmax_ms;
    l.timeout_ms = *d.tmax_ms * factor;
    l.device = d.name;
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(l.timeout_ms));
    l.listen = [this, &device, timeout](std::span<const Symbol> prefix) {
        counter_.count_timing_retry();
        return confirm_wait_with_timing_retries(device, prefix, timeout);
    };
    l.retried = [this] { counter_.count_timing_retry(); };
    cache_->set_late_callback_listener(std::move(l));
}

}  // namespace typestar
