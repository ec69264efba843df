#include "typestar/gmock/enforce.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "typestar/gmock/assertions.hpp"
#include "typestar/monitor/explorer.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using ::testing::_;
using ::testing::Return;

const std::string kMediaPlayerFile = std::string(TYPESTAR_SOURCE_DIR) + "/specs/mediaplayer.yaml";

const spec::Spec& media_player_spec() {
    static const spec::Spec spec = spec::load_spec(kMediaPlayerFile);
    return spec;
}

/// The part of the framework interface the tests use (Android names).
class MediaPlayerApi {
public:
    virtual ~MediaPlayerApi() = default;
    virtual void setDataSource(const std::string& uri) = 0;
    virtual void prepareAsync() = 0;
    virtual void start() = 0;
    virtual void pause() = 0;
    virtual int seekTo(int ms) = 0;  // returns a status code here, like the native layer does
    virtual void release_player() = 0;
};

class MockMediaPlayer : public MediaPlayerApi {
public:
    MOCK_METHOD(void, setDataSource, (const std::string& uri), (override));
    MOCK_METHOD(void, prepareAsync, (), (override));
    MOCK_METHOD(void, start, (), (override));
    MOCK_METHOD(void, pause, (), (override));
    MOCK_METHOD(int, seekTo, (int ms), (override));
    MOCK_METHOD(void, release_player, (), (override));
};

struct IllegalStateException : std::runtime_error {
    using std::runtime_error::runtime_error;
};

constexpr int kInvalidOperation = -38;  // MediaPlayer's "error (-38, 0)"

Enforcer enforce_all(MockMediaPlayer& mock, EnforceOptions options = {}) {
    return enforce(mock, media_player_spec(), options, TYPESTAR_CALLIN(setDataSource), TYPESTAR_CALLIN(prepareAsync),
                   TYPESTAR_CALLIN(start), TYPESTAR_CALLIN(pause), TYPESTAR_CALLIN(seekTo),
                   TYPESTAR_CALLIN_NAMED("release", release_player));
}

void prepare(MediaPlayerApi& player, Enforcer& enforcer) {
    player.setDataSource("song.ogg");
    player.prepareAsync();
    enforcer.deliver("onPrepared");
}

TEST(Enforce, AllowedCallsPassAndExpectCallsStillCount) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto enforcer = enforce_all(mock);
    EXPECT_CALL(mock, start()).Times(2);
    EXPECT_CALL(mock, setDataSource("song.ogg")).Times(1);
    MediaPlayerApi& player = mock;
    prepare(player, enforcer);
    player.start();
    player.pause();
    player.start();
    EXPECT_EQ(enforcer.monitor().state(), "Started");
    EXPECT_EQ(enforcer.monitor().trace_text(), ">setDataSource >prepareAsync <onPrepared >start >pause >start");
    EXPECT_TRUE(enforcer.no_violations());
}

TEST(Enforce, ADisabledCallinFailsTheTestWithStateAndTrace) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto enforcer = enforce_all(mock);
    MediaPlayerApi& player = mock;
    player.setDataSource("song.ogg");
    player.prepareAsync();
    EXPECT_NONFATAL_FAILURE(player.start(),
                            "callin start() is disabled in state Preparing of MediaPlayer\n"
                            "  allowed: >release >reset <onPrepared\n"
                            "  trace:   >setDataSource >prepareAsync [>start]");
    EXPECT_EQ(enforcer.monitor().violation_count(), 1u);
    EXPECT_FALSE(enforcer.no_violations());
}

TEST(Enforce, TheFailureIsLocatedAtTheSpecLine) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto enforcer = enforce_all(mock);
    MediaPlayerApi& player = mock;
    ::testing::TestPartResultArray failures;
    {
        ::testing::ScopedFakeTestPartResultReporter reporter(
            ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
        player.start();  // Idle
    }
    ASSERT_EQ(failures.size(), 1);
    const auto violation = enforcer.monitor().violations().at(0);
    EXPECT_STREQ(failures.GetTestPartResult(0).file_name(), kMediaPlayerFile.c_str());
    EXPECT_EQ(failures.GetTestPartResult(0).line_number(), violation.line);
    EXPECT_GT(violation.line, 0);
}

