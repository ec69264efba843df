// Deprecated location: the test plan moved to typestar/session/test_plan.hpp (namespace typestar),
// below the plugin and the CLI alike. These names stay here for one release (CHANGELOG.md).
#pragma once

#include "typestar/session/test_plan.hpp"

namespace typestar::gtest {

using TransitionTest [[deprecated("use typestar::TransitionTest (typestar/session/test_plan.hpp)")]] = typestar::TransitionTest;
using typestar::assign_cases;
using typestar::plan_transition_tests;
using typestar::suite_identifier;
using typestar::test_identifier;
using typestar::test_model;

}  // namespace typestar::gtest
