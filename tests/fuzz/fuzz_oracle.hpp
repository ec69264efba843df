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

/// `text` has no raw control character (C0 or DEL).
inline void check_printable(const std::string& text, const std::string& what) {
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        check(byte >= 0x20 && byte != 0x7f, what + " with a raw control character: " + text);
    }
}

/// A rejected text has diagnostics, none with a raw control character in its file or message.
inline void check_printable_diagnostics(const SpecError& e) {
    check(!e.diagnostics().empty(), "SpecError without diagnostics");
    for (const Diagnostic& d : e.diagnostics()) {
        check_printable(d.file, "diagnostic file");
        check_printable(d.message, "diagnostic");
    }
}

/// Every diagnostic of a rejected text carries line:col > 0 and no raw control character.
inline void check_diagnostics(const SpecError& e) {
    check_printable_diagnostics(e);
    for (const Diagnostic& d : e.diagnostics()) check(d.line > 0 && d.column > 0, "diagnostic without a location: " + d.str());
}

}  // namespace typestar::fuzz
