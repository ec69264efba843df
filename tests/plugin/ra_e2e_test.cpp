// End-to-end tests of the plugin's register-automaton tests: run plugin_ra_subject (std::priority_queue
// through the data purpose API against specs/ra/std_priority_queue.yaml) as the min-queue (every
// test passes) and as a max-queue (tests fail with the data trace, expected vs observed, and a
// proposal with the separating data trace), in a temporary directory.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/child_process.hpp"
#include "typestar/device/http_data_device.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/suite.hpp"

namespace fs = std::filesystem;

namespace {

struct Outcome {
    int code = -1;
    std::string out;
};

/// Runs `subject` (shell text: a quoted binary and its arguments) with the environment `env`
/// (shell assignments), its stderr with its stdout.
Outcome run(const std::string& env, const std::string& subject = "'" RA_SUBJECT "'") {
    const std::string cmd = "env -u CI -u TYPESTAR_DEVICE -u TYPESTAR_BOUND -u TYPESTAR_UPDATE -u GTEST_FILTER " + env +
                            " " + subject + " 2>&1";
    Outcome o;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return o;
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) o.out.append(buf, n);
    const int status = pclose(p);
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return o;
}

class PluginRa : public testing::Test {
protected:
    void SetUp() override {
        std::string templ = (fs::temp_directory_path() / "typestar-plugin-ra-XXXXXX").string();
        ASSERT_NE(mkdtemp(templ.data()), nullptr);
        dir_ = templ;
        fs::copy_file(std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/std_priority_queue.yaml", dir_ / "pq.yaml");
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST_F(PluginRa, TheMinQueuePassesOneTestPerTransition) {
    const Outcome o = run("TYPESTAR_RA_SUBJECT_SPEC='" + (dir_ / "pq.yaml").string() + "'");
    EXPECT_EQ(o.code, 0) << o.out;
    EXPECT_NE(o.out.find("[  PASSED  ] 24 tests."), std::string::npos) << o.out;  // 24 transitions, all exercised
    EXPECT_NE(o.out.find("[       OK ] std_priority_queue.l1_offer_2"), std::string::npos) << o.out;
    EXPECT_FALSE(fs::exists(dir_ / "pq.proposed.yaml"));
}

TEST_F(PluginRa, TheDeprecatedMacroRegistersTheSameTests) {
    const Outcome o = run("TYPESTAR_RA_SUBJECT_SPEC='" + (dir_ / "pq.yaml").string() + "'", "'" RA_DEPRECATED_SUBJECT "'");
    EXPECT_EQ(o.code, 0) << o.out;
    EXPECT_NE(o.out.find("[  PASSED  ] 24 tests."), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("[       OK ] std_priority_queue.l1_offer_2"), std::string::npos) << o.out;
}

TEST_F(PluginRa, AMaxQueueFailsWithTheDataTraceAndAProposal) {
    const Outcome o =
        run("TYPESTAR_RA_SUBJECT_QUEUE=max TYPESTAR_RA_SUBJECT_SPEC='" + (dir_ / "pq.yaml").string() + "'");
    EXPECT_EQ(o.code, 1) << o.out;
    // The failure names the spec's line, the data trace, expected vs observed.
    EXPECT_TRUE(std::regex_search(o.out, std::regex(R"(pq\.yaml:\d+: Failure)"))) << o.out;
    EXPECT_NE(o.out.find("the device does not conform to the register automaton"), std::string::npos) << o.out;
    EXPECT_TRUE(std::regex_search(o.out, std::regex(R"(\n +3 +\S+ +poll +out\(-?\d+\) +out\(-?\d+\) +<- differs)")))
        << o.out;
    // What ran, from the session: the learner, B as used, the equivalence oracle's words, the assumptions.
    EXPECT_NE(o.out.find("Re-learned with SL* (from scratch), every data word of up to 2 steps"), std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("transitions, bound 2; "), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("The learned spec relies on:\n  - the device's (location, register order type) states are "
                         "told apart by data words of length <= 2"),
              std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("Shortest separating data trace, stored spec vs proposal"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("Reproduce: "), std::string::npos) << o.out;
    ASSERT_TRUE(fs::exists(dir_ / "pq.proposed.yaml"));
    std::ifstream in(dir_ / "pq.proposed.yaml");
    std::stringstream s;
    s << in.rdbuf();
    EXPECT_NE(s.str().find("kind: register-automaton"), std::string::npos);
    // Tests of transitions the max-queue still follows pass (poll on an empty queue).
    EXPECT_NE(o.out.find("[       OK ] std_priority_queue.l0_poll"), std::string::npos) << o.out;
}

TEST_F(PluginRa, AFailureIsSharedAcrossProcessesItsReproduceLineRunsAndAcceptTakesTheProposal) {
    const std::string spec = (dir_ / "pq.yaml").string();
    const std::string env = "TYPESTAR_RA_SUBJECT_QUEUE=max TYPESTAR_RA_SUBJECT_SPEC='" + spec + "'";
    const Outcome first = run(env);
    EXPECT_EQ(first.code, 1) << first.out;
    // The proposal is accepted with `typestar accept`, as a typestate's; no renaming by hand.
    EXPECT_NE(first.out.find("Review it, then accept it:\n    typestar accept " + spec + "\n"), std::string::npos)
        << first.out;
    EXPECT_EQ(first.out.find("rename it"), std::string::npos) << first.out;
    // Another test process of the run (same binary, device and spec) reuses the proposal under the lock.
    const Outcome second = run(env);
    EXPECT_EQ(second.code, 1) << second.out;
    EXPECT_NE(second.out.find("Re-learned by another test process of this run: "), std::string::npos) << second.out;
    EXPECT_NE(second.out.find("(learned once for this spec and change, by std_priority_queue."), std::string::npos)
        << second.out;
    EXPECT_EQ(second.out.find("Re-learned with SL*"), std::string::npos) << second.out;
    // The reproduce line runs: the same binary served through exec:, the same difference.
    std::smatch reproduce;
    ASSERT_TRUE(std::regex_search(first.out, reproduce, std::regex(R"(Reproduce: typestar (check [^\n]+ --bound 2)\n)")))
        << first.out;
    EXPECT_NE(reproduce[1].str().find("--device 'exec:" + std::string(RA_SUBJECT) + "#std_priority_queue'"),
              std::string::npos)
        << reproduce[1].str();
    const Outcome rerun = run(env, "'" TYPESTAR_CLI "' " + reproduce[1].str());
    EXPECT_EQ(rerun.code, 1) << rerun.out;
    EXPECT_NE(rerun.out.find("counterexample"), std::string::npos) << rerun.out;
    EXPECT_TRUE(std::regex_search(rerun.out, std::regex(R"(poll +out\(-?\d+\) +out\(-?\d+\) +<- differs)")))
        << rerun.out;
    // `typestar accept` writes the proposal; the max-queue then conforms.
    const Outcome accepted = run("", "'" TYPESTAR_CLI "' accept '" + spec + "'");
    EXPECT_EQ(accepted.code, 0) << accepted.out;
    EXPECT_NE(accepted.out.find("accepted " + (dir_ / "pq.proposed.yaml").string() + " as " + spec), std::string::npos)
        << accepted.out;
    EXPECT_FALSE(fs::exists(dir_ / "pq.proposed.yaml"));
    const Outcome after = run(env);
    EXPECT_EQ(after.code, 0) << after.out;
}

TEST_F(PluginRa, TypestarDeviceOverridesTheFactory) {
    const std::string mutant = std::string(TYPESTAR_SOURCE_DIR) + "/tests/cli/fixtures/ra/pq_poll_mutant.yaml";
    const Outcome o = run("TYPESTAR_DEVICE='model:" + mutant + "' TYPESTAR_RA_SUBJECT_SPEC='" + (dir_ / "pq.yaml").string() +
                          "'");
    EXPECT_EQ(o.code, 1) << o.out;
    EXPECT_NE(o.out.find("  device: model:" + mutant), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("Reproduce: typestar check"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("[       OK ] std_priority_queue.l1_poll"), std::string::npos) << o.out;  // unchanged there
}

TEST_F(PluginRa, AMissingSpecIsLearnedAndUpdateWritesIt) {
    const fs::path missing = dir_ / "new.yaml";
    const Outcome proposed = run("TYPESTAR_RA_SUBJECT_SPEC='" + missing.string() + "'");
    EXPECT_EQ(proposed.code, 1) << proposed.out;
    EXPECT_NE(proposed.out.find("does not exist, so it was learned from"), std::string::npos) << proposed.out;
    ASSERT_TRUE(fs::exists(dir_ / "new.proposed.yaml"));
    EXPECT_FALSE(fs::exists(missing));
    const Outcome ci = run("CI=true TYPESTAR_RA_SUBJECT_SPEC='" + (dir_ / "other.yaml").string() + "'");
    EXPECT_EQ(ci.code, 1);
    EXPECT_FALSE(fs::exists(dir_ / "other.proposed.yaml"));
    const Outcome updated = run("TYPESTAR_UPDATE=1 TYPESTAR_RA_SUBJECT_SPEC='" + missing.string() + "'");
    EXPECT_EQ(updated.code, 0) << updated.out;
    ASSERT_TRUE(fs::exists(missing));
    const Outcome again = run("TYPESTAR_RA_SUBJECT_SPEC='" + missing.string() + "'");
    EXPECT_EQ(again.code, 0) << again.out;
    EXPECT_NE(again.out.find("[  PASSED  ] 24 tests."), std::string::npos) << again.out;
}

TEST_F(PluginRa, UpdateModeRewritesTheSpecForAChangedDevice) {
    const std::string env = "TYPESTAR_RA_SUBJECT_QUEUE=max TYPESTAR_RA_SUBJECT_SPEC='" + (dir_ / "pq.yaml").string() + "'";
    const Outcome o = run("TYPESTAR_UPDATE=1 " + env);
    EXPECT_EQ(o.code, 0) << o.out;
    EXPECT_NE(o.out.find("the device's answer is in the updated spec"), std::string::npos) << o.out;
    const Outcome again = run(env);  // the max-queue now conforms to the rewritten spec
    EXPECT_EQ(again.code, 0) << again.out;
}

TEST_F(PluginRa, AMalformedSpecIsOneFailingLoadTestWithItsDiagnostics) {
    const std::string bad = std::string(TYPESTAR_SOURCE_DIR) + "/tests/cli/fixtures/ra/unknown_name.yaml";
    const Outcome o = run("TYPESTAR_RA_SUBJECT_SPEC='" + bad + "'");
    EXPECT_EQ(o.code, 1) << o.out;
    EXPECT_NE(o.out.find("[  FAILED  ] unknown_name.load"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("unknown_name.yaml:13:37: guard: unknown name 'q'"), std::string::npos) << o.out;
}

TEST_F(PluginRa, TheTestBinaryServesItsDataDeviceOverV1) {
    typestar::testing_support::ChildProcess served(
        {RA_SUBJECT, "--typestar_serve=127.0.0.1:0"},
        {"TYPESTAR_DEVICE_TOKEN=ra-serve-token", "TYPESTAR_RA_SUBJECT_SPEC=" + (dir_ / "pq.yaml").string()});
    const std::string line = served.first_line();
    ASSERT_NE(line.find("typestar: serving std_priority_queue at http://"), std::string::npos) << line;
    const auto at = line.find("http://");
    const std::string url = line.substr(at, line.find(' ', at) - at);
    typestar::HttpConfig config;
    config.url = url;
    config.token = "ra-serve-token";
    typestar::HttpDataDevice remote(config);
    const typestar::ra::RaSpec spec = typestar::ra::load_register_spec(dir_ / "pq.yaml");
    const auto result = typestar::ra::check_register_automaton(spec.automaton, remote, {2, 10000});
    EXPECT_FALSE(result.counterexample) << result.summary();
}

}  // namespace
