// Runs the built `typestar` binary on register automata (issue 18): learn with a model: data device
// (a register-automaton spec, RALib XML) and with an http:// agent serving a data device, check
// (the generalised suite, with a data trace), diff (a shortest separating data trace), export,
// validate, and file:line errors for bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "support/child_process.hpp"
#include "support/data_purposes.hpp"
#include "support/spec_text.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/ra/format.hpp"

namespace typestar {
namespace {

namespace fs = std::filesystem;

using testing_support::kSource;
const std::string kSpec = kSource + "/specs/ra/std_priority_queue.yaml";
const std::string kFixtures = kSource + "/tests/cli/fixtures/ra";

using testing_support::read;
using testing_support::Result;
using testing_support::shell_quote;

class RaCli : public testing_support::CliTest {
protected:
    RaCli() : CliTest("typestar_ra_cli_test_") {}

    /// Runs `typestar <args>` in the test's scratch directory, without a token file from the
    /// caller's environment and with the shell assignments `env`.
    Result run(const std::vector<std::string>& args, const std::string& env = "") const {
        return run_cli(args, "env -u TYPESTAR_DEVICE_TOKEN_FILE " + env + " ");
    }
};

/// An in-process /v1 agent serving the priority-queue data purpose, token "ra-cli-token".
std::unique_ptr<Agent> serve_priority_queue() {
    AgentConfig config;
    config.token = "ra-cli-token";
    auto agent = std::make_unique<Agent>(DataDevices{[] {
                                             return std::make_unique<InProcessDataDevice>(
                                                 testing_support::priority_queue_purpose());
                                         }},
                                         config);
    agent->start();
    return agent;
}

using testing_support::without_provenance;

TEST_F(RaCli, LearnsARegisterAutomatonFromAModelDevice) {
    const Result r = run({"learn", "--device", "model:" + kSpec, "--out", "learned.yaml", "--stats", "stats.json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(without_provenance(read(dir_ / "learned.yaml")), read(kSpec));
    EXPECT_NE(read(dir_ / "learned.yaml").find("  device: \"model:" + kSpec + "\""), std::string::npos);
    EXPECT_NE(r.err.find("learned a register automaton with 8 locations, 3 registers at most, 24 transitions"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("bounded evidence, not a proof"), std::string::npos);
    // Issue 23 item 6: every assumption the learned spec relies on, said by the session, as a check names them.
    EXPECT_NE(r.err.find("typestar: the learned spec relies on:\ntypestar:   - the device's (location, register order "
                         "type) states are told apart by data words of length <= 2 after each transition "
                         "(distinguisher bound B=2)\ntypestar:   - one data value per class stands for the class"),
              std::string::npos)
        << r.err;
    const std::string stats = read(dir_ / "stats.json");
    // the one --stats schema of `learn` (the typestate keys), plus the register automaton's own
    EXPECT_NE(stats.find("\"states\": 8"), std::string::npos) << stats;
    EXPECT_NE(stats.find("\"equivalence_rounds\""), std::string::npos) << stats;
    EXPECT_NE(stats.find("\"learning_queries_executed\""), std::string::npos) << stats;
    EXPECT_NE(stats.find("\"tree_queries\""), std::string::npos) << stats;
    // Deterministic: the same bytes again.
    const Result again = run({"learn", "--device", "model:" + kSpec});
    ASSERT_EQ(again.status, 0);
    EXPECT_EQ(again.out, read(dir_ / "learned.yaml"));
}

TEST_F(RaCli, LearnsRalibXmlAndWritesDot) {
    const Result r = run({"learn", "--device", "model:" + kFixtures + "/store.xml", "--out", "store.dot"});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string dot = read(dir_ / "store.dot");
    EXPECT_NE(dot.find("digraph \"store\""), std::string::npos) << dot;
    EXPECT_NE(dot.find("OVal(r1)"), std::string::npos) << dot;
}

TEST_F(RaCli, LearnRefusesOptionsThatDoNotApply) {
    const Result r = run({"learn", "--device", "model:" + kSpec, "--learner", "lstar"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("SL*-style learner"), std::string::npos) << r.err;
}

TEST_F(RaCli, LearnIncrementsOptsTheDataDeviceIntoThePlusCTheory) {
    // Issue 28: `--increments 1` adds SL*'s +1 to a data device's signature. The sequence-number
    // model without `increments:` in its file: only x + 1 tells "the next number" from "larger".
    std::string text = read(kSource + "/specs/ra/sequence_number.yaml");
    text.erase(text.find("increments: [1]\n"), std::string("increments: [1]\n").size());
    std::ofstream(dir_ / "seq.yaml") << text;
    const std::string device = "model:" + (dir_ / "seq.yaml").string();
    const Result plain = run({"learn", "--device", device});
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(plain.out.find("r + 1"), std::string::npos) << plain.out;  // the order theory alone cannot see it
    const Result r = run({"learn", "--device", device, "--increments", "1", "--out", "learned.yaml"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("learned a register automaton with 3 locations, 1 registers at most, 4 transitions"),
              std::string::npos)
        << r.err;
    const std::string learned = read(dir_ / "learned.yaml");
    EXPECT_NE(learned.find("increments: [1]"), std::string::npos) << learned;
    EXPECT_NE(learned.find("p == r1 + 1"), std::string::npos) << learned;
    const Result check = run({"check", (dir_ / "learned.yaml").string(), "--device", device});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
    // bad values and typestate devices are refused, naming the option
    const Result zero = run({"learn", "--device", device, "--increments", "0"});
    EXPECT_EQ(zero.status, 2);
    EXPECT_NE(zero.err.find("--increments: 0 is not from 1 to 1000"), std::string::npos) << zero.err;
    const Result typestate =
        run({"learn", "--device", "model:" + kSource + "/specs/countdowntimer.yaml", "--increments", "1"});
    EXPECT_EQ(typestate.status, 2);
    EXPECT_NE(typestate.err.find("--increments applies to data devices"), std::string::npos) << typestate.err;
}

TEST_F(RaCli, ChecksWithTheGeneralisedSuiteAndPrintsTheDataTrace) {
    const Result pass = run({"check", kSpec, "--device", "model:" + kSpec});
    EXPECT_EQ(pass.status, 0) << pass.err;
    EXPECT_NE(pass.out.find("conforms: model:" + kSpec + " passed the generalised Algorithm 2 suite of "
                            "std_priority_queue (distinguisher bound B=2)"),
              std::string::npos)
        << pass.out;
    const Result fail = run({"check", kSpec, "--device", "model:" + kFixtures + "/pq_poll_mutant.yaml"});
    EXPECT_EQ(fail.status, 1) << fail.err;
    EXPECT_NE(fail.out.find("does not conform to std_priority_queue (data trace, 3 steps):"), std::string::npos)
        << fail.out;
    EXPECT_TRUE(std::regex_search(fail.out, std::regex(R"(\n +3 +\S+ +poll +out\(-?\d+\) +out\(-?\d+\) +<- differs)")))
        << fail.out;
    // A typestate device for a register automaton, a bad --method: bad input.
    EXPECT_EQ(run({"check", kSpec, "--device", "model:" + kSource + "/specs/asynctask.yaml"}).status, 2);
    EXPECT_EQ(run({"check", kSpec, "--device", "model:" + kSpec, "--method", "wp"}).status, 2);
    // Another signature.
    const Result other = run({"check", kSpec, "--device", "model:" + kFixtures + "/store.xml"});
    EXPECT_EQ(other.status, 2);
    EXPECT_NE(other.err.find("does not fit the signature of std_priority_queue"), std::string::npos) << other.err;
}

// Issue 23: `learn --bound B` on a data device records B in the spec and is at least as strong as
// `check --bound B`. A lock opening on the 6th press of one code was learned as one location at
// --bound 5 (the oracle ran 5 steps from each location, one step fewer than check's transition +
// 5 steps, and wrote distinguisher: 2 whatever B), and check --bound 5 then failed at once.
TEST_F(RaCli, LearnAtBoundBRecordsBAndIsAsStrongAsCheckAtB) {
    const std::string lock = kFixtures + "/repeat_lock.yaml";
    const Result learned = run({"learn", "--device", "model:" + lock, "--bound", "5", "--out", "lock.yaml"});
    ASSERT_EQ(learned.status, 0) << learned.err;
    const std::string yaml = read(dir_ / "lock.yaml");
    EXPECT_NE(yaml.find("bounds: {distinguisher: 5}"), std::string::npos) << yaml;
    EXPECT_NE(learned.err.find("learned a register automaton with 7 locations"), std::string::npos) << learned.err;
    EXPECT_NE(learned.err.find("suite at B=5"), std::string::npos) << learned.err;
    const Result check = run({"check", "lock.yaml", "--device", "model:" + lock, "--bound", "5"});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
}

TEST_F(RaCli, AcceptTakesARegisterAutomatonProposalThroughTheSameChecks) {
    fs::copy_file(kSpec, dir_ / "pq.yaml");
    // No proposal: the same refusal as for a typestate spec.
    const Result none = run({"accept", "pq.yaml"});
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("no proposal to accept: pq.proposed.yaml does not exist"), std::string::npos) << none.err;
    // A proposal of another signature is refused unless forced; nothing is written.
    std::string other = read(kFixtures + "/pq_poll_mutant.yaml");
    const auto poll = other.find(", poll]");
    ASSERT_NE(poll, std::string::npos);
    fs::copy_file(kFixtures + "/pq_poll_mutant.yaml", dir_ / "pq.proposed.yaml");
    other.replace(poll, 7, ", take]");
    for (std::size_t at; (at = other.find("input: poll")) != std::string::npos;) other.replace(at, 11, "input: take");
    {
        std::ofstream(dir_ / "other.yaml") << read(kSpec);
        std::ofstream(dir_ / "other.proposed.yaml") << other;
    }
    const Result refused = run({"accept", "other.yaml"});
    EXPECT_EQ(refused.status, 2) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("other.proposed.yaml is not a proposal for other.yaml:\n  another signature: the "
                               "proposal adds input take(); lacks input poll()"),
              std::string::npos)
        << refused.err;
    EXPECT_EQ(read(dir_ / "other.yaml"), read(kSpec));
    // A proposal of the other kind is refused, naming both kinds.
    fs::copy_file(kSource + "/specs/asynctask.yaml", dir_ / "mixed.proposed.yaml");
    fs::copy_file(kSpec, dir_ / "mixed.yaml");
    const Result mixed = run({"accept", "mixed.yaml", "--auto", "--force"});
    EXPECT_EQ(mixed.status, 2);
    EXPECT_NE(mixed.err.find("mixed.proposed.yaml is a typestate, but mixed.yaml is a register automaton: nothing "
                             "was written"),
              std::string::npos)
        << mixed.err;
    EXPECT_EQ(read(dir_ / "mixed.yaml"), read(kSpec));
    // The poll mutant's proposal: the stored names where paired (--name only for a new location), written
    // atomically, the proposal files gone.
    std::ofstream(dir_ / "pq.proposed.dot") << "digraph {}\n";
    const Result bad_name = run({"accept", "pq.yaml", "--name", "nowhere=Empty"});
    EXPECT_EQ(bad_name.status, 2);
    EXPECT_NE(bad_name.err.find("has no location 'nowhere'"), std::string::npos) << bad_name.err;
    const Result stored_name = run({"accept", "pq.yaml", "--name", "l0=Empty"});  // paired: the stored name stays
    EXPECT_EQ(stored_name.status, 2);
    EXPECT_NE(stored_name.err.find("'l0' is the stored location 'l0' (same behaviour); stored names are kept"),
              std::string::npos)
        << stored_name.err;
    const Result accepted = run({"accept", "pq.yaml"});
    ASSERT_EQ(accepted.status, 0) << accepted.out << accepted.err;
    EXPECT_NE(accepted.out.find("accepted pq.proposed.yaml as pq.yaml: 8 locations (8 with their stored names, 0 new)"),
              std::string::npos)
        << accepted.out;
    EXPECT_NE(accepted.out.find("removed pq.proposed.yaml pq.proposed.dot"), std::string::npos) << accepted.out;
    EXPECT_FALSE(fs::exists(dir_ / "pq.proposed.yaml"));
    EXPECT_FALSE(fs::exists(dir_ / "pq.proposed.dot"));
    const ra::RaSpec written = ra::load_register_spec(dir_ / "pq.yaml");
    EXPECT_EQ(written, ra::load_register_spec(kFixtures + "/pq_poll_mutant.yaml"));  // paired names: the same
    EXPECT_EQ(run({"diff", "pq.yaml", kFixtures + "/pq_poll_mutant.yaml"}).status, 0);  // the proposal's behaviour
}

TEST_F(RaCli, DiffPrintsAShortestSeparatingDataTrace) {
    const Result same = run({"diff", kSpec, kSpec});
    EXPECT_EQ(same.status, 0);
    EXPECT_NE(same.out.find("same behaviour on every data word of up to 4 steps"), std::string::npos) << same.out;
    const Result diff = run({"diff", kSpec, kFixtures + "/pq_poll_mutant.yaml"});
    EXPECT_EQ(diff.status, 1);
    EXPECT_NE(diff.out.find("different: a shortest separating data trace (3 steps):"), std::string::npos) << diff.out;
    EXPECT_NE(diff.out.find("1. offer("), std::string::npos) << diff.out;
    const Result sig = run({"diff", kSpec, kFixtures + "/store.xml"});
    EXPECT_EQ(sig.status, 1);
    EXPECT_NE(sig.out.find("different signatures:"), std::string::npos) << sig.out;
    EXPECT_EQ(run({"diff", kSpec, kSource + "/specs/asynctask.yaml"}).status, 2);
}

TEST_F(RaCli, ExportsAndValidatesWithFileLineErrors) {
    const Result yaml = run({"export", kSpec, "--format", "yaml"});
    EXPECT_EQ(yaml.status, 0);
    EXPECT_EQ(yaml.out, read(kSpec));
    const Result dot = run({"export", kSpec, "--format", "dot"});
    EXPECT_EQ(dot.status, 0);
    EXPECT_EQ(dot.out, ra::write_register_dot(ra::load_register_spec(kSpec).automaton));
#if TYPESTAR_HAVE_RENDER
    const Result svg = run({"export", kSpec, "--format", "svg", "-o", "pq.svg"});
    EXPECT_EQ(svg.status, 0) << svg.err;
    EXPECT_NE(read(dir_ / "pq.svg").find("<svg"), std::string::npos);
#endif
    EXPECT_EQ(run({"export", kSpec, "--format", "json"}).status, 2);
    const Result suite = run({"suite", kSpec});
    EXPECT_EQ(suite.status, 2);
    EXPECT_NE(suite.err.find("is a register automaton: its generalised Algorithm 2 suite is built on the device"),
              std::string::npos)
        << suite.err;
    const Result ok = run({"validate", kSpec, kFixtures + "/store.xml"});
    EXPECT_EQ(ok.status, 0);
    EXPECT_NE(ok.out.find("register automaton: 8 locations"), std::string::npos) << ok.out;
    const Result bad = run({"validate", kFixtures + "/unknown_name.yaml"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_EQ(bad.err, kFixtures + "/unknown_name.yaml:13:37: guard: unknown name 'q' (not a parameter, register or "
                                   "constant)\n");
    const Result learn_bad = run({"learn", "--device", "model:" + kFixtures + "/unknown_name.yaml"});
    EXPECT_EQ(learn_bad.status, 2);
    EXPECT_NE(learn_bad.err.find("unknown_name.yaml:13:37:"), std::string::npos) << learn_bad.err;
}

TEST_F(RaCli, LearnsAndChecksADataDeviceServedOverHttp) {
    const auto served = serve_priority_queue();
    const Agent& agent = *served;
    const std::string env = "TYPESTAR_DEVICE_TOKEN=ra-cli-token";
    const Result learned = run({"learn", "--device", agent.url()}, env);
    ASSERT_EQ(learned.status, 0) << learned.err;
    EXPECT_EQ(without_provenance(learned.out), read(kSpec));
    const Result checked = run({"check", kSpec, "--device", agent.url()}, env);
    EXPECT_EQ(checked.status, 0) << checked.err << checked.out;
    EXPECT_NE(checked.out.find("conforms: " + agent.url()), std::string::npos) << checked.out;
}

// Issue 23: one opening of a device URL. `learn` asked the agent's /v1/status to decide whether it
// serves a data device (the CLI's is_data_device_url), then the factory asked again; the session's
// open_subject asks once (open_device with DeviceKind::Any) and the result says the kind.
TEST_F(RaCli, OneStatusRequestDecidesTheKindOfAnAgent) {
    const auto served = serve_priority_queue();
    const Agent& agent = *served;
    // A budget of 10 queries keeps the trace short: learning stops (exit 1) after the opening.
    const Result learned = run({"learn", "--device", agent.url(), "--budget", "10"},
                               "TYPESTAR_DEVICE_TOKEN=ra-cli-token SPDLOG_LEVEL=typestar.device=trace");
    ASSERT_EQ(learned.status, 1) << learned.err.substr(0, 2000);
    EXPECT_NE(learned.err.find("did not converge"), std::string::npos) << learned.err.substr(0, 2000);
    const std::string status_request = "GET " + agent.url() + "/v1/status";
    std::size_t requests = 0;
    for (auto at = learned.err.find(status_request); at != std::string::npos;
         at = learned.err.find(status_request, at + 1))
        ++requests;
    EXPECT_EQ(requests, 1u) << learned.err.substr(0, 2000);
}

#ifdef TYPESTAR_DEVICE_BIN
TEST_F(RaCli, TheReferenceAgentServesARegisterAutomatonModel) {
    testing_support::ChildProcess agent({TYPESTAR_DEVICE_BIN, "--data-model", kFixtures + "/pq_poll_mutant.yaml",
                                         "--port", "0"},
                                        {"TYPESTAR_DEVICE_TOKEN=ra-agent-token"});
    ASSERT_FALSE(agent.url().empty()) << agent.first_line();
    const Result checked = run({"check", kSpec, "--device", agent.url()}, "TYPESTAR_DEVICE_TOKEN=ra-agent-token");
    EXPECT_EQ(checked.status, 1) << checked.err << checked.out;
    EXPECT_NE(checked.out.find("does not conform to std_priority_queue (data trace, 3 steps):"), std::string::npos)
        << checked.out;

    testing_support::ChildProcess bad({TYPESTAR_DEVICE_BIN, "--data-model", kFixtures + "/unknown_name.yaml"},
                                      {"TYPESTAR_DEVICE_TOKEN=ra-agent-token"});
    EXPECT_EQ(bad.wait_exit(), 2);
    EXPECT_NE(bad.error_output().find("unknown_name.yaml:13:37: guard: unknown name 'q'"), std::string::npos);
}
#endif

}  // namespace
}  // namespace typestar
