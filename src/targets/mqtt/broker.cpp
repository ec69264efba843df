// A Mosquitto broker as a child process on a free loopback port (see typestar/targets/mqtt.hpp).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/targets/mqtt.hpp"

namespace typestar::targets {

namespace {

bool executable(const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

/// A port nobody listens on now (bound to 127.0.0.1:0 and released): the broker may still lose it
/// to another process, so the caller retries with a new one when the broker exits.
std::uint16_t free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw DeviceError(std::string("mosquitto: socket(): ") + std::strerror(errno));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        const int error = errno;
        ::close(fd);
        throw DeviceError(std::string("mosquitto: no free loopback port: ") + std::strerror(error));
    }
    ::close(fd);
    return ntohs(address.sin_port);
}

bool accepts(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return ok;
}

std::string tail_of(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::string out;
    for (std::size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i) out += "\n  " + lines[i];
    return out;
}

/// Starts `binary args...` with stdin from /dev/null and stdout and stderr into `output`. With
/// `tied`, the child gets SIGTERM when the thread that started it dies (PR_SET_PDEATHSIG), so a
/// test process killed by a timeout leaves no broker behind.
pid_t spawn(const std::filesystem::path& binary, const std::vector<std::string>& args,
            const std::filesystem::path& output, bool tied) {
    std::vector<std::string> storage{binary.string()};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string out = output.string();
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw DeviceError("mosquitto: cannot start " + binary.string() + ": " + std::strerror(errno));
    if (pid == 0) {  // the child: async-signal-safe calls only
        if (tied && (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent)) ::_exit(127);
        const int in = ::open("/dev/null", O_RDONLY);
        const int log = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || log < 0 || ::dup2(in, 0) < 0 || ::dup2(log, 1) < 0 || ::dup2(log, 2) < 0) ::_exit(127);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    return pid;
}

void stop(pid_t pid) noexcept {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 200; ++i) {  // up to 2 s for a clean exit
        if (::waitpid(pid, nullptr, WNOHANG) == pid) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
}

}  // namespace

std::optional<std::filesystem::path> MosquittoBroker::find_binary() {
    if (const char* env = std::getenv("TYPESTAR_MOSQUITTO"); env != nullptr && *env != '\0') {
        if (executable(env)) return std::filesystem::path(env);
        return std::nullopt;
    }
    if (executable("/usr/sbin/mosquitto")) return std::filesystem::path("/usr/sbin/mosquitto");
    if (const char* path = std::getenv("PATH"); path != nullptr) {
        std::stringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty() && executable(std::filesystem::path(dir) / "mosquitto"))
                return std::filesystem::path(dir) / "mosquitto";
    }
    return std::nullopt;
}

std::string MosquittoBroker::version_of(const std::filesystem::path& binary) {
    char name[] = "/tmp/typestar-mosquitto-version-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0) return {};
    ::close(fd);
    std::string first;
    try {
        const pid_t pid = spawn(binary, {"-h"}, name, false);
        ::waitpid(pid, nullptr, 0);
        std::ifstream in(name);
        std::getline(in, first);
    } catch (const DeviceError&) {
        first.clear();
    }
    ::unlink(name);
    return first;
}

MosquittoBroker::MosquittoBroker(const std::filesystem::path& binary, const std::filesystem::path& work_dir,
                                 std::chrono::milliseconds startup) {
    std::filesystem::create_directories(work_dir);
    version_ = version_of(binary);
    log_ = work_dir / "mosquitto.log";
    const auto config = work_dir / "mosquitto.conf";
    const auto deadline = std::chrono::steady_clock::now() + startup;
    for (int attempt = 1;; ++attempt) {
        port_ = free_port();
        {
            std::ofstream out(config, std::ios::trunc);
            out << "# written by typestar's MosquittoBroker: loopback only, anonymous, in memory\n"
                << "listener " << port_ << " 127.0.0.1\n"
                << "allow_anonymous true\n"
                << "set_tcp_nodelay true\n"
                << "persistence false\n"
                << "log_dest stderr\n"
                << "log_type error\n"
                << "log_type warning\n"
                << "connection_messages false\n";
            // Run as root, mosquitto drops its privileges to the user `mosquitto`, which clears the
            // parent-death signal (PR_SET_PDEATHSIG): it stays as the test's own user instead.
            if (::geteuid() == 0) out << "user root\n";
            if (!out) throw DeviceError("mosquitto: cannot write " + config.string());
        }
        pid_ = spawn(binary, {"-c", config.string()}, log_, true);
        bool exited = false;
        while (std::chrono::steady_clock::now() < deadline) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                exited = true;
                pid_ = -1;
                break;
            }
            if (accepts(port_)) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));  // start-up only, never per query
        }
        if (!exited) {
            stop(pid_);
            pid_ = -1;
            throw DeviceError("mosquitto: " + binary.string() + " did not listen on 127.0.0.1:" +
                              std::to_string(port_) + " within " + std::to_string(startup.count()) +
                              " ms; its log " + log_.string() + ":" + tail_of(log_));
        }
        if (attempt == 3 || std::chrono::steady_clock::now() >= deadline)
            throw DeviceError("mosquitto: " + binary.string() + " exited at start-up (" + std::to_string(attempt) +
                              " attempts, last port " + std::to_string(port_) + "); its log " + log_.string() +
                              ":" + tail_of(log_));
    }
}

MosquittoBroker::~MosquittoBroker() { stop(pid_); }

}  // namespace typestar::targets
