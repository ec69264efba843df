// Shared by the Node agent tests: the agent (device/node/agent.js) as a child process under
// `timeout`, killed when the test ends; raw HTTP requests with libcurl; running the typestar CLI.
// Only public surfaces of typestar are used (HttpDevice, the CLI), so these tests do not depend on
// the C++ agent's or the learning pipeline's internals.
#pragma once

#include <curl/curl.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace typestar::node_testing {

inline constexpr const char* kToken = "node-token-8d2e";

struct Spawned {
    pid_t pid = -1;
    std::FILE* out = nullptr;
    std::FILE* err = nullptr;
};

/// Spawns `argv` with the environment minus TYPESTAR_DEVICE_TOKEN*, plus `extra_env`; stdout and
/// stderr are pipes. Throws std::runtime_error when it cannot be spawned.
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
    if (rc != 0) throw std::runtime_error("cannot spawn " + args.front());
    s.out = ::fdopen(out[0], "r");
    s.err = ::fdopen(err[0], "r");
    return s;
}

/// `node device/node/agent.js ARGS...` under `timeout` (so it never outlives a hung test), with the
/// token in TYPESTAR_DEVICE_TOKEN (unset when empty). Reads the first line it prints. SIGTERM and
/// reaped on destruction (the fixture's TearDown).
class NodeAgent {
public:
    NodeAgent(const std::vector<std::string>& args, const std::string& token = kToken, int timeout_s = 300) {
        std::vector<std::string> argv{TYPESTAR_TIMEOUT_BIN, std::to_string(timeout_s), TYPESTAR_NODE_BIN,
                                      std::string(TYPESTAR_SOURCE_DIR) + "/device/node/agent.js"};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<std::string> env;
        if (!token.empty()) env.push_back("TYPESTAR_DEVICE_TOKEN=" + token);
        p_ = spawn(argv, env);
        char line[512];
        if (std::fgets(line, sizeof line, p_.out) != nullptr) first_line_ = line;
        const auto at = first_line_.find("http://");
        if (at != std::string::npos) url_ = first_line_.substr(at, first_line_.find_first_of("\r\n") - at);
    }
    ~NodeAgent() {
        if (p_.pid > 0 && !exited_) {
            ::kill(p_.pid, SIGTERM);
            int status = 0;
            ::waitpid(p_.pid, &status, 0);
        }
        if (p_.out != nullptr) std::fclose(p_.out);
        if (p_.err != nullptr) std::fclose(p_.err);
    }
    NodeAgent(const NodeAgent&) = delete;
    NodeAgent& operator=(const NodeAgent&) = delete;

    [[nodiscard]] const std::string& url() const { return url_; }
    [[nodiscard]] const std::string& first_line() const { return first_line_; }
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
    return raw_request(method, url, body,
                       {std::string("Authorization: Bearer ") + kToken, "Content-Type: application/json"});
}

struct CommandResult {
    int code = -1;
    std::string out;
    std::string err;
};

/// Runs a program to its end (under `timeout`), capturing stdout and stderr.
inline CommandResult run_command(std::vector<std::string> args, const std::vector<std::string>& extra_env = {},
                                 int timeout_s = 600) {
    args.insert(args.begin(), {TYPESTAR_TIMEOUT_BIN, std::to_string(timeout_s)});
    Spawned p = spawn(args, extra_env);
    CommandResult r;
    // Read both pipes without deadlock: stderr is drained after stdout closes; typestar's stderr
    // stays small (warnings), well below a pipe's 64 KiB.
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), p.out)) > 0) r.out.append(buf.data(), n);
    while ((n = std::fread(buf.data(), 1, buf.size(), p.err)) > 0) r.err.append(buf.data(), n);
    int status = 0;
    ::waitpid(p.pid, &status, 0);
    std::fclose(p.out);
    std::fclose(p.err);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace typestar::node_testing
