// `typestar suite SPEC --format json` tells test runners outside C++ (the node:test runner,
// device/node/lib/spec_tests.js; the JUnit runner) how the gtest plugin groups the suite: each
// word's `states`, and per planned transition test (`transitions`) its words (indices into `tests`,
// or its own access word), output, target, state's access word and whether it is unknown. Checked
// against the plugin's own planning (gtest/plan.hpp) and the spec's machine, on bundled specs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "node_support.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/session.hpp"
#include "typestar/session/test_plan.hpp"
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
    const auto plan = typestar::plan_transition_tests(s);

    for (const char* key : {"spec", "method", "bound", "inputs", "tests", "symbols", "waits"})
        EXPECT_TRUE(j.contains(key)) << key << ": the earlier keys stay (additive)";
    EXPECT_EQ(j.at("test_suite"), typestar::suite_identifier(s));
    ASSERT_EQ(j.at("transitions").size(), plan.size());
    std::vector<Word> access;
    for (const auto& a : access_sequences(m)) access.push_back(a.value_or(Word{}));
    SuiteConfig config;
    config.bound = j.at("bound");
    const TestSuite suite = generate_suite(m, config);  // the library's suite: the same words
    ASSERT_EQ(j.at("tests").size(), suite.cases.size());
    for (std::size_t c = 0; c < suite.cases.size(); ++c) {
        const json& t = j["tests"][c];
        ASSERT_EQ(word_over(t.at("inputs"), m.inputs()), suite.cases[c].inputs);
        StateId q = m.initial();
        for (std::size_t k = 0; k < suite.cases[c].inputs.size(); ++k) {
            EXPECT_EQ(t.at("states")[k], m.state_name(q));
            q = m.successor(q, suite.cases[c].inputs[k]);
        }
    }
    const auto groups = typestar::assign_cases(m, access, suite);
    std::vector<char> assigned(suite.cases.size(), 0);
    for (std::size_t k = 0; k < plan.size(); ++k) {
        const json& t = j["transitions"][k];
        EXPECT_EQ(t.at("name"), plan[k].name);
        EXPECT_EQ(t.at("state"), plan[k].state);
        EXPECT_EQ(t.at("input"), plan[k].input);
        EXPECT_EQ(t.at("line"), plan[k].line);
        StateId q = m.initial();
        for (StateId x = 0; x < m.num_states(); ++x)
            if (m.state_name(x) == plan[k].state) q = x;
        const Symbol i = m.inputs().at(plan[k].input);
        EXPECT_EQ(t.at("output"), m.outputs().name(m.output(q, i)));
        EXPECT_EQ(t.at("target"), m.state_name(m.successor(q, i)));
        EXPECT_EQ(word_over(t.at("access"), m.inputs()), access[q]) << plan[k].name;
        const auto state = s.typestate.find_state(plan[k].state);
        const auto callin = std::find(s.typestate.callins.begin(), s.typestate.callins.end(), plan[k].input);
        const bool unknown = state && callin != s.typestate.callins.end() &&
                             s.typestate.unknown_at(*state, static_cast<std::size_t>(callin - s.typestate.callins.begin()));
        EXPECT_EQ(t.contains("unknown"), unknown) << plan[k].name;
        const auto& group = groups[q * m.num_inputs() + i];
        EXPECT_EQ(t.at("tests").get<std::vector<std::size_t>>(), group) << plan[k].name;
        for (std::size_t c : group) assigned[c] = 1;
        if (group.empty()) {  // the access word and input alone
            Word w = access[q];
            w.push_back(i);
            EXPECT_EQ(word_over(t.at("word").at("inputs"), m.inputs()), w) << plan[k].name;
            EXPECT_EQ(word_over(t["word"].at("expected"), m.outputs()), m.outputs_of(w)) << plan[k].name;
            ASSERT_EQ(t["word"].at("states").size(), w.size());
            EXPECT_EQ(t["word"]["states"].back(), plan[k].state);
        } else {
            EXPECT_FALSE(t.contains("word"));
        }
    }
    // Every word of the suite checks some transition (none is lost between the tests).
    for (std::size_t c = 0; c < suite.cases.size(); ++c)
        EXPECT_TRUE(assigned[c] || suite.cases[c].inputs.empty()) << "word " << c << " is in no transition's test";
}

TEST_P(SuiteJson, ListsEveryWayIntoAQuietStateForTheQuiescenceDoubleCheck) {
    // `quiet_checks`: the words `typestar check` double-checks (confirm_quiescence), so that the
    // JUnit and node:test runners check the same: each quiet state's access word and the access
    // word of every non-refused transition into a quiet state, each once, with the state it reaches.
    const std::string path = std::string(TYPESTAR_SOURCE_DIR) + "/" + GetParam();
    const auto r = node_testing::run_command({TYPESTAR_CLI_BIN, "suite", path, "--format", "json"}, {}, 120);
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    const MealyMachine m = synchronous_closure(spec::load_spec(path).typestate);
    ASSERT_TRUE(j.contains("quiet_checks"));
    EXPECT_EQ(j["quiet_checks"].at("factor"), CheckOptions{}.quiet_check_factor);
    std::vector<Word> access;
    for (const auto& a : access_sequences(m)) access.push_back(a.value_or(Word{}));
    const auto wait = m.inputs().find(std::string(kWait));
    const auto quiet = m.outputs().find(std::string(kQuiet));
    const auto err = m.outputs().find(std::string(kErr));
    std::set<Word> expected;
    if (wait && quiet) {
        const auto quiet_state = [&](StateId q) { return m.output(q, *wait) == *quiet; };
        for (StateId q = 0; q < m.num_states(); ++q)
            if (access_sequences(m)[q] && quiet_state(q)) expected.insert(access[q]);
        for (StateId p = 0; p < m.num_states(); ++p) {
            if (!access_sequences(m)[p]) continue;
            for (Symbol i = 0; i < m.num_inputs(); ++i) {
                if ((err && m.output(p, i) == *err) || !quiet_state(m.successor(p, i))) continue;
                Word w = access[p];
                w.push_back(i);
                expected.insert(w);
            }
        }
    }
    std::set<Word> listed;
    for (const json& w : j["quiet_checks"].at("words")) {
        const Word word = word_over(w.at("inputs"), m.inputs());
        EXPECT_TRUE(listed.insert(word).second) << "listed twice: " << w.dump();
        StateId q = m.initial();
        for (std::size_t k = 0; k < word.size(); ++k) {
            EXPECT_EQ(w.at("states")[k], m.state_name(q));
            q = m.successor(q, word[k]);
        }
        EXPECT_EQ(w.at("state"), m.state_name(q)) << w.dump();
    }
    EXPECT_EQ(listed, expected);
}

INSTANTIATE_TEST_SUITE_P(BundledSpecs, SuiteJson,
                         ::testing::Values("specs/mediaplayer.yaml", "specs/asynctask.yaml",
                                           "specs/node/readable_stream.yaml", "examples/node_job/specs/job.yaml",
                                           "tests/spec/fixtures/good/params_v2.yaml"),
                         [](const auto& p) { return typestar::test_identifier(p.param); });

}  // namespace
}  // namespace typestar
