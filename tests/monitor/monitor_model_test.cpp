#include "typestar/monitor/monitor_model.hpp"
#include "typestar/spec/monitor.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "monitor_fixtures.hpp"
#include "typestar/core/error.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using monitor_test::async_task;
using monitor_test::quiet_timer;

const std::string kAsyncTaskFile = std::string(TYPESTAR_SOURCE_DIR) + "/specs/asynctask.yaml";

// The 1-based line of the first line equal to `text` at or after line `from`, found by reading the
// file independently of the spec parser.
int line_in_file(const std::string& path, const std::string& text, int from = 1) {
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
        if (n >= from && line == text) return n;
    return -1;
}

TEST(MonitorModel, StepFollowsTheTypestateEdges) {
    const MonitorModel m(async_task());
    const Typestate& ts = m.typestate();
    for (StateId s = 0; s < m.num_states(); ++s) {
        for (Symbol c = 0; c < m.num_callins(); ++c) EXPECT_EQ(m.step(s, Event::callin(c)), ts.states[s].callins[c]);
        for (Symbol c = 0; c < m.num_callbacks(); ++c) {
            const auto& edge = ts.states[s].callback;
            const std::optional<StateId> expected =
                edge && edge->callback == c ? std::optional<StateId>(edge->target) : std::nullopt;
            EXPECT_EQ(m.step(s, Event::callback(c)), expected) << ts.states[s].name << " " << ts.callbacks[c];
        }
    }
}

TEST(MonitorModel, EnabledListsCallinsInDeclaredOrderThenTheOwedCallback) {
    const MonitorModel m(async_task());
    const auto cancelling = *m.typestate().find_state("Cancelling");
    EXPECT_EQ(m.to_string(m.enabled(cancelling)), ">cancel >execute <onCancelled");
    const auto running = *m.typestate().find_state("Running");
    EXPECT_EQ(m.to_string(m.enabled(running)), ">cancel <onPostExecute");
    EXPECT_EQ(m.to_string(m.enabled(m.initial())), ">cancel >execute");
    EXPECT_EQ(m.pending(running), m.callback("onPostExecute").symbol);
    EXPECT_EQ(m.pending(m.initial()), std::nullopt);
}

TEST(MonitorModel, NamesAndIds) {
    const MonitorModel m(async_task());
    EXPECT_EQ(m.callin("execute"), Event::callin(1));
    EXPECT_EQ(m.callback("onPostExecute"), Event::callback(1));
    EXPECT_EQ(m.find_callin("onPostExecute"), std::nullopt);
    EXPECT_EQ(m.find_callback("execute"), std::nullopt);
    EXPECT_EQ(m.name(Event::callin(0)), "cancel");
    EXPECT_EQ(m.to_string(Event::callback(0)), "<onCancelled");
    EXPECT_EQ(m.to_string(std::vector<Event>{}), "ε");
}

TEST(MonitorModel, UnknownNamesThrowListingTheDeclaredOnes) {
    const MonitorModel m(async_task());
    try {
        (void)m.callin("start");
        FAIL() << "no exception";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "unknown callin 'start': typestate AsyncTask declares callins cancel, execute");
    }
    try {
        (void)m.callback("onPrepared");
        FAIL() << "no exception";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "unknown callback 'onPrepared': typestate AsyncTask declares callbacks onCancelled, onPostExecute");
    }
}

TEST(MonitorModel, TraceTextRoundTrips) {
    const MonitorModel m(async_task());
    const std::vector<Event> trace{m.callin("execute"), m.callin("cancel"), m.callback("onCancelled")};
    EXPECT_EQ(m.to_string(trace), ">execute >cancel <onCancelled");
    EXPECT_EQ(m.parse_trace(">execute  >cancel\t<onCancelled\n"), trace);
    EXPECT_EQ(m.parse_trace("ε"), std::vector<Event>{});
    EXPECT_EQ(m.parse_trace(""), std::vector<Event>{});
    EXPECT_TRUE(m.accepts(trace));
    EXPECT_FALSE(m.accepts(m.parse_trace(">execute >execute")));
    EXPECT_FALSE(m.accepts(m.parse_trace("<onPostExecute")));
}

