// One kind interface (typestar/session/kind.hpp): a third kind is one implementation of SpecKind,
// registered with register_spec_kind, and the generic code — the document functions, the proposal
// workflow's entry (propose_document) and its shared phases (key, lock, reuse, file naming, atomic
// write) — runs it without a branch; `typestar accept`'s naming is each kind's (SpecKind::accept).
#include "typestar/session/kind.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "proposal_flow.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

namespace fs = std::filesystem;

const DocumentKind kStubKind = static_cast<DocumentKind>(7);

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// A run of the stub's plan: every test passes (the stub has no device behaviour to compare).
class StubRun final : public SpecTestRun {
public:
    explicit StubRun(std::vector<TransitionTest> plan) { plan_ = std::move(plan); }
    TestResult run(std::size_t index) override {
        TestResult r;
        r.test = plan_.at(index);
        r.transition = r.test.state + " " + r.test.input;
        r.status = TestStatus::Passed;
        r.message = "stub passed\n";
        return r;
    }
    TestRunTiming timing() const override { return {}; }
    QueryStats stats() const override { return {}; }
    std::string device_name() const override { return "stub device"; }
};

/// The whole third kind: its documents are "stub" files of one line per transition ("STATE INPUT");
/// its proposal goes through the kind-neutral phases of the workflow (ProposalSharing,
/// write_proposal_text), so it has the key, the lock, reuse, `<spec>.proposed.yaml` and the atomic
/// write of the built-in kinds.
class StubKind final : public SpecKind {
public:
    DocumentKind id() const noexcept override { return kStubKind; }
    std::string_view noun() const noexcept override { return "stub"; }
    std::string summary(const Document& d) const override { return "stub: " + d.name; }
    std::string export_text(const Document& d, ExportFormat) const override { return d.name + "\n"; }
    std::size_t default_bound(const Document&, SuiteMethod) const override { return 1; }
    DocumentDiff diff(const Document& a, const Document& b, std::size_t, bool) const override {
        DocumentDiff out;
        out.same = a.name == b.name;
        return out;
    }
    std::vector<std::string> proposal_mismatch(const Document&, const Document&) const override { return {}; }
    ProposalLoss proposal_loss(const Document&, const Document&) const override { return {{}, false, "cells"}; }
    std::string bound_change(const Document&, const Document&) const override { return {}; }
    std::vector<TransitionTest> test_plan(const Document& d) const override {
        TransitionTest t;
        t.name = d.name + "_go";
        t.state = d.name;
        t.input = "go";
        t.line = 1;
        return {t};
    }
    DocumentCheck check(const Document&, Subject&, SuiteMethod, std::optional<std::size_t>) const override {
        return {};
    }
    std::unique_ptr<SpecTestRun> test_run(const Document& d, Subject&, const TestRunOptions&) const override {
        return std::make_unique<StubRun>(test_plan(d));
    }
    LearnedDocument learn(Subject&, const LearnRequest&) const override { return {}; }
    std::size_t size(const Document&) const override { return 1; }
    DeviceKind device_kind() const noexcept override { return DeviceKind::Typestate; }  // the one device branch

    DocumentProposal propose(const DocumentProposalRequest& q) const override {
        ++learned;
        detail::ShareRequest share;
        share.spec = q.spec;
        share.stored_bytes = q.stored_bytes;
        share.device_key = "stub device";
        share.bound = q.bound;
        share.learner = "stub";
        share.mode = q.mode;
        share.requester = q.requester;
        share.has_failure = q.stored != nullptr && q.failure != nullptr;
        const detail::ProposalSharing sharing(share);
        DocumentProposal p;
        p.unit = "cells";
        if (const auto record = sharing.reusable()) {
            p.shared_by = detail::ProposalSharing::shared_by(*record);
            p.yaml = record->yaml;
        } else {
            p.yaml = "stub proposal of " + (q.stored ? q.stored->name : std::string("nothing")) + "\n";
            const WrittenProposal w = detail::write_proposal_text(q.spec, p.yaml, q.mode == ProposalMode::Update);
            p.wrote_spec = w.wrote_spec;
            p.report = "Proposed spec: " + w.file.string() + "\n";
            sharing.share(p.yaml);
        }
        p.document.emplace();
        p.document->registered_kind = kStubKind;
        p.document->name = "proposed";
        p.size = 1;
        return p;
    }
    bool explains(const Document&, const TestResult&, SpecTestRun&) const override { return true; }
    std::string answer_word(const TestResult&, SpecTestRun&) const override { return {}; }
    std::string changes(const DocumentProposal&, const TransitionTest&) const override { return {}; }
    AcceptedProposal accept(const Document*, const Document& proposal, const AcceptNames&) const override {
        return {proposal.name + "\n", "1 cell"};
    }

