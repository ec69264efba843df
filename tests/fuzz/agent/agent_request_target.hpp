// Fuzz target body: the device agent's HTTP request parser (src/device/http_server.hpp,
// parse_request), bytes in, a request or a refusal out, as a connection's bytes are parsed one
// pipelined request after the other. Shared by the libFuzzer entry point and the corpus replay test.
// Oracles beyond "no crash": a refusal has an HTTP error status and a printable ASCII message; a
// request has a token method, an ASCII origin-form target, lower-case token header names, values
// without CR/LF/NUL and a body within the limit; parsing is deterministic; and the JSON the agent
// writes about any request (it echoes method and target) is valid JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"
#include "http_server.hpp"
#include "protocol.hpp"

namespace typestar::fuzz {

inline bool printable_ascii(std::string_view s) {
    for (const char c : s)
        if (c < 0x20 || c > 0x7e) return false;
    return true;
}

inline bool is_token_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

inline int agent_request_one_input(const std::uint8_t* data, std::size_t size) {
    std::string_view buffer(reinterpret_cast<const char*>(data), size);
    detail::HttpLimits limits;
    limits.max_header_bytes = 2048;  // small limits, so that inputs reach them
    limits.max_body_bytes = 4096;
    for (int request = 0; request < 64; ++request) {
        const detail::ParsedRequest p = detail::parse_request(buffer, limits);
        using State = detail::ParsedRequest::State;
        if (p.state == State::Incomplete) {
            TYPESTAR_FUZZ_CHECK(p.needed == 0 || p.needed > buffer.size());
            TYPESTAR_FUZZ_CHECK(p.needed <= limits.max_header_bytes + 4 + limits.max_body_bytes);
            TYPESTAR_FUZZ_CHECK(p.needed != 0 || buffer.size() < limits.max_header_bytes + 4);
            return 0;
        }
        if (p.state == State::Error) {
            TYPESTAR_FUZZ_CHECK(p.status == 400 || p.status == 411 || p.status == 413 || p.status == 431 ||
                                p.status == 505);
            TYPESTAR_FUZZ_CHECK(!p.message.empty() && printable_ascii(p.message));
            return 0;
        }
        const detail::HttpRequest& r = p.request;
        TYPESTAR_FUZZ_CHECK(p.consumed > 0 && p.consumed <= buffer.size());
        TYPESTAR_FUZZ_CHECK(!r.method.empty());
        for (const char c : r.method) TYPESTAR_FUZZ_CHECK(is_token_char(c));
        TYPESTAR_FUZZ_CHECK(!r.target.empty() && r.target.front() == '/' && printable_ascii(r.target));
        TYPESTAR_FUZZ_CHECK(r.target.find(' ') == std::string::npos && r.target.find('?') == std::string::npos);
        for (const auto& [name, value] : r.headers) {
            TYPESTAR_FUZZ_CHECK(!name.empty());
            for (const char c : name) TYPESTAR_FUZZ_CHECK(is_token_char(c) && !(c >= 'A' && c <= 'Z'));
            TYPESTAR_FUZZ_CHECK(value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
        }
        TYPESTAR_FUZZ_CHECK(r.body.size() <= limits.max_body_bytes);
        TYPESTAR_FUZZ_CHECK(r.body == buffer.substr(p.consumed - r.body.size(), r.body.size()));
        // Deterministic: the same bytes give the same request.
        const detail::ParsedRequest again = detail::parse_request(buffer, limits);
        TYPESTAR_FUZZ_CHECK(again.state == State::Complete && again.consumed == p.consumed &&
                            again.request.target == r.target && again.request.headers == r.headers);
        // The agent's error answers echo method and target (and a JSON body may hold any string):
        // whatever they are, the agent writes valid JSON.
        const std::string text = detail::dump_json(detail::error_json("unknown command", r.method + " " + r.target + " " + r.body));
        TYPESTAR_FUZZ_CHECK(!nlohmann::json::parse(text, nullptr, false).is_discarded());
        buffer.remove_prefix(p.consumed);
    }
    return 0;
}

}  // namespace typestar::fuzz
