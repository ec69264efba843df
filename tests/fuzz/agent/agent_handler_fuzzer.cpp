// libFuzzer entry point: the agent's request handling without sockets (see agent_handler_target.hpp).
#include <cstddef>
#include <cstdint>

#include "agent_handler_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return typestar::fuzz::agent_handler_one_input(data, size);
}
