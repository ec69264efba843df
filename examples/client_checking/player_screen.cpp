// What this shows: the app code under test. PlayerScreen follows the MediaPlayer typestate;
// NaivePlayerScreen::play starts playback before onPrepared, which the typestate forbids.
#include "player_screen.hpp"

namespace client_checking {

void PlayerScreen::open(const std::string& uri) {
    if (status_ != Status::Idle) return;
    player_.setDataSource(uri);
    player_.prepareAsync();
    status_ = Status::Preparing;
}

void PlayerScreen::play() {
    switch (status_) {
        case Status::Preparing:
            play_when_prepared_ = true;  // start() now would be refused: wait for onPrepared
            break;
        case Status::Ready:
        case Status::Paused:
        case Status::Completed:
            start_playback();
            break;
        case Status::Stopped:  // a stopped player must be prepared again
            player_.prepareAsync();
            status_ = Status::Preparing;
            play_when_prepared_ = true;
            break;
        case Status::Idle:
        case Status::Playing:
            break;
    }
}

void PlayerScreen::pause() {
    if (status_ == Status::Playing) {
        player_.pause();
        status_ = Status::Paused;
    } else if (status_ == Status::Preparing) {
        play_when_prepared_ = false;
    }
}

void PlayerScreen::stop() {
    switch (status_) {
        case Status::Ready:
        case Status::Playing:
        case Status::Paused:
        case Status::Completed:
            player_.stop();
            status_ = Status::Stopped;
            break;
        case Status::Preparing:  // stop() is refused while preparing; just do not start later
        case Status::Idle:
        case Status::Stopped:
            break;
    }
    play_when_prepared_ = false;
}

void PlayerScreen::on_prepared() {
    status_ = Status::Ready;
    if (play_when_prepared_) start_playback();
}

void PlayerScreen::on_completion() { status_ = Status::Completed; }

void PlayerScreen::start_playback() {
    player_.start();
    status_ = Status::Playing;
    play_when_prepared_ = false;
}

void NaivePlayerScreen::play() {
    if (status_ == Status::Preparing) {
        start_playback();  // BUG: the player is not prepared until onPrepared arrives
        return;
    }
    PlayerScreen::play();
}

}  // namespace client_checking
