// The flake policy over HTTP /v1 (issue 39): the merging-flake device (tests/support/
// flaky_connection.hpp) served by the in-tree agent and learned through HttpDevice never yields a
// wrong spec — 30 seeds at 2% and 30 at 5%, each a correct spec or a NondeterminismError naming
// the word — and an HTTP device never declares itself deterministic.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <random>
#include <string>

#include "http_support.hpp"
#include "support/flaky_connection.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using namespace testing_support;

TEST(FlakePolicyOverHttp, AFlakeThatMergesTwoStatesNeverYieldsAWrongSpec) {
    const spec::Spec truth = flaky_connection_truth();
    for (const double rate : {0.02, 0.05}) {
        int right = 0, wrong = 0, nondeterminism = 0;
        std::string first_wrong;
        for (int seed = 1; seed <= 30; ++seed) {
            auto random = std::make_shared<std::mt19937_64>(seed);
            AgentConfig config;
            config.token = kToken;
            Agent agent(AnyDevices{[rate, random] { return std::make_unique<FlakyConnection>(rate, random); }}, config);
            agent.start();
            HttpConfig http;
            http.url = agent.url();
            http.token = kToken;
            HttpDevice remote(http);
            ASSERT_FALSE(remote.deterministic());  // a network answers what the agent's class did
            Device* devices[] = {&remote};
            try {
                const LearnedSpec learned = learn_spec(devices);
                if (learned.spec && spec::same_behaviour(*learned.spec, truth)) {
                    ++right;
                    EXPECT_NE(learned.flake_note.find("were run again past the cache"), std::string::npos)
                        << learned.flake_note;
                } else {
                    ++wrong;
                    if (first_wrong.empty())
                        first_wrong = "seed " + std::to_string(seed) + ":\n" +
                                      (learned.spec ? spec::write_spec(*learned.spec) : learned.not_a_closure);
                }
            } catch (const NondeterminismError& e) {
                ++nondeterminism;
                EXPECT_NE(std::string(e.what()).find("send"), std::string::npos) << e.what();  // names the word
            }
        }
        std::printf("over HTTP, merging flake at %.0f%%: %d right, %d wrong, %d NondeterminismError\n", rate * 100,
                    right, wrong, nondeterminism);
        EXPECT_EQ(wrong, 0) << "at " << rate << ": " << first_wrong;
        EXPECT_EQ(right + nondeterminism, 30);
        EXPECT_GT(right, 0);
    }
}

}  // namespace
}  // namespace typestar
