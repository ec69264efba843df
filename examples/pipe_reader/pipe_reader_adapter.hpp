// The adapter that lets typestar learn and test app::PipeReader: a fresh reader on a fresh pipe per
// query, the reader's callbacks reported as `data`, `eof`, `cancelled`, and the peer's actions
// (`feed`: write 4 bytes into the pipe; `hangup`: close the write end) as inputs too, declared with
// the environment role (performed by the peer, not by the reader's client).
// typestar::asio::EventLoop does the plumbing: the reader lives on an io_context with its own
// thread, every input runs there, and an input returns once the read it made complete has reported
// (settle_until), so the device queues that callback before the next step. The purpose
// callbacks_drained (no callin while a callback is still queued) makes the next input a `wait`.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "pipe_reader.hpp"
#include "typestar/asio/event_loop.hpp"
#include "typestar/device/drained.hpp"
#include "typestar/device/inprocess.hpp"

namespace app {

class PipeReaderAdapter {
public:
    PipeReaderAdapter(std::shared_ptr<typestar::CallbackSink> sink, typestar::CallbackLedger& ledger)
        : loop_(std::move(sink), ledger), reader_(loop_.context(), make_pipe()) {
        reader_.on_data = [this](std::string_view bytes) {
            buffered_ -= bytes.size();
            reading_ = false;
            loop_.emit("data");
        };
        reader_.on_eof = [this] {
            reading_ = false;
            loop_.emit("eof");
        };
        reader_.on_cancelled = [this] {
            reading_ = false;
            loop_.emit("cancelled");
        };
    }
    ~PipeReaderAdapter() { teardown(); }
    PipeReaderAdapter(const PipeReaderAdapter&) = delete;
    PipeReaderAdapter& operator=(const PipeReaderAdapter&) = delete;

    void teardown() noexcept {
        loop_.stop([this] {
            try {
                reader_.close();
            } catch (...) {
            }
            hangup_quietly();
        });
    }

    // The class's callins: one line each. What they throw refuses them (`err`).
    void read() { callin([this] { reader_.read(); reading_ = true; }); }
    void cancel() { callin([this] { cancelling_ = true; reader_.cancel(); }); }
    void close() { callin([this] { cancelling_ = true; reader_.close(); }); }
    // The peer's actions.
    void feed() {
        callin([this] {
            if (writer_ < 0) throw std::logic_error("feed: the writer hung up");
            if (::write(writer_, "ping", 4) != 4) throw std::runtime_error(std::string("write: ") + std::strerror(errno));
            buffered_ += 4;
        });
    }
    void hangup() {
        callin([this] {
            if (writer_ < 0) throw std::logic_error("hangup: already hung up");
            hangup_quietly();
        });
    }

private:
    /// Runs `f` on the loop thread, then waits for the read it made due: a pending read completes
    /// without the passage of time when the pipe has bytes, the writer is gone, or it was cancelled.
    template <class F>
    void callin(F f) {
        loop_.callin([&] {
            cancelling_ = false;
            f();
        });
        loop_.settle_until([this] { return !(reading_ && (buffered_ > 0 || writer_ < 0 || cancelling_)); },
                           "PipeReader: a read that had to complete");
    }

    int make_pipe() {
        std::signal(SIGPIPE, SIG_IGN);  // a write to a pipe nobody reads fails with EPIPE instead
        int fds[2];
        if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
        writer_ = fds[1];
        return fds[0];
    }
    void hangup_quietly() noexcept {
        if (writer_ >= 0) ::close(writer_);
        writer_ = -1;
    }

    typestar::asio::EventLoop loop_;  // first member: outlives the reader
    int writer_ = -1;            // the peer's write end (-1 after hangup); set by make_pipe()
    std::size_t buffered_ = 0;   // bytes in the pipe
    bool cancelling_ = false;    // the current input cancelled or closed
    bool reading_ = false;       // a read is pending (all on the loop thread)
    PipeReader reader_;          // after writer_: its initializer calls make_pipe()
};

/// The learning purpose of PipeReader: the adapter above, tmax 10 ms (every callback is queued
/// before its input returns, so a `wait` never waits for one), `wait` answering quiet never changes
/// the state (no timers), at most one unread `feed` (keeps the pipe's content finite: empty or
/// one message), the drained rule, and `feed`/`hangup` as the environment's inputs.
inline typestar::ClassDefinition pipe_reader_definition() {
    using namespace std::chrono_literals;
    auto ledger = std::make_shared<typestar::CallbackLedger>();
    return typestar::LearningPurpose<PipeReaderAdapter>("PipeReader")
        .framework("pipe_reader-" + std::to_string(PIPE_READER_VERSION))
        .reset([ledger](const std::shared_ptr<typestar::CallbackSink>& sink) {
            return std::make_shared<PipeReaderAdapter>(sink, *ledger);
        })
        .teardown([](PipeReaderAdapter& a) { a.teardown(); })
        .callin("read", [](PipeReaderAdapter& a) { a.read(); })
        .callin("cancel", [](PipeReaderAdapter& a) { a.cancel(); })
        .callin("close", [](PipeReaderAdapter& a) { a.close(); })
        .callin("feed", [](PipeReaderAdapter& a) { a.feed(); })
        .callin("hangup", [](PipeReaderAdapter& a) { a.hangup(); })
        // The peer's actions: the learned spec gives them `role: environment`, and client-side
        // monitors take them with Monitor::environment (pipe_reader_client_test.cpp).
        .environment("feed")
        .environment("hangup")
        .callback("data")
        .callback("eof")
        .callback("cancelled")
        .timing({10ms, 0ms})
        .quiet_is_stable()
        .restrict_to(typestar::both(typestar::at_most_pending({"feed"}, {"data"}, 1),
                                    typestar::callbacks_drained(ledger)))
        .build();
}

/// The device the tests run: one in-process instance of the purpose above.
inline std::unique_ptr<typestar::Device> make_pipe_reader_device() {
    typestar::InProcessConfig config;
    config.variants = typestar::VariantMode::First;
    return std::make_unique<typestar::InProcessDevice>(pipe_reader_definition(), config);
}

}  // namespace app
