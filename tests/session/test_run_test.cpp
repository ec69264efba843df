// A spec's test plan run by the session, one test at a time (SpecKind::test_run,
// typestar/session/test_run.hpp): the results every front end reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "typestar/session/document.hpp"
#include "typestar/session/kind.hpp"
#include "typestar/session/test_run.hpp"

namespace typestar {
namespace {

const std::string kSource = TYPESTAR_SOURCE_DIR;

/// Every test of `spec` on `device` (a URL), through one run.
struct Ran {
    Document document;
    Subject subject;
    std::unique_ptr<SpecTestRun> run;
    std::vector<TestResult> results;
};

Ran run_all(const std::string& spec, const std::string& url, TestRunOptions options = {}) {
    Ran r{load_document(spec), open_subject(url), nullptr, {}};
    r.run = kind_of(r.document).test_run(r.document, r.subject, options);
    for (std::size_t i = 0; i < r.run->plan().size(); ++i) r.results.push_back(r.run->run(i));
    return r;
}

const TestResult& named(const Ran& r, const std::string& name) {
    const auto it = std::find_if(r.results.begin(), r.results.end(), [&](const TestResult& t) { return t.test.name == name; });
    if (it == r.results.end()) throw std::out_of_range(name);
    return *it;
}

TEST(TestRun, AFailingTransitionGivesItsTraceAndCounterexampleAndTheOthersPass) {
    // The fixture refuses `stop` in Stopped; the model (the real MediaPlayer spec) accepts it.
    const Ran r = run_all(kSource + "/tests/cli/fixtures/mediaplayer_stop_refused.yaml",
                          "model:" + kSource + "/specs/mediaplayer.yaml");
    ASSERT_EQ(r.results.size(), r.run->plan().size());
    const TestResult& own = named(r, "Stopped_stop");
    EXPECT_EQ(own.status, TestStatus::Failed);
    EXPECT_EQ(own.failure, TestFailure::Counterexample);
    ASSERT_TRUE(own.counterexample.has_value());
    EXPECT_NE(own.message.find("the device does not conform to the spec"), std::string::npos) << own.message;
    EXPECT_NE(own.message.find("<- differs"), std::string::npos) << own.message;
    EXPECT_NE(own.message.find("Reproduce: typestar check"), std::string::npos) << own.message;
    EXPECT_EQ(own.transition, "Stopped stop");
    EXPECT_GT(own.words, 0u);
    const auto passed = std::count_if(r.results.begin(), r.results.end(),
                                      [](const TestResult& t) { return t.status == TestStatus::Passed; });
    EXPECT_GT(passed, 0);
    for (const auto& t : r.results)
        if (t.status == TestStatus::Passed) {
            EXPECT_FALSE(t.assumptions.empty()) << t.test.name;
            EXPECT_NE(t.message.find("passed: bounded evidence, relying on:"), std::string::npos) << t.message;
        }
    EXPECT_FALSE(r.run->assumptions().empty());
    EXPECT_GT(r.run->stats().total().queries_executed, 0u);
    EXPECT_EQ(r.run->reproduce(), "typestar check " + kSource + "/tests/cli/fixtures/mediaplayer_stop_refused.yaml" +
                                      " --device model:" + kSource + "/specs/mediaplayer.yaml --bound 2");
}

TEST(TestRun, AnUnknownTransitionIsNotTestedNeverPassedAndNamedAmongTheAssumptions) {
    const Ran r = run_all(kSource + "/specs/asynctask_purpose.yaml", "model:" + kSource + "/specs/asynctask.yaml");
    std::size_t untested = 0;
    for (const auto& t : r.results) {
        if (t.test.unknown.empty()) {
            EXPECT_EQ(t.status, TestStatus::Passed) << t.test.name << ": " << t.message;
            continue;
        }
        ++untested;
        EXPECT_EQ(t.status, TestStatus::NotTested) << t.test.name;
        EXPECT_NE(t.reason.find("unknown (purpose"), std::string::npos) << t.reason;
        EXPECT_NE(t.message.find("is unknown"), std::string::npos) << t.message;
        EXPECT_EQ(t.words, 0u);
        // Known without a device: a front end reports it before making one.
        const auto early = unknown_result(r.document.path, t.test);
        ASSERT_TRUE(early.has_value());
        EXPECT_EQ(early->message, t.message);
        EXPECT_EQ(early->status, TestStatus::NotTested);
    }
    EXPECT_EQ(untested, 3u);
    EXPECT_FALSE(unknown_result(r.document.path, r.run->plan().front()).has_value());
    const auto a = r.run->assumptions();
    EXPECT_TRUE(std::any_of(a.begin(), a.end(), [](const std::string& s) {
        return s.rfind("3 unknown transition(s) of the spec were not tested", 0) == 0;
    }));
}

TEST(TestRun, ARegisterAutomatonRunsEachTransitionAgainstItsDataDevice) {
    const std::string truth = kSource + "/specs/ra/std_priority_queue.yaml";
    const Ran bad = run_all(kSource + "/tests/cli/fixtures/ra/pq_poll_mutant.yaml", "model:" + truth);
    std::size_t failed = 0;
    for (const auto& t : bad.results)
        if (t.status == TestStatus::Failed) {
            ++failed;
            EXPECT_EQ(t.failure, TestFailure::Counterexample);
            EXPECT_TRUE(t.data_counterexample.has_value());
            EXPECT_NE(t.message.find("does not conform to the register automaton"), std::string::npos);
            EXPECT_EQ(t.transition.rfind("location ", 0), 0u) << t.transition;
        }
    EXPECT_GT(failed, 0u);
    EXPECT_NE(bad.run->data_device(), nullptr);
    EXPECT_EQ(bad.run->device(), nullptr);

    const Ran good = run_all(truth, "model:" + truth);
    for (const auto& t : good.results) EXPECT_EQ(t.status, TestStatus::Passed) << t.test.name << ": " << t.message;
    EXPECT_FALSE(good.run->assumptions().empty());
}

TEST(TestRun, TheFrontEndNamesTheSuiteAndTheReproduceLine) {
    TestRunOptions options;
    options.suite = "Mine";
    options.reproduce = [](const std::string& test) { return "Reproduce: rerun " + test + "\n"; };
    const Ran r = run_all(kSource + "/tests/cli/fixtures/mediaplayer_stop_refused.yaml",
                          "model:" + kSource + "/specs/mediaplayer.yaml", options);
    const TestResult& own = named(r, "Stopped_stop");
    EXPECT_NE(own.message.find("typestar: Mine.Stopped_stop: "), std::string::npos) << own.message;
    EXPECT_NE(own.message.find("Reproduce: rerun Stopped_stop\n"), std::string::npos) << own.message;
}

TEST(TestRun, ADeviceOfTheOtherKindIsRefused) {
    const Document spec = load_document(kSource + "/specs/asynctask.yaml");
    Subject data = open_subject("model:" + kSource + "/specs/ra/std_priority_queue.yaml");
    EXPECT_THROW((void)kind_of(spec).test_run(spec, data, {}), std::invalid_argument);
}

}  // namespace
}  // namespace typestar
