#include "http_server.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <spdlog/spdlog.h>

#include "protocol.hpp"
#include "typestar/log/logging.hpp"

namespace typestar::detail {

namespace {

using Clock = std::chrono::steady_clock;

std::shared_ptr<spdlog::logger> log() { return logger("typestar.device"); }

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
        case 505: return "HTTP Version Not Supported";
        default: return "Unknown";
    }
}

char lower_ascii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), lower_ascii);
    return out;
}

/// RFC 9110 §5.6.2 tchar.
bool is_tchar(unsigned char c) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
    return c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool is_token(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_tchar(static_cast<unsigned char>(c)); });
}

/// An origin-form target: a path of visible ASCII characters (RFC 3986 URIs are ASCII).
bool is_origin_form(std::string_view s) {
    return !s.empty() && s.front() == '/' &&
           std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

/// RFC 9110 §5.5 field-value: visible characters, SP, HTAB and obs-text (bytes >= 0x80).
bool is_field_value(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c == '\t' || (c >= 0x20 && c != 0x7f);
    });
}

std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

/// Whether the comma-separated list `value` holds `token` (case-insensitive).
bool list_has(std::string_view value, std::string_view token) {
    while (!value.empty()) {
        const auto comma = value.find(',');
        if (lower(trim_ows(value.substr(0, comma))) == token) return true;
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    return false;
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

HttpResponse error_response(int status, const std::string& error, const std::string& message) {
    HttpResponse r;
    r.status = status;
    r.body = dump_json(error_json(error, message));
    return r;
}

}  // namespace

bool send_all(int fd, std::string_view data) {
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

ParsedRequest parse_request(std::string_view buffer, const HttpLimits& limits) {
    ParsedRequest out;
    auto refuse = [&out](int status, std::string message) {
        out.state = ParsedRequest::State::Error;
        out.status = status;
        out.message = std::move(message);
        return out;
    };
    const std::string too_large = "request headers exceed " + std::to_string(limits.max_header_bytes) + " bytes";
    const std::size_t end = buffer.find("\r\n\r\n");
    if (end == std::string_view::npos) {
        if (buffer.size() >= limits.max_header_bytes + 4) return refuse(431, too_large);
        out.state = ParsedRequest::State::Incomplete;
        return out;
    }
    if (end > limits.max_header_bytes) return refuse(431, too_large);
    const std::string_view head = buffer.substr(0, end);

    // The request line: METHOD SP TARGET SP HTTP-VERSION (RFC 9112 §3), single spaces.
    const std::size_t line_end = head.find("\r\n");
    const std::string_view line = head.substr(0, line_end);
    const std::size_t sp1 = line.find(' ');
    const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
        return refuse(400, "malformed request line (expected METHOD TARGET HTTP/1.1)");
    const std::string_view method = line.substr(0, sp1);
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string_view version = line.substr(sp2 + 1);
    if (!is_token(method)) return refuse(400, "malformed request line: the method is not a token");
    if (!is_origin_form(target))
        return refuse(400, "malformed request target (expected a path of printable ASCII characters)");
    if (version == "HTTP/1.0") {
        out.request.keep_alive = false;
    } else if (version != "HTTP/1.1") {
        const bool http = version.size() == 8 && version.substr(0, 5) == "HTTP/" && version[5] >= '0' &&
                          version[5] <= '9' && version[6] == '.' && version[7] >= '0' && version[7] <= '9';
        return http ? refuse(505, "HTTP version not supported (HTTP/1.1 expected)")
                    : refuse(400, "malformed request line (expected METHOD TARGET HTTP/1.1)");
    }
    if (const auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
    out.request.method = std::string(method);
    out.request.target = std::string(target);

    // Header fields (RFC 9112 §5): NAME ":" OWS VALUE OWS, no line folding.
    std::size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
        const std::size_t next = head.find("\r\n", pos);
        const std::string_view field = head.substr(pos, next == std::string_view::npos ? head.size() - pos : next - pos);
        pos = next == std::string_view::npos ? head.size() : next + 2;
        const std::size_t colon = field.find(':');
        if (colon == std::string_view::npos || !is_token(field.substr(0, colon)))
            return refuse(400, "malformed header line");
        const std::string_view value = trim_ows(field.substr(colon + 1));
        if (!is_field_value(value)) return refuse(400, "malformed header value");
        const std::string name = lower(field.substr(0, colon));
        const auto [it, inserted] = out.request.headers.emplace(name, std::string(value));
        if (!inserted) {
            // Fields that must occur once: a second one would make "which one counts" ambiguous.
            if (name == "authorization" || name == "content-length" || name == "origin" || name == "host" ||
                name == "transfer-encoding")
                return refuse(400, "more than one " + name + " header");
            it->second += ", ";
            it->second += value;
        }
    }
    if (out.request.has_header("transfer-encoding"))
        return refuse(411, "chunked bodies are not supported; send Content-Length");
    if (list_has(out.request.header("connection"), "close")) out.request.keep_alive = false;
    std::size_t length = 0;
    if (out.request.has_header("content-length")) {
        const std::string cl = out.request.header("content-length");
        if (cl.empty() || cl.size() > 12 || cl.find_first_not_of("0123456789") != std::string::npos)
            return refuse(400, "malformed Content-Length");
        length = static_cast<std::size_t>(std::stoull(cl));
    }
    if (length > limits.max_body_bytes)
        return refuse(413, "request body exceeds " + std::to_string(limits.max_body_bytes) + " bytes");
    const std::size_t total = end + 4 + length;
    if (buffer.size() < total) {
        out.state = ParsedRequest::State::Incomplete;
        out.needed = total;
        return out;
    }
    out.request.body = std::string(buffer.substr(end + 4, length));
    out.consumed = total;
    out.state = ParsedRequest::State::Complete;
    return out;
}

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

std::size_t HttpServer::reap(bool all) {
    std::list<std::unique_ptr<Connection>> finished;
    std::size_t open = 0;
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
        open = connections_.size();
    }
    for (auto& c : finished) {
        if (c->thread.joinable()) c->thread.join();
        ::close(c->fd);
    }
    return open;
}

void HttpServer::accept_loop() {
    while (!stopping_) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                // Out of descriptors or memory: leave the connection in the backlog and try again.
                log()->warn("accept: {}; retrying", std::strerror(errno));
                reap(false);
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                continue;
            }
            return;  // shut down
        }
        if (stopping_) {
            ::close(fd);
            return;
        }
        try {
            accept_one(fd);
        } catch (const std::exception& e) {  // e.g. bad_alloc: lose this connection, keep serving
            log()->error("accepting a connection failed: {}", e.what());
            ::close(fd);
        }
    }
}

