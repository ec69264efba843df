// Fuzz target: RALib's XML importer (import_ralib_xml), read as written and with first-match
// guards (the first byte picks). Oracles beyond "no crash": every diagnostic is printable; an
// imported automaton is written as a v2 spec and reads back, byte-stable, with the same behaviour
// (ra_round_trip.hpp): what import accepts, export writes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ra_round_trip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace typestar;
    if (size == 0 || size > (1U << 16)) return 0;
    fuzz::small_ra_limits();
    ra::RalibImportOptions options;
    options.first_match = (data[0] & 1) != 0;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    ra::RaSpec spec;
    try {
        spec.automaton = ra::import_ralib_xml(text, "fuzz.xml", options);
    } catch (const SpecError& e) {
        fuzz::check_printable_diagnostics(e);
        return 0;
    }
    fuzz::check_ra_round_trip(spec);
    return 0;
}
