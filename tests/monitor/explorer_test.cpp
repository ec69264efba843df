#include "typestar/monitor/explorer.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "monitor_fixtures.hpp"

namespace typestar {
namespace {

// A fake AsyncTask: reports each callin to the session's monitor (the framework's side).
struct FakeTask {
    Monitor& monitor;
    void execute() { monitor.callin("execute"); }
    void cancel() { monitor.callin("cancel"); }
};

// A client with a bug that no ordinary test shows: after onCancelled it clears `busy_` "so the user
// can retry", but an AsyncTask runs at most once, so the retry calls execute() on a finished task.
// It happens only when onCancelled arrives between the user's cancel and the next load.
class Downloader {
public:
    Downloader(FakeTask task, bool fixed) : task_(task), fixed_(fixed) {}
    void load() {
        if (!busy_ && !done_) {
            task_.execute();
            busy_ = true;
        }
    }
    void cancel() {
        if (busy_) task_.cancel();
    }
    void on_post_execute() {
        busy_ = false;
        done_ = true;
    }
    void on_cancelled() {
        busy_ = false;
        if (fixed_) done_ = true;  // the fix: a cancelled task is finished too
    }
    [[nodiscard]] bool done() const { return done_; }

private:
    FakeTask task_;
    bool fixed_;
    bool busy_ = false;
    bool done_ = false;
};

ExplorationSetup downloader_setup(bool fixed) {
    return [fixed](ExplorationSession& s) {
        auto app = std::make_shared<Downloader>(FakeTask{s.monitor()}, fixed);
        s.action("load", [app] { app->load(); });
        s.action("cancel", [app] { app->cancel(); });
        s.listen("onPostExecute", [app] { app->on_post_execute(); });
        s.listen("onCancelled", [app] { app->on_cancelled(); });
    };
}

std::shared_ptr<const MonitorModel> async_task_model() {
    return std::make_shared<const MonitorModel>(monitor_test::async_task());
}

TEST(Explorer, TheOrdinaryTestsOfTheBuggyDownloaderPass) {
    // What a developer would write: load, the result arrives; load, cancel, onCancelled.
    for (const auto* schedule : {"load <onPostExecute load", "load cancel <onCancelled", "load load cancel"}) {
        const Explorer explorer(async_task_model(), downloader_setup(false));
        EXPECT_EQ(explorer.replay(schedule), std::nullopt) << schedule;
    }
}

TEST(Explorer, FindsTheBugOnlyInANonObviousCallbackInterleaving) {
    const Explorer short_runs(async_task_model(), downloader_setup(false), ExploreOptions{.bound = 3});
    const auto three = short_runs.run();
    EXPECT_TRUE(three.ok()) << three.summary();  // no schedule of 3 steps shows it
    EXPECT_TRUE(three.complete);

    const Explorer explorer(async_task_model(), downloader_setup(false), ExploreOptions{.bound = 5, .keep_failures = 1000});
    const auto result = explorer.run();
    EXPECT_TRUE(result.complete);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.failures.size(), result.failed);
    std::set<std::string> failing;
    for (const auto& f : result.failures) {
        failing.insert(f.schedule_text());
        // Every failure is the retry after onCancelled: execute() on a Completed task.
        ASSERT_TRUE(f.violation.has_value()) << f.message;
        EXPECT_EQ(f.violation->kind, ViolationKind::DisabledCallin);
        EXPECT_EQ(f.violation->symbol, "execute");
        EXPECT_EQ(f.violation->state, "Completed");
        EXPECT_EQ(f.schedule.back(), "load");
        const auto cancelled = f.schedule_text().find("<onCancelled");
        ASSERT_NE(cancelled, std::string::npos) << f.schedule_text();
        EXPECT_LT(f.schedule_text().find("cancel"), cancelled);
        // The failing step is the last one: runs stop at the first violation.
        EXPECT_EQ(f.trace.substr(f.trace.size() - std::string("<onCancelled").size()), "<onCancelled");
    }
    EXPECT_TRUE(failing.count("load cancel <onCancelled load")) << result.summary();
    EXPECT_TRUE(failing.count("load load cancel <onCancelled load")) << result.summary();
    // ... while cancel, load, then onCancelled is fine (the task is still busy).
    EXPECT_EQ(explorer.replay("load cancel load <onCancelled"), std::nullopt);

