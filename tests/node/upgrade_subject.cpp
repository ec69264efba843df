// The CI recipe's subject (docs/upgrades/ci-recipe.md): the WebSocket spec in a writable copy
// (NODE_RECIPE_SPEC, in the build tree) against the Node agent, whose ws version is "bumped" with
// TYPESTAR_NODE_WS. Run by upgrade_recipe.cmake, never directly by ctest.
#include "node_device.hpp"
#include "typestar/gtest/gtest.hpp"

using typestar::node_testing::node_device;
using typestar::node_testing::purpose_from;

TYPESTAR_SPEC_TESTS(NODE_RECIPE_SPEC, [] { return node_device(purpose_from("TYPESTAR_NODE_WS", "ws-7")); });
