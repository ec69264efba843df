// libFuzzer entry point: the agent serving a data device, without sockets (see agent_data_target.hpp).
#include <cstddef>
#include <cstdint>

#include "agent_data_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return typestar::fuzz::agent_data_one_input(data, size);
}
