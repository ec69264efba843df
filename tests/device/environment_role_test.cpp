// The environment role through learning (issue 13, point 8): a learning purpose's environment
// callins are part of what the in-process device and an agent's /v1/status describe, and learning
// (learn_spec, propose) writes them as `role: environment` into the spec, which stays version 1
// when there are none.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "http_support.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using namespace std::chrono_literals;
using namespace testing_support;

/// An inbox: the client opens it, takes messages and closes it; the peer delivers (at most one
/// message waits at a time, and only into an open inbox). Synchronous: no callbacks.
struct Inbox {
    bool open = false;
    bool closed = false;
    int messages = 0;
};

ClassDefinition inbox(bool deliver_is_environment) {
    LearningPurpose<Inbox> p("Inbox");
    p.framework("inbox-1")
        .reset([](const std::shared_ptr<CallbackSink>&) { return std::make_shared<Inbox>(); })
        .callin("open",
                [](Inbox& b) {
                    if (b.open || b.closed) throw std::logic_error("open: not closed");
                    b.open = true;
                })
        .callin("deliver",
                [](Inbox& b) {
                    if (!b.open || b.messages > 0) throw std::logic_error("deliver: not open, or full");
                    ++b.messages;
                })
        .callin("take",
                [](Inbox& b) {
                    if (!b.open || b.messages == 0) throw std::logic_error("take: nothing to take");
                    --b.messages;
                })
        .callin("close",
                [](Inbox& b) {
                    if (!b.open) throw std::logic_error("close: not open");
                    b.open = false;
                    b.closed = true;
                })
        .timing({5ms, 0ms})
        .quiet_is_stable();
    if (deliver_is_environment) p.environment("deliver");
    return p.build();
}

LearnOptions options() {
    LearnOptions o;
    o.equivalence.bound = 2;
    return o;
}

spec::Spec learned_spec(Device& device) {
    Device* devices[] = {&device};
    LearnedSpec learned = learn_spec(devices, options());
    if (!learned.spec) throw std::runtime_error("not a closure: " + learned.not_a_closure);
    return *learned.spec;
}

TEST(EnvironmentRole, TheInProcessDeviceDescribesThePurposesEnvironmentInputs) {
    InProcessDevice with(inbox(true));
    EXPECT_EQ(with.describe().environment, (std::vector<std::string>{"deliver"}));
    InProcessDevice without(inbox(false));
    EXPECT_TRUE(without.describe().environment.empty());
}

TEST(EnvironmentRole, LearningWritesTheRoleAndReadsItBack) {
    InProcessDevice device(inbox(true));
    const spec::Spec learned = learned_spec(device);
    ASSERT_EQ(learned.declarations.size(), 1u);
    EXPECT_EQ(learned.declarations[0].name, "deliver");
    EXPECT_TRUE(learned.declarations[0].environment);
    EXPECT_TRUE(learned.typestate.info("deliver").environment);
    EXPECT_FALSE(learned.typestate.info("take").environment);

    const std::string text = spec::write_spec(learned);
    EXPECT_EQ(text.rfind("typestar: 2\n", 0), 0u) << text;
    EXPECT_NE(text.find("  - deliver: {role: environment}\n"), std::string::npos) << text;
    EXPECT_NE(text.find("  - take\n"), std::string::npos) << text;

    const spec::Spec read = spec::parse_spec(text, "inbox.yaml");
    EXPECT_EQ(read.declarations, learned.declarations);
    EXPECT_TRUE(read.typestate.info("deliver").environment);
    EXPECT_TRUE(spec::same_behaviour(read, learned));
    EXPECT_EQ(spec::write_spec(read), text);  // canonical: the round trip is byte for byte
}

TEST(EnvironmentRole, WithoutEnvironmentInputsTheLearnedSpecStaysVersion1) {
    InProcessDevice with(inbox(true));
    InProcessDevice without(inbox(false));
    const spec::Spec role = learned_spec(with);
    const spec::Spec plain = learned_spec(without);
    EXPECT_TRUE(plain.declarations.empty());
    EXPECT_FALSE(plain.uses_version2());
    const std::string text = spec::write_spec(plain);
    EXPECT_EQ(text.rfind("typestar: 1\n", 0), 0u) << text;
    EXPECT_EQ(text.find("role"), std::string::npos) << text;
    EXPECT_NE(text.find("callins: [close, deliver, open, take]\n"), std::string::npos) << text;
    // The role changes nothing else: the same callins, states and transitions either way.
    EXPECT_EQ(role.typestate.callins, plain.typestate.callins);
    EXPECT_EQ(canonical(role.typestate).states, canonical(plain.typestate).states);
}

TEST(EnvironmentRole, ReLearningAStoredSpecKeepsTheRole) {
    InProcessDevice device(inbox(true));
    const spec::Spec stored = learned_spec(device);
    Device* devices[] = {&device};
    const LearnedSpec again = propose(&stored, devices, options());
    ASSERT_TRUE(again.spec.has_value());
    EXPECT_EQ(again.spec->declarations, stored.declarations);
    // What each run searched beyond the bound is that run's provenance; the rest is the same text.
    spec::Spec same = *again.spec;
    same.provenance.explored = stored.provenance.explored;
    EXPECT_EQ(spec::write_spec(same), spec::write_spec(stored));
}

TEST(EnvironmentRole, AnAgentServesItInItsStatusAndLearningThroughHttpRecordsIt) {
    AgentConfig config;
    config.token = kToken;
    Agent agent([] { return std::make_unique<InProcessDevice>(inbox(true)); }, config);
    agent.start();
    const RawReply status = authorized("GET", agent.url() + "/v1/status");
    ASSERT_EQ(status.status, 200) << status.body;
    EXPECT_EQ(nlohmann::json::parse(status.body).at("environment"), nlohmann::json::array({"deliver"}));

    HttpDevice remote(http_config(agent));
    EXPECT_EQ(remote.status().environment, (std::vector<std::string>{"deliver"}));
    EXPECT_EQ(remote.describe().environment, (std::vector<std::string>{"deliver"}));
    const spec::Spec over_http = learned_spec(remote);
    InProcessDevice local(inbox(true));
    const spec::Spec in_process = learned_spec(local);
    EXPECT_EQ(over_http.declarations, in_process.declarations);
    EXPECT_EQ(spec::write_spec(over_http).substr(0, spec::write_spec(over_http).find("provenance:")),
              spec::write_spec(in_process).substr(0, spec::write_spec(in_process).find("provenance:")));
}

TEST(EnvironmentRole, AnAgentWithoutEnvironmentInputsLeavesTheFieldOut) {
    AgentConfig config;
    config.token = kToken;
    Agent agent([] { return std::make_unique<InProcessDevice>(inbox(false)); }, config);
    agent.start();
    const RawReply status = authorized("GET", agent.url() + "/v1/status");
    ASSERT_EQ(status.status, 200) << status.body;
    EXPECT_FALSE(nlohmann::json::parse(status.body).contains("environment")) << status.body;
    HttpDevice remote(http_config(agent));
    EXPECT_TRUE(remote.describe().environment.empty());
}

}  // namespace
}  // namespace typestar
