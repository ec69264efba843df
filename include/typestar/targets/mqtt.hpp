// An MQTT broker as a system under learning: the two-client mapper of Tappler, Aichernig and
// Bloem (ICST 2017), in-process, over raw TCP sockets, and a Mosquitto process for tests.
// Design note: the mapper turns each of the published model's nine abstract inputs into MQTT 3.1.1
// packets (mqtt_packet.hpp) sent by client c1 or c2, and what both clients then receive into one
// output in the published labels' form (`c1_ConnAck__Empty`, `c1_ConnectionClosed__Pub(c2,my_topic,bye)`).
// An observation ends with a ping round trip, not a sleep: after the input, the client that acted
// and then the other one each send PINGREQ and read until PINGRESP (or end of file: the broker
// closed the connection). A broker that handles one connection's packets in order, such as
// Mosquitto's single-threaded event loop, has written everything the input caused to that client
// before the PINGRESP. A timeout is only a safety net and a DeviceError, never an answer.
// Queries do not interfere: every query uses fresh client ids and a fresh topic (a counter), so a
// retained message or a will of an earlier query can never be seen; the topic is printed as
// `my_topic`. See docs/targets/mqtt.md for what was learned from Mosquitto 2.0.11.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "typestar/core/alphabet.hpp"
#include "typestar/core/mealy.hpp"
#include "typestar/sul/device.hpp"
#include "typestar/targets/mqtt_packet.hpp"

namespace typestar::targets {

/// Where the broker listens and how long the mapper waits for it.
struct MqttOptions {
    std::string host = "127.0.0.1";  ///< an IPv4 address
    std::uint16_t port = 1883;
    /// The safety net: no PINGRESP (or end of file) within this time after an input is a
    /// DeviceError naming the query, the step, the input and the client.
    std::chrono::milliseconds timeout{5000};
    /// What the broker is (e.g. "mosquitto version 2.0.11"), for provenance (DeviceDescription's
    /// framework); the mapper cannot ask the broker.
    std::string broker;
};

/// The published model's nine inputs, in the order of its initial state's edges: ConnectC2,
/// ConnectC1WithWill, ConnectC1WithWillRetain, DeleteRetainedC1, DeleteRetainedC2, SubscribeC2,
/// UnSubScribeC2, DisconnectTCPC1, DisconnectC1.
[[nodiscard]] const std::vector<std::string>& mqtt_inputs();

/// The two-client MQTT mapper (in-process Device). Per input (client ids and topic fresh per query):
/// - `ConnectC2`: c2 sends CONNECT (clean session, no will), on a new TCP connection when c2 has
///   none, else on its open one (a second CONNECT: a protocol violation the broker must answer by
///   closing the connection, MQTT 3.1.1 [MQTT-3.1.0-2]).
/// - `ConnectC1WithWill` / `ConnectC1WithWillRetain`: c1 likewise, with the will `bye` on the topic
///   (QoS 1), its retain flag clear / set.
/// - `DeleteRetainedC1` / `DeleteRetainedC2`: the client publishes an empty retained message on the
///   topic (QoS 1), which deletes the retained message there.
/// - `SubscribeC2` / `UnSubScribeC2`: c2 subscribes to the topic (QoS 0) / unsubscribes from it.
/// - `DisconnectTCPC1`: c1 closes its TCP connection without DISCONNECT (shutdown, then reads to
///   end of file): an unexpected loss, after which the broker publishes c1's will.
/// - `DisconnectC1`: c1 sends DISCONNECT (the broker discards the will and closes).
/// An input for a client without a connection sends nothing. Outputs: `c1_X__c2_Y`, each side the
/// packets that client received, joined by `__` in arrival order (`ConnAck`, `PubAck`, `SubAck`,
/// `UnSubAck`, `Pub(cN,topic,payload)`, then `ConnectionClosed` at end of file or reset), `Empty`
/// for none; a client without a connection answers `ConnectionClosed`. A QoS 1 PUBLISH a client
/// receives is acknowledged by the mapper (PUBACK), which is not an output. Every socket has
/// TCP_NODELAY. Not thread-safe (one query at a time), like every Device.
class MqttMapper final : public Device {
public:
    explicit MqttMapper(MqttOptions options = {});
    ~MqttMapper() override;
    MqttMapper(const MqttMapper&) = delete;
    MqttMapper& operator=(const MqttMapper&) = delete;

