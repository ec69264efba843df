// A libmosquitto client (Debian's libmosquitto 2.0, a network thread of its own) learned and checked
// as a class under learning, against a Mosquitto broker the test starts on a free loopback port:
// the adapter a C++ team writes with typestar::QuietWindow, one line per callin (issue 37).
#include <gtest/gtest.h>

#include <mosquitto.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "broker_fixture.hpp"
#include "typestar/device/drained.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/device/quiet_window.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::targets {
namespace {

using namespace std::chrono_literals;

void check(int rc, std::string_view call) {
    if (rc != MOSQ_ERR_SUCCESS) throw std::runtime_error(std::string(call) + ": " + mosquitto_strerror(rc));
}

/// One libmosquitto client: `connect` (connect_async, then the network thread), `subscribe` and
/// `publish` (QoS 0, the client's own topic, fresh per instance), `disconnect` (then the network
/// thread ends, as libmosquitto's loop_stop wants). Callbacks: on_connect, on_message,
/// on_disconnect; SUBACKs and every packet logged are activity (`touch`), not callbacks. A call libmosquitto refuses
/// (MOSQ_ERR_NO_CONN, ...) throws: `err`.
class MosquittoClient {
public:
    MosquittoClient(std::shared_ptr<CallbackSink> sink, CallbackLedger& ledger, std::uint16_t port, std::string topic,
                    QuietWindowOptions window)
        : quiet_(std::move(sink), ledger, window), port_(port), topic_(std::move(topic)) {
        client_ = mosquitto_new(nullptr, true, this);
        if (client_ == nullptr) throw std::runtime_error("mosquitto_new failed");
        mosquitto_connect_callback_set(client_, [](mosquitto*, void* self, int rc) {
            static_cast<MosquittoClient*>(self)->quiet_.emit(rc == 0 ? "on_connect" : "on_connect_refused");
        });
        mosquitto_message_callback_set(client_, [](mosquitto*, void* self, const mosquitto_message*) {
            static_cast<MosquittoClient*>(self)->quiet_.emit("on_message");
        });
        mosquitto_disconnect_callback_set(client_, [](mosquitto*, void* self, int) {
            static_cast<MosquittoClient*>(self)->quiet_.emit("on_disconnect");
        });
        mosquitto_subscribe_callback_set(client_, [](mosquitto*, void* self, int, int, const int*) {
            static_cast<MosquittoClient*>(self)->quiet_.touch();
        });
        // Every packet the network thread sends or receives is logged: activity that restarts the
        // window, so a thread scheduled late still settles its callin's callbacks before it returns.
        mosquitto_log_callback_set(client_, [](mosquitto*, void* self, int, const char*) {
            static_cast<MosquittoClient*>(self)->quiet_.touch();
        });
    }
    ~MosquittoClient() {
        teardown();
        mosquitto_destroy(client_);
    }
    MosquittoClient(const MosquittoClient&) = delete;
    MosquittoClient& operator=(const MosquittoClient&) = delete;
    /// Mutes, disconnects and joins the network thread (a disconnect ends it; loop_stop's `force`
    /// would cancel it while it may hold a libmosquitto lock). Idempotent.
    void teardown() noexcept {
        quiet_.teardown([this] {
            if (!running_) return;
            mosquitto_disconnect(client_);
            mosquitto_loop_stop(client_, false);
            running_ = false;
        });
    }

