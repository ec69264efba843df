// A device that simulates a Mealy machine: the model a test or a benchmark learns from.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "typestar/core/mealy.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

/// The traits that really hold in `machine`: `wait` if the input exists; `err` as absorbing output
/// if every transition answering it leads to states that answer only `err` forever; `quiet` if every
/// `wait` transition answering it leads to a state equivalent to its source. Needs nothing from a
/// device: it reads the machine (the model of a synchronous closure gets closure_traits).
[[nodiscard]] DeviceTraits infer_traits(const MealyMachine& machine);

/// `machine` over a device's alphabets, matched by name: `inputs` must hold exactly the machine's
/// input names (any order; throws std::invalid_argument naming the first mismatch); the result's
/// outputs are a copy of `outputs` with the machine's output names it lacks appended. States and
/// their names are kept.
[[nodiscard]] MealyMachine over_alphabets(const MealyMachine& machine, const Alphabet& inputs,
                                          const Alphabet& outputs);

/// Simulates `machine`: reset goes to the initial state, a step is one table look-up. Never throws
/// on steps (an out-of-range input is a programming error, checked only in debug builds).
class ModelDevice final : public Device {
public:
    /// The device's traits are `traits` if given, else infer_traits(machine).
    explicit ModelDevice(MealyMachine machine, std::string name = "model",
                         std::optional<DeviceTraits> traits = std::nullopt);

    [[nodiscard]] const Alphabet& inputs() const override { return machine_.inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return machine_.outputs(); }
    [[nodiscard]] DeviceTraits traits() const override { return traits_; }
    [[nodiscard]] std::string name() const override { return name_; }
    void reset() override { state_ = machine_.initial(); }
    Symbol step(Symbol input) override;
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override;

    /// The simulated machine.
    [[nodiscard]] const MealyMachine& machine() const noexcept { return machine_; }

private:
    MealyMachine machine_;
    std::string name_;
    DeviceTraits traits_;
    StateId state_ = 0;
};

}  // namespace typestar
