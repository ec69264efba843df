// Devices with data (issue 18): the in-process purpose API for data, the model: device over
// register-automaton specs and RALib XML, the /v1 data round trip (agent + HttpDataDevice, and the
// raw protocol), and learning and checking through them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include "agent_access.hpp"
#include "support/child_process.hpp"
#include "support/data_purposes.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/device/data_device.hpp"
#include "typestar/device/data_purpose.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/device/http_data_device.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/device/simulated.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/learner.hpp"
#include "typestar/session/register_automata.hpp"
#include "typestar/ra/suite.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;
using testing_support::priority_queue_purpose;

const std::string kSpec = std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/std_priority_queue.yaml";
constexpr const char* kToken = "data-token-71";

std::string committed_spec() {
    std::ifstream in(kSpec);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// ---- the in-process purpose API ------------------------------------------------------------------

TEST(DataPurpose, TheMinQueueConformsAndIsLearnedAsTheCommittedSpec) {
    InProcessDataDevice device(priority_queue_purpose());
    const ra::RaSpec spec = ra::load_register_spec(kSpec);
    EXPECT_EQ(device.signature(), signature_of(spec.automaton));
    const auto result = ra::check_register_automaton(spec.automaton, device, {spec.distinguisher, 10000});
    EXPECT_FALSE(result.counterexample) << result.summary();
    const ra::RaLearnResult learned = ra::learn_register_automaton(device, device.signature());
    ASSERT_TRUE(learned.converged) << learned.failure;
    EXPECT_EQ(ra::write_register_spec({learned.hypothesis, 2, {}}), committed_spec());
}

TEST(DataPurpose, AMaxQueueFailsWithADataTrace) {
    InProcessDataDevice device(priority_queue_purpose<std::less<>>());
    const ra::RaSpec spec = ra::load_register_spec(kSpec);
    const auto result = ra::check_register_automaton(spec.automaton, device, {spec.distinguisher, 10000});
    ASSERT_TRUE(result.counterexample);
    const std::string trace = ra::format_trace(spec.automaton, *result.counterexample);
    EXPECT_NE(trace.find("3. poll -> out("), std::string::npos) << trace;
    EXPECT_NE(trace.find("<- expected out("), std::string::npos) << trace;
}

struct Box {
    ra::Value held = -1;
    std::shared_ptr<DataCallbackSink> sink;
};

DataPurpose<Box> box_purpose() {
    return std::move(DataPurpose<Box>("Box")
                         .reset([](const std::shared_ptr<DataCallbackSink>& sink) {
                             auto b = std::make_shared<Box>();
                             b->sink = sink;
                             return b;
                         })
                         .callin_with_callback("put", {{"v", ra::DataType::Id}},
                                               [](Box& b, std::span<const ra::Value> v) {
                                                   if (b.held >= 0) throw std::runtime_error("full");
                                                   b.held = v[0];
                                                   b.sink->emit("stored", {v[0]});
                                               })
                         .callin("take", {}, [](Box& b, std::span<const ra::Value>) {
                             if (b.held < 0) throw std::runtime_error("empty");
                             const ra::Value v = b.held;
                             b.held = -1;
                             return DataAnswer{"got", {v}};
                         })
                         .callback("stored", {{"v", ra::DataType::Id}})
                         .output("got", {{"v", ra::DataType::Id}})
                         .output("err"));
}

TEST(DataPurpose, CallbacksWithValuesAndRefusals) {
    InProcessDataDevice device(box_purpose().refused_as("err").build());
    device.reset();
    EXPECT_EQ(device.step({0, {7}}), (ra::DataSymbol{0, {7}}));  // stored(7), a callback
    EXPECT_EQ(device.step({0, {8}}), (ra::DataSymbol{2, {}}));   // full: refused, err
    EXPECT_EQ(device.step({1, {}}), (ra::DataSymbol{1, {7}}));   // got(7)
    EXPECT_EQ(device.step({1, {}}), (ra::DataSymbol{2, {}}));
    EXPECT_TRUE(device.signature().outputs[0].callback);
    EXPECT_THROW((void)device.step({0, {}}), DeviceError);       // wrong number of values
    EXPECT_THROW((void)device.step({5, {}}), DeviceError);       // no such input
}

TEST(DataPurpose, HarnessErrorsAreDeviceErrorsNeverOutputs) {
    InProcessDataDevice strict(box_purpose().build());  // no refused_as: a throw is a harness error
    strict.reset();
    EXPECT_THROW((void)strict.step({1, {}}), DeviceError);
    // A late callback from an ended instance is reported at the next step.
    std::shared_ptr<DataCallbackSink> kept;
    InProcessDataDevice late(DataPurpose<Box>("Late")
                                 .reset([&kept](const std::shared_ptr<DataCallbackSink>& sink) {
                                     kept = sink;
                                     return std::make_shared<Box>();
                                 })
                                 .callin("take", {}, [](Box&, std::span<const ra::Value>) { return DataAnswer{"got", {1}}; })
                                 .output("got", {{"v", ra::DataType::Id}})
                                 .build());
    late.reset();
    auto old = kept;
    late.reset();
    old->emit("got", {1});
    EXPECT_THROW((void)late.step({0, {}}), DeviceError);
    // An undeclared output, two outputs in one step.
    InProcessDataDevice wrong(DataPurpose<Box>("Wrong")
                                  .reset([](const std::shared_ptr<DataCallbackSink>& sink) {
                                      auto b = std::make_shared<Box>();
                                      b->sink = sink;
                                      return b;
                                  })
                                  .callin("a", {}, [](Box&, std::span<const ra::Value>) { return DataAnswer{"nope"}; })
                                  .callin("b", {}, [](Box& b, std::span<const ra::Value>) {
                                      b.sink->emit("ok");
                                      return DataAnswer{"ok"};
                                  })
                                  .output("ok")
                                  .build());
    wrong.reset();
    EXPECT_THROW((void)wrong.step({0, {}}), DeviceError);
    EXPECT_THROW((void)wrong.step({1, {}}), DeviceError);
}

TEST(DataPurpose, BuildRefusesBadDefinitions) {
    EXPECT_THROW((void)box_purpose().refused_as("got").build(), std::invalid_argument);  // has a parameter
    EXPECT_THROW((void)box_purpose().refused_as("missing").build(), std::invalid_argument);
    EXPECT_THROW((void)box_purpose().output("got").build(), std::invalid_argument);  // declared twice
    EXPECT_THROW((void)box_purpose().callin("take", {}, [](Box&, std::span<const ra::Value>) { return DataAnswer{}; }),
                 std::invalid_argument);
    EXPECT_THROW((void)DataPurpose<Box>("NoReset").callin("a", {}, [](Box&, std::span<const ra::Value>) {
                     return DataAnswer{"x"};
                 }).output("x").build(),
                 std::invalid_argument);
}

// ---- model: devices --------------------------------------------------------------------------------

TEST(ModelDataDevice, SimulatesRegisterAutomatonSpecsAndRalibXml) {
    EXPECT_TRUE(is_register_automaton_file(kSpec));
    EXPECT_FALSE(is_register_automaton_file(std::string(TYPESTAR_SOURCE_DIR) + "/specs/asynctask.yaml"));
    EXPECT_TRUE(is_data_model_url("model:" + kSpec));
    auto device = make_data_device("model:" + kSpec);
    EXPECT_EQ(device->name(), "model:" + kSpec);
    ASSERT_NE(device->truth(), nullptr);
    InProcessDataDevice real(priority_queue_purpose());
    const auto result = ra::check_register_automaton(*device->truth(), real, {2, 10000});
    EXPECT_FALSE(result.counterexample) << result.summary();
    const ra::RaLearnResult learned = ra::learn_register_automaton(*device, device->signature());
    ASSERT_TRUE(learned.converged) << learned.failure;
    EXPECT_FALSE(ra::separating_word(*device->truth(), learned.hypothesis, 4));

    const auto dir = std::filesystem::temp_directory_path() / "typestar_data_device_test";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "store.xml") << R"~(<?xml version="1.0" encoding="UTF-8" ?>
<register-automaton>
  <alphabet>
    <inputs><symbol name="IPut"><param type="int" name="p0"/></symbol><symbol name="IGet"/></inputs>
    <outputs><symbol name="OOK"/><symbol name="OVal"><param type="int" name="p0"/></symbol><symbol name="ONOK"/></outputs>
  </alphabet>
  <constants></constants>
  <globals><variable type="int" name="x">0</variable></globals>
  <locations><location name="s0" initial="true"/><location name="a"/><location name="s1"/><location name="b"/>
             <location name="c"/><location name="d"/></locations>
  <transitions>
    <transition from="s0" to="a" symbol="IPut" params="v"><assignments><assign to="x">v</assign></assignments></transition>
    <transition from="a" to="s1" symbol="OOK"/>
    <transition from="s0" to="b" symbol="IGet"/>
    <transition from="b" to="s0" symbol="ONOK"/>
    <transition from="s1" to="c" symbol="IGet"/>
    <transition from="c" to="s0" symbol="OVal" params="x"/>
    <transition from="s1" to="d" symbol="IPut" params="v"/>
    <transition from="d" to="s1" symbol="ONOK"/>
  </transitions>
</register-automaton>
)~";
    auto xml = make_data_device("model:" + (dir / "store.xml").string());
    xml->reset();
    EXPECT_EQ(xml->step({0, {42}}).symbol, 0U);
    EXPECT_EQ(xml->step({1, {}}), (ra::DataSymbol{1, {42}}));
    EXPECT_EQ(xml->step({1, {}}).symbol, 2U);
    EXPECT_TRUE(xml->assumptions().empty());  // RALib `int` is read as an id: typestar has that theory
    // RALib `double` has no typestar type: read as `int`, and the device names that reading.
    {
        std::ifstream in(dir / "store.xml");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (std::size_t at; (at = text.find("type=\"int\"")) != std::string::npos;) text.replace(at, 10, "type=\"DOUBLE\"");
        std::ofstream(dir / "real.xml") << text;
    }
    auto real_valued = make_data_device("model:" + (dir / "real.xml").string());
    ASSERT_EQ(real_valued->assumptions().size(), 1U);
    EXPECT_NE(real_valued->assumptions().front().find("RALib type DOUBLE of "), std::string::npos)
        << real_valued->assumptions().front();
    EXPECT_NE(real_valued->assumptions().front().find("real.xml is read as int"), std::string::npos)
        << real_valued->assumptions().front();
    EXPECT_EQ(real_valued->signature().inputs[0].params[0].type, ra::DataType::Int);
    std::ofstream(dir / "bad.yaml") << "typestar: 2\nkind: register-automaton\nname: x\ncallins: [a]\n";
    try {
        (void)make_data_device("model:" + (dir / "bad.yaml").string());
        ADD_FAILURE() << "a bad spec loaded";
    } catch (const SpecError& e) {
        ASSERT_FALSE(e.diagnostics().empty());
        EXPECT_NE(e.diagnostics().front().str().find("bad.yaml:"), std::string::npos) << e.diagnostics().front().str();
    }
    EXPECT_THROW((void)make_data_device("inproc:nothing"), std::invalid_argument);
    std::filesystem::remove_all(dir);
}

