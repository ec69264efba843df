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
#include <utility>

#include <spdlog/spdlog.h>

#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/printable.hpp"
#include "typestar/core/typestate.hpp"
#include "inprocess_timing.hpp"

namespace typestar {

using detail::Clock;

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::device_log(); }

}  // namespace

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

Symbol InProcessDevice::step(Symbol input) {
    // VariantMode::Compare runs every variant of a word's callins on whole runs (run()); a step of a
    // session can run only one instance, so a callin with several variants would silently answer with
    // its first alone: refused, never a comparison skipped.
    if (!settling_ && config_.variants == VariantMode::Compare && input < input_info_.size() && !input_info_[input].wait) {
        const auto& c = definition_.callins[input_info_[input].callin];
        if (c.variants.size() > 1 && !c.with_value)
            throw DeviceError(name() + ": callin '" + c.name + "' has " + std::to_string(c.variants.size()) +
                              " variants, which VariantMode::Compare compares on whole runs only (Device::run, an "
                              "agent's /v1/run); stepped one at a time it would run '" + c.variants[0].label +
                              "' alone. Run words whole (a client that batches), or split the symbol "
                              "(VariantMode::Split) or keep one variant (VariantMode::First)");
    }
    return step_impl(input, timing_.tmax);
}

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
    e.waits.emplace_back(start, std::nullopt);
    const bool got = e.arrived.wait_until(lock, start + timeout, [&] {
        if (!e.queue.empty()) return true;
        std::lock_guard<std::mutex> mlock(monitor_->mutex);
        return !monitor_->pending.empty();  // a harness error: stop waiting
    });
    e.waits.back().second = Clock::now();
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
