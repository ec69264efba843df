// Shared by the agent tests (C++ typestar-device, JVM, Node): a program as a child process with
// pipes for stdout and stderr, and raw HTTP requests with libcurl. Header-only: the JVM and Node
// tests link no test support library. Hand-written on POSIX spawn and libcurl because the tests
// need exactly these few calls (the agents' own code is what they test, so they must not use it).
#pragma once

#include <curl/curl.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace typestar::testing_support {

/// A spawned child: its pid and the read ends of its stdout and stderr.
struct Spawned {
    pid_t pid = -1;
    std::FILE* out = nullptr;
    std::FILE* err = nullptr;
};

/// Spawns `args` (args[0] looked up in PATH) with this process's environment minus every
/// TYPESTAR_DEVICE_TOKEN* variable, plus `extra_env` ("NAME=value"); stdout and stderr are pipes.
/// Throws std::runtime_error when it cannot be spawned.
inline Spawned spawn(const std::vector<std::string>& args, const std::vector<std::string>& extra_env) {
    int out[2];
    int err[2];
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    std::vector<std::string> argv_s = args;
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s;
    for (char** e = environ; *e != nullptr; ++e)
        if (std::string(*e).rfind("TYPESTAR_DEVICE_TOKEN", 0) != 0) env_s.emplace_back(*e);
    env_s.insert(env_s.end(), extra_env.begin(), extra_env.end());
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    Spawned s;
    const int rc = posix_spawnp(&s.pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(out[0]);
        ::close(err[0]);
        throw std::runtime_error("cannot spawn " + args.front());
    }
    s.out = ::fdopen(out[0], "r");
    s.err = ::fdopen(err[0], "r");
    return s;
}

/// An agent (or any server) as a child process: started with `args` and `extra_env` (see spawn),
/// its first line of output read (the URL it serves, when it serves). SIGTERM and reaped on
/// destruction unless it already exited.
class ChildProcess {
public:
    ChildProcess(const std::vector<std::string>& args, const std::vector<std::string>& extra_env)
        : p_(spawn(args, extra_env)) {
        char line[512];
        if (std::fgets(line, sizeof line, p_.out) != nullptr) first_line_ = line;
        const auto at = first_line_.find("http://");
        if (at != std::string::npos) url_ = first_line_.substr(at, first_line_.find_first_of("\r\n") - at);
    }
    ~ChildProcess() {
        if (p_.pid > 0 && !exited_) {
            ::kill(p_.pid, SIGTERM);
            int status = 0;
            ::waitpid(p_.pid, &status, 0);
        }
        if (p_.out != nullptr) std::fclose(p_.out);
        if (p_.err != nullptr) std::fclose(p_.err);
    }
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    /// "http://HOST:PORT" from its first line; empty when it did not start serving.
    [[nodiscard]] const std::string& url() const { return url_; }
    [[nodiscard]] const std::string& first_line() const { return first_line_; }
    [[nodiscard]] pid_t pid() const { return p_.pid; }
    /// Waits for the process to end; its exit code (or 128 + signal).
    int wait_exit() {
        int status = 0;
        ::waitpid(p_.pid, &status, 0);
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    /// Everything it wrote to stderr (call after it exited).
    std::string error_output() {
        std::string s;
        char buf[512];
        while (std::fgets(buf, sizeof buf, p_.err) != nullptr) s += buf;
        return s;
    }

private:
    Spawned p_;
    bool exited_ = false;
    std::string first_line_;
    std::string url_;
};

/// An HTTP answer: status 0 when there was none (connection closed, timeout).
struct RawReply {
    long status = 0;
    std::string body;
    std::string headers;
};

/// One HTTP request with libcurl, no retries, at most `timeout_ms`.
inline RawReply raw_request(const std::string& method, const std::string& url, const std::string& body,
                            const std::vector<std::string>& headers, long timeout_ms = 5000) {
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
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    if (curl_easy_perform(h) == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply.status);
    curl_slist_free_all(list);
    curl_easy_cleanup(h);
    return reply;
}

/// A JSON request with the bearer `token`.
inline RawReply authorized_request(const std::string& token, const std::string& method, const std::string& url,
                                   const std::string& body = "", long timeout_ms = 5000) {
    return raw_request(method, url, body, {"Authorization: Bearer " + token, "Content-Type: application/json"},
                       timeout_ms);
}

}  // namespace typestar::testing_support
