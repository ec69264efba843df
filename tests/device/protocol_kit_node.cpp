// The protocol kit against the Node agent (device/node/agent.js serving AsyncTask, under `timeout`
// so it never outlives a hung test).
#include "protocol_kit.hpp"

namespace typestar::protocol_kit {

INSTANTIATE_TEST_SUITE_P(Agent, ProtocolKit,
                         ::testing::Values(KitAgent{"node",
                                                    {TYPESTAR_TIMEOUT_BIN, "300", TYPESTAR_NODE_BIN,
                                                     TYPESTAR_SOURCE_DIR "/device/node/agent.js", "--purpose", "asynctask",
                                                     "--port", "0"},
                                                    true,
                                                    {"cancel", "cancel"},
                                                    {TYPESTAR_TIMEOUT_BIN, "300", TYPESTAR_NODE_BIN,
                                                     TYPESTAR_SOURCE_DIR "/device/node/agent.js", "--purpose",
                                                     "asynctask-purpose", "--port", "0"}}),
                         kit_name);

}  // namespace typestar::protocol_kit