TEST(ModelDataDevice, AdaptsADeviceToASpecSignatureByName) {
    ra::RegisterAutomaton spec = signature_of(ra::load_register_spec(kSpec).automaton);
    std::swap(spec.inputs[0], spec.inputs[1]);
    std::swap(spec.outputs[0], spec.outputs[2]);
    InProcessDataDevice real(priority_queue_purpose());
    auto adapted = adapt_to_signature(spec, real);
    adapted->reset();
    EXPECT_EQ(adapted->step({1, {5}}), (ra::DataSymbol{2, {}}));  // offer(5) -> ok (index 2 in the spec)
    EXPECT_EQ(adapted->step({0, {}}), (ra::DataSymbol{0, {5}}));  // poll -> out(5)
    spec.inputs[1].params[0].type = ra::DataType::Id;
    try {
        (void)adapt_to_signature(spec, real);
        ADD_FAILURE() << "a mismatching signature was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("input 'offer' takes (int) on the device, (id) in the spec"),
                  std::string::npos)
            << e.what();
    }
}

// ---- /v1 with data --------------------------------------------------------------------------------

template <class Compare = std::greater<>>
std::unique_ptr<Agent> start_data_agent() {
    AgentConfig config;
    config.token = kToken;
    auto agent = std::make_unique<Agent>(
        DataDevices{[] { return std::make_unique<InProcessDataDevice>(priority_queue_purpose<Compare>()); }}, config);
    agent->start();
    return agent;
}

