// `typestar check SPEC --device URL --format json` (typestar-check/1): the object the JUnit 5 and
// node:test runners read, one result per planned test, composed by the session (issue 35/36).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"

namespace typestar::spec {
namespace {

using testing_support::kAsyncTask;
using testing_support::kMediaPlayer;
using testing_support::kSource;
using testing_support::Result;

const std::string kMutant = kSource + "/tests/cli/fixtures/mediaplayer_stop_refused.yaml";

class CliCheckJson : public testing_support::CliTest {
protected:
    CliCheckJson() : CliTest("typestar_cli_check_json_test_") {}
    Result run(const std::vector<std::string>& args) const { return run_cli(args, ""); }
};

/// Every key of the schema, and the statuses adding up to the tests.
void expect_schema(const nlohmann::json& j) {
    for (const char* key : {"format", "spec", "name", "kind", "bound", "method", "verdict", "exit_code", "summary",
                            "assumptions", "timing", "reproduce", "stats", "tests", "not_tested"})
        EXPECT_TRUE(j.contains(key)) << key << " in " << j.dump(2);
    EXPECT_EQ(j.at("format"), "typestar-check/1");
    EXPECT_EQ(j.at("method"), "alg2");
    for (const char* key : {"tmax_ms", "spec_tmax_ms", "max_delay_ms", "note"}) EXPECT_TRUE(j.at("timing").contains(key));
    for (const char* key : {"queries_executed", "symbols_executed", "waits_executed"})
        EXPECT_TRUE(j.at("stats").contains(key));
    const std::set<std::string> statuses{"passed", "failed", "not_tested", "skipped"};
    for (const auto& t : j.at("tests")) {
        for (const char* key : {"name", "state", "input", "line", "status", "message", "reason", "words"})
            EXPECT_TRUE(t.contains(key)) << key << " in " << t.dump();
        EXPECT_EQ(statuses.count(t.at("status").get<std::string>()), 1u) << t.dump();
    }
}

TEST_F(CliCheckJson, AFailingTransitionCarriesTheTraceAndTheReproduceLine) {
    const Result text = run({"check", kMutant, "--device", "model:" + kMediaPlayer});
    const Result r = run({"check", kMutant, "--device", "model:" + kMediaPlayer, "--format", "json"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.status, text.status);  // exit codes as the text mode
    const auto j = nlohmann::json::parse(r.out);
    expect_schema(j);
    EXPECT_EQ(j.at("verdict"), "fail");
    EXPECT_EQ(j.at("exit_code"), 1);
    EXPECT_EQ(j.at("kind"), "typestate");
    EXPECT_EQ(j.at("bound"), 2);
    EXPECT_EQ(j.at("reproduce"), "typestar check " + kMutant + " --device model:" + kMediaPlayer + " --bound 2");
    std::size_t failed = 0, passed = 0;
    for (const auto& t : j.at("tests")) {
        if (t.at("status") == "passed") ++passed;
        if (t.at("status") != "failed") continue;
        ++failed;
        const std::string m = t.at("message");
        EXPECT_NE(m.find("the device does not conform to the spec"), std::string::npos) << m;
        EXPECT_NE(m.find("<- differs"), std::string::npos) << m;
        EXPECT_NE(m.find("Reproduce: typestar check"), std::string::npos) << m;
        EXPECT_EQ(t.at("failure"), "counterexample");
        EXPECT_GT(t.at("words").get<int>(), 0);
    }
    EXPECT_GT(failed, 0u);
    EXPECT_GT(passed, 0u);  // a difference fails only the tests whose words meet it
    EXPECT_NE(j.at("summary").get<std::string>().find(std::to_string(failed) + " failed"), std::string::npos);
    EXPECT_GT(j.at("stats").at("queries_executed").get<int>(), 0);

    const Result same = run({"check", kMediaPlayer, "--device", "model:" + kMediaPlayer, "--format", "json"});
    EXPECT_EQ(same.status, 0) << same.err;
    const auto p = nlohmann::json::parse(same.out);
    EXPECT_EQ(p.at("verdict"), "pass");
    EXPECT_FALSE(p.at("assumptions").empty());
    for (const auto& t : p.at("tests")) EXPECT_EQ(t.at("status"), "passed") << t.dump();
}

TEST_F(CliCheckJson, UnknownTransitionsAreNotTestedOnceWithTheirReason) {
    const std::string spec = kSource + "/specs/asynctask_purpose.yaml";
    const Result r = run({"check", spec, "--device", "model:" + kAsyncTask, "--format", "json"});
    EXPECT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    expect_schema(j);
    EXPECT_EQ(j.at("not_tested").at("count"), 3);
    EXPECT_NE(j.at("not_tested").at("reason").get<std::string>().find("unknown (purpose"), std::string::npos);
    std::size_t untested = 0;
    for (const auto& t : j.at("tests")) {
        if (t.at("status") != "not_tested") continue;
        ++untested;
        EXPECT_EQ(t.at("input"), "cancel");
        EXPECT_NE(t.at("reason").get<std::string>().find("unknown"), std::string::npos);
        EXPECT_EQ(t.at("words"), 0);
    }
    EXPECT_EQ(untested, 3u);
    bool named = false;  // a pass names what it did not test among its assumptions
    for (const auto& a : j.at("assumptions")) named = named || a.get<std::string>().find("unknown transition(s)") != std::string::npos;
    EXPECT_TRUE(named) << j.at("assumptions").dump(2);
}

TEST_F(CliCheckJson, ARegisterAutomatonGivesOneResultPerTransition) {
    const std::string mutant = kSource + "/tests/cli/fixtures/ra/pq_poll_mutant.yaml";
    const std::string truth = kSource + "/specs/ra/std_priority_queue.yaml";
    const Result r = run({"check", mutant, "--device", "model:" + truth, "--format", "json"});
    EXPECT_EQ(r.status, 1) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    expect_schema(j);
    EXPECT_EQ(j.at("kind"), "register-automaton");
    EXPECT_EQ(j.at("verdict"), "fail");
    bool traced = false;
    for (const auto& t : j.at("tests"))
        if (t.at("status") == "failed")
            traced = traced || t.at("message").get<std::string>().find("data trace") != std::string::npos;
    EXPECT_TRUE(traced) << r.out;
    const Result ok = run({"check", truth, "--device", "model:" + truth, "--format", "json"});
    EXPECT_EQ(ok.status, 0) << ok.err;
    EXPECT_EQ(nlohmann::json::parse(ok.out).at("verdict"), "pass");
}

TEST_F(CliCheckJson, TheTimingInForceAndTheSpecsAreBothReported) {
    // asynctask.yaml declares tmax 200 ms; the run's tmax is set to 60 ms.
    const Result r = run({"check", kAsyncTask, "--device", "inproc:asynctask", "--tmax", "60", "--format", "json"});
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    const auto j = nlohmann::json::parse(r.out);
    expect_schema(j);
    const auto& t = j.at("timing");
    EXPECT_EQ(t.at("tmax_ms"), 60.0);
    EXPECT_EQ(t.at("spec_tmax_ms"), 200.0);
    EXPECT_TRUE(t.at("max_delay_ms").is_number());
    EXPECT_NE(t.at("note").get<std::string>().find("the spec declares 200 ms"), std::string::npos) << t.dump();
    std::size_t tmax_lines = 0;  // one tmax assumption, not one per test's observed delay
    for (const auto& a : j.at("assumptions")) tmax_lines += a.get<std::string>().find("tmax=") != std::string::npos;
    EXPECT_EQ(tmax_lines, 1u) << j.at("assumptions").dump(2);
}

TEST_F(CliCheckJson, ARunThatCannotStartIsAnErrorObject) {
    const Result missing = run({"check", "nowhere.yaml", "--device", "model:" + kMediaPlayer, "--format", "json"});
    EXPECT_EQ(missing.status, 2);
    const auto j = nlohmann::json::parse(missing.out);
    EXPECT_EQ(j.at("verdict"), "error");
    EXPECT_EQ(j.at("exit_code"), 2);
    EXPECT_TRUE(j.at("tests").empty());
    EXPECT_FALSE(missing.err.empty());
    EXPECT_EQ(run({"check", kMediaPlayer, "--device", "model:" + kMediaPlayer, "--format", "json", "--method", "wp"}).status, 2);
    EXPECT_EQ(run({"check", kMediaPlayer, "--device", "model:" + kMediaPlayer, "--format", "xml"}).status, 2);
}

}  // namespace
}  // namespace typestar::spec