    const auto again = explorer.replay("load cancel <onCancelled load");
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(again->violation->message(),
              "callin execute() is disabled in state Completed of AsyncTask\n"
              "  allowed: >cancel\n"
              "  trace:   >execute >cancel <onCancelled [>execute]");
    EXPECT_EQ(again->trace, ">execute >cancel <onCancelled");
}

TEST(Explorer, TheFixedDownloaderPassesEveryInterleavingUpToSix) {
    const Explorer explorer(async_task_model(), downloader_setup(true), ExploreOptions{.bound = 6});
    const auto result = explorer.run();
    EXPECT_TRUE(result.ok()) << result.summary();
    EXPECT_TRUE(result.complete);
    EXPECT_GT(result.interleavings, 100u);
    EXPECT_EQ(result.summary(), std::to_string(result.interleavings) +
                                    " interleavings up to bound 6 (every schedule of the bound): no violation. "
                                    "Bounded evidence: longer or other schedules are untested.");
}

// A client that makes exactly the callins its actions name, when they are enabled: the number of
// schedules is then computable from the model alone, independently of the explorer.
std::uint64_t schedules(const MonitorModel& m, StateId s, std::size_t bound, const std::vector<Event>& actions) {
    if (bound == 0) return 1;
    std::uint64_t n = 0;
    for (const auto& a : actions) n += schedules(m, m.step(s, a).value_or(s), bound - 1, actions);
    if (const auto cb = m.pending(s)) n += schedules(m, *m.step(s, Event::callback(*cb)), bound - 1, actions);
    return n;
}

TEST(Explorer, ExhaustiveCoversEverySchedule) {
    const auto model = async_task_model();
    auto setup = [](ExplorationSession& s) {
        Monitor* m = &s.monitor();
        for (const auto* name : {"cancel", "execute"})
            s.action(name, [m, name] {
                if (m->can_callin(name)) m->callin(name);
            });
    };
    for (std::size_t bound = 0; bound <= 5; ++bound) {
        const auto result = Explorer(model, setup, ExploreOptions{.bound = bound}).run();
        EXPECT_EQ(result.interleavings,
                  schedules(*model, model->initial(), bound, {model->callin("cancel"), model->callin("execute")}))
            << "bound " << bound;
        EXPECT_TRUE(result.complete);
        EXPECT_TRUE(result.ok());
    }
}

TEST(Explorer, ASeedPermutesTheOrderButNotTheSet) {
    auto failing = [](const ExploreResult& r) {
        std::set<std::string> out;
        for (const auto& f : r.failures) out.insert(f.schedule_text());
        return out;
    };
    const auto plain = Explorer(async_task_model(), downloader_setup(false),
                                ExploreOptions{.bound = 5, .keep_failures = 1000})
                           .run();
    const auto seeded = Explorer(async_task_model(), downloader_setup(false),
                                 ExploreOptions{.bound = 5, .seed = 42, .keep_failures = 1000})
                            .run();
    EXPECT_EQ(plain.interleavings, seeded.interleavings);
    EXPECT_EQ(plain.failed, seeded.failed);
    EXPECT_EQ(failing(plain), failing(seeded));
    std::vector<std::string> plain_order, seeded_order;
    for (const auto& f : plain.failures) plain_order.push_back(f.schedule_text());
    for (const auto& f : seeded.failures) seeded_order.push_back(f.schedule_text());
    EXPECT_NE(plain_order, seeded_order);
    for (const auto& f : seeded.failures) EXPECT_EQ(f.seed, 42u);
}

TEST(Explorer, RandomStrategyIsDeterministicAndReplayableBySeed) {
    const ExploreOptions options{.bound = 6, .strategy = ExploreStrategy::Random, .seed = 7, .runs = 200};
    const Explorer explorer(async_task_model(), downloader_setup(false), options);
    const auto a = explorer.run();
    const auto b = explorer.run();
    EXPECT_EQ(a.interleavings, 200u);
    EXPECT_FALSE(a.complete);
    EXPECT_EQ(a.summary(), b.summary());
    ASSERT_FALSE(a.ok()) << a.summary();
    const auto& first = a.failures.front();
    // That run's seed with runs = 1 draws the same schedule again.
    auto one = options;
    one.seed = first.seed;
    one.runs = 1;
    const auto rerun = Explorer(async_task_model(), downloader_setup(false), one).run();
    ASSERT_EQ(rerun.failures.size(), 1u);
    EXPECT_EQ(rerun.failures[0].schedule, first.schedule);
    EXPECT_EQ(rerun.failures[0].seed, first.seed);
    // And its schedule replays to the same violation.
    const auto replayed = explorer.replay(first.schedule);
    ASSERT_TRUE(replayed.has_value());
    EXPECT_EQ(replayed->message, first.message);
}

TEST(Explorer, StopAtFirstFailureAndMaxRuns) {
    const auto stopped = Explorer(async_task_model(), downloader_setup(false),
                                  ExploreOptions{.bound = 5, .stop_at_first_failure = true})
                             .run();
    EXPECT_EQ(stopped.failed, 1u);
    EXPECT_FALSE(stopped.complete);
    const auto capped =
        Explorer(async_task_model(), downloader_setup(true), ExploreOptions{.bound = 5, .max_runs = 10}).run();
    EXPECT_EQ(capped.interleavings, 10u);
    EXPECT_FALSE(capped.complete);
    EXPECT_NE(capped.summary().find("(not every schedule of the bound)"), std::string::npos);
}

TEST(Explorer, SummaryListsFailuresWithSeedScheduleAndReplay) {
    // At bound 4 exactly one schedule reaches the bug: load, cancel, onCancelled, load.
    const auto result = Explorer(async_task_model(), downloader_setup(false), ExploreOptions{.bound = 4}).run();
    ASSERT_EQ(result.failed, 1u) << result.summary();
    EXPECT_EQ(result.summary(),
              std::to_string(result.interleavings) +
                  " interleavings up to bound 4 (every schedule of the bound): 1 failed.\n"
                  "  seed 0, schedule: load cancel <onCancelled load\n"
                  "    callin execute() is disabled in state Completed of AsyncTask\n"
                  "      allowed: >cancel\n"
                  "      trace:   >execute >cancel <onCancelled [>execute]\n"
                  "    replay: explorer.replay(\"load cancel <onCancelled load\")");
    const auto more = Explorer(async_task_model(), downloader_setup(false),
                               ExploreOptions{.bound = 5, .keep_failures = 1})
                          .run();
    ASSERT_GT(more.failed, 1u);
    EXPECT_EQ(more.failures.size(), 1u);
    // The shortest failure is kept, although depth-first order (load before cancel before the
    // callback) finds "load load cancel <onCancelled load" first.
    EXPECT_EQ(more.failures[0].schedule_text(), "load cancel <onCancelled load");
    EXPECT_NE(more.summary().find(": " + std::to_string(more.failed) + " failed (1 shortest shown).\n"), std::string::npos);
    const auto two = Explorer(async_task_model(), downloader_setup(false),
                              ExploreOptions{.bound = 5, .keep_failures = 2})
                         .run();
    ASSERT_EQ(two.failures.size(), 2u);
    EXPECT_EQ(two.failures[0].schedule_text(), "load cancel <onCancelled load");
    EXPECT_EQ(two.failures[1].schedule_text(), "load load cancel <onCancelled load");  // first found of length 5
}

TEST(Explorer, ExceptionsAndEndChecksFailARun) {
    auto setup = [](ExplorationSession& s) {
        auto app = std::make_shared<Downloader>(FakeTask{s.monitor()}, true);
        s.action("load", [app] { app->load(); });
        s.listen("onPostExecute", [] { throw std::runtime_error("listener crashed"); });
        s.at_end([app] {
            if (app->done()) throw std::runtime_error("done too early");
        });
    };
    const Explorer explorer(async_task_model(), setup, ExploreOptions{.bound = 2});
    const auto crash = explorer.replay("load <onPostExecute");
    ASSERT_TRUE(crash.has_value());
    EXPECT_EQ(crash->message, "exception: listener crashed");
    EXPECT_FALSE(crash->violation.has_value());
    EXPECT_EQ(explorer.replay("load load"), std::nullopt);

    auto ends_done = [](ExplorationSession& s) {
        s.action("noop", [] {});
        s.at_end([] { throw std::runtime_error("invariant broken"); });
    };
    const auto end = Explorer(async_task_model(), ends_done, ExploreOptions{.bound = 1}).run();
    ASSERT_EQ(end.failed, 1u);
    EXPECT_EQ(end.failures[0].message, "at_end check failed: exception: invariant broken");
}

TEST(Explorer, ReplayDiagnosticsAreExact) {
    const Explorer explorer(async_task_model(), downloader_setup(false));
    auto message = [&](const std::string& schedule) {
        try {
            (void)explorer.replay(schedule);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no exception");
    };
    EXPECT_EQ(message("load sleep"), "replay: step 2 'sleep': unknown action (actions: load, cancel)");
    EXPECT_EQ(message("<onCancelled"), "replay: step 1 '<onCancelled': no callback is owed there");
    EXPECT_EQ(message("load <onCancelled"), "replay: step 2 '<onCancelled': the state owes <onPostExecute instead");
}

TEST(Explorer, SetupMistakesAreErrors) {
    const auto none = Explorer(async_task_model(), [](ExplorationSession&) {});
    EXPECT_THROW((void)none.run(), Error);
    int calls = 0;
    const auto changing = Explorer(async_task_model(), [&](ExplorationSession& s) {
        const bool first = ++calls == 1;
        s.action(first ? "a" : "b", [] {});
        s.action(first ? "b" : "a", [] {});
    });
    EXPECT_THROW((void)changing.run(), Error);
    EXPECT_THROW(Explorer(nullptr, [](ExplorationSession&) {}), std::invalid_argument);
    EXPECT_THROW(Explorer(async_task_model(), ExplorationSetup{}), std::invalid_argument);
    ExplorationSession s(async_task_model());
    EXPECT_THROW(s.action("", [] {}), std::invalid_argument);
    EXPECT_THROW(s.action("<x", [] {}), std::invalid_argument);
    EXPECT_THROW(s.action("a b", [] {}), std::invalid_argument);
    s.action("a", [] {});
    EXPECT_THROW(s.action("a", [] {}), std::invalid_argument);
    EXPECT_EQ(s.action_names(), std::vector<std::string>{"a"});
}

}  // namespace
}  // namespace typestar
