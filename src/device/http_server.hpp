// A small HTTP/1.1 server on POSIX sockets for the device agent. Private to src/device.
// Why not cpp-httplib: Debian's package is a compiled library with its limits baked in (at most 5
// requests per keep-alive connection, 5 s read timeout) and links OpenSSL, zlib and brotli into an
// agent that only speaks plain JSON on loopback. This server does exactly what the protocol needs:
// Content-Length bodies (no chunked encoding), keep-alive, bounded header and body sizes, one
// thread per connection.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace typestar::detail {

struct HttpRequest {
    std::string method;
    std::string target;                          ///< path, without query string
    std::map<std::string, std::string> headers;  ///< names lower-cased
    std::string body;
    /// The header `name` (lower-case) or empty.
    [[nodiscard]] std::string header(const std::string& name) const {
        const auto it = headers.find(name);
        return it == headers.end() ? std::string() : it->second;
    }
};

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
    std::size_t max_header_bytes = 16 * 1024;
    std::size_t max_body_bytes = 1024 * 1024;
    int idle_timeout_seconds = 30;  ///< a keep-alive connection idle this long is closed
};

class HttpServer {
public:
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

private:
    struct Connection {
        int fd = -1;
        std::thread thread;
        std::atomic<bool> done{false};
    };
    void accept_loop();
    void serve(Connection& c);
    void reap(bool all);

    HttpServerConfig config_;
    Handler handler_;
    int listen_fd_ = -1;
    std::uint16_t port_ = 0;
    std::atomic<bool> stopping_{false};
    std::thread acceptor_;
    std::mutex mutex_;
    std::list<std::unique_ptr<Connection>> connections_;
};

}  // namespace typestar::detail
