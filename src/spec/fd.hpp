// A file descriptor closed on scope exit, and errno as text: what the spec reader and the atomic
// writer share. Private to src/spec.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

namespace typestar::spec::detail {

/// The text of an errno value ("No such file or directory").
inline std::string errno_text(int error) { return std::generic_category().message(error); }

/// Closes a file descriptor on scope exit unless closed before.
class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    [[nodiscard]] int get() const noexcept { return fd_; }
    /// Closes now; returns the errno of a failed close, else 0.
    int close() {
        const int fd = std::exchange(fd_, -1);
        return (fd >= 0 && ::close(fd) != 0) ? errno : 0;
    }

private:
    int fd_;
};

}  // namespace typestar::spec::detail
