// Threads that outlive the in-process instances that started them (as framework threads do),
// joined at the end of the test: the callbacks of the device tests' purposes with real time.
#pragma once

#include <chrono>
#include <memory>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "typestar/device/inprocess.hpp"

namespace typestar::testing_support {

class Background {
public:
    Background() = default;
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;
    ~Background() {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto& t : threads_) t.join();
    }
    /// Emits `name` into `sink` after `delay`, on a thread of its own.
    void emit_after(const std::shared_ptr<CallbackSink>& sink, std::string name, std::chrono::milliseconds delay) {
        std::lock_guard<std::mutex> lock(mutex_);
        threads_.emplace_back([sink, name = std::move(name), delay] {
            std::this_thread::sleep_for(delay);
            sink->emit(name);
        });
    }

    /// Runs `f` after `delay`, on a thread of its own.
    void run_after(std::chrono::milliseconds delay, std::function<void()> f) {
        std::lock_guard<std::mutex> lock(mutex_);
        threads_.emplace_back([f = std::move(f), delay] {
            std::this_thread::sleep_for(delay);
            f();
        });
    }

private:
    std::mutex mutex_;
    std::vector<std::thread> threads_;
};

}  // namespace typestar::testing_support
