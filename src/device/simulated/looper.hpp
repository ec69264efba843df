// A message loop for the simulated classes (Android's Looper/Handler): one thread running delayed
// tasks in due order. Private to src/device.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

namespace typestar::sim::detail {

class Looper {
public:
    using Clock = std::chrono::steady_clock;

    Looper(std::chrono::milliseconds delay_min, std::chrono::milliseconds delay_max, std::uint64_t seed)
        : delay_min_(delay_min), delay_max_(delay_max), random_(seed), thread_([this] { loop(); }) {}
    ~Looper() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        thread_.join();
        // Pending tasks are dropped here, outside the lock (they may own simulated objects).
        std::multimap<Clock::time_point, std::function<void()>> dropped;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            dropped.swap(tasks_);
        }
    }
    Looper(const Looper&) = delete;
    Looper& operator=(const Looper&) = delete;

    /// Runs `task` on the looper thread after a random delay in [delay_min, delay_max].
    void post(std::function<void()> task) {
        std::lock_guard<std::mutex> lock(mutex_);
        std::uniform_int_distribution<long> pick(static_cast<long>(delay_min_.count()),
                                                 static_cast<long>(delay_max_.count()));
        const auto delay = std::chrono::milliseconds(pick(random_));
        tasks_.emplace(Clock::now() + delay, std::move(task));
        changed_.notify_all();
    }

    /// A fair coin from the seeded generator (the simulated environment).
    bool coin() {
        std::lock_guard<std::mutex> lock(mutex_);
        return std::bernoulli_distribution(0.5)(random_);
    }

private:
    void loop() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stopping_) {
            if (tasks_.empty()) {
                changed_.wait(lock);
                continue;
            }
            const auto due = tasks_.begin()->first;
            if (Clock::now() < due) {
                changed_.wait_until(lock, due);
                continue;
            }
            auto task = std::move(tasks_.begin()->second);
            tasks_.erase(tasks_.begin());
            lock.unlock();
            task();
            task = nullptr;  // destroy captures outside the lock
            lock.lock();
        }
    }

    std::chrono::milliseconds delay_min_, delay_max_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::multimap<Clock::time_point, std::function<void()>> tasks_;
    std::mt19937_64 random_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace typestar::sim::detail
