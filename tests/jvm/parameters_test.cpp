// Parameterised callins in the JVM agent (LearningPurpose.callinWith / partition, Values): each
// concrete value is an ordinary input `callin/vK`, /v1/status declares the partitions exactly as
// device/PROTOCOL.md says (read back by HttpDevice), values are deterministic for a seed, invalid
// declarations stop the agent with a message, and the real targets answer like the JDK.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jvm_support.hpp"
#include "typestar/device/http_device.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;
using namespace jvm_testing;

HttpConfig config_for(const JavaAgent& agent) {
    HttpConfig c;
    c.url = agent.url();
    c.token = kToken;
    return c;
}

std::vector<std::string> run(Device& d, const std::vector<std::string>& names) {
    Word w;
    for (const auto& n : names) w.push_back(d.inputs().at(n));
    std::vector<std::string> out;
    for (const Symbol s : d.run(w).outputs) out.push_back(d.outputs().name(s));
    return out;
}

json status_of(const JavaAgent& agent) {
    const auto reply = authorized("GET", agent.url() + "/v1/status");
    EXPECT_EQ(reply.status, 200) << reply.body;
    return json::parse(reply.body);
}

TEST(JvmParameters, ConcreteValuesAreInputsAndTheStatusDeclaresThePartitions) {
    JavaAgent agent({"--class-purpose", "typestar.testing.ParametersProbePurpose", "--port", "0",
                     "--values-per-partition", "3"});
    ASSERT_FALSE(agent.url().empty()) << "the agent did not start";
    const json s = status_of(agent);
    EXPECT_EQ(s["callins"], json::parse(R"(["get", "set/v0", "set/v1", "set/v2", "set/v3"])"));
    // nat = range [0, 1000] with 3 values: both ends, then one seeded draw from inside.
    const json& nat = s["parameters"][0]["partitions"][1]["values"];
    ASSERT_EQ(nat.size(), 3u);
    EXPECT_EQ(nat[0], json::parse(R"({"input": "set/v1", "value": "0"})"));
    EXPECT_EQ(nat[1], json::parse(R"({"input": "set/v2", "value": "1000"})"));
    const std::string draw = nat[2]["value"];
    EXPECT_EQ(nat[2]["input"], "set/v3");
    EXPECT_GT(std::stol(draw), 0);
    EXPECT_LT(std::stol(draw), 1000);

    HttpDevice device(config_for(agent));
    const DeviceDescription d = device.describe();
    ASSERT_EQ(d.parameterised.size(), 1u);
    DeviceDescription::Parameterised expected;
    expected.callin = "set";
    expected.parameters = {{"n", "int"}};
    expected.partitions = {{"neg", "n < 0", {{"set/v0", "-1"}}},
                           {"nat", "n >= 0", {{"set/v1", "0"}, {"set/v2", "1000"}, {"set/v3", draw}}}};
    EXPECT_EQ(d.parameterised[0], expected);
    // Each input runs the callin with its value.
    EXPECT_EQ(run(device, {"set/v0"}), (std::vector<std::string>{"err"}));
    EXPECT_EQ(run(device, {"get"}), (std::vector<std::string>{"err"}));
    EXPECT_EQ(run(device, {"set/v3", "get"}), (std::vector<std::string>{"ok", "ok"}));
}

TEST(JvmParameters, ValuesAreDeterministicForASeed) {
    auto values = [](const std::string& seed) {
        JavaAgent agent({"--class-purpose", "typestar.testing.ParametersProbePurpose", "--port", "0",
                         "--parameter-seed", seed});
        EXPECT_FALSE(agent.url().empty());
        return agent.url().empty() ? json() : status_of(agent)["parameters"];
    };
    const json first = values("7");
    EXPECT_EQ(first[0]["partitions"][1]["values"].size(), 4u);  // the default: 4 per partition
    EXPECT_EQ(values("7"), first);
    EXPECT_NE(values("8"), first);  // other draws (the ends 0 and 1000 stay)
}

