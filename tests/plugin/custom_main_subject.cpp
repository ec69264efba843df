// A test binary with its own main: typestar::initialize, then a registration naming the spec on
// the command line (after the gtest and typestar flags were taken out), then RUN_ALL_TESTS.
#include <gtest/gtest.h>

#include "typestar/gtest/gtest.hpp"

TEST(Plain, StillRuns) { SUCCEED(); }

int main(int argc, char** argv) {
    typestar::initialize(argc, argv);
    for (int i = 1; i < argc; ++i) typestar::register_spec_tests(argv[i]);  // device: --typestar_device
    return RUN_ALL_TESTS();
}
