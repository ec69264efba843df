// The real JDK targets' devices for the GoogleTest plugin: an HttpDevice on the agent the CTest
// fixture `jvm_agents` (agents.sh) started for the target.
#pragma once

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "typestar/core/error.hpp"
#include "typestar/device/http_device.hpp"

namespace typestar::jvm_testing {

/// The contents of `path` without surrounding whitespace; empty when it cannot be read.
inline std::string read_trimmed(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    std::string text = s.str();
    const auto b = text.find_first_not_of(" \t\r\n");
    const auto e = text.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
}

/// The device of target `name` (e.g. "java_timer") served by the agent in $TYPESTAR_JVM_AGENTS_DIR.
/// Throws DeviceError when there is none (the plugin then skips locally, fails on CI).
inline std::unique_ptr<Device> jvm_target(const std::string& name) {
    const char* dir = std::getenv("TYPESTAR_JVM_AGENTS_DIR");
    if (dir == nullptr || *dir == '\0')
        throw DeviceError("TYPESTAR_JVM_AGENTS_DIR is not set: run through ctest (fixture jvm_agents), or start "
                          "agents with tests/jvm/agents.sh and point it at their directory");
    HttpConfig c;
    c.url = read_trimmed(std::string(dir) + "/" + name + ".url");
    c.token = read_trimmed(std::string(dir) + "/token");
    if (c.url.empty()) throw DeviceError("no JVM agent for " + name + " in " + dir + " (agents.sh start)");
    return std::make_unique<HttpDevice>(c);
}

}  // namespace typestar::jvm_testing
