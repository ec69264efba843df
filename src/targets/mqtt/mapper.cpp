// The two-client MQTT mapper over POSIX TCP sockets (see typestar/targets/mqtt.hpp).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "typestar/core/error.hpp"
#include "typestar/targets/mqtt.hpp"

namespace typestar::targets {

namespace {

enum Input : Symbol {
    ConnectC2,
    ConnectC1WithWill,
    ConnectC1WithWillRetain,
    DeleteRetainedC1,
    DeleteRetainedC2,
    SubscribeC2,
    UnSubScribeC2,
    DisconnectTCPC1,
    DisconnectC1,
};

constexpr const char* kWillMessage = "bye";

/// A short per-mapper string (base 36), so that mappers in parallel or in successive runs against
/// one broker never share a client id or a topic.
std::string make_nonce() {
    static std::atomic<std::uint64_t> instances{0};
    std::uint64_t x = static_cast<std::uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ULL ^
                      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                      (instances.fetch_add(1) + 1) * 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 31;
    std::string out;
    for (int i = 0; i < 6; ++i, x /= 36) out.push_back("0123456789abcdefghijklmnopqrstuvwxyz"[x % 36]);
    return out;
}

std::string errno_text(int error) { return std::strerror(error); }

/// Printable bytes as they are, others as \xHH (a payload is data, a label is text).
std::string printable(const std::string& bytes) {
    std::string out;
    for (const char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x21 && u < 0x7F) {
            out.push_back(c);
        } else {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out.push_back(hex[u >> 4]);
            out.push_back(hex[u & 0xF]);
        }
    }
    return out;
}

}  // namespace

const std::vector<std::string>& mqtt_inputs() {
    static const std::vector<std::string> inputs{
        "ConnectC2",        "ConnectC1WithWill", "ConnectC1WithWillRetain",
        "DeleteRetainedC1", "DeleteRetainedC2",  "SubscribeC2",
        "UnSubScribeC2",    "DisconnectTCPC1",   "DisconnectC1",
    };
    return inputs;
}

MqttMapper::MqttMapper(MqttOptions options)
    : options_(std::move(options)), inputs_(mqtt_inputs()), nonce_(make_nonce()) {
    c1_.label = "c1";
    c2_.label = "c2";
}

MqttMapper::~MqttMapper() { finish(); }

std::string MqttMapper::name() const { return "mqtt://" + options_.host + ":" + std::to_string(options_.port); }

DeviceDescription MqttMapper::describe() const {
    DeviceDescription d;
    d.name = name();
    d.class_name = "MQTT broker, two-client mapper (Tappler, Aichernig and Bloem, ICST 2017)";
    d.framework = options_.broker;
    return d;
}

std::string MqttMapper::where(const Client& client) const {
    return "query " + std::to_string(query_) + ", step " + std::to_string(step_) + " (" + input_ + "), client " +
           client.label + " at " + name();
}

void MqttMapper::open(Client& client) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw DeviceError("mqtt: socket(): " + errno_text(errno) + " (" + where(client) + ")");
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(options_.port);
    if (::inet_pton(AF_INET, options_.host.c_str(), &address.sin_addr) != 1) {
        ::close(fd);
        throw DeviceError("mqtt: not an IPv4 address: '" + options_.host + "'");
    }
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        const int error = errno;
        ::close(fd);
        throw DeviceError("mqtt: cannot connect: " + errno_text(error) + " (" + where(client) + ")");
    }
    client.fd = fd;
    client.shut = false;
    client.reader = {};
}

void MqttMapper::send(Client& client, const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = ::send(client.fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n >= 0) {
            sent += static_cast<std::size_t>(n);
            continue;
        }
        if (errno == EINTR) continue;
        // The broker closed the connection already: the read that follows sees the end of file.
        if (errno == EPIPE || errno == ECONNRESET) return;
        throw DeviceError("mqtt: send(): " + errno_text(errno) + " (" + where(client) + ")");
    }
}

void MqttMapper::close(Client& client) noexcept {
    if (client.fd < 0) return;
    // An abortive close (RST): no TIME_WAIT is left behind, whatever the number of queries.
    const linger abort{1, 0};
    ::setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
    ::close(client.fd);
    client.fd = -1;
    client.shut = false;
}

