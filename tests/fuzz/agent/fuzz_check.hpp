// A check for fuzz targets: a broken promise aborts with the condition and its place, so libFuzzer
// (and the corpus replay under gtest) reports it as a crash with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>

#define TYPESTAR_FUZZ_CHECK(condition)                                                              \
    do {                                                                                            \
        if (!(condition)) {                                                                         \
            std::fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #condition, __FILE__, __LINE__); \
            std::abort();                                                                           \
        }                                                                                           \
    } while (false)
