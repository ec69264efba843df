// The protocol kit against the JVM agent (typestar-agent.jar serving the probe class).
#include "protocol_kit.hpp"

namespace typestar::protocol_kit {

INSTANTIATE_TEST_SUITE_P(Agent, ProtocolKit,
                         ::testing::Values(KitAgent{"jvm",
                                                    {TYPESTAR_JAVA, "-XX:TieredStopAtLevel=1", "-jar", TYPESTAR_JVM_AGENT_JAR,
                                                     "--class-purpose", "typestar.testing.ProbePurpose", "--port", "0"},
                                                    true,
                                                    {"start", "start"}}),  // at most one start pending
                         kit_name);

}  // namespace typestar::protocol_kit
