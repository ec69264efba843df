// The simulated Android classes: each object keeps its state under a mutex; callbacks are posted
// to the definition's looper and emitted on the sink of the query that created the object.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "looper.hpp"
#include "typestar/device/simulated.hpp"

namespace typestar::sim {

namespace {

using detail::Looper;

/// What Android throws for a call in the wrong state: the callin is refused (`err`).
struct IllegalStateException : std::logic_error {
    using std::logic_error::logic_error;
};

std::shared_ptr<Looper> make_looper(const SimOptions& o) {
    if (o.delay_min > o.delay_max) throw std::invalid_argument("SimOptions: delay_min > delay_max");
    return std::make_shared<Looper>(o.delay_min, o.delay_max, o.seed);
}

// ---------------------------------------------------------------------------------------------
// AsyncTask

class AsyncTask : public std::enable_shared_from_this<AsyncTask> {
public:
    AsyncTask(Looper* looper, std::shared_ptr<CallbackSink> sink) : looper_(looper), sink_(std::move(sink)) {}

    void execute() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (status_ == Status::Running) throw IllegalStateException("Cannot execute task: the task is already running.");
        if (status_ == Status::Finished)
            throw IllegalStateException("Cannot execute task: the task has already been executed");
        status_ = Status::Running;
        if (cancelled_) return;  // accepted, but the task never runs (DroidStar §6.2)
        looper_->post([self = shared_from_this()] { self->finish(); });  // the "computation": a timer
    }
    void cancel() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (cancelled_ || finished_) return;  // returns false
        cancelled_ = true;
        looper_->post([self = shared_from_this()] { self->finish(); });
    }

private:
    enum class Status { Pending, Running, Finished };
    void finish() {
        const char* callback = nullptr;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (finished_) return;
            finished_ = true;
            status_ = Status::Finished;
            callback = cancelled_ ? "onCancelled" : "onPostExecute";
        }
        sink_->emit(callback);
    }

    Looper* looper_;
    std::shared_ptr<CallbackSink> sink_;
    std::mutex mutex_;
    Status status_ = Status::Pending;
    bool cancelled_ = false;
    bool finished_ = false;
};

// ---------------------------------------------------------------------------------------------
// CountDownTimer (the interval is longer than the duration: one tick, then finish)

class CountDownTimer : public std::enable_shared_from_this<CountDownTimer> {
public:
    CountDownTimer(Looper* looper, std::shared_ptr<CallbackSink> sink) : looper_(looper), sink_(std::move(sink)) {}

    void start() {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto generation = ++generation_;
        looper_->post([self = shared_from_this(), generation] { self->tick(generation); });
    }
    void cancel() {
        std::lock_guard<std::mutex> lock(mutex_);
        ++generation_;
    }

private:
    void tick(std::uint64_t generation) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (generation != generation_) return;
            looper_->post([self = shared_from_this(), generation] { self->finish(generation); });
        }
        sink_->emit("onTick");
    }
    void finish(std::uint64_t generation) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (generation != generation_) return;
            ++generation_;
        }
        sink_->emit("onFinish");
    }

    Looper* looper_;
    std::shared_ptr<CallbackSink> sink_;
    std::mutex mutex_;
    std::uint64_t generation_ = 0;
};

// ---------------------------------------------------------------------------------------------
// MediaPlayer (the documented state machine; playback of a short clip ends with onCompletion)

class MediaPlayer : public std::enable_shared_from_this<MediaPlayer> {
public:
    MediaPlayer(Looper* looper, std::shared_ptr<CallbackSink> sink) : looper_(looper), sink_(std::move(sink)) {}

