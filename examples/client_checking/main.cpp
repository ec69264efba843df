// What this shows: exploring every order in which MediaPlayer may deliver its callbacks to the
// player screen, up to a bound: the naive screen fails (with a replayable schedule), the fixed one passes.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "monitored_media_player.hpp"
#include "player_screen.hpp"
#include "typestar/spec/monitor.hpp"
#include "typestar/monitor/explorer.hpp"
#include "typestar/spec/spec.hpp"

namespace {

template <class Screen>
typestar::ExplorationSetup screen_setup() {
    return [](typestar::ExplorationSession& s) {
        auto player = std::make_shared<client_checking::MonitoredMediaPlayer>(s.monitor());
        auto screen = std::make_shared<Screen>(*player);
        s.action("open", [player, screen] { screen->open("track.ogg"); });
        s.action("play", [screen] { screen->play(); });
        s.action("pause", [screen] { screen->pause(); });
        s.action("stop", [screen] { screen->stop(); });
        s.listen("onPrepared", [screen] { screen->on_prepared(); });
        s.listen("onCompletion", [screen] { screen->on_completion(); });
    };
}

}  // namespace

int main(int argc, char** argv) {
    const std::string path = argc > 1 ? argv[1] : TYPESTAR_SOURCE_DIR "/specs/mediaplayer.yaml";
    const std::size_t bound = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 6;
    try {
        const auto model = typestar::spec::monitor_model_of(typestar::spec::load_spec(path));
        const typestar::ExploreOptions options{.bound = bound, .keep_failures = 1};
        const auto naive =
            typestar::Explorer(model, screen_setup<client_checking::NaivePlayerScreen>(), options).run();
        const auto fixed = typestar::Explorer(model, screen_setup<client_checking::PlayerScreen>(), options).run();
        std::cout << "NaivePlayerScreen: " << naive.summary() << "\n\nPlayerScreen: " << fixed.summary() << "\n";
        return naive.ok() || !fixed.ok() ? 1 : 0;  // the demo expects exactly the naive screen to fail
    } catch (const std::exception& e) {
        std::cerr << "client_checking_demo: " << e.what() << "\n";
        return 2;
    }
}
