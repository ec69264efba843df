// typestar::QuietWindow: the settling of an adapter for a class whose library runs threads of its
// own (libmosquitto's network thread, gRPC's completion-queue threads, librdkafka's broker
// threads) — the counterpart of typestar::asio::EventLoop for libraries that own their loop.
// Design note: the device calls a callin from its own thread and the library calls its callbacks
// from its own; nobody can name in advance which callbacks a callin causes nor when they end. So a
// callin settles on a *quiet window*: `callin` runs the library call, then waits until no callback
// (nor `touch`) arrived for `window`, measured from the call's return and from every callback, so
// the callbacks it causes are queued on the device before its next step. Each callback is counted
// on the ledger, for the learning purpose `callbacks_drained` (typestar/device/drained.hpp: no
// callin while a callback is still queued), which makes the synchronous closure deterministic with
// tmin 0. Teardown mutes first: the callbacks of the library's own shutdown are never reported.
//
// What a window buys and what it does not (docs/gtest-plugin.md, "Timing"): a callback slower than
// the window arrives after the callin returned; the device then sees it either at the next `wait`
// (delivered as usual), while the next callin is due ("a callin ran while a callback was still
// queued"), a timing violation that is re-run before anything is concluded, or during the next
// callin, which the drained rule then let run: the cache hears the callback with a longer wait and
// re-runs that run (CacheOracle) — never a wrong answer.
// A library that never goes quiet for `window` within `limit` (a busy loop of callbacks, a broken
// adapter) is a harness error naming the callin: the device throws DeviceError instead of answering.
//
//     class ClientAdapter {                  // libmosquitto (tests/targets/mosquitto_client_test.cpp)
//     public:
//         ClientAdapter(std::shared_ptr<typestar::CallbackSink> sink, typestar::CallbackLedger& ledger)
//             : quiet_(std::move(sink), ledger), client_(mosquitto_new(nullptr, true, this)) {
//             mosquitto_connect_callback_set(client_, [](mosquitto*, void* self, int) {
//                 static_cast<ClientAdapter*>(self)->quiet_.emit("on_connect"); });
//         }
//         ~ClientAdapter() { teardown(); }
//         void teardown() noexcept {          // a disconnect ends the network thread; join it
//             quiet_.teardown([this] { mosquitto_disconnect(client_); mosquitto_loop_stop(client_, false); });
//         }
//         void connect() {                   // one line per callin (throwing: `err`)
//             quiet_.callin("connect", [this] { check(mosquitto_connect_async(client_, ...));
//                                               check(mosquitto_loop_start(client_)); });
//         }
//     private:
//         typestar::QuietWindow quiet_;    // first: outlives the library object below
//         mosquitto* client_;
//     };
// Header-only; part of typestar::device.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>

#include "typestar/device/drained.hpp"
#include "typestar/device/purpose.hpp"

namespace typestar {

/// How long a callin may wait to settle (QuietWindowOptions::limit, asio::SettleOptions::limit)
/// before it is a harness error, by default: only a broken adapter or a library that never stops
/// calling back waits this long; generous, so a loaded CI machine is not mistaken for one.
inline constexpr std::chrono::milliseconds kSettleLimit{10000};

/// How a QuietWindow's callins settle.
struct QuietWindowOptions {
    /// A callin returns once no callback arrived for this long (from the call's return and from
    /// the latest callback). Longer than the library's usual round trip (loopback: well under a
    /// millisecond) and shorter than tmax; each callin costs at least this much.
    std::chrono::milliseconds window{20};
    /// How long a callin may wait for its quiet window before it is a harness error (kSettleLimit).
    std::chrono::milliseconds limit{kSettleLimit};
};

/// The callins and callbacks of one instance of a class whose library runs threads of its own.
/// Thread-safe: `emit` and `touch` may be called from any thread (the library's); `callin` from the
/// device's thread. Not copyable or movable (the library holds a pointer to its adapter).
class QuietWindow {
public:
    /// Callbacks go to `sink`, counted on a fresh instance counter of `ledger`
    /// (CallbackLedger::start_instance), for the purpose `callbacks_drained(ledger)`. Throws
    /// std::invalid_argument for a window that is not positive or a limit below the window.
    QuietWindow(std::shared_ptr<CallbackSink> sink, CallbackLedger& ledger, QuietWindowOptions options = {})
        : QuietWindow(std::move(sink), ledger.start_instance(), options) {}
    /// The same with an explicit instance counter (null: callbacks are not counted).
    QuietWindow(std::shared_ptr<CallbackSink> sink, std::shared_ptr<std::atomic<std::size_t>> counter,
                QuietWindowOptions options = {})
        : sink_(std::move(sink), std::move(counter)), options_(options) {
        if (options_.window.count() <= 0) throw std::invalid_argument("typestar::QuietWindow: the window must be positive");
        if (options_.limit < options_.window)
            throw std::invalid_argument("typestar::QuietWindow: the limit is shorter than the window");
    }
    QuietWindow(const QuietWindow&) = delete;
    QuietWindow& operator=(const QuietWindow&) = delete;

