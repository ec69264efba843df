#include "typestar/gtest/report.hpp"

#include <gtest/gtest.h>

namespace typestar::gtest {
namespace {

TEST(Report, ShellQuotingOnlyWhenNeeded) {
    EXPECT_EQ(shell_quote("specs/timer.yaml"), "specs/timer.yaml");
    EXPECT_EQ(shell_quote("model:/a/b.yaml"), "model:/a/b.yaml");
    EXPECT_EQ(shell_quote("my specs/it's.yaml"), "'my specs/it'\\''s.yaml'");
    EXPECT_EQ(shell_quote(""), "''");
}

TEST(Report, ReproduceCommands) {
    EXPECT_EQ(check_command("/w/timer.yaml", "inproc:asynctask", 2),
              "typestar check /w/timer.yaml --device inproc:asynctask --bound 2");
    EXPECT_EQ(rerun_command("./t", "Timer.Running_start"), "./t --gtest_filter=Timer.Running_start");
}

TEST(Report, ContentHashIsFnv1a64) {
    EXPECT_EQ(content_hash(""), "fnv1a64:cbf29ce484222325");
    EXPECT_EQ(content_hash("a"), "fnv1a64:af63dc4c8601ec8c");
    EXPECT_NE(content_hash("states: {}"), content_hash("states: {} "));
}

TEST(Report, ProposedPathSitsNextToTheSpec) {
    EXPECT_EQ(proposed_path("specs/timer.yaml", "yaml"), std::filesystem::path("specs/timer.proposed.yaml"));
    EXPECT_EQ(proposed_path("specs/timer.yml", "dot"), std::filesystem::path("specs/timer.proposed.dot"));
    EXPECT_EQ(proposed_path("timer.spec", "yaml"), std::filesystem::path("timer.spec.proposed.yaml"));
}

}  // namespace
}  // namespace typestar::gtest