void MqttMapper::observe(Client& client) {
    if (client.fd < 0) return;
    if (!client.shut) send(client, mqtt::encode_pingreq());
    const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
    const std::string prefix = client.label + "_";
    for (;;) {
        try {
            while (auto packet = client.reader.next()) {
                switch (packet->type) {
                case mqtt::PacketType::PingResp:
                    if (!client.shut) return;
                    client.tokens.push_back(prefix + "PingResp");
                    break;
                case mqtt::PacketType::ConnAck: {
                    const std::uint16_t rc = mqtt::read_u16(*packet, 0) & 0xFF;
                    client.tokens.push_back(prefix + (rc == 0 ? "ConnAck" : "ConnAckRefused" + std::to_string(rc)));
                    break;
                }
                case mqtt::PacketType::PubAck: client.tokens.push_back(prefix + "PubAck"); break;
                case mqtt::PacketType::UnsubAck: client.tokens.push_back(prefix + "UnSubAck"); break;
                case mqtt::PacketType::SubAck: {
                    const bool failed = packet->body.size() > 2 && static_cast<unsigned char>(packet->body[2]) == 0x80;
                    client.tokens.push_back(prefix + (failed ? "SubAckFailure" : "SubAck"));
                    break;
                }
                case mqtt::PacketType::Publish: {
                    const mqtt::Publish p = mqtt::decode_publish(*packet);
                    const std::string topic = p.topic == topic_ ? "my_topic" : printable(p.topic);
                    client.tokens.push_back("Pub(" + client.label + "," + topic + "," + printable(p.payload) + ")");
                    if (p.qos == 1) send(client, mqtt::encode_puback(p.packet_id));
                    break;
                }
                default:
                    client.tokens.push_back(prefix + "Packet" + std::to_string(static_cast<int>(packet->type)));
                    break;
                }
            }
        } catch (const std::invalid_argument& e) {
            throw DeviceError(std::string(e.what()) + " (" + where(client) + ")");
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{client.fd, POLLIN, 0};
        const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count()) + 1) : 0;
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) throw DeviceError("mqtt: poll(): " + errno_text(errno) + " (" + where(client) + ")");
        if (ready == 0)
            throw DeviceError("mqtt: no " + std::string(client.shut ? "end of file" : "PINGRESP") + " within " +
                              std::to_string(options_.timeout.count()) + " ms (" + where(client) + ")");
        char buffer[4096];
        const ssize_t n = ::recv(client.fd, buffer, sizeof buffer, 0);
        if (n > 0) {
            client.reader.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n == 0 || errno == ECONNRESET) {  // the broker closed the connection
            if (client.reader.pending() > 0)
                throw DeviceError("mqtt: connection closed inside a packet (" + where(client) + ")");
            client.tokens.push_back(prefix + "ConnectionClosed");
            close(client);
            return;
        }
        throw DeviceError("mqtt: recv(): " + errno_text(errno) + " (" + where(client) + ")");
    }
}

void MqttMapper::reset() {
    close(c1_);
    close(c2_);
    ++query_;
    step_ = 0;
    topic_ = "typestar/" + nonce_ + "/" + std::to_string(query_);
    c1_.next_packet_id = 1;
    c2_.next_packet_id = 1;
}

void MqttMapper::finish() noexcept {
    close(c1_);
    close(c2_);
}

std::string MqttMapper::side(const Client& client) const {
    if (client.tokens.empty()) return client.fd < 0 ? client.label + "_ConnectionClosed" : "Empty";
    std::string out;
    for (const auto& t : client.tokens) out += (out.empty() ? "" : "__") + t;
    return out;
}

Symbol MqttMapper::step(Symbol input) {
    if (input >= inputs_.size()) throw std::out_of_range("mqtt: input id " + std::to_string(input));
    ++step_;
    input_ = inputs_.name(input);
    c1_.tokens.clear();
    c2_.tokens.clear();
    const bool on_c2 = input == ConnectC2 || input == DeleteRetainedC2 || input == SubscribeC2 || input == UnSubScribeC2;
    Client& actor = on_c2 ? c2_ : c1_;
    Client& other = on_c2 ? c1_ : c2_;
    const std::string id = actor.label + "-" + nonce_ + "-" + std::to_string(query_);
    switch (input) {
    case ConnectC2:
    case ConnectC1WithWill:
    case ConnectC1WithWillRetain: {
        if (actor.fd < 0) open(actor);
        mqtt::ConnectFields connect;
        connect.client_id = id;
        if (input != ConnectC2) connect.will = mqtt::Will{topic_, kWillMessage, 1, input == ConnectC1WithWillRetain};
        send(actor, mqtt::encode_connect(connect));
        break;
    }
    case DeleteRetainedC1:
    case DeleteRetainedC2:
        if (actor.fd >= 0) send(actor, mqtt::encode_publish(topic_, "", 1, true, actor.next_packet_id++));
        break;
    case SubscribeC2:
        if (actor.fd >= 0) send(actor, mqtt::encode_subscribe(actor.next_packet_id++, topic_, 0));
        break;
    case UnSubScribeC2:
        if (actor.fd >= 0) send(actor, mqtt::encode_unsubscribe(actor.next_packet_id++, topic_));
        break;
    case DisconnectTCPC1:
        if (actor.fd >= 0 && ::shutdown(actor.fd, SHUT_WR) == 0) actor.shut = true;
        break;
    case DisconnectC1:
        if (actor.fd >= 0) send(actor, mqtt::encode_disconnect());
        break;
    default: break;
    }
    if (actor.next_packet_id == 0) actor.next_packet_id = 1;  // packet ids are 1..65535
    // The acting client first: what its input made the broker send to the other client is queued
    // before the broker reads the other client's PINGREQ.
    observe(actor);
    observe(other);
    return outputs_.intern(side(c1_) + "__" + side(c2_));
}

}  // namespace typestar::targets