TEST(MonitorModel, ParseTraceDiagnosticsAreExact) {
    const MonitorModel m(async_task());
    auto message = [&](const std::string& text) {
        try {
            (void)m.parse_trace(text);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no exception");
    };
    EXPECT_EQ(message(">execute execute"), "trace token 'execute': expected '>callin' or '<callback'");
    EXPECT_EQ(message(">start"), "trace token '>start': no callin of that name in AsyncTask");
    EXPECT_EQ(message("<execute"), "trace token '<execute': no callback of that name in AsyncTask");
    EXPECT_EQ(message(">"), "trace token '>': expected '>callin' or '<callback'");
}

TEST(MonitorModel, QuietMovesAreTakenOnlyWhenTheEventNeedsThem) {
    const MonitorModel m(quiet_timer());
    const Typestate& ts = m.typestate();
    const auto idle = *ts.find_state("Idle"), armed = *ts.find_state("Armed"), sleeping = *ts.find_state("Sleeping");
    // cancel is enabled in Armed itself: no time passes.
    EXPECT_EQ(m.step(armed, m.callin("cancel")), idle);
    // arm is enabled only after Armed silently expires: Armed -quiet-> Expired -arm-> Armed.
    EXPECT_EQ(m.step(armed, m.callin("arm")), armed);
    // sleep is enabled in neither Armed nor Expired.
    EXPECT_EQ(m.step(armed, m.callin("sleep")), std::nullopt);
    // Sleeping owes onRing once it silently wakes up; cancel still works before that.
    EXPECT_EQ(m.pending(sleeping), m.callback("onRing").symbol);
    EXPECT_EQ(m.step(sleeping, m.callback("onRing")), idle);
    EXPECT_EQ(m.step(sleeping, m.callin("cancel")), idle);
    EXPECT_EQ(m.pending(armed), std::nullopt);
    EXPECT_EQ(m.to_string(m.enabled(armed)), ">arm >cancel");
    EXPECT_EQ(m.to_string(m.enabled(sleeping)), ">cancel <onRing");
}

TEST(MonitorModel, QuietCyclesTerminate) {
    auto ts = monitor_test::make_typestate("Cycle", {"go"}, {}, {{"P", {}, {}, std::string("Q")}, {"Q", {}, {}, std::string("P")}});
    const MonitorModel m(ts);
    EXPECT_EQ(m.step(0, m.callin("go")), std::nullopt);
    EXPECT_EQ(m.pending(0), std::nullopt);
}

TEST(MonitorModel, MalformedTypestatesAreRejected) {
    auto ts = async_task();
    ts.states[0].callins.pop_back();
    EXPECT_THROW(MonitorModel{ts}, std::invalid_argument);
    auto reserved = async_task();
    reserved.callins[0] = "wait";
    EXPECT_THROW(MonitorModel{reserved}, std::invalid_argument);
}

TEST(MonitorModel, InMemoryModelsHaveNoLocations) {
    const MonitorModel m(async_task());
    EXPECT_EQ(m.file(), "");
    EXPECT_EQ(m.line_of(0, m.callin("execute")), 0);
    EXPECT_EQ(m.line_of(0), 0);
}

TEST(MonitorModel, SpecModelsKnowTheirLines) {
    const auto spec = spec::load_spec(kAsyncTaskFile);
    const auto model = spec::monitor_model_of(spec);  // the adapter at the spec edge
    const MonitorModel& m = *model;
    EXPECT_EQ(m.file(), kAsyncTaskFile);
    spec::Spec bare;  // the machine alone, built in memory
    bare.typestate = async_task();
    EXPECT_TRUE(spec::same_behaviour(spec, bare));
    const auto& ts = m.typestate();
    const auto running = *ts.find_state("Running"), completed = *ts.find_state("Completed");
    const int running_line = line_in_file(kAsyncTaskFile, "  Running:");
    ASSERT_GT(running_line, 0);
    EXPECT_EQ(m.line_of(running), running_line);
    // A written transition has its own line; a refused one falls back to the state's.
    EXPECT_EQ(m.line_of(running, m.callback("onPostExecute")),
              line_in_file(kAsyncTaskFile, "      onPostExecute: Completed", running_line));
    EXPECT_EQ(m.line_of(completed, m.callin("execute")), line_in_file(kAsyncTaskFile, "  Completed:"));
}

}  // namespace
}  // namespace typestar
