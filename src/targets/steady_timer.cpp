// boost::asio::steady_timer as a class under learning.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>

#include <boost/asio/steady_timer.hpp>
#include <boost/version.hpp>

#include "io_thread.hpp"
#include "typestar/targets/targets.hpp"

namespace typestar::targets {

namespace {

class TimerTarget {
public:
    TimerTarget(std::shared_ptr<CallbackSink> sink, std::shared_ptr<std::atomic<std::size_t>> emitted,
                std::chrono::milliseconds duration)
        : io_(std::move(sink), std::move(emitted)), timer_(io_.io()), duration_(duration) {}
    ~TimerTarget() { teardown(); }
    TimerTarget(const TimerTarget&) = delete;
    TimerTarget& operator=(const TimerTarget&) = delete;

    void expires_after() {
        io_.call([this] { owe(timer_.expires_after(duration_)); });
        settle();
    }
    void async_wait() {
        io_.call([this] {
            const int id = next_id_++;
            const bool expired = timer_.expiry() <= boost::asio::steady_timer::clock_type::now();
            {
                std::lock_guard<std::mutex> lock(mutex_);
                pending_.insert(id);
                if (expired) owed_.insert(id);  // completes without waiting for time
            }
            timer_.async_wait([this, id](const boost::system::error_code& ec) { completed(id, ec); });
        });
        settle();
    }
    void cancel() {
        io_.call([this] { owe(timer_.cancel()); });
        settle();
    }
    void teardown() noexcept {
        io_.stop([this] { timer_.cancel(); });
    }

private:
    /// The pending waits were just cancelled (expires_after and cancel return how many): they all
    /// complete without waiting for time (a wait whose handler was already queued completes too).
    void owe(std::size_t /*cancelled*/) {
        std::lock_guard<std::mutex> lock(mutex_);
        owed_.insert(pending_.begin(), pending_.end());
    }
    void completed(int id, const boost::system::error_code& ec) {
        io_.emit(ec == boost::asio::error::operation_aborted ? "aborted" : ec ? "error" : "fired");
        std::lock_guard<std::mutex> lock(mutex_);
        pending_.erase(id);
        owed_.erase(id);
        changed_.notify_all();
    }
    /// Waits until every handler owed without the passage of time has run.
    void settle() {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!changed_.wait_for(lock, std::chrono::seconds(2), [this] { return owed_.empty(); }))
            throw std::runtime_error("steady_timer: a handler owed at once did not run within 2 s");
    }

    detail::IoThread io_;
    boost::asio::steady_timer timer_;
    std::chrono::milliseconds duration_;
    int next_id_ = 0;
    std::mutex mutex_;
    std::condition_variable changed_;
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
            return std::make_shared<TimerTarget>(sink, ledger->start_instance(), duration);
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
