// `typestar suite SPEC --format json` tells test runners outside C++ (the node:test runner,
// device/node/lib/spec_tests.js) how the gtest plugin groups the suite: each test's `transition`
// and `states`, and every planned transition test with its access word, output and target. Checked
// against the plugin's own planning (gtest/plan.hpp) and the spec's machine, on the bundled specs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "node_support.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/gtest/plan.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;

Word word_over(const json& names, const Alphabet& alphabet) {
    Word w;
    for (const auto& n : names) w.push_back(alphabet.at(n.get<std::string>()));
    return w;
}

class SuiteJson : public ::testing::TestWithParam<std::string> {};

TEST_P(SuiteJson, GroupsEveryTestByItsTransitionAsTheGtestPluginDoes) {
    const std::string path = std::string(TYPESTAR_SOURCE_DIR) + "/" + GetParam();
    const auto r = node_testing::run_command({TYPESTAR_CLI_BIN, "suite", path, "--format", "json"}, {}, 120);
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    const spec::Spec s = spec::load_spec(path);
    const MealyMachine m = synchronous_closure(s.typestate);  // the machine the CLI's suite is of
    const auto plan = gtest::plan_transition_tests(s);

    for (const char* key : {"spec", "method", "bound", "inputs", "tests", "symbols", "waits"})
        EXPECT_TRUE(j.contains(key)) << key << ": the earlier keys stay (additive)";
    EXPECT_EQ(j.at("suite_name"), gtest::suite_identifier(s));
    ASSERT_EQ(j.at("transitions").size(), plan.size());
    std::map<std::string, std::size_t> slot_of;  // test name -> q·|inputs| + i
    std::vector<Word> access;
    for (const auto& a : access_sequences(m)) access.push_back(a.value_or(Word{}));
    for (std::size_t k = 0; k < plan.size(); ++k) {
        const json& t = j["transitions"][k];
        EXPECT_EQ(t.at("test"), plan[k].name);
        EXPECT_EQ(t.at("state"), plan[k].state);
        EXPECT_EQ(t.at("input"), plan[k].input);
        EXPECT_EQ(t.at("line"), plan[k].line);
        StateId q = m.initial();
        for (StateId x = 0; x < m.num_states(); ++x)
            if (m.state_name(x) == plan[k].state) q = x;
        const Symbol i = m.inputs().at(plan[k].input);
        slot_of[plan[k].name] = q * m.num_inputs() + i;
        EXPECT_EQ(t.at("output"), m.outputs().name(m.output(q, i)));
        EXPECT_EQ(t.at("target"), m.state_name(m.successor(q, i)));
        Word w = access[q];
        w.push_back(i);
        EXPECT_EQ(word_over(t.at("access"), m.inputs()), w) << plan[k].name;
        EXPECT_EQ(word_over(t.at("expected"), m.outputs()), m.outputs_of(w)) << plan[k].name;
        ASSERT_EQ(t.at("states").size(), w.size());
        EXPECT_EQ(t["states"].back(), plan[k].state);
    }

    // The same words as the suite the library generates, each in the group assign_cases gives it.
    SuiteConfig config;
    config.bound = j.at("bound");
    const TestSuite suite = generate_suite(m, config);
    ASSERT_EQ(j.at("tests").size(), suite.cases.size());
    const auto groups = gtest::assign_cases(m, access, suite);
    for (std::size_t c = 0; c < suite.cases.size(); ++c) {
        const json& t = j["tests"][c];
        ASSERT_EQ(word_over(t.at("inputs"), m.inputs()), suite.cases[c].inputs);
        StateId q = m.initial();
        for (std::size_t k = 0; k < suite.cases[c].inputs.size(); ++k) {
            EXPECT_EQ(t.at("states")[k], m.state_name(q));
            q = m.successor(q, suite.cases[c].inputs[k]);
        }
        ASSERT_TRUE(t.contains("transition")) << t.dump();
        const std::size_t slot = slot_of.at(t["transition"].get<std::string>());
        EXPECT_NE(std::find(groups[slot].begin(), groups[slot].end(), c), groups[slot].end()) << t.dump();
    }
}

INSTANTIATE_TEST_SUITE_P(BundledSpecs, SuiteJson,
                         ::testing::Values("specs/mediaplayer.yaml", "specs/asynctask.yaml",
                                           "specs/node/readable_stream.yaml", "examples/node_job/specs/job.yaml"),
                         [](const auto& p) { return gtest::test_identifier(p.param); });

}  // namespace
}  // namespace typestar
