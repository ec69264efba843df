// Shared by the spec tests: where the fixtures are (tests/spec/fixtures: good/, bad/ with their
// .expected diagnostics, golden/) and reading one as bytes.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace typestar::spec::testing_fixtures {

inline const std::filesystem::path kSource = TYPESTAR_SOURCE_DIR;
inline const std::filesystem::path kFixtures = kSource / "tests" / "spec" / "fixtures";

/// The bytes of `path`; a failed expectation (and "") when it cannot be opened.
inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in.good()) << "cannot open " << path;
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

}  // namespace typestar::spec::testing_fixtures
