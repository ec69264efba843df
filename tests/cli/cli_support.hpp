// Shared by the end-to-end tests of the `typestar` binary (TYPESTAR_CLI, defined by each test
// target): a scratch directory per test and the binary run inside it with its output captured.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace typestar::testing_support {

/// The source tree and the bundled specs the CLI tests run on.
inline const std::string kSource = TYPESTAR_SOURCE_DIR;
inline const std::string kMediaPlayer = kSource + "/specs/mediaplayer.yaml";
inline const std::string kAsyncTask = kSource + "/specs/asynctask.yaml";

/// The whole file (empty when it cannot be read).
inline std::string read(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// `s` as one single-quoted POSIX shell word.
inline std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/// How a run of the binary ended: its exit status (-1 when it did not exit), stdout and stderr.
struct Result {
    int status = -1;
    std::string out;
    std::string err;
};

/// A test with a fresh scratch directory `dir_` (temp/<prefix><pid>_<test name>), removed after it.
class CliTest : public ::testing::Test {
protected:
    explicit CliTest(std::string prefix) : prefix_(std::move(prefix)) {}

    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = std::filesystem::temp_directory_path() / (prefix_ + std::to_string(::getpid()) + "_" + info->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    /// Runs `<launcher>typestar <args>` in `dir_` through the shell (`launcher`, e.g. "env X=1 ",
    /// is shell text put before the binary), its stdout and stderr going to files there.
    Result run_cli(const std::vector<std::string>& args, const std::string& launcher) const {
        std::string command = "cd " + shell_quote(dir_.string()) + " && " + launcher + shell_quote(TYPESTAR_CLI);
        for (const auto& a : args) command += " " + shell_quote(a);
        command += " > stdout.txt 2> stderr.txt";
        const int raw = std::system(command.c_str());
        Result r;
        r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
        r.out = read(dir_ / "stdout.txt");
        r.err = read(dir_ / "stderr.txt");
        return r;
    }

    std::filesystem::path dir_;

private:
    std::string prefix_;
};

}  // namespace typestar::testing_support
