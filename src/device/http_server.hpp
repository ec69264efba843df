// A small HTTP/1.1 server on POSIX sockets for the device agent. Private to src/device.
// Why not cpp-httplib: Debian's package is a compiled library with its limits baked in (at most 5
// requests per keep-alive connection, 5 s read timeout) and links OpenSSL, zlib and brotli into an
// agent that only speaks plain JSON on loopback. This server does exactly what the protocol needs:
// Content-Length bodies (no chunked encoding), keep-alive, bounded header and body sizes, one
// thread per connection up to a bounded number of connections, idle connections closed.
// The request parser is a pure function (parse_request: bytes in, a request or an error out), so
// it is fuzzed without sockets (tests/fuzz/agent/).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace typestar::detail {

struct HttpRequest {
    std::string method;                          ///< a token (RFC 9110 tchar only)
    std::string target;                          ///< path, without query string; printable ASCII
    std::map<std::string, std::string> headers;  ///< names lower-cased; repeated ones joined by ", "
    std::string body;
    bool keep_alive = true;  ///< false for HTTP/1.0 or `Connection: close`
    /// The header `name` (lower-case) or empty.
    [[nodiscard]] std::string header(const std::string& name) const {
        const auto it = headers.find(name);
        return it == headers.end() ? std::string() : it->second;
    }
    /// Whether the header `name` (lower-case) was sent, even with an empty value.
    [[nodiscard]] bool has_header(const std::string& name) const { return headers.count(name) != 0; }
};

/// Size limits of one request.
struct HttpLimits {
    std::size_t max_header_bytes = 16 * 1024;
    std::size_t max_body_bytes = 1024 * 1024;
};

/// What parse_request made of the bytes at the start of a connection's buffer.
struct ParsedRequest {
    enum class State {
        Complete,    ///< `request` is filled; `consumed` bytes belong to it
        Incomplete,  ///< more bytes are needed (`needed`: the total, when known, else 0)
        Error,       ///< the request is refused: answer `status` with `message`, then close
    };
    State state = State::Incomplete;
    HttpRequest request;
    std::size_t consumed = 0;
    std::size_t needed = 0;
    int status = 0;
    std::string message;  ///< printable ASCII only (never echoes the request's bytes)
};

/// Parses one HTTP/1.x request from the start of `buffer` (pipelined requests may follow it).
/// Never throws except std::bad_alloc. Refuses (State::Error): headers over the limit (431), a body
/// over the limit (413), Transfer-Encoding (411), a request line that is not `METHOD SP
/// origin-form-target SP HTTP/1.0|1.1` with a token method and a printable-ASCII target (400; 505
/// for another HTTP version), malformed header lines (400), a malformed or repeated Content-Length
/// (400), and a repeated Authorization, Origin, Host or Transfer-Encoding header (400).
[[nodiscard]] ParsedRequest parse_request(std::string_view buffer, const HttpLimits& limits);

struct HttpResponse {
    /// Faults the server can inject instead of answering (for the fault tests).
    enum class Fault { None, Drop, Garbage };
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
    std::map<std::string, std::string> headers;
    Fault fault = Fault::None;
};

struct HttpServerConfig {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;  ///< 0: an ephemeral port
    HttpLimits limits;
    /// A connection that does not start a request for this long, or does not complete a started
    /// request (or cannot send an answer) within it, is closed.
    std::chrono::milliseconds idle_timeout{std::chrono::seconds(30)};
    /// Connections served at once (one thread each); beyond it a new connection is answered 503
    /// and closed.
    std::size_t max_connections = 256;
    /// Called once a request's line and headers are in, before its body is read (the body is
    /// empty then, or complete when it came with the headers): a response refuses the request
    /// (sent, then the connection is closed, the body unread), nullopt lets it go on. The agent
    /// checks Origin and the token here, so a client without the token never makes it read a body.
    std::function<std::optional<HttpResponse>(const HttpRequest&)> before_body;
};

class HttpServer {
public:
    /// The handler runs on the connection's thread. An exception it throws is caught there: the
    /// client gets a 500 `unknown error` and the connection is closed; the server keeps serving.
    using Handler = std::function<HttpResponse(const HttpRequest&)>;
    HttpServer(HttpServerConfig config, Handler handler);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    /// Binds and listens, then accepts on a background thread. Throws std::runtime_error (with
    /// errno's text) when the address cannot be bound.
    void start();
    /// Stops accepting, closes every connection and joins the threads. Idempotent.
    void stop();
    /// The bound port (after start).
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
    /// Connections refused so far because max_connections were open.
    [[nodiscard]] std::size_t refused_connections() const noexcept { return refused_; }

private:
    struct Connection {
        int fd = -1;
        std::thread thread;
        std::atomic<bool> done{false};
    };
    void accept_loop();
    void accept_one(int fd);
    void serve(Connection& c);
    /// Joins finished connections (all of them, after shutting them down, when `all`); returns
    /// how many are still open.
    std::size_t reap(bool all);

    HttpServerConfig config_;
    Handler handler_;
    int listen_fd_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<std::size_t> refused_{0};
    std::thread acceptor_;
    std::mutex mutex_;
    std::list<std::unique_ptr<Connection>> connections_;
};

}  // namespace typestar::detail