    [[nodiscard]] const Alphabet& inputs() const override { return inputs_; }
    [[nodiscard]] const Alphabet& outputs() const override { return outputs_; }
    /// "mqtt://HOST:PORT".
    [[nodiscard]] std::string name() const override;
    [[nodiscard]] DeviceDescription describe() const override;
    /// Closes both clients' connections and starts a query with fresh client ids and topic.
    void reset() override;
    /// Throws DeviceError: the broker unreachable, a timeout, a malformed packet.
    Symbol step(Symbol input) override;
    /// Closes both connections (with a reset, so no TIME_WAIT piles up over many queries).
    void finish() noexcept override;

    /// Queries started (resets) so far.
    [[nodiscard]] std::uint64_t queries() const noexcept { return query_; }

private:
    /// One MQTT client of the mapper: its connection and what it received during the current step.
    struct Client {
        std::string label;  ///< "c1" or "c2"
        int fd = -1;        ///< -1: no connection
        bool shut = false;  ///< its sending side is shut down (DisconnectTCPC1): read to end of file
        std::uint16_t next_packet_id = 1;
        mqtt::PacketReader reader;
        std::vector<std::string> tokens;  ///< this step's received packets, by name
    };
    void open(Client& client);
    void send(Client& client, const std::string& bytes);
    /// Sends PINGREQ (unless `client.shut`) and reads until PINGRESP or end of file.
    void observe(Client& client);
    void close(Client& client) noexcept;
    [[nodiscard]] std::string side(const Client& client) const;
    [[nodiscard]] std::string where(const Client& client) const;

    MqttOptions options_;
    Alphabet inputs_;
    Alphabet outputs_;
    std::string nonce_;
    std::uint64_t query_ = 0;
    std::size_t step_ = 0;
    std::string input_;  ///< the current step's input, for messages
    std::string topic_;
    Client c1_;
    Client c2_;
};

/// One transition on which two Mealy machines answer differently, with its shortest witness.
struct MealyDifference {
    std::vector<std::string> witness;  ///< a shortest word reaching the pair of states, then the input
    std::string expected;              ///< the last output of `expected` (e.g. the published model)
    std::string actual;                ///< the last output of `actual` (e.g. the learned model)
    std::string expected_state;        ///< the states before the last input
    std::string actual_state;
    bool operator==(const MealyDifference&) const = default;
};

/// Every difference of two machines over the same inputs (by name): a breadth-first walk of their
/// product from the initial states (inputs in `expected`'s order), one entry per reachable pair of
/// states and input whose outputs differ (by name), each with the shortest word that shows it — so
/// a difference in either direction (a transition of either machine) is listed. Empty exactly when
/// the machines are equivalent. Throws std::invalid_argument when the input alphabets differ as sets.
[[nodiscard]] std::vector<MealyDifference> mealy_differences(const MealyMachine& expected, const MealyMachine& actual);

/// A Mosquitto broker started as a child process on a free loopback port, with a generated
/// configuration (`listener PORT 127.0.0.1`, `allow_anonymous true`, `persistence false`,
/// `set_tcp_nodelay true`), and stopped (SIGTERM, then SIGKILL) by the destructor. It also gets
/// SIGTERM when the thread that started it dies (PR_SET_PDEATHSIG), so a test killed by a timeout
/// leaves no broker behind; run as root it therefore stays root (`user root`: dropping privileges
/// would clear that signal). No system service is involved.
class MosquittoBroker {
public:
    /// The mosquitto binary: $TYPESTAR_MOSQUITTO if set, else /usr/sbin/mosquitto, else `mosquitto`
    /// on PATH; nullopt when none is an executable file.
    [[nodiscard]] static std::optional<std::filesystem::path> find_binary();
    /// The first line `binary -h` prints, e.g. "mosquitto version 2.0.11"; empty if it printed none.
    [[nodiscard]] static std::string version_of(const std::filesystem::path& binary);

    /// Writes `work_dir`/mosquitto.conf, starts `binary -c` it with its output in
    /// `work_dir`/mosquitto.log, and returns once the port accepts a connection. Throws DeviceError
    /// (naming the log) when the broker exits or does not listen within `startup`.
    MosquittoBroker(const std::filesystem::path& binary, const std::filesystem::path& work_dir,
                    std::chrono::milliseconds startup = std::chrono::milliseconds(10'000));
    ~MosquittoBroker();
    MosquittoBroker(const MosquittoBroker&) = delete;
    MosquittoBroker& operator=(const MosquittoBroker&) = delete;

    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    [[nodiscard]] const std::string& version() const noexcept { return version_; }
    [[nodiscard]] const std::filesystem::path& log() const noexcept { return log_; }

private:
    pid_t pid_ = -1;
    std::uint16_t port_ = 0;
    std::string version_;
    std::filesystem::path log_;
};

}  // namespace typestar::targets
