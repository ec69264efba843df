// A raw TCP connection to an agent on loopback, for requests curl would not send, and readers of
// the raw answers. Shared by the agent tests (C++ typestar-device, JVM). Header-only, POSIX sockets.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace typestar::testing_support {

/// A TCP connection to 127.0.0.1:`port`, for requests curl would not send (raw bytes, repeated or
/// empty headers, idle or slow clients). Closed on destruction.
class RawConnection {
public:
    explicit RawConnection(std::uint16_t port) {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
            throw std::runtime_error("cannot connect to port " + std::to_string(port));
    }
    ~RawConnection() {
        if (fd_ >= 0) ::close(fd_);
    }
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;

    /// Sends all of `bytes`; false when the peer is gone.
    bool send(const std::string& bytes) {
        std::size_t sent = 0;
        while (sent < bytes.size()) {
            const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) return false;
            sent += static_cast<std::size_t>(n);
        }
        return true;
    }
    /// Reads until the peer closes the connection or `timeout` passes; what arrived.
    std::string read_until_closed(std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
        return read_until(timeout, [](const std::string&) { return false; });
    }
    /// Reads one whole answer (headers and its Content-Length body) on a kept-alive connection, or
    /// what arrived until the peer closed or `timeout` passed.
    std::string read_answer(std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
        return read_until(timeout, [](const std::string& out) {
            const auto end = out.find("\r\n\r\n");
            if (end == std::string::npos) return false;
            std::string head = out.substr(0, end);
            for (auto& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            const auto cl = head.find("content-length:");
            const std::size_t length = cl == std::string::npos ? 0 : std::stoul(head.substr(cl + 15));
            return out.size() >= end + 4 + length;
        });
    }
    /// Whether the last read_until_closed saw the end of the connection.
    [[nodiscard]] bool closed() const { return closed_; }

private:
    /// Reads until `done(what arrived)`, the peer closes, or `timeout` passes; what arrived.
    template <typename Done>
    std::string read_until(std::chrono::milliseconds timeout, Done done) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        std::string out;
        closed_ = false;
        char buf[4096];
        while (!done(out)) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return out;
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return out;
            const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
            if (n <= 0) {
                closed_ = true;
                return out;
            }
            out.append(buf, static_cast<std::size_t>(n));
        }
        return out;
    }

    int fd_ = -1;
    bool closed_ = false;
};

/// The status code of a raw HTTP answer ("HTTP/1.1 503 ..." -> 503), or 0.
inline int status_of(const std::string& answer) {
    if (answer.rfind("HTTP/1.1 ", 0) != 0 || answer.size() < 12) return 0;
    return std::stoi(answer.substr(9, 3));
}

/// The body of a raw HTTP answer (after the blank line).
inline std::string body_of(const std::string& answer) {
    const auto end = answer.find("\r\n\r\n");
    return end == std::string::npos ? std::string() : answer.substr(end + 4);
}

}  // namespace typestar::testing_support
