#include "typestar/monitor/monitor.hpp"
#include "typestar/spec/monitor.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "monitor_fixtures.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using monitor_test::async_task;
using monitor_test::quiet_timer;

const std::string kAsyncTaskFile = std::string(TYPESTAR_SOURCE_DIR) + "/specs/asynctask.yaml";
const std::string kMediaPlayerFile = std::string(TYPESTAR_SOURCE_DIR) + "/specs/mediaplayer.yaml";

int line_in_file(const std::string& path, const std::string& text) {
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
        if (line == text) return n;
    return -1;
}

TEST(Monitor, FollowsAnAllowedTrace) {
    Monitor m(async_task());
    EXPECT_EQ(m.state(), "Start");
    EXPECT_TRUE(m.callin("execute"));
    EXPECT_EQ(m.state(), "Running");
    EXPECT_EQ(m.pending_callback(), "onPostExecute");
    EXPECT_TRUE(m.callin("cancel"));
    EXPECT_EQ(m.state(), "CancellingExecuted");
    EXPECT_TRUE(m.callback("onCancelled"));
    EXPECT_EQ(m.state(), "Completed");
    EXPECT_EQ(m.trace_text(), ">execute >cancel <onCancelled");
    EXPECT_EQ(m.event_count(), 3u);
    EXPECT_TRUE(m.ok());
    EXPECT_TRUE(m.finish());
}

TEST(Monitor, DisabledCallinIsAViolationWithStateAndTrace) {
    Monitor m(async_task());
    ASSERT_TRUE(m.callin("execute"));
    ASSERT_TRUE(m.callback("onPostExecute"));
    EXPECT_FALSE(m.callin("execute"));  // execute() twice: an AsyncTask runs once
    ASSERT_EQ(m.violation_count(), 1u);
    const Violation v = m.violations()[0];
    EXPECT_EQ(v.kind, ViolationKind::DisabledCallin);
    EXPECT_EQ(v.symbol, "execute");
    EXPECT_EQ(v.state, "Completed");
    EXPECT_EQ(v.allowed, (std::vector<std::string>{">cancel"}));
    EXPECT_EQ(v.trace, (std::vector<std::string>{">execute", "<onPostExecute"}));
    EXPECT_EQ(v.message(),
              "callin execute() is disabled in state Completed of AsyncTask\n"
              "  allowed: >cancel\n"
              "  trace:   >execute <onPostExecute [>execute]");
    // The refused callin changed nothing; checking goes on.
    EXPECT_EQ(m.state(), "Completed");
    EXPECT_EQ(m.trace_text(), ">execute <onPostExecute");
    EXPECT_EQ(m.event_count(), 3u);
    EXPECT_TRUE(m.callin("cancel"));
}

TEST(Monitor, UnexpectedCallbackIsAViolation) {
    Monitor m(async_task());
    EXPECT_FALSE(m.callback("onPostExecute"));
    ASSERT_EQ(m.violation_count(), 1u);
    EXPECT_EQ(m.violations()[0].message(),
              "callback onPostExecute() cannot be delivered in state Start of AsyncTask\n"
              "  allowed: >cancel >execute\n"
              "  trace:   [<onPostExecute]");
    ASSERT_TRUE(m.callin("cancel"));
    EXPECT_FALSE(m.callback("onPostExecute"));  // Cancelling owes onCancelled, not onPostExecute
    EXPECT_EQ(m.violations()[1].state, "Cancelling");
    EXPECT_EQ(to_string(m.violations()[1].kind), "unexpected callback");
}

TEST(Monitor, FinishReportsAPendingCallback) {
    Monitor m(async_task());
    ASSERT_TRUE(m.callin("execute"));
    EXPECT_FALSE(m.finish());
    ASSERT_EQ(m.violation_count(), 1u);
    const auto v = m.violations()[0];
    EXPECT_EQ(v.kind, ViolationKind::PendingCallback);
    EXPECT_EQ(v.symbol, "onPostExecute");
    EXPECT_EQ(v.message(),
              "callback onPostExecute() is still pending in state Running at the end of AsyncTask\n"
              "  allowed: >cancel <onPostExecute\n"
              "  trace:   >execute (owed: <onPostExecute)");
    ASSERT_TRUE(m.callback("onPostExecute"));
    EXPECT_TRUE(m.finish());
    EXPECT_EQ(m.violation_count(), 1u);
}

