// The one front door (issue 23, typestar/session/document.hpp): any document loads and says its
// kind; learn, check, diff and export dispatch by kind in the session and return the one report
// shape with messages that say what ran; a kind mismatch is bad input naming both sides.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>

#include "typestar/core/error.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/kind.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/register_automata.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/session/test_run.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

namespace fs = std::filesystem;

const std::string kSource = TYPESTAR_SOURCE_DIR;
const std::string kTypestate = kSource + "/specs/asynctask.yaml";
const std::string kQueue = kSource + "/specs/ra/std_priority_queue.yaml";
const std::string kRaFixtures = kSource + "/tests/cli/fixtures/ra";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A Mealy DOT file (the closure of asynctask) in a fresh directory, named `stem`.dot.
std::string mealy_dot_file(const std::string& stem) {
    const fs::path dir = fs::temp_directory_path() / ("typestar_document_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path file = dir / (stem + ".dot");
    spec::write_file_atomically(file, export_document(load_document(kTypestate), ExportFormat::MealyDot));
    return file.string();
}

// `typestar validate` says which partition guards are checked expressions and which only words
// (docs/spec-format-v2.md, "Guards").
TEST(SessionDocument, TheSummarySaysWhichPartitionGuardsAreChecked) {
    const Document params = load_document(std::string(TYPESTAR_SOURCE_DIR) + "/tests/spec/fixtures/good/params_v2.yaml");
    EXPECT_EQ(document_summary(params),
              std::to_string(params.spec->typestate.states.size()) + " states, B=" +
                  std::to_string(params.spec->bounds.distinguisher) +
                  "; guards: checked write[nonempty], write[empty]; in words connect[null], connect[unconnected], "
                  "connect[connected]");
    const Document piped = load_document(std::string(TYPESTAR_SOURCE_DIR) + "/specs/pipedoutputstream.yaml");
    EXPECT_NE(document_summary(piped).find("; guards: in words connect[any.err], connect[any.ok], write[any.err]"),
              std::string::npos) << document_summary(piped);
}

TEST(SessionDocument, LoadsEveryFormatAndSaysItsKind) {
    const Document typestate = load_document(kTypestate);
    EXPECT_EQ(typestate.format, DocumentFormat::TypestateYaml);
    EXPECT_EQ(typestate.kind(), DocumentKind::Typestate);
    ASSERT_TRUE(typestate.spec && typestate.machine);
    EXPECT_EQ(typestate.name, typestate.spec->typestate.name);
    EXPECT_EQ(document_summary(typestate), "5 states, B=2");

    const Document queue = load_document(kQueue);
    EXPECT_EQ(queue.format, DocumentFormat::RegisterAutomatonYaml);
    EXPECT_EQ(queue.kind(), DocumentKind::RegisterAutomaton);
    EXPECT_EQ(queue.name, "std_priority_queue");
    EXPECT_EQ(document_summary(queue), "register automaton: 8 locations, 3 registers at most, 24 transitions");

    const Document xml = load_document(kRaFixtures + "/store.xml");
    EXPECT_EQ(xml.format, DocumentFormat::RalibXml);
    EXPECT_EQ(xml.kind(), DocumentKind::RegisterAutomaton);
    ASSERT_TRUE(xml.automaton);
    EXPECT_EQ(xml.automaton->distinguisher, 2u);

    const Document dot = load_document(mealy_dot_file("my-machine"));
    EXPECT_EQ(dot.format, DocumentFormat::MealyDot);
    EXPECT_EQ(dot.kind(), DocumentKind::Typestate);
    EXPECT_FALSE(dot.spec);
    ASSERT_TRUE(dot.machine);
    EXPECT_EQ(dot.name, spec::sanitize_name("my-machine"));
    EXPECT_EQ(document_summary(dot), "Mealy machine: " + std::to_string(dot.machine->num_states()) + " states");
    // A Mealy machine has no spec to export, a register automaton no closure or JSON.
    EXPECT_THROW((void)export_document(dot, ExportFormat::Yaml), std::invalid_argument);
    EXPECT_THROW((void)export_document(queue, ExportFormat::Json), std::invalid_argument);
    EXPECT_THROW((void)export_document(queue, ExportFormat::MealyDot), std::invalid_argument);
    EXPECT_THROW((void)suite_model(queue), std::invalid_argument);
    EXPECT_EQ(&suite_model(typestate), &*typestate.machine);
}

TEST(SessionDocument, OpensAnyDeviceUrlOnceAndTheResultSaysItsKind) {
    const Subject typestate = open_subject("model:" + kTypestate);
    EXPECT_EQ(typestate.kind(), DocumentKind::Typestate);
    ASSERT_TRUE(typestate.device.typestate);
    ASSERT_TRUE(typestate.model);
    EXPECT_EQ(typestate.name, typestate.model->name);

    const Subject queue = open_subject("model:" + kQueue);
    EXPECT_EQ(queue.kind(), DocumentKind::RegisterAutomaton);
    EXPECT_TRUE(queue.device.data);

    const Subject dot = open_subject("model:" + mealy_dot_file("closure"));  // model: takes Mealy DOT too
    EXPECT_EQ(dot.kind(), DocumentKind::Typestate);
    EXPECT_EQ(dot.name, "closure");

    const Subject inproc = open_subject("inproc:asynctask");
    EXPECT_EQ(inproc.kind(), DocumentKind::Typestate);
    EXPECT_FALSE(inproc.model);
    EXPECT_THROW((void)open_subject("inproc:no_such_class"), std::invalid_argument);
}

TEST(SessionDocument, ChecksEveryKindInTheOneReportShape) {
    Subject model = open_subject("model:" + kTypestate);
    const DocumentCheck pass = check_document(load_document(kTypestate), model);
    EXPECT_EQ(pass.report.verdict, Verdict::Pass);
    EXPECT_EQ(pass.report.bound, 2u);
    EXPECT_FALSE(pass.report.assumptions.empty());
    EXPECT_TRUE(contains(pass.text, "conforms: model:" + kTypestate + " passed all ")) << pass.text;
    EXPECT_TRUE(contains(pass.text, "(distinguisher bound B=2)")) << pass.text;
    EXPECT_TRUE(contains(pass.counts, "queries executed")) << pass.counts;

    Subject mutant = open_subject("model:" + kRaFixtures + "/pq_poll_mutant.yaml");
    const DocumentCheck fail = check_document(load_document(kQueue), mutant, SuiteMethod::Algorithm2, 2);
    EXPECT_EQ(fail.report.verdict, Verdict::Fail);
    EXPECT_EQ(fail.report.trace.size(), 3u);
    EXPECT_TRUE(contains(fail.text, "does not conform to std_priority_queue (data trace, 3 steps)")) << fail.text;
    EXPECT_TRUE(contains(fail.text, "<- differs")) << fail.text;

    Subject queue = open_subject("model:" + kQueue);
    const DocumentCheck ra_pass = check_document(load_document(kQueue), queue, SuiteMethod::Algorithm2, 1);
    EXPECT_EQ(ra_pass.report.verdict, Verdict::Pass);
    EXPECT_EQ(ra_pass.report.bound, 1u);  // the bound as used, said in the message and the first assumption
    EXPECT_TRUE(contains(ra_pass.text, "(distinguisher bound B=1)")) << ra_pass.text;
    ASSERT_FALSE(ra_pass.report.assumptions.empty());
    EXPECT_TRUE(contains(ra_pass.report.assumptions.front(), "B=1"));
}

TEST(SessionDocument, TheSpecsPartitionsRunWithTheirValuesAndAreNamedAsAnAssumption) {
    // inproc:pipedoutputstream declares parameterised callins; the spec declares their partitions.
    Subject device = open_subject("inproc:pipedoutputstream");
    const DocumentCheck ran = check_document(load_document(kSource + "/specs/pipedoutputstream.yaml"), device);
    EXPECT_EQ(ran.report.verdict, Verdict::Pass) << ran.text;
    bool sampled = false;
    for (const auto& a : ran.report.assumptions) sampled = sampled || contains(a, "values sampled");
    EXPECT_TRUE(sampled) << ran.text;
}

TEST(SessionDocument, AKindMismatchIsBadInputNamingBoth) {
    Subject typestate = open_subject("model:" + kTypestate);
    Subject queue = open_subject("model:" + kQueue);
    try {
        (void)check_document(load_document(kQueue), typestate);
        FAIL() << "a register automaton checked against a typestate device";
    } catch (const std::invalid_argument& e) {
        EXPECT_TRUE(contains(e.what(), kQueue + " is a register automaton, but model:" + kTypestate)) << e.what();
    }
    EXPECT_THROW((void)check_document(load_document(kTypestate), queue), std::invalid_argument);
    EXPECT_THROW((void)check_document(load_document(kQueue), queue, SuiteMethod::Wp), std::invalid_argument);
    // Another signature.
    Subject store = open_subject("model:" + kRaFixtures + "/store.xml");
    EXPECT_THROW((void)check_document(load_document(kQueue), store), std::invalid_argument);
    // diff: two kinds, or a picture of register automata.
    EXPECT_THROW((void)diff_documents(load_document(kQueue), load_document(kTypestate)), std::invalid_argument);
    EXPECT_THROW((void)diff_documents(load_document(kQueue), load_document(kQueue), 4, true), std::invalid_argument);
    EXPECT_TRUE(diff_documents(load_document(kQueue), load_document(kQueue)).same);
    EXPECT_FALSE(diff_documents(load_document(kQueue), load_document(kRaFixtures + "/pq_poll_mutant.yaml")).same);
}

TEST(SessionDocument, ASpecIsComparedWithADevicesStatusAsEveryRunnerReportsIt) {
    const Document spec = load_document(kTypestate);
    const auto status = [](const std::string& name, const std::string& callins, const std::string& callbacks,
                           const std::string& more = "") {
        return R"({"protocol":"typestar-device/1","name":")" + name + R"(","framework":"f","callins":)" + callins +
               R"(,"callbacks":)" + callbacks + R"(,"timing":{"tmax_ms":100,"tmin_ms":0},"quiet_is_stable":true)" +
               more + "}";
    };
    const std::string callbacks = R"(["onCancelled","onPostExecute"])";
    const DeviceMismatch same = compare_with_device(spec, "a.yaml", status("AsyncTask", R"(["execute","cancel"])", callbacks), "s");
    EXPECT_TRUE(same.differences.empty()) << same.message;
    EXPECT_EQ(same.message, "");
    const DeviceMismatch other =
        compare_with_device(spec, "a.yaml", status("AsyncTask", R"(["execute","run"])", R"(["onPostExecute"])"), "s");
    EXPECT_FALSE(other.another_class);
    EXPECT_EQ(other.differences, (std::vector<std::string>{"callins of the spec the purpose does not have: cancel",
                                                           "callins of the purpose the spec does not have: run",
                                                           "callbacks of the spec the purpose does not have: onCancelled"}));
    EXPECT_EQ(other.message.rfind("a.yaml does not match the learning purpose of AsyncTask; no word was run:\n  - callins", 0), 0u)
        << other.message;
    const DeviceMismatch wrong = compare_with_device(spec, "a.yaml", status("Timer", R"(["execute","cancel"])", callbacks), "s");
    EXPECT_TRUE(wrong.another_class);
    EXPECT_TRUE(contains(wrong.message, "the spec is of class 'AsyncTask', the purpose drives 'Timer'")) << wrong.message;
    EXPECT_TRUE(contains(wrong.message, "Check that the test names the right spec file and the right purpose.")) << wrong.message;
    try {
        (void)compare_with_device(spec, "a.yaml", "{", "the runner's status");
        ADD_FAILURE() << "a status that is not JSON was read";
    } catch (const DeviceError& e) {
        EXPECT_TRUE(contains(e.what(), "the runner's status: malformed status: not JSON")) << e.what();
    }
}

TEST(SessionDocument, LearnRecordsTheBoundAsUsedAndSaysWhatRan) {
    Subject queue = open_subject("model:" + kQueue);
    LearnRequest request;
    request.bound = 3;
    const LearnedDocument ra = learn_document(queue, request);
    ASSERT_TRUE(ra.converged) << ra.failure;
    EXPECT_TRUE(contains(ra.yaml, "bounds: {distinguisher: 3}")) << ra.yaml;
    EXPECT_TRUE(contains(ra.yaml, "device: \"model:" + kQueue + "\"")) << ra.yaml;
    EXPECT_TRUE(contains(ra.report, "(SL*)")) << ra.report;
    EXPECT_TRUE(contains(ra.report, "distinguisher bound B=3")) << ra.report;
    // Every assumption the learned spec relies on, as a check of it names them.
    EXPECT_TRUE(contains(ra.report, "typestar: the learned spec relies on:\ntypestar:   - the device's (location, "
                                    "register order type) states are told apart by data words of length <= 3"))
        << ra.report;
    EXPECT_TRUE(contains(ra.report, "one data value per class stands for the class")) << ra.report;
    EXPECT_TRUE(contains(ra.stats_json, "\"tree_queries\"")) << ra.stats_json;
    EXPECT_TRUE(contains(ra.stats_json, "\"equivalence_rounds\"")) << ra.stats_json;
    // Options of the typestate learners do not apply to a data device.
    LearnRequest lstar;
    lstar.learner = LearnerKind::LStar;
    EXPECT_THROW((void)learn_document(queue, lstar), std::invalid_argument);

    Subject typestate = open_subject("model:" + kTypestate);
    const LearnedDocument learned = learn_document(typestate, request);
    EXPECT_TRUE(contains(learned.yaml, "distinguisher: 3")) << learned.yaml;
    EXPECT_TRUE(contains(learned.report, " with L# in ")) << learned.report;  // the learner that ran
    EXPECT_TRUE(contains(learned.report, "B=3")) << learned.report;
    EXPECT_TRUE(contains(learned.report, "The learned spec relies on:")) << learned.report;
    EXPECT_TRUE(contains(learned.stats_json, "\"equivalence_rounds\"")) << learned.stats_json;
    // The perfect oracle needs a model's truth.
    LearnRequest perfect;
    perfect.method = std::nullopt;
    Subject inproc = open_subject("inproc:asynctask");
    EXPECT_THROW((void)learn_document(inproc, perfect), std::invalid_argument);
    EXPECT_NO_THROW((void)learn_document(typestate, perfect));
}

TEST(SpecKind, EveryDocumentIsAnsweredByItsKind) {
    const Document typestate = load_document(kTypestate);
    const Document queue = load_document(kQueue);
    const Document mealy = load_document(mealy_dot_file("kind"));
    EXPECT_EQ(kind_of(typestate).id(), DocumentKind::Typestate);
    EXPECT_EQ(kind_of(mealy).id(), DocumentKind::Typestate);  // a Mealy machine is the typestate kind's
    EXPECT_EQ(kind_of(queue).id(), DocumentKind::RegisterAutomaton);
    EXPECT_EQ(&spec_kind(DocumentKind::RegisterAutomaton), &kind_of(queue));
    EXPECT_EQ(kind_of(queue).noun(), "register automaton");
    // The document functions answer through the kind.
    EXPECT_EQ(kind_of(queue).summary(queue), document_summary(queue));
    EXPECT_EQ(kind_of(typestate).summary(typestate), document_summary(typestate));
    EXPECT_EQ(kind_of(queue).default_bound(queue, SuiteMethod::Algorithm2), queue.automaton->distinguisher);
    // Each kind's test plan is its own planner's.
    EXPECT_EQ(kind_of(typestate).test_plan(typestate).size(), plan_transition_tests(*typestate.spec).size());
    const auto plan = kind_of(queue).test_plan(queue);
    ASSERT_EQ(plan.size(), 24u);
    EXPECT_EQ(plan.front().name, plan_register_tests(queue.automaton->automaton).front().name);
}

TEST(SpecKind, AProposalOfAnotherClassIsNamedSoForEitherKind) {
    const Document typestate = load_document(kTypestate);
    Document renamed = typestate;
    renamed.spec->typestate.name = "OtherTask";
    EXPECT_TRUE(kind_of(typestate).proposal_mismatch(typestate, typestate).empty());
    const auto t = kind_of(typestate).proposal_mismatch(typestate, renamed);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0], "another class: the proposal is 'OtherTask', the spec '" + typestate.spec->typestate.name + "'");
    const Document queue = load_document(kQueue);
    Document other = queue;
    other.automaton->automaton.outputs.pop_back();
    EXPECT_TRUE(kind_of(queue).proposal_mismatch(queue, queue).empty());
    const auto r = kind_of(queue).proposal_mismatch(queue, other);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].rfind("another signature: the proposal lacks output ", 0), 0u) << r[0];
}