TEST(Enforce, ExpectCallWithoutActionIsChecked) {
    ::testing::StrictMock<MockMediaPlayer> mock;
    auto enforcer = enforce_all(mock);
    EXPECT_CALL(mock, start());
    MediaPlayerApi& player = mock;
    EXPECT_NONFATAL_FAILURE(player.start(), "callin start() is disabled in state Idle");
}

TEST(Enforce, RefusalCanThrowLikeTheFramework) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto enforcer = enforce(mock, media_player_spec(), TYPESTAR_CALLIN(setDataSource), TYPESTAR_CALLIN(prepareAsync),
                            TYPESTAR_CALLIN(start).on_refused(::testing::Throw(IllegalStateException("start"))));
    MediaPlayerApi& player = mock;
    player.setDataSource("song.ogg");
    player.prepareAsync();
    EXPECT_THROW(player.start(), IllegalStateException);  // no test failure: the client sees the refusal
    EXPECT_EQ(enforcer.monitor().violation_count(), 1u);  // but the violation is recorded
    enforcer.deliver("onPrepared");
    EXPECT_NO_THROW(player.start());
}

TEST(Enforce, RefusalCanReturnAnErrorValue) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto enforcer = enforce(mock, media_player_spec(), TYPESTAR_CALLIN(setDataSource), TYPESTAR_CALLIN(prepareAsync),
                            TYPESTAR_CALLIN(seekTo).on_refused(Return(kInvalidOperation)).on_allowed(Return(0)));
    MediaPlayerApi& player = mock;
    EXPECT_EQ(player.seekTo(100), kInvalidOperation);  // Idle
    prepare(player, enforcer);
    EXPECT_EQ(player.seekTo(100), 0);  // Prepared
    EXPECT_EQ(enforcer.monitor().violation_count(), 1u);
}

TEST(Enforce, RecordModeOnlyRecords) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto enforcer = enforce_all(mock, EnforceOptions{.on_refused = OnRefused::Record});
    MediaPlayerApi& player = mock;
    player.start();
    player.pause();
    EXPECT_EQ(enforcer.monitor().violation_count(), 2u);
    EXPECT_EQ(player.seekTo(5), 0);  // gmock's default value
}

TEST(Enforce, CheckedWrapsActionsOfExpectCalls) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto enforcer = enforce_all(mock);
    MediaPlayerApi& player = mock;
    EXPECT_CALL(mock, seekTo(_))
        .WillOnce(enforcer.checked("seekTo", Return(7)))
        .WillRepeatedly(enforcer.checked("seekTo", Return(8)));
    int got = 0;
    EXPECT_NONFATAL_FAILURE(got = player.seekTo(1), "callin seekTo() is disabled in state Idle");
    EXPECT_EQ(got, 7);  // the expectation's action still ran
    prepare(player, enforcer);
    EXPECT_EQ(player.seekTo(2), 8);
    EXPECT_EQ(enforcer.monitor().violation_count(), 1u);
    // Without checked(), an action of EXPECT_CALL replaces the check: documented, and visible here.
    EXPECT_CALL(mock, pause()).WillOnce(Return());
    player.pause();  // Prepared refuses pause, but nothing reports it
    EXPECT_EQ(enforcer.monitor().violation_count(), 1u);
}

TEST(Enforce, DeliverFailsForCallbacksTheStateCannotProduce) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto enforcer = enforce_all(mock);
    int prepared = 0;
    enforcer.listen("onPrepared", [&] { ++prepared; });
    bool delivered = true;
    EXPECT_NONFATAL_FAILURE(delivered = enforcer.deliver("onPrepared"),
                            "callback onPrepared() cannot be delivered in state Idle of MediaPlayer");
    EXPECT_FALSE(delivered);
    EXPECT_EQ(prepared, 0);
    MediaPlayerApi& player = mock;
    player.setDataSource("a");
    player.prepareAsync();
    EXPECT_EQ(enforcer.deliver_pending(), "onPrepared");
    EXPECT_EQ(prepared, 1);
}

