// libFuzzer entry point: the device agent's HTTP request parser (see agent_request_target.hpp).
#include <cstddef>
#include <cstdint>

#include "agent_request_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return typestar::fuzz::agent_request_one_input(data, size);
}
