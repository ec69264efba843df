#include "http_server.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <utility>

namespace typestar::detail {

namespace {

const char* reason(int status) {
    switch (status) {
        case 200: return "OK";
        case 201: return "Created";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 409: return "Conflict";
        case 411: return "Length Required";
        case 413: return "Payload Too Large";
        case 431: return "Request Header Fields Too Large";
        case 500: return "Internal Server Error";
        case 501: return "Not Implemented";
        case 503: return "Service Unavailable";
        default: return "Unknown";
    }
}

bool send_all(int fd, const std::string& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
        const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return {};
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

std::string error_body(const char* error, const std::string& message) {
    // WebDriver-style, as the agent's own errors (kept free of JSON libraries here).
    return std::string("{\"value\":{\"error\":\"") + error + "\",\"message\":\"" + message + "\",\"stacktrace\":\"\"}}";
}

std::string render(const HttpResponse& r, bool keep_alive) {
    std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\n";
    out += "Content-Type: " + r.content_type + "\r\n";
    out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
    out += "Cache-Control: no-store\r\n";
    for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
    out += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
    out += r.body;
    return out;
}

}  // namespace

HttpServer::HttpServer(HttpServerConfig config, Handler handler)
    : config_(std::move(config)), handler_(std::move(handler)) {}

HttpServer::~HttpServer() { stop(); }

void HttpServer::start() {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(config_.port);
    if (const int rc = ::getaddrinfo(config_.host.c_str(), port.c_str(), &hints, &found); rc != 0)
        throw std::runtime_error("cannot resolve '" + config_.host + "': " + ::gai_strerror(rc));
    std::string last_error = "no address";
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            last_error = std::strerror(errno);
            continue;
        }
        const int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 64) == 0) {
            listen_fd_ = fd;
            break;
        }
        last_error = std::strerror(errno);
        ::close(fd);
    }
    ::freeaddrinfo(found);
    if (listen_fd_ < 0)
        throw std::runtime_error("cannot listen on " + config_.host + ":" + port + ": " + last_error);
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
    port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
}

void HttpServer::stop() {
    if (stopping_.exchange(true)) return;
    if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
    if (acceptor_.joinable()) acceptor_.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    reap(true);
}

void HttpServer::reap(bool all) {
    std::list<std::unique_ptr<Connection>> finished;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = connections_.begin(); it != connections_.end();) {
            if (all) ::shutdown((*it)->fd, SHUT_RDWR);
            if (all || (*it)->done) {
                finished.push_back(std::move(*it));
                it = connections_.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto& c : finished) {
        if (c->thread.joinable()) c->thread.join();
        ::close(c->fd);
    }
}

void HttpServer::accept_loop() {
    while (!stopping_) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return;  // shut down
        }
        if (stopping_) {
            ::close(fd);
            return;
        }
        timeval tv{};
        tv.tv_sec = config_.idle_timeout_seconds;
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        reap(false);
        auto c = std::make_unique<Connection>();
        c->fd = fd;
        Connection* raw = c.get();
        std::lock_guard<std::mutex> lock(mutex_);
        connections_.push_back(std::move(c));
        raw->thread = std::thread([this, raw] {
            serve(*raw);
            ::shutdown(raw->fd, SHUT_RDWR);  // the peer sees the end now; reap() closes the fd
            raw->done = true;
        });
    }
}

void HttpServer::serve(Connection& c) {
    std::string buffer;
    char chunk[8192];
    auto fill = [&]() {
        const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, 0);
        if (n <= 0) return false;
        buffer.append(chunk, static_cast<std::size_t>(n));
        return true;
    };
    auto fail = [&](int status, const char* error, const std::string& message) {
        HttpResponse r;
        r.status = status;
        r.body = error_body(error, message);
        send_all(c.fd, render(r, false));
    };
    while (!stopping_) {
        std::size_t end;
        while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
            if (buffer.size() > config_.max_header_bytes) {
                fail(431, "invalid argument", "request headers exceed " + std::to_string(config_.max_header_bytes) + " bytes");
                return;
            }
            if (!fill()) return;
        }
        if (end > config_.max_header_bytes) {
            fail(431, "invalid argument", "request headers exceed " + std::to_string(config_.max_header_bytes) + " bytes");
            return;
        }
        HttpRequest req;
        const std::string head = buffer.substr(0, end);
        buffer.erase(0, end + 4);
        std::size_t line_end = head.find("\r\n");
        const std::string request_line = head.substr(0, line_end);
        const auto sp1 = request_line.find(' ');
        const auto sp2 = request_line.rfind(' ');
        if (sp1 == std::string::npos || sp2 == sp1 || request_line.compare(sp2 + 1, 5, "HTTP/") != 0) {
            fail(400, "invalid argument", "malformed request line");
            return;
        }
        req.method = request_line.substr(0, sp1);
        req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
        if (const auto q = req.target.find('?'); q != std::string::npos) req.target.erase(q);
        const bool http10 = request_line.compare(sp2 + 1, 8, "HTTP/1.0") == 0;
        while (line_end != std::string::npos) {
            const std::size_t start = line_end + 2;
            line_end = head.find("\r\n", start);
            const std::string line = head.substr(start, line_end == std::string::npos ? std::string::npos : line_end - start);
            const auto colon = line.find(':');
            if (colon == std::string::npos) {
                fail(400, "invalid argument", "malformed header line");
                return;
            }
            req.headers[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
        }
        if (!req.header("transfer-encoding").empty()) {
            fail(411, "invalid argument", "chunked bodies are not supported; send Content-Length");
            return;
        }
        std::size_t length = 0;
        if (const std::string cl = req.header("content-length"); !cl.empty()) {
            if (cl.find_first_not_of("0123456789") != std::string::npos || cl.size() > 12) {
                fail(400, "invalid argument", "malformed Content-Length");
                return;
            }
            length = static_cast<std::size_t>(std::stoull(cl));
        }
        if (length > config_.max_body_bytes) {
            fail(413, "invalid argument", "request body exceeds " + std::to_string(config_.max_body_bytes) + " bytes");
            return;
        }
        while (buffer.size() < length)
            if (!fill()) return;
        req.body = buffer.substr(0, length);
        buffer.erase(0, length);

        HttpResponse response = handler_(req);
        if (response.fault == HttpResponse::Fault::Drop) return;  // close without answering
        if (response.fault == HttpResponse::Fault::Garbage) {
            send_all(c.fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n\x01\x02garbage{]\xff\xfe");
            continue;
        }
        const bool keep_alive = !http10 && lower(req.header("connection")) != "close";
        if (!send_all(c.fd, render(response, keep_alive)) || !keep_alive) return;
    }
}

}  // namespace typestar::detail