TEST(SpecKind, WhatAProposalLosesAndHowItsBoundChangesForEitherKind) {
    const Document typestate = load_document(kTypestate);
    EXPECT_TRUE(kind_of(typestate).proposal_loss(typestate, typestate).text.empty());
    EXPECT_TRUE(kind_of(typestate).bound_change(typestate, typestate).empty());
    Document higher = typestate;
    higher.spec->bounds.distinguisher += 1;
    EXPECT_EQ(kind_of(typestate).bound_change(typestate, higher), bound_change(*typestate.spec, *higher.spec));
    const Document queue = load_document(kQueue);
    Document fewer = queue;
    fewer.automaton->automaton.locations.pop_back();
    const ProposalLoss loss = kind_of(queue).proposal_loss(queue, fewer);
    EXPECT_TRUE(loss.smaller);
    EXPECT_EQ(loss.text, "the proposal has 7 locations, the stored spec 8");
    EXPECT_EQ(loss.unit, "locations");
    EXPECT_FALSE(kind_of(queue).proposal_loss(fewer, queue).smaller);
    Document b3 = queue;
    b3.automaton->distinguisher = 3;
    EXPECT_EQ(kind_of(queue).bound_change(queue, b3), "the distinguisher bound changes from B=2 to B=3");
}

TEST(SessionDocument, ARegisterAutomatonIsComparedWithADataDevicesStatusByClassAndSignature) {
    const Document queue = load_document(kQueue);
    const auto status = [](const std::string& name, const std::string& outputs) {
        return R"({"protocol":"typestar-device/1","name":")" + name +
               R"(","framework":"f","callins":["offer","poll"],"callbacks":[],"timing":{"tmax_ms":0,"tmin_ms":0},)"
               R"("data":{"inputs":[{"name":"offer","parameters":[["p","int"]]},{"name":"poll","parameters":[]}],)"
               R"("outputs":)" + outputs + R"(,"constants":[]}})";
    };
    const std::string outputs =
        R"([{"name":"ok","parameters":[]},{"name":"nok","parameters":[]},{"name":"out","parameters":[["v","int"]]}])";
    const DeviceMismatch same = compare_with_device(queue, "q.yaml", status("std_priority_queue", outputs), "s");
    EXPECT_TRUE(same.differences.empty()) << same.message;
    const DeviceMismatch signature = compare_with_device(
        queue, "q.yaml",
        status("std_priority_queue", R"([{"name":"ok","parameters":[]},{"name":"out","parameters":[["v","int"]]}])"),
        "s");
    EXPECT_FALSE(signature.another_class);
    ASSERT_EQ(signature.differences.size(), 1u) << signature.message;
    EXPECT_TRUE(contains(signature.differences[0], "the spec's signature is not the purpose's: the purpose lacks output nok()"))
        << signature.differences[0];
    const DeviceMismatch other = compare_with_device(queue, "q.yaml", status("java.util.PriorityQueue", outputs), "s");
    EXPECT_TRUE(other.another_class);
    // A typestate device's status for a register automaton: not the same kind of device.
    const DeviceMismatch typestate = compare_with_device(
        queue, "q.yaml",
        R"({"protocol":"typestar-device/1","name":"std_priority_queue","callins":["offer","poll"],"callbacks":[],)"
        R"("timing":{"tmax_ms":10,"tmin_ms":0}})",
        "s");
    ASSERT_EQ(typestate.differences.size(), 1u) << typestate.message;
    EXPECT_TRUE(contains(typestate.differences[0], "the purpose drives a typestate device")) << typestate.message;
}

