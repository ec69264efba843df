#include "support/random_typestate.hpp"

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/random_mealy.hpp"

namespace typestar::testing_support {

Typestate random_typestate(std::size_t states, std::size_t callins, std::size_t callbacks, std::uint64_t seed) {
    if (states == 0) throw std::invalid_argument("random_typestate: no states");
    if (callins == 0 && states > 1) throw std::invalid_argument("random_typestate: no callins to reach states");
    std::mt19937_64 rng(seed);
    const auto below = [&](std::size_t bound) { return static_cast<std::size_t>(uniform_below(rng, bound)); };

    Typestate ts;
    ts.name = "random_" + std::to_string(seed);
    for (std::size_t c = 0; c < callins; ++c) ts.callins.push_back("c" + std::to_string(c));
    for (std::size_t b = 0; b < callbacks; ++b) ts.callbacks.push_back("cb" + std::to_string(b));
    ts.initial = 0;
    for (std::size_t s = 0; s < states; ++s) {
        Typestate::State state;
        state.name = "q" + std::to_string(s);
        for (std::size_t c = 0; c < callins; ++c) {
            if (below(3) < 2) state.callins.emplace_back(static_cast<StateId>(below(states)));
            else state.callins.emplace_back(std::nullopt);
        }
        if (callbacks > 0 && below(3) == 0) {
            state.callback = Typestate::CallbackEdge{below(callbacks), static_cast<StateId>(below(states))};
        } else if (below(8) == 0) {
            state.wait = Typestate::Wait::Err;
        } else if (below(4) == 0) {
            state.quiet_target = static_cast<StateId>(below(states));
        }
        ts.states.push_back(std::move(state));
    }
    // A spanning tree of callins: q<s> hangs off a free (state, callin) slot of an earlier state, so
    // no tree edge is overwritten and every state stays reachable.
    std::vector<bool> used(states * callins, false);
    for (std::size_t s = 1; s < states; ++s) {
        std::size_t pick = below(s * callins - (s - 1));  // free slots among states 0..s-1
        std::size_t slot = 0;
        for (;; ++slot) {
            if (used[slot]) continue;
            if (pick == 0) break;
            --pick;
        }
        used[slot] = true;
        ts.states[slot / callins].callins[slot % callins] = static_cast<StateId>(s);
    }
    return ts;
}

}  // namespace typestar::testing_support
