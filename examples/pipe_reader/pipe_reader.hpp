// The user's class (it knows nothing about typestar): reads the read end of a pipe with
// Boost.Asio's posix::stream_descriptor, one read at a time, reporting through callbacks.
// PIPE_READER_VERSION selects the release: 1 (default) or 2, the "upgrade", in which close() on a
// closed reader is a harmless no-op instead of an error.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string_view>

#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#ifndef PIPE_READER_VERSION
#define PIPE_READER_VERSION 1
#endif

namespace app {

class PipeReader {
public:
    /// Takes ownership of `fd`, the read end of a pipe. Not thread-safe: use it on `io`'s thread.
    PipeReader(boost::asio::io_context& io, int fd) : stream_(io, fd) {}

    std::function<void(std::string_view bytes)> on_data;  ///< a read got bytes
    std::function<void()> on_eof;                          ///< a read found the writer gone
    std::function<void()> on_cancelled;                    ///< a read was cancelled or the reader closed

    /// Starts one read. Throws std::logic_error when a read is pending or the reader is closed.
    void read() {
        if (!stream_.is_open()) throw std::logic_error("read: the reader is closed");
        if (reading_) throw std::logic_error("read: a read is already pending");
        reading_ = true;
        stream_.async_read_some(boost::asio::buffer(buffer_), [this](const boost::system::error_code& ec, std::size_t n) {
            reading_ = false;
            if (!ec) {
                if (on_data) on_data(std::string_view(buffer_.data(), n));
            } else if (ec == boost::asio::error::eof) {
                if (on_eof) on_eof();
            } else if (on_cancelled) {
                on_cancelled();  // operation_aborted (cancel, close) or another error
            }
        });
    }
    /// Cancels the pending read, if any. Throws boost::system::system_error when closed.
    void cancel() { stream_.cancel(); }
    /// Closes the reader; a pending read is cancelled. Version 1 throws std::logic_error when the
    /// reader is already closed; version 2 ignores that.
    void close() {
        if (!stream_.is_open()) {
#if PIPE_READER_VERSION >= 2
            return;
#else
            throw std::logic_error("close: the reader is already closed");
#endif
        }
        stream_.close();
    }

private:
    boost::asio::posix::stream_descriptor stream_;
    std::array<char, 4096> buffer_{};
    bool reading_ = false;
};

}  // namespace app
