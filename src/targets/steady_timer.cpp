// boost::asio::steady_timer as a class under learning.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <set>

#include <boost/asio/steady_timer.hpp>
#include <boost/version.hpp>

#include "typestar/asio/event_loop.hpp"
#include "typestar/targets/targets.hpp"

namespace typestar::targets {

namespace {

class TimerTarget {
public:
    TimerTarget(std::shared_ptr<CallbackSink> sink, CallbackLedger& ledger, std::chrono::milliseconds duration)
        : sink_(sink), loop_(std::move(sink), ledger), timer_(loop_.context()), duration_(duration) {}
    ~TimerTarget() { teardown(); }
    TimerTarget(const TimerTarget&) = delete;
    TimerTarget& operator=(const TimerTarget&) = delete;

    void expires_after() {
        loop_.callin([this] {
            owe(timer_.expires_after(duration_));
            set_ = true;
        });
        settle();
    }
    void async_wait() {
        loop_.callin([this] {
            const int id = next_id_++;
            pending_.insert(id);
            if (timer_.expiry() <= boost::asio::steady_timer::clock_type::now())
                owed_.insert(id);  // completes without waiting for time
            timer_.async_wait([this, id](const boost::system::error_code& ec) { completed(id, ec); });
        });
        settle();
    }
    void cancel() {
        loop_.callin([this] { owe(timer_.cancel()); });
        settle();
    }
    void teardown() noexcept {
        loop_.stop([this] { timer_.cancel(); });
    }

private:
    // pending_ and owed_ live on the loop thread (callins and handlers run there).

    /// The pending waits were just cancelled (expires_after and cancel return how many): they all
    /// complete without waiting for time (a wait whose handler was already queued completes too).
    void owe(std::size_t /*cancelled*/) { owed_.insert(pending_.begin(), pending_.end()); }
    void completed(int id, const boost::system::error_code& ec) {
        // The model's time passes only inside a `wait`: a timer whose deadline passed while no wait
        // ran (during a callin, between two steps, or after a wait that a callback ended early) means
        // the learner was slower than the timer's duration (a busy machine), not that the class
        // behaves so. (A `wait` answered by another callback ends early: the busy machine found this
        // too, `expires_after async_wait cancel wait async_wait cancel`.)
        if (!ec && set_ && !sink_->waited_at(timer_.expiry()))
            sink_->timing_assumption_broken("steady_timer: the deadline of the timer expires_after set (" +
                                            std::to_string(duration_.count()) +
                                            " ms) passed while no wait ran: callins must follow each other within "
                                            "the duration");
        loop_.emit(ec == boost::asio::error::operation_aborted ? "aborted" : ec ? "error" : "fired");
        pending_.erase(id);
        owed_.erase(id);
    }
    /// Waits until every handler owed without the passage of time has run.
    void settle() {
        loop_.settle_until([this] { return owed_.empty(); }, "steady_timer: a handler owed at once");
    }

    std::shared_ptr<CallbackSink> sink_;
    asio::EventLoop loop_;
    boost::asio::steady_timer timer_;
    std::chrono::milliseconds duration_;
    int next_id_ = 0;
    bool set_ = false;  ///< expires_after ran in this query (a fresh timer's deadline is the clock's epoch)
    std::set<int> pending_;
    std::set<int> owed_;
};

}  // namespace

ClassDefinition steady_timer(const SteadyTimerOptions& options) {
    auto ledger = std::make_shared<CallbackLedger>();
    const auto duration = options.duration;
    return LearningPurpose<TimerTarget>("steady_timer")
        .framework("boost-" + std::to_string(BOOST_VERSION / 100000) + "." +
                   std::to_string(BOOST_VERSION / 100 % 1000) + "." + std::to_string(BOOST_VERSION % 100))
        .reset([ledger, duration](const std::shared_ptr<CallbackSink>& sink) {
            return std::make_shared<TimerTarget>(sink, *ledger, duration);
        })
        .teardown([](TimerTarget& t) { t.teardown(); })
        .callin("expires_after", [](TimerTarget& t) { t.expires_after(); })
        .callin("async_wait", [](TimerTarget& t) { t.async_wait(); })
        .callin("cancel", [](TimerTarget& t) { t.cancel(); })
        .callback("fired")
        .callback("aborted")
        .timing(options.timing)
        .quiet_changes_state()
        .restrict_to(both(at_most_pending({"async_wait"}, {"fired", "aborted"}, 1), callbacks_drained(ledger)))
        .build();
}

}  // namespace typestar::targets