void HttpServer::accept_one(int fd) {
    const auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(config_.idle_timeout).count();
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout / 1000000);
    tv.tv_usec = static_cast<suseconds_t>(timeout % 1000000);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);  // a client that never reads its answers
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

    auto refuse = [&](const std::string& why) {
        const std::size_t n = ++refused_;
        if (n == 1 || n % 1000 == 0) log()->warn("refusing a connection ({} so far): {}", n, why);
        HttpResponse r = error_response(503, "too many connections", why + "; retry later");
        r.headers["Retry-After"] = "1";
        const std::string text = render(r, false);
        (void)::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        ::shutdown(fd, SHUT_WR);
        char sink[4096];  // read what the client sent already, so that close() does not reset the answer
        for (int i = 0; i < 16 && ::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
        }
        ::close(fd);
    };
    if (reap(false) >= config_.max_connections) {
        refuse("the agent serves at most " + std::to_string(config_.max_connections) + " connections at once");
        return;
    }
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    Connection* raw = c.get();
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        raw->thread = std::thread([this, raw] {
            // No exception leaves a connection's thread (it would end the process).
            try {
                serve(*raw);
            } catch (const std::exception& e) {
                log()->error("connection closed after an internal error: {}", e.what());
            } catch (...) {
                log()->error("connection closed after an internal error");
            }
            ::shutdown(raw->fd, SHUT_RDWR);  // the peer sees the end now; reap() closes the fd
            raw->done = true;
        });
    } catch (const std::system_error& e) {  // no thread to be had
        refuse(std::string("cannot start a thread: ") + e.what());
        return;
    }
    connections_.push_back(std::move(c));
}

