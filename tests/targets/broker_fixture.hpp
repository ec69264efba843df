// One Mosquitto broker per MQTT test binary, on a free loopback port (typestar::targets::MosquittoBroker),
// shared by tests/targets/mqtt_test.cpp (the two-client mapper) and mosquitto_client_test.cpp (a
// libmosquitto client adapter): absent binary skips, or fails when TYPESTAR_REQUIRE_MQTT=1.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "typestar/core/error.hpp"
#include "typestar/targets/mqtt.hpp"

namespace typestar::targets {

/// One broker for every test of the binary (started once, killed at exit).
class Broker {
public:
    /// The broker, or nullptr with `why` when the binary is absent (then the tests skip, or fail
    /// when TYPESTAR_REQUIRE_MQTT=1: scripts/quickstart.sh test installs mosquitto and sets it).
    static Broker* get(std::string& why) {
        static Broker broker;
        why = broker.why_;
        return broker.broker_ ? &broker : nullptr;
    }
    [[nodiscard]] MqttOptions options() const {
        MqttOptions o;
        o.port = broker_->port();
        o.broker = broker_->version();
        return o;
    }

private:
    Broker() {
        const auto binary = MosquittoBroker::find_binary();
        if (!binary) {
            why_ = "no mosquitto binary ($TYPESTAR_MOSQUITTO, /usr/sbin/mosquitto or PATH): apt-get install mosquitto";
            return;
        }
        const auto dir = std::filesystem::path(TYPESTAR_BINARY_DIR) / "tests" / "targets" /
                         ("mosquitto-" + std::to_string(::getpid()));
        try {
            broker_ = std::make_unique<MosquittoBroker>(*binary, dir);
            dir_ = dir;
        } catch (const DeviceError& e) {
            why_ = e.what();  // names the log, which stays
        }
    }
    ~Broker() {
        broker_.reset();  // stops the broker
        std::error_code ignored;
        if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
    }
    std::unique_ptr<MosquittoBroker> broker_;
    std::filesystem::path dir_;
    std::string why_;
};

inline bool mqtt_required() {
    const char* v = std::getenv("TYPESTAR_REQUIRE_MQTT");
    return v != nullptr && std::string(v) == "1";
}

}  // namespace typestar::targets
