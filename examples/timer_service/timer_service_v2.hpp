// What this shows: the "framework upgrade". TimerService 2.0 lets start() restart a running timer
// instead of throwing: one changed transition, which the 1.0 spec's conformance tests catch.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace timer_service::v2 {

/// TimerService 2.0: as 1.0, except that start() while running re-arms the timer (the delay
/// starts again) instead of throwing.
class TimerService {
public:
    std::function<void()> on_fired;
    std::function<void()> on_cancelled;

    explicit TimerService(std::chrono::milliseconds delay, std::chrono::milliseconds cleanup = std::chrono::milliseconds(3))
        : delay_(delay), cleanup_(cleanup), worker_([this] { work(); }) {}
    ~TimerService() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        worker_.join();
    }
    TimerService(const TimerService&) = delete;
    TimerService& operator=(const TimerService&) = delete;

    void start() {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (state_ == State::Cancelling) throw std::logic_error("TimerService::start: cancelling");
        arm(State::Running, delay_);  // 2.0: restarts a running timer
    }

    void cancel() {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (state_ != State::Running) throw std::logic_error("TimerService::cancel: not running");
        arm(State::Cancelling, cleanup_);
    }

private:
    enum class State { Idle, Running, Cancelling };

    void arm(State state, std::chrono::milliseconds after) {
        state_ = state;
        deadline_ = std::chrono::steady_clock::now() + after;
        ++generation_;
        changed_.notify_all();
    }

    void work() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stop_) {
            if (state_ == State::Idle) {
                changed_.wait(lock);
                continue;
            }
            const auto generation = generation_;
            if (changed_.wait_until(lock, deadline_, [&] { return stop_ || generation_ != generation; })) continue;
            const bool fired = state_ == State::Running;
            state_ = State::Idle;
            auto callback = fired ? on_fired : on_cancelled;
            lock.unlock();
            if (callback) callback();
            lock.lock();
        }
    }

    std::chrono::milliseconds delay_;
    std::chrono::milliseconds cleanup_;
    std::mutex mutex_;
    std::condition_variable changed_;
    State state_ = State::Idle;
    std::chrono::steady_clock::time_point deadline_;
    unsigned generation_ = 0;
    bool stop_ = false;
    std::thread worker_;
};

}  // namespace timer_service::v2
