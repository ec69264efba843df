// Oracles shared by the spec fuzzers: a failed check prints what broke and aborts, which libFuzzer
// (or the replay driver's ctest test) reports as a finding with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "typestar/core/error.hpp"

namespace typestar::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz oracle failed: %s\n", what.c_str());
    std::abort();
}

inline void check(bool ok, const std::string& what) {
    if (!ok) finding(what);
}

/// Every diagnostic of a rejected text carries line:col > 0 and no raw control character.
inline void check_diagnostics(const SpecError& e) {
    check(!e.diagnostics().empty(), "SpecError without diagnostics");
    for (const Diagnostic& d : e.diagnostics()) {
        check(d.line > 0 && d.column > 0, "diagnostic without a location: " + d.str());
        for (const char c : d.message) {
            const auto byte = static_cast<unsigned char>(c);
            check(byte >= 0x20 && byte != 0x7f, "diagnostic with a raw control character: " + d.str());
        }
    }
}

}  // namespace typestar::fuzz
