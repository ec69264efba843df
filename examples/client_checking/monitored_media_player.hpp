// What this shows: a hand-written fake of the framework that reports every callin to a
// typestar::Monitor (ids looked up once, then the fast path) — the gmock-free way to check a client.
#pragma once

#include <string>

#include "media_player.hpp"
#include "typestar/monitor/monitor.hpp"

namespace client_checking {

/// A MediaPlayer that does nothing but tell the monitor which callin the app made.
class MonitoredMediaPlayer : public MediaPlayer {
public:
    /// Throws typestar::Error when the monitor's spec lacks one of the callins.
    explicit MonitoredMediaPlayer(typestar::Monitor& monitor)
        : monitor_(monitor),
          set_data_source_(id("setDataSource")),
          prepare_async_(id("prepareAsync")),
          start_(id("start")),
          pause_(id("pause")),
          stop_(id("stop")) {}

    void setDataSource(const std::string&) override { monitor_.callin(set_data_source_); }
    void prepareAsync() override { monitor_.callin(prepare_async_); }
    void start() override { monitor_.callin(start_); }
    void pause() override { monitor_.callin(pause_); }
    void stop() override { monitor_.callin(stop_); }

private:
    [[nodiscard]] typestar::Symbol id(const char* name) const { return monitor_.model().callin(name).symbol; }

    typestar::Monitor& monitor_;
    typestar::Symbol set_data_source_, prepare_async_, start_, pause_, stop_;
};

}  // namespace client_checking
