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
#include "typestar/ra/format.hpp"
#include "typestar/session/register_automata.hpp"
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

TEST_F(ProposeSpec, AProposalThatCannotBeWrittenIsAnErrorNotASilentSuccess) {
    // Regression: the plugin's writing phase set only the error and kept the spec, so the failure
    // message went on as if the proposal had been written (without saying where it was).
    ProposalRequest r = request(ProposalMode::Write);
    r.spec = dir_ / "no-such-directory" / "mp.yaml";
    const SpecProposal p = propose_spec(r);
    EXPECT_FALSE(p.spec);
    EXPECT_NE(p.error.find("could not write the learned spec"), std::string::npos) << p.error;
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


// The register-automaton kind: the same roles from the session, saying what ran.
ra::RaSpec pq_spec(const std::string& file) {
    return ra::load_register_spec(std::string(TYPESTAR_SOURCE_DIR) + file);
}

TEST(PlanRegisterTests, NamesLocationAndInputNumberingSeveralTransitionsOfOneInput) {
    const ra::RaSpec spec = pq_spec("/specs/ra/std_priority_queue.yaml");
    const std::vector<TransitionTest> plan = plan_register_tests(spec.automaton);
    ASSERT_GE(plan.size(), 6u);
    EXPECT_EQ(plan[0].name, "l0_offer");
    EXPECT_EQ(plan[1].name, "l0_poll");
    EXPECT_EQ(plan[2].name, "l1_offer_1");
    EXPECT_EQ(plan[3].name, "l1_offer_2");
    EXPECT_EQ(plan[4].name, "l1_offer_3");
    EXPECT_EQ(plan[5].name, "l1_poll");
    EXPECT_EQ(plan[3].state, "l1");
    EXPECT_EQ(plan[3].input, "offer");
    EXPECT_EQ(plan[3].line, 20);
    EXPECT_EQ(plan[3].location, 1u);
    EXPECT_EQ(plan[3].transition, 1u);
    EXPECT_EQ(suite_identifier(spec.automaton), "std_priority_queue");
}

TEST(RunRegisterTest, APassNamesItsAssumptionsAFailureItsNamedTrace) {
    const ra::RaSpec spec = pq_spec("/specs/ra/std_priority_queue.yaml");
    const ra::RaSpec mutant = pq_spec("/tests/cli/fixtures/ra/pq_poll_mutant.yaml");
    const std::vector<TransitionTest> plan = plan_register_tests(spec.automaton);
    ASSERT_EQ(plan.size(), 24u);
    CheckOptions options;
    options.bound = 2;
    {
        ra::SimulatorSul same(spec.automaton);
        ra::DataOracle oracle(same, spec.automaton);
        const CheckReport pass = run_register_test(spec.automaton, oracle, plan.front(), options);
        EXPECT_EQ(pass.verdict, Verdict::Pass);
        EXPECT_GT(pass.tests, 0u);
        ASSERT_FALSE(pass.assumptions.empty());
        EXPECT_NE(pass.assumptions.front().find("B=2"), std::string::npos) << pass.assumptions.front();
    }
    ra::SimulatorSul changed(mutant.automaton);
    ra::DataOracle oracle(changed, spec.automaton);
    std::size_t failed = 0;
    for (const auto& test : plan) {
        ra::RaCounterexample cex;
        const CheckReport r = run_register_test(spec.automaton, oracle, test, options, &cex);
        if (r.verdict != Verdict::Fail) continue;
        ++failed;
        ASSERT_FALSE(r.trace.empty());
        EXPECT_NE(r.trace.back().expected, r.trace.back().actual);
        EXPECT_FALSE(cex.inputs.empty());
        EXPECT_TRUE(proposal_explains(mutant.automaton, cex));   // the device's own behaviour explains it
        EXPECT_FALSE(proposal_explains(spec.automaton, cex));    // the stored spec does not
    }
    EXPECT_GT(failed, 0u);
}

TEST(ProposeRegisterSpec, TheSummaryNamesTheLearnerTheBoundAsUsedAndTheAssumptions) {
    const ra::RaSpec spec = pq_spec("/specs/ra/std_priority_queue.yaml");
    const ra::RaSpec mutant = pq_spec("/tests/cli/fixtures/ra/pq_poll_mutant.yaml");
    ra::SimulatorSul device(mutant.automaton);
    RegisterProposalRequest r;
    r.spec = "/nonexistent/pq.yaml";
    r.stored = &spec;
    r.device = &device;
    r.signature = spec.automaton;
    r.bound = 1;
    r.mode = ProposalMode::Print;
    const RegisterProposal p = propose_register_spec(r);
    ASSERT_TRUE(p.spec) << p.error;
    EXPECT_EQ(p.summary.rfind("SL* (from scratch), ", 0), 0u) << p.summary;
    EXPECT_NE(p.summary.find("suite at B=1"), std::string::npos) << p.summary;  // the words that ran
    EXPECT_NE(p.summary.find(", bound 1; "), std::string::npos) << p.summary;
    EXPECT_NE(p.summary.find("The learned spec relies on:\n  - "), std::string::npos) << p.summary;
    EXPECT_EQ(p.spec->distinguisher, 1u);
    EXPECT_NE(p.yaml.find("distinguisher: 1"), std::string::npos);
    EXPECT_FALSE(p.separating.empty());  // the stored spec and the proposal differ
    EXPECT_TRUE(p.file.empty());         // Print mode writes nothing
}

/// A register-automaton proposal request over a real file: the priority queue's spec stored, the
/// poll mutant as the device, and the mutant's first failing data word.
class ProposeRegister : public testing::Test {
protected:
    void SetUp() override {
        std::string templ = (fs::temp_directory_path() / "typestar-propose-ra-XXXXXX").string();
        ASSERT_NE(mkdtemp(templ.data()), nullptr);
        dir_ = templ;
        stored_ = pq_spec("/specs/ra/std_priority_queue.yaml");
        mutant_ = pq_spec("/tests/cli/fixtures/ra/pq_poll_mutant.yaml");
        bytes_ = ra::write_register_spec(stored_);
        spec::write_file_atomically(dir_ / "pq.yaml", bytes_);
        device_.emplace(mutant_.automaton);
        ra::DataOracle oracle(*device_, stored_.automaton);
        CheckOptions options;
        options.bound = 2;
        for (const auto& test : plan_register_tests(stored_.automaton)) {
            if (run_register_test(stored_.automaton, oracle, test, options, &cex_).verdict == Verdict::Fail) break;
        }
        ASSERT_FALSE(cex_.inputs.empty());
    }
    void TearDown() override { fs::remove_all(dir_); }

    RegisterProposalRequest request(ProposalMode mode, std::string share_key) {
        RegisterProposalRequest r;
        r.spec = dir_ / "pq.yaml";
        r.stored = &stored_;
        r.stored_bytes = bytes_;
        r.device = &*device_;
        r.signature = stored_.automaton;
        r.bound = 2;
        r.mode = mode;
        r.counterexample = &cex_;
        r.share_key = std::move(share_key);
        r.requester = "std_priority_queue.l1_poll";
        return r;
    }

    fs::path dir_;
    ra::RaSpec stored_, mutant_;
    std::string bytes_;
    std::optional<ra::SimulatorSul> device_;
    ra::RaCounterexample cex_;
};

TEST_F(ProposeRegister, TheSecondRequestOfOneKeyReusesTheProposalAsForATypestate) {
    const std::string key = "ra test key " + dir_.string();
    const RegisterProposal first = propose_register_spec(request(ProposalMode::Write, key));
    ASSERT_TRUE(first.spec) << first.error;
    EXPECT_FALSE(first.shared());
    EXPECT_EQ(first.file, proposed_path(dir_ / "pq.yaml", "yaml"));
    EXPECT_EQ(slurp(first.file), first.yaml);
    EXPECT_TRUE(fs::exists(proposed_path(dir_ / "pq.yaml", "dot")));  // its picture, as a typestate's
    const RegisterProposal second = propose_register_spec(request(ProposalMode::Write, key));
    ASSERT_TRUE(second.spec) << second.error;
    EXPECT_TRUE(second.shared());
    EXPECT_NE(second.shared_by.find("std_priority_queue.l1_poll in test process "), std::string::npos)
        << second.shared_by;
    EXPECT_EQ(second.yaml, first.yaml);
    EXPECT_EQ(second.separating, first.separating);
    // Another key learns again; so does the same key once the proposal file is edited, or when the
    // proposal does not explain the requester's word.
    EXPECT_FALSE(propose_register_spec(request(ProposalMode::Write, key + " other")).shared());
    RegisterProposalRequest unexplained = request(ProposalMode::Write, key);
    ra::RaCounterexample other = cex_;
    ra::DataSymbol& last = other.outputs.back();  // another output symbol: an answer the proposal does not give
    last.symbol = last.symbol == 0 ? 1 : 0;
    last.values.clear();
    unexplained.counterexample = &other;
    EXPECT_FALSE(propose_register_spec(unexplained).shared());
    spec::write_file_atomically(proposed_path(dir_ / "pq.yaml", "yaml"), first.yaml + "# edited\n");
    EXPECT_FALSE(propose_register_spec(request(ProposalMode::Write, key)).shared());
}

TEST_F(ProposeRegister, UpdateModeWritesTheSpecAndRemovesItsProposalFiles) {
    spec::write_file_atomically(proposed_path(dir_ / "pq.yaml", "yaml"), "stale");
    spec::write_file_atomically(proposed_path(dir_ / "pq.yaml", "dot"), "stale");
    const RegisterProposal p = propose_register_spec(request(ProposalMode::Update, {}));
    ASSERT_TRUE(p.spec) << p.error;
    EXPECT_TRUE(p.wrote_spec);
    EXPECT_EQ(slurp(dir_ / "pq.yaml"), p.yaml);
    for (const auto& f : proposal_files(dir_ / "pq.yaml")) EXPECT_FALSE(fs::exists(f)) << f;
}

TEST(RegisterProposalMismatch, NamesAnotherClassAndAnotherSignature) {
    const ra::RaSpec spec = pq_spec("/specs/ra/std_priority_queue.yaml");
    EXPECT_TRUE(proposal_mismatch(spec, spec).empty());
    ra::RaSpec other = spec;
    other.automaton.name = "other_queue";
    other.automaton.inputs.front().name = "push";
    const std::vector<std::string> m = proposal_mismatch(spec, other);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0], "another class: the proposal is 'other_queue', the spec 'std_priority_queue'");
    EXPECT_EQ(m[1].rfind("another signature: the proposal adds input push(", 0), 0u) << m[1];
    EXPECT_NE(m[1].find("; lacks input offer("), std::string::npos) << m[1];
}

}  // namespace
}  // namespace typestar
