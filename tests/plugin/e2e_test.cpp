// End-to-end tests of the GoogleTest plugin: run real test binaries (plugin_subject, linked with
// typestar::gtest_main; plugin_custom_main_subject, with its own main) in a temporary directory
// and check their exit codes, their output and the files they write.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "typestar/core/typestate.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/gtest/report.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/spec/spec.hpp"

namespace fs = std::filesystem;

namespace {

struct Outcome {
    int code = -1;
    std::string out;
    std::string err;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Every variable the plugin or gtest reads is cleared first, so the outer environment (e.g. CI
// being set on a CI machine) never leaks into a run.
constexpr const char* kCleared[] = {"CI", "TYPESTAR_UPDATE", "TYPESTAR_BOUND", "TYPESTAR_DEVICE",
                                    "TYPESTAR_REQUIRE_DEVICE", "TYPESTAR_SUBJECT_SPEC", "TYPESTAR_SUBJECT_MODEL",
                                    "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "GTEST_FILTER",
                                    "GTEST_OUTPUT", "GTEST_BRIEF", "SPDLOG_LEVEL", "TYPESTAR_TMAX", "TYPESTAR_TMIN"};

class PluginE2E : public testing::Test {
protected:
    void SetUp() override {
        std::string templ = (fs::temp_directory_path() / "typestar-plugin-XXXXXX").string();
        ASSERT_NE(mkdtemp(templ.data()), nullptr);
        dir_ = templ;
    }
    void TearDown() override {
        std::error_code ec;
        if (!HasFailure()) fs::remove_all(dir_, ec);
    }

    /// Copies a fixture spec into the temporary directory as `name`.
    fs::path copy_spec(const std::string& fixture, const std::string& name = "timer.yaml") {
        const fs::path to = dir_ / name;
        fs::copy_file(fs::path(PLUGIN_SPECS) / fixture, to, fs::copy_options::overwrite_existing);
        return to;
    }
    static std::string fixture(const std::string& name) { return (fs::path(PLUGIN_SPECS) / name).string(); }

    Outcome run(const std::string& binary, const std::vector<std::string>& args,
            const std::map<std::string, std::string>& env) {
        std::string cmd = "cd " + quote(dir_.string()) + " && env";
        for (const char* v : kCleared) cmd += std::string(" -u ") + v;
        for (const auto& [k, v] : env) cmd += " " + quote(k + "=" + v);
        cmd += " " + quote(binary);
        for (const auto& a : args) cmd += " " + quote(a);
        cmd += " >" + quote((dir_ / "stdout.txt").string()) + " 2>" + quote((dir_ / "stderr.txt").string());
        const int status = std::system(cmd.c_str());
        Outcome r;
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.out = slurp(dir_ / "stdout.txt");
        r.err = slurp(dir_ / "stderr.txt");
        fs::remove(dir_ / "stdout.txt");
        fs::remove(dir_ / "stderr.txt");
        return r;
    }

    /// plugin_subject testing `spec` against `device` (a URL, through TYPESTAR_DEVICE).
    Outcome subject(const fs::path& spec, const std::string& device, std::map<std::string, std::string> env = {},
                const std::vector<std::string>& args = {}) {
        env["TYPESTAR_SUBJECT_SPEC"] = spec.string();
        if (!device.empty()) env["TYPESTAR_DEVICE"] = device;
        return run(SUBJECT, args, env);
    }

    fs::path dir_;
};

std::vector<std::string> lines_matching(const std::string& text, const std::regex& re) {
    std::vector<std::string> found;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_search(line, m, re)) found.push_back(m.size() > 1 ? m[1].str() : line);
    }
    return found;
}

std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
    return n;
}

const std::vector<std::string> kTimerTests = {
    "Timer.Idle_start",          "Timer.Idle_cancel",       "Timer.Idle_wait",
    "Timer.Running_start",       "Timer.Running_cancel",    "Timer.Running_wait",
    "Timer.Cancelling_start",    "Timer.Cancelling_cancel", "Timer.Cancelling_wait",
};

TEST_F(PluginE2E, ListingReadsTheYamlOnly) {
    const auto spec = copy_spec("timer.yaml");
    // A device that would fail on contact, and a factory that would throw: neither is touched.
    const Outcome r = subject(spec, "http://127.0.0.1:9", {{"TYPESTAR_SUBJECT_MODEL", "unreachable"}},
                          {"--gtest_list_tests"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out,
              "Timer.\n  Idle_start\n  Idle_cancel\n  Idle_wait\n  Running_start\n  Running_cancel\n  Running_wait\n"
              "  Cancelling_start\n  Cancelling_cancel\n  Cancelling_wait\n");
    EXPECT_EQ(r.err, "");
}

TEST_F(PluginE2E, ConformingDevicePasses) {
    const auto spec = copy_spec("timer.yaml");
    const std::string before = slurp(spec);
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("[  PASSED  ] 9 tests."), std::string::npos) << r.out;
    EXPECT_EQ(slurp(spec), before);
    EXPECT_FALSE(fs::exists(dir_ / "timer.proposed.yaml"));
}

