// InProcessDevice's timing bookkeeping: callbacks arriving on the sink, the callbacks queued
// between two steps, the violations recorded and thrown (check_timing), the timing override.
#include <algorithm>
#include <sstream>
#include <utility>

#include "inprocess_timing.hpp"

namespace typestar {

using detail::Clock;
using detail::format_ms;
using detail::ms_between;

namespace {

/// What a timing message says about the options, so that a user can act on it.
constexpr const char* kRaiseTmax =
    "if the machine was not just busy, raise tmax (--tmax MS for typestar learn/check/device, TYPESTAR_TMAX or "
    "--typestar_tmax in tests)";

}  // namespace

std::string detail::format_ms(double ms) {
    std::ostringstream out;
    out.precision(1);
    out << std::fixed << ms << " ms";
    return out.str();
}

namespace {

/// "query #N 'word so far'", for messages (takes the epoch's lock).
std::string where_of(detail::Epoch& e) {
    std::lock_guard<std::mutex> lock(e.mutex);
    return "query #" + std::to_string(e.query) + " '" + e.word + "'";
}

}  // namespace

void CallbackSink::fail(std::string_view message) noexcept {
    try {
        detail::Epoch& e = *epoch_;
        e.monitor->record("harness error in " + where_of(e) + ": " + std::string(message),
                          &TimingReport::harness_errors);
        e.arrived.notify_all();
    } catch (...) {
    }
}

bool CallbackSink::waited_at(std::chrono::steady_clock::time_point t) const noexcept {
    try {
        std::lock_guard<std::mutex> lock(epoch_->mutex);
        return std::any_of(epoch_->waits.begin(), epoch_->waits.end(),
                           [&](const auto& w) { return w.first <= t && (!w.second || t <= *w.second); });
    } catch (...) {
        return false;
    }
}

void CallbackSink::timing_assumption_broken(std::string_view message) noexcept {
    try {
        detail::Epoch& e = *epoch_;
        {
            // After the query ended (its teardown, or later) no answer rests on the assumption: the
            // last step had answered before it broke. (Found under load: a timer that fired during the
            // teardown of 'expires_after async_wait' ended a learning run as a timing error.)
            std::lock_guard<std::mutex> lock(e.mutex);
            if (!e.open) return;
        }
        // Timing, not an answer: the run is repeated (then a TimingError), never recorded.
        e.monitor->record("a timing assumption of the class's adapter broke in " + where_of(e) + ": " +
                              std::string(message) +
                              " (on a busy machine a late scheduling of the learner; if it repeats on a quiet "
                              "machine, the adapter's assumption is wrong)",
                          &TimingReport::tmin_violations, TimingError::Kind::QueuedCallback, {}, 0, e.query);
        e.arrived.notify_all();
    } catch (...) {
    }
}

void CallbackSink::emit(std::string_view name) noexcept {
    try {
        const auto now = Clock::now();
        detail::Epoch& e = *epoch_;
        detail::TimingMonitor& m = *e.monitor;
        const auto source = m.sources.find(name);
        std::unique_lock<std::mutex> lock(e.mutex);
        const std::string where = "query #" + std::to_string(e.query) + " '" + e.word + "'";
        if (source == m.sources.end()) {
            lock.unlock();
            m.record("undeclared callback '" + std::string(name) + "' emitted in " + where,
                     &TimingReport::harness_errors);
            e.arrived.notify_all();
            return;
        }
        const std::string& symbol = m.output_names[source->second];
        if (e.quiet_declared) {
            const double after = ms_between(e.quiet_wait_start, now);
            lock.unlock();
            m.record("tmax too small: callback '" + symbol + "' arrived " + format_ms(after) +
                         " after the start of a `wait` that answered quiet (tmax " +
                         std::to_string(m.timing.tmax.count()) + " ms) in " + where + " (" + kRaiseTmax +
                         m.observed_locked() + ")",
                     &TimingReport::tmax_violations, TimingError::Kind::LateCallback, symbol, after, e.query);
            return;
        }
        if (!e.open) {
            lock.unlock();
            std::lock_guard<std::mutex> mlock(m.mutex);
            ++m.report.late;
            return;
        }
        if (e.last_callin) {
            const double delay = ms_between(*e.last_callin, now);
            const auto tmin = std::chrono::duration<double, std::milli>(m.timing.tmin).count();
            if (delay < tmin) {
                const std::string callin = e.last_callin_name;
                lock.unlock();
                m.record("tmin violated: callback '" + symbol + "' arrived " + format_ms(delay) +
                             " after callin '" + callin + "' started (tmin " +
                             std::to_string(m.timing.tmin.count()) + " ms) in " + where + " (tmax " +
                             std::to_string(m.timing.tmax.count()) +
                             " ms; if the callback is that fast on a quiet machine too, lower tmin with --tmin MS, "
                             "TYPESTAR_TMIN or --typestar_tmin in tests)",
                         &TimingReport::tmin_violations, TimingError::Kind::EarlyCallback, symbol, delay, e.query);
                lock.lock();
            } else {
                m.observe_delay(delay);
            }
        } else {
            m.observe_delay(0.0);
        }
        e.queue.push_back(source->second);
        e.queued_after.push_back(e.last_callin ? ms_between(*e.last_callin, now) : 0.0);
        e.queued_between.push_back(!e.in_step);
        lock.unlock();
        e.arrived.notify_all();
    } catch (...) {
        // emit never throws (it runs on foreign threads); an allocation failure loses the message.
    }
}

bool InProcessDevice::override_timing(const TimingOverride& timing) {
    if (timing.empty()) return true;
    QuiescenceTiming t = timing_;
    if (timing.tmax) t.tmax = *timing.tmax;
    if (timing.tmin) t.tmin = *timing.tmin;
    if (t.tmin > t.tmax)
        throw std::invalid_argument(name() + ": tmin " + std::to_string(t.tmin.count()) + " ms is larger than tmax " +
                                    std::to_string(t.tmax.count()) + " ms (" + timing.origin + ")");
    // The device's own timing is the declared one (config, else the definition), not an earlier
    // override's (the timing probe's window, say).
    const QuiescenceTiming own = config_.timing.value_or(definition_.timing);
    timing_note_ = timing.note(static_cast<double>(own.tmax.count()), static_cast<double>(own.tmin.count()));
    timing_ = t;
    {
        std::lock_guard<std::mutex> lock(monitor_->mutex);
        monitor_->timing = t;
    }
    quiet_grace_ = config_.quiet_grace.value_or(timing_.tmax);
    return true;
}

void InProcessDevice::check_timing() { check_timing(false); }

void InProcessDevice::check_timing(bool earlier_query) {
    std::vector<detail::TimingMonitor::Pending> pending;
    {
        std::lock_guard<std::mutex> lock(monitor_->mutex);
        pending.swap(monitor_->pending);
    }
    if (pending.empty()) return;
    // A harness error first (it is never a matter of timing), else the first timing violation.
    const auto first = std::find_if(pending.begin(), pending.end(), [](const auto& p) { return !p.kind; });
    const auto& shown = first != pending.end() ? *first : pending.front();
    std::string message = name() + ": " + shown.message;
    if (pending.size() > 1) message += " (and " + std::to_string(pending.size() - 1) + " more)";
    if (!shown.kind) throw DeviceError(message);
    // A violation of an earlier query than the one running (or just run) voids an answer already
    // given: never re-run as if it were this query's.
    for (const auto& p : pending) earlier_query = earlier_query || (p.query != 0 && p.query != query_number_);
    if (earlier_query)
        message += "; seen after that query had answered, so its answer may be wrong: the run stops here";
    throw TimingError(message, *shown.kind, shown.callback, shown.delay_ms, static_cast<double>(timing_.tmax.count()),
                      static_cast<double>(timing_.tmin.count()), earlier_query);
}

TimingReport InProcessDevice::timing_report() const {
    std::lock_guard<std::mutex> lock(monitor_->mutex);
    return monitor_->report;
}

std::string InProcessDevice::queued_callback_message(const std::string& callin, const std::string& callback,
                                                     double after) const {
    // epoch_->mutex held by the caller.
    return "a callin ran while a callback was still queued (the synchronous closure's rule: no callin "
           "before the callbacks of the previous steps were delivered by a wait): callback '" +
           callback + "' was queued when callin '" + callin + "' was to run, in query #" +
           std::to_string(epoch_->query) + " '" + epoch_->word + "' (it arrived " + format_ms(after) +
           (epoch_->last_callin_name.empty() ? std::string(" after the reset")
                                             : " after callin '" + epoch_->last_callin_name + "' started") +
           "; tmin " + std::to_string(timing_.tmin.count()) + " ms, tmax " + std::to_string(timing_.tmax.count()) +
           " ms" + monitor_->observed_locked() +
           "). On a busy machine a late scheduling of this callin; if it repeats, a callback that completes "
           "during a call: give it tmin (--tmin MS, TYPESTAR_TMIN), or restrict the learning purpose "
           "with typestar::callbacks_drained from typestar/device/drained.hpp so that a wait follows every "
           "callin that queues one";
}

void InProcessDevice::set_in_step(bool running) {
    std::lock_guard<std::mutex> lock(epoch_->mutex);
    epoch_->in_step = running;
}

bool InProcessDevice::record_queued_between_steps(const std::string& callin) {
    std::unique_lock<std::mutex> lock(epoch_->mutex);
    const auto& between = epoch_->queued_between;
    const auto at = std::find(between.begin(), between.end(), true);
    if (at == between.end()) return false;
    const auto k = static_cast<std::size_t>(at - between.begin());
    const std::string callback = outputs_.name(epoch_->queue.at(k));
    const double after = k < epoch_->queued_after.size() ? epoch_->queued_after[k] : 0.0;
    const std::string message = queued_callback_message(callin, callback, after) +
                                "; it arrived after the previous step had returned, so the learning purpose would have "
                                "denied this callin only because the callin came late. If it repeats on a quiet "
                                "machine, the callback completes after its callin returned: settle it inside the "
                                "callin (typestar::QuietWindow, asio::EventLoop::settle_until)";
    lock.unlock();
    monitor_->record(message, &TimingReport::tmin_violations, TimingError::Kind::QueuedCallback, callback, after,
                     epoch_->query);
    return true;
}

}  // namespace typestar
