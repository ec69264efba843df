// Shared by the HTTP device tests: an in-process agent on loopback, raw HTTP requests, and the
// typestar-device binary as a child process.
#pragma once

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "learning_support.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/device/simulated.hpp"

extern char** environ;

namespace typestar::testing_support {

inline constexpr const char* kToken = "test-token-4f1c";

/// An agent serving a simulated class on 127.0.0.1, any port.
inline std::unique_ptr<Agent> start_agent(const std::string& key, AgentConfig config = {},
                                          sim::SimOptions options = fast_options()) {
    const auto entry = sim::find_simulated(key);
    if (!entry) throw std::invalid_argument("no class " + key);
    if (config.token.empty()) config.token = kToken;
    auto agent = std::make_unique<Agent>(
        [entry, options] {
            InProcessConfig c;
            c.variants = entry->variants;
            return std::make_unique<InProcessDevice>(entry->make(options), c);
        },
        config);
    agent->start();
    return agent;
}

inline HttpConfig http_config(const Agent& agent) {
    HttpConfig c;
    c.url = agent.url();
    c.token = kToken;
    return c;
}

struct RawReply {
    long status = 0;
    std::string body;
    std::string headers;
};

/// One HTTP request with libcurl, no retries.
inline RawReply raw_request(const std::string& method, const std::string& url, const std::string& body,
                            const std::vector<std::string>& headers) {
    CURL* h = curl_easy_init();
    RawReply reply;
    curl_slist* list = nullptr;
    for (const auto& header : headers) list = curl_slist_append(list, header.c_str());
    list = curl_slist_append(list, "Expect:");
    auto append = +[](char* data, std::size_t size, std::size_t n, void* out) {
        static_cast<std::string*>(out)->append(data, size * n);
        return size * n;
    };
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
    if (method != "GET") {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, append);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &reply.body);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, append);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &reply.headers);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    if (curl_easy_perform(h) == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply.status);
    curl_slist_free_all(list);
    curl_easy_cleanup(h);
    return reply;
}

/// A request with the test token.
inline RawReply authorized(const std::string& method, const std::string& url, const std::string& body = "") {
    return raw_request(method, url, body, {std::string("Authorization: Bearer ") + kToken, "Content-Type: application/json"});
}

/// A TCP connection to 127.0.0.1:`port`, for requests curl would not send (raw bytes, repeated or
/// empty headers, idle or slow clients). Closed on destruction.
class RawConnection {
public:
    explicit RawConnection(std::uint16_t port) {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
            throw std::runtime_error("cannot connect to port " + std::to_string(port));
    }
    ~RawConnection() {
        if (fd_ >= 0) ::close(fd_);
    }
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;

    /// Sends all of `bytes`; false when the peer is gone.
    bool send(const std::string& bytes) {
        std::size_t sent = 0;
        while (sent < bytes.size()) {
            const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) return false;
            sent += static_cast<std::size_t>(n);
        }
        return true;
    }
    /// Reads until the peer closes the connection or `timeout` passes; what arrived.
    std::string read_until_closed(std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        std::string out;
        closed_ = false;
        char buf[4096];
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return out;
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return out;
            const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
            if (n <= 0) {
                closed_ = true;
                return out;
            }
            out.append(buf, static_cast<std::size_t>(n));
        }
    }
    /// Whether the last read_until_closed saw the end of the connection.
    [[nodiscard]] bool closed() const { return closed_; }

private:
    int fd_ = -1;
    bool closed_ = false;
};

/// The status code of a raw HTTP answer ("HTTP/1.1 503 ..." -> 503), or 0.
inline int status_of(const std::string& answer) {
    if (answer.rfind("HTTP/1.1 ", 0) != 0 || answer.size() < 12) return 0;
    return std::stoi(answer.substr(9, 3));
}

/// The body of a raw HTTP answer (after the blank line).
inline std::string body_of(const std::string& answer) {
    const auto end = answer.find("\r\n\r\n");
    return end == std::string::npos ? std::string() : answer.substr(end + 4);
}

/// The typestar-device binary running as a child process; killed (SIGTERM) on destruction.
class AgentProcess {
public:
    /// Starts it with `args` and `token` in TYPESTAR_DEVICE_TOKEN (unset when empty); reads the
    /// first line it prints. Throws std::runtime_error when it does not start serving.
    AgentProcess(const std::vector<std::string>& args, const std::string& token) {
        int out[2];
        int err[2];
        if (::pipe(out) != 0 || ::pipe(err) != 0) throw std::runtime_error("pipe");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        posix_spawn_file_actions_adddup2(&actions, err[1], 2);
        posix_spawn_file_actions_addclose(&actions, out[0]);
        posix_spawn_file_actions_addclose(&actions, err[0]);
        std::vector<std::string> argv_s{TYPESTAR_DEVICE_BIN};
        argv_s.insert(argv_s.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : argv_s) argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_s;
        for (char** e = environ; *e != nullptr; ++e)
            if (std::string(*e).rfind("TYPESTAR_DEVICE_TOKEN", 0) != 0) env_s.emplace_back(*e);
        if (!token.empty()) env_s.push_back("TYPESTAR_DEVICE_TOKEN=" + token);
        std::vector<char*> envp;
        for (auto& e : env_s) envp.push_back(e.data());
        envp.push_back(nullptr);
        const int rc = posix_spawn(&pid_, TYPESTAR_DEVICE_BIN, &actions, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        ::close(out[1]);
        ::close(err[1]);
        if (rc != 0) throw std::runtime_error("cannot spawn " + std::string(TYPESTAR_DEVICE_BIN));
        out_ = ::fdopen(out[0], "r");
        err_ = ::fdopen(err[0], "r");
        char line[512];
        if (std::fgets(line, sizeof line, out_) != nullptr) first_line_ = line;
        const auto at = first_line_.find("http://");
        if (at != std::string::npos) url_ = first_line_.substr(at, first_line_.find_first_of("\r\n") - at);
    }
    ~AgentProcess() {
        if (pid_ > 0 && !exited_) {
            ::kill(pid_, SIGTERM);
            int status = 0;
            ::waitpid(pid_, &status, 0);
        }
        if (out_ != nullptr) std::fclose(out_);
        if (err_ != nullptr) std::fclose(err_);
    }
    AgentProcess(const AgentProcess&) = delete;
    AgentProcess& operator=(const AgentProcess&) = delete;

    [[nodiscard]] const std::string& url() const { return url_; }
    /// Waits for the process to end; its exit code (or 128 + signal).
    int wait_exit() {
        int status = 0;
        ::waitpid(pid_, &status, 0);
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    /// Everything it wrote to stderr (after it exited).
    std::string error_output() {
        std::string s;
        char buf[512];
        while (std::fgets(buf, sizeof buf, err_) != nullptr) s += buf;
        return s;
    }

private:
    pid_t pid_ = -1;
    bool exited_ = false;
    std::FILE* out_ = nullptr;
    std::FILE* err_ = nullptr;
    std::string first_line_;
    std::string url_;
};

}  // namespace typestar::testing_support