    void connect() {
        quiet_.callin("connect", [this] {
            check(mosquitto_connect_async(client_, "127.0.0.1", port_, 60), "mosquitto_connect_async");
            check(mosquitto_loop_start(client_), "mosquitto_loop_start");
            running_ = true;
        });
    }
    void subscribe() {
        quiet_.callin("subscribe", [this] { check(mosquitto_subscribe(client_, nullptr, topic_.c_str(), 0), "mosquitto_subscribe"); });
    }
    void publish() {
        quiet_.callin("publish", [this] {
            check(mosquitto_publish(client_, nullptr, topic_.c_str(), 2, "hi", 0, false), "mosquitto_publish");
        });
    }
    void disconnect() {
        quiet_.callin("disconnect", [this] {
            check(mosquitto_disconnect(client_), "mosquitto_disconnect");
            check(mosquitto_loop_stop(client_, false), "mosquitto_loop_stop");
            running_ = false;
        });
    }

private:
    QuietWindow quiet_;  // first: outlives the client, whose thread calls into it
    std::uint16_t port_;
    std::string topic_;
    mosquitto* client_ = nullptr;
    bool running_ = false;  // the network thread runs (loop_start until loop_stop)
};

/// The learning purpose beside the drained rule: no `connect` while the last connect is not undone
/// by a `disconnect` (a reconnect on a live connection is not this purpose's question).
QueryFilter no_reconnect() {
    return [](std::span<const StepRecord> history, std::string_view next) {
        if (next != "connect") return true;
        bool connected = false;
        for (const auto& step : history) {
            if (step.input == "connect" && step.output == "ok") connected = true;
            if (step.input == "disconnect" && step.output == "ok") connected = false;
        }
        return !connected;
    };
}

struct ClientOptions {
    QuietWindowOptions window{20ms, 10000ms};
    std::chrono::milliseconds tmax{100ms};
};

ClassDefinition mosquitto_client(std::uint16_t port, const ClientOptions& options) {
    static const int init = mosquitto_lib_init();
    (void)init;
    auto ledger = std::make_shared<CallbackLedger>();
    auto instances = std::make_shared<std::atomic<int>>(0);
    int major = 0, minor = 0, revision = 0;
    mosquitto_lib_version(&major, &minor, &revision);
    return LearningPurpose<MosquittoClient>("MosquittoClient")
        .framework("libmosquitto " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(revision))
        .reset([=](const std::shared_ptr<CallbackSink>& sink) {
            const std::string topic = "typestar/" + std::to_string(::getpid()) + "/" + std::to_string((*instances)++);
            return std::make_shared<MosquittoClient>(sink, *ledger, port, topic, options.window);
        })
        .teardown([](MosquittoClient& c) { c.teardown(); })
        .callin("connect", [](MosquittoClient& c) { c.connect(); })
        .callin("subscribe", [](MosquittoClient& c) { c.subscribe(); })
        .callin("publish", [](MosquittoClient& c) { c.publish(); })
        .callin("disconnect", [](MosquittoClient& c) { c.disconnect(); })
        .callback("on_connect")
        .callback("on_connect_refused")
        .callback("on_message")
        .callback("on_disconnect")
        .timing({options.tmax, 0ms})
        .restrict_to(both(callbacks_drained(ledger), no_reconnect()))
        .build();
}

class MosquittoClientTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        broker_ = Broker::get(why);
        if (broker_ == nullptr) {
            if (mqtt_required() || MosquittoBroker::find_binary()) FAIL() << "no MQTT broker: " << why;
            GTEST_SKIP() << "skipped: " << why;
        }
    }
    Broker* broker_ = nullptr;
};

std::string run(Device& d, const std::vector<std::string>& names) {
    Word word;
    for (const auto& n : names) word.push_back(d.inputs().at(n));
    std::string out;
    for (const Symbol s : d.run(word).outputs) out += (out.empty() ? "" : " ") + d.outputs().name(s);
    return out;
}

TEST_F(MosquittoClientTest, EachCallbackIsQueuedBeforeTheCallinReturns) {
    InProcessDevice d(mosquitto_client(broker_->options().port, {}));
    EXPECT_EQ(run(d, {"connect", "wait", "subscribe", "publish", "wait", "disconnect", "wait"}),
              "ok on_connect ok ok on_message ok on_disconnect");
    // Counted before `connect` returned: `subscribe` right after it is outside the drained purpose.
    EXPECT_EQ(run(d, {"connect", "subscribe"}), "ok unknown:purpose");
    EXPECT_EQ(run(d, {"publish"}), "err");  // MOSQ_ERR_NO_CONN
    EXPECT_NO_THROW(d.check_timing());
}

TEST_F(MosquittoClientTest, LearnedAsTheCommittedSpecWhichPassesItsCheck) {
    // specs/targets/mosquitto_client.yaml was written by this learn (L#, B = 2): connect -> on_connect;
    // subscribe, then publish -> on_message; disconnect -> on_disconnect, after which the client is
    // as new (connect again works); publish without subscribe calls nothing back.
    const spec::Spec committed = spec::load_spec(std::string(TYPESTAR_SOURCE_DIR) + "/specs/targets/mosquitto_client.yaml");
    const auto port = broker_->options().port;
    InProcessDevice learner_device(mosquitto_client(port, {}));
    Device* devices[] = {&learner_device};
    LearnOptions options;
    options.equivalence.bound = 2;
    const LearnedSpec learned = learn_spec(devices, options);
    ASSERT_TRUE(learned.spec.has_value()) << learned.not_a_closure;
    const auto& total = learned.stats.total();
    std::cout << "libmosquitto client learned against " << broker_->options().broker << ": "
              << learned.spec->typestate.states.size() << " states, " << total.queries_executed << " queries, "
              << total.timing_retries << " timing retries, " << learned.seconds << " s (" << learned.learner
              << ", B = " << learned.bound << ")\n";
    EXPECT_EQ(learned.spec->typestate.states.size(), 6u);
    EXPECT_TRUE(spec::same_behaviour(*learned.spec, committed)) << spec::write_spec(*learned.spec);

    InProcessDevice checker_device(mosquitto_client(port, {}));
    Device* checked[] = {&checker_device};
    CheckOptions check;
    check.bound = 2;
    const CheckReport report = check_spec(committed, checked, check);
    std::cout << "check of specs/targets/mosquitto_client.yaml: " << verdict_name(report.verdict) << ", "
              << report.tests << " tests, " << report.stats.total().queries_executed << " queries, "
              << report.stats.total().timing_retries << " timing retries\n";
    EXPECT_EQ(report.verdict, Verdict::Pass) << format_trace(report.trace) << report.reason;
}

}  // namespace
}  // namespace typestar::targets