    void set_data_source(bool reachable) {
        std::lock_guard<std::mutex> lock(mutex_);
        require({State::Idle}, "setDataSource");
        if (!reachable) throw std::runtime_error("java.io.FileNotFoundException: no such media");
        state_ = State::Initialized;
    }
    void prepare() {
        std::lock_guard<std::mutex> lock(mutex_);
        require({State::Initialized, State::Stopped}, "prepare");
        state_ = State::PreparedSync;  // prepared now; onPrepared is still posted (DroidStar §6.2)
        post_prepared();
    }
    void prepare_async() {
        std::lock_guard<std::mutex> lock(mutex_);
        require({State::Initialized, State::Stopped}, "prepareAsync");
        state_ = State::Preparing;
        post_prepared();
    }
    void start() {
        std::lock_guard<std::mutex> lock(mutex_);
        require({State::PreparedSync, State::Prepared, State::Started, State::Paused, State::PlaybackCompleted},
                "start");
        if (state_ == State::Started) return;
        // Leaving PreparedSync supersedes its pending onPrepared (as specs/mediaplayer.yaml says).
        const auto generation = ++generation_;
        state_ = State::Started;
        looper_->post([self = shared_from_this(), generation] { self->completed(generation); });
    }
    void pause() {
        std::lock_guard<std::mutex> lock(mutex_);
        require({State::Started, State::Paused, State::PlaybackCompleted}, "pause");
        if (state_ == State::Started) {
            ++generation_;
            state_ = State::Paused;
        }
    }
    void stop() {
        std::lock_guard<std::mutex> lock(mutex_);
        require({State::PreparedSync, State::Prepared, State::Started, State::Paused, State::PlaybackCompleted,
                 State::Stopped},
                "stop");
        ++generation_;
        state_ = State::Stopped;
    }
    void seek_to() {
        std::lock_guard<std::mutex> lock(mutex_);
        require({State::PreparedSync, State::Prepared, State::Started, State::Paused, State::PlaybackCompleted},
                "seekTo");
    }
    void reset() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (state_ == State::End) throw IllegalStateException("reset called after release");
        ++generation_;
        state_ = State::Idle;
    }
    void release() {
        std::lock_guard<std::mutex> lock(mutex_);
        ++generation_;
        state_ = State::End;
    }

private:
    enum class State { Idle, Initialized, Preparing, PreparedSync, Prepared, Started, Paused, PlaybackCompleted,
                       Stopped, End };

    void require(std::initializer_list<State> allowed, const char* callin) const {
        if (std::find(allowed.begin(), allowed.end(), state_) == allowed.end())
            throw IllegalStateException(std::string(callin) + " called in an invalid state");
    }
    void post_prepared() {
        const auto generation = ++generation_;
        looper_->post([self = shared_from_this(), generation] { self->prepared(generation); });
    }
    void prepared(std::uint64_t generation) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (generation != generation_) return;
            if (state_ != State::Preparing && state_ != State::PreparedSync) return;
            state_ = State::Prepared;
        }
        sink_->emit("onPrepared");
    }
    void completed(std::uint64_t generation) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (generation != generation_ || state_ != State::Started) return;
            state_ = State::PlaybackCompleted;
        }
        sink_->emit("onCompletion");
    }

    Looper* looper_;
    std::shared_ptr<CallbackSink> sink_;
    std::mutex mutex_;
    State state_ = State::Idle;
    std::uint64_t generation_ = 0;
};

// ---------------------------------------------------------------------------------------------
// SQLiteOpenHelper over a real file; the open runs in the background and reports onCreate (when
// the file did not exist) and onOpen.

class DatabaseDirectory {
public:
    explicit DatabaseDirectory(std::uint64_t seed) {
        static std::atomic<unsigned> counter{0};
        path_ = std::filesystem::temp_directory_path() /
                ("typestar-sqlite-" + std::to_string(::getpid()) + "-" + std::to_string(seed) + "-" +
                 std::to_string(counter++));
        std::filesystem::create_directories(path_);
    }
    ~DatabaseDirectory() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    DatabaseDirectory(const DatabaseDirectory&) = delete;
    DatabaseDirectory& operator=(const DatabaseDirectory&) = delete;
    [[nodiscard]] std::filesystem::path database() const { return path_ / "app.db"; }

private:
    std::filesystem::path path_;
};

class SQLiteOpenHelper : public std::enable_shared_from_this<SQLiteOpenHelper> {
public:
    SQLiteOpenHelper(Looper* looper, std::shared_ptr<CallbackSink> sink, std::filesystem::path file)
        : looper_(looper), sink_(std::move(sink)), file_(std::move(file)) {}

