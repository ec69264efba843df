// What this shows: an app's player screen, once with the classic client bug (start() before
// onPrepared: PlayerScreen::play while preparing) and once fixed (it waits for onPrepared).
#pragma once

#include <string>

#include "media_player.hpp"

namespace client_checking {

/// The player screen of a music app: the user opens a track and taps play, pause and stop; the
/// framework answers with onPrepared and onCompletion. This is the fixed version.
class PlayerScreen : public MediaPlayerListener {
public:
    /// What the screen believes the player is doing.
    enum class Status { Idle, Preparing, Ready, Playing, Paused, Completed, Stopped };

    explicit PlayerScreen(MediaPlayer& player) : player_(player) {}

    /// User opens a track (only the first open has an effect).
    void open(const std::string& uri);
    /// User taps play. While preparing, playback starts when onPrepared arrives.
    virtual void play();
    /// User taps pause.
    void pause();
    /// User taps stop; a later play prepares the track again.
    void stop();

    void on_prepared() override;
    void on_completion() override;

    [[nodiscard]] Status status() const noexcept { return status_; }

protected:
    void start_playback();

    MediaPlayer& player_;
    Status status_ = Status::Idle;
    bool play_when_prepared_ = false;
};

/// The same screen with the bug most MediaPlayer clients have once: play() calls start() while the
/// player is still preparing ("prepareAsync is fast"). A test that delivers onPrepared before
/// tapping play passes; the framework is free to deliver it later.
class NaivePlayerScreen : public PlayerScreen {
public:
    using PlayerScreen::PlayerScreen;
    void play() override;
};

}  // namespace client_checking
