// Values from the class's code: the constants a class under learning compares against while one of
// its callins runs, collected through SanitizerCoverage's comparison tracing
// (`-fsanitize-coverage=trace-cmp`, the hooks libFuzzer uses), so that partitions split where the
// class's own guards do.
// Design note: typestar's own code is never instrumented. cmake's typestar_trace_comparisons(TARGET t
// [SOURCES ...]) compiles the class's translation units with the flag and links the collector
// (src/tracecmp/collector.cpp, an object library) into the test binary; the collector defines the
// hooks. InProcessDevice opens a Recording around a callin body; the hooks record only while a
// Recording is open on their thread (a thread-local flag: one load and a branch when off).
// Comparisons on other threads (a callback's worker) are not recorded. When the collector is not
// linked (the option is off, the compiler lacks the flag) linked() is false and nothing is recorded.
#pragma once

#include <cstdint>
#include <set>

namespace typestar::trace_cmp {

/// True when the test binary links the collector (typestar_trace_comparisons).
[[nodiscard]] bool linked() noexcept;

/// While alive, the constants compared on this thread by instrumented code are collected into
/// `out` (constant operands of comparisons, switch case values). Nested scopes: the inner one
/// records, the outer resumes after it. A no-op when the collector is not linked.
class Recording {
public:
    explicit Recording(std::set<std::int64_t>& out) noexcept;
    ~Recording();
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;

private:
    std::set<std::int64_t>* previous_ = nullptr;
};

}  // namespace typestar::trace_cmp
