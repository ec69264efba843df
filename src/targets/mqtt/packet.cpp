// MQTT 3.1.1 packets by hand (OASIS MQTT 3.1.1, sections 2 and 3).
#include "typestar/targets/mqtt_packet.hpp"

#include <stdexcept>
#include <string>

namespace typestar::targets::mqtt {

namespace {

void put_u16(std::string& out, std::uint16_t value) {
    out.push_back(static_cast<char>(value >> 8));
    out.push_back(static_cast<char>(value & 0xFF));
}

/// A UTF-8 encoded string (section 1.5.3): two length bytes, then the bytes.
void put_string(std::string& out, std::string_view text) {
    if (text.size() > 0xFFFF) throw std::invalid_argument("mqtt: a string of " + std::to_string(text.size()) +
                                                          " bytes (at most 65535)");
    put_u16(out, static_cast<std::uint16_t>(text.size()));
    out.append(text);
}

void check_qos(std::uint8_t qos) {
    if (qos > 2) throw std::invalid_argument("mqtt: QoS " + std::to_string(qos) + " (at most 2)");
}

/// The fixed header (section 2.2): the first byte, then the remaining length in 1-4 bytes.
std::string packet(std::uint8_t first_byte, const std::string& rest) {
    if (rest.size() > 268'435'455) throw std::invalid_argument("mqtt: packet too long");
    std::string out(1, static_cast<char>(first_byte));
    std::size_t length = rest.size();
    do {
        std::uint8_t digit = length % 128;
        length /= 128;
        if (length > 0) digit |= 0x80;
        out.push_back(static_cast<char>(digit));
    } while (length > 0);
    return out + rest;
}

std::uint8_t type_byte(PacketType type, std::uint8_t flags = 0) {
    return static_cast<std::uint8_t>((static_cast<std::uint8_t>(type) << 4) | flags);
}

}  // namespace

std::string encode_connect(const ConnectFields& fields) {
    std::string rest;
    put_string(rest, "MQTT");
    rest.push_back(4);  // protocol level 3.1.1
    std::uint8_t flags = 0;
    if (fields.clean_session) flags |= 0x02;
    if (fields.will) {
        check_qos(fields.will->qos);
        flags |= 0x04;
        flags |= static_cast<std::uint8_t>(fields.will->qos << 3);
        if (fields.will->retain) flags |= 0x20;
    }
    rest.push_back(static_cast<char>(flags));
    put_u16(rest, fields.keep_alive);
    put_string(rest, fields.client_id);
    if (fields.will) {
        put_string(rest, fields.will->topic);
        put_string(rest, fields.will->message);
    }
    return packet(type_byte(PacketType::Connect), rest);
}

std::string encode_publish(std::string_view topic, std::string_view payload, std::uint8_t qos, bool retain,
                           std::uint16_t packet_id) {
    check_qos(qos);
    std::string rest;
    put_string(rest, topic);
    if (qos > 0) put_u16(rest, packet_id);
    rest.append(payload);
    const auto flags = static_cast<std::uint8_t>((qos << 1) | (retain ? 1 : 0));
    return packet(type_byte(PacketType::Publish, flags), rest);
}

std::string encode_puback(std::uint16_t packet_id) {
    std::string rest;
    put_u16(rest, packet_id);
    return packet(type_byte(PacketType::PubAck), rest);
}

std::string encode_subscribe(std::uint16_t packet_id, std::string_view topic_filter, std::uint8_t qos) {
    check_qos(qos);
    std::string rest;
    put_u16(rest, packet_id);
    put_string(rest, topic_filter);
    rest.push_back(static_cast<char>(qos));
    return packet(type_byte(PacketType::Subscribe, 0x02), rest);  // reserved flags 0010 (3.8.1)
}

std::string encode_unsubscribe(std::uint16_t packet_id, std::string_view topic_filter) {
    std::string rest;
    put_u16(rest, packet_id);
    put_string(rest, topic_filter);
    return packet(type_byte(PacketType::Unsubscribe, 0x02), rest);  // reserved flags 0010 (3.10.1)
}

std::string encode_pingreq() { return packet(type_byte(PacketType::PingReq), {}); }

std::string encode_disconnect() { return packet(type_byte(PacketType::Disconnect), {}); }

std::uint16_t read_u16(const Packet& packet, std::size_t offset) {
    if (packet.body.size() < offset + 2)
        throw std::invalid_argument("mqtt: packet of type " + std::to_string(static_cast<int>(packet.type)) +
                                    " too short (" + std::to_string(packet.body.size()) + " bytes)");
    return static_cast<std::uint16_t>((static_cast<std::uint8_t>(packet.body[offset]) << 8) |
                                      static_cast<std::uint8_t>(packet.body[offset + 1]));
}

Publish decode_publish(const Packet& packet) {
    if (packet.type != PacketType::Publish) throw std::invalid_argument("mqtt: not a PUBLISH packet");
    Publish out;
    out.retain = (packet.flags & 0x01) != 0;
    out.qos = static_cast<std::uint8_t>((packet.flags >> 1) & 0x03);
    out.dup = (packet.flags & 0x08) != 0;
    if (out.qos == 3) throw std::invalid_argument("mqtt: PUBLISH with QoS 3");
    const std::size_t topic_length = read_u16(packet, 0);
    std::size_t at = 2 + topic_length;
    if (packet.body.size() < at) throw std::invalid_argument("mqtt: PUBLISH topic longer than the packet");
    out.topic = packet.body.substr(2, topic_length);
    if (out.qos > 0) {
        out.packet_id = read_u16(packet, at);
        at += 2;
    }
    out.payload = packet.body.substr(at);
    return out;
}

std::optional<Packet> PacketReader::next() {
    if (buffer_.empty()) return std::nullopt;
    const auto first = static_cast<std::uint8_t>(buffer_[0]);
    const std::uint8_t type = first >> 4;
    if (type == 0 || type == 15)
        throw std::invalid_argument("mqtt: reserved packet type " + std::to_string(type) + " received");
    std::size_t length = 0;
    std::size_t multiplier = 1;
    std::size_t at = 1;
    for (;; ++at) {
        if (at > 4) throw std::invalid_argument("mqtt: remaining length longer than four bytes");
        if (at >= buffer_.size()) return std::nullopt;
        const auto digit = static_cast<std::uint8_t>(buffer_[at]);
        length += (digit & 0x7F) * multiplier;
        multiplier *= 128;
        if ((digit & 0x80) == 0) break;
    }
    const std::size_t header = at + 1;
    if (buffer_.size() < header + length) return std::nullopt;
    Packet out;
    out.type = static_cast<PacketType>(type);
    out.flags = first & 0x0F;
    out.body = buffer_.substr(header, length);
    buffer_.erase(0, header + length);
    return out;
}

}  // namespace typestar::targets::mqtt
