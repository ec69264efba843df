// Concurrent events against one monitor. Built twice: into monitor_tests and, with core and the
// monitor compiled with -fsanitize=thread, into monitor_tsan_tests (ctest label `tsan`).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "monitor_fixtures.hpp"
#include "typestar/monitor/callback_driver.hpp"
#include "typestar/monitor/monitor.hpp"

namespace typestar {
namespace {

constexpr int kThreads = 4;
constexpr int kEventsPerThread = 5000;

template <class F>
void run_threads(F body) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
    for (auto& th : threads) th.join();
}

TEST(MonitorConcurrency, EveryEventIsCountedAndTheStateIsConsistent) {
    Monitor m(monitor_test::toggle());
    const Symbol flip = m.model().callin("flip").symbol;
    const Symbol tick = m.model().callback("tick").symbol;
    std::atomic<bool> stop{false};
    std::thread reader([&] {  // concurrent readers of state, trace and violations
        while (!stop.load()) {
            (void)m.state();
            (void)m.trace().size();
            (void)m.violation_count();
            (void)m.pending_callback();
        }
    });
    run_threads([&](int t) {
        for (int i = 0; i < kEventsPerThread; ++i) {
            if (t % 2 == 0) m.callin(flip);  // callins from two threads
            else m.callback(tick);           // callbacks from two others
        }
    });
    stop = true;
    reader.join();
    EXPECT_EQ(m.event_count(), static_cast<std::uint64_t>(kThreads) * kEventsPerThread);
    EXPECT_EQ(m.trace().size(), static_cast<std::size_t>(kThreads) * kEventsPerThread);
    EXPECT_TRUE(m.ok());
    // flips: 2 threads x 5000, an even number: back in A.
    EXPECT_EQ(m.state(), "A");
}

TEST(MonitorConcurrency, ViolationsFromManyThreadsAreAllRecorded) {
    std::atomic<int> handled{0};
    MonitorOptions options;
    options.policy = ViolationPolicy::Handler;
    options.handler = [&](const Violation& v) {
        if (v.symbol == "poke") ++handled;
    };
    options.trace_limit = 64;
    options.violation_trace = 8;
    Monitor m(monitor_test::toggle(), options);
    run_threads([&](int t) {
        for (int i = 0; i < 500; ++i) {
            if (t == 0) m.callin("poke");  // disabled everywhere
            else m.callin("flip");
        }
    });
    EXPECT_EQ(m.violation_count(), 500u);
    EXPECT_EQ(handled.load(), 500);
    EXPECT_EQ(m.event_count(), static_cast<std::uint64_t>(kThreads) * 500);
    EXPECT_EQ(m.trace().size() + m.trace_omitted(), static_cast<std::size_t>(kThreads - 1) * 500);
}

TEST(MonitorConcurrency, CallbacksDeliveredFromOtherThreadsWhileTheClientCallsIn) {
    // The AsyncTask client calls cancel() repeatedly while a framework thread delivers whatever is
    // owed: every interleaving the scheduler picks is allowed by the typestate.
    auto monitor = std::make_shared<Monitor>(monitor_test::async_task());
    CallbackDriver driver(monitor);
    std::atomic<int> delivered{0};
    driver.listen("onPostExecute", [&] { ++delivered; });
    driver.listen("onCancelled", [&] { ++delivered; });
    ASSERT_TRUE(monitor->callin("execute"));
    std::thread framework([&] {
        while (!driver.deliver_pending()) std::this_thread::yield();
    });
    run_threads([&](int) {
        for (int i = 0; i < 200; ++i) monitor->callin("cancel");
    });
    framework.join();
    EXPECT_EQ(delivered.load(), 1);
    EXPECT_TRUE(monitor->ok());
    EXPECT_EQ(monitor->state(), "Completed");
    EXPECT_TRUE(monitor->finish());
}

}  // namespace
}  // namespace typestar
