// In-memory typestates and small clients shared by the monitor tests (no spec files, so the
// ThreadSanitizer target can use them with core alone).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/typestate.hpp"
#include "typestar/monitor/monitor.hpp"

namespace typestar::monitor_test {

/// One state of a typestate written compactly.
struct StateSpec {
    std::string name;
    std::map<std::string, std::string> callins;                  ///< callin -> target state
    std::optional<std::pair<std::string, std::string>> callback;  ///< (callback, target)
    std::optional<std::string> quiet_target;
};

/// Builds a Typestate; the first state is initial.
inline Typestate make_typestate(std::string name, std::vector<std::string> callins,
                                std::vector<std::string> callbacks, const std::vector<StateSpec>& states) {
    Typestate ts;
    ts.name = std::move(name);
    ts.callins = std::move(callins);
    ts.callbacks = std::move(callbacks);
    auto state_id = [&](const std::string& n) {
        for (std::size_t i = 0; i < states.size(); ++i)
            if (states[i].name == n) return static_cast<StateId>(i);
        throw std::invalid_argument("no state " + n);
    };
    auto index = [](const std::vector<std::string>& names, const std::string& n) {
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == n) return i;
        throw std::invalid_argument("no symbol " + n);
    };
    for (const auto& s : states) {
        Typestate::State st;
        st.name = s.name;
        st.callins.assign(ts.callins.size(), std::nullopt);
        for (const auto& [c, t] : s.callins) st.callins[index(ts.callins, c)] = state_id(t);
        if (s.callback)
            st.callback = Typestate::CallbackEdge{index(ts.callbacks, s.callback->first), state_id(s.callback->second)};
        if (s.quiet_target) st.quiet_target = state_id(*s.quiet_target);
        ts.states.push_back(std::move(st));
    }
    return ts;
}

/// AsyncTask as DroidStar learned it (Fig. 3; the same as specs/asynctask.yaml).
inline Typestate async_task() {
    return make_typestate("AsyncTask", {"cancel", "execute"}, {"onCancelled", "onPostExecute"},
                          {
                              {"Start", {{"cancel", "Cancelling"}, {"execute", "Running"}}, {}, {}},
                              {"Cancelling", {{"cancel", "Cancelling"}, {"execute", "CancellingExecuted"}},
                               std::pair<std::string, std::string>{"onCancelled", "Completed"}, {}},
                              {"Running", {{"cancel", "CancellingExecuted"}},
                               std::pair<std::string, std::string>{"onPostExecute", "Completed"}, {}},
                              {"CancellingExecuted", {{"cancel", "CancellingExecuted"}},
                               std::pair<std::string, std::string>{"onCancelled", "Completed"}, {}},
                              {"Completed", {{"cancel", "Completed"}}, {}, {}},
                          });
}

/// A timer with time-passing (quiet) moves: Armed expires silently into Expired; Sleeping wakes
/// silently into Ringing, which owes onRing.
inline Typestate quiet_timer() {
    return make_typestate("Timer", {"arm", "cancel", "sleep"}, {"onRing"},
                          {
                              {"Idle", {{"arm", "Armed"}, {"sleep", "Sleeping"}}, {}, {}},
                              {"Armed", {{"cancel", "Idle"}}, {}, std::string("Expired")},
                              {"Expired", {{"arm", "Armed"}}, {}, {}},
                              {"Sleeping", {{"cancel", "Idle"}}, {}, std::string("Ringing")},
                              {"Ringing", {}, std::pair<std::string, std::string>{"onRing", "Idle"}, {}},
                          });
}

/// A toggle for concurrency tests: `flip` is enabled everywhere and alternates A and B; `poke` is
/// enabled nowhere; `tick` (a callback) is produced in both states and keeps the state.
inline Typestate toggle() {
    return make_typestate("Toggle", {"flip", "poke"}, {"tick"},
                          {
                              {"A", {{"flip", "B"}}, std::pair<std::string, std::string>{"tick", "A"}, {}},
                              {"B", {{"flip", "A"}}, std::pair<std::string, std::string>{"tick", "B"}, {}},
                          });
}

}  // namespace typestar::monitor_test
