// libFuzzer entry point: HttpDevice's reading of agent answers (see agent_answers_target.hpp).
#include <cstddef>
#include <cstdint>

#include "agent_answers_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return typestar::fuzz::agent_answers_one_input(data, size);
}
