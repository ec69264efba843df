#include "typestar/monitor/callback_driver.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "monitor_fixtures.hpp"

namespace typestar {
namespace {

using monitor_test::async_task;

TEST(CallbackDriver, DeliversToTheListenerAfterTheStateMoved) {
    auto monitor = std::make_shared<Monitor>(async_task());
    CallbackDriver driver(monitor);
    std::vector<std::string> seen;
    driver.listen("onPostExecute", [&] { seen.push_back("post in " + monitor->state()); });
    monitor->callin("execute");
    EXPECT_TRUE(driver.deliver("onPostExecute"));
    EXPECT_EQ(seen, std::vector<std::string>{"post in Completed"});
}

TEST(CallbackDriver, RefusesCallbacksTheStateCannotProduce) {
    auto monitor = std::make_shared<Monitor>(async_task());
    CallbackDriver driver(monitor);
    int calls = 0;
    driver.listen("onPostExecute", [&] { ++calls; });
    EXPECT_FALSE(driver.deliver("onPostExecute"));
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(monitor->violation_count(), 1u);
    monitor->callin("cancel");
    const auto v = driver.try_deliver("onPostExecute");
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->state, "Cancelling");
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(driver.try_deliver("onCancelled"), std::nullopt);
}

TEST(CallbackDriver, ListenersMayCallBackIntoTheFramework) {
    auto monitor = std::make_shared<Monitor>(async_task());
    CallbackDriver driver(monitor);
    // A listener that calls a callin from inside the callback (no deadlock; checked in the new state).
    driver.listen("onCancelled", [&] { monitor->callin("execute"); });
    monitor->callin("cancel");
    EXPECT_TRUE(driver.deliver("onCancelled"));
    ASSERT_EQ(monitor->violation_count(), 1u);
    EXPECT_EQ(monitor->violations()[0].state, "Completed");
    EXPECT_EQ(monitor->violations()[0].trace, (std::vector<std::string>{">cancel", "<onCancelled"}));
}

TEST(CallbackDriver, DeliverPendingDeliversWhatTheStateOwes) {
    auto monitor = std::make_shared<Monitor>(async_task());
    CallbackDriver driver(monitor);
    std::string got;
    driver.listen("onCancelled", [&] { got = "cancelled"; });
    EXPECT_EQ(driver.deliver_pending(), std::nullopt);
    monitor->callin("cancel");
    EXPECT_EQ(driver.deliver_pending(), "onCancelled");
    EXPECT_EQ(got, "cancelled");
    EXPECT_EQ(driver.deliver_pending(), std::nullopt);
}

TEST(CallbackDriver, ThePolicyOfTheMonitorApplies) {
    auto monitor = std::make_shared<Monitor>(async_task(), MonitorOptions{.policy = ViolationPolicy::Throw});
    CallbackDriver driver(monitor);
    EXPECT_THROW(driver.deliver("onCancelled"), ViolationError);
}

TEST(CallbackDriver, UnknownCallbacksAndNullMonitorsAreErrors) {
    auto monitor = std::make_shared<Monitor>(async_task());
    CallbackDriver driver(monitor);
    EXPECT_THROW(driver.listen("onPrepared", [] {}), Error);
    EXPECT_THROW(driver.deliver("onPrepared"), Error);
    EXPECT_THROW(CallbackDriver(nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace typestar
