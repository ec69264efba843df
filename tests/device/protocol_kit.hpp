// The protocol conformance kit (issue 25 item 3, issue 26 item 6): device/PROTOCOL.md's status
// fields, errors, auth rules and "Limits every agent enforces", written once and run against every
// agent — typestar-device, a gtest binary behind --typestar_serve, the JVM agent and the Node agent.
// The cases live in protocol_kit.cpp; each agent's test binary instantiates them with its KitAgent
// (protocol_kit_agents.cpp), so each runs under its own ctest label.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace typestar::protocol_kit {

/// The bearer token every kit agent is started with (in TYPESTAR_DEVICE_TOKEN).
inline constexpr const char* kKitToken = "kit-token-5b9a";

/// How to start one agent.
struct KitAgent {
    std::string name;                  ///< test name suffix: cpp, gtest_serve, jvm, node
    std::vector<std::string> command;  ///< argv serving one class on 127.0.0.1, any port (it prints its URL)
    /// Whether it takes `--max-connections N` and `--connection-timeout S` (typestar-device's
    /// options; a gtest binary behind --typestar_serve has the defaults only).
    bool limit_options = true;
    /// A session word whose last callin the served class's learning purpose denies (status
    /// `outside_purpose`, PROTOCOL.md); empty: the case is skipped for this agent (`skip_why`).
    std::vector<std::string> outside_word{};
    /// argv serving the class with that purpose (like `command`); empty: `command` itself.
    std::vector<std::string> purpose_command{};
    std::string skip_why{};
};

/// gtest prints a parameter by its name.
inline void PrintTo(const KitAgent& agent, std::ostream* out) { *out << agent.name; }

/// The cases; instantiate with INSTANTIATE_TEST_SUITE_P(Agent, ProtocolKit, Values(KitAgent{...}), kit_name).
class ProtocolKit : public ::testing::TestWithParam<KitAgent> {};

/// The test name suffix: the agent's name.
std::string kit_name(const ::testing::TestParamInfo<KitAgent>& info);

}  // namespace typestar::protocol_kit
