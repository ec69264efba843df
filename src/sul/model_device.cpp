#include "typestar/sul/model_device.hpp"

#include <cassert>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {


ModelDevice::ModelDevice(MealyMachine machine, std::string name, std::optional<DeviceTraits> traits)
    : machine_(std::move(machine)), name_(std::move(name)), state_(machine_.initial()) {
    traits_ = traits ? *traits : closure_traits(machine_.inputs(), machine_.outputs());
    // Without a declaration the machine is the device: `err` is absorbing only where it really is
    // (a DOT file with `wait` whose `err` leads on would otherwise have answers skipped wrongly).
    if (!traits && traits_.absorbing && infer_traits(machine_).absorbing != traits_.absorbing) traits_.absorbing.reset();
}

DeviceDescription ModelDevice::describe() const {
    DeviceDescription d = Device::describe();
    d.tmax_ms = tmax_ms_;
    d.tmin_ms = tmin_ms_;
    d.timing_note = timing_note_;
    return d;
}

bool ModelDevice::override_timing(const TimingOverride& timing) {
    if (timing.empty()) return true;
    const auto ms = [](std::chrono::milliseconds m) { return static_cast<double>(m.count()); };
    if (timing.tmax) tmax_ms_ = ms(*timing.tmax);
    if (timing.tmin) tmin_ms_ = ms(*timing.tmin);
    if (tmax_ms_ && tmin_ms_ && *tmin_ms_ > *tmax_ms_)
        throw std::invalid_argument(name_ + ": tmin is larger than tmax (" + timing.origin + ")");
    timing_note_ = timing.note(std::nullopt, std::nullopt) + "; a simulation has no real time: recorded only";
    return true;
}

Symbol ModelDevice::step(Symbol input) {
    assert(input < machine_.num_inputs());
    const auto& t = machine_.transition(state_, input);
    state_ = t.target;
    return t.output;
}

RunResult ModelDevice::run(std::span<const Symbol> inputs) {
    // Same contract as Device::run, without a virtual call per step.
    RunResult result;
    result.outputs.resize(inputs.size());
    StateId state = machine_.initial();
    const bool has_wait = traits_.wait.has_value();
    const Symbol wait = has_wait ? *traits_.wait : 0;
    const bool has_quiet = has_wait && traits_.quiet.has_value();
    const Symbol quiet = has_quiet ? *traits_.quiet : 0;
    const bool has_absorbing = traits_.absorbing.has_value();
    const Symbol absorbing = has_absorbing ? *traits_.absorbing : 0;
    bool quiescent = false;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Symbol input = inputs[i];
        const bool is_wait = has_wait && input == wait;
        if (is_wait && quiescent) {
            result.outputs[i] = quiet;
            continue;
        }
        const auto& t = machine_.transition(state, input);
        state = t.target;
        ++result.steps;
        if (is_wait) ++result.waits;
        result.outputs[i] = t.output;
        if (has_absorbing && t.output == absorbing) {
            for (std::size_t j = i + 1; j < inputs.size(); ++j) result.outputs[j] = absorbing;
            break;
        }
        quiescent = is_wait && has_quiet && t.output == quiet;
    }
    state_ = state;
    return result;
}

}  // namespace typestar

namespace typestar {


}  // namespace typestar