TEST_F(PluginE2E, UnknownTransitionsAreSkippedWithTheReasonNeverTested) {
    // The device restarts a running timer; the spec says that transition is unknown: no failure.
    const auto spec = copy_spec("timer_unknown.yaml");
    const Outcome r = subject(spec, "model:" + fixture("timer_restartable.yaml"));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("[  SKIPPED ] Timer.Running_start"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("state Running, input start is unknown (purpose: purpose 'Drained' never restarts a "
                         "running timer): not tested"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("[  PASSED  ] 8 tests."), std::string::npos) << r.out;
    // The same device against the two-valued spec fails there.
    const Outcome two = subject(copy_spec("timer.yaml"), "model:" + fixture("timer_restartable.yaml"));
    EXPECT_EQ(two.code, 1);
}

// Partitioned specs (format v2, issue 17): each abstract input runs with its partition's values.
TEST_F(PluginE2E, APartitionedSpecIsCheckedOverItsPartitionsValues) {
    const auto spec = copy_spec("pipe.yaml", "pipe.yaml");
    const Outcome r = subject(spec, "inproc:pipedoutputstream");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("[ RUN      ] PipedOutputStream.s3_write_any_ok_"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[  PASSED  ] 24 tests."), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir_ / "pipe.proposed.yaml"));
}

TEST_F(PluginE2E, AMissingSpecOfAParameterisedDeviceIsLearnedWithRefinement) {
    const fs::path spec = dir_ / "pipe.yaml";  // does not exist yet
    const Outcome r = subject(spec, "inproc:pipedoutputstream");
    EXPECT_EQ(r.code, 1) << r.out;  // the learn test fails and proposes
    // The proposal is what `typestar learn` refines from the same device: partitions, byte for byte.
    EXPECT_EQ(slurp(dir_ / "pipe.proposed.yaml"), slurp(std::string(TYPESTAR_SOURCE_DIR) + "/specs/pipedoutputstream.yaml"));
}

TEST_F(PluginE2E, AnUnknownTransitionOfAPartitionedSpecIsSkippedWithItsReason) {
    const auto spec = copy_spec("pipe_unknown.yaml", "pipe.yaml");
    const Outcome r = subject(spec, "inproc:pipedoutputstream");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("state s3, input write[any.ok] is unknown (purpose: purpose 'NoWrites' never writes to a "
                         "connected pipe): not tested"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("[  SKIPPED ] PipedOutputStream.s3_write_any_ok_"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[  PASSED  ] 23 tests."), std::string::npos) << r.out;
}

TEST_F(PluginE2E, APartitionWhoseValuesAnswerDifferentlyFailsNamingTheValues) {
    const auto spec = copy_spec("pipe_wrong_partition.yaml", "pipe.yaml");
    const Outcome r = subject(spec, "inproc:pipedoutputstream");
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.out.find("[  FAILED  ] PipedOutputStream.s0_connect_any_ok_"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("typestar: PipedOutputStream.s0_connect_any_ok_: values of one partition of the spec answer "
                         "differently on the device inproc:pipedoutputstream (partitions)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("instantiations 'connect/v1' and 'connect/v0' of the spec's partitions answer differently"),
              std::string::npos)
        << r.out;
}

TEST_F(PluginE2E, AWrongTransitionOfAPartitionedSpecFailsAndTheProposalKeepsPartitionsAndUnknowns) {
    const auto spec = copy_spec("pipe_unknown_close_twice_refused.yaml", "pipe.yaml");
    const std::string before = slurp(spec);
    const Outcome r = subject(spec, "inproc:pipedoutputstream");
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.out.find("[  FAILED  ] PipedOutputStream.s4_close"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[  SKIPPED ] PipedOutputStream.s3_write_any_ok_"), std::string::npos) << r.out;
    EXPECT_EQ(slurp(spec), before);
    // The proposal is the stored spec with the transition fixed: same partitions (values, split_from,
    // split_by), same unknown transition and reason, byte for byte after the comment.
    std::string expected = slurp(fixture("pipe_unknown.yaml"));
    while (expected.rfind("#", 0) == 0) expected = expected.substr(expected.find('\n') + 1);
    // The proposal also records what its learning searched beyond the bound (its own provenance).
    std::string proposed = slurp(dir_ / "pipe.proposed.yaml");
    const auto explored = proposed.find("  explored: ");
    ASSERT_NE(explored, std::string::npos) << proposed;
    proposed.erase(explored, proposed.find('\n', explored) + 1 - explored);
    EXPECT_EQ(proposed, expected);
}

TEST_F(PluginE2E, FactoryDeviceIsUsedWithoutAUrl) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome pass = subject(spec, "", {{"TYPESTAR_SUBJECT_MODEL", fixture("timer.yaml")}});
    EXPECT_EQ(pass.code, 0) << pass.out;
    const Outcome fail = subject(spec, "", {{"TYPESTAR_SUBJECT_MODEL", fixture("timer_restartable.yaml")}});
    EXPECT_EQ(fail.code, 1) << fail.out;
    // No URL for a factory device: the CLI reaches it through this binary (exec:), or the test reruns.
    EXPECT_NE(fail.out.find("Reproduce: typestar check " + spec.string() + " --device 'exec:" + std::string(SUBJECT) +
                            "#Timer' --bound 2\n       or: " + std::string(SUBJECT) +
                            " --gtest_filter=Timer.Running_start"),
              std::string::npos)
        << fail.out;
    EXPECT_NE(fail.out.find("  device: subject-model"), std::string::npos);
}

TEST_F(PluginE2E, ALateDeviceFailsAsATimingFailureAndProposesNothing) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome late = subject(spec, "", {{"TYPESTAR_SUBJECT_MODEL", "late:" + fixture("timer.yaml")}},
                                 {"--gtest_filter=Timer.Running_wait"});
    EXPECT_EQ(late.code, 1) << late.out;
    EXPECT_NE(late.out.find("typestar: Timer.Running_wait: a timing failure of the device subject-late, not a protocol "
                            "difference (no spec is proposed):\n  subject-late: tmax too small: callback 'tick' "
                            "arrived 90.0 ms"),
              std::string::npos)
        << late.out;
    EXPECT_NE(late.out.find("the timing broke on each of " + std::to_string(typestar::kTimingRetries + 1) + " runs of '"), std::string::npos) << late.out;
    EXPECT_EQ(late.out.find("not deterministic"), std::string::npos) << late.out;
    EXPECT_FALSE(fs::exists(dir_ / "timer.proposed.yaml"));
}

TEST_F(PluginE2E, TmaxFromTheEnvironmentIsNamedInTheAssumptions) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome pass = subject(spec, "model:" + fixture("timer.yaml"), {{"TYPESTAR_TMAX", "300"}},
                                 {"--gtest_filter=Timer.Idle_start"});
    EXPECT_EQ(pass.code, 0) << pass.out;
    EXPECT_NE(pass.out.find("every callback arrives within tmax=300 ms (quiescence; tmax 300 ms set by "
                            "TYPESTAR_TMAX=300; a simulation has no real time: recorded only;"),
              std::string::npos)
        << pass.out;
}

TEST_F(PluginE2E, AnAgentBackedTestReproducesWithTheAgentsUrl) {
    // The factory returns an HttpDevice: the Reproduce command names that agent (issue 25 item 5:
    // it named `exec:THIS#Timer`, which serves an HttpDevice the CLI could have reached itself).
    const auto spec = copy_spec("timer.yaml");
    const auto model = typestar::spec::load_spec(fixture("timer_restartable.yaml"));
    typestar::AgentConfig config;
    config.token = "e2e-token-3c1d";
    typestar::Agent agent(typestar::AnyDevices{[&model] {
                              return std::make_unique<typestar::ModelDevice>(
                                  typestar::synchronous_closure(model.typestate), "agent-model");
                          }},
                          config);
    agent.start();
    const Outcome fail =
        subject(spec, "", {{"TYPESTAR_SUBJECT_MODEL", agent.url()}, {"TYPESTAR_DEVICE_TOKEN", config.token}});
    EXPECT_EQ(fail.code, 1) << fail.out;
    EXPECT_NE(fail.out.find("Reproduce: typestar check " + spec.string() + " --device " + agent.url() +
                            " --bound 2\n       or: " + std::string(SUBJECT) + " --gtest_filter=Timer.Running_start"),
              std::string::npos)
        << fail.out;
    EXPECT_EQ(fail.out.find("exec:"), std::string::npos) << fail.out;
}

TEST_F(PluginE2E, ChangedTransitionFailsWithTraceAndProposesTheDevicesTypestate) {
    const auto spec = copy_spec("timer.yaml");
    const std::string before = slurp(spec);
    const std::string device = "model:" + fixture("timer_restartable.yaml");
    const Outcome r = subject(spec, device);
    EXPECT_EQ(r.code, 1) << r.out;
    // Running_start fails; so do tests whose suffixes pass through the changed transition, and every
    // trace differs exactly there.
    const auto failed = lines_matching(r.out, std::regex(R"(^\[  FAILED  \] (\S+) \()"));
    ASSERT_FALSE(failed.empty());
    EXPECT_EQ(std::count(failed.begin(), failed.end(), "Timer.Running_start"), 1);
    std::vector<std::string> differs;
    const std::regex row(R"(^    \d+ +(\S+) +(\S+) +(\S+) +(\S+) +<- differs$)");
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_match(line, m, row)) differs.push_back(m[1].str() + " " + m[2].str() + " " + m[3].str() + " " + m[4].str());
    }
    EXPECT_EQ(differs, std::vector<std::string>(failed.size(), "Running start err ok"));
    // Located at the spec's YAML line of Running (the transition is absent: refused).
    EXPECT_NE(r.out.find(spec.string() + ":12: Failure"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  spec:   " + spec.string() + ":12 (state Running, input start)"), std::string::npos);
    EXPECT_NE(r.out.find("    step  state    input  expected  actual\n"
                         "    1     Idle     start  ok        ok\n"
                         "    2     Running  start  err       ok      <- differs\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("bounded evidence, not a proof"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("distinguisher bound B=2"), std::string::npos);
    EXPECT_NE(r.out.find("Reproduce: typestar check " + spec.string() + " --device " + device + " --bound 2"),
              std::string::npos)
        << r.out;
    // The diff of stored vs proposed names the changed transition.
    EXPECT_NE(r.out.find("Stored -> proposed (typestar diff):"), std::string::npos);
    // (the proposal keeps the stored spec's state names)
    EXPECT_NE(r.out.find("    | Running | start      | start  | added  | err | -> Running |\n"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\n    typestar accept " + spec.string() + "\n"), std::string::npos) << r.out;

    // The approved spec is untouched; the proposal is the device's typestate.
    EXPECT_EQ(slurp(spec), before);
    ASSERT_TRUE(fs::exists(dir_ / "timer.proposed.yaml"));
    ASSERT_TRUE(fs::exists(dir_ / "timer.proposed.dot"));
    const auto proposed = typestar::spec::load_spec(dir_ / "timer.proposed.yaml");
    const auto truth = typestar::spec::load_spec(fixture("timer_restartable.yaml"));
    EXPECT_TRUE(typestar::spec::same_behaviour(proposed, truth));
    EXPECT_EQ(proposed.typestate.name, "Timer");
    EXPECT_EQ(proposed.provenance.device, device);
    EXPECT_NE(slurp(dir_ / "timer.proposed.dot").find("digraph"), std::string::npos);
}

TEST_F(PluginE2E, ManyFailingTestsReLearnOnce) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome r = subject(spec, "model:" + fixture("timer_instant_cancel.yaml"), {{"SPDLOG_LEVEL", "typestar.gtest=info"}});
    EXPECT_EQ(r.code, 1);
    const auto failed = lines_matching(r.out, std::regex(R"(^\[  FAILED  \] (\S+) \()"));
    EXPECT_GE(failed.size(), 2u) << r.out;
    EXPECT_EQ(count(r.err, "re-learning Timer"), 1u) << r.err;
    // The full proposal and diff once; every failure says what changed and where the proposal is.
    EXPECT_EQ(count(r.out, "Stored -> proposed (typestar diff):"), 1u) << r.out;
    EXPECT_EQ(count(r.out, "What changed (stored -> proposed):"), failed.size()) << r.out;
    EXPECT_EQ(count(r.out, "Proposed spec: " + (dir_ / "timer.proposed.yaml").string()), failed.size()) << r.out;
    const auto proposed = typestar::spec::load_spec(dir_ / "timer.proposed.yaml");
    EXPECT_TRUE(typestar::spec::same_behaviour(proposed, typestar::spec::load_spec(fixture("timer_instant_cancel.yaml"))));
}

TEST_F(PluginE2E, ProposalIsTheSameWhicheverTestFailedFirst) {
    // Under ctest every test is its own process: each failing test re-learns and writes the
    // proposal. The bytes must not depend on which test it was, nor on what ran before it.
    const auto spec = copy_spec("timer.yaml");
    const std::string device = "model:" + fixture("timer_instant_cancel.yaml");
    const Outcome all = subject(spec, device);
    ASSERT_EQ(all.code, 1);
    const auto failed = lines_matching(all.out, std::regex(R"(^\[  FAILED  \] (\S+) \()"));
    ASSERT_GE(failed.size(), 2u) << all.out;
    const std::string from_all = slurp(dir_ / "timer.proposed.yaml");
    ASSERT_FALSE(from_all.empty());
    for (const std::string& test : {failed.front(), failed.back()}) {
        fs::remove(dir_ / "timer.proposed.yaml");
        const Outcome one = subject(spec, device, {}, {"--gtest_filter=" + test});
        EXPECT_EQ(one.code, 1) << test;
        EXPECT_EQ(slurp(dir_ / "timer.proposed.yaml"), from_all) << "proposal after only " << test;
    }
}

TEST_F(PluginE2E, CounterexampleOnCiWritesNothing) {
    const auto spec = copy_spec("timer.yaml");
    const std::string before = slurp(spec);
    const Outcome r = subject(spec, "model:" + fixture("timer_restartable.yaml"), {{"CI", "true"}, {"TYPESTAR_UPDATE", "1"}});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("CI is set, so nothing was written (TYPESTAR_UPDATE is ignored on CI). The proposed spec:"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Stored -> proposed (typestar diff):"), std::string::npos);
    EXPECT_EQ(slurp(spec), before);
    EXPECT_FALSE(fs::exists(dir_ / "timer.proposed.yaml"));
    EXPECT_FALSE(fs::exists(dir_ / "timer.proposed.dot"));
}

TEST_F(PluginE2E, UpdateModeWritesTheSpecAndPasses) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome r = subject(spec, "model:" + fixture("timer_restartable.yaml"), {}, {"--typestar_update"});
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("wrote " + spec.string()), std::string::npos) << r.out;
    EXPECT_TRUE(typestar::spec::same_behaviour(typestar::spec::load_spec(spec),
                                               typestar::spec::load_spec(fixture("timer_restartable.yaml"))));
    EXPECT_FALSE(fs::exists(dir_ / "timer.proposed.yaml"));
    // The updated spec now passes without update mode.
    const Outcome again = subject(spec, "model:" + fixture("timer_restartable.yaml"));
    EXPECT_EQ(again.code, 0) << again.out;
}

TEST_F(PluginE2E, MissingSpecIsLearnedLocally) {
    const fs::path spec = dir_ / "timer.yaml";
    const Outcome list = subject(spec, "http://127.0.0.1:9", {}, {"--gtest_list_tests"});
    EXPECT_EQ(list.out, "timer.\n  learn\n");
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"));
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.out.find("[  FAILED  ] timer.learn"), std::string::npos);
    EXPECT_NE(r.out.find("does not exist, so it was learned from model:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("3 states, 2 callins, 2 callbacks"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("TYPESTAR_UPDATE=1"), std::string::npos);
    // The accept command that works (every state is new: accept asks for names, --auto keeps them),
    // the one the runners print too (DocumentProposal::accept).
    EXPECT_NE(r.out.find("\n    typestar accept " + spec.string() + " --auto\n"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(spec));
    const auto proposed = typestar::spec::load_spec(dir_ / "timer.proposed.yaml");
    EXPECT_TRUE(typestar::spec::same_behaviour(proposed, typestar::spec::load_spec(fixture("timer.yaml"))));
    EXPECT_EQ(proposed.typestate.name, "timer");
    EXPECT_TRUE(fs::exists(dir_ / "timer.proposed.dot"));
}

TEST_F(PluginE2E, MissingSpecIsRefusedOnCi) {
    const fs::path spec = dir_ / "timer.yaml";
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"), {{"CI", "1"}});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("does not exist.\nCI is set, so typestar neither learns nor writes it here."),
              std::string::npos)
        << r.out;
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 0);
}

TEST_F(PluginE2E, MissingSpecIsWrittenInUpdateMode) {
    const fs::path spec = dir_ / "timer.yaml";
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"), {{"TYPESTAR_UPDATE", "1"}});
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("typestar: learned " + spec.string()), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(spec));
    EXPECT_TRUE(typestar::spec::same_behaviour(typestar::spec::load_spec(spec),
                                               typestar::spec::load_spec(fixture("timer.yaml"))));
    EXPECT_FALSE(fs::exists(dir_ / "timer.proposed.yaml"));
    const Outcome list = subject(spec, "", {}, {"--gtest_list_tests"});
    EXPECT_EQ(list.out.substr(0, 7), "timer.\n");  // the learned spec is named after the file
    EXPECT_EQ(count(list.out, "\n  "), 9u);
}

TEST_F(PluginE2E, ThreeShardsRunEveryTestExactlyOnce) {
    const auto spec = copy_spec("timer.yaml");
    std::multiset<std::string> ran;
    for (int shard = 0; shard < 3; ++shard) {
        const Outcome r = subject(spec, "model:" + fixture("timer.yaml"),
                              {{"GTEST_TOTAL_SHARDS", "3"}, {"GTEST_SHARD_INDEX", std::to_string(shard)}});
        EXPECT_EQ(r.code, 0) << r.out;
        const auto ok = lines_matching(r.out, std::regex(R"(^\[       OK \] (\S+) \()"));
        EXPECT_FALSE(ok.empty()) << "shard " << shard;
        ran.insert(ok.begin(), ok.end());
    }
    EXPECT_EQ(ran, std::multiset<std::string>(kTimerTests.begin(), kTimerTests.end()));
}

TEST_F(PluginE2E, UnreachableDeviceSkipsLocallyAndFailsOnCiOrWhenRequired) {
    const auto spec = copy_spec("timer.yaml");
    const std::map<std::string, std::string> env = {{"TYPESTAR_SUBJECT_MODEL", "unreachable"}};
    const Outcome local = subject(spec, "", env);
    EXPECT_EQ(local.code, 0) << local.out;
    EXPECT_EQ(lines_matching(local.out, std::regex(R"(^\[  SKIPPED \] (Timer\.\S+) \()")).size(), 9u) << local.out;
    EXPECT_NE(local.out.find("cannot reach the device for " + spec.string() + ": subject: connection refused"),
              std::string::npos)
        << local.out;

    auto ci_env = env;
    ci_env["CI"] = "true";
    const Outcome ci = subject(spec, "", ci_env);
    EXPECT_EQ(ci.code, 1);
    EXPECT_NE(ci.out.find("CI is set: an unreachable device fails instead of skipping"), std::string::npos) << ci.out;

    const Outcome required = subject(spec, "", env, {"--typestar_require_device"});
    EXPECT_EQ(required.code, 1);
    EXPECT_EQ(lines_matching(required.out, std::regex(R"(^\[  FAILED  \] (Timer\.\S+) \()")).size(), 9u)
        << required.out;

    // An HTTP agent nobody serves is unreachable too.
    const Outcome http = subject(spec, "http://127.0.0.1:9", {{"TYPESTAR_DEVICE_TOKEN", "t"}});
    EXPECT_EQ(http.code, 0) << http.out;
    EXPECT_EQ(lines_matching(http.out, std::regex(R"(^\[  SKIPPED \] (Timer\.\S+) \()")).size(), 9u) << http.out;
}

TEST_F(PluginE2E, XmlOutputCarriesTheProperties) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"), {}, {"--gtest_output=xml:" + (dir_ / "r.xml").string()});
    EXPECT_EQ(r.code, 0);
    const std::string xml = slurp(dir_ / "r.xml");
    auto property = [&](const std::string& name, const std::string& value) {
        return xml.find("<property name=\"" + name + "\" value=\"" + value + "\"/>") != std::string::npos;
    };
    EXPECT_TRUE(property("typestar_spec", spec.string())) << xml;
    EXPECT_TRUE(property("typestar_spec_hash", typestar::gtest::content_hash(slurp(spec)))) << xml;
    EXPECT_TRUE(property("typestar_states", "3"));
    EXPECT_TRUE(property("typestar_bound", "2"));
    EXPECT_TRUE(property("typestar_transition", "Running start"));
    EXPECT_TRUE(property("typestar_words", "start start"));
    EXPECT_NE(xml.find("file=\"" + spec.string() + "\" line=\"12\""), std::string::npos) << xml;
}

TEST_F(PluginE2E, BoundFlagChangesTheSuite) {
    // Running_wait checks R(Running)·wait·s for every s of length B (err-truncated).
    const auto spec = copy_spec("timer.yaml");
    const std::string xml = (dir_ / "r.xml").string();
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"), {{"TYPESTAR_BOUND", "1"}},
                              {"--gtest_filter=Timer.Running_wait", "--gtest_output=xml:" + xml});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(slurp(xml).find("<property name=\"typestar_bound\" value=\"1\"/>"), std::string::npos);
    EXPECT_NE(slurp(xml).find("<property name=\"typestar_words\" value=\"start wait start; start wait cancel; "
                              "start wait wait\"/>"),
              std::string::npos)
        << slurp(xml);
    const Outcome two = subject(spec, "model:" + fixture("timer.yaml"), {},
                                {"--typestar_bound=2", "--gtest_filter=Timer.Running_wait", "--gtest_output=xml:" + xml});
    EXPECT_EQ(two.code, 0);
    EXPECT_NE(slurp(xml).find("value=\"start wait start start; start wait start cancel; start wait start wait; "
                              "start wait cancel; start wait wait start; start wait wait cancel; start wait wait wait\""),
              std::string::npos)
        << slurp(xml);
}

TEST_F(PluginE2E, BadSettingsFailEveryTestNamingThem) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"), {}, {"--typestar_bound=many"});
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(count(r.out, "--typestar_bound=many: expected --typestar_bound=B"), 9u) << r.out;
}

TEST_F(PluginE2E, SpecThatDoesNotLoadIsOneFailingTest) {
    const auto spec = copy_spec("broken.yaml", "broken.yaml");
    const Outcome list = subject(spec, "", {}, {"--gtest_list_tests"});
    EXPECT_EQ(list.out, "broken.\n  load\n");
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"));
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("does not load; no conformance test ran:\n" + spec.string() + ":"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Nowhere"), std::string::npos);
}

TEST_F(PluginE2E, CustomMainRegistersAfterInitialize) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome list = run(CUSTOM_MAIN_SUBJECT, {"--gtest_list_tests", spec.string()}, {});
    EXPECT_EQ(list.code, 0);
    EXPECT_EQ(list.out.substr(0, 18), "Plain.\n  StillRuns");
    EXPECT_NE(list.out.find("Timer.\n  Idle_start\n"), std::string::npos) << list.out;
    const Outcome r = run(CUSTOM_MAIN_SUBJECT, {"--typestar_device=model:" + fixture("timer_restartable.yaml"), spec.string()}, {});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.out.find("[       OK ] Plain.StillRuns"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[  FAILED  ] Timer.Running_start"), std::string::npos);
    EXPECT_NE(r.out.find("[       OK ] Timer.Idle_start"), std::string::npos);
}

TEST_F(PluginE2E, ARegisterAutomatonRegisteredWithoutAFactoryRunsAgainstTypestarDevice) {
    // One register_spec_tests for both kinds: the document says which (the session's document_format).
    const std::string pq = std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/std_priority_queue.yaml";
    fs::copy_file(pq, dir_ / "pq.yaml");
    const Outcome r = run(CUSTOM_MAIN_SUBJECT, {"--typestar_device=model:" + pq, (dir_ / "pq.yaml").string()}, {});
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("[       OK ] std_priority_queue.l1_offer_2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[  PASSED  ] 25 tests."), std::string::npos) << r.out;  // 24 transitions + Plain.StillRuns
}

// --- one proposal per spec and change across the processes of a ctest run ------------------------

TEST_F(PluginE2E, TheTestProcessesOfOneCtestRunShareOneProposal) {
    const auto spec = copy_spec("timer.yaml");
    const std::string device = "model:" + fixture("timer_instant_cancel.yaml");
    fs::create_directories(dir_ / "tmp");
    const std::map<std::string, std::string> env{{"TMPDIR", (dir_ / "tmp").string()},
                                                 {"SPDLOG_LEVEL", "typestar.gtest=info"}};
    const Outcome first = subject(spec, device, env);
    ASSERT_EQ(first.code, 1);
    const auto failed = lines_matching(first.out, std::regex(R"(^\[  FAILED  \] (\S+) \()"));
    ASSERT_GE(failed.size(), 2u) << first.out;
    EXPECT_EQ(count(first.err, "re-learning Timer"), 1u) << first.err;
    const std::string proposal = slurp(dir_ / "timer.proposed.yaml");
    ASSERT_FALSE(proposal.empty());
    // As ctest runs them: one process per test. None re-learns; each names the change and points at
    // the proposal learned once.
    std::size_t marked = 0;
    for (const auto& test : failed) {
        const Outcome one = subject(spec, device, env, {"--gtest_filter=" + test});
        EXPECT_EQ(one.code, 1) << test;
        EXPECT_EQ(count(one.err, "re-learning Timer"), 0u) << test << "\n" << one.err;
        EXPECT_EQ(count(one.out, "Stored -> proposed (typestar diff):"), 0u) << one.out;
        EXPECT_NE(one.out.find("learned once for this spec and change, by " + failed.front() + " in test process "),
                  std::string::npos)
            << one.out;
        // (the diff pairs the stored Cancelling with the proposal's Idle: cancel now ends the timer,
        // and the message says that this stored state is gone)
        EXPECT_NE(one.out.find("What changed (stored -> proposed):\n"
                               "    the proposal has 2 states, the stored spec 3: 1 of 3 stored states is gone: "
                               "Cancelling merged into Idle (review this before accepting the proposal)\n"
                               "    Cancelling start: err  =>  -> Running"),
                  std::string::npos)
            << one.out;
        EXPECT_NE(one.out.find("    Cancelling wait: onCancelled -> Idle  =>  quiet"), std::string::npos) << one.out;
        marked += count(one.out, "<- this test's transition");
        EXPECT_EQ(slurp(dir_ / "timer.proposed.yaml"), proposal);
    }
    EXPECT_EQ(marked, 2u);  // Cancelling_start and Cancelling_wait are the transitions that changed
}

TEST_F(PluginE2E, ParallelTestProcessesLearnTheProposalOnce) {
    const auto spec = copy_spec("timer.yaml");
    const std::string device = "model:" + fixture("timer_instant_cancel.yaml");
    fs::create_directories(dir_ / "tmp");
    const std::vector<std::string> tests{"Timer.Running_cancel", "Timer.Running_wait", "Timer.Cancelling_wait",
                                         "Timer.Idle_start", "Timer.Running_start", "Timer.Cancelling_start"};
    // All at once, like `ctest -j6`: each waits on the lock while one learns.
    std::string cmd = "cd " + quote(dir_.string()) + " || exit 1; ";
    for (std::size_t i = 0; i < tests.size(); ++i) {
        cmd += "env";
        for (const char* v : kCleared) cmd += std::string(" -u ") + v;
        cmd += " TMPDIR=" + quote((dir_ / "tmp").string()) + " SPDLOG_LEVEL=typestar.gtest=info TYPESTAR_SUBJECT_SPEC=" +
               quote(spec.string()) + " TYPESTAR_DEVICE=" + quote(device) + " " + quote(SUBJECT) +
               " --gtest_filter=" + tests[i] + " > out" + std::to_string(i) + ".txt 2> err" + std::to_string(i) +
               ".txt & ";
    }
    cmd += "wait";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    std::size_t learned = 0, full = 0, pointers = 0, failing = 0;
    for (std::size_t i = 0; i < tests.size(); ++i) {
        const std::string out = slurp(dir_ / ("out" + std::to_string(i) + ".txt"));
        const std::string err = slurp(dir_ / ("err" + std::to_string(i) + ".txt"));
        learned += count(err, "re-learning Timer");
        full += count(out, "Stored -> proposed (typestar diff):");
        pointers += count(out, "learned once for this spec and change, by Timer.");
        failing += out.find("[  FAILED  ] " + tests[i]) != std::string::npos ? 1 : 0;
    }
    ASSERT_GE(failing, 2u);
    EXPECT_EQ(learned, 1u);
    EXPECT_EQ(full, 1u);
    EXPECT_EQ(pointers, failing - 1);
    const auto proposed = typestar::spec::load_spec(dir_ / "timer.proposed.yaml");
    EXPECT_TRUE(typestar::spec::same_behaviour(proposed, typestar::spec::load_spec(fixture("timer_instant_cancel.yaml"))));
}

TEST_F(PluginE2E, AStaleProposalIsNeverReused) {
    const auto spec = copy_spec("timer.yaml");
    fs::create_directories(dir_ / "tmp");
    fs::copy_file(fixture("timer_instant_cancel.yaml"), dir_ / "device.yaml");
    const std::string device = "model:" + (dir_ / "device.yaml").string();
    const std::map<std::string, std::string> env{{"TMPDIR", (dir_ / "tmp").string()},
                                                 {"SPDLOG_LEVEL", "typestar.gtest=info"}};
    ASSERT_EQ(count(subject(spec, device, env).err, "re-learning Timer"), 1u);
    // The same URL, another behaviour: learned again, and the proposal is the new behaviour.
    fs::copy_file(fixture("timer_restartable.yaml"), dir_ / "device.yaml", fs::copy_options::overwrite_existing);
    const Outcome changed_device = subject(spec, device, env, {"--gtest_filter=Timer.Running_start"});
    EXPECT_EQ(changed_device.code, 1);
    EXPECT_EQ(count(changed_device.err, "re-learning Timer"), 1u) << changed_device.err;
    EXPECT_TRUE(typestar::spec::same_behaviour(typestar::spec::load_spec(dir_ / "timer.proposed.yaml"),
                                               typestar::spec::load_spec(fixture("timer_restartable.yaml"))));
    // Another spec text (a comment is enough): learned again.
    std::ofstream(spec, std::ios::app) << "# reviewed\n";
    const Outcome changed_spec = subject(spec, device, env, {"--gtest_filter=Timer.Running_start"});
    EXPECT_EQ(count(changed_spec.err, "re-learning Timer"), 1u) << changed_spec.err;
    // The proposal file removed (or accepted, or edited): learned again, never a pointer to nothing.
    fs::remove(dir_ / "timer.proposed.yaml");
    const Outcome removed = subject(spec, device, env, {"--gtest_filter=Timer.Running_start"});
    EXPECT_EQ(count(removed.err, "re-learning Timer"), 1u) << removed.err;
    EXPECT_TRUE(fs::exists(dir_ / "timer.proposed.yaml"));
    // Unchanged inputs: reused.
    const Outcome same = subject(spec, device, env, {"--gtest_filter=Timer.Running_start"});
    EXPECT_EQ(count(same.err, "re-learning Timer"), 0u) << same.err;
    EXPECT_NE(same.out.find("    Running start: err  =>  -> Running   <- this test's transition"), std::string::npos)
        << same.out;
}

TEST_F(PluginE2E, OnCiTheSharedProposalIsPrintedOnceAndNothingIsWritten) {
    const auto spec = copy_spec("timer.yaml");
    const std::string device = "model:" + fixture("timer_instant_cancel.yaml");
    fs::create_directories(dir_ / "tmp");
    const std::map<std::string, std::string> env{{"TMPDIR", (dir_ / "tmp").string()}, {"CI", "true"}};
    std::size_t full = 0, pointers = 0;
    // (the two failing tests, then the first again: a rerun with nothing changed)
    for (const std::string test : {"Timer.Cancelling_start", "Timer.Cancelling_wait", "Timer.Cancelling_start"}) {
        const Outcome one = subject(spec, device, env, {"--gtest_filter=" + test});
        EXPECT_EQ(one.code, 1) << one.out;
        full += count(one.out, "CI is set, so nothing was written. The proposed spec:");
        pointers += count(one.out, "CI is set, so nothing was written; the proposed spec (learned once for this spec "
                                   "and change, by Timer.Cancelling_start in test process ");
    }
    EXPECT_EQ(full, 1u);
    EXPECT_EQ(pointers, 2u);
    EXPECT_FALSE(fs::exists(dir_ / "timer.proposed.yaml"));
}

TEST_F(PluginE2E, UpdateModeInParallelProcessesWritesTheSpecOnce) {
    const auto spec = copy_spec("timer.yaml");
    const std::string device = "model:" + fixture("timer_instant_cancel.yaml");
    fs::create_directories(dir_ / "tmp");
    const std::vector<std::string> tests{"Timer.Cancelling_start", "Timer.Cancelling_wait", "Timer.Running_wait",
                                         "Timer.Idle_start"};
    std::string cmd = "cd " + quote(dir_.string()) + " || exit 1; ";
    for (std::size_t i = 0; i < tests.size(); ++i) {
        cmd += "env";
        for (const char* v : kCleared) cmd += std::string(" -u ") + v;
        cmd += " TMPDIR=" + quote((dir_ / "tmp").string()) +
               " TYPESTAR_UPDATE=1 SPDLOG_LEVEL=typestar.gtest=info TYPESTAR_SUBJECT_SPEC=" + quote(spec.string()) +
               " TYPESTAR_DEVICE=" + quote(device) + " " + quote(SUBJECT) + " --gtest_filter=" + tests[i] + " > out" +
               std::to_string(i) + ".txt 2> err" + std::to_string(i) + ".txt; echo $? > code" + std::to_string(i) +
               ".txt & ";
    }
    cmd += "wait";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    std::size_t learned = 0;
    for (std::size_t i = 0; i < tests.size(); ++i) {
        learned += count(slurp(dir_ / ("err" + std::to_string(i) + ".txt")), "re-learning Timer");
        EXPECT_EQ(slurp(dir_ / ("code" + std::to_string(i) + ".txt")), "0\n")
            << tests[i] << "\n" << slurp(dir_ / ("out" + std::to_string(i) + ".txt"));
    }
    EXPECT_LE(learned, 1u);  // processes that start after the write test the new spec and pass
    EXPECT_TRUE(typestar::spec::same_behaviour(typestar::spec::load_spec(spec),
                                               typestar::spec::load_spec(fixture("timer_instant_cancel.yaml"))));
}

}  // namespace