    mutable int learned = 0;
};

class ThirdKind : public testing::Test {
protected:
    void SetUp() override {
        std::string templ = (fs::temp_directory_path() / "typestar-kind-XXXXXX").string();
        ASSERT_NE(mkdtemp(templ.data()), nullptr);
        dir_ = templ;
        stub_.learned = 0;
        register_spec_kind(stub_);  // the kind outlives every use: a static
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    Document stub_document() const {
        Document d;
        d.path = (dir_ / "door.stub").string();
        d.name = "Door";
        d.registered_kind = kStubKind;
        return d;
    }
    fs::path dir_;
    StubKind& stub_ = stub();

private:
    static StubKind& stub() {
        static StubKind kind;
        return kind;
    }
};

TEST_F(ThirdKind, ItsDocumentsAndDevicesGoThroughTheGenericFunctions) {
    const Document d = stub_document();
    EXPECT_EQ(&kind_of(d), &stub_);
    EXPECT_EQ(document_summary(d), "stub: Door");
    EXPECT_EQ(document_bound(d, SuiteMethod::Algorithm2), 1u);
    EXPECT_EQ(export_document(d, ExportFormat::Yaml), "Door\n");
    Subject subject;
    subject.registered_kind = kStubKind;
    EXPECT_EQ(&kind_of(subject), &stub_);
    // The plan and its run, as the gtest plugin and `check --format json` ask for them.
    const auto run = kind_of(d).test_run(d, subject, {});
    ASSERT_EQ(run->plan().size(), 1u);
    EXPECT_EQ(run->plan()[0].name, "Door_go");
    EXPECT_EQ(run->run(0).status, TestStatus::Passed);
    // The built-in kinds are unchanged by the registration.
    EXPECT_EQ(spec_kind(DocumentKind::Typestate).noun(), "typestate");
    EXPECT_EQ(spec_kind(DocumentKind::RegisterAutomaton).noun(), "register automaton");
}

TEST_F(ThirdKind, ItsProposalIsNamedWrittenAndSharedByTheOneWorkflow) {
    const Document d = stub_document();
    const fs::path spec = dir_ / "door.yaml";
    spec::write_file_atomically(spec, "stored\n");
    Subject subject;
    subject.registered_kind = kStubKind;
    const auto run = kind_of(d).test_run(d, subject, {});
    TestResult failure = run->run(0);
    failure.status = TestStatus::Failed;

    DocumentProposalRequest request;
    request.spec = spec;
    request.stored = &d;
    request.stored_bytes = "stored\n";
    request.subject = &subject;
    request.run = run.get();
    request.failure = &failure;
    request.requester = "Door.Door_go";
    const DocumentProposal first = propose_document(request);
    ASSERT_TRUE(first.document.has_value()) << first.error;
    EXPECT_EQ(first.document->kind(), kStubKind);
    EXPECT_FALSE(first.shared());
    EXPECT_EQ(slurp(dir_ / "door.proposed.yaml"), "stub proposal of Door\n");  // the one file naming rule
    EXPECT_EQ(slurp(spec), "stored\n");
    // A second test of the same run reuses it (the one key and lock), learning nothing.
    request.requester = "Door.Door_other";
    const DocumentProposal second = propose_document(request);
    EXPECT_TRUE(second.shared());
    EXPECT_NE(second.shared_by.find("Door.Door_go"), std::string::npos) << second.shared_by;
    EXPECT_EQ(second.yaml, first.yaml);
    // Without a stored spec the subject's kind proposes.
    DocumentProposalRequest missing;
    missing.spec = dir_ / "window.yaml";
    missing.subject = &subject;
    ASSERT_TRUE(propose_document(missing).document.has_value());
    EXPECT_EQ(slurp(dir_ / "window.proposed.yaml"), "stub proposal of nothing\n");
    EXPECT_EQ(stub_.learned, 3);  // the kind was asked each time; it reused the record once
    for (const auto& f : remove_proposal_files(spec)) EXPECT_EQ(f, "door.proposed.yaml");
}

/// A register-automaton proposal takes the stored spec's location names where the product of both
/// automata pairs the locations (the words both answer alike reach them), its own elsewhere, and
/// --name for a new location only; as a typestate's accept keeps the stored state names.
TEST(KindAccept, ARegisterAutomatonKeepsTheStoredLocationNamesWherePaired) {
    const std::string path = std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/std_priority_queue.yaml";
    const std::string text = slurp(path);
    const fs::path dir = fs::temp_directory_path() / ("typestar_kind_accept_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // The stored spec: the same automaton, its initial location named by the team.
    std::string named = text;
    for (const std::string& from : {std::string("to: l0}"), std::string("initial: l0\n"), std::string("  l0:\n")}) {
        std::string to = from;
        to.replace(to.find("l0"), 2, "Empty");
        for (std::size_t at; (at = named.find(from)) != std::string::npos;) named.replace(at, from.size(), to);
    }
    std::ofstream(dir / "stored.yaml") << named;
    // The proposal: the generated names, and a copy of the initial location (`again`) that a poll of
    // the empty queue now reaches: the stored spec has no location of its own for it.
    std::string grown = text;
    const std::string poll = "{input: poll, output: nok, to: l0}";
    ASSERT_NE(grown.find(poll), std::string::npos);
    grown.replace(grown.find(poll), poll.size(), "{input: poll, output: nok, to: again}");
    const std::string l1 = "  l1:\n";
    grown.insert(grown.find(l1), "  again:\n    registers: []\n    transitions:\n"
                                 "      - {input: \"offer(p)\", output: ok, assign: {r1: p}, to: l1}\n"
                                 "      - {input: poll, output: nok, to: again}\n");
    std::ofstream(dir / "stored.proposed.yaml") << grown;
    const Document stored = load_document(dir / "stored.yaml");
    const Document proposal = load_document(dir / "stored.proposed.yaml");
    ASSERT_TRUE(proposal.automaton.has_value() && stored.automaton.has_value());
    const SpecKind& kind = kind_of(proposal);
    const AcceptedProposal accepted = kind.accept(&stored, proposal, {dir / "stored.yaml", {}, false});
    const ra::RaSpec written = ra::parse_register_spec(accepted.yaml, "accepted.yaml");
    EXPECT_EQ(written.automaton.locations.at(written.automaton.initial).name, "Empty");
    EXPECT_NE(accepted.yaml.find("  again:\n"), std::string::npos) << accepted.yaml;  // new: its own name
    EXPECT_NE(accepted.what.find("9 locations (8 with their stored names, 1 new)"), std::string::npos) << accepted.what;
    // --name names a new location; a stored one keeps its name.
    const AcceptedProposal renamed = kind.accept(&stored, proposal, {dir / "stored.yaml", {"again=Drained"}, false});
    EXPECT_NE(renamed.yaml.find("  Drained:\n"), std::string::npos) << renamed.yaml;
    EXPECT_NE(renamed.what.find("1 renamed"), std::string::npos) << renamed.what;
    for (const std::string& refused : {std::string("l0=Start"), std::string("nowhere=X")}) {
        try {
            (void)kind.accept(&stored, proposal, {dir / "stored.yaml", {refused}, false});
            ADD_FAILURE() << "--name " << refused << " was taken";
        } catch (const std::invalid_argument& e) {
            const std::string why = refused == "l0=Start" ? "is the stored location 'Empty' (same behaviour)"
                                                          : "has no location 'nowhere'";
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
    }
    // Without a stored spec: the proposal's names.
    const AcceptedProposal first = kind.accept(nullptr, proposal, {dir / "stored.yaml", {}, false});
    EXPECT_EQ(first.yaml, ra::write_register_spec(*proposal.automaton));
    EXPECT_NE(first.what.find("the proposal's names"), std::string::npos) << first.what;
    fs::remove_all(dir);
}

TEST(KindAccept, ATypestateKeepsTheStoredStateNames) {
    const std::string path = std::string(TYPESTAR_SOURCE_DIR) + "/specs/mediaplayer.yaml";
    const Document stored = load_document(path);
    Document proposal = stored;
    for (auto& s : proposal.spec->typestate.states) s.name = "g_" + s.name;  // generated names, same behaviour
    // (PlaybackCompleted behaves as Started in the closure: the pairing gives it no stored name.)
    const AcceptedProposal accepted = kind_of(stored).accept(&stored, proposal, {path, {}, true});
    const spec::Spec written = spec::parse_spec(accepted.yaml, "accepted.yaml");
    EXPECT_TRUE(written.typestate.find_state("Started").has_value()) << accepted.yaml;
    EXPECT_FALSE(written.typestate.find_state("g_Started").has_value()) << accepted.yaml;
    EXPECT_NE(accepted.what.find("with their stored names, 1 new"), std::string::npos) << accepted.what;
}

}  // namespace
}  // namespace typestar
