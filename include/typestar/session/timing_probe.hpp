// The timing probe: measures each callin's callback latency on a device and proposes
// tmax / tmin with their margin, for `typestar probe` and for a team choosing the timing of a
// purpose. Design note: the probe drives the device through the one Device interface (any kind:
// in process, over /v1, exec:), with its timing overridden by a long observation window so that a
// late callback is seen rather than missed; the delay measured is the time from the start of the
// callin to the answer of the wait that delivered its callback, an upper bound of the device's own
// delay (it includes the call itself and, over /v1, the round trips).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "typestar/sul/device.hpp"

namespace typestar {

/// What to probe.
struct TimingProbeOptions {
    /// States probed: those reached by words of up to `depth` callins (each followed by a wait that
    /// delivers its callbacks) from the initial state, refused words left out.
    std::size_t depth = 1;
    /// Runs of each (state, callin) measurement.
    std::size_t repeats = 3;
    /// How long each wait listens (the device's tmax is overridden by it; tmin by 0).
    std::chrono::milliseconds window{1000};
    /// The proposed tmax is `margin` times the largest delay seen (rounded up to whole ms, at least 1).
    double margin = 3.0;
};

/// The latencies of one callin called in one state.
struct CallinLatency {
    std::vector<std::string> prefix;  ///< the callins (each followed by its wait) reaching the state
    std::string callin;
    std::string callback;             ///< the callback the wait delivered ("" when none within the window)
    std::vector<double> delays_ms;    ///< one per run that delivered it
    std::size_t quiet = 0;            ///< runs whose wait heard nothing within the window
};

/// What the probe found and proposes.
struct TimingProbe {
    std::vector<CallinLatency> rows;  ///< every (state, callin) the device accepted, in probe order
    std::optional<double> largest_ms;  ///< over every delivered callback
    std::optional<double> smallest_ms;
    long long proposed_tmax_ms = 0;    ///< margin x largest, rounded up (the window when nothing arrived)
    long long proposed_tmin_ms = 0;    ///< 0: a callin is never assumed to outrun a callback
    std::size_t runs = 0;              ///< queries executed
    /// The report: a table (state, callin, callback, runs, min / median / max ms) and the proposal
    /// with its margin and what the delays include.
    std::string text;
};

/// Probes `device` (a typestate device: callins and `wait`). Throws std::invalid_argument for a
/// device without `wait` (nothing to time) or options out of range (repeats 0, window 0), and like
/// Device::step (DeviceError) otherwise. Leaves the device's timing overridden by the window.
[[nodiscard]] TimingProbe probe_timing(Device& device, const TimingProbeOptions& options = {});

}  // namespace typestar