// ---- messages say what ran (issues 23 item 6, 24 items 4 and 5) --------------------------------

namespace {

TEST_F(PluginE2E, EveryPassingTestNamesItsAssumptions) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"));
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    // Each of the 9 cases, not only the XML property.
    EXPECT_EQ(count(r.out, " passed: bounded evidence, relying on:\n"
                           "    - the device's states are told apart by words of length <= 2 (distinguisher bound "
                           "B=2)\n"),
              9u)
        << r.out;
    EXPECT_NE(r.out.find("typestar: Timer.Running_start: 1 word passed: bounded evidence"), std::string::npos) << r.out;
    EXPECT_EQ(count(r.out, "    - err is absorbing: nothing after a refused callin is run\n"), 9u) << r.out;
}

TEST_F(PluginE2E, TheFirstRunNamesTheLearnerTheBoundEveryAssumptionAndATightBound) {
    const fs::path spec = dir_ / "timer.yaml";
    const Outcome r = subject(spec, "model:" + fixture("timer.yaml"), {{"TYPESTAR_BOUND", "1"}});
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.out.find("does not exist, so it was learned from model:" + fixture("timer.yaml") +
                         " with L# (from scratch: no spec yet), DroidStar Algorithm 2 at B=1 as equivalence oracle: "
                         "3 states, 2 callins, 2 callbacks, bound 1.\n"),
              std::string::npos)
        << r.out;
    // The timer tells its states apart by one wait: B=1 is tight, and the first run says so (as the CLI does).
    EXPECT_NE(r.out.find("warning: the bound is tight: the learned machine needs words of length B=1"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("The learned spec relies on:\n  - the device's states are told apart by words of length "
                         "<= 1 (distinguisher bound B=1)\n"),
              std::string::npos)
        << r.out;
}