    /// The constructor, with the environment prepared as the variant says.
    void construct(bool file_exists) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (constructed_) throw IllegalStateException("the helper is already constructed");
        std::error_code ec;
        if (file_exists) {
            std::ofstream(file_, std::ios::binary) << std::string("SQLite format 3\0", 16);
        } else {
            std::filesystem::remove(file_, ec);
        }
        constructed_ = true;
    }
    void get_readable_database() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!constructed_) throw std::runtime_error("java.lang.NullPointerException");
        if (state_ == State::Initializing) throw IllegalStateException("getDatabase called recursively");
        if (state_ == State::Open) return;
        state_ = State::Initializing;
        const auto generation = ++generation_;
        looper_->post([self = shared_from_this(), generation] { self->open_step(generation); });
    }
    void close() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!constructed_) throw std::runtime_error("java.lang.NullPointerException");
        if (state_ == State::Initializing) throw IllegalStateException("Closed during initialization");
        state_ = State::Closed;
    }
    /// Tear-down: the background open of a discarded helper must not touch the next query's file.
    void discard() {
        std::lock_guard<std::mutex> lock(mutex_);
        ++generation_;
    }

private:
    enum class State { Closed, Initializing, Open };
    void open_step(std::uint64_t generation) {
        const char* callback = nullptr;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (generation != generation_ || state_ != State::Initializing) return;
            if (!created_ && !std::filesystem::exists(file_)) {
                std::ofstream(file_, std::ios::binary) << std::string("SQLite format 3\0", 16);
                created_ = true;
                callback = "onCreate";
                looper_->post([self = shared_from_this(), generation] { self->open_step(generation); });
            } else {
                state_ = State::Open;
                created_ = false;
                callback = "onOpen";
            }
        }
        sink_->emit(callback);
    }

    Looper* looper_;
    std::shared_ptr<CallbackSink> sink_;
    std::filesystem::path file_;
    std::mutex mutex_;
    bool constructed_ = false;
    bool created_ = false;
    State state_ = State::Closed;
    std::uint64_t generation_ = 0;
};

// ---------------------------------------------------------------------------------------------
// SpeechRecognizer: the environment ends a session with results or an error.

class SpeechRecognizer : public std::enable_shared_from_this<SpeechRecognizer> {
public:
    SpeechRecognizer(Looper* looper, std::shared_ptr<CallbackSink> sink) : looper_(looper), sink_(std::move(sink)) {}

    void start_listening() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (state_ != State::Start && state_ != State::Finished)
            throw IllegalStateException("ERROR_RECOGNIZER_BUSY");
        state_ = State::Starting;
        const auto generation = ++generation_;
        looper_->post([self = shared_from_this(), generation] { self->ready(generation); });
    }
    void stop_listening() {
        std::lock_guard<std::mutex> lock(mutex_);
        switch (state_) {
            case State::Start:
                state_ = State::Dead;  // never usable again (DroidStar §6.2)
                return;
            case State::Dead:
                return;
            case State::Starting:
            case State::Listening: {
                state_ = State::Stopping;
                const auto generation = ++generation_;
                looper_->post([self = shared_from_this(), generation] { self->finished(generation); });
                return;
            }
            default:
                throw IllegalStateException("ERROR_CLIENT: not listening");
        }
    }
    void cancel() {
        std::lock_guard<std::mutex> lock(mutex_);
        switch (state_) {
            case State::Starting: {
                // Cancelled before onReadyForSpeech: busy for a while, without any callback.
                state_ = State::Cancelling;
                const auto generation = ++generation_;
                looper_->post([self = shared_from_this(), generation] { self->settled(generation); });
                return;
            }
            case State::Listening:
            case State::Stopping:
                ++generation_;
                state_ = State::Finished;
                return;
            default:
                return;
        }
    }

private:
    enum class State { Start, Starting, Listening, Stopping, Cancelling, Finished, Dead };
    void ready(std::uint64_t generation) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (generation != generation_ || state_ != State::Starting) return;
            state_ = State::Listening;
            looper_->post([self = shared_from_this(), generation] { self->finished(generation); });
        }
        sink_->emit("onReadyForSpeech");
    }
    void finished(std::uint64_t generation) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (generation != generation_ || (state_ != State::Listening && state_ != State::Stopping)) return;
            state_ = State::Finished;
        }
        sink_->emit(looper_->coin() ? "onResults" : "onError");
    }
    void settled(std::uint64_t generation) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (generation == generation_ && state_ == State::Cancelling) state_ = State::Finished;
    }

    Looper* looper_;
    std::shared_ptr<CallbackSink> sink_;
    std::mutex mutex_;
    State state_ = State::Start;
    std::uint64_t generation_ = 0;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Definitions

