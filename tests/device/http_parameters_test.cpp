// HttpDevice reads an agent's parameterised callins (/v1/status `parameters`, device/PROTOCOL.md)
// into DeviceDescription::parameterised, and refuses every other shape with a DeviceError naming
// the field: the readers on JSON values, and a fake agent through a real HttpDevice.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "http_answers.hpp"
#include "http_support.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/http_device.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;
using namespace testing_support;
using namespace std::chrono_literals;

const char* kParameterised = R"({"protocol":"typestar-device/1","agent":"fake","name":"Pipe","framework":"f-1",
    "callins":["close","connect/v0","connect/v1","connect/v2","write"],"callbacks":[],
    "timing":{"tmax_ms":10,"tmin_ms":0},"quiet_is_stable":true,
    "parameters":[{"callin":"connect","signature":[["snk","object"]],
                   "partitions":[{"name":"null","guard":"snk == null",
                                  "values":[{"input":"connect/v0","value":"null"}]},
                                 {"name":"nonnull","guard":"snk != null",
                                  "values":[{"input":"connect/v1","value":"fresh sink"},
                                            {"input":"connect/v2","value":"connected sink"}]}]}]})";

DeviceDescription::Parameterised expected_connect() {
    DeviceDescription::Parameterised p;
    p.callin = "connect";
    p.parameters = {{"snk", "object"}};
    p.partitions = {{"null", "snk == null", {{"connect/v0", "null"}}},
                    {"nonnull", "snk != null", {{"connect/v1", "fresh sink"}, {"connect/v2", "connected sink"}}}};
    return p;
}

std::string status_error(const std::function<void(json&)>& edit) {
    json s = json::parse(kParameterised);
    edit(s);
    try {
        (void)detail::read_status_answer(s, "device d");
    } catch (const DeviceError& e) {
        return e.what();
    }
    return "accepted";
}

TEST(StatusParameters, AreReadInOrderWithTheirValues) {
    const detail::StatusAnswer s = detail::read_status_answer(json::parse(kParameterised), "device d");
    ASSERT_EQ(s.status.parameters.size(), 1u);
    EXPECT_EQ(s.status.parameters[0], expected_connect());
    // The concrete values stay ordinary inputs.
    EXPECT_EQ(s.inputs.names(),
              (std::vector<std::string>{"close", "connect/v0", "connect/v1", "connect/v2", "write", "wait"}));
}

TEST(StatusParameters, AbsentOrEmptyMeansNone) {
    json s = json::parse(kParameterised);
    s.erase("parameters");
    EXPECT_TRUE(detail::read_status_answer(s, "device d").status.parameters.empty());
    s["parameters"] = json::array();
    EXPECT_TRUE(detail::read_status_answer(s, "device d").status.parameters.empty());
    // A callin without parameters (empty signature) is a legal declaration.
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["signature"] = json::array(); }), "accepted");
}

