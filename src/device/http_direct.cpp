#include "http_direct.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/system/system_error.hpp>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>

#include "http_transport.hpp"
#include "protocol.hpp"

namespace typestar::detail {

namespace {

namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

std::string errno_text(int e) { return std::system_category().message(e); }

/// A connected socket as Beast's SyncReadStream: each read one blocking recv, bounded by the
/// deadline through SO_RCVTIMEO (set only when the bound changes: one system call per read).
struct SocketReader {
    int fd;
    Clock::time_point deadline;
    long& rcvtimeo_ms;  ///< the socket's current SO_RCVTIMEO, kept by the connection
    bool timed_out = false;
    std::size_t received = 0;

    template <class MutableBufferSequence>
    std::size_t read_some(const MutableBufferSequence& buffers, error_code& ec) {
        ec = {};
        boost::asio::mutable_buffer into;
        for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers); ++it)
            if (boost::asio::mutable_buffer b(*it); b.size() > 0) {
                into = b;
                break;
            }
        if (into.size() == 0) return 0;
        for (;;) {
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) {
                timed_out = true;
                ec = boost::asio::error::timed_out;
                return 0;
            }
            if (left != rcvtimeo_ms) {
                timeval tv{static_cast<time_t>(left / 1000), static_cast<suseconds_t>((left % 1000) * 1000)};
                if (::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
                    ec = error_code(errno, boost::system::system_category());
                    return 0;
                }
                rcvtimeo_ms = left;
            }
            const ssize_t n = ::recv(fd, into.data(), into.size(), 0);
            if (n > 0) {
                received += static_cast<std::size_t>(n);
                return static_cast<std::size_t>(n);
            }
            if (n == 0) {
                ec = boost::asio::error::eof;
                return 0;
            }
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) continue;  // SO_RCVTIMEO ran out: the loop's check ends it
            ec = error_code(errno, boost::system::system_category());
            return 0;
        }
    }
    template <class MutableBufferSequence>
    std::size_t read_some(const MutableBufferSequence& buffers) {
        error_code ec;
        const std::size_t n = read_some(buffers, ec);
        if (ec) throw boost::system::system_error(ec);
        return n;
    }
};

}  // namespace

struct DirectConnection::State {
    std::string host;       ///< without brackets
    std::string port;       ///< "80" when the URL names none
    std::string authority;  ///< the Host header: the URL's HOST[:PORT]
    std::string base_path;  ///< the URL's path, without trailing slashes
    std::string authorization;
    std::chrono::milliseconds connect_timeout;
    std::size_t max_answer_bytes;
    int fd = -1;
    bool reused = false;     ///< an answer came on this connection: the agent may close it while idle
    long rcvtimeo_ms = 0;    ///< SO_RCVTIMEO as set on fd (0: never set, blocking)
    std::string request;     ///< the request's bytes, rebuilt per request (capacity kept)

    void close() noexcept {
        if (fd >= 0) ::close(fd);
        fd = -1;
        reused = false;
        rcvtimeo_ms = 0;
    }