ClassDefinition asynctask(const SimOptions& o) {
    auto looper = make_looper(o);
    return LearningPurpose<AsyncTask>("AsyncTask")
        .framework("typestar-sim-1")
        .reset([looper](const std::shared_ptr<CallbackSink>& sink) {
            return std::make_shared<AsyncTask>(looper.get(), sink);
        })
        .callin("cancel", [](AsyncTask& t) { t.cancel(); })
        .callin("execute", [](AsyncTask& t) { t.execute(); })
        .callback("onCancelled")
        .callback("onPostExecute")
        .timing(o.timing)
        .quiet_is_stable()  // state changes only through callins and their callbacks
        .deterministic()  // a simulation: every run of a word answers alike
        .build();
}

ClassDefinition asynctask_purpose(const SimOptions& o) {
    ClassDefinition d = asynctask(o);
    d.filter = at_most_pending({"cancel"}, {"onCancelled"}, 1);
    d.validate();
    return d;
}

ClassDefinition countdowntimer(const SimOptions& o) {
    auto looper = make_looper(o);
    return LearningPurpose<CountDownTimer>("CountDownTimer")
        .framework("typestar-sim-1")
        .reset([looper](const std::shared_ptr<CallbackSink>& sink) {
            return std::make_shared<CountDownTimer>(looper.get(), sink);
        })
        .callin("cancel", [](CountDownTimer& t) { t.cancel(); })
        .callin("start", [](CountDownTimer& t) { t.start(); })
        .callback("onFinish")
        .callback("onTick")
        .timing(o.timing)
        .deterministic()  // a simulation: every run of a word answers alike
        .build();
}

ClassDefinition mediaplayer(const SimOptions& o) {
    auto looper = make_looper(o);
    LearningPurpose<MediaPlayer> p("MediaPlayer");
    p.framework("typestar-sim-1")
        .reset([looper](const std::shared_ptr<CallbackSink>& sink) {
            return std::make_shared<MediaPlayer>(looper.get(), sink);
        })
        .callin("pause", [](MediaPlayer& m) { m.pause(); })
        .callin("prepare", [](MediaPlayer& m) { m.prepare(); })
        .callin("prepareAsync", [](MediaPlayer& m) { m.prepare_async(); })
        .callin("release", [](MediaPlayer& m) { m.release(); })
        .callin("reset", [](MediaPlayer& m) { m.reset(); })
        .callin("seekTo", [](MediaPlayer& m) { m.seek_to(); });
    if (o.bad_url) {
        p.variant("setDataSource", "goodURL", [](MediaPlayer& m) { m.set_data_source(true); })
            .variant("setDataSource", "badURL", [](MediaPlayer& m) { m.set_data_source(false); });
    } else {
        p.callin("setDataSource", [](MediaPlayer& m) { m.set_data_source(true); });
    }
    return p.callin("start", [](MediaPlayer& m) { m.start(); })
        .callin("stop", [](MediaPlayer& m) { m.stop(); })
        .callback("onCompletion")
        .callback("onPrepared")
        .timing(o.timing)
        .quiet_is_stable()  // state changes only through callins and their callbacks
        .deterministic()  // a simulation: every run of a word answers alike
        .build();
}

ClassDefinition sqliteopenhelper(const SimOptions& o) {
    auto looper = make_looper(o);
    auto directory = std::make_shared<DatabaseDirectory>(o.seed);
    // The helper is made by the `ctor` callin: the instance is a holder, so that the callins before
    // the constructor are refused like calls on a null reference.
    struct Holder {
        std::shared_ptr<SQLiteOpenHelper> helper;
    };
    return LearningPurpose<Holder>("SQLiteOpenHelper")
        .framework("typestar-sim-1")
        .reset([looper, directory](const std::shared_ptr<CallbackSink>& sink) {
            auto h = std::make_shared<Holder>();
            h->helper = std::make_shared<SQLiteOpenHelper>(looper.get(), sink, directory->database());
            return h;
        })
        .teardown([](Holder& h) { h.helper->discard(); })
        .callin("close", [](Holder& h) { h.helper->close(); })
        .variant("ctor", "fileExists", [](Holder& h) { h.helper->construct(true); })
        .variant("ctor", "noFileExists", [](Holder& h) { h.helper->construct(false); })
        .callin("getReadableDatabase", [](Holder& h) { h.helper->get_readable_database(); })
        .callback("onCreate")
        .callback("onOpen")
        .timing(o.timing)
        .quiet_is_stable()  // state changes only through callins and their callbacks
        .deterministic()  // a simulation: every run of a word answers alike
        .build();
}