TEST(Monitor, FinishSeesCallbacksOwedAfterQuietMoves) {
    Monitor m(quiet_timer());
    ASSERT_TRUE(m.callin("sleep"));
    EXPECT_EQ(m.pending_callback(), "onRing");
    EXPECT_FALSE(m.finish());
    Monitor armed(quiet_timer());
    ASSERT_TRUE(armed.callin("arm"));
    EXPECT_TRUE(armed.finish());
    // arm again: only after the timer expired silently.
    EXPECT_TRUE(armed.callin("arm"));
    EXPECT_FALSE(armed.callin("sleep"));
    EXPECT_EQ(armed.state(), "Armed");
}

TEST(Monitor, ViolationsFromASpecNameItsFileAndLine) {
    Monitor m(spec::monitor_model_of(spec::load_spec(kAsyncTaskFile)));
    ASSERT_TRUE(m.callin("execute"));
    ASSERT_TRUE(m.callback("onPostExecute"));
    ASSERT_FALSE(m.callin("execute"));
    const auto v = m.violations().at(0);
    EXPECT_EQ(v.file, kAsyncTaskFile);
    EXPECT_EQ(v.line, line_in_file(kAsyncTaskFile, "  Completed:"));
    EXPECT_EQ(v.message().substr(0, kAsyncTaskFile.size() + 1 + std::to_string(v.line).size() + 2),
              kAsyncTaskFile + ":" + std::to_string(v.line) + ": ");
}

TEST(Monitor, MediaPlayerStartBeforeOnPrepared) {
    Monitor m(spec::monitor_model_of(spec::load_spec(kMediaPlayerFile)));
    ASSERT_TRUE(m.callin("setDataSource"));
    ASSERT_TRUE(m.callin("prepareAsync"));
    EXPECT_FALSE(m.callin("start"));
    const auto v = m.violations().at(0);
    EXPECT_EQ(v.state, "Preparing");
    EXPECT_EQ(v.line, line_in_file(kMediaPlayerFile, "  Preparing:"));
    EXPECT_EQ(v.allowed, (std::vector<std::string>{">release", ">reset", "<onPrepared"}));
    ASSERT_TRUE(m.callback("onPrepared"));
    EXPECT_TRUE(m.callin("start"));
}

TEST(Monitor, ThrowPolicyThrowsTheViolation) {
    Monitor m(async_task(), MonitorOptions{.policy = ViolationPolicy::Throw});
    ASSERT_TRUE(m.callin("execute"));
    try {
        m.callin("execute");
        FAIL() << "no exception";
    } catch (const ViolationError& e) {
        EXPECT_EQ(e.violation().state, "Running");
        EXPECT_EQ(std::string(e.what()), e.violation().message());
    }
    EXPECT_EQ(m.violation_count(), 1u);  // recorded as well
    EXPECT_THROW(m.finish(), ViolationError);
}

TEST(Monitor, HandlerPolicyCallsTheHandlerOutsideTheLock) {
    std::shared_ptr<Monitor> m;
    std::vector<std::string> seen;
    MonitorOptions options;
    options.policy = ViolationPolicy::Handler;
    options.handler = [&](const Violation& v) {
        // Re-entering the monitor from the handler must not deadlock.
        seen.push_back(v.symbol + "@" + m->state() + "#" + std::to_string(m->violation_count()));
    };
    m = std::make_shared<Monitor>(async_task(), options);
    EXPECT_FALSE(m->callback("onCancelled"));
    EXPECT_TRUE(m->callin("cancel"));
    EXPECT_FALSE(m->callback("onPostExecute"));
    EXPECT_EQ(seen, (std::vector<std::string>{"onCancelled@Start#1", "onPostExecute@Cancelling#2"}));
}

TEST(Monitor, HandlerPolicyWithoutHandlerIsRejected) {
    EXPECT_THROW(Monitor(async_task(), MonitorOptions{.policy = ViolationPolicy::Handler}), std::invalid_argument);
    EXPECT_THROW(Monitor(std::shared_ptr<const MonitorModel>{}), std::invalid_argument);
}

