// The drained rule for classes whose callbacks can complete during a call.
// Rule: no callin while a callback is still queued. An in-process device queues every callback in
// arrival order and hands it out at the next `wait`; a callin that runs while one is queued would
// run in a state the synchronous closure does not describe (DroidStar §5.2), so the device reports
// it as a timing violation ("a callin ran while a callback was still queued") instead of answering.
// A class whose callbacks arrive *during* a call (a completion handler run at once, a hook fired
// inside the library call, an echo from a local peer) needs two things to be learnable with tmin 0:
//   1. each callin returns only after the callbacks it causes without the passage of time were
//      emitted (the adapter settles; typestar::asio::EventLoop does it for Asio), and
//   2. the learning purpose `callbacks_drained`, which answers `err` to a callin while a callback
//      the instance emitted has not been returned by a `wait` yet: a `wait` follows every callin
//      that queues a callback, which is what synchronous callbacks force on real clients anyway.
// The ledger counts what the instance emitted: the adapter emits through a CountingSink.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>

#include "typestar/device/purpose.hpp"

namespace typestar {

/// Counts the callbacks the current instance emitted, for `callbacks_drained`. One ledger per
/// ClassDefinition, shared by its reset snippet (which starts a fresh count per instance) and its
/// purpose filter. Thread-safe.
class CallbackLedger {
public:
    /// A fresh per-instance counter, made current (call from the reset snippet).
    [[nodiscard]] std::shared_ptr<std::atomic<std::size_t>> start_instance();
    /// Callbacks the current instance emitted so far (0 before the first instance).
    [[nodiscard]] std::size_t emitted() const;

private:
    std::shared_ptr<std::atomic<std::size_t>> current_;
};

/// The learning purpose "no callin while a callback is still queued": a callin is denied (`err`)
/// when the current instance emitted more callbacks than `wait` has returned in `history`. `wait`
/// is always allowed. Sound only when every callback the instance emits is counted on `ledger`
/// (emit through a CountingSink made from `ledger->start_instance()`). A callback that needs time
/// (a timer expiring) and arrives between a callin's return and the next callin is not a reason
/// to deny: the in-process device reports that run as a timing violation (the callin came late, "a
/// callin ran while a callback was still queued") and runs the word again — keep such deadlines well
/// above the time a word takes.
[[nodiscard]] QueryFilter callbacks_drained(std::shared_ptr<CallbackLedger> ledger);

/// Both filters must allow the input (an empty filter allows everything).
[[nodiscard]] QueryFilter both(QueryFilter first, QueryFilter second);

/// The sink a listener of one instance emits through: counts each callback on the instance's
/// ledger counter, then forwards it to the device's sink, unless muted. Mute it before tearing the
/// instance down, so that the callbacks of its own cancellation are not reported. Thread-safe;
/// `emit` and `mute` never throw.
class CountingSink {
public:
    /// `counter` comes from CallbackLedger::start_instance(); null counts nothing.
    CountingSink(std::shared_ptr<CallbackSink> sink, std::shared_ptr<std::atomic<std::size_t>> counter)
        : sink_(std::move(sink)), counter_(std::move(counter)) {}

    /// Counts and reports the callback `name` (see CallbackSink::emit), or drops it when muted.
    void emit(std::string_view name) noexcept {
        if (muted_.load()) return;
        if (counter_) counter_->fetch_add(1);
        sink_->emit(name);
    }
    /// Reports a broken harness (CallbackSink::fail), also when muted.
    void fail(std::string_view message) noexcept { sink_->fail(message); }
    /// Drops every later callback. Idempotent.
    void mute() noexcept { muted_.store(true); }
    [[nodiscard]] bool muted() const noexcept { return muted_.load(); }

private:
    std::shared_ptr<CallbackSink> sink_;
    std::shared_ptr<std::atomic<std::size_t>> counter_;
    std::atomic<bool> muted_{false};
};

}  // namespace typestar
