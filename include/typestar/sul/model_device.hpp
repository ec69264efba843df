// A device that simulates a Mealy machine: the model a test or a benchmark learns from.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "typestar/core/mealy.hpp"
#include "typestar/core/traits.hpp"
#include "typestar/core/translate.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

/// Simulates `machine`: reset goes to the initial state, a step is one table look-up. Never throws
/// on steps (an out-of-range input is a programming error, checked only in debug builds).
class ModelDevice final : public Device {
public:
    /// The device's traits are `traits` if given, else closure_traits(machine's alphabets): `wait`
    /// and an absorbing `err` (the device stops a run there, as every typestar device does), never
    /// `quiet` — nothing is read off the true machine (a simulation reveals only what is declared).
    explicit ModelDevice(MealyMachine machine, std::string name = "model",
                         std::optional<DeviceTraits> traits = std::nullopt);

    [[nodiscard]] const Alphabet& inputs() const override { return machine_.inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return machine_.outputs(); }
    [[nodiscard]] DeviceTraits traits() const override { return traits_; }
    [[nodiscard]] std::string name() const override { return name_; }
    /// True: a table look-up answers every run of a word alike (learning skips the flake policy).
    [[nodiscard]] bool deterministic() const override { return true; }
    void reset() override { state_ = machine_.initial(); }
    Symbol step(Symbol input) override;
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override;
    /// True: a step is a table look-up, as inside run().
    [[nodiscard]] bool runs_adaptively() const override { return true; }
    /// name(), and the timing set by override_timing, if any.
    [[nodiscard]] DeviceDescription describe() const override;
    /// Records the tmax / tmin given for describe(): a simulation has no real time, so nothing runs
    /// differently; the learned spec's `timing:` and the assumptions say so.
    bool override_timing(const TimingOverride& timing) override;

    /// The simulated machine.
    [[nodiscard]] const MealyMachine& machine() const noexcept { return machine_; }

private:
    MealyMachine machine_;
    std::string name_;
    DeviceTraits traits_;
    StateId state_ = 0;
    std::optional<double> tmax_ms_, tmin_ms_;
    std::string timing_note_;
};

}  // namespace typestar
