#include "typestar/device/inprocess.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include <spdlog/spdlog.h>

#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/printable.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/trace_cmp.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

using Clock = std::chrono::steady_clock;

namespace {

double ms_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

std::string format_ms(double ms) {
    std::ostringstream out;
    out.precision(1);
    out << std::fixed << ms << " ms";
    return out.str();
}

std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.device"); }

/// What a timing message says about the options, so that a user can act on it.
constexpr const char* kRaiseTmax =
    "if the machine was not just busy, raise tmax (--tmax MS for typestar learn/check/device, TYPESTAR_TMAX or "
    "--typestar_tmax in tests)";

}  // namespace

namespace detail {

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
            log()->warn("{}: {}", device_name, message);
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
};

}  // namespace detail

void CallbackSink::fail(std::string_view message) noexcept {
    try {
        detail::Epoch& e = *epoch_;
        std::string where;
        {
            std::lock_guard<std::mutex> lock(e.mutex);
            where = "query #" + std::to_string(e.query) + " '" + e.word + "'";
        }
        e.monitor->record("harness error in " + where + ": " + std::string(message), &TimingReport::harness_errors);
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

VariantError::VariantError(std::string callin, std::string first_label, std::string second_label,
                           std::vector<std::string> inputs, std::vector<std::string> first_outputs,
                           std::vector<std::string> second_outputs)
    : NondeterminismError(inputs, first_outputs, second_outputs),
      callin_(std::move(callin)),
      first_label_(std::move(first_label)),
      second_label_(std::move(second_label)) {
    auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
        return s;
    };
    message_ = "variants of callin '" + callin_ + "' behave differently on '" + join(inputs) + "': with '" +
               first_label_ + "' it answers '" + join(first_outputs) + "', with '" + second_label_ + "' '" +
               join(second_outputs) + "'; split the symbol (VariantMode::Split) or drop a variant";
}

InProcessDevice::InProcessDevice(ClassDefinition definition, InProcessConfig config)
    : definition_(std::move(definition)), config_(config), timing_(config.timing.value_or(definition_.timing)) {
    definition_.validate();
    if (timing_.tmin > timing_.tmax) throw std::invalid_argument("tmin is larger than tmax");
    values_.resize(definition_.callins.size());
    const CodeValues code = values_from_code();
    for (std::size_t c = 0; c < definition_.callins.size(); ++c) {
        const auto& callin = definition_.callins[c];
        if (callin.with_value) {
            // One input per distinct concrete value (PSYCO: each partition is an abstract input of
            // the learner; session/refinement.hpp groups these inputs into them).
            auto& pool = values_[c];
            DeviceDescription::Parameterised p{callin.name, callin.parameters, {}};
            std::vector<std::vector<std::size_t>> members;
            for (std::size_t pi = 0; pi < callin.partitions.size(); ++pi) {
                const auto& part = callin.partitions[pi];
                std::vector<std::size_t> indices;
                for (auto v : code.values[c][pi]) {
                    const auto at = std::find(pool.begin(), pool.end(), v);
                    const auto index = static_cast<std::size_t>(at - pool.begin());
                    if (at == pool.end()) {
                        pool.push_back(std::move(v));
                    } else if (std::find(indices.begin(), indices.end(), index) == indices.end()) {
                        throw std::invalid_argument("class '" + definition_.name + "': value '" + v + "' of callin '" +
                                                    callin.name + "' is in two partitions");
                    } else {
                        continue;
                    }
                    indices.push_back(index);
                }
                if (indices.empty())
                    throw std::invalid_argument("class '" + definition_.name + "': partition '" + part.name +
                                                "' of callin '" + callin.name + "' generated no value");
                members.push_back(std::move(indices));
            }
            const auto input_name = [&](std::size_t k) {
                return pool.size() < 2 ? callin.name : callin.name + "/v" + std::to_string(k);
            };
            for (std::size_t k = 0; k < pool.size(); ++k) {
                inputs_.intern(input_name(k));
                input_info_.push_back({c, k, false});
            }
            for (std::size_t i = 0; i < callin.partitions.size(); ++i) {
                DeviceDescription::Partition dp{callin.partitions[i].name, callin.partitions[i].guard, {}};
                for (std::size_t k : members[i])
                    dp.values.push_back({input_name(k), pool[k], code.from_code[c].count(pool[k]) != 0});
                p.partitions.push_back(std::move(dp));
            }
            parameterised_.push_back(std::move(p));
        } else if (config_.variants == VariantMode::Split && callin.variants.size() > 1) {
            for (std::size_t v = 0; v < callin.variants.size(); ++v) {
                inputs_.intern(callin.name + "/" + callin.variants[v].label);
                input_info_.push_back({c, v, false});
            }
        } else {
            inputs_.intern(callin.name);
            input_info_.push_back({c, std::nullopt, false});
        }
    }
    if (inputs_.size() != input_info_.size())
        throw std::invalid_argument("split callin names collide with other callins");
    if (definition_.has_wait) {
        inputs_.intern(kWait);
        input_info_.push_back({0, std::nullopt, true});
    }

    monitor_ = std::make_shared<detail::TimingMonitor>();
    outputs_.intern(kOk);
    outputs_.intern(kQuiet);
    outputs_.intern(kErr);
    for (const auto& cb : definition_.callbacks) {
        const Symbol id = outputs_.intern(cb.name);
        if (cb.sources.empty()) {
            monitor_->sources.emplace(cb.name, id);
        } else {
            for (const auto& s : cb.sources) monitor_->sources.emplace(s, id);
        }
    }
    if (definition_.filter) {
        // A callin the purpose does not explore answers this, not `err` (the class never ran it).
        if (outputs_.contains(kOutsidePurpose))
            throw std::invalid_argument("callback '" + std::string(kOutsidePurpose) + "' is reserved for learning purposes");
        outside_purpose_ = outputs_.intern(kOutsidePurpose);
    }
    // Named callin outputs (Mealy devices): declared ones now, others when first answered.
    first_named_ = static_cast<Symbol>(outputs_.size());
    for (const auto& o : definition_.outputs)
        if (o != kErr) outputs_.intern(o);
    monitor_->output_names = outputs_.names();
    monitor_->device_name = name();
    monitor_->policy = config_.violations;
    monitor_->timing = timing_;
    quiet_grace_ = config_.quiet_grace.value_or(timing_.tmax);

    traits_ = closure_traits(inputs_, outputs_, definition_.quiet_is_stable);
    traits_.absorbing = definition_.err_absorbing ? outputs_.find(kErr) : std::nullopt;
}

InProcessDevice::~InProcessDevice() {
    finish();
    std::lock_guard<std::mutex> lock(monitor_->mutex);
    if (!monitor_->pending.empty())
        log()->warn("{}: {} timing violation(s) never reported: {}", name(), monitor_->pending.size(),
                    monitor_->pending.front().message);
}

DeviceDescription InProcessDevice::describe() const {
    DeviceDescription d;
    d.name = name();
    d.class_name = definition_.name;
    d.framework = definition_.framework;
    d.tmax_ms = static_cast<double>(timing_.tmax.count());
    d.tmin_ms = static_cast<double>(timing_.tmin.count());
    if (const TimingReport r = timing_report(); r.callbacks > 0) d.max_delay_ms = r.max_delay_ms;
    d.timing_note = timing_note_;
    // The purpose's environment callins, as device inputs (each split variant of one is one too).
    for (Symbol i = 0; i < input_info_.size(); ++i)
        if (!input_info_[i].wait && definition_.callins[input_info_[i].callin].environment)
            d.environment.push_back(inputs_.name(i));
    d.parameterised = parameterised_;
    d.values_from_code = values_from_code_;
    return d;
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

void InProcessDevice::reset() {
    finish();
    check_timing(true);  // recorded after the previous query's answer was given
    ++query_number_;
    history_.clear();
    errored_ = false;
    auto epoch = std::make_shared<detail::Epoch>();
    epoch->monitor = monitor_;
    epoch->query = query_number_;
    epoch_ = epoch;
    try {
        instance_ = definition_.reset(std::make_shared<CallbackSink>(epoch));
    } catch (const std::exception& e) {
        finish();
        throw DeviceError(name() + ": the reset snippet failed: " + e.what());
    }
    if (!instance_) {
        finish();
        throw DeviceError(name() + ": the reset snippet returned no instance");
    }
}

void InProcessDevice::finish() noexcept {
    const bool ended_quiet = !history_.empty() && history_.back().input == kWait && history_.back().output == kQuiet;
    if (settling_ && instance_ && ended_quiet && quiet_grace_.count() > 0) {
        try {
            std::unique_lock<std::mutex> lock(monitor_->mutex);
            monitor_->recorded.wait_for(lock, quiet_grace_, [&] { return !monitor_->pending.empty(); });
        } catch (...) {
        }
    }
    if (epoch_) {
        std::lock_guard<std::mutex> lock(epoch_->mutex);
        epoch_->open = false;
        epoch_->queue.clear();
        epoch_->queued_after.clear();
        epoch_->queued_between.clear();
    }
    if (instance_ && definition_.teardown) {
        try {
            definition_.teardown(instance_.get());
        } catch (...) {
            log()->warn("{}: the teardown snippet threw; ignored", name());
        }
    }
    instance_.reset();
    epoch_.reset();
}

Symbol InProcessDevice::step(Symbol input) { return step_impl(input, timing_.tmax); }

std::optional<Symbol> InProcessDevice::confirm_wait(std::span<const Symbol> prefix, std::chrono::milliseconds timeout) {
    DeviceSession session(*this);
    const Symbol err = *outputs_.find(kErr);
    for (const Symbol input : prefix)
        if (const Symbol o = session.step(input); o == err || o == outside_purpose_) return err;
    return step_wait(timeout);
}

Symbol InProcessDevice::step_wait(std::chrono::milliseconds timeout) {
    return step_impl(static_cast<Symbol>(input_info_.size() - 1), timeout);
}

Symbol InProcessDevice::step_impl(Symbol input, std::chrono::milliseconds timeout) {
    if (!epoch_ || !instance_) throw DeviceError(name() + ": step without reset");
    if (input >= input_info_.size()) throw std::out_of_range("input symbol out of range");
    const InputInfo& info = input_info_[input];
    const std::string& input_name = inputs_.name(input);
    Symbol output = 0;
    const Symbol err = *outputs_.find(kErr);
    if (errored_) {
        output = err;
    } else if (definition_.filter && !info.wait && record_queued_between_steps(input_name)) {
        // A callback that came after the previous step had returned is still queued: the purpose
        // (e.g. callbacks_drained) would deny this callin because of it, an answer that depends on
        // when this callin was scheduled. The run breaks the timing instead (thrown just below).
        output = err;
        errored_ = true;
    } else if (definition_.filter && !definition_.filter(history_, input_name)) {
        // Outside the learning purpose: nothing runs. A callin answers kOutsidePurpose (an unknown
        // transition of the learned spec); a `wait` answers `err` as before (a spec has no unknown
        // waits: only callins can be unknown, docs/spec-format-v2.md).
        output = info.wait ? err : *outside_purpose_;
        errored_ = true;
    } else {
        set_in_step(true);
        try {
            output = info.wait ? run_wait(timeout) : run_callin(info);
        } catch (...) {
            set_in_step(false);
            throw;
        }
        set_in_step(false);
    }
    if (output == err && definition_.err_absorbing) errored_ = true;
    history_.push_back({input_name, outputs_.name(output)});
    check_timing();
    return output;
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

Symbol InProcessDevice::run_callin(const InputInfo& info) {
    const auto& callin = definition_.callins[info.callin];
    const std::size_t v = callin.with_value ? 0 : info.variant.value_or(
        config_.variants == VariantMode::Compare ? variant_round_ % callin.variants.size() : 0);
    {
        std::unique_lock<std::mutex> lock(epoch_->mutex);
        if (!epoch_->queue.empty()) {
            // A callback came between the previous step and this callin: the callin would run in a
            // state the synchronous closure does not describe (DroidStar §5.2, tmin).
            const std::string callback = outputs_.name(epoch_->queue.front());
            const double after = epoch_->queued_after.empty() ? 0.0 : epoch_->queued_after.front();
            const std::string message = queued_callback_message(callin.name, callback, after);
            lock.unlock();
            monitor_->record(message, &TimingReport::tmin_violations, TimingError::Kind::QueuedCallback, callback,
                             after, epoch_->query);
            lock.lock();
        }
        epoch_->quiet_declared = false;
        epoch_->last_callin = Clock::now();
        epoch_->last_callin_name = callin.name;
        if (!epoch_->word.empty()) epoch_->word += ' ';
        epoch_->word += callin.name;
    }
    std::string answer;
    try {
        if (callin.with_value)
            callin.with_value(instance_.get(), values_[info.callin].at(*info.variant));
        else if (callin.variants[v].answer)
            answer = callin.variants[v].answer(instance_.get());
        else
            callin.variants[v].snippet(instance_.get());
    } catch (const std::exception& e) {
        log()->debug("{}: callin {} refused: {}", name(), callin.name, e.what());
        return *outputs_.find(kErr);
    } catch (...) {
        log()->debug("{}: callin {} refused", name(), callin.name);
        return *outputs_.find(kErr);
    }
    if (answer.empty() || answer == kOk) return *outputs_.find(kOk);
    return named_output(callin.name, answer);
}

bool InProcessDevice::declare_outputs(std::span<const std::string> names) {
    const bool mealy = !definition_.has_wait || !definition_.err_absorbing || !definition_.outputs.empty() ||
                       std::any_of(definition_.callins.begin(), definition_.callins.end(), [](const auto& c) {
                           return std::any_of(c.variants.begin(), c.variants.end(), [](const auto& v) { return bool(v.answer); });
                       });
    if (!mealy) return false;
    for (const auto& n : names)
        if (!outputs_.contains(n) && !is_reserved(n) && n.rfind("unknown:", 0) != 0) outputs_.intern(n);
    return true;
}

Symbol InProcessDevice::named_output(const std::string& callin, const std::string& answer) {
    if (answer == kErr && !definition_.err_absorbing) return *outputs_.find(kErr);
    if (const auto known = outputs_.find(answer); known && *known >= first_named_) return *known;
    const bool control = std::any_of(answer.begin(), answer.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    });
    if (is_reserved(answer) || outputs_.contains(answer) || control || answer.size() > 256 ||
        answer.rfind("unknown:", 0) == 0)
        throw DeviceError(name() + ": callin '" + callin + "' answered '" + printable(answer) +
                          "', which cannot be a named output (a callback, a reserved name, unknown:..., a control "
                          "character or over 256 bytes)");
    return outputs_.intern(answer);  // an output never declared: learned, and recorded in the spec
}

Symbol InProcessDevice::run_wait(std::chrono::milliseconds timeout) {
    detail::Epoch& e = *epoch_;
    std::unique_lock<std::mutex> lock(e.mutex);
    if (!e.word.empty()) e.word += ' ';
    e.word += kWait;
    const auto start = Clock::now();
    const bool got = e.arrived.wait_until(lock, start + timeout, [&] {
        if (!e.queue.empty()) return true;
        std::lock_guard<std::mutex> mlock(monitor_->mutex);
        return !monitor_->pending.empty();  // a harness error: stop waiting
    });
    if (got && !e.queue.empty()) {
        const Symbol s = e.queue.front();
        e.queue.pop_front();
        if (!e.queued_after.empty()) e.queued_after.pop_front();
        if (!e.queued_between.empty()) e.queued_between.pop_front();
        return s;
    }
    if (!got) {
        e.quiet_declared = true;
        e.quiet_wait_start = start;
    }
    return *outputs_.find(kQuiet);
}

RunResult InProcessDevice::run(std::span<const Symbol> inputs) {
    std::size_t rounds = 1;
    if (config_.variants == VariantMode::Compare) {
        for (Symbol s : inputs) {
            const auto& info = input_info_[s];
            if (!info.wait) rounds = std::max(rounds, definition_.callins[info.callin].variants.size());
        }
    }
    variant_round_ = 0;
    RunResult first = run_settled(inputs);
    for (std::size_t v = 1; v < rounds; ++v) {
        variant_round_ = v;
        RunResult other = run_settled(inputs);
        first.steps += other.steps;
        first.waits += other.waits;
        if (other.outputs == first.outputs) continue;
        std::size_t at = 0;
        while (first.outputs[at] == other.outputs[at]) ++at;
        // The first callin with several variants up to the difference is the one to split.
        std::size_t callin = 0;
        for (std::size_t i = 0; i <= at; ++i) {
            const auto& info = input_info_[inputs[i]];
            if (!info.wait && definition_.callins[info.callin].variants.size() > 1) {
                callin = info.callin;
                break;
            }
        }
        const auto& c = definition_.callins[callin];
        std::vector<std::string> in, a, b;
        for (std::size_t i = 0; i <= at; ++i) {
            in.push_back(inputs_.name(inputs[i]));
            a.push_back(outputs_.name(first.outputs[i]));
            b.push_back(outputs_.name(other.outputs[i]));
        }
        variant_round_ = 0;
        throw VariantError(c.name, c.variants[0].label, c.variants[v % c.variants.size()].label, std::move(in),
                           std::move(a), std::move(b));
    }
    variant_round_ = 0;
    return first;
}

RunResult InProcessDevice::run_settled(std::span<const Symbol> inputs) {
    // A run that ended in a `wait` answered quiet: a callback just past tmax would be found only
    // after this answer was given (at the next reset, as a violation of an earlier query). finish()
    // listens a little longer, before the teardown (which may mute the instance), so that the one
    // device-driving path re-runs this word instead.
    settling_ = true;
    struct Unset {
        bool& flag;
        ~Unset() { flag = false; }
    } unset{settling_};
    RunResult result = Device::run(inputs);
    const bool ended_quiet = !history_.empty() && history_.back().input == kWait && history_.back().output == kQuiet;
    if (ended_quiet && quiet_grace_.count() > 0) check_timing(false);
    return result;
}

// ---- ClassDefinition ----

void ClassDefinition::validate() const {
    auto bad = [&](const std::string& what) { throw std::invalid_argument("class '" + name + "': " + what); };
    if (name.empty()) throw std::invalid_argument("class definition without a name");
    if (!reset) bad("no reset snippet");
    std::set<std::string, std::less<>> symbols;
    auto check_symbol = [&](const std::string& s, const char* kind) {
        if (s.empty()) bad(std::string("empty ") + kind + " name");
        if (is_reserved(s)) bad(std::string("reserved name '") + s + "' used as a " + kind);
        if (!symbols.insert(s).second) bad("symbol '" + s + "' declared twice");
    };
    for (const auto& c : callins) {
        check_symbol(c.name, "callin");
        if (c.with_value) {  // parameterised: partitions are its abstract inputs
            if (!c.variants.empty()) bad("parameterised callin '" + c.name + "' also has variants");
            if (c.partitions.empty()) bad("parameterised callin '" + c.name + "' has no partition");
            std::set<std::string> names;
            for (const auto& p : c.partitions) {
                const bool ok = !p.name.empty() && std::all_of(p.name.begin(), p.name.end(), [](char ch) {
                    return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
                           std::string_view("_.=<>!-").find(ch) != std::string_view::npos;
                });
                if (!ok) bad("partition '" + p.name + "' of callin '" + c.name + "' is not a name of [A-Za-z0-9_.=<>!-]");
                if (!names.insert(p.name).second) bad("callin '" + c.name + "' has two partitions '" + p.name + "'");
                if (!p.values.generate) bad("partition '" + p.name + "' of callin '" + c.name + "' has no values");
            }
            continue;
        }
        if (!c.partitions.empty()) bad("callin '" + c.name + "' has partitions but no parameters");
        if (c.variants.empty()) bad("callin '" + c.name + "' has no snippet");
        std::set<std::string> labels;
        for (const auto& v : c.variants) {
            if (!v.snippet && !v.answer) bad("callin '" + c.name + "' has an empty snippet");
            if (c.variants.size() > 1 && v.label.empty()) bad("a variant of callin '" + c.name + "' has no label");
            if (!labels.insert(v.label).second)
                bad("callin '" + c.name + "' has two variants labelled '" + v.label + "'");
        }
    }
    std::set<std::string> sources;
    for (const auto& cb : callbacks) {
        check_symbol(cb.name, "callback");
        const std::vector<std::string> own{cb.name};
        for (const auto& s : cb.sources.empty() ? own : cb.sources)
            if (!sources.insert(s).second) bad("callback source '" + s + "' is used twice");
    }
    std::set<std::string> named;
    for (const auto& o : outputs) {
        if (o.empty() || (is_reserved(o) && !(o == kErr && !err_absorbing)) || symbols.contains(o))
            bad("output '" + o + "' is empty, reserved or a callin's or callback's name");
        if (!named.insert(o).second) bad("output '" + o + "' declared twice");
    }
    if (!has_wait && !callbacks.empty()) bad("no wait input (no_wait) but callbacks are declared");
    if (timing.tmin > timing.tmax) bad("tmin is larger than tmax");
    if (timing.tmax.count() < 0 || timing.tmin.count() < 0) bad("negative timing");
}

// ---- values from the class's code (typestar/device/trace_cmp.hpp) ----

std::set<std::int64_t> InProcessDevice::probe_constants(std::size_t c, const std::vector<std::string>& sampled) const {
    // Probe runs are not queries: their own epoch and timing monitor, whose observations (late or
    // undeclared callbacks) are dropped; a callin that throws ends that run. Comparisons are
    // recorded from callin `c` on (what its argument can decide), on this thread only.
    std::set<std::int64_t> constants;
    auto monitor = std::make_shared<detail::TimingMonitor>();
    monitor->policy = TimingViolationPolicy::Warn;
    // A parameterised callin after it runs with its first sampled value (none: not run after it).
    std::vector<std::optional<std::string>> first(definition_.callins.size());
    for (std::size_t y = 0; y < definition_.callins.size(); ++y)
        if (const auto& next = definition_.callins[y]; next.with_value && !next.partitions.empty())
            if (auto one = next.partitions.front().values.generate(config_.value_seed + y, 1); !one.empty())
                first[y] = one.front();
    std::vector<std::optional<std::size_t>> prefixes{std::nullopt};
    for (std::size_t x = 0; x < definition_.callins.size(); ++x)
        if (!definition_.callins[x].with_value) prefixes.emplace_back(x);
    for (const auto& prefix : prefixes)
        for (const auto& v : sampled)
            for (std::size_t y = 0; y <= definition_.callins.size(); ++y) {  // y == size: no callin after
                auto epoch = std::make_shared<detail::Epoch>();
                epoch->monitor = monitor;
                epoch->open = false;
                std::shared_ptr<void> instance;
                try {
                    instance = definition_.reset(std::make_shared<CallbackSink>(epoch));
                    if (!instance) return constants;
                    if (prefix) definition_.callins[*prefix].variants.front().snippet(instance.get());
                    trace_cmp::Recording recording(constants);
                    definition_.callins[c].with_value(instance.get(), v);
                    if (y < definition_.callins.size()) {
                        const auto& next = definition_.callins[y];
                        if (!next.with_value) next.variants.front().snippet(instance.get());
                        else if (first[y]) next.with_value(instance.get(), *first[y]);
                    }
                } catch (...) {
                    // refused: the comparisons made so far are recorded
                }
                if (instance && definition_.teardown) {
                    try {
                        definition_.teardown(instance.get());
                    } catch (...) {
                    }
                }
            }
    return constants;
}

InProcessDevice::CodeValues InProcessDevice::values_from_code() {
    CodeValues out;
    out.values.resize(definition_.callins.size());
    out.from_code.resize(definition_.callins.size());
    bool eligible = false;
    for (std::size_t c = 0; c < definition_.callins.size(); ++c) {
        const auto& callin = definition_.callins[c];
        for (const auto& part : callin.partitions) {
            out.values[c].push_back(part.values.generate(config_.value_seed + c, config_.values_per_partition));
            eligible = eligible || (part.values.domain && callin.parameters.size() == 1 &&
                                    callin.parameters.front().second == "int");
        }
    }
    if (!trace_cmp::linked()) {
        values_from_code_ = "not collected (the test binary was not built with typestar_trace_comparisons, or "
                            "TYPESTAR_TRACE_CMP is off)";
        return out;
    }
    if (!config_.values_from_code) {
        values_from_code_ = "not collected (InProcessConfig::values_from_code is off)";
        return out;
    }
    if (!eligible) {
        values_from_code_ = "not collected (no parameterised callin has one int parameter with a declared range)";
        return out;
    }
    std::size_t constants_seen = 0;
    std::size_t added = 0;
    std::string capped;
    for (std::size_t c = 0; c < definition_.callins.size(); ++c) {
        const auto& callin = definition_.callins[c];
        if (callin.partitions.empty() || callin.parameters.size() != 1 || callin.parameters.front().second != "int")
            continue;
        std::vector<std::string> sampled;
        std::set<std::string> pool;
        for (const auto& vs : out.values[c])
            for (const auto& v : vs)
                if (pool.insert(v).second) sampled.push_back(v);
        const std::set<std::int64_t> constants = probe_constants(c, sampled);
        constants_seen += constants.size();
        // Candidates c-1, c, c+1, nearest to a constant first, then by value: deterministic.
        std::vector<std::pair<int, long long>> candidates;
        for (const std::int64_t k : constants)
            for (int d = -1; d <= 1; ++d) {
                if ((d < 0 && k == INT64_MIN) || (d > 0 && k == INT64_MAX)) continue;
                candidates.emplace_back(d == 0 ? 0 : 1, static_cast<long long>(k) + d);
            }
        std::sort(candidates.begin(), candidates.end());
        std::size_t taken = 0;
        for (const auto& [distance, value] : candidates) {
            const std::string printed = std::to_string(value);
            if (pool.count(printed) != 0) continue;
            for (std::size_t p = 0; p < callin.partitions.size(); ++p) {
                const auto& domain = callin.partitions[p].values.domain;
                if (!domain || value < domain->first || value > domain->second) continue;
                if (taken == config_.max_values_from_code) {
                    capped = "; capped at " + std::to_string(config_.max_values_from_code) + " for '" + callin.name + "'";
                    break;
                }
                out.values[c][p].push_back(printed);
                out.from_code[c].insert(printed);
                pool.insert(printed);
                ++taken;
                ++added;
                break;
            }
        }
    }
    values_from_code_ = "trace-cmp: " + std::to_string(constants_seen) + " constant(s) compared, " +
                        std::to_string(added) + " value(s) added" + capped;
    if (constants_seen == 0) values_from_code_ += " (is the class's code compiled with typestar_trace_comparisons?)";
    log()->info("{}: values from the code: {}", name(), values_from_code_);
    return out;
}

ValueGenerator ValueGenerator::fixed(std::vector<std::string> values) {
    const std::string description = "fixed " + std::to_string(values.size());
    return {[values = std::move(values)](std::uint64_t, std::size_t) { return values; }, description};
}

namespace {
/// splitmix64: a tiny seeded generator whose sequence is the same on every platform (std::
/// distributions are not), so generated values are reproducible byte for byte.
std::uint64_t splitmix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
}  // namespace

ValueGenerator ValueGenerator::range(long long lo, long long hi) {
    if (lo > hi) throw std::invalid_argument("ValueGenerator::range: lo > hi");
    return {[lo, hi](std::uint64_t seed, std::size_t count) {
                std::vector<std::string> out;
                std::set<long long> seen;
                const auto add = [&](long long v) {
                    if (out.size() < count && seen.insert(v).second) out.push_back(std::to_string(v));
                };
                add(lo);
                add(hi);
                const auto width = static_cast<std::uint64_t>(hi - lo) + 1;
                for (std::size_t tries = 0; out.size() < count && tries < 8 * count + 8; ++tries)
                    add(lo + static_cast<long long>(splitmix(seed) % width));
                return out;
            },
            "range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
            std::pair<long long, long long>{lo, hi}};
}

ValueGenerator ValueGenerator::sampler(std::function<std::string(std::uint64_t& state)> draw, std::string description) {
    return {[draw = std::move(draw)](std::uint64_t seed, std::size_t count) {
                std::vector<std::string> out;
                std::set<std::string> seen;
                for (std::size_t tries = 0; out.size() < count && tries < 8 * count + 8; ++tries) {
                    std::string v = draw(seed);
                    if (seen.insert(v).second) out.push_back(std::move(v));
                }
                return out;
            },
            std::move(description)};
}

QueryFilter at_most_pending(std::vector<std::string> requests, std::vector<std::string> responses,
                              std::size_t limit) {
    return [requests = std::move(requests), responses = std::move(responses), limit](
               std::span<const StepRecord> history, std::string_view next) {
        auto is_in = [](const std::vector<std::string>& v, std::string_view s) {
            return std::find(v.begin(), v.end(), s) != v.end();
        };
        if (!is_in(requests, next)) return true;
        std::size_t pending = 0;
        for (const auto& step : history) {
            if (is_in(requests, step.input) && step.output == kOk) ++pending;
            if (is_in(responses, step.output) && pending > 0) --pending;
        }
        return pending < limit;
    };
}

}  // namespace typestar
