// The `typestar` binary on proposals and bounds (issue 24 items 5 and 6): accept refuses a proposal
// of another class or alphabet unless --force, accept and learn say when and how B changes, --budget
// is a hard cap, and --bound auto stops at the smallest B after which B+1 finds nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {
namespace {

namespace fs = std::filesystem;

using testing_support::kAsyncTask;
using testing_support::kMediaPlayer;
using testing_support::kSource;

using testing_support::read;
using testing_support::Result;

class ProposalCli : public testing_support::CliTest {
protected:
    ProposalCli() : CliTest("typestar_proposal_cli_test_") {}
    Result run(const std::vector<std::string>& args) const { return run_cli(args, ""); }
};

TEST_F(ProposalCli, AcceptRefusesAProposalOfAnotherClassUnlessForced) {
    fs::copy_file(kAsyncTask, dir_ / "asynctask.yaml");
    fs::copy_file(kMediaPlayer, dir_ / "asynctask.proposed.yaml");
    const std::string before = read(dir_ / "asynctask.yaml");
    const Result refused = run({"accept", "asynctask.yaml", "--auto"});
    EXPECT_EQ(refused.status, 2) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("asynctask.proposed.yaml is not a proposal for asynctask.yaml:\n"
                               "  another class: the proposal is 'MediaPlayer', the spec 'AsyncTask'\n"
                               "  other callins: the proposal adds "),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("accept it with --force"), std::string::npos) << refused.err;
    EXPECT_EQ(read(dir_ / "asynctask.yaml"), before);  // nothing written
    EXPECT_TRUE(fs::exists(dir_ / "asynctask.proposed.yaml"));

    const Result forced = run({"accept", "asynctask.yaml", "--auto", "--force"});
    ASSERT_EQ(forced.status, 0) << forced.err;
    EXPECT_NE(forced.err.find("warning: --force"), std::string::npos) << forced.err;
    EXPECT_EQ(load_spec(dir_ / "asynctask.yaml").typestate.name, "MediaPlayer");
}

TEST_F(ProposalCli, AcceptRefusesAProposalOverOtherCallinsOfTheSameClass) {
    fs::copy_file(kAsyncTask, dir_ / "task.yaml");
    Spec other = load_spec(kAsyncTask);
    other.typestate.callins.push_back("get");
    for (auto& st : other.typestate.states) st.callins.push_back(std::nullopt);
    save_spec(other, dir_ / "task.proposed.yaml");
    const Result refused = run({"accept", "task.yaml", "--auto"});
    EXPECT_EQ(refused.status, 2);
    EXPECT_NE(refused.err.find("  other callins: the proposal adds get\n"), std::string::npos) << refused.err;
    EXPECT_EQ(refused.err.find("another class"), std::string::npos) << refused.err;
}

TEST_F(ProposalCli, AcceptSaysWhenTheBoundChangesWithTheSuiteSizes) {
    fs::copy_file(kAsyncTask, dir_ / "task.yaml");
    Spec proposal = load_spec(kAsyncTask);
    ASSERT_EQ(proposal.bounds.distinguisher, 2u);
    proposal.bounds.distinguisher = 3;
    save_spec(proposal, dir_ / "task.proposed.yaml");
    const Result r = run({"accept", "task.yaml"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string needle = "; the distinguisher bound changes from B=2 to B=3: the conformance suite grows from ";
    const auto at = r.out.find(needle);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" words; removed task.proposed.yaml", at), std::string::npos) << r.out;
    EXPECT_EQ(load_spec(dir_ / "task.yaml").bounds.distinguisher, 3u);

    // The same bound: not a word about it.
    save_spec(proposal, dir_ / "task.proposed.yaml");
    const Result same = run({"accept", "task.yaml"});
    ASSERT_EQ(same.status, 0) << same.err;
    EXPECT_EQ(same.out.find("distinguisher bound"), std::string::npos) << same.out;
}

TEST_F(ProposalCli, BudgetIsAHardCapOnExecutedQueries) {
    const Result r = run({"learn", "--device", "model:" + kMediaPlayer, "--budget", "100", "--out", "mp.yaml"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("typestar: error: the query budget of 100 executed queries ran out before a result"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "mp.yaml"));
    // With auto as well (the case: 2,047 queries executed for --budget 100).
    const Result a = run({"learn", "--device", "model:" + kMediaPlayer, "--bound", "auto", "--budget", "100"});
    EXPECT_EQ(a.status, 2) << a.err;
    EXPECT_NE(a.err.find("the query budget of 100 executed queries ran out"), std::string::npos) << a.err;
    EXPECT_EQ(a.out, "");
    // Enough budget: a result, and the statistics stay within it.
    const Result ok = run({"learn", "--device", "model:" + kAsyncTask, "--budget", "100000", "--stats", "s.json"});
    ASSERT_EQ(ok.status, 0) << ok.err;
}

TEST_F(ProposalCli, BoundAutoStopsAtTheSmallestBoundAfterWhichTheNextFindsNothing) {
    const Result r = run({"learn", "--device", "model:" + kAsyncTask, "--bound", "auto", "--out", "task.yaml"});
    ASSERT_EQ(r.status, 0) << r.err;
    // AsyncTask is learned exactly at B=2, and Algorithm 2 at B=3 finds nothing: B=2 is stored.
    const Spec learned = load_spec(dir_ / "task.yaml");
    EXPECT_TRUE(same_behaviour(learned, load_spec(kAsyncTask)));
    EXPECT_EQ(learned.bounds.distinguisher, 2u) << r.err;
    EXPECT_NE(r.err.find("typestar: --bound auto: B=2: 6 states; Algorithm 2 at B=3 ran "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("words against it and found no counterexample: stopped at B=2"), std::string::npos) << r.err;
}

TEST_F(ProposalCli, LearnNamesEveryAssumptionOfTheLearnedSpec) {
    const Result r = run({"learn", "--device", "inproc:asynctask", "--out", "task.yaml"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("The learned spec relies on:\n"
                         "typestar:   - the device's states are told apart by words of length <= 2 "
                         "(distinguisher bound B=2)\n"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("typestar:   - err is absorbing"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("typestar:   - every callback arrives within tmax="), std::string::npos) << r.err;
}

TEST_F(ProposalCli, CheckNamesEveryAssumptionThroughTheSession) {
    const Result r = run({"check", kAsyncTask, "--device", "inproc:asynctask"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("It relies on:\n  - the device's states are told apart by words of length <= 2"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  - every callback arrives within tmax="), std::string::npos) << r.out;
}

TEST_F(ProposalCli, DiffListsEveryNewStateAndItsTransitions) {
    const std::string fixtures = kSource + "/tests/spec/fixtures/diff/";
    const Result r = run({"diff", fixtures + "ticker.yaml", fixtures + "ticker_split.yaml"});
    EXPECT_EQ(r.status, 1) << r.err;
    for (const std::string name : {"Second", "Third", "Fourth", "Last"})
        EXPECT_NE(r.out.find("- new state `" + name + "` (reached by"), std::string::npos) << name << "\n" << r.out;
    EXPECT_NE(r.out.find("- new state `Fourth` (reached by `start wait wait wait`): a split of old state `Running`, "
                         "which the same words reach; its transitions:\n"
                         "  - `start`: `err`\n"
                         "  - `stop`: `-> Idle`\n"
                         "  - `wait`: `onTick -> Last`\n"),
              std::string::npos)
        << r.out;
}

}  // namespace
}  // namespace typestar::spec
