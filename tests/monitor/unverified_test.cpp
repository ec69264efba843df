// Three-valued specs on the client side (issue 17): a call into an unknown transition is
// *unverified* under a policy (allow | warn | fail), never a violation; environment-role inputs are
// observed events (Monitor::environment), not client calls.
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <string>

#include "typestar/core/error.hpp"
#include "typestar/gmock/enforce.hpp"
#include "typestar/monitor/monitor.hpp"
#include "typestar/spec/monitor.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

// A stream: `open` then `read`/`close`; `close` while a read is queued is unknown (the learning
// purpose kept callbacks drained, as in the Asio report of issue 17); `data` comes from the peer.
constexpr const char* kSpec = R"(typestar: 2
kind: typestate
name: Stream
callins:
  - open
  - read
  - close
  - data: {role: environment}
callbacks: [onRead]
initial: Idle
states:
  Idle:
    callins: {open: Open}
  Open:
    callins: {read: Reading, close: Idle, data: Open}
  Reading:
    callins: {data: Owed}
    unknown:
      close: {source: purpose, reason: "purpose 'Drained' never calls it here"}
  Owed:
    callbacks: {onRead: Open}
    unknown:
      close: {source: unresolved, reason: "3 runs disagreed"}
)";

const spec::Spec& stream_spec() {
    static const spec::Spec spec = spec::parse_spec(kSpec, "stream.yaml");
    return spec;
}

std::shared_ptr<Monitor> monitor_with(UnverifiedPolicy policy, ViolationPolicy violations = ViolationPolicy::Collect) {
    MonitorOptions options;
    options.unverified = policy;
    options.policy = violations;
    return spec::monitor_of(stream_spec(), options);
}

TEST(Unverified, AllowAcceptsRecordsAndStopsChecking) {
    auto m = monitor_with(UnverifiedPolicy::Allow);
    EXPECT_TRUE(m->callin("open"));
    EXPECT_TRUE(m->callin("read"));
    EXPECT_TRUE(m->callin("close"));  // unknown in Reading: not a violation
    EXPECT_TRUE(m->ok());
    ASSERT_EQ(m->unverified().size(), 1u);
    const auto all = m->unverified();
    const Unverified& u = all.front();
    EXPECT_EQ(u.symbol, "close");
    EXPECT_EQ(u.state, "Reading");
    ASSERT_TRUE(u.unknown);
    EXPECT_EQ(u.unknown->source, Unknown::Source::Purpose);
    EXPECT_EQ(u.file, "stream.yaml");
    EXPECT_EQ(u.line, 19);
    EXPECT_NE(u.message().find("stream.yaml:19: callin close() is unverified in state Reading of Stream (unknown: "
                               "purpose: purpose 'Drained' never calls it here)"),
              std::string::npos)
        << u.message();
    EXPECT_NE(u.message().find("not a protocol violation"), std::string::npos);
    // The state is no longer known: later events are accepted unchecked, nothing is pending.
    EXPECT_FALSE(m->checking());
    EXPECT_TRUE(m->callin("read"));
    EXPECT_TRUE(m->finish());
    EXPECT_EQ(m->unchecked_events(), 1u);
    EXPECT_TRUE(m->ok());
    m->reset();
    EXPECT_TRUE(m->checking());
    EXPECT_TRUE(m->unverified().empty());
    EXPECT_FALSE(m->callin("close"));  // Idle refuses close: a real violation again
    EXPECT_EQ(m->violation_count(), 1u);
}

// Issue 39 (a surviving mutant): once an unverified call has made the state unknown, what the last
// known state owed is not known either. A state that owed a callback before the call must not turn
// into a "pending callback" violation at finish, nor be delivered by take_pending.
TEST(Unverified, AStateThatOwedACallbackOwesNothingOnceLost) {
    for (const bool deliver : {false, true}) {
        auto m = monitor_with(UnverifiedPolicy::Allow);
        m->callin("open");
        m->callin("read");
        m->environment("data");
        ASSERT_EQ(m->state(), "Owed");
        ASSERT_EQ(m->pending_callback(), std::optional<std::string>("onRead"));
        EXPECT_TRUE(m->callin("close"));  // unknown in Owed: the state is lost
        EXPECT_FALSE(m->checking());
        if (deliver) {
            EXPECT_FALSE(m->take_pending().has_value()) << "a lost monitor delivered a callback it cannot know is owed";
        }
        EXPECT_TRUE(m->finish()) << "a lost monitor reported a pending callback";
        EXPECT_TRUE(m->ok());
        EXPECT_EQ(m->violation_count(), 0u);
    }
    // The guard is the lost state, not the finish: the same run without the unknown call owes onRead.
    auto known = monitor_with(UnverifiedPolicy::Allow);
    known->callin("open");
    known->callin("read");
    known->environment("data");
    EXPECT_FALSE(known->finish());
    EXPECT_EQ(known->violation_count(), 1u);
}

