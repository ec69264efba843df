// Simulated Android classes: in-process examples with real threads and timers (DroidStar §6.2).
// Design note: each simulated object keeps its state under a mutex and posts its callbacks to a
// per-definition looper thread (Android's main Looper), with delays drawn uniformly from
// [delay_min, delay_max] by a seeded generator. A discarded instance is not stopped: its pending
// callbacks still fire, on the old query's sink, which is how late callbacks are detected. Each
// class has a spec in specs/ that learning it from scratch gives back.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/device/inprocess.hpp"
#include "typestar/device/purpose.hpp"

namespace typestar::sim {

/// Options of the simulated classes. Plain data with defaults (fast enough for tests).
struct SimOptions {
    /// Each callback is delivered this long after what caused it (uniform in [min, max]).
    std::chrono::milliseconds delay_min{4};
    std::chrono::milliseconds delay_max{8};
    /// tmax and tmin of the definition (tmin must stay below delay_min, tmax above delay_max).
    QuiescenceTiming timing{std::chrono::milliseconds(40), std::chrono::milliseconds(2)};
    /// Seeds the delays and the environment (SpeechRecognizer's results or errors).
    std::uint64_t seed = 1;
    /// MediaPlayer: add the variant setDataSource(badURL) next to setDataSource(goodURL).
    bool bad_url = false;
    /// SpeechRecognizer: merge onResults and onError into one symbol onFinished (DroidStar §6.2).
    bool merge_outputs = true;
};

/// android.os.AsyncTask (specs/asynctask.yaml): execute() runs a timer task once, cancel() before
/// the result makes it end with onCancelled(); execute() after cancel() but before onCancelled() is
/// accepted and never runs the task (DroidStar's corner case).
[[nodiscard]] ClassDefinition asynctask(const SimOptions& options = {});
/// AsyncTask learned with a learning purpose (specs/asynctask_purpose.yaml, format v2): at most one
/// `cancel` waiting for its `onCancelled`, so a second `cancel` there is outside the purpose (the
/// class would take it) and the spec records it as an unknown transition with source `purpose`.
[[nodiscard]] ClassDefinition asynctask_purpose(const SimOptions& options = {});
/// android.os.CountDownTimer (specs/countdowntimer.yaml): start() ticks once, then finishes.
[[nodiscard]] ClassDefinition countdowntimer(const SimOptions& options = {});
/// android.media.MediaPlayer (specs/mediaplayer.yaml).
[[nodiscard]] ClassDefinition mediaplayer(const SimOptions& options = {});
/// android.database.sqlite.SQLiteOpenHelper (specs/sqliteopenhelper.yaml) over a real database
/// file in a private temporary directory. The constructor is one callin `ctor` with the variants
/// `fileExists` and `noFileExists` (DroidStar §5.3, Fig. 2): learn it with VariantMode::Split.
[[nodiscard]] ClassDefinition sqliteopenhelper(const SimOptions& options = {});
/// android.speech.SpeechRecognizer (specs/speechrecognizer.yaml): the environment ends a session
/// with onResults or onError at random (seeded); with merge_outputs both are onFinished.
[[nodiscard]] ClassDefinition speechrecognizer(const SimOptions& options = {});

/// java.io.PipedOutputStream, PSYCO's example (specs/pipedoutputstream.yaml, format v2): parameterised
/// callins connect(snk: object) with the values null / new / connected and write(len: int) with -1 /
/// 0 / 3, each in one partition `any` that alphabet refinement splits (session/refinement.hpp); close().
[[nodiscard]] ClassDefinition pipedoutputstream(const SimOptions& options = {});

/// An entry of the registry of simulated classes (`inproc:NAME`).
struct SimulatedClass {
    std::string key;          ///< lower-case name used in `inproc:NAME`, e.g. "mediaplayer"
    std::string spec;         ///< the spec file, relative to the source tree, e.g. "specs/mediaplayer.yaml"
    VariantMode variants;     ///< the variant mode its spec is learned with
    ClassDefinition (*make)(const SimOptions&);
};

/// Every simulated class, sorted by key.
[[nodiscard]] const std::vector<SimulatedClass>& simulated_classes();
/// The simulated class `key` (case-insensitive), or nullopt.
[[nodiscard]] std::optional<SimulatedClass> find_simulated(std::string_view key);

}  // namespace typestar::sim
