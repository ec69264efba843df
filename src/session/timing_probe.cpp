#include "typestar/session/timing_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {
namespace {

std::string ms(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
}

std::string joined(const std::vector<std::string>& words) {
    if (words.empty()) return "(initial)";
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

/// Runs `prefix` (each callin followed by a wait) in `session`; false when a callin is refused.
bool reach(DeviceSession& session, const Device& device, const std::vector<Symbol>& prefix, Symbol wait) {
    const auto absorbing = device.traits().absorbing;
    for (const Symbol c : prefix) {
        const Symbol out = session.step(c);
        if ((absorbing && out == *absorbing) || device.outputs().name(out) == kErr ||
            device.outputs().name(out).rfind("unknown:", 0) == 0)
            return false;
        (void)session.step(wait);
    }
    return true;
}

}  // namespace

TimingProbe probe_timing(Device& device, const TimingProbeOptions& options) {
    const auto wait = device.inputs().find(kWait);
    if (!wait) throw std::invalid_argument(device.name() + " has no wait input: there is no callback to time");
    if (options.repeats == 0) throw std::invalid_argument("the probe needs at least one run per callin");
    if (options.window.count() <= 0) throw std::invalid_argument("the probe's window must be at least 1 ms");
    TimingOverride window;
    window.tmax = options.window;
    window.tmin = std::chrono::milliseconds(0);
    window.origin = "typestar probe --window " + std::to_string(options.window.count());
    (void)device.override_timing(window);  // a device without real time has nothing to set

    std::vector<Symbol> callins;
    for (Symbol i = 0; i < device.inputs().size(); ++i)
        if (i != *wait) callins.push_back(i);
    const auto log = detail::logger("typestar.probe");
    using Clock = std::chrono::steady_clock;

    TimingProbe probe;
    std::vector<std::vector<Symbol>> frontier{{}};
    for (std::size_t depth = 0; depth <= options.depth && !frontier.empty(); ++depth) {
        std::vector<std::vector<Symbol>> next;
        for (const auto& prefix : frontier) {
            for (const Symbol c : callins) {
                CallinLatency row;
                for (const Symbol p : prefix) row.prefix.push_back(device.inputs().name(p));
                row.callin = device.inputs().name(c);
                bool accepted = true;
                for (std::size_t r = 0; r < options.repeats && accepted; ++r) {
                    DeviceSession session(device);
                    ++probe.runs;
                    if (!reach(session, device, prefix, *wait)) {
                        accepted = false;
                        break;
                    }
                    const auto start = Clock::now();
                    const Symbol answer = session.step(c);
                    const std::string& name = device.outputs().name(answer);
                    if (name == kErr || name.rfind("unknown:", 0) == 0) {
                        accepted = false;
                        break;
                    }
                    const Symbol heard = session.step(*wait);
                    const double delay = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
                    const std::string& callback = device.outputs().name(heard);
                    if (callback == kQuiet || callback == kErr) {
                        ++row.quiet;
                        continue;
                    }
                    if (!row.callback.empty() && row.callback != callback)
                        row.callback += "|" + callback;  // runs disagreed: shown, never averaged away
                    else
                        row.callback = callback;
                    row.delays_ms.push_back(delay);
                }
                if (!accepted) continue;
                device.check_timing();
                for (const double d : row.delays_ms) {
                    probe.largest_ms = std::max(probe.largest_ms.value_or(d), d);
                    probe.smallest_ms = std::min(probe.smallest_ms.value_or(d), d);
                }
                log->info("{} then {}: {} callback(s){}", joined(row.prefix), row.callin, row.delays_ms.size(),
                          row.delays_ms.empty() ? "" : ", largest " + ms(*std::max_element(row.delays_ms.begin(), row.delays_ms.end())) + " ms");
                probe.rows.push_back(std::move(row));
                if (depth < options.depth) {
                    std::vector<Symbol> longer = prefix;
                    longer.push_back(c);
                    next.push_back(std::move(longer));
                }
            }
        }
        frontier = std::move(next);
    }

    const auto window_ms = static_cast<long long>(options.window.count());
    probe.proposed_tmax_ms = probe.largest_ms
                                 ? std::max<long long>(1, static_cast<long long>(std::ceil(options.margin * *probe.largest_ms)))
                                 : window_ms;
    probe.proposed_tmin_ms = 0;

    std::ostringstream text;
    text << "timing probe of " << device.name() << ": " << probe.rows.size() << " (state, callin) pairs, "
         << options.repeats << " run(s) each, every wait listening " << window_ms << " ms\n";
    text << "| state reached by | callin | callback | runs | min ms | median ms | max ms |\n"
         << "|---|---|---|---|---|---|---|\n";
    for (const auto& row : probe.rows) {
        std::vector<double> d = row.delays_ms;
        std::sort(d.begin(), d.end());
        text << "| " << joined(row.prefix) << " | " << row.callin << " | "
             << (row.callback.empty() ? "(none)" : row.callback) << " | " << d.size() << "/" << d.size() + row.quiet
             << " | " << (d.empty() ? "-" : ms(d.front())) << " | " << (d.empty() ? "-" : ms(d[d.size() / 2]))
             << " | " << (d.empty() ? "-" : ms(d.back())) << " |\n";
        if (!d.empty() && row.quiet > 0)
            text << "  note: " << row.quiet << " run(s) of " << joined(row.prefix) << " then " << row.callin
                 << " heard no callback within the window: a callback later than " << window_ms
                 << " ms, or one that depends on more than the word (probe again with a longer --window)\n";
    }
    if (probe.largest_ms) {
        text << "proposed: tmax " << probe.proposed_tmax_ms << " ms (" << ms(options.margin) << " x the largest delay, "
             << ms(*probe.largest_ms) << " ms), tmin 0 ms (the smallest delay was " << ms(*probe.smallest_ms)
             << " ms; a tmin above 0 would assume every callin outruns every callback)\n";
    } else {
        text << "proposed: no callback arrived within " << window_ms
             << " ms in any probed state: nothing to time (tmax " << window_ms << " ms keeps the window)\n";
    }
    text << "The delays run from the start of the callin to the answer of the wait that delivered the callback: "
            "an upper bound of the device's own delay (over /v1 they include the round trips). A busy machine "
            "stretches them: probe on the machine that runs the checks.\n";
    probe.text = text.str();
    return probe;
}

}  // namespace typestar
