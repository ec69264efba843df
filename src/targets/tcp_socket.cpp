// boost::asio::ip::tcp::socket against a loopback peer as a class under learning.
#include <array>
#include <list>
#include <memory>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/version.hpp>

#include "typestar/asio/event_loop.hpp"
#include "typestar/targets/targets.hpp"

namespace typestar::targets {

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

/// The server side of one accepted connection.
class Peer : public std::enable_shared_from_this<Peer> {
public:
    Peer(tcp::socket socket, typestar::asio::EventLoop* io) : socket_(std::move(socket)), io_(io) {}
    void start(PeerMode mode) {
        if (mode == PeerMode::CloseFirst) {
            boost::system::error_code ignored;
            socket_.close(ignored);
            return;
        }
        read();
    }
    void close() {
        boost::system::error_code ignored;
        socket_.close(ignored);
    }

private:
    void read() {
        socket_.async_read_some(asio::buffer(buffer_), [self = shared_from_this()](
                                                           const boost::system::error_code& ec, std::size_t n) {
            self->io_->touch();
            if (ec) {  // end of file, reset, or closed: close this side
                self->close();
                return;
            }
            asio::async_write(self->socket_, asio::buffer(self->buffer_.data(), n),
                              [self](const boost::system::error_code& wec, std::size_t) {
                                  self->io_->touch();
                                  if (wec) {
                                      self->close();
                                      return;
                                  }
                                  self->read();
                              });
        });
    }

    tcp::socket socket_;
    typestar::asio::EventLoop* io_;
    std::array<char, 256> buffer_{};
};

class SocketTarget {
public:
    SocketTarget(std::shared_ptr<CallbackSink> sink, CallbackLedger& ledger, const TcpSocketOptions& options)
        : io_(std::move(sink), ledger, {options.settle}), acceptor_(io_.context()), socket_(io_.context()),
          options_(options) {
        io_.call([this] {
            const tcp::endpoint loopback(asio::ip::make_address_v4("127.0.0.1"), 0);
            acceptor_.open(loopback.protocol());
            acceptor_.bind(loopback);
            acceptor_.listen();
            endpoint_ = acceptor_.local_endpoint();
            accept();
        });
    }
    ~SocketTarget() { teardown(); }
    SocketTarget(const SocketTarget&) = delete;
    SocketTarget& operator=(const SocketTarget&) = delete;

    /// The completion handler of operation `op`: one callback symbol per outcome class.
    auto handler(std::string op) {
        if (op == "connect") ++prompt_;  // a loopback connect completes without anyone's help
        return [this, op = std::move(op)](const boost::system::error_code& ec, auto&&...) {
            if (op == "connect") --prompt_;
            io_.emit(typestar::asio::completion_symbol(op, ec));
        };
    }

    void connect() {
        io_.call([this] { socket_.async_connect(endpoint_, handler("connect")); });
        settle();
    }
    void write() {
        static constexpr char kMessage[] = "ping";
        io_.call([this] { asio::async_write(socket_, asio::buffer(kMessage, 4), handler("write")); });
        settle();
    }
    void read() {
        io_.call([this] { socket_.async_read_some(asio::buffer(read_buffer_), handler("read")); });
        settle();
    }
    void shutdown() {
        io_.call([this] { socket_.shutdown(tcp::socket::shutdown_both); });  // throws system_error
        settle();
    }
    void close() {
        io_.call([this] { socket_.close(); });  // throws system_error
        settle();
    }
    /// Returns once the connect operations in flight have completed and then no handler (ours or
    /// the peer's) ran for the settle time. (A write is not waited for: after a failed write on a
    /// shut-down socket, the next async_write never completes.)
    void settle() {
        io_.settle_until([this] { return prompt_ == 0; }, "tcp_socket: a loopback connect");
        io_.settle(options_.settle);
    }
    void teardown() noexcept {
        io_.stop([this] {
            boost::system::error_code ignored;
            socket_.close(ignored);
            acceptor_.close(ignored);
            for (auto& p : peers_) p->close();
            peers_.clear();
        });
    }

private:
    void accept() {
        acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket s) {
            io_.touch();
            if (ec) return;
            auto peer = std::make_shared<Peer>(std::move(s), &io_);
            peers_.push_back(peer);
            peer->start(options_.peer);
            accept();
        });
    }

    typestar::asio::EventLoop io_;
    int prompt_ = 0;  // connect operations in flight (on the loop thread)
    tcp::acceptor acceptor_;
    tcp::socket socket_;
    TcpSocketOptions options_;
    tcp::endpoint endpoint_;
    std::list<std::shared_ptr<Peer>> peers_;
    std::array<char, 64> read_buffer_{};
};

}  // namespace

ClassDefinition tcp_socket(const TcpSocketOptions& options) {
    auto ledger = std::make_shared<CallbackLedger>();
    LearningPurpose<SocketTarget> p("tcp_socket");
    p.framework("boost-" + std::to_string(BOOST_VERSION / 100000) + "." + std::to_string(BOOST_VERSION / 100 % 1000) +
                "." + std::to_string(BOOST_VERSION % 100) +
                (options.peer == PeerMode::CloseFirst ? "+peer_closes" : "+peer_echoes"))
        .reset([ledger, options](const std::shared_ptr<CallbackSink>& sink) {
            return std::make_shared<SocketTarget>(sink, *ledger, options);
        })
        .teardown([](SocketTarget& s) { s.teardown(); })
        .callin("connect", [](SocketTarget& s) { s.connect(); })
        .callin("write", [](SocketTarget& s) { s.write(); })
        .callin("read", [](SocketTarget& s) { s.read(); })
        .callin("shutdown", [](SocketTarget& s) { s.shutdown(); })
        .callin("close", [](SocketTarget& s) { s.close(); });
    for (const char* op : {"connect", "write", "read"}) {
        const std::string o(op);
        p.callback(o + "_ok").callback(o + "_aborted").callback(o + "_error");
        if (o == "read") p.callback("read_eof");
    }
    return p.timing(options.timing)
        .restrict_to(both(both(at_most_pending({"read"}, {"read_ok", "read_eof", "read_aborted", "read_error"}, 1),
                               at_most_pending({"write"}, {"write_ok", "write_aborted", "write_error"}, 1)),
                          callbacks_drained(ledger)))
        .build();
}

}  // namespace typestar::targets