TEST(Enforce, ExpectNothingPendingReportsOwedCallbacks) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto enforcer = enforce_all(mock);
    MediaPlayerApi& player = mock;
    player.setDataSource("a");
    player.prepareAsync();
    bool ok = true;
    EXPECT_NONFATAL_FAILURE(ok = enforcer.expect_nothing_pending(),
                            "callback onPrepared() is still pending in state Preparing at the end of MediaPlayer");
    EXPECT_FALSE(ok);
    enforcer.deliver("onPrepared");
    EXPECT_TRUE(enforcer.expect_nothing_pending());
}

TEST(Enforce, BindingAnUndeclaredCallinIsAnError) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    try {
        (void)enforce(mock, media_player_spec(), TYPESTAR_CALLIN_NAMED("play", start));
        FAIL() << "no exception";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("unknown callin 'play': typestate MediaPlayer declares callins", 0), 0u)
            << e.what();
    }
}

TEST(Enforce, TheMockMayOutliveTheEnforcer) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    std::shared_ptr<Monitor> monitor;
    {
        auto enforcer = enforce_all(mock, EnforceOptions{.on_refused = OnRefused::Record});
        monitor = enforcer.monitor_ptr();
    }
    MediaPlayerApi& player = mock;
    player.start();
    EXPECT_EQ(monitor->violation_count(), 1u);
}

TEST(Enforce, SharedMonitorAcrossEnforcers) {
    ::testing::NiceMock<MockMediaPlayer> mock;
    auto monitor = spec::monitor_of(media_player_spec());
    auto enforcer = enforce(mock, monitor, TYPESTAR_CALLIN(setDataSource));
    MediaPlayerApi& player = mock;
    player.setDataSource("a");
    EXPECT_EQ(monitor->state(), "Initialized");
    EXPECT_EQ(&enforcer.monitor(), monitor.get());
}

TEST(Assertions, NoViolationsAndEveryInterleavingPassesExplainThemselves) {
    Monitor monitor(spec::monitor_model_of(media_player_spec()));
    monitor.callin("setDataSource");
    EXPECT_EQ(std::string(no_violations(monitor).message()), "no violation of MediaPlayer in 1 events");
    monitor.callin("start");
    const auto failed = no_violations(monitor);
    EXPECT_FALSE(failed);
    EXPECT_EQ(std::string(failed.message()).rfind("1 violation(s) of MediaPlayer:\n" + kMediaPlayerFile + ":", 0), 0u);

    ExploreResult ok;
    ok.interleavings = 3;
    ok.bound = 2;
    ok.complete = true;
    EXPECT_TRUE(every_interleaving_passes(ok));
    EXPECT_EQ(std::string(every_interleaving_passes(ok).message()), ok.summary());
    ExploreResult bad = ok;
    bad.failed = 1;
    EXPECT_FALSE(every_interleaving_passes(bad));
}

TEST(Enforce, WorksInsideAnExploration) {
    // Mocks are created per run; refusals are only recorded, and the explorer reports them.
    auto setup = [](ExplorationSession& s) {
        auto mock = std::make_shared<::testing::NiceMock<MockMediaPlayer>>();
        auto enforcer = std::make_shared<Enforcer>(enforce(*mock, s.monitor_ptr(), EnforceOptions{.on_refused = OnRefused::Record},
                                                           TYPESTAR_CALLIN(setDataSource), TYPESTAR_CALLIN(prepareAsync),
                                                           TYPESTAR_CALLIN(start)));
        s.action("open", [mock] {
            mock->setDataSource("a");
            mock->prepareAsync();
        });
        s.action("play", [mock, enforcer] { mock->start(); });  // the bug: may run before onPrepared
    };
    const Explorer explorer(spec::monitor_model_of(media_player_spec()), setup, ExploreOptions{.bound = 3});
    const auto result = explorer.run();
    EXPECT_FALSE(every_interleaving_passes(result));
    ASSERT_FALSE(result.failures.empty());
    EXPECT_EQ(result.failures[0].schedule_text(), "play");  // the shortest: start() in Idle
    EXPECT_TRUE(explorer.replay("open play").has_value());
    EXPECT_EQ(explorer.replay("open <onPrepared play"), std::nullopt);
}

}  // namespace
}  // namespace typestar
