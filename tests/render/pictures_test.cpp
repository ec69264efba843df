// write_proposal_pictures: `<spec>.proposed.svg` and `<spec>.diff.svg` next to a proposal.
#include "typestar/render/pictures.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/render/svg.hpp"
#include "typestar/spec/diff_dot.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::render {
namespace {

namespace fs = std::filesystem;

const std::string kSource = TYPESTAR_SOURCE_DIR;

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

class ProposalPictures : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() /
               ("typestar_pictures_test_" + std::to_string(::getpid()) + "_" + info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path dir_;
    const spec::Spec stored_ = spec::load_spec(kSource + "/specs/mediaplayer.yaml");
    const spec::Spec proposed_ =
        spec::load_spec(kSource + "/tests/spec/fixtures/dot/mediaplayer_prepare_mutant.yaml");
};

TEST_F(ProposalPictures, ProposedAndDiffNextToTheProposal) {
    const fs::path yaml = dir_ / "mediaplayer.proposed.yaml";
    const auto written = write_proposal_pictures(&stored_, proposed_, yaml);
    const std::vector<fs::path> expected{dir_ / "mediaplayer.proposed.svg", dir_ / "mediaplayer.diff.svg"};
    EXPECT_EQ(written, expected);
    EXPECT_EQ(read(expected[0]), render_svg(spec::write_typestate_dot(proposed_.typestate)));
    EXPECT_EQ(read(expected[1]), render_svg(spec::write_diff_dot(stored_, proposed_)));
    EXPECT_FALSE(fs::exists(yaml));  // the proposal itself is the caller's
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir_)) files.push_back(e.path());
    EXPECT_EQ(files.size(), 2u);  // no temporary file left behind
}

TEST_F(ProposalPictures, WithoutAStoredSpecOnlyTheProposalAndNoStaleDiff) {
    const fs::path stale = dir_ / "mediaplayer.diff.svg";
    std::ofstream(stale) << "<svg>an old diff</svg>";
    const auto written = write_proposal_pictures(nullptr, proposed_, dir_ / "mediaplayer.proposed.yaml");
    EXPECT_EQ(written, (std::vector<fs::path>{dir_ / "mediaplayer.proposed.svg"}));
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_NE(read(written[0]).find("<svg "), std::string::npos);
}

TEST_F(ProposalPictures, NamesFollowTheSpecWhateverTheProposalIsCalled) {
    const auto written = write_proposal_pictures(&stored_, proposed_, dir_ / "timer.yml");
    EXPECT_EQ(written, (std::vector<fs::path>{dir_ / "timer.proposed.svg", dir_ / "timer.diff.svg"}));
}

TEST_F(ProposalPictures, RewritingReplacesTheOldPictures) {
    const fs::path yaml = dir_ / "mediaplayer.proposed.yaml";
    (void)write_proposal_pictures(&stored_, stored_, yaml);
    const std::string same = read(dir_ / "mediaplayer.diff.svg");
    EXPECT_NE(same.find("(same behaviour)"), std::string::npos);
    (void)write_proposal_pictures(&stored_, proposed_, yaml);
    const std::string changed = read(dir_ / "mediaplayer.diff.svg");
    EXPECT_EQ(changed.find("(same behaviour)"), std::string::npos);
    EXPECT_NE(changed.find("+ prepare()"), std::string::npos);
}

TEST_F(ProposalPictures, UnwritableDirectoryIsAnErrorNamingThePath) {
    const fs::path yaml = dir_ / "missing" / "mediaplayer.proposed.yaml";
    try {
        (void)write_proposal_pictures(&stored_, proposed_, yaml);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find((dir_ / "missing").string()), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir_ / "missing"));
}

TEST_F(ProposalPictures, APathWithoutASpecNameIsAnError) {
    EXPECT_THROW((void)write_proposal_pictures(&stored_, proposed_, dir_ / ".proposed.yaml"), Error);
    EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace typestar::render