void HttpServer::serve(Connection& c) {
    std::string buffer;
    char chunk[8192];
    // Reads more bytes into `buffer`; false on end of stream, error, stop, or when `deadline` passes.
    auto fill = [&](Clock::time_point deadline) {
        while (!stopping_) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) {
                log()->debug("closing a connection idle for {} ms", config_.idle_timeout.count());
                return false;
            }
            pollfd p{c.fd, POLLIN, 0};
            const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
            if (ready < 0 && errno != EINTR) return false;
            if (ready <= 0) continue;
            const ssize_t n = ::recv(c.fd, chunk, sizeof chunk, 0);
            if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
            if (n <= 0) return false;
            buffer.append(chunk, static_cast<std::size_t>(n));
            return true;
        }
        return false;
    };
    auto fail = [&](int status, const std::string& message) {
        send_all(c.fd, render(error_response(status, "invalid argument", message), false));
    };
    while (!stopping_) {
        // Waiting for a request: idle_timeout; once its first byte came, the whole request must
        // arrive within idle_timeout too (a slow client cannot hold the connection forever).
        auto deadline = Clock::now() + config_.idle_timeout;
        ParsedRequest p;
        bool screened = false;
        // The headers are in: before_body may refuse the request before its body is read (then the
        // connection is closed, its body unread). True when it did.
        auto refused_before_body = [&] {
            if (screened || !config_.before_body) return false;
            screened = true;
            const auto refusal = config_.before_body(p.request);
            if (!refusal) return false;
            send_all(c.fd, render(*refusal, false));
            ::shutdown(c.fd, SHUT_WR);
            for (int i = 0; i < 16 && ::recv(c.fd, chunk, sizeof chunk, MSG_DONTWAIT) > 0; ++i) {
                // what the client sent already is read, so that closing does not reset the answer
            }
            return true;
        };
        for (;;) {
            const bool was_empty = buffer.empty();
            p = parse_request(buffer, config_.limits);
            if (p.state != ParsedRequest::State::Incomplete) break;
            if (was_empty) {
                if (!fill(deadline)) return;
                deadline = Clock::now() + config_.idle_timeout;
                continue;
            }
            if (p.needed > 0 && refused_before_body()) return;
            if (!fill(deadline)) return;
            while (p.needed > buffer.size())  // the body: no need to parse the headers again
                if (!fill(deadline)) return;
        }
        if (p.state == ParsedRequest::State::Error) {
            fail(p.status, p.message);
            return;
        }
        if (refused_before_body()) return;
        buffer.erase(0, p.consumed);

        HttpResponse response;
        bool failed = false;
        try {
            response = handler_(p.request);
        } catch (const std::exception& e) {
            failed = true;
            log()->error("{} {}: the agent failed: {}", p.request.method, p.request.target, e.what());
            response = error_response(500, "unknown error", std::string("the agent failed: ") + e.what());
        } catch (...) {
            failed = true;
            log()->error("{} {}: the agent failed with an unknown exception", p.request.method, p.request.target);
            response = error_response(500, "unknown error", "the agent failed with an unknown exception");
        }
        if (response.fault == HttpResponse::Fault::Drop) return;  // close without answering
        if (response.fault == HttpResponse::Fault::Garbage) {
            send_all(c.fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n\x01\x02garbage{]\xff\xfe");
            continue;
        }
        const bool keep_alive = p.request.keep_alive && !failed;
        if (!send_all(c.fd, render(response, keep_alive)) || !keep_alive) return;
    }
}

}  // namespace typestar::detail
