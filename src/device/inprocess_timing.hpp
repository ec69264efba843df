// The timing bookkeeping of InProcessDevice: the device-level monitor (symbol table, timing
// observations, the violations not yet thrown) and one query's epoch (its callback queue, which
// callbacks came between two steps, the last callin). Private to src/device.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "typestar/device/inprocess.hpp"
#include "typestar/log/logging.hpp"

namespace typestar::detail {

using Clock = std::chrono::steady_clock;

inline double ms_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

/// `ms` with one decimal: "12.3 ms".
std::string format_ms(double ms);

/// The logger of the in-process devices.
inline std::shared_ptr<spdlog::logger> device_log() { return logger("typestar.device"); }

/// Device-level record shared by every epoch's sink: symbol table and timing observations.
struct TimingMonitor {
    std::string device_name;
    std::map<std::string, Symbol, std::less<>> sources;  // raw callback name -> output symbol
    std::vector<std::string> output_names;
    TimingViolationPolicy policy = TimingViolationPolicy::Error;
    QuiescenceTiming timing;

    /// A violation not yet thrown: a harness error (no kind) or a broken timing assumption.
    struct Pending {
        std::string message;
        std::optional<TimingError::Kind> kind;
        std::string callback;
        double delay_ms = 0;
        std::uint64_t query = 0;  // the query whose answer it voids (0: unknown)
    };

    std::mutex mutex;
    std::condition_variable recorded;  // a violation was added to `pending`
    TimingReport report;
    std::vector<Pending> pending;  // violations not yet thrown

    void record(std::string message, std::uint64_t TimingReport::*counter,
                std::optional<TimingError::Kind> kind = std::nullopt, std::string callback = {}, double delay_ms = 0,
                std::uint64_t query = 0) {
        std::lock_guard<std::mutex> lock(mutex);
        ++(report.*counter);
        if (report.messages.size() < 16) report.messages.push_back(message);
        if (policy == TimingViolationPolicy::Error || counter == &TimingReport::harness_errors) {
            pending.push_back({std::move(message), kind, std::move(callback), delay_ms, query});
            recorded.notify_all();
        } else {
            device_log()->warn("{}: {}", device_name, message);
        }
    }
    /// " (largest delay seen on time: X ms)", or "" before any callback (lock held by the caller).
    std::string observed() const {
        if (report.callbacks == 0) return "";
        return "; the largest delay seen on time: " + format_ms(report.max_delay_ms);
    }
    std::string observed_locked() {
        std::lock_guard<std::mutex> lock(mutex);
        return observed();
    }
    void observe_delay(double ms) {
        std::lock_guard<std::mutex> lock(mutex);
        if (report.callbacks == 0 || ms < report.min_delay_ms) report.min_delay_ms = ms;
        report.max_delay_ms = std::max(report.max_delay_ms, ms);
        ++report.callbacks;
    }
};

/// One query's instance: its callback queue and what the query has done so far.
struct Epoch {
    std::shared_ptr<TimingMonitor> monitor;
    std::uint64_t query = 0;

    std::mutex mutex;
    std::condition_variable arrived;
    std::deque<Symbol> queue;
    std::deque<double> queued_after;        // per queued callback: ms after the latest callin started
    std::deque<bool> queued_between;        // per queued callback: it arrived between two steps
    bool in_step = false;                   // a step (callin or wait) is running
    bool open = true;
    bool quiet_declared = false;            // last step: `wait` answered quiet, no callin since
    Clock::time_point quiet_wait_start{};   // start of that wait
    std::optional<Clock::time_point> last_callin;
    std::string last_callin_name;
    std::string word;                       // the query so far, for messages
    /// The `wait` steps of this query as [start, end] (end empty while it runs): CallbackSink::waited_at.
    std::vector<std::pair<Clock::time_point, std::optional<Clock::time_point>>> waits;
};

}  // namespace typestar::detail
