// The protocol kit against the C++ agents: typestar-device, and a gtest binary linked with the
// plugin serving its registered device (--typestar_serve, the agent behind `exec:`).
#include <vector>

#include "protocol_kit.hpp"

namespace typestar::protocol_kit {
namespace {

std::vector<KitAgent> cpp_agents() {
    std::vector<KitAgent> agents{{"cpp",
                                  {TYPESTAR_DEVICE_BIN, "--class", "asynctask", "--port", "0"},
                                  true,
                                  {"cancel", "cancel"},
                                  {TYPESTAR_DEVICE_BIN, "--class", "asynctask_purpose", "--port", "0"}}};
#ifdef TYPESTAR_KIT_EXEC_SUBJECT
    agents.push_back({"gtest_serve",
                      {TYPESTAR_KIT_EXEC_SUBJECT, "--typestar_serve=127.0.0.1:0"},
                      false,
                      {},
                      {},
                      "its subject has no learning purpose; it serves through the Agent of typestar-device (the cpp case)"});
#endif
    return agents;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Agent, ProtocolKit, ::testing::ValuesIn(cpp_agents()), kit_name);

}  // namespace typestar::protocol_kit
