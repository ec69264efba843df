// The SQLite C API as a class under learning: one connection to an in-memory database.
#include <memory>
#include <stdexcept>
#include <string>

#include <sqlite3.h>

#include "typestar/targets/targets.hpp"

namespace typestar::targets {

namespace {

/// A refused call: the handle is not in a state where the call reaches SQLite.
struct HandleStateError : std::logic_error {
    using std::logic_error::logic_error;
};

/// An SQLite error code (the callin is refused: `err`).
struct SqliteError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Connection {
public:
    Connection(std::shared_ptr<CallbackSink> sink, CallbackLedger& ledger, bool veto, bool hooks = true)
        : sink_(std::move(sink), ledger.start_instance()), veto_(veto), hooks_(hooks) {}
    ~Connection() { teardown(); }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    void open() {
        if (db_ != nullptr) throw HandleStateError("open: the handle is already open");
        sqlite3* db = nullptr;
        const int rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
        if (rc != SQLITE_OK) {
            sqlite3_close(db);
            throw SqliteError(std::string("sqlite3_open_v2: ") + sqlite3_errstr(rc));
        }
        db_ = db;
        exec("CREATE TABLE t(x INTEGER)");
        if (!hooks_) return;
        // Hooks after the schema, so that creating it reports nothing.
        sqlite3_update_hook(db_, &Connection::on_update, this);
        sqlite3_commit_hook(db_, &Connection::on_commit, this);
        sqlite3_rollback_hook(db_, &Connection::on_rollback, this);
    }
    void exec(const char* sql) {
        if (db_ == nullptr) throw HandleStateError(std::string(sql) + ": no open handle");
        char* message = nullptr;
        const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
        if (rc != SQLITE_OK) {
            const std::string text = message != nullptr ? message : sqlite3_errstr(rc);
            sqlite3_free(message);
            throw SqliteError(std::string(sql) + ": " + text);
        }
    }
    void close() {
        if (db_ == nullptr) throw HandleStateError("close: no open handle");
        const int rc = sqlite3_close(db_);
        if (rc != SQLITE_OK) throw SqliteError(std::string("sqlite3_close: ") + sqlite3_errstr(rc));
        db_ = nullptr;
    }
    /// Closes the handle without reporting anything (after the query).
    void teardown() noexcept {
        sink_.mute();
        if (db_ != nullptr) sqlite3_close(db_);
        db_ = nullptr;
    }

private:
    void emit(const char* name) { sink_.emit(name); }
    static void on_update(void* self, int, const char*, const char*, sqlite3_int64) {
        static_cast<Connection*>(self)->emit("update_hook");
    }
    static int on_commit(void* self) {
        auto* c = static_cast<Connection*>(self);
        c->emit("commit_hook");
        return c->veto_ ? 1 : 0;
    }
    static void on_rollback(void* self) { static_cast<Connection*>(self)->emit("rollback_hook"); }

    CountingSink sink_;  // counts for callbacks_drained; muted by teardown
    bool veto_;
    bool hooks_ = true;
    sqlite3* db_ = nullptr;
};

}  // namespace

ClassDefinition sqlite(const SqliteOptions& options) {
    auto ledger = std::make_shared<CallbackLedger>();
    const bool veto = options.veto_commits;
    return LearningPurpose<Connection>("sqlite")
        .framework(std::string("sqlite-") + sqlite3_libversion() + (veto ? "+veto_commits" : ""))
        .reset([ledger, veto](const std::shared_ptr<CallbackSink>& sink) {
            return std::make_shared<Connection>(sink, *ledger, veto);
        })
        .teardown([](Connection& c) { c.teardown(); })
        .callin("open", [](Connection& c) { c.open(); })
        .callin("begin", [](Connection& c) { c.exec("BEGIN"); })
        .callin("insert", [](Connection& c) { c.exec("INSERT INTO t VALUES(1)"); })
        .callin("commit", [](Connection& c) { c.exec("COMMIT"); })
        .callin("rollback", [](Connection& c) { c.exec("ROLLBACK"); })
        .callin("close", [](Connection& c) { c.close(); })
        .callback("update_hook")
        .callback("commit_hook")
        .callback("rollback_hook")
        .timing(options.timing)
        .quiet_is_stable()  // hooks fire inside the callins; SQLite has no timers
        .restrict_to(callbacks_drained(ledger))
        .build();
}

ClassDefinition sqlite_exec(QuiescenceTiming timing) {
    auto ledger = std::make_shared<CallbackLedger>();
    return LearningPurpose<Connection>("sqlite_exec")
        .framework(std::string("sqlite-") + sqlite3_libversion())
        .reset([ledger](const std::shared_ptr<CallbackSink>& sink) {
            return std::make_shared<Connection>(sink, *ledger, false, false);
        })
        .teardown([](Connection& c) { c.teardown(); })
        .callin("open", [](Connection& c) { c.open(); })
        .callin_with("exec", {{"sql", "string"}}, [](Connection& c, const std::string& sql) { c.exec(sql.c_str()); })
        .partition("exec", "any", "any SQL text",
                   ValueGenerator::fixed({"SELECT 1", "SELEC 1", "BEGIN", "COMMIT", "ROLLBACK"}))
        .callin("close", [](Connection& c) { c.close(); })
        .timing(timing)
        .quiet_is_stable()  // no callbacks, no timers
        .build();
}

}  // namespace typestar::targets
