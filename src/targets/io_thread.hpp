// An io_context with its own thread, for the Boost.Asio targets (private to src/targets).
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "typestar/device/purpose.hpp"

namespace typestar::targets::detail {

/// Runs an io_context on a background thread until stop(). Library calls go through `call`, which
/// runs them on that thread (Asio I/O objects are not thread-safe) and rethrows their exception.
/// Callbacks go through `emit`, which counts them on the ledger and forwards them to the sink
/// unless muted (a torn-down instance must not report late callbacks of its own cancellation).
class IoThread {
public:
    IoThread(std::shared_ptr<CallbackSink> sink, std::shared_ptr<std::atomic<std::size_t>> emitted)
        : sink_(std::move(sink)), emitted_(std::move(emitted)), guard_(boost::asio::make_work_guard(io_)),
          thread_([this] { io_.run(); }) {}
    ~IoThread() { stop(); }
    IoThread(const IoThread&) = delete;
    IoThread& operator=(const IoThread&) = delete;

    boost::asio::io_context& io() noexcept { return io_; }

    /// Runs `f` on the io thread and waits for it; rethrows what it throws.
    void call(std::function<void()> f) {
        auto done = std::make_shared<std::promise<void>>();
        auto result = done->get_future();
        boost::asio::post(io_, [f = std::move(f), done] {
            try {
                f();
                done->set_value();
            } catch (...) {
                done->set_exception(std::current_exception());
            }
        });
        result.get();
    }

    /// Reports a callback (from a handler, on the io thread).
    void emit(const char* name) {
        last_activity_.store(now_ns());
        if (muted_.load()) return;
        emitted_->fetch_add(1);
        sink_->emit(name);
    }

    /// Records that a handler ran (for settle()).
    void touch() { last_activity_.store(now_ns()); }

    /// Waits until no handler ran for `idle` (at least `idle` from now).
    void settle(std::chrono::milliseconds idle) const {
        const auto idle_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(idle).count();
        const auto start = now_ns();
        for (;;) {
            std::this_thread::sleep_for(std::chrono::microseconds(250));
            const auto now = now_ns();
            if (now - start >= idle_ns && now - last_activity_.load() >= idle_ns) return;
        }
    }

    /// Mutes callbacks, runs `cleanup` on the io thread, stops and joins it. Idempotent; never throws.
    void stop(std::function<void()> cleanup = {}) noexcept {
        muted_.store(true);
        if (!thread_.joinable()) return;
        if (cleanup) {
            try {
                call(std::move(cleanup));
            } catch (...) {
            }
        }
        guard_.reset();
        io_.stop();
        thread_.join();
    }

private:
    static long long now_ns() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

    std::shared_ptr<CallbackSink> sink_;
    std::shared_ptr<std::atomic<std::size_t>> emitted_;
    std::atomic<bool> muted_{false};
    std::atomic<long long> last_activity_{0};
    boost::asio::io_context io_;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
    std::thread thread_;
};

}  // namespace typestar::targets::detail
