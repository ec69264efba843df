#include "typestar/sul/device.hpp"

#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {


RunResult Device::run(std::span<const Symbol> inputs) {
    const DeviceTraits t = traits();
    RunResult result;
    result.outputs.reserve(inputs.size());
    DeviceSession session(*this);
    // A callin outside the learning purpose ends the run too (typestar/core/outside_purpose.hpp).
    const auto outside = t.absorbing ? outputs().find(kOutsidePurpose) : std::nullopt;
    bool quiescent = false;  // the last step was `wait` answered by the quiet output
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Symbol input = inputs[i];
        const bool is_wait = t.wait && input == *t.wait;
        if (is_wait && quiescent) {
            result.outputs.push_back(*t.quiet);
            continue;
        }
        const Symbol output = session.step(input);
        ++result.steps;
        if (is_wait) ++result.waits;
        result.outputs.push_back(output);
        if (t.absorbing && output == *t.absorbing) {
            result.outputs.resize(inputs.size(), output);
            break;
        }
        if (outside && output == *outside) {
            result.outputs.resize(inputs.size(), *t.absorbing);
            break;
        }
        quiescent = is_wait && t.quiet && output == *t.quiet;
    }
    return result;
}

DeviceDescription Device::describe() const {
    DeviceDescription d;
    d.name = name();
    return d;
}

std::optional<Symbol> Device::confirm_wait(std::span<const Symbol> /*prefix*/, std::chrono::milliseconds /*timeout*/) {
    return std::nullopt;
}

DeviceSession::DeviceSession(Device& device) : device_(device) { device_.reset(); }

DeviceSession::~DeviceSession() { device_.finish(); }

}  // namespace typestar
