// The proposal workflow (typestar/session/proposal.hpp): propose_spec learns once, writes by mode,
// diffs against the stored spec, and shares its proposal with the next request of the same key;
// remove_proposal_files is the one removal `typestar accept` and update mode use.
#include "typestar/session/proposal.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "typestar/core/typestate.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class ProposeSpec : public testing::Test {
protected:
    void SetUp() override {
        std::string templ = (fs::temp_directory_path() / "typestar-propose-XXXXXX").string();
        ASSERT_NE(mkdtemp(templ.data()), nullptr);
        dir_ = templ;
        stored_ = spec::load_spec(std::string(TYPESTAR_SOURCE_DIR) + "/specs/mediaplayer.yaml");
        bytes_ = spec::write_spec(stored_);
        spec::write_file_atomically(dir_ / "mp.yaml", bytes_);
        // The device enables a callin the spec refuses in its initial state (a self-loop there).
        truth_ = stored_;
        Typestate& t = truth_.typestate;
        std::size_t c = 0;
        while (t.states[t.initial].callins[c]) ++c;
        t.states[t.initial].callins[c] = t.initial;
        device_.emplace(synchronous_closure(t), "model:truth");
        conformance_.emplace(synchronous_closure(stored_.typestate), std::vector<Device*>{&*device_});
        CheckReport report = conformance_->run(conformance_->suite(CheckOptions{}));
        ASSERT_TRUE(report.counterexample.has_value());
        cex_ = *report.counterexample;
    }
    void TearDown() override { fs::remove_all(dir_); }

    ProposalRequest request(ProposalMode mode, std::string share_key = {}) {
        ProposalRequest r;
        r.spec = dir_ / "mp.yaml";
        r.stored = &stored_;
        r.stored_bytes = bytes_;
        r.device = &*device_;
        r.conformance = &*conformance_;
        r.counterexample = &cex_;
        r.bound = 2;
        r.mode = mode;
        r.share_key = std::move(share_key);
        r.requester = "MediaPlayer.test";
        return r;
    }

    fs::path dir_;
    spec::Spec stored_, truth_;
    std::string bytes_;
    std::optional<ModelDevice> device_;
    std::optional<Conformance> conformance_;
    Counterexample cex_;
};

TEST_F(ProposeSpec, WritesTheProposalNextToTheSpecWithItsDiffAndWhatRan) {
    const SpecProposal p = propose_spec(request(ProposalMode::Write));
    ASSERT_TRUE(p.spec) << p.error;
    EXPECT_TRUE(spec::same_behaviour(*p.spec, truth_));
    EXPECT_EQ(p.written.file, proposed_path(dir_ / "mp.yaml", "yaml"));
    EXPECT_EQ(slurp(p.written.file), p.yaml);
    EXPECT_TRUE(fs::exists(proposed_path(dir_ / "mp.yaml", "dot")));
    EXPECT_EQ(slurp(dir_ / "mp.yaml"), bytes_);  // the approved spec is untouched
    ASSERT_TRUE(p.diff);
    EXPECT_FALSE(p.diff->changes.empty());
    EXPECT_EQ(p.summary.rfind("L# (seeded with the stored spec)", 0), 0u) << p.summary;  // the learner that ran
    EXPECT_FALSE(p.shared());
}

TEST_F(ProposeSpec, TheLearnerNamedInTheSummaryIsTheOneThatRan) {
    ProposalRequest r = request(ProposalMode::Print);
    r.learner = LearnerKind::LStar;
    const SpecProposal p = propose_spec(r);
    ASSERT_TRUE(p.spec) << p.error;
    EXPECT_EQ(p.summary.rfind("L* (seeded with the stored spec)", 0), 0u) << p.summary;
}

TEST_F(ProposeSpec, PrintModeWritesNothing) {
    const SpecProposal p = propose_spec(request(ProposalMode::Print, "pinned"));
    ASSERT_TRUE(p.spec) << p.error;
    EXPECT_EQ(p.yaml, spec::write_spec(*p.spec));
    for (const auto& f : proposal_files(dir_ / "mp.yaml")) EXPECT_FALSE(fs::exists(f)) << f;
    EXPECT_EQ(slurp(dir_ / "mp.yaml"), bytes_);
}

