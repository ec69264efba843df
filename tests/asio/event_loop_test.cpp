// typestar::asio::EventLoop on a real InProcessDevice: callins marshalled onto the loop thread,
// handlers settled before the callin returns, a harness error when they do not run, teardown muted.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "typestar/asio/event_loop.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/inprocess.hpp"

namespace typestar {
namespace {

using namespace std::chrono_literals;

std::string run(Device& device, const std::string& word) {
    std::istringstream in(word);
    Word inputs;
    for (std::string w; in >> w;) inputs.push_back(device.inputs().at(w));
    const RunResult result = device.run(inputs);
    std::string out;
    for (const Symbol s : result.outputs) out += (out.empty() ? "" : " ") + device.outputs().name(s);
    return out;
}

/// `post`: a handler posted to the loop reports `done` (due at once: the callin settles on it);
/// `stuck`: waits for a handler that never runs; `arm`: a 30 ms timer reports `done` later.
class Relay {
public:
    Relay(std::shared_ptr<CallbackSink> sink, CallbackLedger& ledger)
        : loop_(std::move(sink), ledger, {0ms, 100ms}), timer_(loop_.context()) {}
    ~Relay() { teardown(); }
    void teardown() noexcept { loop_.stop([this] { timer_.cancel(); }); }

    void post() {
        loop_.callin([this] {
            ++owed_;
            boost::asio::post(loop_.context(), [this] {
                loop_.emit("done");
                --owed_;
            });
        });
        loop_.settle_until([this] { return owed_ == 0; });
    }
    void stuck() {
        loop_.settle_until([] { return false; }, "a handler nobody posted");
    }
    void arm() {
        loop_.callin([this] {
            timer_.expires_after(30ms);
            timer_.async_wait([this](const boost::system::error_code& ec) {
                if (!ec) loop_.emit("done");
            });
        });
    }

private:
    asio::EventLoop loop_;
    boost::asio::steady_timer timer_;
    int owed_ = 0;  // on the loop thread
};

ClassDefinition relay() {
    auto ledger = std::make_shared<CallbackLedger>();
    return LearningPurpose<Relay>("Relay")
        .reset([ledger](const std::shared_ptr<CallbackSink>& sink) { return std::make_shared<Relay>(sink, *ledger); })
        .teardown([](Relay& r) { r.teardown(); })
        .callin("post", [](Relay& r) { r.post(); })
        .callin("stuck", [](Relay& r) { r.stuck(); })
        .callin("arm", [](Relay& r) { r.arm(); })
        .callback("done")
        .timing({100ms, 0ms})
        .restrict_to(callbacks_drained(ledger))
        .build();
}

TEST(EventLoop, CallRunsOnTheLoopThreadReturnsAndRethrows) {
    asio::EventLoop loop(nullptr, nullptr);
    EXPECT_NE(loop.call([] { return std::this_thread::get_id(); }), std::this_thread::get_id());
    EXPECT_EQ(loop.call([] { return 42; }), 42);
    EXPECT_THROW(loop.call([] { throw std::logic_error("refused"); }), std::logic_error);
    loop.stop();
    loop.stop();  // idempotent
    EXPECT_THROW(loop.call([] {}), std::logic_error);  // nothing would run it
}

TEST(EventLoop, AHandlerDueAtOnceIsQueuedBeforeTheCallinReturns) {
    InProcessDevice device(relay());
    // Always delivered by the wait right after the callin, never a race with the next callin.
    for (int i = 0; i < 20; ++i) EXPECT_EQ(run(device, "post wait wait"), "ok done quiet");
    EXPECT_EQ(run(device, "post post"), "ok unknown:purpose");  // the drained rule: outside the purpose
    EXPECT_EQ(run(device, "post wait post wait"), "ok done ok done");
}

TEST(EventLoop, AHandlerThatNeverRunsIsAHarnessErrorNotAnAnswer) {
    InProcessDevice device(relay());
    try {
        (void)run(device, "stuck");
        FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("a handler nobody posted did not run within 100 ms"), std::string::npos)
            << e.what();
    }
}

TEST(EventLoop, TeardownMutesTheCallbacksOfItsOwnCancellation) {
    InProcessDevice device(relay());
    EXPECT_EQ(run(device, "arm wait"), "ok done");  // the timer fires after 30 ms
    EXPECT_EQ(run(device, "arm"), "ok");            // torn down before it fires: cancelled, muted
    std::this_thread::sleep_for(60ms);
    EXPECT_NO_THROW(device.check_timing());
    EXPECT_EQ(device.timing_report().late, 0U);
}

TEST(CompletionSymbol, NamesTheOutcomeClass) {
    namespace error = boost::asio::error;
    EXPECT_EQ(asio::completion_symbol("read", {}), "read_ok");
    EXPECT_EQ(asio::completion_symbol("read", error::operation_aborted), "read_aborted");
    EXPECT_EQ(asio::completion_symbol("read", error::eof), "read_eof");
    EXPECT_EQ(asio::completion_symbol("read", error::connection_reset), "read_error");
}

}  // namespace
}  // namespace typestar
