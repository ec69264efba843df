// The trace-cmp collector: SanitizerCoverage's comparison hooks, recording the constant operands a
// class compares against while an in-process callin runs (typestar/device/trace_cmp.hpp). Linked
// into a test binary by typestar_trace_comparisons (cmake/TypestarTraceCmp.cmake) as object code, so
// the device library's weak references find it. This file itself is never instrumented.
#include <cstddef>
#include <cstdint>
#include <set>

namespace {
thread_local std::set<std::int64_t>* recording = nullptr;

void record(std::int64_t value) noexcept {
    try {
        recording->insert(value);
    } catch (...) {  // out of memory: drop the value (a candidate less, never a wrong answer)
    }
}
}  // namespace

extern "C" {

// The device library's entry points (weak references there).
std::set<std::int64_t>* typestar_trace_cmp_swap(std::set<std::int64_t>* to) noexcept {
    std::set<std::int64_t>* previous = recording;
    recording = to;
    return previous;
}

// Comparisons where neither operand is a compile-time constant: not recorded (the argument itself
// compared with the state would be offered back as "from the code").
void __sanitizer_cov_trace_cmp1(std::uint8_t, std::uint8_t) {}
void __sanitizer_cov_trace_cmp2(std::uint16_t, std::uint16_t) {}
void __sanitizer_cov_trace_cmp4(std::uint32_t, std::uint32_t) {}
void __sanitizer_cov_trace_cmp8(std::uint64_t, std::uint64_t) {}
// Floating-point comparisons (gcc emits these): not recorded (integral candidates only).
void __sanitizer_cov_trace_cmpf(float, float) {}
void __sanitizer_cov_trace_cmpd(double, double) {}

// A comparison with a constant: the first operand is the constant. Signedness is not known here:
// narrower constants are read as signed (so `v == -1` offers -1), 64-bit ones as they are.
void __sanitizer_cov_trace_const_cmp1(std::uint8_t c, std::uint8_t) {
    if (recording != nullptr) record(static_cast<std::int8_t>(c));
}
void __sanitizer_cov_trace_const_cmp2(std::uint16_t c, std::uint16_t) {
    if (recording != nullptr) record(static_cast<std::int16_t>(c));
}
void __sanitizer_cov_trace_const_cmp4(std::uint32_t c, std::uint32_t) {
    if (recording != nullptr) record(static_cast<std::int32_t>(c));
}
void __sanitizer_cov_trace_const_cmp8(std::uint64_t c, std::uint64_t) {
    if (recording != nullptr) record(static_cast<std::int64_t>(c));
}

// switch: cases[0] is the number of cases, cases[1] the operand's width in bits, then the values.
void __sanitizer_cov_trace_switch(std::uint64_t, std::uint64_t* cases) {
    if (recording == nullptr) return;
    const std::uint64_t n = cases[0];
    const std::uint64_t bits = cases[1];
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t c = cases[2 + i];
        std::int64_t v = static_cast<std::int64_t>(c);
        if (bits == 32) v = static_cast<std::int32_t>(c);
        else if (bits == 16) v = static_cast<std::int16_t>(c);
        else if (bits == 8) v = static_cast<std::int8_t>(c);
        record(v);
    }
}

// Division and GEP tracing (-fsanitize-coverage=trace-div,trace-gep) are not requested; defining
// them keeps a binary linking if a user adds those flags to the class.
void __sanitizer_cov_trace_div4(std::uint32_t) {}
void __sanitizer_cov_trace_div8(std::uint64_t) {}
void __sanitizer_cov_trace_gep(std::uintptr_t) {}

}  // extern "C"
