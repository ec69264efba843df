// The parameterised JDK targets learned with automatic alphabet refinement (PSYCO Algorithm 3,
// black box: typestar::learn_with_refinement) through the JVM agents of the CTest fixture
// `jvm_agents`: the learned text equals the committed v2 spec byte for byte, the committed spec
// passes DroidStar Algorithm 2 over its own partitions (every declared value runs), and a spec that
// puts a value in the wrong partition fails against the real JDK.
// Also the refinement-free baseline over the concrete values (specs/targets/*_concrete.yaml).
// Regenerate: TYPESTAR_WRITE_JVM_PARAMS=1 ctest -R JvmRefinement (writes specs/targets/java_*_params.yaml
// and java_*_concrete.yaml).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "jvm_support.hpp"
#include "jvm_targets.hpp"
#include "typestar/session/refinement.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using jvm_testing::jvm_target;

struct Target {
    const char* agent;     ///< the agent's name in the fixture (agents.sh)
    const char* spec;      ///< relative to the source tree: learned with refinement (v2)
    const char* concrete;  ///< learned over the concrete value inputs, no refinement (v1)
};

const Target kTargets[] = {
    {"java_piped_params", "specs/targets/java_piped_params.yaml", "specs/targets/java_piped_concrete.yaml"},
    {"java_signature_params", "specs/targets/java_signature_params.yaml", "specs/targets/java_signature_concrete.yaml"},
};

/// Stable test names and messages: the agent's name, not the struct's bytes.
void PrintTo(const Target& t, std::ostream* os) { *os << t.agent; }

std::string path_of(const Target& t) { return std::string(TYPESTAR_SOURCE_DIR) + "/" + t.spec; }

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

RefinedSpec learn(const Target& t, Device& device) {
    LearnOptions learn;
    learn.device_label = std::string("jvm:") + t.agent;  // not the agent's port: the text stays the same
    return learn_with_refinement(device, learn);
}

class JvmRefinement : public ::testing::TestWithParam<Target> {};

TEST_P(JvmRefinement, LearnsTheCommittedSpecByteForByte) {
    const Target& t = GetParam();
    const auto device = jvm_target(t.agent);
    const RefinedSpec r = learn(t, *device);
    const RefinementReport& rep = r.report;
    std::cout << t.agent << ": alphabet " << rep.initial_alphabet << " -> " << rep.final_alphabet << ", "
              << rep.refinements.size() << " refinements, " << r.learned.spec->typestate.states.size() << " states, "
              << "concrete runs requested " << rep.concrete_requested << " / executed " << rep.concrete_executed
              << " / reused across refinements " << rep.reused_across_refinements << ", unknown "
              << rep.unknown_transitions << ", learning rounds " << rep.learning_rounds << "\n";
    for (const auto& s : rep.refinements) {
        std::cout << "  split " << s.callin << "[" << s.from << "] after '" << s.split_by << "' into";
        for (const auto& p : s.into) std::cout << " " << p;
        std::cout << "\n";
    }
    if (std::getenv("TYPESTAR_WRITE_JVM_PARAMS") != nullptr) {
        spec::save_spec(*r.learned.spec, path_of(t));
        std::cout << "wrote " << path_of(t) << "\n";
    }
    EXPECT_EQ(r.text, read_file(path_of(t))) << "re-learned " << t.agent << " differs from " << t.spec;
    // Learning twice gives the same text (determinism, independent of the first run's cache).
    EXPECT_EQ(learn(t, *device).text, r.text);
}

TEST_P(JvmRefinement, LearnsTheConcreteSpecByteForByte) {
    // The refinement-free baseline: L# over every concrete value input (`callin/vK`) as a plain
    // callin (learn_spec; the CLI refines a parameterised device automatically).
    const Target& t = GetParam();
    const auto device = jvm_target(t.agent);
    LearnOptions learn;
    learn.device_label = std::string("jvm:") + t.agent;
    Device* devices[] = {device.get()};
    const LearnedSpec learned = learn_spec(devices, learn);
    ASSERT_TRUE(learned.spec.has_value()) << learned.not_a_closure;
    std::cout << t.agent << " over concrete values: " << learned.spec->typestate.callins.size() << " inputs, "
              << learned.spec->typestate.states.size() << " states, " << learned.stats.total().queries_executed
              << " queries executed (" << learned.stats.total().queries_asked << " asked)\n";
    const std::string path = std::string(TYPESTAR_SOURCE_DIR) + "/" + t.concrete;
    if (std::getenv("TYPESTAR_WRITE_JVM_PARAMS") != nullptr) spec::save_spec(*learned.spec, path);
    // What the search beyond the bound ran is the run's own provenance (it depends on the hypotheses
    // met on a device with real time); it must be recorded, and the rest is the committed text.
    EXPECT_FALSE(learned.spec->provenance.explored.empty());
    const auto without_explored = [](std::string text) {
        const auto at = text.find("\n  explored: ");
        if (at != std::string::npos) text.erase(at + 1, text.find('\n', at + 1) - at);
        return text;
    };
    EXPECT_EQ(without_explored(spec::write_spec(*learned.spec)), without_explored(read_file(path)))
        << "re-learned " << t.agent << " differs from " << t.concrete;
}

