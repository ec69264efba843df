#include "typestar/sul/stack.hpp"

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
}

}  // namespace typestar
