// `typestar check SPEC --device URL --format json` (typestar-check/2): the object the JUnit 5 and
// node:test runners read, one result per planned test, composed by the session (issue 35/36).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
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
    EXPECT_EQ(j.at("format"), "typestar-check/2");
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

TEST_F(CliCheckJson, ATimingFailureCarriesWhatBrokeAsDataAndProposesNothing) {
    // The simulated AsyncTask's callbacks come 4-8 ms after their callin; a tmax of 2 ms breaks the
    // timing on every run. Before, the runners had only the message's text (issue 36: "timing
    // violations as data").
    const Result r = run({"check", kAsyncTask, "--device", "inproc:asynctask", "--tmax", "2", "--tmin", "0",
                          "--format", "json", "--propose"});
    EXPECT_EQ(r.status, 2) << r.err << r.out;
    const auto j = nlohmann::json::parse(r.out);
    expect_schema(j);
    EXPECT_EQ(j.at("verdict"), "timing");
    EXPECT_TRUE(j.at("proposal").is_null()) << j.at("proposal").dump(2);  // a timing failure proposes nothing
    std::size_t timing = 0;
    for (const auto& t : j.at("tests")) {
        if (t.at("failure") != "timing") {
            EXPECT_TRUE(t.at("timing_failure").is_null()) << t.dump(2);
            continue;
        }
        ++timing;
        const auto& f = t.at("timing_failure");
        EXPECT_EQ(f.at("kind"), "late") << f.dump();
        EXPECT_TRUE(f.at("callback") == "onPostExecute" || f.at("callback") == "onCancelled") << f.dump();
        EXPECT_GT(f.at("delay_ms").get<double>(), 2.0) << f.dump();
        EXPECT_EQ(f.at("tmax_ms"), 2.0);
        EXPECT_EQ(f.at("tmin_ms"), 0.0);
        // the word and its four re-runs; one found after its query had answered stops at once
        EXPECT_EQ(f.at("runs"), f.at("earlier_query").get<bool>() ? 1 : 5) << f.dump();
        EXPECT_NE(t.at("message").get<std::string>().find("no spec is proposed"), std::string::npos) << t.dump(2);
    }
    EXPECT_GT(timing, 0u) << j.dump(2);
}

/// The mutant copied into the test's directory (a proposal is written next to it).
std::string copy_mutant(const std::filesystem::path& dir) {
    const auto to = dir / "m.yaml";
    std::filesystem::copy_file(kMutant, to, std::filesystem::copy_options::overwrite_existing);
    return to.string();
}

TEST_F(CliCheckJson, AFailingRunCarriesTheSessionsProposalAndWhichTestsTransitionChanged) {
    const std::string spec = copy_mutant(dir_);
    const Result r = run({"check", spec, "--device", "model:" + kMediaPlayer, "--format", "json", "--propose"});
    EXPECT_EQ(r.status, 1) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    expect_schema(j);
    EXPECT_EQ(j.at("format"), "typestar-check/2");
    const auto& p = j.at("proposal");
    EXPECT_EQ(p.at("status"), "written") << p.dump(2);
    EXPECT_EQ(p.at("path"), (dir_ / "m.proposed.yaml").string());
    EXPECT_TRUE(std::filesystem::exists(dir_ / "m.proposed.yaml"));
    // The diff as data: the stored spec's `stop` transitions changed, to a state it has not.
    ASSERT_TRUE(p.at("diff").is_object());
    std::set<std::string> changed;
    for (const auto& c : p.at("diff").at("changes")) {
        EXPECT_EQ(c.at("input"), "stop") << c.dump();
        changed.insert(c.at("state").get<std::string>());
    }
    EXPECT_EQ(changed.count("Started"), 1u) << p.at("diff").dump(2);
    EXPECT_FALSE(p.at("diff").at("new_only_states").empty());
    // Per test: whether its own transition changed, the failing word as data and its trace.
    std::size_t mine = 0, through = 0, reported = 0;
    for (const auto& t : j.at("tests")) {
        if (t.at("status") != "failed") {
            EXPECT_TRUE(t.at("transition_changed").is_null()) << t.dump();
            continue;
        }
        const bool own = t.at("transition_changed").get<bool>();
        EXPECT_EQ(own, t.at("input") == "stop" && changed.count(t.at("state").get<std::string>()) == 1) << t.dump();
        own ? ++mine : ++through;
        const std::string m = t.at("message");
        EXPECT_NE(m.find(own ? "<- this test's transition" : "did not change: its words pass through"), std::string::npos) << m;
        reported += m.find("Stored -> proposed (typestar diff)") != std::string::npos;
        const auto& cex = t.at("counterexample");
        const auto k = cex.at("first_difference").get<std::size_t>();
        EXPECT_NE(cex.at("expected").at(k), cex.at("actual").at(k)) << cex.dump();
        EXPECT_EQ(t.at("trace").size(), cex.at("inputs").size());
        EXPECT_NE(t.at("trace_text").get<std::string>().find("<- differs"), std::string::npos);
    }
    EXPECT_GT(mine, 0u);
    EXPECT_GT(through, 0u);
    EXPECT_EQ(reported, 1u);  // the full diff once, the others point to it
    // The accept command works as printed: the proposal has a state the spec has not (--auto).
    const std::string accept = p.at("accept");
    EXPECT_NE(accept.find(" --auto"), std::string::npos) << accept;
    std::vector<std::string> args;
    std::istringstream words(accept.substr(std::string("typestar ").size()));
    for (std::string w; words >> w;) args.push_back(w);
    const Result a = run(args);
    EXPECT_EQ(a.status, 0) << accept << "\n" << a.err;
    EXPECT_EQ(run({"check", spec, "--device", "model:" + kMediaPlayer}).status, 0);
}

