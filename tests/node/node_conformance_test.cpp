// The npm classes against their committed specs (learned at the older version): one CTest test per
// transition of specs/node/*.yaml, run by the GoogleTest plugin against the Node agent (DroidStar
// Algorithm 2, the spec's bound); net.Socket against the machine's Node. TYPESTAR_NODE_READABLE / TYPESTAR_NODE_WS choose another purpose
// (another package version), e.g. readable-stream-3: how upgrade_recipe.cmake checks an upgrade.
#include "node_device.hpp"
#include "typestar/gtest/gtest.hpp"

using typestar::node_testing::node_device;
using typestar::node_testing::purpose_from;

TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/node/readable_stream.yaml",
                    [] { return node_device(purpose_from("TYPESTAR_NODE_READABLE", "readable-stream-2")); });
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/node/ws.yaml", [] { return node_device(purpose_from("TYPESTAR_NODE_WS", "ws-7")); });
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/node/net_socket.yaml", [] { return node_device("net-socket"); });
// (Absolute spec paths: with ccache's base_dir, __FILE__ may be relative to the build directory,
// and a relative spec path would then resolve against the test's working directory.)