TEST(Monitor, UndeclaredNamesAreHarnessErrorsNotViolations) {
    Monitor m(async_task());
    EXPECT_THROW(m.callin("start"), Error);
    EXPECT_THROW(m.callback("onPrepared"), Error);
    EXPECT_THROW(m.observe(Event::callin(2)), std::out_of_range);
    EXPECT_THROW((void)m.can_callin("start"), Error);
    EXPECT_EQ(m.violation_count(), 0u);
    EXPECT_EQ(m.event_count(), 0u);
}

TEST(Monitor, IdFastPathMatchesNames) {
    Monitor by_name(async_task()), by_id(async_task());
    const auto& model = by_id.model();
    const Symbol execute = model.callin("execute").symbol, cancel = model.callin("cancel").symbol;
    const Symbol cancelled = model.callback("onCancelled").symbol;
    for (const auto* name : {"execute", "cancel", "execute"}) by_name.callin(name);
    by_name.callback("onCancelled");
    by_id.callin(execute);
    by_id.callin(cancel);
    by_id.callin(execute);
    by_id.callback(cancelled);
    EXPECT_EQ(by_name.trace(), by_id.trace());
    EXPECT_EQ(by_name.violations(), by_id.violations());
    EXPECT_EQ(by_id.violation_count(), 1u);
}

TEST(Monitor, CanCallinAndCanDeliverAskWithoutRecording) {
    Monitor m(async_task());
    EXPECT_TRUE(m.can_callin("execute"));
    EXPECT_FALSE(m.can_deliver("onPostExecute"));
    m.callin("execute");
    EXPECT_FALSE(m.can_callin("execute"));
    EXPECT_TRUE(m.can_deliver("onPostExecute"));
    EXPECT_EQ(m.event_count(), 1u);
}

TEST(Monitor, TakePendingDeliversWhatIsOwed) {
    Monitor m(async_task());
    EXPECT_EQ(m.take_pending(), std::nullopt);
    m.callin("cancel");
    EXPECT_EQ(m.take_pending(), m.model().callback("onCancelled"));
    EXPECT_EQ(m.state(), "Completed");
    EXPECT_EQ(m.trace_text(), ">cancel <onCancelled");
}

TEST(Monitor, TraceLimitBoundsMemoryAndCountsWhatItDropped) {
    MonitorOptions options;
    options.trace_limit = 4;
    options.violation_trace = 3;
    Monitor m(monitor_test::toggle(), options);
    for (int i = 0; i < 101; ++i) m.callin("flip");
    const auto trace = m.trace();
    EXPECT_GE(trace.size(), 4u);
    EXPECT_LT(trace.size(), 8u);
    EXPECT_EQ(trace.size() + m.trace_omitted(), 101u);
    EXPECT_EQ(m.state(), "B");
    m.callin("poke");
    const auto v = m.violations().at(0);
    EXPECT_EQ(v.trace.size(), 3u);
    EXPECT_EQ(v.trace_omitted, 98u);
    EXPECT_NE(v.message().find("trace:   ... (98 earlier events) >flip >flip >flip [>poke]"), std::string::npos);
}

TEST(Monitor, TraceLimitTrimsExactlyAtTwiceTheLimitDownToTheLimit) {
    // Amortised trimming: the trace grows to 2 * limit - 1 events; the event that makes it 2 * limit
    // drops all but the last `limit`. Events alternate >flip <tick, so the kept ones are visible.
    MonitorOptions options;
    options.trace_limit = 3;
    Monitor m(monitor_test::toggle(), options);
    const std::vector<std::size_t> sizes{1, 2, 3, 4, 5, 3, 4, 5, 3, 4, 5, 3, 4};
    const std::vector<std::size_t> omitted{0, 0, 0, 0, 0, 3, 3, 3, 6, 6, 6, 9, 9};
    for (std::size_t n = 1; n <= sizes.size(); ++n) {
        if (n % 2 == 1) m.callin("flip");
        else m.callback("tick");
        EXPECT_EQ(m.trace().size(), sizes[n - 1]) << "after " << n << " events";
        EXPECT_EQ(m.trace_omitted(), omitted[n - 1]) << "after " << n << " events";
    }
    EXPECT_EQ(m.trace_text(), "<tick >flip <tick >flip");  // events 10..13
    EXPECT_EQ(m.event_count(), 13u);
    m.callin("poke");  // refused: the violation shows what is kept, and counts the rest
    const auto v = m.violations().at(0);
    EXPECT_EQ(v.trace_omitted, 9u);
    EXPECT_EQ(v.trace, (std::vector<std::string>{"<tick", ">flip", "<tick", ">flip"}));
    EXPECT_NE(v.message().find("trace:   ... (9 earlier events) <tick >flip <tick >flip [>poke]"),
              std::string::npos);
    // A refused event is not part of the trace and triggers no trimming.
    EXPECT_EQ(m.trace().size(), 4u);
    EXPECT_EQ(m.trace_omitted(), 9u);
}