TEST_P(JvmRefinement, TheCommittedSpecPassesOverItsPartitions) {
    const Target& t = GetParam();
    const spec::Spec s = spec::load_spec(path_of(t));
    const auto device = jvm_target(t.agent);
    PartitionedDevice partitioned(*device, s.declarations);
    Device* devices[] = {&partitioned};
    const CheckReport check = check_spec(s, devices);
    EXPECT_EQ(check.verdict, Verdict::Pass) << check.reason;
    EXPECT_GT(check.tests, 0u);
    EXPECT_GT(partitioned.concrete_runs(), check.tests);  // several values per abstract word ran
}

INSTANTIATE_TEST_SUITE_P(Jdk, JvmRefinement, ::testing::ValuesIn(kTargets),
                         [](const auto& param_info) { return std::string(param_info.param.agent); });

TEST(JvmRefinementCheck, AValueInTheWrongPartitionFailsAgainstTheJdk) {
    spec::Spec s = spec::load_spec(path_of(kTargets[0]));
    // Move the null sink into the partition of the sink that connects.
    spec::CallinDeclaration* connect = nullptr;
    for (auto& d : s.declarations)
        if (d.name == "connect") connect = &d;
    ASSERT_NE(connect, nullptr);
    spec::Partition* with_null = nullptr;
    spec::Partition* with_fresh = nullptr;
    for (auto& p : connect->partitions) {
        for (const auto& v : p.values) {
            if (v == "null") with_null = &p;
            if (v == "fresh sink") with_fresh = &p;
        }
    }
    ASSERT_NE(with_null, nullptr);
    ASSERT_NE(with_fresh, nullptr);
    ASSERT_NE(with_null, with_fresh) << "refinement did not separate the null sink from a fresh one";
    std::erase(with_null->values, std::string("null"));
    with_fresh->values.push_back("null");
    if (with_null->values.empty()) with_null->values.push_back("connected sink");  // keep the spec well-formed
    const auto device = jvm_target(kTargets[0].agent);
    PartitionedDevice partitioned(*device, s.declarations);
    Device* devices[] = {&partitioned};
    EXPECT_THROW((void)check_spec(s, devices), PartitionError);
}

TEST(JvmRefinementHints, APartitionIsSplitOnlyByValuesThatRun) {
    // The values are the black box's hints: with one value per partition, write's range [0, 16]
    // gives only len = 0, so the split len = 0 / len > 0 after close is never seen, and the spec
    // says so honestly (write[any] = values ["0"]), where PSYCO's path conditions would find it.
    jvm_testing::JavaAgent agent({"--class-purpose", "typestar.jdk.PipedStreamParamsPurpose", "--port", "0",
                                  "--values-per-partition", "1"});
    ASSERT_FALSE(agent.url().empty()) << "the agent did not start";
    HttpConfig c;
    c.url = agent.url();
    c.token = jvm_testing::kToken;
    HttpDevice device(c);
    LearnOptions learn;
    learn.device_label = "jvm:java_piped_params (1 value per partition)";
    const RefinedSpec r = learn_with_refinement(device, learn);
    std::cout << "one value per partition: alphabet " << r.report.initial_alphabet << " -> "
              << r.report.final_alphabet << ", " << r.report.refinements.size() << " refinements, "
              << r.learned.spec->typestate.states.size() << " states, concrete runs executed "
              << r.report.concrete_executed << "\n";
    ASSERT_EQ(r.report.refinements.size(), 1u) << r.text;
    EXPECT_EQ(r.report.refinements[0].callin, "connect");
    EXPECT_NE(r.text.find("\"write(len: int)\":\n      partitions:\n        - {name: any, guard: \"true\", values: [\"0\"]}"),
              std::string::npos)
        << r.text;
}

}  // namespace
}  // namespace typestar