TEST_F(CliCheckJson, UpdateModeKeepsTheStoredNamesWritesTheSpecAndPasses) {
    const std::string spec = copy_mutant(dir_);
    const Result r = run({"check", spec, "--device", "model:" + kMediaPlayer, "--format", "json", "--update"});
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("verdict"), "pass");
    EXPECT_EQ(j.at("proposal").at("status"), "updated");
    EXPECT_FALSE(std::filesystem::exists(dir_ / "m.proposed.yaml"));
    std::size_t updated = 0;
    for (const auto& t : j.at("tests")) {
        EXPECT_EQ(t.at("status"), "passed") << t.dump();
        updated += t.at("updated").get<bool>();
    }
    EXPECT_GT(updated, 0u);
    const std::string written = testing_support::read(spec);
    for (const char* kept : {"  Started:", "  PreparedSync:", "  Paused:"})
        EXPECT_NE(written.find(kept), std::string::npos) << kept << " in\n" << written;
    EXPECT_EQ(run({"check", spec, "--device", "model:" + kMediaPlayer}).status, 0);
    // CI beats update mode: nothing is written, the proposal is printed.
    const std::string again = copy_mutant(dir_);
    const Result ci = run({"check", again, "--device", "model:" + kMediaPlayer, "--format", "json", "--update", "--ci"});
    EXPECT_EQ(ci.status, 1);
    const auto c = nlohmann::json::parse(ci.out).at("proposal");
    EXPECT_EQ(c.at("status"), "printed");
    EXPECT_TRUE(c.at("path").is_null());
    EXPECT_NE(c.at("yaml").get<std::string>().find("states:"), std::string::npos);
    EXPECT_EQ(testing_support::read(again), testing_support::read(kMutant));
}

TEST_F(CliCheckJson, AFirstRunLearnsWithTheSessionAndGivesTheAcceptCommandThatWorks) {
    const std::string spec = (dir_ / "new.yaml").string();
    const Result ci = run({"check", spec, "--device", "model:" + kMediaPlayer, "--format", "json", "--propose", "--ci"});
    EXPECT_EQ(ci.status, 1);
    EXPECT_NE(nlohmann::json::parse(ci.out).at("summary").get<std::string>().find("CI is set"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(dir_ / "new.proposed.yaml"));

    const Result r = run({"check", spec, "--device", "model:" + kMediaPlayer, "--format", "json", "--propose", "--bound", "3",
                          "--bound-from", "-Dtypestar.bound=3"});
    EXPECT_EQ(r.status, 1) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("verdict"), "fail");
    // The runners print the summary as given: who asked for the bound is the session's sentence.
    const std::string said = j.at("summary");
    EXPECT_NE(said.find("\n(The bound was asked by -Dtypestar.bound=3.)\n"), std::string::npos) << said;
    EXPECT_EQ(said.find("Review and commit it."), std::string::npos) << said;  // only a spec written is committed
    EXPECT_EQ(j.at("learned").at("bound"), 3);
    EXPECT_EQ(j.at("learned").at("learner"), "lsharp");
    EXPECT_GT(j.at("learned").at("states").get<int>(), 1);
    const std::string accept = j.at("proposal").at("accept");
    EXPECT_EQ(accept, "typestar accept " + spec + " --auto");
    EXPECT_EQ(run({"accept", spec, "--auto"}).status, 0);
    EXPECT_EQ(run({"check", spec, "--device", "model:" + kMediaPlayer}).status, 0);

    const std::string updated = (dir_ / "updated.yaml").string();
    const Result u = run({"check", updated, "--device", "model:" + kMediaPlayer, "--format", "json", "--update"});
    EXPECT_EQ(u.status, 0) << u.err;
    EXPECT_EQ(nlohmann::json::parse(u.out).at("verdict"), "pass");
    const std::string written = nlohmann::json::parse(u.out).at("summary");
    EXPECT_EQ(written.substr(written.size() - std::string("Review and commit it.\n").size()), "Review and commit it.\n") << written;
    EXPECT_TRUE(std::filesystem::exists(updated));
}

TEST_F(CliCheckJson, BoundAutoLearnsAFirstRunRaisingTheBoundAndIsRefusedWhereNothingIsLearned) {
    // Issue 36: a runner's `bound: 'auto'` reached the CLI as nothing (a first run learned at B=2
    // and said so). Now the first run learns as `learn --bound auto` does and says where it stopped.
    const std::string spec = (dir_ / "auto.yaml").string();
    const Result r = run({"check", spec, "--device", "model:" + kMediaPlayer, "--format", "json", "--propose",
                          "--bound", "auto"});
    EXPECT_EQ(r.status, 1) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_GE(j.at("learned").at("bound").get<int>(), 2) << j.dump(2);
    const std::string summary = j.at("learned").at("summary");
    EXPECT_TRUE(summary.find("B+1 finds nothing") != std::string::npos ||
                summary.find("was not checked") != std::string::npos)
        << summary;
    // Text mode checks at a bound: 'auto' is refused with the reason, and so is a bound that is not a number.
    const Result text = run({"check", kMediaPlayer, "--device", "model:" + kMediaPlayer, "--bound", "auto"});
    EXPECT_EQ(text.status, 2);
    EXPECT_NE(text.err.find("--bound auto applies to --format json"), std::string::npos) << text.err;
    const Result bad = run({"check", kMediaPlayer, "--device", "model:" + kMediaPlayer, "--bound", "two"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--bound takes a number, found 'two'"), std::string::npos) << bad.err;
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
