// What this shows: testing an app's MediaPlayer client against the spec — with the gmock mock it
// already has (typestar::enforce) and against every callback interleaving up to k (typestar::Explorer).
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "monitored_media_player.hpp"
#include "player_screen.hpp"
#include "typestar/spec/monitor.hpp"
#include "typestar/gmock/assertions.hpp"
#include "typestar/gmock/enforce.hpp"
#include "typestar/monitor/explorer.hpp"
#include "typestar/spec/spec.hpp"

namespace client_checking {
namespace {

const typestar::spec::Spec& media_player_spec() {
    static const auto spec = typestar::spec::load_spec(TYPESTAR_SOURCE_DIR "/specs/mediaplayer.yaml");
    return spec;
}

std::shared_ptr<const typestar::MonitorModel> media_player_model() {
    static const auto model = typestar::spec::monitor_model_of(media_player_spec());
    return model;
}

class MockMediaPlayer : public MediaPlayer {
public:
    MOCK_METHOD(void, setDataSource, (const std::string& uri), (override));
    MOCK_METHOD(void, prepareAsync, (), (override));
    MOCK_METHOD(void, start, (), (override));
    MOCK_METHOD(void, pause, (), (override));
    MOCK_METHOD(void, stop, (), (override));
};

typestar::Enforcer enforce_player(MockMediaPlayer& mock, typestar::EnforceOptions options = {}) {
    return typestar::enforce(mock, media_player_spec(), options, TYPESTAR_CALLIN(setDataSource),
                             TYPESTAR_CALLIN(prepareAsync), TYPESTAR_CALLIN(start), TYPESTAR_CALLIN(pause),
                             TYPESTAR_CALLIN(stop));
}

// --- The test a developer writes first: onPrepared arrives before the user taps play. ---

TEST(NaivePlayerScreen, TheUsualMockTestPasses) {
    ::testing::NiceMock<MockMediaPlayer> player;
    auto enforcer = enforce_player(player);
    NaivePlayerScreen screen(player);
    enforcer.listen("onPrepared", [&] { screen.on_prepared(); });
    EXPECT_CALL(player, start()).Times(1);
    screen.open("track.ogg");
    enforcer.deliver("onPrepared");
    screen.play();
    EXPECT_EQ(screen.status(), PlayerScreen::Status::Playing);
    EXPECT_TRUE(enforcer.no_violations());
}

// --- The same mock, with the user tapping play before onPrepared: the monitor catches it. ---

TEST(NaivePlayerScreen, StartBeforeOnPreparedFailsTheTest) {
    ::testing::NiceMock<MockMediaPlayer> player;
    auto enforcer = enforce_player(player);
    NaivePlayerScreen screen(player);
    EXPECT_CALL(player, start()).Times(1);  // existing expectations keep working
    screen.open("track.ogg");
    EXPECT_NONFATAL_FAILURE(screen.play(),
                            "callin start() is disabled in state Preparing of MediaPlayer\n"
                            "  allowed: >release >reset <onPrepared\n"
                            "  trace:   >setDataSource >prepareAsync [>start]");
}

TEST(PlayerScreen, PlayWhilePreparingStartsOnPrepared) {
    ::testing::NiceMock<MockMediaPlayer> player;
    auto enforcer = enforce_player(player);
    PlayerScreen screen(player);
    enforcer.listen("onPrepared", [&] { screen.on_prepared(); });
    ::testing::InSequence in_order;
    EXPECT_CALL(player, setDataSource("track.ogg"));
    EXPECT_CALL(player, prepareAsync());
    EXPECT_CALL(player, start());
    screen.open("track.ogg");
    screen.play();
    EXPECT_EQ(screen.status(), PlayerScreen::Status::Preparing);
    enforcer.deliver("onPrepared");
    EXPECT_EQ(screen.status(), PlayerScreen::Status::Playing);
    EXPECT_TRUE(enforcer.no_violations());
}

// --- Every interleaving of the user's taps and the framework's callbacks, up to k steps. ---

const std::map<PlayerScreen::Status, std::string> kPlayerStateOf = {
    {PlayerScreen::Status::Idle, "Idle"},         {PlayerScreen::Status::Preparing, "Preparing"},
    {PlayerScreen::Status::Ready, "Prepared"},    {PlayerScreen::Status::Playing, "Started"},
    {PlayerScreen::Status::Paused, "Paused"},     {PlayerScreen::Status::Completed, "PlaybackCompleted"},
    {PlayerScreen::Status::Stopped, "Stopped"},
};

template <class Screen>
typestar::ExplorationSetup fake_player_session() {
    return [](typestar::ExplorationSession& s) {
        auto player = std::make_shared<MonitoredMediaPlayer>(s.monitor());
        auto screen = std::make_shared<Screen>(*player);
        s.action("open", [player, screen] { screen->open("track.ogg"); });
        s.action("play", [screen] { screen->play(); });
        s.action("pause", [screen] { screen->pause(); });
        s.action("stop", [screen] { screen->stop(); });
        s.listen("onPrepared", [screen] { screen->on_prepared(); });
        s.listen("onCompletion", [screen] { screen->on_completion(); });
        // App-level check after every schedule: the screen knows what the player is doing.
        typestar::Monitor* monitor = &s.monitor();
        s.at_end([screen, monitor] {
            const std::string believed = kPlayerStateOf.at(screen->status());
            if (believed != monitor->state())
                throw std::runtime_error("screen believes " + believed + ", player is " + monitor->state());
        });
    };
}

TEST(NaivePlayerScreen, ExplorationFindsAReplayableFailingSchedule) {
    const typestar::Explorer explorer(media_player_model(), fake_player_session<NaivePlayerScreen>(),
                                      typestar::ExploreOptions{.bound = 4, .keep_failures = 100});
    const auto result = explorer.run();
    EXPECT_FALSE(typestar::every_interleaving_passes(result));
    EXPECT_TRUE(result.complete);
    ASSERT_FALSE(result.failures.empty());
    for (const auto& f : result.failures) {
        ASSERT_TRUE(f.violation.has_value()) << f.message;
        EXPECT_EQ(f.violation->symbol, "start");
        EXPECT_EQ(f.violation->state, "Preparing");
        EXPECT_EQ(f.schedule.back(), "play");
    }
    // The shortest one: open, then play before onPrepared.
    bool shortest = false;
    for (const auto& f : result.failures) shortest = shortest || f.schedule_text() == "open play";
    EXPECT_TRUE(shortest) << result.summary();
    const auto replayed = explorer.replay("open play");
    ASSERT_TRUE(replayed.has_value());
    EXPECT_EQ(replayed->trace, ">setDataSource >prepareAsync");
    EXPECT_EQ(explorer.replay("open <onPrepared play"), std::nullopt);
}

TEST(PlayerScreen, PassesEveryInterleavingUpToSix) {
    const typestar::Explorer explorer(media_player_model(), fake_player_session<PlayerScreen>(),
                                      typestar::ExploreOptions{.bound = 6});
    const auto result = explorer.run();
    EXPECT_TRUE(typestar::every_interleaving_passes(result));
    EXPECT_TRUE(result.complete);
    // At least the 4^6 schedules of taps alone; more with callbacks interleaved.
    EXPECT_GT(result.interleavings, 4096u);
    RecordProperty("interleavings", std::to_string(result.interleavings));
}

// A screen that forgets to handle onCompletion makes no disabled callin (pause() is allowed after
// completion), but the app-level check at the end of each schedule catches it.
class ForgetfulPlayerScreen : public PlayerScreen {
public:
    using PlayerScreen::PlayerScreen;
    void on_completion() override {}
};

TEST(PlayerScreen, AppLevelChecksRunAfterEverySchedule) {
    const typestar::Explorer explorer(media_player_model(), fake_player_session<ForgetfulPlayerScreen>(),
                                      typestar::ExploreOptions{.bound = 4});
    const auto result = explorer.run();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.failures[0].schedule_text(), "open play <onPrepared <onCompletion");
    EXPECT_EQ(result.failures[0].message,
              "at_end check failed: exception: screen believes Started, player is PlaybackCompleted");
}

TEST(PlayerScreen, PassesEveryInterleavingWithTheGmockMockToo) {
    auto setup = [](typestar::ExplorationSession& s) {
        auto player = std::make_shared<::testing::NiceMock<MockMediaPlayer>>();
        // The mock reports to the session's monitor; refusals are recorded and the explorer reports them.
        (void)typestar::enforce(*player, s.monitor_ptr(), typestar::EnforceOptions{.on_refused = typestar::OnRefused::Record},
                                TYPESTAR_CALLIN(setDataSource), TYPESTAR_CALLIN(prepareAsync), TYPESTAR_CALLIN(start),
                                TYPESTAR_CALLIN(pause), TYPESTAR_CALLIN(stop));
        auto screen = std::make_shared<PlayerScreen>(*player);
        s.action("open", [player, screen] { screen->open("track.ogg"); });
        s.action("play", [screen] { screen->play(); });
        s.action("pause", [screen] { screen->pause(); });
        s.action("stop", [screen] { screen->stop(); });
        s.listen("onPrepared", [screen] { screen->on_prepared(); });
        s.listen("onCompletion", [screen] { screen->on_completion(); });
    };
    const auto result =
        typestar::Explorer(media_player_model(), setup, typestar::ExploreOptions{.bound = 5}).run();
    EXPECT_TRUE(typestar::every_interleaving_passes(result));
    EXPECT_TRUE(result.complete);
}

}  // namespace
}  // namespace client_checking
