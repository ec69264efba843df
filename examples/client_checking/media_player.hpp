// What this shows: the slice of a MediaPlayer-like framework interface an app codes against —
// callins the app calls, and the listener through which the framework calls the app back.
#pragma once

#include <string>

namespace client_checking {

/// The framework object (Android's android.media.MediaPlayer, simplified). Callin names match
/// specs/mediaplayer.yaml.
class MediaPlayer {
public:
    virtual ~MediaPlayer() = default;
    virtual void setDataSource(const std::string& uri) = 0;
    virtual void prepareAsync() = 0;  ///< returns at once; onPrepared() follows later
    virtual void start() = 0;
    virtual void pause() = 0;
    virtual void stop() = 0;
};

/// The callbacks the framework delivers to the app.
class MediaPlayerListener {
public:
    virtual ~MediaPlayerListener() = default;
    virtual void on_prepared() = 0;    ///< onPrepared: the player may start
    virtual void on_completion() = 0;  ///< onCompletion: the track ended
};

}  // namespace client_checking
