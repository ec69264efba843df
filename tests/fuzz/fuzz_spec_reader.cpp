// Fuzz target: the YAML spec reader (parse_spec). Oracles beyond "no crash": every diagnostic is
// located (line:col > 0) and printable; an accepted spec is written, read back and written again
// byte for byte the same (write_spec itself also checks that what it writes loads again).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_oracle.hpp"
#include "typestar/spec/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace typestar;
    const std::string text(reinterpret_cast<const char*>(data), size);
    spec::ReadLimits limits;  // small, so the fuzzer explores instead of allocating
    limits.max_bytes = 1 << 20;
    limits.max_transitions = 1 << 16;
    spec::Spec first;
    try {
        first = spec::parse_spec(text, "fuzz.yaml", limits);
    } catch (const SpecError& e) {
        fuzz::check_diagnostics(e);
        return 0;
    }
    std::string written;
    try {
        written = spec::write_spec(first);
    } catch (const Error& e) {
        fuzz::finding(std::string("an accepted spec cannot be written: ") + e.what());
    }
    spec::Spec second;
    try {
        second = spec::parse_spec(written, "written.yaml", limits);
    } catch (const SpecError& e) {
        fuzz::finding(std::string("the written spec does not load: ") + e.what() + "\n" + written);
    }
    fuzz::check(spec::write_spec(second) == written, "write -> read -> write is not byte-stable:\n" + written);
    fuzz::check(spec::same_behaviour(first, second), "the written spec has another behaviour");
    return 0;
}
