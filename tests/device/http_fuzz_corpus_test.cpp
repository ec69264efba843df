// Replays the seed corpora of the device protocol's fuzz targets (tests/fuzz/agent/corpus/) through
// the same entry functions the libFuzzer targets call, so every build (gcc included) checks their
// oracles on these inputs. A broken oracle aborts with the condition (fuzz_check.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "agent_answers_target.hpp"
#include "agent_data_target.hpp"
#include "agent_handler_target.hpp"
#include "agent_request_target.hpp"

namespace typestar {
namespace {

std::vector<std::filesystem::path> corpus(const std::string& name) {
    const auto dir = std::filesystem::path(TYPESTAR_SOURCE_DIR) / "tests/fuzz/agent/corpus" / name;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<std::uint8_t> bytes_of(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(AgentFuzzCorpus, RequestParserKeepsItsPromisesOnEverySeed) {
    const auto files = corpus("request");
    ASSERT_GE(files.size(), 20u);
    for (const auto& f : files) {
        SCOPED_TRACE(f.filename().string());
        const auto data = bytes_of(f);
        EXPECT_EQ(fuzz::agent_request_one_input(data.data(), data.size()), 0);
        // Every prefix too: a connection's bytes arrive in pieces.
        for (std::size_t n = 0; n < data.size(); n += 7) (void)fuzz::agent_request_one_input(data.data(), n);
    }
}

TEST(AgentFuzzCorpus, AnswerReadersKeepTheirPromisesOnEverySeed) {
    const auto files = corpus("answers");
    ASSERT_GE(files.size(), 20u);
    for (const auto& f : files) {
        SCOPED_TRACE(f.filename().string());
        const auto data = bytes_of(f);
        EXPECT_EQ(fuzz::agent_answers_one_input(data.data(), data.size()), 0);
        // The same body read as every other kind of answer, with every status.
        auto copy = data;
        for (unsigned selector = 0; selector < 32; ++selector)
            for (unsigned status = 0; status < 8; ++status) {
                copy[0] = static_cast<std::uint8_t>(selector);
                copy[1] = static_cast<std::uint8_t>(status);
                (void)fuzz::agent_answers_one_input(copy.data(), copy.size());
            }
    }
}

TEST(AgentFuzzCorpus, AgentHandlerAnswersValidJsonOnEverySeed) {
    const auto files = corpus("handler");
    ASSERT_GE(files.size(), 10u);
    for (const auto& f : files) {
        SCOPED_TRACE(f.filename().string());
        const auto data = bytes_of(f);
        EXPECT_EQ(fuzz::agent_handler_one_input(data.data(), data.size()), 0);
    }
    // Also every request seed (their token is the fuzz agent's).
    for (const auto& f : corpus("request")) {
        SCOPED_TRACE(f.filename().string());
        const auto data = bytes_of(f);
        EXPECT_EQ(fuzz::agent_handler_one_input(data.data(), data.size()), 0);
    }
    EXPECT_EQ(fuzz::handler_agent().sessions(), 0u);  // every input's sessions were deleted
}

TEST(AgentFuzzCorpus, DataAgentAnswersDeclaredOutputsOnEverySeed) {
    const auto files = corpus("data");
    ASSERT_GE(files.size(), 10u);
    for (const auto& f : files) {
        SCOPED_TRACE(f.filename().string());
        const auto data = bytes_of(f);
        EXPECT_EQ(fuzz::agent_data_one_input(data.data(), data.size()), 0);
    }
    // Also the typestate handler's seeds (their token is the fuzz agents').
    for (const auto& f : corpus("handler")) {
        SCOPED_TRACE(f.filename().string());
        const auto data = bytes_of(f);
        EXPECT_EQ(fuzz::agent_data_one_input(data.data(), data.size()), 0);
    }
    EXPECT_EQ(fuzz::data_agent().sessions(), 0u);  // every input's sessions were deleted
}

}  // namespace
}  // namespace typestar