TEST_F(PluginE2E, AFailingTestNamesTheLearnerThatRanAndABoundChangeWithTheSuiteSizes) {
    const auto spec = copy_spec("timer.yaml");
    const Outcome r = subject(spec, "model:" + fixture("timer_restartable.yaml"), {{"TYPESTAR_BOUND", "3"}});
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_EQ(r.out.find("Re-learned (L*"), std::string::npos) << r.out;  // L# ran
    EXPECT_NE(r.out.find("Re-learned with L# (seeded with the stored spec), DroidStar Algorithm 2 at B=3 as "
                         "equivalence oracle: 3 states"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Note: the distinguisher bound changes from B=2 to B=3: the conformance suite grows from "),
              std::string::npos)
        << r.out;
    EXPECT_EQ(typestar::spec::load_spec(dir_ / "timer.proposed.yaml").bounds.distinguisher, 3u);
}

}  // namespace

// ---- proposals keep what is stored; an unpredicted answer is a difference (issue 34) -------------

namespace {

TEST_F(PluginE2E, ACallinThePurposeDeniesWhereTheSpecExpectsAnAnswerFailsNeverPasses) {
    // The full AsyncTask spec against a device whose purpose denies a second pending cancel.
    const fs::path spec = dir_ / "asynctask.yaml";
    fs::copy_file(std::string(TYPESTAR_SOURCE_DIR) + "/specs/asynctask.yaml", spec);
    const Outcome r = subject(spec, "inproc:asynctask_purpose", {}, {"--gtest_filter=AsyncTask.Cancelling_cancel"});
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("[  FAILED  ] AsyncTask.Cancelling_cancel"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("the device answered unknown:purpose to cancel where the spec expects ok (in state "
                         "Cancelling): the device would not try it"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("were not tested: the device's learning purpose"), std::string::npos) << r.out;
}

TEST_F(PluginE2E, AFailingTestSaysWhichStoredStatesTheProposalLoses) {
    // The device lost states of the stored counter: the message says which, before anyone accepts.
    const fs::path spec = dir_ / "counter.yaml";
    std::ofstream(spec) << "typestar: 1\nname: Counter\ncallins: [inc, peek, off]\ncallbacks: []\ninitial: A\n"
                           "bounds: {distinguisher: 3}\nstates:\n  A:\n    callins: {inc: B, off: E}\n  B:\n"
                           "    callins: {inc: C}\n  C:\n    callins: {inc: D}\n  D:\n    callins: {inc: D, peek: D}\n"
                           "  E:\n    callins: {}\n";
    const fs::path device = dir_ / "device.yaml";
    std::ofstream(device) << "typestar: 1\nname: Counter\ncallins: [inc, peek, off]\ncallbacks: []\ninitial: A\n"
                             "states:\n  A:\n    callins: {inc: B}\n  B:\n    callins: {inc: B, peek: B}\n";
    const Outcome r = subject(spec, "model:" + device.string(), {}, {"--gtest_filter=Counter.A_off"});
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("    the proposal has 2 states, the stored spec 5: 3 of 5 stored states are gone: C, D "
                         "merged into B; E not reached (review this before accepting the proposal)\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("**3 of 5 old states are gone: C, D merged into B; E not reached**"), std::string::npos)
        << r.out;
    // accept refuses a smaller proposal unless told: the command printed is the one that works.
    EXPECT_NE(r.out.find("\n    typestar accept " + spec.string() + " --force\n"), std::string::npos) << r.out;
}

}  // namespace