TEST(JvmParameters, ASamplerDrawsTheSameValuesForTheSameSeed) {
    auto values = [](const std::string& seed) {
        JavaAgent agent({"--class-purpose", "typestar.testing.ParametersProbePurpose$WithSampler", "--port", "0",
                         "--parameter-seed", seed, "--values-per-partition", "5"});
        EXPECT_FALSE(agent.url().empty());
        return agent.url().empty() ? json() : status_of(agent)["parameters"][0]["partitions"][0]["values"];
    };
    const json first = values("3");
    ASSERT_EQ(first.size(), 5u);  // 5 draws from 1000 numbers: distinct for this seed
    for (const auto& v : first) {
        const long n = std::stol(v["value"].get<std::string>());
        EXPECT_GE(n, 0);
        EXPECT_LT(n, 1000);
    }
    EXPECT_EQ(values("3"), first);
}

TEST(JvmParameters, InvalidDeclarationsStopTheAgentWithAMessage) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"DuplicatePartition", "class 'Cell': callin 'set', partition 'a' is declared twice"},
        {"SharedValue", "class 'Cell': callin 'set': value '0' is in partitions 'a' and 'b'"},
        {"BadName", "class 'Cell': callin 'set', partition 'n is small': a partition name is [A-Za-z0-9_.=<>!-]+"},
        {"NoPartition", "class 'Cell': parameterised callin 'set' has no partition"},
    };
    for (const auto& [purpose, message] : cases) {
        JavaAgent agent({"--class-purpose", "typestar.testing.ParametersProbePurpose$" + purpose, "--port", "0"});
        EXPECT_EQ(agent.wait_exit(), 1) << purpose;
        EXPECT_EQ(agent.error_output(), "typestar-agent: " + message + "\n") << purpose;
    }
    JavaAgent bad({"--class-purpose", "typestar.testing.ParametersProbePurpose", "--port", "0",
                   "--values-per-partition", "0"});
    EXPECT_EQ(bad.wait_exit(), 2);
}

TEST(JvmParameters, TheEnvironmentRoleIsDeclaredInTheStatus) {
    JavaAgent with({"--class-purpose", "typestar.testing.ParametersProbePurpose$WithEnvironment", "--port", "0"});
    ASSERT_FALSE(with.url().empty());
    EXPECT_EQ(status_of(with)["environment"], json::parse(R"(["get"])"));
    JavaAgent without({"--class-purpose", "typestar.testing.ParametersProbePurpose", "--port", "0"});
    ASSERT_FALSE(without.url().empty());
    EXPECT_FALSE(status_of(without).contains("environment"));  // additive: absent when none
}

TEST(JvmParameters, PipedOutputStreamAnswersLikeTheJdk) {
    JavaAgent agent({"--class-purpose", "typestar.jdk.PipedStreamParamsPurpose", "--port", "0"});
    ASSERT_FALSE(agent.url().empty());
    HttpDevice d(config_for(agent));
    ASSERT_EQ(d.describe().parameterised.size(), 2u);
    EXPECT_EQ(d.describe().parameterised[0].partitions[0].values,
              (std::vector<DeviceDescription::ValueInput>{
                  {"connect/v0", "null"}, {"connect/v1", "fresh sink"}, {"connect/v2", "connected sink"}}));
    using W = std::vector<std::string>;
    EXPECT_EQ(run(d, {"connect/v0"}), W{"err"});  // NullPointerException
    EXPECT_EQ(run(d, {"connect/v1", "write/v1"}), (W{"ok", "ok"}));
    EXPECT_EQ(run(d, {"connect/v2"}), W{"err"});  // "Already connected"
    EXPECT_EQ(run(d, {"write/v0"}), W{"err"});    // "Pipe not connected", also for len 0
    // After close, a zero-length write is still accepted (it returns before touching the sink); a
    // non-empty one is refused ("Pipe closed"): a split only the prefix connect·close shows.
    EXPECT_EQ(run(d, {"connect/v1", "close", "write/v0"}), (W{"ok", "ok", "ok"}));
    EXPECT_EQ(run(d, {"connect/v1", "close", "write/v1"}), (W{"ok", "ok", "err"}));
}

}  // namespace
}  // namespace typestar