    /// One callin named `name`: runs `f` on the calling thread, then waits for the quiet window
    /// (`settle`), also when `f` throws (a refused call may still have called back); returns what
    /// `f` returns, rethrows what it throws (the device answers `err`). When the window does not
    /// come within the limit: a harness error naming `name` (see `settle`).
    template <class F>
    auto callin(std::string_view name, F&& f) -> std::invoke_result_t<F&> {
        using R = std::invoke_result_t<F&>;
        std::exception_ptr refused;
        if constexpr (std::is_void_v<R>) {
            try {
                f();
            } catch (...) {
                refused = std::current_exception();
            }
            settle(name);
            if (refused) std::rethrow_exception(refused);
        } else {
            std::optional<R> result;
            try {
                result.emplace(f());
            } catch (...) {
                refused = std::current_exception();
            }
            settle(name);
            if (refused) std::rethrow_exception(refused);
            return std::move(*result);
        }
    }

    /// Reports the callback `name` from a library thread: counted on the ledger and forwarded,
    /// unless muted (after `mute`/`teardown`); restarts the quiet window either way. Never throws.
    void emit(std::string_view name) noexcept {
        touch();
        sink_.emit(name);
    }
    /// Records library activity that reports nothing (a peer's packet the adapter swallows), which
    /// restarts the quiet window like a callback. Never throws.
    void touch() noexcept {
        last_activity_.store(now_ns());
        activity_.fetch_add(1);
    }

    /// Waits until no callback (nor `touch`) arrived for the window, at least the window from now.
    /// After the limit: reports a harness error through the sink (the device then throws
    /// DeviceError instead of answering) and throws std::runtime_error naming the callin `callin`.
    void settle(std::string_view callin) const {
        const long long window = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.window).count();
        const long long limit = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.limit).count();
        const long long start = now_ns();
        const std::size_t seen = activity_.load();
        for (;;) {
            std::this_thread::sleep_for(std::chrono::microseconds(250));
            const long long now = now_ns();
            if (now - start >= window && now - last_activity_.load() >= window) return;
            if (now - start >= limit) {
                const std::string message =
                    "typestar::QuietWindow: callin '" + std::string(callin) + "' never went quiet for " +
                    std::to_string(options_.window.count()) + " ms within " + std::to_string(options_.limit.count()) +
                    " ms (" + std::to_string(activity_.load() - seen) +
                    " callbacks in that time): a library that keeps calling back, or a broken adapter";
                sink_.fail(message);
                throw std::runtime_error(message);
            }
        }
    }

    /// Drops every later callback (they still restart the window). Idempotent; never throws.
    void mute() noexcept { sink_.mute(); }
    /// Mutes, then runs `cleanup` (stop the library's threads, destroy its objects); what it throws
    /// is ignored. Never throws. Call it from the adapter's teardown and destructor.
    void teardown(const std::function<void()>& cleanup = {}) noexcept {
        mute();
        if (!cleanup) return;
        try {
            cleanup();
        } catch (...) {
        }
    }
    [[nodiscard]] bool muted() const noexcept { return sink_.muted(); }
    [[nodiscard]] const QuietWindowOptions& options() const noexcept { return options_; }

private:
    static long long now_ns() noexcept {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

    mutable CountingSink sink_;
    QuietWindowOptions options_;
    std::atomic<long long> last_activity_{0};
    std::atomic<std::size_t> activity_{0};
};

}  // namespace typestar
