// Real targets: in-process devices for libraries nobody here wrote (Boost.Asio, SQLite).
// Design note: every callin runs the library call and then *settles*: it returns only once every
// callback the call makes happen without the passage of time has been delivered to the sink (an
// Asio handler completing at once, a SQLite hook firing inside the call, a loopback peer's echo).
// Such a callback is queued by the device and returned by the next `wait`. A learning purpose
// (`callbacks_drained`, typestar/device/drained.hpp: no callin while a callback is still queued)
// then refuses a callin while a callback that already arrived is still undelivered: the client
// handles each callback before its next callin, which is what synchronous callbacks force on real
// clients anyway, and what keeps the synchronous closure deterministic (DroidStar §5.2, tmin).
// Callbacks that need time (a timer expiring) stay asynchronous. The Asio targets are built on
// typestar::asio::EventLoop (typestar/asio/event_loop.hpp). See docs/targets/ for what was learned.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/device/drained.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/device/purpose.hpp"

namespace typestar::targets {

// CallbackLedger, callbacks_drained and both: typestar/device/drained.hpp (public, installed).

/// boost::asio::steady_timer on an io_context run by a background thread (one per instance).
struct SteadyTimerOptions {
    /// The duration `expires_after` sets. Callins must follow each other well within it.
    std::chrono::milliseconds duration{15};
    /// Quiescence timeout; must exceed `duration` comfortably.
    QuiescenceTiming timing{std::chrono::milliseconds(50), std::chrono::milliseconds(0)};
};

/// The steady_timer target: callins `expires_after` (the fixed duration), `async_wait`, `cancel`;
/// callbacks `fired` (handler with success) and `aborted` (handler with operation_aborted). Every
/// timer call runs on the io_context's thread (Asio objects are not thread-safe). A handler that
/// completes without waiting for time (a wait on an expired timer, a cancelled wait) is delivered
/// before the callin returns. Learning purpose: at most one pending async_wait (several pending
/// waits make the protocol non-regular: expires_after then answers one `aborted` per wait), and
/// callbacks_drained. `wait` answering quiet may change the state (an armed timer expires).
[[nodiscard]] ClassDefinition steady_timer(const SteadyTimerOptions& options = {});

/// What the loopback peer of the TCP socket target does with a connection.
enum class PeerMode {
    Echo,        ///< echoes every byte it reads; closes its side after reading end-of-file
    CloseFirst,  ///< closes the connection as soon as it accepts it (a server that refuses service)
};

/// boost::asio::ip::tcp::socket against a loopback acceptor (127.0.0.1, ephemeral port) that the
/// reset snippet starts, on the instance's io_context.
struct TcpSocketOptions {
    PeerMode peer = PeerMode::Echo;  ///< what the loopback peer does
    /// A callin returns once its connect completed and then the io_context ran no handler
    /// for this long (loopback settles in microseconds; this bounds the peer's reaction time).
    std::chrono::milliseconds settle{8};
    QuiescenceTiming timing{std::chrono::milliseconds(30), std::chrono::milliseconds(0)};  ///< tmax 30 ms, tmin 0
};

/// The TCP socket target: callins `connect` (async_connect to the acceptor), `write` (async_write of
/// 4 bytes), `read` (async_read_some into a 64-byte buffer), `shutdown` (shutdown(both); a thrown
/// system_error is `err`), `close`; callbacks `<op>_ok`, `read_eof`, `<op>_aborted`
/// (operation_aborted) and `<op>_error` (any other error) for op in connect, write, read.
/// Learning purpose: at most one pending read, at most one pending write, and callbacks_drained.
[[nodiscard]] ClassDefinition tcp_socket(const TcpSocketOptions& options = {});

/// The SQLite C API on an in-memory database.
struct SqliteOptions {
    /// The commit hook's return value asks SQLite to turn every commit into a rollback (documented:
    /// "If the callback on a commit hook function returns non-zero, then the commit is converted
    /// into a rollback"). The upgrade check's second configuration.
    bool veto_commits = false;
    QuiescenceTiming timing{std::chrono::milliseconds(20), std::chrono::milliseconds(0)};  ///< tmax 20 ms (hooks are synchronous), tmin 0
};

/// The SQLite target: callins `open` (sqlite3_open_v2(":memory:"), CREATE TABLE t, then the hooks
/// are registered), `begin`, `insert` (INSERT INTO t), `commit`, `rollback` (sqlite3_exec of
/// BEGIN/COMMIT/ROLLBACK), `close` (sqlite3_close); callbacks `update_hook`, `commit_hook`,
/// `rollback_hook`. The handle is tracked by the device: a call without an open handle (before
/// `open`, after `close`) is refused (`err`) without reaching SQLite, and so is `open` on an open
/// handle. Any SQLite error code is `err`. Learning purpose: callbacks_drained.
[[nodiscard]] ClassDefinition sqlite(const SqliteOptions& options = {});

/// SQLite's sqlite3_exec with its SQL text as a parameter (learned with
/// learn_with_refinement): callins `open`, `close` as in sqlite(), and `exec(sql: string)` with one
/// partition `any` whose values are valid, invalid and transaction-control statements (SELECT 1,
/// SELEC 1, BEGIN, COMMIT, ROLLBACK). No hooks (no callbacks); any SQLite error code is `err`.
/// Refinement splits `any` by what SQLite answers.
[[nodiscard]] ClassDefinition sqlite_exec(QuiescenceTiming timing = {std::chrono::milliseconds(2), std::chrono::milliseconds(0)});

/// An entry of the registry of real targets.
struct RealTarget {
    std::string key;   ///< e.g. "steady_timer"
    std::string spec;  ///< relative to the source tree, e.g. "specs/targets/steady_timer.yaml"
    ClassDefinition (*make)();  ///< the definition with default options
};

/// Every real target, sorted by key: sqlite, steady_timer, tcp_socket.
[[nodiscard]] const std::vector<RealTarget>& real_targets();
/// The target `key`, or nullopt.
[[nodiscard]] std::optional<RealTarget> find_target(std::string_view key);
/// An InProcessDevice running `definition` with VariantMode::First and TimingViolationPolicy::Error.
[[nodiscard]] std::unique_ptr<InProcessDevice> make_target_device(ClassDefinition definition);

}  // namespace typestar::targets