/// An agent serving a typestate device (the simulated MediaPlayer), started.
std::unique_ptr<Agent> start_mediaplayer_agent() {
    AgentConfig config;
    config.token = kToken;
    auto agent = std::make_unique<Agent>(AnyDevices{[] {
                                             return std::unique_ptr<Device>(std::make_unique<InProcessDevice>(
                                                 sim::find_simulated("mediaplayer")->make({})));
                                         }},
                                         config);
    agent->start();
    return agent;
}

HttpConfig data_config(const Agent& agent) {
    HttpConfig c;
    c.url = agent.url();
    c.token = kToken;
    return c;
}

TEST(DataProtocol, HttpDataDeviceLearnsAndChecksThroughAnAgent) {
    auto agent = start_data_agent();
    HttpDataDevice remote(data_config(*agent));
    EXPECT_EQ(remote.signature(), signature_of(ra::load_register_spec(kSpec).automaton));
    EXPECT_EQ(remote.describe().class_name, "std_priority_queue");
    EXPECT_EQ(remote.describe().framework, "libstdc++");
    EXPECT_TRUE(HttpDataDevice::serves_data(data_config(*agent)));
    const ra::RaSpec spec = ra::load_register_spec(kSpec);
    const auto result = ra::check_register_automaton(spec.automaton, remote, {spec.distinguisher, 10000});
    EXPECT_FALSE(result.counterexample) << result.summary();
    const ra::RaLearnResult learned = ra::learn_register_automaton(remote, remote.signature());
    ASSERT_TRUE(learned.converged) << learned.failure;
    EXPECT_EQ(ra::write_register_spec({learned.hypothesis, 2, {}}), committed_spec());
    EXPECT_GT(remote.requests(), 100U);

    auto mutant = start_data_agent<std::less<>>();
    HttpDataDevice wrong(data_config(*mutant));
    const auto failed = ra::check_register_automaton(spec.automaton, wrong, {spec.distinguisher, 10000});
    ASSERT_TRUE(failed.counterexample);
    EXPECT_EQ(failed.counterexample->inputs.size(), 3U);
}