TEST(Unverified, WarnIsTheDefaultAndAccepts) {
    EXPECT_EQ(MonitorOptions{}.unverified, UnverifiedPolicy::Warn);
    auto m = spec::monitor_of(stream_spec());
    m->callin("open");
    m->callin("read");
    EXPECT_TRUE(m->callin("close"));
    EXPECT_EQ(m->unverified().size(), 1u);
    EXPECT_TRUE(m->ok());
}

TEST(Unverified, FailRefusesAndThrowsUnderThrowButNeverAsAViolation) {
    auto m = monitor_with(UnverifiedPolicy::Fail);
    m->callin("open");
    m->callin("read");
    EXPECT_FALSE(m->callin("close"));
    EXPECT_TRUE(m->ok()) << "unverified is not a violation";
    EXPECT_EQ(m->unverified().size(), 1u);
    EXPECT_TRUE(m->checking()) << "a refused call leaves the state known";
    EXPECT_EQ(m->state(), "Reading");

    auto t = monitor_with(UnverifiedPolicy::Fail, ViolationPolicy::Throw);
    t->callin("open");
    t->callin("read");
    try {
        t->callin("close");
        FAIL() << "no exception";
    } catch (const ViolationError&) {
        FAIL() << "an unverified call was reported as a violation";
    } catch (const UnverifiedError& e) {
        EXPECT_EQ(e.unverified().symbol, "close");
    }
}

TEST(Unverified, EnvironmentEventsAreObservedNotClientCalls) {
    auto m = monitor_with(UnverifiedPolicy::Allow);
    m->callin("open");
    m->callin("read");
    EXPECT_TRUE(m->environment("data"));  // the peer sent data: Reading -> Owed
    EXPECT_EQ(m->state(), "Owed");
    EXPECT_TRUE(m->callback("onRead"));
    EXPECT_THROW(m->callin("data"), Error) << "a client cannot make an environment event";
    EXPECT_THROW(m->environment("read"), Error) << "a client callin is not an environment event";
    // Data arriving where the spec does not list it: unverified, never a violation.
    m->reset();
    EXPECT_TRUE(m->environment("data"));  // Idle does not list data
    EXPECT_TRUE(m->ok());
    ASSERT_EQ(m->unverified().size(), 1u);
    EXPECT_EQ(m->unverified()[0].reason, "environment event not listed in this state");
}

class StreamApi {
public:
    virtual ~StreamApi() = default;
    virtual void open() = 0;
    virtual void read() = 0;
    virtual void close() = 0;
};

class MockStream : public StreamApi {
public:
    MOCK_METHOD(void, open, (), (override));
    MOCK_METHOD(void, read, (), (override));
    MOCK_METHOD(void, close, (), (override));
};

TEST(UnverifiedEnforce, WarnAcceptsTheCallWithoutAFailure) {
    ::testing::NiceMock<MockStream> mock;
    auto e = enforce(mock, stream_spec(), TYPESTAR_CALLIN(open), TYPESTAR_CALLIN(read), TYPESTAR_CALLIN(close));
    StreamApi& s = mock;
    s.open();
    s.read();
    s.close();  // unknown: a warning, no failure
    EXPECT_TRUE(e.no_violations());
    EXPECT_EQ(e.monitor().unverified().size(), 1u);
}

TEST(UnverifiedEnforce, FailReportsUnverifiedNotViolation) {
    ::testing::NiceMock<MockStream> mock;
    EnforceOptions options;
    options.unverified = UnverifiedPolicy::Fail;
    auto e = enforce(mock, stream_spec(), options, TYPESTAR_CALLIN(open), TYPESTAR_CALLIN(read),
                     TYPESTAR_CALLIN(close));
    StreamApi& s = mock;
    s.open();
    s.read();
    EXPECT_NONFATAL_FAILURE(s.close(), "callin close() is unverified in state Reading of Stream");
    EXPECT_TRUE(e.no_violations());
    EXPECT_TRUE(e.environment("data"));
    EXPECT_EQ(e.monitor().state(), "Owed");
}

TEST(UnverifiedEnforce, RealViolationsStillFail) {
    ::testing::NiceMock<MockStream> mock;
    auto e = enforce(mock, stream_spec(), TYPESTAR_CALLIN(open), TYPESTAR_CALLIN(read), TYPESTAR_CALLIN(close));
    StreamApi& s = mock;
    EXPECT_NONFATAL_FAILURE(s.read(), "callin read() is disabled in state Idle");
}

}  // namespace
}  // namespace typestar
