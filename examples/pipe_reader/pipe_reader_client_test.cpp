// App code that uses PipeReader, checked against the learned spec by a typestar::Monitor: the
// client's calls are callins, the reader's callbacks callbacks, and the peer's writes and hang-up
// environment events (the spec declares `feed` and `hangup` with `role: environment`).
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <gtest/gtest.h>

#include "pipe_reader.hpp"
#include "typestar/monitor/monitor.hpp"
#include "typestar/spec/monitor.hpp"
#include "typestar/spec/spec.hpp"

namespace {

using namespace std::chrono_literals;

/// PipeReader with every call and callback reported to a monitor first.
class MonitoredReader {
public:
    MonitoredReader(boost::asio::io_context& io, int fd, typestar::Monitor& monitor) : reader_(io, fd), monitor_(monitor) {
        reader_.on_data = [this](std::string_view bytes) {
            monitor_.callback("data");
            if (on_data) on_data(bytes);
        };
        reader_.on_eof = [this] {
            monitor_.callback("eof");
            if (on_eof) on_eof();
        };
        reader_.on_cancelled = [this] { monitor_.callback("cancelled"); };
    }
    void read() {
        monitor_.callin("read");
        reader_.read();
    }
    void close() {
        monitor_.callin("close");
        reader_.close();
    }
    std::function<void(std::string_view)> on_data;
    std::function<void()> on_eof;

private:
    app::PipeReader reader_;
    typestar::Monitor& monitor_;
};

/// The peer at the pipe's write end. Its actions are the spec's environment inputs.
class Peer {
public:
    Peer(int fd, typestar::Monitor& monitor) : fd_(fd), monitor_(monitor) {}
    ~Peer() {
        if (fd_ >= 0) ::close(fd_);
    }
    void send() {
        if (::write(fd_, "ping", 4) != 4) throw std::runtime_error("write failed");
        monitor_.environment("feed");  // not monitor.callin("feed"): the client never calls it
    }
    void hang_up() {
        ::close(fd_);
        fd_ = -1;
        monitor_.environment("hangup");
    }

private:
    int fd_;
    typestar::Monitor& monitor_;
};

/// The app code under check: counts the bytes it receives, reading until end of file, then closes
/// the reader. `stop()` is what the app calls when it shuts down; the buggy version closes again.
class ByteCounter {
public:
    ByteCounter(MonitoredReader& reader, bool close_again_on_stop) : reader_(reader), close_again_(close_again_on_stop) {
        reader_.on_data = [this](std::string_view bytes) {
            bytes_ += bytes.size();
            reader_.read();
        };
        reader_.on_eof = [this] {
            reader_.close();
            closed_ = true;
        };
    }
    void start() { reader_.read(); }
    void stop() {
        if (!closed_ || close_again_) reader_.close();
    }
    [[nodiscard]] std::size_t bytes() const { return bytes_; }

private:
    MonitoredReader& reader_;
    bool close_again_;
    bool closed_ = false;
    std::size_t bytes_ = 0;
};

/// The accepted spec, or nullptr (the test skips) before the first run has learned it.
std::shared_ptr<typestar::Monitor> monitor_of_spec(typestar::ViolationPolicy policy) {
    if (!std::filesystem::exists(PIPE_READER_SPEC)) return nullptr;
    typestar::MonitorOptions options;
    options.policy = policy;
    return typestar::spec::monitor_of(typestar::spec::load_spec(PIPE_READER_SPEC), options);
}

/// One session: the client starts, the peer sends 4 bytes and hangs up, the client stops.
void run_session(typestar::Monitor& monitor, bool close_again_on_stop, std::size_t* bytes) {
    boost::asio::io_context io;
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    Peer peer(fds[1], monitor);
    MonitoredReader reader(io, fds[0], monitor);
    ByteCounter client(reader, close_again_on_stop);
    client.start();
    peer.send();
    ASSERT_EQ(io.run_one_for(5s), 1u);  // data: the client reads again
    peer.hang_up();
    ASSERT_EQ(io.run_one_for(5s), 1u);  // eof: the client closes
    *bytes = client.bytes();
    client.stop();
}

TEST(PipeReaderClient, ReadsUntilEndOfFileAsTheSpecAllows) {
    const auto monitor = monitor_of_spec(typestar::ViolationPolicy::Collect);
    if (!monitor) GTEST_SKIP() << PIPE_READER_SPEC << " does not exist yet: the learn test writes it";
    std::size_t bytes = 0;
    run_session(*monitor, false, &bytes);
    EXPECT_EQ(bytes, 4u);
    EXPECT_TRUE(monitor->finish());  // no callback still owed
    for (const auto& v : monitor->violations()) ADD_FAILURE() << v.message();
    EXPECT_EQ(monitor->trace_text(), ">read >feed <data >read >hangup <eof >close") << monitor->trace_text();
}

TEST(PipeReaderClient, ClosingTwiceIsCaughtAtTheSpecLine) {
    const auto monitor = monitor_of_spec(typestar::ViolationPolicy::Throw);
    if (!monitor) GTEST_SKIP() << PIPE_READER_SPEC << " does not exist yet: the learn test writes it";
    std::size_t bytes = 0;
    try {
        run_session(*monitor, true, &bytes);
        FAIL() << "closing a closed reader was not caught";
    } catch (const typestar::ViolationError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(std::string(PIPE_READER_SPEC) + ":"), std::string::npos) << message;
        EXPECT_NE(message.find("callin close() is disabled"), std::string::npos) << message;
    }
}

}  // namespace
