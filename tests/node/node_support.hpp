// Shared by the Node agent tests: the agent (device/node/agent.js) as a child process under
// `timeout`, killed when the test ends; raw HTTP requests with libcurl; running the typestar CLI.
// Only public surfaces of typestar are used (HttpDevice, the CLI), so these tests do not depend on
// the C++ agent's or the learning pipeline's internals.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/child_process.hpp"

namespace typestar::node_testing {

inline constexpr const char* kToken = "node-token-8d2e";

using testing_support::RawReply;
using testing_support::raw_request;
using testing_support::spawn;
using testing_support::Spawned;

/// `node device/node/agent.js ARGS...` under `timeout` (so it never outlives a hung test), with the
/// token in TYPESTAR_DEVICE_TOKEN (unset when empty). Reads the first line it prints. SIGTERM and
/// reaped on destruction (the fixture's TearDown).
class NodeAgent : public testing_support::ChildProcess {
public:
    NodeAgent(const std::vector<std::string>& args, const std::string& token = kToken, int timeout_s = 300)
        : ChildProcess(command(args, timeout_s), token.empty() ? std::vector<std::string>{}
                                                               : std::vector<std::string>{"TYPESTAR_DEVICE_TOKEN=" + token}) {}

private:
    static std::vector<std::string> command(const std::vector<std::string>& args, int timeout_s) {
        std::vector<std::string> argv{TYPESTAR_TIMEOUT_BIN, std::to_string(timeout_s), TYPESTAR_NODE_BIN,
                                      std::string(TYPESTAR_SOURCE_DIR) + "/device/node/agent.js"};
        argv.insert(argv.end(), args.begin(), args.end());
        return argv;
    }
};

/// A request with the test token.
inline RawReply authorized(const std::string& method, const std::string& url, const std::string& body = "") {
    return testing_support::authorized_request(kToken, method, url, body);
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
