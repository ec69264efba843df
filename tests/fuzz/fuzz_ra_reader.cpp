// Fuzz target: the register-automaton YAML reader (parse_register_spec). Oracles beyond "no
// crash": every diagnostic is printable; an accepted spec is written, read back, written again
// byte for byte the same and behaves the same (ra_round_trip.hpp); a limit is a diagnostic.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ra_round_trip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace typestar;
    if (size > (1U << 16)) return 0;
    fuzz::small_ra_limits();
    const std::string text(reinterpret_cast<const char*>(data), size);
    ra::RaSpec spec;
    try {
        spec = ra::parse_register_spec(text, "fuzz.yaml");
    } catch (const SpecError& e) {
        fuzz::check_printable_diagnostics(e);
        return 0;
    }
    fuzz::check_ra_round_trip(spec);
    return 0;
}