ClassDefinition speechrecognizer(const SimOptions& o) {
    auto looper = make_looper(o);
    LearningPurpose<SpeechRecognizer> p("SpeechRecognizer");
    p.framework("typestar-sim-1")
        .reset([looper](const std::shared_ptr<CallbackSink>& sink) {
            return std::make_shared<SpeechRecognizer>(looper.get(), sink);
        })
        .callin("cancel", [](SpeechRecognizer& s) { s.cancel(); })
        .callin("startListening", [](SpeechRecognizer& s) { s.start_listening(); })
        .callin("stopListening", [](SpeechRecognizer& s) { s.stop_listening(); });
    if (o.merge_outputs) {
        p.merged_callback("onFinished", {"onResults", "onError"});
    } else {
        p.callback("onError").callback("onResults");
    }
    return p.callback("onReadyForSpeech").timing(o.timing).quiet_changes_state().deterministic().build();
}

namespace {
/// PSYCO's motivating example (java.io.PipedOutputStream) in C++: connect(snk) succeeds only for an
/// unconnected sink; write(len) needs an open connection and a non-negative length.
struct PipedOutputStream {
    bool connected = false;
    bool closed = false;
    void connect(const std::string& snk) {
        if (snk == "null") throw std::invalid_argument("NullPointerException");
        if (snk == "connected" || connected) throw std::runtime_error("IOException: already connected");
        connected = true;
    }
    void write(const std::string& len) {
        if (!connected || closed) throw std::runtime_error("IOException: pipe not connected");
        if (std::stoi(len) < 0) throw std::out_of_range("IndexOutOfBoundsException");
    }
    void close() { closed = true; }
};
}  // namespace

ClassDefinition pipedoutputstream(const SimOptions&) {
    return LearningPurpose<PipedOutputStream>("PipedOutputStream")
        .framework("typestar-sim-1")
        .reset([](const std::shared_ptr<CallbackSink>&) { return std::make_shared<PipedOutputStream>(); })
        .callin_with("connect", {{"snk", "object"}}, [](PipedOutputStream& p, const std::string& v) { p.connect(v); })
        .partition("connect", "any", "any sink", ValueGenerator::fixed({"null", "new", "connected"}))
        .callin_with("write", {{"len", "int"}}, [](PipedOutputStream& p, const std::string& v) { p.write(v); })
        .partition("write", "any", "any length", ValueGenerator::fixed({"-1", "0", "3"}))
        .callin("close", [](PipedOutputStream& p) { p.close(); })
        .timing({std::chrono::milliseconds(5), std::chrono::milliseconds(0)})  // no callbacks at all
        .quiet_is_stable()
        .deterministic()  // a simulation: every run of a word answers alike
        .build();
}

const std::vector<SimulatedClass>& simulated_classes() {
    static const std::vector<SimulatedClass> classes{
        {"asynctask", "specs/asynctask.yaml", VariantMode::Compare, &asynctask},
        {"asynctask_purpose", "specs/asynctask_purpose.yaml", VariantMode::Compare, &asynctask_purpose},
        {"countdowntimer", "specs/countdowntimer.yaml", VariantMode::Compare, &countdowntimer},
        {"mediaplayer", "specs/mediaplayer.yaml", VariantMode::Compare, &mediaplayer},
        {"pipedoutputstream", "specs/pipedoutputstream.yaml", VariantMode::Compare, &pipedoutputstream},
        {"speechrecognizer", "specs/speechrecognizer.yaml", VariantMode::Compare, &speechrecognizer},
        {"sqliteopenhelper", "specs/sqliteopenhelper.yaml", VariantMode::Split, &sqliteopenhelper},
    };
    return classes;
}

std::optional<SimulatedClass> find_simulated(std::string_view key) {
    std::string lower(key);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& c : simulated_classes())
        if (c.key == lower) return c;
    return std::nullopt;
}

}  // namespace typestar::sim
