#include "typestar/spec/json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/random_typestate.hpp"

namespace typestar::spec {
namespace {

using State = Typestate::State;

/// A timer: Idle -start-> Armed -(quiet)-> Elapsed -onFire-> Idle; Armed -cancel-> Idle; wait
/// in Idle is refused. States deliberately out of canonical order.
Spec timer_spec() {
    Spec s;
    s.typestate.name = "Timer";
    s.typestate.callins = {"start", "cancel"};
    s.typestate.callbacks = {"onFire"};
    s.typestate.states = {
        State{"Elapsed", {std::nullopt, std::nullopt}, Typestate::CallbackEdge{0, 2}, Typestate::Wait::Quiet, {}},
        State{"Armed", {std::nullopt, 2}, {}, Typestate::Wait::Quiet, 0},
        State{"Idle", {1, std::nullopt}, {}, Typestate::Wait::Err, {}},
    };
    s.typestate.initial = 2;
    s.bounds.distinguisher = 2;
    s.bounds.states = 3;
    s.timing.tmax_ms = 250;
    s.provenance.tool = "typestar 0.1.0";
    s.provenance.stats = {{"resets", "12"}};
    return s;
}

TEST(SpecJson, ExactCanonicalText) {
    EXPECT_EQ(write_spec_json(timer_spec()), R"({
  "bounds": {
    "distinguisher": 2,
    "states": 3
  },
  "callbacks": [
    "onFire"
  ],
  "callins": [
    "cancel",
    "start"
  ],
  "initial": "Idle",
  "name": "Timer",
  "provenance": {
    "stats": {
      "resets": "12"
    },
    "tool": "typestar 0.1.0"
  },
  "states": {
    "Armed": {
      "callbacks": {},
      "callins": {
        "cancel": "Idle"
      },
      "quiet": "Elapsed",
      "wait": "quiet"
    },
    "Elapsed": {
      "callbacks": {
        "onFire": "Idle"
      },
      "callins": {},
      "wait": "callback"
    },
    "Idle": {
      "callbacks": {},
      "callins": {
        "start": "Armed"
      },
      "wait": "err"
    }
  },
  "timing": {
    "tmax_ms": 250.0
  },
  "typestar": 1
}
)");
}

TEST(SpecJson, SameBehaviourGivesTheSameTextAndQuietSelfLoopsAreExplicit) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        Spec s;
        s.typestate = testing_support::random_typestate(3 + seed, 2, 1, seed);
        Spec canon = s;
        canon.typestate = canonical(s.typestate);
        const std::string text = write_spec_json(s);
        EXPECT_EQ(text, write_spec_json(canon));
        const auto doc = nlohmann::json::parse(text);
        ASSERT_EQ(doc["states"].size(), canon.typestate.states.size());
        for (const auto& state : canon.typestate.states) {
            const auto& j = doc["states"][state.name];
            const std::string wait = j["wait"];
            EXPECT_EQ(j.contains("quiet"), wait == "quiet");
            EXPECT_EQ(wait == "callback", state.callback.has_value());
            if (wait == "quiet") {
                const StateId target = state.quiet_target.value_or(
                    static_cast<StateId>(&state - canon.typestate.states.data()));
                EXPECT_EQ(j["quiet"], canon.typestate.states[target].name);
            }
        }
    }
}

}  // namespace
}  // namespace typestar::spec