    /// Connects to host:port within connect_timeout; an empty string, else what went wrong.
    std::string connect() {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        addrinfo* found = nullptr;
        if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
            return "cannot resolve " + host + ": " + ::gai_strerror(rc);
        const auto deadline = Clock::now() + connect_timeout;
        std::string why = "no address for " + host;
        for (const addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
            const int s = ::socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
            if (s < 0) {
                why = "cannot open a socket: " + errno_text(errno);
                continue;
            }
            int err = ::connect(s, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
            if (err == EINPROGRESS) {
                pollfd p{s, POLLOUT, 0};
                int rc = 0;
                do {
                    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
                    rc = left <= 0 ? 0 : ::poll(&p, 1, static_cast<int>(left));
                } while (rc < 0 && errno == EINTR);
                if (rc == 0) {
                    err = ETIMEDOUT;
                } else {
                    socklen_t len = sizeof err;
                    if (::getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
                }
            }
            if (err != 0) {
                ::close(s);
                why = err == ETIMEDOUT ? "cannot connect to " + authority + " within " +
                                             std::to_string(connect_timeout.count()) + " ms"
                                       : "cannot connect to " + authority + ": " + errno_text(err);
                continue;
            }
            const int on = 1;
            ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
            ::setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
            // A send blocks only when the agent stops reading: bounded like connecting.
            const long ms = connect_timeout.count();
            timeval tv{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
            ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
            ::fcntl(s, F_SETFL, ::fcntl(s, F_GETFL) & ~O_NONBLOCK);
            fd = s;
        }
        ::freeaddrinfo(found);
        return fd >= 0 ? std::string() : why;
    }
};

DirectConnection::DirectConnection(const std::string& url, const std::string& authorization,
                                   std::chrono::milliseconds connect_timeout, std::size_t max_answer_bytes)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    std::string_view rest(url);
    if (rest.starts_with("http://")) rest.remove_prefix(7);
    const auto slash = rest.find('/');
    s.authority = std::string(rest.substr(0, slash));
    if (slash != std::string_view::npos) s.base_path = std::string(rest.substr(slash));
    while (!s.base_path.empty() && s.base_path.back() == '/') s.base_path.pop_back();
    s.host = std::string(url_host(url));  // without an IPv6 address's brackets
    const std::string_view auth(s.authority);
    const auto colon = auth.rfind(':');
    if (colon != std::string_view::npos && auth.back() != ']') s.port = std::string(auth.substr(colon + 1));
    if (s.port.empty()) s.port = "80";
    s.authorization = authorization;
    s.connect_timeout = connect_timeout;
    s.max_answer_bytes = max_answer_bytes;
}

DirectConnection::~DirectConnection() { state_->close(); }

DirectOutcome DirectConnection::exchange(const char* method, const std::string& path, const std::string& body,
                                         std::chrono::milliseconds timeout, std::size_t& resent) {
    State& s = *state_;
    const bool get = std::strcmp(method, "GET") == 0;
    // Hand-formatted: six fixed lines and the body, sent whole (Beast's serializer would write them in
    // more pieces).
    std::string& r = s.request;
    r.assign(method).append(" ").append(s.base_path).append(path).append(" HTTP/1.1\r\nHost: ").append(s.authority);
    r.append("\r\nAuthorization: ").append(s.authorization).append("\r\nAccept: application/json\r\n");
    if (!get)
        r.append("Content-Type: application/json\r\nContent-Length: ").append(std::to_string(body.size())).append("\r\n");
    r.append("\r\n");
    if (!get) r.append(body);
    DirectOutcome out;
    for (int round = 0; round < 2; ++round) {
        if (s.fd < 0) {
            if (std::string why = s.connect(); !why.empty()) {
                out.what = std::move(why);
                return out;
            }
        }
        const bool was_reused = s.reused;
        if (!send_all(s.fd, r)) {
            const int e = errno;
            s.close();
            if (was_reused && round == 0) {
                ++resent;
                continue;
            }
            out.what = e == EAGAIN || e == EWOULDBLOCK
                           ? "cannot send the request within " + std::to_string(s.connect_timeout.count()) + " ms"
                           : "cannot send the request: " + errno_text(e);
            return out;
        }
        SocketReader reader{s.fd, Clock::now() + timeout, s.rcvtimeo_ms};
        boost::beast::flat_buffer buffer;
        http::response_parser<http::string_body> parser;
        parser.body_limit(s.max_answer_bytes);
        parser.header_limit(64 * 1024);  // Beast's default is 8 KiB; an agent's own headers are a few lines
        error_code ec;
        // The header first: read() parses eagerly, and Beast 1.74 then loses the body_limit error of
        // a Content-Length over the cap (it reads the whole body instead); read_header() does not.
        http::read_header(reader, buffer, parser, ec);
        if (!ec && !parser.is_done()) http::read(reader, buffer, parser, ec);
        if (!ec) {
            out.kind = DirectOutcome::Kind::Answer;
            out.status = static_cast<long>(parser.get().result_int());
            out.body = std::move(parser.get().body());
            if (parser.keep_alive() && buffer.size() == 0) s.reused = true;
            else s.close();  // closing, or bytes past the answer: never read them as the next one
            return out;
        }
        s.close();
        if (ec == http::error::body_limit) {
            out.kind = DirectOutcome::Kind::OverCap;
            return out;
        }
        if (reader.timed_out) {
            out.what = "no answer within " + std::to_string(timeout.count()) + " ms";
            return out;
        }
        const bool nothing = reader.received == 0 &&
                             (ec == http::error::end_of_stream || ec == boost::asio::error::connection_reset);
        if (nothing && was_reused && round == 0) {  // the agent closed the idle connection: once more, fresh
            ++resent;
            continue;
        }
        if (nothing) out.what = "the agent closed the connection without an answer";
        else if (ec == http::error::partial_message) out.what = "the agent closed the connection in the middle of its answer";
        else if (ec.category() == boost::system::system_category()) out.what = "reading the answer: " + errno_text(ec.value());
        else out.what = "a malformed HTTP answer: " + ec.message();
        return out;
    }
    return out;
}

}  // namespace typestar::detail