TEST_F(ProposeSpec, UpdateModeWritesTheSpecAndRemovesItsProposalFiles) {
    spec::write_file_atomically(proposed_path(dir_ / "mp.yaml", "yaml"), "stale");
    const SpecProposal p = propose_spec(request(ProposalMode::Update));
    ASSERT_TRUE(p.spec) << p.error;
    EXPECT_TRUE(p.written.wrote_spec);
    EXPECT_EQ(slurp(dir_ / "mp.yaml"), p.yaml);
    EXPECT_FALSE(fs::exists(proposed_path(dir_ / "mp.yaml", "yaml")));
}

TEST_F(ProposeSpec, TheSecondRequestOfOneKeyReusesTheProposalWhileItsFilesAreInPlace) {
    const std::string key = "test key " + dir_.string();
    const SpecProposal first = propose_spec(request(ProposalMode::Write, key));
    ASSERT_TRUE(first.spec) << first.error;
    EXPECT_FALSE(first.shared());
    const SpecProposal second = propose_spec(request(ProposalMode::Write, key));
    ASSERT_TRUE(second.spec) << second.error;
    EXPECT_TRUE(second.shared());
    EXPECT_NE(second.shared_by.find("MediaPlayer.test in test process "), std::string::npos) << second.shared_by;
    EXPECT_EQ(second.yaml, first.yaml);
    EXPECT_TRUE(second.summary.empty()) << second.summary;  // same bound: nothing to note
    // Another key (another device) learns again; so does the same key once the file is edited.
    EXPECT_FALSE(propose_spec(request(ProposalMode::Write, key + " other")).shared());
    spec::write_file_atomically(proposed_path(dir_ / "mp.yaml", "yaml"), first.yaml + "# edited\n");
    EXPECT_FALSE(propose_spec(request(ProposalMode::Write, key)).shared());
}

TEST_F(ProposeSpec, WithoutAStoredSpecItLearnsFromScratchUnderTheRequestedName) {
    ProposalRequest r = request(ProposalMode::Write);
    r.spec = dir_ / "new.yaml";
    r.stored = nullptr;
    r.conformance = nullptr;
    r.counterexample = nullptr;
    r.name = "Fresh Player";
    const SpecProposal p = propose_spec(r);
    ASSERT_TRUE(p.spec) << p.error;
    EXPECT_EQ(p.spec->typestate.name, spec::sanitize_name("Fresh Player", "spec"));
    EXPECT_NE(p.summary.find("(from scratch: no spec yet)"), std::string::npos) << p.summary;
    EXPECT_FALSE(p.diff);
    EXPECT_TRUE(fs::exists(dir_ / "new.proposed.yaml"));
}

TEST(RemoveProposalFiles, RemovesEveryProposalFileAndNamesThem) {
    std::string templ = (fs::temp_directory_path() / "typestar-remove-XXXXXX").string();
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    const fs::path dir = templ;
    spec::write_file_atomically(dir / "t.proposed.yaml", "x");
    spec::write_file_atomically(dir / "t.diff.svg", "x");
    EXPECT_EQ(remove_proposal_files(dir / "t.yaml"), (std::vector<std::string>{"t.proposed.yaml", "t.diff.svg"}));
    EXPECT_TRUE(remove_proposal_files(dir / "t.yaml").empty());
    fs::remove_all(dir);
}

TEST(ProposalDeviceKey, AnAgentIsNeverPinned) {
    const spec::Spec s = spec::load_spec(std::string(TYPESTAR_SOURCE_DIR) + "/specs/mediaplayer.yaml");
    ModelDevice device(synchronous_closure(s.typestate), "model:mp");
    EXPECT_TRUE(proposal_device_key("http://127.0.0.1:1", device).empty());
    EXPECT_NE(proposal_device_key("", device).find("factory model:mp"), std::string::npos);
    EXPECT_NE(proposal_device_key("inproc:Timer", device).find("url inproc:Timer"), std::string::npos);
}

}  // namespace
}  // namespace typestar