TEST(Monitor, TraceLimitOneKeepsTheLastEventAndZeroKeepsAll) {
    MonitorOptions one;
    one.trace_limit = 1;
    Monitor m(monitor_test::toggle(), one);
    m.callin("flip");
    EXPECT_EQ(m.trace_text(), ">flip");
    m.callback("tick");
    EXPECT_EQ(m.trace_text(), "<tick");
    EXPECT_EQ(m.trace_omitted(), 1u);
    m.callin("flip");
    EXPECT_EQ(m.trace_text(), ">flip");
    EXPECT_EQ(m.trace_omitted(), 2u);
    Monitor all(monitor_test::toggle());
    for (int i = 0; i < 50; ++i) all.callin("flip");
    EXPECT_EQ(all.trace().size(), 50u);
    EXPECT_EQ(all.trace_omitted(), 0u);
}

TEST(Monitor, EventIdsAreCheckedAgainstTheirOwnKind) {
    // Toggle: two callins (flip, poke), one callback (tick). Each kind is checked against its own
    // count, at the exact boundary, and an out-of-range id records nothing.
    Monitor m(monitor_test::toggle());
    EXPECT_THROW(m.observe(Event::callback(1)), std::out_of_range);
    EXPECT_THROW(m.observe(Event::callin(2)), std::out_of_range);
    EXPECT_THROW((void)m.check(Event::callback(7)), std::out_of_range);
    EXPECT_EQ(m.event_count(), 0u);
    EXPECT_TRUE(m.observe(Event::callback(0)));  // tick, the last valid callback id
    EXPECT_FALSE(m.observe(Event::callin(1)));   // poke, the last valid callin id: a violation
    EXPECT_EQ(m.event_count(), 2u);
    EXPECT_EQ(m.violation_count(), 1u);
}

TEST(Monitor, ACallinAfterQuietMovesTakesTheFirstStateOfTheChainThatEnablesIt) {
    // S enables poke itself and may drift quietly to T, which enables poke elsewhere: S's own
    // transition wins. From R (poke disabled) the drift R -> T -> U reaches T first: T's wins.
    const Typestate ts = monitor_test::make_typestate(
        "Drift", {"poke"}, {},
        {
            {"S", {{"poke", "A"}}, {}, std::string("T")},
            {"T", {{"poke", "B"}}, {}, std::string("U")},
            {"U", {{"poke", "C"}}, {}, {}},
            {"A", {}, {}, {}},
            {"B", {}, {}, {}},
            {"C", {}, {}, {}},
            {"R", {}, {}, std::string("T")},
        });
    Monitor from_s(ts);
    EXPECT_TRUE(from_s.callin("poke"));
    EXPECT_EQ(from_s.state(), "A");
    Typestate from_r_ts = ts;
    from_r_ts.initial = *ts.find_state("R");
    Monitor from_r(from_r_ts);
    EXPECT_TRUE(from_r.callin("poke"));
    EXPECT_EQ(from_r.state(), "B");
}

TEST(Monitor, ResetStartsOver) {
    Monitor m(async_task());
    m.callin("execute");
    m.callin("execute");
    m.reset();
    EXPECT_EQ(m.state(), "Start");
    EXPECT_EQ(m.trace().size(), 0u);
    EXPECT_EQ(m.violation_count(), 0u);
    EXPECT_EQ(m.event_count(), 0u);
    EXPECT_TRUE(m.callin("execute"));
}

}  // namespace
}  // namespace typestar
