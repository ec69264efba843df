// The compiled, immutable form of a callback typestate that monitors step through.
// Design note: callins and callbacks become dense event ids and every (state, event) pair gets its
// resolved successor in one flat table, so a monitor step is a single lookup. Quiescent `wait`
// moves (Typestate::State::quiet_target) are not observable events; the table takes them lazily:
// an event not enabled in a state is looked up along that state's chain of quiet moves, and the
// first state of the chain that enables it decides (time is assumed to pass only when the event
// needs it). A state that owes a callback never moves quietly (DroidStar §4.1: `wait` delivers it).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/core/alphabet.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {

/// Who acts: the client calling into the framework, or the framework calling the client back.
enum class EventKind : std::uint8_t { Callin, Callback };

/// One observable event of a callback typestate: a callin or a callback, by its index in
/// Typestate::callins or Typestate::callbacks.
struct Event {
    EventKind kind = EventKind::Callin;
    Symbol symbol = 0;

    /// The callin with index `id`.
    [[nodiscard]] static constexpr Event callin(Symbol id) noexcept { return {EventKind::Callin, id}; }
    /// The callback with index `id`.
    [[nodiscard]] static constexpr Event callback(Symbol id) noexcept { return {EventKind::Callback, id}; }
    bool operator==(const Event&) const = default;
};

/// A callback typestate compiled for monitoring: immutable, shareable between threads and monitors.
class MonitorModel {
public:
    /// Compiles `typestate`; no source locations (file empty, every line 0). Throws
    /// std::invalid_argument when the typestate is malformed (the checks of synchronous_closure).
    explicit MonitorModel(Typestate typestate);
    /// Where a (state, symbol) is written in a spec file: its line, else the state's (symbol
    /// empty), else 0.
    using LineOf = std::function<int(const std::string& state, const std::string& symbol)>;
    /// Compiles `typestate`, naming `file` and taking each (state, event)'s line from `line_of`
    /// (spec/monitor.hpp builds both from a loaded spec).
    MonitorModel(Typestate typestate, std::string file, const LineOf& line_of);

    /// The typestate as given.
    [[nodiscard]] const Typestate& typestate() const noexcept { return typestate_; }
    /// The typestate's name.
    [[nodiscard]] const std::string& name() const noexcept { return typestate_.name; }
    /// Number of states (state ids are 0 .. num_states() - 1).
    [[nodiscard]] std::size_t num_states() const noexcept { return typestate_.states.size(); }
    /// Number of callins (callin ids are their indices in Typestate::callins).
    [[nodiscard]] std::size_t num_callins() const noexcept { return typestate_.callins.size(); }
    /// Number of callbacks (callback ids are their indices in Typestate::callbacks).
    [[nodiscard]] std::size_t num_callbacks() const noexcept { return typestate_.callbacks.size(); }
    /// The initial state.
    [[nodiscard]] StateId initial() const noexcept { return typestate_.initial; }

    /// The callin event named `name`, if declared.
    [[nodiscard]] std::optional<Event> find_callin(std::string_view name) const;
    /// The callback event named `name`, if declared.
    [[nodiscard]] std::optional<Event> find_callback(std::string_view name) const;
    /// The callin event named `name`; throws typestar::Error listing the declared callins if absent.
    [[nodiscard]] Event callin(std::string_view name) const;
    /// The callback event named `name`; throws typestar::Error listing the declared callbacks if absent.
    [[nodiscard]] Event callback(std::string_view name) const;

    /// The successor of `state` on `event` after lazy quiet moves, or nullopt when the event is
    /// refused there (a disabled callin, or a callback the state cannot produce). Preconditions:
    /// `state` < num_states() and `event` names a declared symbol (unchecked: the fast path).
    [[nodiscard]] std::optional<StateId> step(StateId state, Event event) const noexcept {
        const StateId t = next_[static_cast<std::size_t>(state) * width_ + column(event)];
        if (t == kRefused) return std::nullopt;
        return t;
    }
    /// Why callin `callin` is unknown in `state` (three-valued specs), or nullptr when it is legal or
    /// illegal there. Preconditions as step().
    [[nodiscard]] const Unknown* unknown(StateId state, Symbol callin) const noexcept {
        return typestate_.unknown_at(state, callin);
    }
    /// True when callin `callin` has the environment role (the peer performs it; Monitor::environment).
    [[nodiscard]] bool is_environment(Symbol callin) const {
        return callin < typestate_.callins.size() && typestate_.info(typestate_.callins[callin]).environment;
    }
    /// The callback the framework owes in `state`: the state's own, or that of the first state
    /// reached by quiet moves that has one. nullopt when waiting can only end in quiescence.
    [[nodiscard]] std::optional<Symbol> pending(StateId state) const noexcept { return pending_[state]; }
    /// Every event possible in `state`: its enabled callins in declared order, then the pending
    /// callback (if any). These are the one-event extensions of a trace ending in `state`.
    [[nodiscard]] std::vector<Event> enabled(StateId state) const;

    /// The symbol's name (no direction marker); throws std::out_of_range for an unknown id.
    [[nodiscard]] const std::string& name(Event event) const;
    /// The state's name; throws std::out_of_range for an unknown id.
    [[nodiscard]] const std::string& state_name(StateId state) const { return typestate_.states.at(state).name; }
    /// `>name` for a callin (client to framework), `<name` for a callback (framework to client).
    [[nodiscard]] std::string to_string(Event event) const;
    /// The events' to_string joined by single spaces; "ε" for the empty trace.
    [[nodiscard]] std::string to_string(std::span<const Event> trace) const;
    /// Inverse of to_string: space-separated `>callin` / `<callback` tokens ("ε" or blank: empty).
    /// Throws typestar::Error naming the first token that is unmarked or unknown.
    [[nodiscard]] std::vector<Event> parse_trace(std::string_view text) const;
    /// True when `trace` is a trace of the typestate from its initial state.
    [[nodiscard]] bool accepts(std::span<const Event> trace) const;

    /// The spec file this model came from; empty for typestates built in memory.
    [[nodiscard]] const std::string& file() const noexcept { return file_; }
    /// The spec line of (state, event): the transition's key if written, else the state's key,
    /// else 0 (unknown).
    [[nodiscard]] int line_of(StateId state, Event event) const;
    /// The spec line of the state's key, else 0.
    [[nodiscard]] int line_of(StateId state) const;

private:
    static constexpr StateId kRefused = std::numeric_limits<StateId>::max();
    [[nodiscard]] std::size_t column(Event event) const noexcept {
        return event.kind == EventKind::Callin ? event.symbol : typestate_.callins.size() + event.symbol;
    }

    Typestate typestate_;
    Alphabet callins_;
    Alphabet callbacks_;
    std::size_t width_ = 0;             // callins + callbacks
    std::vector<StateId> next_;         // [state * width_ + column]
    std::vector<std::optional<Symbol>> pending_;
    std::string file_;
    std::vector<int> lines_;            // [state * (width_ + 1) + column]; column width_: the state
};

}  // namespace typestar
