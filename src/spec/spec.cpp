// Spec files on disk: loading, atomic saving, and behavioural comparison (docs/spec-format.md).
#include "typestar/spec/spec.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

#include "typestar/core/error.hpp"

namespace typestar::spec {
namespace {

std::string errno_text(int error) { return std::generic_category().message(error); }

/// Closes a file descriptor on scope exit unless released.
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

/// The whole file, or the errno that stopped reading it.
std::pair<std::string, int> read_all(const std::filesystem::path& path) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return {{}, errno};
    std::string text;
    char buffer[1 << 14];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            return {{}, errno};
        }
        text.append(buffer, static_cast<std::size_t>(n));
    }
    return {std::move(text), 0};
}

/// Drops what canonical forms may still differ in without differing in behaviour: names.
Typestate behaviour_of(const Typestate& typestate) {
    Typestate t = canonical(typestate);
    t.name.clear();
    for (auto& s : t.states) {
        s.name.clear();
        if (s.quiet_target && *s.quiet_target == static_cast<StateId>(&s - t.states.data())) s.quiet_target.reset();
    }
    return t;
}

}  // namespace

int SourceMap::line_of(const std::string& state, const std::string& symbol) const {
    if (!symbol.empty()) {
        if (const auto it = transitions.find({state, symbol}); it != transitions.end()) return it->second.line;
    }
    if (const auto it = states.find(state); it != states.end()) return it->second.line;
    return 0;
}

Spec load_spec(const std::filesystem::path& path) {
    auto [text, error] = read_all(path);
    if (error != 0) {
        throw SpecError({Diagnostic{path.string(), 0, 0, "cannot read spec file: " + errno_text(error)}});
    }
    return parse_spec(text, path.string());
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
    const auto fail = [&](const std::string& what, int error) {
        throw Error("cannot write " + path.string() + ": " + what + ": " + errno_text(error));
    };
    const std::filesystem::path directory = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    static std::atomic<unsigned> counter{0};

    // A fresh temporary next to the target, so the rename stays within one file system.
    std::filesystem::path temporary;
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        temporary = directory / ("." + path.filename().string() + ".tmp." + std::to_string(::getpid()) + "." +
                                 std::to_string(counter.fetch_add(1)));
        fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt >= 100)) fail("cannot create temporary file", errno);
    }
    Fd file(fd);
    const auto abandon = [&](const std::string& what, int error) {
        file.close();
        ::unlink(temporary.c_str());
        fail(what, error);
    };
    // Keep the permissions of the file being replaced.
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
        if (::fchmod(file.get(), old.st_mode & 07777) != 0) abandon("cannot set permissions", errno);
    }
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(file.get(), text.data() + written, text.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            abandon("cannot write temporary file", errno);
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(file.get()) != 0) abandon("cannot sync temporary file", errno);
    if (const int error = file.close(); error != 0) abandon("cannot close temporary file", error);
    if (::rename(temporary.c_str(), path.c_str()) != 0) abandon("cannot rename temporary file into place", errno);
    // Make the rename itself durable; failure here leaves a complete file, so it is not an error.
    Fd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() >= 0) ::fsync(dir.get());
}

void save_spec(const Spec& spec, const std::filesystem::path& path) { write_file_atomically(path, write_spec(spec)); }

bool same_behaviour(const Spec& a, const Spec& b) { return behaviour_of(a.typestate) == behaviour_of(b.typestate); }

DeviceTraits declared_traits(const Spec& spec) {
    const MealyMachine closure = synchronous_closure(spec.typestate);
    bool moves = false;
    for (StateId s = 0; s < spec.typestate.states.size(); ++s) {
        const auto& state = spec.typestate.states[s];
        if (!state.callback && state.wait == Typestate::Wait::Quiet && state.quiet_target && *state.quiet_target != s)
            moves = true;
    }
    return closure_traits(closure.inputs(), closure.outputs(), spec.assumptions.quiet_is_stable && !moves);
}

}  // namespace typestar::spec