TEST(RunnerJson, ARegisterAutomatonsFailureAndFirstRunAreProposedByItsKind) {
    const fs::path dir = fs::temp_directory_path() / ("typestar_ra_runner_json_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path spec = dir / "queue.yaml";
    fs::copy_file(kQueue, spec);
    const Document queue = load_document(spec.string());
    // The mutant answers a poll differently: a failure, and the proposal through SpecKind::propose.
    Subject mutant = open_subject("model:" + kRaFixtures + "/pq_poll_mutant.yaml");
    CheckJsonOptions options;
    options.proposal = ProposalMode::Write;
    options.device_label = "junit in-process std_priority_queue";
    std::ostringstream out;
    EXPECT_EQ(write_check_json(out, queue, mutant, options), 1);
    const std::string text = out.str();
    EXPECT_TRUE(contains(text, "\"kind\": \"register-automaton\"")) << text.substr(0, 300);
    EXPECT_TRUE(contains(text, "\"status\": \"written\"")) << text;
    EXPECT_TRUE(contains(text, "\"locations\": ")) << text;
    EXPECT_TRUE(contains(text, "\"accept\": \"typestar accept ")) << text;
    EXPECT_TRUE(contains(text, "Shortest separating data trace, stored spec vs proposal")) << text;
    EXPECT_TRUE(contains(text, "Re-learned with SL*")) << text;
    EXPECT_TRUE(contains(text, "The re-learned proposal and its separating data trace are in the first failure of "
                               "std_priority_queue.")) << text;
    const fs::path proposed = dir / "queue.proposed.yaml";
    ASSERT_TRUE(fs::exists(proposed)) << text;
    const Document proposal = load_document(proposed.string());
    ASSERT_TRUE(proposal.automaton.has_value());
    EXPECT_EQ(proposal.automaton->provenance.at("device"), "junit in-process std_priority_queue");
    // The proposal conforms to the device it was learned from.
    Subject again = open_subject("model:" + kRaFixtures + "/pq_poll_mutant.yaml");
    std::ostringstream check;
    EXPECT_EQ(write_check_json(check, proposal, again, CheckJsonOptions{}), 0) << check.str();

    // A first run on a data device: learned with SL*, written for review; what a typestate's
    // options asked (bound auto, the learner) is said not to apply, not dropped.
    const fs::path missing = dir / "fresh.yaml";
    Subject device = open_subject("model:" + kQueue);
    std::ostringstream first;
    options.auto_bound = true;
    options.learner = LearnerKind::LStar;
    EXPECT_EQ(write_first_run_json(first, missing.string(), device, options), 1);
    const std::string learned = first.str();
    EXPECT_TRUE(contains(learned, "--bound auto raises B for typestates only: this register automaton was learned at B=2."))
        << learned;
    EXPECT_TRUE(contains(learned, "--learner applies to typestates only")) << learned;
    EXPECT_TRUE(contains(learned, "\"kind\": \"register-automaton\"")) << learned;
    EXPECT_TRUE(contains(learned, "\"learner\": \"slstar\"")) << learned;
    EXPECT_TRUE(contains(learned, "the spec does not exist, so it was learned: " + missing.string())) << learned;
    EXPECT_FALSE(contains(learned, "compare: typestar diff")) << learned;  // nothing stored to compare with
    EXPECT_TRUE(fs::exists(dir / "fresh.proposed.yaml")) << learned;
    fs::remove_all(dir);
}

TEST(RunnerJson, TheSuiteAndDiffJsonTheRunnersReadComeFromTheSession) {
    const Document typestate = load_document(kTypestate);
    std::ostringstream suite;
    write_suite_json(suite, typestate, SuiteMethod::Algorithm2, 2);
    const std::string text = suite.str();
    EXPECT_EQ(text.rfind("{\n  \"spec\": \"" + typestate.name + "\",\n  \"method\": ", 0), 0u) << text.substr(0, 200);
    EXPECT_TRUE(contains(text, "\n  \"test_suite\": "));
    EXPECT_TRUE(contains(text, "\n  \"transitions\": ["));
    EXPECT_TRUE(contains(text, "\n  \"quiet_checks\": {\"factor\": "));
    EXPECT_EQ(text.substr(text.size() - 4), "}\n}\n");  // quiet_checks, then the object
    // A register automaton: its plan, one test per transition as the plugin names them, no words
    // (the generalised Algorithm 2 builds them on the device); the Wp method does not apply.
    const Document queue = load_document(kQueue);
    std::ostringstream plan;
    write_suite_json(plan, queue, SuiteMethod::Algorithm2, 2);
    const std::string ra = plan.str();
    EXPECT_EQ(ra.rfind("{\n  \"spec\": \"std_priority_queue\",\n  \"kind\": \"register-automaton\",", 0), 0u) << ra;
    EXPECT_TRUE(contains(ra, "\n  \"test_suite\": \"std_priority_queue\",")) << ra;
    EXPECT_TRUE(contains(ra, R"({"input":"poll","line":)")) << ra;
    EXPECT_FALSE(contains(ra, "\"tests\"")) << ra;
    const auto planned = kind_of(queue).test_plan(queue);
    for (const auto& t : planned) EXPECT_TRUE(contains(ra, "\"name\":\"" + t.name + "\"")) << t.name;
    std::ostringstream none;
    EXPECT_THROW(write_suite_json(none, queue, SuiteMethod::Wp, 2), std::invalid_argument);
    // diff: the JSON beside the report, for two typestate specs only.
    const Document mutant = load_document(kSource + "/tests/cli/fixtures/mediaplayer_stop_refused.yaml");
    const Document player = load_document(kSource + "/specs/mediaplayer.yaml");
    const DocumentDiff d = diff_documents(player, mutant);
    EXPECT_FALSE(d.same);
    EXPECT_EQ(d.json.rfind("{\n  \"same\": false,\n  \"callins_added\": [],", 0), 0u) << d.json;
    EXPECT_TRUE(contains(d.json, "\"input\": \"stop\",\n      \"kind\": \"removed\""));
    EXPECT_TRUE(diff_documents(queue, queue).json.empty());
    EXPECT_TRUE(diff_documents(load_document(mealy_dot_file("json")), typestate).json.empty());
}

}  // namespace
}  // namespace typestar
