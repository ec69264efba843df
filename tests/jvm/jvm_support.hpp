// Shared by the JVM agent tests: the agent (typestar-agent.jar) as a child process, raw HTTP
// requests with libcurl, and the token handling of the CTest fixture (agents.sh).
#pragma once

#include <curl/curl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace typestar::jvm_testing {

inline constexpr const char* kToken = "jvm-test-token-7d2e";

/// `java -jar typestar-agent.jar ARGS` as a child process; SIGTERM and reaped on destruction.
class JavaAgent {
public:
    /// Starts the agent with `args`; `env` entries are added to the environment (every
    /// TYPESTAR_DEVICE_TOKEN* variable of this process is removed first). Reads the first line the
    /// agent prints (its URL when it serves). Throws std::runtime_error when java cannot be spawned.
    explicit JavaAgent(const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env = {{"TYPESTAR_DEVICE_TOKEN", kToken}}) {
        int out[2];
        int err[2];
        if (::pipe(out) != 0 || ::pipe(err) != 0) throw std::runtime_error("pipe");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        posix_spawn_file_actions_adddup2(&actions, err[1], 2);
        posix_spawn_file_actions_addclose(&actions, out[0]);
        posix_spawn_file_actions_addclose(&actions, err[0]);
        std::vector<std::string> argv_s{TYPESTAR_JAVA, "-XX:TieredStopAtLevel=1", "-jar",
                                        TYPESTAR_JVM_AGENT_JAR};
        argv_s.insert(argv_s.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : argv_s) argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_s;
        for (char** e = environ; *e != nullptr; ++e)
            if (std::string(*e).rfind("TYPESTAR_DEVICE_TOKEN", 0) != 0) env_s.emplace_back(*e);
        for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
        std::vector<char*> envp;
        for (auto& e : env_s) envp.push_back(e.data());
        envp.push_back(nullptr);
        const int rc = posix_spawn(&pid_, TYPESTAR_JAVA, &actions, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        ::close(out[1]);
        ::close(err[1]);
        if (rc != 0) throw std::runtime_error("cannot spawn " + std::string(TYPESTAR_JAVA));
        out_ = ::fdopen(out[0], "r");
        err_ = ::fdopen(err[0], "r");
        char line[512];
        if (std::fgets(line, sizeof line, out_) != nullptr) first_line_ = line;
        const auto at = first_line_.find("http://");
        if (at != std::string::npos) url_ = first_line_.substr(at, first_line_.find_first_of("\r\n") - at);
    }
    ~JavaAgent() {
        if (pid_ > 0 && !exited_) {
            ::kill(pid_, SIGTERM);
            int status = 0;
            ::waitpid(pid_, &status, 0);
        }
        if (out_ != nullptr) std::fclose(out_);
        if (err_ != nullptr) std::fclose(err_);
    }
    JavaAgent(const JavaAgent&) = delete;
    JavaAgent& operator=(const JavaAgent&) = delete;

    /// "http://127.0.0.1:PORT", empty when the agent did not start serving.
    [[nodiscard]] const std::string& url() const { return url_; }
    /// Waits for the process to end; its exit code (or 128 + signal).
    int wait_exit() {
        int status = 0;
        ::waitpid(pid_, &status, 0);
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    /// Everything it wrote to stderr (call after it exited).
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

struct RawReply {
    long status = 0;  ///< 0: no HTTP answer (connection closed, timeout)
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
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 10000L);
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

}  // namespace typestar::jvm_testing