TEST(StatusParameters, EveryMalformationNamesItsField) {
    const std::string m = "device d: malformed status: ";
    EXPECT_EQ(status_error([](json& j) { j["parameters"] = json::object(); }),
              m + "parameters must be an array of parameterised callins");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0] = 3; }), m + "parameters[0] must be an object");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0].erase("callin"); }),
              m + "parameters[0].callin must be a string");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["callin"] = "close"; }),
              m + "parameters[0].callin \"close\" is also a device input (only its concrete values are inputs)");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["callin"] = "wait"; }),
              m + "parameters[0].callin \"wait\" is not a callin name");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["callin"] = ""; }),
              m + "parameters[0].callin \"\" is not a callin name");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["callin"] = "con\x1bnect"; }),
              m + "parameters[0].callin \"con\\u001bnect\" has control characters");
    EXPECT_EQ(status_error([](json& j) { j["parameters"].push_back(j["parameters"][0]); }),
              m + "parameters[1].callin \"connect\" is declared twice");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["signature"] = "snk"; }),
              m + "parameters[0].signature must be an array of [name, type] pairs");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["signature"][0] = json::array({"snk"}); }),
              m + "parameters[0].signature[0] [\"snk\"] is not a [name, type] pair of strings");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["signature"][0][1] = "PipedInputStream"; }),
              m + "parameters[0].signature[0] type \"PipedInputStream\" is not int, id, object, bytes, string or bool");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["signature"][0][0] = "1snk"; }),
              m + "parameters[0].signature[0] parameter name \"1snk\" is not [A-Za-z_][A-Za-z0-9_]*");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["signature"].push_back(json::array({"snk", "int"})); }),
              m + "parameters[0].signature[1] parameter name \"snk\" is used twice");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["partitions"] = json::array(); }),
              m + "parameters[0].partitions must be a non-empty array of partitions");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["partitions"][1]["name"] = "non null"; }),
              m + "parameters[0].partitions[1].name \"non null\" is not [A-Za-z0-9_.=<>!-]+");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["partitions"][1]["name"] = "null"; }),
              m + "parameters[0].partitions[1].name \"null\" is used twice in callin \"connect\"");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["partitions"][0].erase("guard"); }),
              m + "parameters[0].partitions[0].guard must be a string");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["partitions"][0]["values"] = json::array(); }),
              m + "parameters[0].partitions[0].values must be a non-empty array of {input, value}");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["partitions"][0]["values"][0]["value"] = 0; }),
              m + "parameters[0].partitions[0].values[0].value must be a string");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["partitions"][0]["values"][0]["input"] = "connect/v9"; }),
              m + "parameters[0].partitions[0].values[0].input \"connect/v9\" is not one of callins");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["partitions"][0]["values"][0]["input"] = "write"; }),
              m + "parameters[0].partitions[0].values[0].input \"write\" is not named \"connect/label\"");
    EXPECT_EQ(status_error([](json& j) { j["parameters"][0]["partitions"][1]["values"][1]["input"] = "connect/v0"; }),
              m + "parameters[0].partitions[1].values[1].input \"connect/v0\" is listed twice (first at "
                  "parameters[0].partitions[0].values[0])");
}

TEST(StatusParameters, AFakeAgentsDeclarationReachesTheDeviceDescription) {
    HttpConfig c;
    const auto agent = fake_agent(kParameterised);
    c.url = "http://127.0.0.1:" + std::to_string(agent->port());
    c.token = kToken;
    const HttpDevice device(c);
    const DeviceDescription d = device.describe();
    ASSERT_EQ(d.parameterised.size(), 1u);
    EXPECT_EQ(d.parameterised[0], expected_connect());
    EXPECT_EQ(d.class_name, "Pipe");

    // A malformed declaration: the device is refused at construction, naming the field.
    json bad = json::parse(kParameterised);
    bad["parameters"][0]["partitions"][0]["values"][0]["input"] = "connect/v7";
    const auto bad_agent = fake_agent(bad.dump());
    c.url = "http://127.0.0.1:" + std::to_string(bad_agent->port());
    try {
        HttpDevice refused(c);
        ADD_FAILURE() << "a malformed parameters field was accepted";
    } catch (const DeviceError& e) {
        EXPECT_EQ(std::string(e.what()), "device " + c.url +
                                             ": malformed status: parameters[0].partitions[0].values[0].input "
                                             "\"connect/v7\" is not one of callins");
    }
}

TEST(StatusParameters, TheCppAgentsDeclarationReadsBackAsTheInProcessDevicesOwn) {
    // Both sides of the protocol: typestar::Agent writes `parameters` from an in-process class,
    // HttpDevice reads them back into the same DeviceDescription::parameterised.
    const auto entry = sim::find_simulated("pipedoutputstream");
    ASSERT_TRUE(entry);
    InProcessConfig ic;
    ic.variants = entry->variants;
    const InProcessDevice local(entry->make(fast_options()), ic);
    ASSERT_FALSE(local.describe().parameterised.empty());
    auto agent = start_agent("pipedoutputstream");
    const HttpDevice remote(http_config(*agent));
    EXPECT_EQ(remote.describe().parameterised, local.describe().parameterised);
    EXPECT_EQ(remote.inputs().names(), local.inputs().names());
}

}  // namespace
}  // namespace typestar