TEST(DataProtocol, StatusDeclaresTypedParametersAndStepsCarryValues) {
    auto agent = start_data_agent();
    const std::string url = agent->url();
    auto status = testing_support::authorized_request(kToken, "GET", url + "/v1/status");
    ASSERT_EQ(status.status, 200);
    const json s = json::parse(status.body);
    EXPECT_EQ(s["data"]["inputs"][0], json::parse(R"({"name":"offer","parameters":[["p","int"]]})"));
    EXPECT_EQ(s["data"]["outputs"][2], json::parse(R"({"name":"out","parameters":[["v","int"]],"callback":false})"));
    EXPECT_EQ(s["callins"], json::parse(R"(["offer","poll"])"));

    auto created = testing_support::authorized_request(kToken, "POST", url + "/v1/sessions", "{}");
    ASSERT_EQ(created.status, 201);
    const std::string id = json::parse(created.body)["session"];
    auto step = [&](const std::string& body) {
        return testing_support::authorized_request(kToken, "POST", url + "/v1/sessions/" + id + "/callin", body);
    };
    auto r = step(R"({"seq":0,"callin":"offer","values":[9]})");
    EXPECT_EQ(json::parse(r.body), json::parse(R"({"seq":0,"output":"ok","values":[]})"));
    r = step(R"({"seq":0,"callin":"offer","values":[9]})");  // a retry: answered again, not run
    EXPECT_EQ(json::parse(r.body)["output"], "ok");
    r = step(R"({"seq":1,"callin":"offer"})");
    EXPECT_EQ(r.status, 400);
    EXPECT_NE(r.body.find("'offer' takes 1 values, got 0"), std::string::npos) << r.body;
    r = step(R"({"seq":1,"callin":"offer","values":["x"]})");
    EXPECT_EQ(r.status, 400);
    r = step(R"({"seq":1,"callin":"poll"})");
    EXPECT_EQ(json::parse(r.body), json::parse(R"({"seq":1,"output":"out","values":[9]})"));
    r = testing_support::authorized_request(kToken, "POST", url + "/v1/sessions/" + id + "/wait", R"({"seq":2})");
    EXPECT_EQ(r.status, 400);

    auto run = testing_support::authorized_request(
        kToken, "POST", url + "/v1/run",
        R"({"inputs":[{"callin":"offer","values":[3]},{"callin":"offer","values":[1]},"poll","poll","poll"]})");
    ASSERT_EQ(run.status, 200) << run.body;
    EXPECT_EQ(json::parse(run.body)["outputs"],
              json::parse(R"([{"output":"ok","values":[]},{"output":"ok","values":[]},{"output":"out","values":[1]},
                              {"output":"out","values":[3]},{"output":"nok","values":[]}])"));
    run = testing_support::authorized_request(kToken, "POST", url + "/v1/run", R"({"inputs":["push"]})");
    EXPECT_EQ(run.status, 400);
}

