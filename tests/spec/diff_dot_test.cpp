// write_diff_dot: golden pictures of two upgrades, and agreement with diff_specs on random pairs.
#include "typestar/spec/diff_dot.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/random_typestate.hpp"
#include "support/reference_machines.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {
namespace {

const std::string kSource = TYPESTAR_SOURCE_DIR;
const std::string kFixtures = kSource + "/tests/spec/fixtures/dot/";

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Compares `actual` with the golden file; TYPESTAR_UPDATE_GOLDEN=1 rewrites the file instead.
void expect_golden(const std::string& actual, const std::string& name) {
    const std::string path = kFixtures + "golden/" + name;
    if (std::getenv("TYPESTAR_UPDATE_GOLDEN") != nullptr) {
        std::ofstream(path, std::ios::binary) << actual;
        GTEST_SKIP() << "rewrote " << path;
    }
    EXPECT_EQ(actual, read(path)) << "golden file " << path;
}

Spec spec_of(Typestate ts) {
    Spec s;
    s.typestate = std::move(ts);
    return s;
}

/// What a picture says, read back from its DOT text.
struct Picture {
    std::map<std::string, std::string> node_name;  ///< node id -> state name (first label line)
    std::set<std::string> coloured_ids;            ///< ids of red and green nodes
    std::set<std::string> red_nodes;               ///< state names
    std::set<std::string> green_nodes;
    /// (state name, symbol) per coloured edge out of a node that is neither red nor green; the
    /// symbol is the callin, or `wait` for callbacks and quiet.
    std::set<std::pair<std::string, std::string>> changed;
    std::size_t coloured_edges = 0;
    std::size_t edges = 0;
    std::size_t quiet_loops_of_one_side_states = 0;  ///< must stay 0: drawn as write_typestate_dot does
    bool same_behaviour_title = false;
};

Picture read_picture(const std::string& dot) {
    static const std::regex node(R"re(^  ([on]\d+) \[label="([^"]*)"(.*)\];$)re");
    static const std::regex edge(R"re(^  ([on]\d+) -> ([on]\d+) \[label="([^"]*)"(.*)\];$)re");
    Picture p;
    std::istringstream in(dot);
    std::vector<std::smatch> edge_lines;
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    for (const auto& line : lines) {
        std::smatch m;
        if (std::regex_match(line, m, node)) {
            std::string name = m[2];
            name = name.substr(0, name.find("\\n"));
            p.node_name[m[1]] = name;
            if (m[3].str().find("#cf222e") != std::string::npos) p.red_nodes.insert(name);
            if (m[3].str().find("#1a7f37") != std::string::npos) p.green_nodes.insert(name);
            if (m[3].str().find("color=") != std::string::npos) p.coloured_ids.insert(m[1]);
        }
        if (line.find("(same behaviour)") != std::string::npos) p.same_behaviour_title = true;
    }
    for (const auto& line : lines) {
        std::smatch m;
        if (!std::regex_match(line, m, edge)) continue;
        ++p.edges;
        if (m[4].str().find("color=") == std::string::npos) continue;
        ++p.coloured_edges;
        if (p.coloured_ids.count(m[1])) {
            if (m[1] == m[2] && m[3].str().find("quiet") != std::string::npos) ++p.quiet_loops_of_one_side_states;
            continue;
        }
        const std::string source = p.node_name.at(m[1]);
        std::string labels = m[3];
        std::size_t start = 0;
        while (start <= labels.size()) {
            std::size_t end = labels.find("\\n", start);
            if (end == std::string::npos) end = labels.size();
            std::string label = labels.substr(start + 2, end - start - 2);  // drop "+ " / "- "
            const bool callin = label.size() > 2 && label.compare(label.size() - 2, 2, "()") == 0;
            p.changed.insert({source, callin ? label.substr(0, label.size() - 2) : "wait"});
            start = end + 2;
        }
    }
    return p;
}

TEST(DiffDot, MediaPlayerAgainstAOneTransitionMutant) {
    const Spec old_spec = load_spec(kSource + "/specs/mediaplayer.yaml");
    const Spec new_spec = load_spec(kFixtures + "mediaplayer_prepare_mutant.yaml");
    const std::string dot = write_diff_dot(old_spec, new_spec);
    // The changed target is drawn as removed + added, and nothing else is coloured.
    EXPECT_NE(dot.find("  o6 -> o3 [label=\"- prepare()\" color=\"#cf222e\""), std::string::npos) << dot;
    EXPECT_NE(dot.find("  o6 -> o4 [label=\"+ prepare()\" color=\"#1a7f37\""), std::string::npos) << dot;
    const Picture p = read_picture(dot);
    EXPECT_EQ(p.coloured_edges, 2u);
    EXPECT_EQ(p.changed, (std::set<std::pair<std::string, std::string>>{{"Stopped", "prepare"}}));
    EXPECT_TRUE(p.red_nodes.empty());
    EXPECT_TRUE(p.green_nodes.empty());
    EXPECT_FALSE(p.same_behaviour_title);
    expect_golden(dot, "mediaplayer_prepare_mutant.diff.dot");
}

TEST(DiffDot, AsyncTaskWithAnAddedStateAndCallback) {
    const Spec old_spec = load_spec(kSource + "/specs/asynctask.yaml");
    const Spec new_spec = load_spec(kFixtures + "asynctask_pending.yaml");
    const std::string dot = write_diff_dot(old_spec, new_spec);
    const Picture p = read_picture(dot);
    EXPECT_EQ(p.green_nodes, (std::set<std::string>{"Running"}));  // the new typestate's Running
    EXPECT_TRUE(p.red_nodes.empty());
    // The old Running is paired with the new Pending (both reached by `execute`).
    EXPECT_NE(dot.find("[label=\"Running\\n(new: Pending)\"]"), std::string::npos) << dot;
    EXPECT_EQ(p.changed, (std::set<std::pair<std::string, std::string>>{{"Running", "wait"}}));
    expect_golden(dot, "asynctask_pending.diff.dot");
}

TEST(DiffDot, AStateOnlyTheOldTypestateReachesIsRedAndDashed) {
    const Typestate old_t = testing_support::async_task_typestate();
    Typestate new_t = old_t;
    const auto start = *new_t.find_state("Start");
    const auto cancel = static_cast<std::size_t>(std::find(new_t.callins.begin(), new_t.callins.end(), "cancel") -
                                                 new_t.callins.begin());
    ASSERT_LT(cancel, new_t.callins.size());
    new_t.states[start].callins[cancel].reset();  // cancel() refused before execute()
    const SpecDiff d = diff_specs(spec_of(old_t), spec_of(new_t));
    ASSERT_EQ(d.old_only_states.size(), 1u);
    const std::string dot = write_diff_dot(spec_of(old_t), spec_of(new_t));
    const Picture p = read_picture(dot);
    EXPECT_EQ(p.red_nodes, (std::set<std::string>{d.old_only_states[0].name}));
    EXPECT_NE(dot.find("style=dashed penwidth=2"), std::string::npos);
    EXPECT_TRUE(p.green_nodes.empty());
    EXPECT_NE(dot.find("[label=\"- cancel()\" color=\"#cf222e\""), std::string::npos) << dot;
}

TEST(DiffDot, SameBehaviourIsAllBlackAndSaysSo) {
    const Spec spec = load_spec(kSource + "/specs/mediaplayer.yaml");
    const std::string dot = write_diff_dot(spec, spec);
    const Picture p = read_picture(dot);
    EXPECT_EQ(p.coloured_edges, 0u);
    EXPECT_TRUE(p.red_nodes.empty());
    EXPECT_TRUE(p.green_nodes.empty());
    EXPECT_TRUE(p.same_behaviour_title);
    EXPECT_GT(p.edges, 20u);
}

TEST(DiffDot, MalformedTypestateIsRejected) {
    Typestate broken = testing_support::async_task_typestate();
    broken.states[0].callins.pop_back();
    EXPECT_THROW((void)write_diff_dot(spec_of(testing_support::async_task_typestate()), spec_of(broken)),
                 std::invalid_argument);
}

/// The picture colours exactly what diff_specs reports: one (state, symbol) per change, the old-only
/// states red, the new-only states green, nothing when the behaviour is the same.
TEST(DiffDot, AgreesWithDiffSpecsOnRandomPairs) {
    int compared = 0;
    std::size_t one_side_states = 0;
    for (std::uint64_t seed = 1; seed <= 80; ++seed) {
        const std::size_t callins = 1 + seed % 3;
        const Typestate a = testing_support::random_typestate(2 + seed % 7, callins, seed % 3, seed);
        // Half the pairs share the alphabet; the others differ in a callin or a callback.
        const Typestate b = testing_support::random_typestate(2 + (seed * 5) % 7, callins + (seed % 4 == 0 ? 1 : 0),
                                                              (seed + (seed % 4 == 1 ? 1 : 0)) % 3, seed + 1000);
        SCOPED_TRACE("seed " + std::to_string(seed));
        const SpecDiff d = diff_specs(spec_of(a), spec_of(b));
        const std::string dot = write_diff_dot(spec_of(a), spec_of(b));
        EXPECT_EQ(dot, write_diff_dot(spec_of(a), spec_of(b)));  // deterministic
        const Picture p = read_picture(dot);
        std::set<std::pair<std::string, std::string>> expected;
        for (const auto& c : d.changes) expected.insert({c.old_state, c.symbol});
        EXPECT_EQ(p.changed, expected) << dot << format_diff(d);
        std::set<std::string> old_only;
        for (const auto& s : d.old_only_states) old_only.insert(s.name);
        EXPECT_EQ(p.red_nodes, old_only) << dot << format_diff(d);
        std::set<std::string> new_only;
        for (const auto& s : d.new_only_states) new_only.insert(s.name);
        EXPECT_EQ(p.green_nodes, new_only) << dot << format_diff(d);  // every green node is in the text too
        EXPECT_EQ(p.same_behaviour_title, !d.witness.has_value());
        EXPECT_EQ(p.quiet_loops_of_one_side_states, 0u) << dot;
        one_side_states += p.red_nodes.size() + p.green_nodes.size();
        EXPECT_EQ(p.coloured_edges == 0 && p.red_nodes.empty() && p.green_nodes.empty(), !d.witness.has_value());
        compared += d.witness ? 1 : 0;
    }
    EXPECT_GT(compared, 60);
    EXPECT_GT(one_side_states, 40u);  // the pairs exercise red and green states, not only edges
}

}  // namespace
}  // namespace typestar::spec
