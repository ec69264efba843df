// The record and lock through which the test processes of one ctest run share a proposal
// (src/session/shared_proposal.hpp, internal to the session). End to end with several processes: e2e_test.cpp.
#include "shared_proposal.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace typestar::detail {
namespace {

namespace fs = std::filesystem;

class SharedProposalTest : public testing::Test {
protected:
    void SetUp() override {
        std::string templ = (fs::temp_directory_path() / "typestar-shared-XXXXXX").string();
        ASSERT_NE(mkdtemp(templ.data()), nullptr);
        dir_ = templ;
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST(SharedProposalKey, EveryInputChangesTheKey) {
    const std::string k = shared_proposal_key("spec", "dev", "bin", 2, "lstar", "typestar 0.1.0");
    EXPECT_EQ(k, shared_proposal_key("spec", "dev", "bin", 2, "lstar", "typestar 0.1.0"));
    EXPECT_NE(k, shared_proposal_key("spec ", "dev", "bin", 2, "lstar", "typestar 0.1.0"));
    EXPECT_NE(k, shared_proposal_key("spec", "dev2", "bin", 2, "lstar", "typestar 0.1.0"));
    EXPECT_NE(k, shared_proposal_key("spec", "dev", "bin2", 2, "lstar", "typestar 0.1.0"));
    EXPECT_NE(k, shared_proposal_key("spec", "dev", "bin", 3, "lstar", "typestar 0.1.0"));
    EXPECT_NE(k, shared_proposal_key("spec", "dev", "bin", 2, "lsharp", "typestar 0.1.0"));
    EXPECT_NE(k, shared_proposal_key("spec", "dev", "bin", 2, "lstar", "typestar 0.2.0"));
    // A device text cannot forge another key line.
    EXPECT_EQ(shared_proposal_key("s", "a\nbinary x", "b", 1, "l", "t").find("\nbinary x"), std::string::npos);
}

TEST_F(SharedProposalTest, PathsAreNamedAfterTheSpecsPath) {
    EXPECT_EQ(shared_lock_path("/a/timer.yaml", dir_).parent_path(), dir_);
    EXPECT_EQ(shared_lock_path("/a/timer.yaml", dir_), shared_lock_path("/a/timer.yaml", dir_));
    EXPECT_NE(shared_lock_path("/a/timer.yaml", dir_), shared_lock_path("/b/timer.yaml", dir_));
    EXPECT_EQ(shared_lock_path("/a/timer.yaml", dir_).extension(), ".lock");
    EXPECT_EQ(shared_record_path("/a/timer.yaml", dir_).extension(), ".record");
}

TEST_F(SharedProposalTest, RecordRoundTripsAndAnythingElseIsNoRecord) {
    const fs::path p = dir_ / "r.record";
    EXPECT_EQ(read_shared_proposal(p), std::nullopt);  // missing
    const SharedProposal r{"spec x\ndevice y\n", 4242, "Timer.Running_start", "2026-11-24 04:00:00 UTC", "typestar: 1\nname: T\n# a line\n"};
    write_shared_proposal(p, r);
    EXPECT_EQ(read_shared_proposal(p), r);
    std::string text;
    {
        std::ifstream in(p, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::ofstream(p, std::ios::binary) << text.substr(0, text.size() - 1);  // truncated
    EXPECT_EQ(read_shared_proposal(p), std::nullopt);
    std::ofstream(p, std::ios::binary) << text << "x";  // extended
    EXPECT_EQ(read_shared_proposal(p), std::nullopt);
    std::ofstream(p, std::ios::binary) << "garbage\n1\n2\n";
    EXPECT_EQ(read_shared_proposal(p), std::nullopt);
    std::ofstream(p, std::ios::binary) << "typestar-shared-proposal 3\nx\nT.t\nnow\ny\n";
    EXPECT_EQ(read_shared_proposal(p), std::nullopt);
}

TEST_F(SharedProposalTest, TheLockIsExclusiveUntilReleased) {
    const fs::path p = dir_ / "l.lock";
    std::atomic<bool> second{false};
    std::thread other;
    {
        ProposalLock first(p);
        ASSERT_TRUE(first.held());
        other = std::thread([&] {
            ProposalLock again(p);  // another open file description: waits for the first
            second = again.held();
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        EXPECT_FALSE(second.load());
    }
    other.join();
    EXPECT_TRUE(second.load());
    EXPECT_FALSE(ProposalLock(dir_ / "no-such-dir" / "l.lock").held());  // cannot open: holds nothing
}

TEST(EnvironmentHash, ChangesWithTheEnvironmentButNotWithGtestOrLogLevel) {
    const char* level = std::getenv("SPDLOG_LEVEL");
    const std::string saved_level = level != nullptr ? level : "";
    const std::string before = environment_hash();
    ::setenv("TYPESTAR_TEST_FACTORY_KNOB", "1", 1);
    const std::string knob = environment_hash();
    ::setenv("GTEST_SHARD_INDEX_UNUSED_BY_TEST", "3", 1);
    ::setenv("SPDLOG_LEVEL", "debug", 1);
    EXPECT_EQ(environment_hash(), knob);
    ::unsetenv("TYPESTAR_TEST_FACTORY_KNOB");
    ::unsetenv("GTEST_SHARD_INDEX_UNUSED_BY_TEST");
    if (level != nullptr)
        ::setenv("SPDLOG_LEVEL", saved_level.c_str(), 1);
    else
        ::unsetenv("SPDLOG_LEVEL");
    EXPECT_NE(before, knob);
    EXPECT_EQ(environment_hash(), before);
}

TEST(ExecutableHash, IsStableWithinTheProcess) {
    const std::string h = executable_hash();
    EXPECT_EQ(h.rfind("fnv1a64:", 0), 0u);
    EXPECT_EQ(h, executable_hash());
}

}  // namespace
}  // namespace typestar::detail
