// Small machines shared by the sul tests.
#pragma once

#include "typestar/core/typestate.hpp"

namespace typestar::sul_test {

/// A two-state player: Idle --start--> Running, Running --stop--> Idle, Running --wait/done--> Idle;
/// start refused while Running, stop refused while Idle, wait quiet in Idle.
/// Closure inputs: start=0, stop=1, wait=2; outputs: ok=0, quiet=1, err=2, done=3.
inline Typestate toy_typestate() {
    Typestate t;
    t.name = "Toy";
    t.callins = {"start", "stop"};
    t.callbacks = {"done"};
    Typestate::State idle{"Idle", {StateId{1}, std::nullopt}, std::nullopt, Typestate::Wait::Quiet, std::nullopt};
    Typestate::State running{"Running", {std::nullopt, StateId{0}}, Typestate::CallbackEdge{0, 0},
                             Typestate::Wait::Quiet, std::nullopt};
    t.states = {idle, running};
    return t;
}

inline MealyMachine toy_closure() { return synchronous_closure(toy_typestate()); }

}  // namespace typestar::sul_test
