// typestar::gtest_main: GoogleTest's main with the typestar flags, logging and queued specs
// (TYPESTAR_SPEC_TESTS) set up by typestar::initialize.
#include <gtest/gtest.h>

#include "typestar/gtest/gtest.hpp"

int main(int argc, char** argv) {
    typestar::initialize(argc, argv);
    return RUN_ALL_TESTS();
}
