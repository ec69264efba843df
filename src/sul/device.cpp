#include "typestar/sul/device.hpp"

#include <algorithm>
#include <thread>

#include <spdlog/spdlog.h>

#include "typestar/core/error.hpp"
#include "typestar/log/logging.hpp"

#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {


namespace {

// The one reset + steps loop of run() and run_adaptive(): `input(i, outputs)` is the i-th input
// (nullopt: the run is over), given the outputs so far (room reserved for `expected_length`).
template <class Input>
RunResult run_steps(Device& device, std::size_t expected_length, Input&& input) {
    const DeviceTraits t = device.traits();
    RunResult result;
    result.outputs.reserve(expected_length);
    DeviceSession session(device);
    // A callin outside the learning purpose ends the run too (typestar/core/outside_purpose.hpp).
    const auto outside = t.absorbing ? device.outputs().find(kOutsidePurpose) : std::nullopt;
    bool quiescent = false;  // the last step was `wait` answered by the quiet output
    std::optional<Symbol> absorbed;  // past an absorbing output: every answer is it, nothing runs
    for (std::size_t i = 0;; ++i) {
        const std::optional<Symbol> next = input(i, std::span<const Symbol>(result.outputs));
        if (!next) break;
        if (absorbed) {
            result.outputs.push_back(*absorbed);
            continue;
        }
        const bool is_wait = t.wait && *next == *t.wait;
        if (is_wait && quiescent) {
            result.outputs.push_back(*t.quiet);
            continue;
        }
        const Symbol output = session.step(*next);
        ++result.steps;
        if (is_wait) ++result.waits;
        result.outputs.push_back(output);
        if (t.absorbing && output == *t.absorbing) absorbed = output;
        if (outside && output == *outside) absorbed = *t.absorbing;
        quiescent = is_wait && t.quiet && output == *t.quiet;
    }
    return result;
}

}  // namespace

RunResult Device::run(std::span<const Symbol> inputs) {
    return run_steps(*this, inputs.size(), [&](std::size_t i, std::span<const Symbol>) -> std::optional<Symbol> {
        if (i < inputs.size()) return inputs[i];
        return std::nullopt;
    });
}

RunResult Device::run_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& chosen) {
    return run_steps(*this, prefix.size(), [&](std::size_t i, std::span<const Symbol> outputs) -> std::optional<Symbol> {
        if (i < prefix.size()) return prefix[i];
        const std::optional<Symbol> input = next(outputs.subspan(prefix.size()));
        if (input) chosen.push_back(*input);
        return input;
    });
}

std::string TimingOverride::note(std::optional<double> own_tmax_ms, std::optional<double> own_tmin_ms) const {
    std::string set;
    if (tmax) set += "tmax " + std::to_string(tmax->count()) + " ms";
    if (tmin) set += std::string(set.empty() ? "" : ", ") + "tmin " + std::to_string(tmin->count()) + " ms";
    std::string own;
    if (own_tmax_ms) own += "tmax " + std::to_string(static_cast<long long>(*own_tmax_ms)) + " ms";
    if (own_tmin_ms) own += std::string(own.empty() ? "" : ", ") + "tmin " + std::to_string(static_cast<long long>(*own_tmin_ms)) + " ms";
    return set + " set by " + (origin.empty() ? std::string("an override") : origin) +
           (own.empty() ? std::string() : " (the device's own: " + own + ")");
}

std::chrono::milliseconds timing_retry_pause(double tmax_ms, std::size_t attempt) {
    const double tmax = tmax_ms > 0 ? tmax_ms : 10.0;
    const double scaled = tmax * static_cast<double>(1ULL << std::min<std::size_t>(attempt, 20));
    return std::chrono::milliseconds(static_cast<long long>(std::min(2000.0, std::max(10.0, scaled))));
}

namespace {

/// The retry rule of run_with_timing_retries around `once(attempt)`, a run of `inputs` (for messages).
template <class Once>
auto with_timing_retries(Device& device, std::span<const Symbol> inputs, std::size_t retries, Once&& once) {
    for (std::size_t attempt = 0;; ++attempt) {
        try {
            return once(attempt);
        } catch (const TimingError& e) {
            std::string word;
            for (const Symbol s : inputs) word += (word.empty() ? "" : " ") + device.inputs().name(s);
            // Of an answered query, or already re-run on each of runs() runs (an agent's own retries).
            if (e.earlier_query() || e.runs() > 1) throw;
            if (attempt == retries) throw e.repeated(attempt + 1, word);
            const auto pause = timing_retry_pause(e.tmax_ms(), attempt);
            detail::logger("typestar.sul")
                ->info("{}: timing broke on run {} of '{}' ({}); running it again after {} ms", device.name(),
                       attempt + 1, word, e.detail(), pause.count());
            std::this_thread::sleep_for(pause);
        }
    }
}

}  // namespace

RunResult run_with_timing_retries(Device& device, std::span<const Symbol> inputs, std::size_t retries) {
    return with_timing_retries(device, inputs, retries, [&](std::size_t attempt) {
        RunResult result = device.run(inputs);
        device.check_timing();  // a violation recorded up to the tear-down voids this answer
        result.timing_retries = attempt;
        return result;
    });
}

RunResult run_adaptive_with_timing_retries(Device& device, std::span<const Symbol> prefix, const NextInput& next,
                                           Word& chosen, std::size_t retries) {
    return with_timing_retries(device, prefix, retries, [&](std::size_t attempt) {
        chosen.clear();
        RunResult result = device.run_adaptive(prefix, next, chosen);
        device.check_timing();  // as a run: a violation up to the tear-down voids this answer
        result.timing_retries = attempt;
        return result;
    });
}

std::optional<Symbol> confirm_wait_with_timing_retries(Device& device, std::span<const Symbol> prefix,
                                                       std::chrono::milliseconds timeout, std::size_t retries) {
    return with_timing_retries(device, prefix, retries, [&](std::size_t) {
        const std::optional<Symbol> answer = device.confirm_wait(prefix, timeout);
        device.check_timing();  // as a run: a violation up to the tear-down voids the answer
        return answer;
    });
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
