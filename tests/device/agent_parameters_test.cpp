// The C++ agent's /v1/status declares an in-process class's parameterised callins (device/PROTOCOL.md,
// `parameters`): each concrete value an input, grouped into the purpose's partitions.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "http_support.hpp"

namespace typestar {
namespace {

using namespace testing_support;
using nlohmann::json;

TEST(AgentStatus, DeclaresParameterisedCallinsWithTheirValueInputs) {
    auto agent = start_agent("pipedoutputstream");
    const auto reply = authorized("GET", agent->url() + "/v1/status");
    ASSERT_EQ(reply.status, 200) << reply.body;
    const json status = json::parse(reply.body);
    EXPECT_EQ(status["callins"], json::array({"connect/v0", "connect/v1", "connect/v2", "write/v0", "write/v1", "write/v2", "close"}));
    EXPECT_EQ(status["parameters"],
              json::parse(R"([{"callin": "connect", "signature": [["snk", "object"]],
                                "partitions": [{"name": "any", "guard": "any sink",
                                                "values": [{"input": "connect/v0", "value": "null"},
                                                           {"input": "connect/v1", "value": "new"},
                                                           {"input": "connect/v2", "value": "connected"}]}]},
                               {"callin": "write", "signature": [["len", "int"]],
                                "partitions": [{"name": "any", "guard": "any length",
                                                "values": [{"input": "write/v0", "value": "-1"},
                                                           {"input": "write/v1", "value": "0"},
                                                           {"input": "write/v2", "value": "3"}]}]}])"));
    // A class without parameters has no such field (older statuses unchanged).
    auto plain = start_agent("asynctask");
    const json plain_status = json::parse(authorized("GET", plain->url() + "/v1/status").body);
    EXPECT_FALSE(plain_status.contains("parameters"));
}

}  // namespace
}  // namespace typestar
