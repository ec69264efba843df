// PartitionedDevice: a parameterised device over a stored spec's fixed partitions, for checking —
// alphabet refinement's abstract device (typestar/learn/abstraction.hpp) with nothing to refine.
#include "typestar/session/refinement.hpp"

#include "refinement_detail.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/typestate.hpp"
#include "typestar/learn/abstraction.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {

using detail::AbstractDevice;
using detail::AbstractPartition;
using detail::CallinEntry;
using detail::Refiner;
using detail::callins_of;

// ---- PartitionedDevice ----

struct PartitionedDevice::Impl {
    Impl(Device& concrete, std::vector<CallinEntry> callins, const Typestate* stored,
         std::vector<spec::CallinDeclaration> declared)
        : refiner(concrete, std::move(callins), RefinementOptions{}, true,
                  stored && stored->has_unknown() ? std::optional<Typestate>(*stored) : std::nullopt),
          abstract(refiner),
          declarations(std::move(declared)) {}
    Refiner refiner;
    AbstractDevice abstract;
    std::vector<spec::CallinDeclaration> declarations;
};

namespace {

/// The device's callins with the partitions of `declarations` (values matched by printed value).
std::vector<CallinEntry> fixed_callins(const Device& device, const std::vector<spec::CallinDeclaration>& declarations) {
    std::vector<CallinEntry> callins = callins_of(device, device.describe());
    for (const auto& d : declarations) {
        if (d.partitions.empty()) continue;
        const auto it = std::find_if(callins.begin(), callins.end(), [&](const CallinEntry& c) { return c.name == d.name; });
        if (it == callins.end() || !it->parameterised())
            throw std::invalid_argument(device.name() + " declares no parameterised callin '" + d.name +
                                        "' (the spec's partitions need its values)");
        std::vector<AbstractPartition> parts;
        for (const auto& p : d.partitions) {
            AbstractPartition a{p.name, p.guard, {}, p.split_from, p.split_by};
            for (const auto& v : p.values) {
                const auto at = std::find(it->pool_values.begin(), it->pool_values.end(), v);
                if (at == it->pool_values.end())
                    throw std::invalid_argument(device.name() + " offers no value '" + v + "' for callin '" + d.name +
                                                "' (partition '" + p.name + "' of the spec)");
                a.values.push_back(static_cast<std::size_t>(at - it->pool_values.begin()));
            }
            if (a.values.empty())
                throw std::invalid_argument("partition '" + p.name + "' of callin '" + d.name + "' lists no value to run");
            parts.push_back(std::move(a));
        }
        it->partitions = std::move(parts);
    }
    return callins;
}

}  // namespace

PartitionedDevice::PartitionedDevice(Device& concrete, const std::vector<spec::CallinDeclaration>& declarations,
                                     const Typestate* stored)
    : impl_(std::make_unique<Impl>(concrete, fixed_callins(concrete, declarations), stored, declarations)) {}
PartitionedDevice::~PartitionedDevice() = default;
const Alphabet& PartitionedDevice::inputs() const { return impl_->abstract.inputs(); }
const Alphabet& PartitionedDevice::outputs() const { return impl_->abstract.outputs(); }
DeviceTraits PartitionedDevice::traits() const { return impl_->abstract.traits(); }
std::string PartitionedDevice::name() const { return impl_->abstract.name(); }
DeviceDescription PartitionedDevice::describe() const { return impl_->abstract.describe(); }
void PartitionedDevice::check_timing() { impl_->abstract.check_timing(); }
bool PartitionedDevice::override_timing(const TimingOverride& timing) { return impl_->abstract.override_timing(timing); }
void PartitionedDevice::reset() { impl_->abstract.reset(); }
Symbol PartitionedDevice::step(Symbol input) { return impl_->abstract.step(input); }
std::optional<Symbol> PartitionedDevice::confirm_wait(std::span<const Symbol> prefix, std::chrono::milliseconds timeout) {
    return impl_->abstract.confirm_wait(prefix, timeout);
}
RunResult PartitionedDevice::run(std::span<const Symbol> inputs) { return impl_->abstract.run(inputs); }
std::uint64_t PartitionedDevice::concrete_runs() const noexcept { return impl_->refiner.executed(); }

std::vector<spec::CallinDeclaration> PartitionedDevice::declarations_run() const {
    std::vector<spec::CallinDeclaration> out = impl_->declarations;
    auto& callins = impl_->refiner.callins();
    for (auto& d : out) {
        if (d.partitions.empty()) continue;
        const auto it = std::find_if(callins.begin(), callins.end(), [&](const CallinEntry& c) { return c.name == d.name; });
        if (it == callins.end()) continue;
        const std::set<std::size_t> ran = impl_->refiner.values_run(static_cast<std::size_t>(it - callins.begin()));
        for (std::size_t p = 0; p < d.partitions.size() && p < it->partitions.size(); ++p) {
            spec::Partition& part = d.partitions[p];
            part.values.clear();  // the declared values, narrowed to those that ran; the others join not_run
            for (std::size_t v : it->partitions[p].values)
                (ran.count(v) != 0 ? part.values : part.not_run).push_back(it->pool_values[v]);
        }
    }
    return spec::normalised_declarations(std::move(out));
}

}  // namespace typestar
