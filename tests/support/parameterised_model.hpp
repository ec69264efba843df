// A parameterised device that is not in-process: a ModelDevice over concrete inputs (one per value,
// e.g. `connect/new`) plus a DeviceDescription declaring the partitions that group them, as an
// agent's /v1/status `parameters` would. For tests of refinement and partitioned suites.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/typestate.hpp"
#include "typestar/sul/device.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar::test {

/// Decorates a ModelDevice with describe().parameterised (and forwards everything else).
class ParameterisedModel final : public Device {
public:
    ParameterisedModel(MealyMachine machine, std::vector<DeviceDescription::Parameterised> parameterised,
                       std::string name = "model:parameterised", std::string class_name = "Parameterised")
        : model_(std::move(machine), std::move(name)),
          parameterised_(std::move(parameterised)),
          class_name_(std::move(class_name)) {}

    [[nodiscard]] const Alphabet& inputs() const override { return model_.inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return model_.outputs(); }
    [[nodiscard]] DeviceTraits traits() const override { return model_.traits(); }
    [[nodiscard]] std::string name() const override { return model_.name(); }
    [[nodiscard]] DeviceDescription describe() const override {
        DeviceDescription d = model_.describe();
        d.class_name = class_name_;
        d.parameterised = parameterised_;
        return d;
    }
    void reset() override { model_.reset(); }
    Symbol step(Symbol input) override {
        ++steps_;
        return model_.step(input);
    }
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override {
        ++runs_;
        return model_.run(inputs);
    }
    /// Words run (Device::run calls) and single steps so far.
    [[nodiscard]] std::size_t runs() const { return runs_; }

private:
    ModelDevice model_;
    std::vector<DeviceDescription::Parameterised> parameterised_;
    std::string class_name_;
    std::size_t runs_ = 0;
    std::size_t steps_ = 0;
};

/// One partition whose values are the inputs `callin/value` for each value.
inline DeviceDescription::Partition partition_of(const std::string& callin, std::string name, std::string guard,
                                                 const std::vector<std::string>& values) {
    DeviceDescription::Partition p{std::move(name), std::move(guard), {}};
    for (const auto& v : values) p.values.push_back({callin + "/" + v, v});
    return p;
}

}  // namespace typestar::test
