// typestar::asio: the event-loop plumbing of an adapter for a Boost.Asio-based class under learning.
// Design note: Asio I/O objects are not thread-safe, and the device calls callins from its own
// thread, so an instance gets an io_context run by a thread of its own (EventLoop): every callin
// runs on that thread (`callin`, `call`), completion handlers report callbacks through `emit`, and a
// callin returns only once the callbacks it causes without the passage of time were emitted
// (`settle_until`, `settle`), so the device queues them before its next step. Together with the
// learning purpose `callbacks_drained` (typestar/device/drained.hpp: no callin while a callback is
// still queued) that makes the synchronous closure deterministic with tmin 0. Teardown mutes the
// instance first: the callbacks of its own cancellation are never reported.
// Header-only (Asio is); link typestar::asio, which brings typestar::device and Boost's headers.
//
//     class ReaderAdapter {
//     public:
//         ReaderAdapter(std::shared_ptr<typestar::CallbackSink> sink, typestar::CallbackLedger& ledger)
//             : loop_(std::move(sink), ledger), reader_(loop_.context()) {
//             reader_.on_data = [this] { loop_.emit("data"); };
//         }
//         ~ReaderAdapter() { teardown(); }
//         void teardown() noexcept { loop_.stop([this] { reader_.close(); }); }
//         void read() { loop_.callin([this] { reader_.read(); }); }  // throwing refuses it (`err`)
//     private:
//         typestar::asio::EventLoop loop_;  // first: outlives the I/O objects below
//         Reader reader_;
//     };
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>

#include <boost/asio/error.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/system/error_code.hpp>

#include "typestar/device/drained.hpp"
#include "typestar/device/purpose.hpp"
#include "typestar/device/quiet_window.hpp"

namespace typestar::asio {

/// How an EventLoop's callins settle.
struct SettleOptions {
    /// After a callin (and after `settle_until`'s condition held), wait until no handler ran for
    /// this long. Zero: return at once (the adapter's `settle_until` conditions are exact). A
    /// heuristic for effects nobody can name in advance (a peer's reaction on loopback): a handler
    /// slower than this completes after the callin, and the device then reports a timing violation
    /// (never a wrong answer) or, at a `wait`, delivers it as usual.
    std::chrono::milliseconds idle{0};
    /// How long `settle_until` waits for its condition before reporting a harness error
    /// (typestar::kSettleLimit).
    std::chrono::milliseconds limit{kSettleLimit};
};

/// An io_context run by a thread of its own, for one instance of a class under learning. Not
/// copyable or movable. Thread-safe except where noted; the destructor stops the loop, but an
/// adapter must call `stop` itself (in its destructor, before its I/O objects are destroyed).
class EventLoop {
public:
    /// Starts the loop thread. Callbacks go to `sink`, counted on a fresh instance counter of
    /// `ledger` (CallbackLedger::start_instance), for the purpose `callbacks_drained(ledger)`.
    EventLoop(std::shared_ptr<CallbackSink> sink, CallbackLedger& ledger, SettleOptions settle = {})
        : EventLoop(std::move(sink), ledger.start_instance(), settle) {}
    /// The same with an explicit instance counter (null: callbacks are not counted).
    EventLoop(std::shared_ptr<CallbackSink> sink, std::shared_ptr<std::atomic<std::size_t>> counter,
              SettleOptions settle = {})
        : sink_(std::move(sink), std::move(counter)),
          settle_(settle),
          guard_(boost::asio::make_work_guard(io_)),
          thread_([this] { io_.run(); }) {}
    ~EventLoop() { stop(); }
    EventLoop(const EventLoop&) = delete;
    EventLoop& operator=(const EventLoop&) = delete;

    /// The io_context the instance's I/O objects are made on.
    [[nodiscard]] boost::asio::io_context& context() noexcept { return io_; }

