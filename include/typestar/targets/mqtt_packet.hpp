// MQTT 3.1.1 control packets, encoded and decoded by hand (OASIS MQTT 3.1.1, section 3).
// Design note: hand-written because a learning mapper must be able to send protocol violations
// (a second CONNECT on one connection), which no MQTT client library packaged by Debian lets a
// caller do. Only what the MQTT mapper (mqtt.hpp) sends and reads: CONNECT, CONNACK, PUBLISH,
// PUBACK, SUBSCRIBE, SUBACK, UNSUBSCRIBE, UNSUBACK, PINGREQ, PINGRESP, DISCONNECT. Encoders return
// the packet's bytes; the reader splits a byte stream into packets. No I/O here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace typestar::targets::mqtt {

/// The control packet types (the high nibble of the fixed header's first byte).
enum class PacketType : std::uint8_t {
    Connect = 1,
    ConnAck = 2,
    Publish = 3,
    PubAck = 4,
    PubRec = 5,
    PubRel = 6,
    PubComp = 7,
    Subscribe = 8,
    SubAck = 9,
    Unsubscribe = 10,
    UnsubAck = 11,
    PingReq = 12,
    PingResp = 13,
    Disconnect = 14,
};

/// A will message (CONNECT's will flag, topic, message, QoS and retain flag).
struct Will {
    std::string topic;
    std::string message;
    std::uint8_t qos = 0;  ///< 0, 1 or 2
    bool retain = false;
};

/// CONNECT's fields (protocol name "MQTT", level 4; no user name or password).
struct ConnectFields {
    std::string client_id;
    bool clean_session = true;
    std::uint16_t keep_alive = 60;  ///< seconds; 0 turns the broker's keep-alive check off
    std::optional<Will> will;
};

/// The bytes of a CONNECT packet. Throws std::invalid_argument for a string over 65,535 bytes or
/// a QoS over 2.
[[nodiscard]] std::string encode_connect(const ConnectFields& fields);
/// The bytes of a PUBLISH packet; `packet_id` is written only for QoS 1 and 2.
[[nodiscard]] std::string encode_publish(std::string_view topic, std::string_view payload, std::uint8_t qos,
                                         bool retain, std::uint16_t packet_id);
/// The bytes of a PUBACK packet.
[[nodiscard]] std::string encode_puback(std::uint16_t packet_id);
/// The bytes of a SUBSCRIBE packet for one topic filter with the requested QoS.
[[nodiscard]] std::string encode_subscribe(std::uint16_t packet_id, std::string_view topic_filter,
                                           std::uint8_t qos);
/// The bytes of an UNSUBSCRIBE packet for one topic filter.
[[nodiscard]] std::string encode_unsubscribe(std::uint16_t packet_id, std::string_view topic_filter);
/// The two bytes of PINGREQ.
[[nodiscard]] std::string encode_pingreq();
/// The two bytes of DISCONNECT.
[[nodiscard]] std::string encode_disconnect();

/// One received control packet: its type, the fixed header's flags and the bytes after the fixed
/// header (variable header and payload).
struct Packet {
    PacketType type = PacketType::Connect;
    std::uint8_t flags = 0;  ///< the low nibble of the first byte
    std::string body;
};

/// A PUBLISH packet's fields.
struct Publish {
    std::string topic;
    std::string payload;
    std::uint8_t qos = 0;
    bool retain = false;
    bool dup = false;
    std::uint16_t packet_id = 0;  ///< 0 for QoS 0
};

/// Reads `packet` (type Publish). Throws std::invalid_argument when it is not a well-formed PUBLISH
/// (wrong type, QoS 3, a topic longer than the body).
[[nodiscard]] Publish decode_publish(const Packet& packet);
/// The two-byte big-endian value at `offset` of the body (the packet id of PUBACK, SUBACK,
/// UNSUBACK). Throws std::invalid_argument when the body is too short.
[[nodiscard]] std::uint16_t read_u16(const Packet& packet, std::size_t offset);

/// Splits a byte stream into packets: feed() what the socket gave, then next() until nullopt.
class PacketReader {
public:
    /// Appends received bytes.
    void feed(std::string_view bytes) { buffer_.append(bytes); }
    /// The next complete packet, or nullopt when more bytes are needed. Throws std::invalid_argument
    /// for a malformed fixed header: a remaining length of more than four bytes, or a reserved
    /// packet type (0 or 15).
    [[nodiscard]] std::optional<Packet> next();
    /// Bytes received and not yet returned as a packet.
    [[nodiscard]] std::size_t pending() const noexcept { return buffer_.size(); }

private:
    std::string buffer_;
};

}  // namespace typestar::targets::mqtt
