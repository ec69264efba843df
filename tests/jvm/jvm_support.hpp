// Shared by the JVM agent tests: the agent (typestar-agent.jar) as a child process, raw HTTP
// requests with libcurl, and the token handling of the CTest fixture (agents.sh).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/child_process.hpp"

namespace typestar::jvm_testing {

inline constexpr const char* kToken = "jvm-test-token-7d2e";

using testing_support::RawReply;
using testing_support::raw_request;

/// `java -jar typestar-agent.jar ARGS` as a child process; SIGTERM and reaped on destruction.
class JavaAgent : public testing_support::ChildProcess {
public:
    /// Starts the agent with `args`; `env` entries are added to the environment (every
    /// TYPESTAR_DEVICE_TOKEN* variable of this process is removed first). Reads the first line the
    /// agent prints (its URL when it serves). Throws std::runtime_error when java cannot be spawned.
    explicit JavaAgent(const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env = {{"TYPESTAR_DEVICE_TOKEN", kToken}})
        : ChildProcess(command(args), environment(env)) {}

private:
    static std::vector<std::string> command(const std::vector<std::string>& args) {
        std::vector<std::string> argv{TYPESTAR_JAVA, "-XX:TieredStopAtLevel=1", "-jar", TYPESTAR_JVM_AGENT_JAR};
        argv.insert(argv.end(), args.begin(), args.end());
        return argv;
    }
    static std::vector<std::string> environment(const std::map<std::string, std::string>& env) {
        std::vector<std::string> result;
        for (const auto& [k, v] : env) result.push_back(k + "=" + v);
        return result;
    }
};

/// A request with the test token.
inline RawReply authorized(const std::string& method, const std::string& url, const std::string& body = "") {
    return testing_support::authorized_request(kToken, method, url, body, 10000);
}

}  // namespace typestar::jvm_testing
