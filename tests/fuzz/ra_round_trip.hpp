// The register-automaton round-trip oracle shared by the RA fuzz targets: whatever validates is
// written, read back, written again byte for byte the same, and behaves the same.
#pragma once

#include <string>

#include "fuzz_oracle.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/suite.hpp"

namespace typestar::fuzz {

/// Small exploration limits, so the fuzzer explores inputs instead of one huge automaton; set once
/// (an explicit environment wins).
inline void small_ra_limits() {
    static const bool once = [] {
        ::setenv("TYPESTAR_MAX_RA_WORK", "200000", 0);
        ::setenv("TYPESTAR_MAX_RA_STATES", "2000", 0);
        ::setenv("TYPESTAR_MAX_GUARD_DISJUNCTS", "256", 0);
        return true;
    }();
    (void)once;
}

/// `spec` (which validated) is written, read back, written again byte-identically, and the two
/// automata have no separating word of up to 3 steps.
inline void check_ra_round_trip(const ra::RaSpec& spec) {
    std::string written;
    try {
        written = ra::write_register_spec(spec);
    } catch (const Error& e) {
        finding(std::string("a register automaton that validates cannot be written: ") + e.what() + "\n" +
                ra::write_register_dot(spec.automaton));
    }
    ra::RaSpec back;
    try {
        back = ra::parse_register_spec(written, "written.yaml");
    } catch (const SpecError& e) {
        finding(std::string("the written register automaton does not read: ") + e.what() + "\n" + written);
    }
    check(ra::write_register_spec(back) == written, "write -> read -> write is not byte-stable:\n" + written);
    check(back.automaton.inputs.size() == spec.automaton.inputs.size() &&
              back.automaton.outputs.size() == spec.automaton.outputs.size(),
          "the written automaton has other symbols:\n" + written);
    try {
        const auto cex = ra::separating_word(spec.automaton, ra::renumbered_like(spec.automaton, back.automaton), 3);
        check(!cex, "the written register automaton behaves differently:\n" + written);
    } catch (const Error& e) {
        check(std::string(e.what()).find("TYPESTAR_MAX_") != std::string::npos,
              std::string("comparing the written automaton failed: ") + e.what());
    }
}

}  // namespace typestar::fuzz