TEST(DataProtocol, ATypestateAgentIsNotADataDevice) {
    auto typestate_agent = start_mediaplayer_agent();
    const Agent& agent = *typestate_agent;
    EXPECT_FALSE(HttpDataDevice::serves_data(data_config(agent)));
    try {
        HttpDataDevice d(data_config(agent));
        ADD_FAILURE() << "a typestate agent was taken for a data device";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("serves no data device"), std::string::npos) << e.what();
    }
}

TEST(DeviceOpening, OneOpeningGivesEachAgentItsKindWithOneStatusRequest) {
    // issue 23 item 3: open_device reads /v1/status once and returns the device of that kind (the
    // CLI used to ask the agent, then open it, which asked again).
    auto data_agent = start_data_agent();
    auto mediaplayer = start_mediaplayer_agent();
    const Agent& typestate_agent = *mediaplayer;
    DeviceOptions options;
    options.http.token = kToken;
    OpenedDevice data = open_device(data_agent->url(), options);
    ASSERT_TRUE(data.data);
    EXPECT_FALSE(data.typestate);
    EXPECT_FALSE(data.data->signature().inputs.empty());
    OpenedDevice typestate = open_device(typestate_agent.url(), options);
    ASSERT_TRUE(typestate.typestate);
    EXPECT_FALSE(typestate.data);
    EXPECT_EQ(typestate.typestate->describe().class_name, "MediaPlayer");
    // A kind asked for and not served is an error naming it, never the other kind.
    EXPECT_THROW((void)open_device(typestate_agent.url(), options, DeviceKind::Data), DeviceError);
    try {
        (void)make_device(data_agent->url(), options);
        ADD_FAILURE() << "a data agent was taken for a typestate device";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("serves a data device"), std::string::npos) << e.what();
    }
    // Model files: a register automaton is a data device, a typestate spec a typestate device.
    EXPECT_TRUE(open_device("model:" + std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/std_priority_queue.yaml").data);
    EXPECT_TRUE(open_device("model:" + std::string(TYPESTAR_SOURCE_DIR) + "/specs/asynctask.yaml").typestate);
}

}  // namespace
}  // namespace typestar
