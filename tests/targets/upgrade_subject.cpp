// The upgrade check: SQLite with a commit hook that vetoes every commit (a documented behaviour
// switch) against the stored spec of the accepting configuration. Expected to fail, proposing the
// new spec and its diff; run by upgrade_check.cmake, never directly by ctest.
#include "typestar/gtest/gtest.hpp"
#include "typestar/targets/targets.hpp"

// SQLITE_UPGRADE_SPEC: a copy of specs/targets/sqlite.yaml in the build tree, so the proposal the
// failing run writes lands there.
TYPESTAR_SPEC_TESTS(SQLITE_UPGRADE_SPEC, [] {
    typestar::targets::SqliteOptions options;
    options.veto_commits = true;
    return typestar::targets::make_target_device(typestar::targets::sqlite(options));
});