    /// Runs `f` on the loop thread and waits for it; returns what it returns, rethrows what it
    /// throws. Must not be called from the loop thread (it would wait for itself). Throws
    /// std::logic_error after `stop` (nothing would run `f`).
    template <class F>
    auto call(F&& f) -> std::invoke_result_t<F&> {
        using R = std::invoke_result_t<F&>;
        if (stopped_.load()) throw std::logic_error("typestar::asio::EventLoop: call after stop");
        auto done = std::make_shared<std::promise<R>>();
        auto result = done->get_future();
        boost::asio::post(io_, [&f, done] {
            try {
                if constexpr (std::is_void_v<R>) {
                    f();
                    done->set_value();
                } else {
                    done->set_value(f());
                }
            } catch (...) {
                done->set_exception(std::current_exception());
            }
        });
        return result.get();
    }

    /// One callin: runs `f` on the loop thread, then settles (SettleOptions::idle). What `f`
    /// throws refuses the callin (`err`). For effects the adapter can name, add `settle_until`.
    template <class F>
    void callin(F&& f) {
        call(std::forward<F>(f));
        settle(settle_.idle);
    }

    /// Reports the callback `name` from a handler: counted and forwarded unless muted (after stop).
    void emit(std::string_view name) noexcept {
        touch();
        sink_.emit(name);
    }
    /// Records that a handler ran without reporting anything (a peer's), for `settle`.
    void touch() noexcept { last_activity_.store(now_ns()); }

    /// Waits until no handler ran for `idle` (at least `idle` from now). Zero returns at once.
    void settle(std::chrono::milliseconds idle) const {
        if (idle.count() <= 0) return;
        const auto idle_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(idle).count();
        const auto start = now_ns();
        for (;;) {
            std::this_thread::sleep_for(std::chrono::microseconds(250));
            const auto now = now_ns();
            if (now - start >= idle_ns && now - last_activity_.load() >= idle_ns) return;
        }
    }

    /// Waits until `done()` holds, evaluated on the loop thread (so it may read what handlers
    /// write without locks): for the handlers a callin made due without the passage of time (a
    /// cancelled operation, a read on a pipe that has data). When SettleOptions::limit passes
    /// first, reports a harness error (the device then throws DeviceError instead of answering)
    /// and throws std::runtime_error naming `what`.
    template <class P>
    void settle_until(P&& done, std::string_view what = "a handler due at once") {
        const auto give_up = std::chrono::steady_clock::now() + settle_.limit;
        while (!call(done)) {
            if (std::chrono::steady_clock::now() > give_up) {
                const std::string message = "typestar::asio: " + std::string(what) + " did not run within " +
                                            std::to_string(settle_.limit.count()) + " ms";
                sink_.fail(message);
                throw std::runtime_error(message);
            }
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
    }

    /// Mutes callbacks, runs `cleanup` on the loop thread (close the I/O objects there; what it
    /// throws is ignored), stops and joins the thread. Idempotent; never throws. After it, the
    /// I/O objects may be destroyed from any thread.
    void stop(std::function<void()> cleanup = {}) noexcept {
        sink_.mute();
        if (!thread_.joinable()) return;
        if (cleanup) {
            try {
                call(cleanup);
            } catch (...) {
            }
        }
        stopped_.store(true);
        guard_.reset();
        io_.stop();
        thread_.join();
    }

private:
    static long long now_ns() noexcept {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

    CountingSink sink_;
    SettleOptions settle_;
    std::atomic<long long> last_activity_{0};
    std::atomic<bool> stopped_{false};
    boost::asio::io_context io_;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
    std::thread thread_;  // last: starts once everything it uses exists
};

/// The callback symbol of a completion: `<op>_ok` without error, `<op>_aborted` for
/// operation_aborted (a cancel or close), `<op>_eof` for end of file, `<op>_error` otherwise.
[[nodiscard]] inline std::string completion_symbol(std::string_view op, const boost::system::error_code& ec) {
    std::string symbol(op);
    if (!ec) return symbol + "_ok";
    if (ec == boost::asio::error::operation_aborted) return symbol + "_aborted";
    if (ec == boost::asio::error::eof) return symbol + "_eof";
    return symbol + "_error";
}

}  // namespace typestar::asio
