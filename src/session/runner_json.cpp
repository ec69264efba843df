// The machine interface the runners read (JUnit 5, node:test, any program) as they run a spec: the
// JSON of `typestar check --format json` (each test's result, the proposal after a difference, a
// first run), composed here in the session so that the CLI only prints it and every runner reads
// one shape. The plan before the run is suite_json.cpp's.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kind_detail.hpp"
#include "session_detail.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/translate.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/kind.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/session/test_run.hpp"
#include "typestar/spec/diff.hpp"

namespace typestar {
namespace {

constexpr const char* kCheckFormat = "typestar-check/2";

nlohmann::ordered_json optional_ms(const std::optional<double>& ms) {
    return ms ? nlohmann::ordered_json(*ms) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json text_or_null(const std::string& text) {
    return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

const char* failure_name(TestFailure f) {
    switch (f) {
        case TestFailure::None: return "none";
        case TestFailure::Counterexample: return "counterexample";
        case TestFailure::Inputs: return "inputs";
        case TestFailure::Plan: return "plan";
        case TestFailure::Partition: return "partition";
        case TestFailure::Nondeterminism: return "nondeterminism";
        case TestFailure::Timing: return "timing";
        case TestFailure::Device: return "device";
    }
    return "?";
}

/// The run's verdict from its results: "error" (the device failed, answered non-deterministically,
/// or the suite could not be made: the text mode's exit 2), else "timing" (a timing failure that
/// repeats: exit 2), else "fail" (a difference: exit 1), else "pass" (exit 0).
std::pair<const char*, int> verdict_of(const std::vector<TestResult>& results) {
    bool error = false, timing = false, fail = false;
    for (const auto& r : results) {
        switch (r.failure) {
            case TestFailure::None: break;
            case TestFailure::Counterexample:
            case TestFailure::Partition: fail = true; break;
            case TestFailure::Timing: timing = true; break;
            default: error = true;
        }
    }
    if (error) return {"error", 2};
    if (timing) return {"timing", 2};
    if (fail) return {"fail", 1};
    return {"pass", 0};
}

}  // namespace

std::optional<ProposalMode> proposal_mode(bool propose, bool update, bool ci) noexcept {
    if (ci) return (propose || update) ? std::optional(ProposalMode::Print) : std::nullopt;  // CI writes nothing
    if (update) return ProposalMode::Update;
    if (propose) return ProposalMode::Write;
    return std::nullopt;
}

namespace {

const char* mode_name(ProposalMode m) {
    return m == ProposalMode::Update ? "update" : m == ProposalMode::Print ? "print" : "write";
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The proposal as the runners read it (typestar-check/2 `proposal`), and the text a failing test
/// prints once (`report`) or points to (`pointer`).
struct RunnerProposal {
    nlohmann::ordered_json json;
    std::string report;
    std::string pointer;
};

/// The fields every kind's proposal has: mode, learned_from, status and error. False when there is
/// none (`error` says why; the report and pointer say so too).
bool describe_status(RunnerProposal& out, ProposalMode mode, const std::string& learned_from, bool learned,
                     bool wrote_spec, const std::string& error) {
    nlohmann::ordered_json& j = out.json;
    j["mode"] = mode_name(mode);
    j["learned_from"] = text_or_null(learned_from);
    if (!learned) {
        j["status"] = "error";
        j["error"] = error;
        out.report = out.pointer = "Re-learning failed: " + error + "\n";
        return false;
    }
    j["status"] = mode == ProposalMode::Print ? "printed" : wrote_spec ? "updated" : "written";
    j["error"] = nullptr;
    return true;
}

nlohmann::ordered_json trace_json(const std::vector<TraceStep>& trace) {
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const auto& s : trace)
        steps.push_back({{"state", s.state}, {"input", s.input}, {"expected", s.expected}, {"actual", s.actual}});
    return steps;
}

/// The additive per-test fields of typestar-check/2 (the failing word as data, its trace, whether
/// the proposal changed this test's own transition, whether update mode took it).
void add_test_fields(nlohmann::ordered_json& t, const TestResult& r, const DocumentProposal* p, Device* device,
                     bool updated) {
    t["updated"] = updated;
    if (r.counterexample && device) {
        t["counterexample"] = {{"inputs", names_of(r.counterexample->inputs, device->inputs())},
                               {"expected", names_of(r.counterexample->expected, device->outputs())},
                               {"actual", names_of(r.counterexample->actual, device->outputs())},
                               {"first_difference", r.counterexample->first_difference()}};
    } else {
        t["counterexample"] = nullptr;
    }
    t["trace"] = r.trace.empty() ? nlohmann::ordered_json(nullptr) : trace_json(r.trace);
    t["trace_text"] = r.trace.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(format_trace(r.trace, 4));
    const bool difference = r.failure == TestFailure::Counterexample || r.failure == TestFailure::Inputs;
    t["transition_changed"] = difference && p && p->diff
                                  ? nlohmann::ordered_json(transition_changed(*p->diff, r.test.state, r.test.input))
                                  : nlohmann::ordered_json(nullptr);
    if (r.timing) {
        t["timing_failure"] = {{"kind", r.timing->kind},           {"callback", text_or_null(r.timing->callback)},
                               {"delay_ms", r.timing->delay_ms},   {"tmax_ms", r.timing->tmax_ms},
                               {"tmin_ms", r.timing->tmin_ms},     {"runs", r.timing->runs},
                               {"earlier_query", r.timing->earlier_query}};
    } else {
        t["timing_failure"] = nullptr;
    }
}

/// `kind` in typestar-check/2's `kind`: "typestate" or "register-automaton".
const char* kind_json_name(const SpecKind& kind) {
    return kind.id() == DocumentKind::RegisterAutomaton ? "register-automaton" : "typestate";
}

/// The name of `document`'s tests' suite in messages (the gtest plugin's).
std::string suite_name_of(const Document& document) {
    if (document.spec) return typestar::suite_identifier(*document.spec);
    if (document.automaton) return typestar::suite_identifier(document.automaton->automaton);
    return test_identifier(document.name);
}

/// A proposal of its kind's workflow (SpecKind::propose) as the runners read it (typestar-check/2
/// `proposal`): its size in `states` or `locations`, the fields only a typestate has (diff as data,
/// pictures) null for the other kinds; the report and pointer are the kind's, as the gtest plugin
/// prints them.
RunnerProposal describe_proposal(const DocumentProposal& p, ProposalMode mode, const std::string& learned_from) {
    RunnerProposal out;
    nlohmann::ordered_json& j = out.json;
    if (!describe_status(out, mode, learned_from, p.document.has_value(), p.wrote_spec, p.error)) return out;
    j["path"] = mode == ProposalMode::Print ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.document->path);
    j["accept"] = text_or_null(p.accept);
    j[p.unit.empty() ? "size" : p.unit] = p.size;
    j["bound"] = kind_of(*p.document).default_bound(*p.document, SuiteMethod::Algorithm2);
    j["summary"] = p.summary;
    j["shared_by"] = text_or_null(p.shared_by);
    j["pictures"] = text_or_null(p.pictures);
    j["yaml"] = p.yaml;
    j["diff"] = p.diff ? nlohmann::ordered_json::parse(detail::typestate_diff_json(*p.diff, p.diff->empty()))
                       : nlohmann::ordered_json(nullptr);
    j["diff_error"] = text_or_null(p.diff_error);
    out.report = p.report;
    out.pointer = p.pointer;
    j["report"] = out.report;
    return out;
}

/// What a proposal says to each test that failed by a difference, whatever its kind: in update
/// mode a test whose answer the written spec explains passes (`updated`); the others' messages gain
/// what the gtest plugin adds: what was re-learned, what changed for this test, the report (first)
/// or the pointer (the others).
struct DifferenceNotes {
    std::string suite;     ///< the spec's tests' suite, for the messages
    std::string path;      ///< the spec file
    bool learned = false;  ///< there is a proposal
    bool wrote_spec = false;
    bool shared = false;
    std::string summary;
    std::function<bool(const TestResult&)> explains;          ///< the written spec answers the test's word
    std::function<std::string(const TestResult&)> answer_word;  ///< " on open close", or empty
    std::function<std::string(const TestResult&)> changes;      ///< what changed seen from the test
};

void note_differences(const DifferenceNotes& n, const RunnerProposal& described, std::vector<TestResult>& results,
                      std::vector<bool>& updated) {
    bool printed = false;
    for (std::size_t i = 0; i < results.size(); ++i) {
        TestResult& r = results[i];
        if (r.failure != TestFailure::Counterexample && r.failure != TestFailure::Inputs) continue;
        if (n.learned && n.wrote_spec && n.explains(r)) {
            updated[i] = true;
            r.status = TestStatus::Passed;
            r.failure = TestFailure::None;
            r.message = "typestar: " + n.suite + "." + r.test.name + ": the device's answer" + n.answer_word(r) +
                        " is in the updated spec (update mode: wrote " + n.path + ").\n";
            continue;
        }
        std::string m = r.message;
        if (!n.learned) {
            m += described.report;
        } else {
            if (n.wrote_spec)
                m += "Re-learned and wrote the spec, but it does not explain this answer (a non-deterministic device?).\n";
            m += n.shared ? "Re-learned by another test process of this run.\n" + n.summary : "Re-learned with " + n.summary;
            m += n.changes(r);
            m += printed ? described.pointer : described.report;
            printed = true;
        }
        r.message = m;
    }
}

/// The request of the session's proposal workflow (SpecKind::propose: the gtest plugin's key, lock,
/// reuse, file naming and texts) for `check --format json`, a run's or a first run's.
DocumentProposalRequest runner_request(const std::string& spec, Subject& subject, const CheckJsonOptions& options,
                                       std::size_t bound) {
    DocumentProposalRequest q;
    q.spec = spec;
    q.subject = &subject;
    q.bound = bound;
    q.auto_bound = options.auto_bound;
    q.learner = options.learner;
    q.mode = *options.proposal;
    q.device_url = subject.url;
    q.device_label = options.device_label;
    q.rerun_in_update_mode = "in update mode";  // each runner says how (TYPESTAR_UPDATE, its own flag)
    q.requester = "typestar check --format json";
    q.pictures = options.pictures;
    return q;
}

/// After a run with a difference (`options.proposal` set): the session's proposal, learned once from
/// the first test failing by a difference through its kind's workflow, described for the runners;
/// each such test's message gains what the gtest plugin adds (what was re-learned, what changed, the
/// report or a pointer to it), and in update mode the tests whose answers the written spec explains
/// pass (`updated`).
void propose_after_run(const Document& document, Subject& subject, SpecTestRun& run, const CheckJsonOptions& options,
                       std::vector<TestResult>& results, std::optional<DocumentProposal>& proposal,
                       std::optional<RunnerProposal>& described, std::vector<bool>& updated) {
    const auto first = std::find_if(results.begin(), results.end(), [](const TestResult& r) {
        return r.failure == TestFailure::Counterexample || r.failure == TestFailure::Inputs;
    });
    if (first == results.end()) return;
    const SpecKind& kind = kind_of(document);
    const std::string suite = suite_name_of(document);
    DocumentProposalRequest q = runner_request(document.path, subject, options, run.bound());
    q.stored = &document;
    q.stored_bytes = read_bytes(document.path);
    q.run = &run;
    q.failure = &*first;
    q.inputs_differ = first->failure == TestFailure::Inputs;
    q.suite = suite;
    proposal = kind.propose(q);
    const DocumentProposal& p = *proposal;
    described = describe_proposal(p, q.mode, first->test.name);
    DifferenceNotes n{suite, document.path, p.document.has_value(), p.wrote_spec, p.shared(), p.summary, {}, {}, {}};
    n.explains = [&](const TestResult& r) { return kind.explains(*p.document, r, run); };
    n.answer_word = [&](const TestResult& r) { return kind.answer_word(r, run); };
    n.changes = [&](const TestResult& r) { return kind.changes(p, r.test); };
    note_differences(n, *described, results, updated);
}

}  // namespace

int write_check_json(std::ostream& out, const Document& document, Subject& subject, std::optional<std::size_t> bound) {
    CheckJsonOptions options;
    options.bound = bound;
    return write_check_json(out, document, subject, options);
}

int write_check_json(std::ostream& out, const Document& document, Subject& subject, const CheckJsonOptions& options) {
    const SpecKind& kind = kind_of(document);
    TestRunOptions run_options;
    run_options.bound = options.bound;
    run_options.device_url = subject.url;
    const std::unique_ptr<SpecTestRun> run = kind.test_run(document, subject, run_options);
    std::vector<TestResult> results;
    for (std::size_t i = 0; i < run->plan().size(); ++i) results.push_back(run->run(i));

    // After a difference, the session's proposal (learned once, from the first failing test's word),
    // as the gtest plugin does; update mode then passes every test whose answer the written spec explains.
    std::optional<DocumentProposal> proposal;
    std::optional<RunnerProposal> described;
    std::vector<bool> updated(results.size(), false);
    if (options.proposal) propose_after_run(document, subject, *run, options, results, proposal, described, updated);

    const auto [verdict, exit_code] = verdict_of(results);
    std::size_t passed = 0, failed = 0, skipped = 0, words = 0;
    std::vector<std::string> untested;  // "state S, input x: unknown (...)" or the RA reason
    nlohmann::ordered_json tests = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < results.size(); ++i) {
        const TestResult& r = results[i];
        passed += r.status == TestStatus::Passed;
        failed += r.status == TestStatus::Failed;
        skipped += r.status == TestStatus::Skipped;
        words += r.words;
        if (r.status == TestStatus::NotTested) untested.push_back(r.test.state + " " + r.test.input + ": " + r.reason);
        nlohmann::ordered_json t{{"name", r.test.name},
                                 {"state", r.test.state},
                                 {"input", r.test.input},
                                 {"line", r.test.line},
                                 {"status", test_status_name(r.status)},
                                 {"message", r.message},
                                 {"reason", text_or_null(r.reason)},
                                 {"words", r.words},
                                 {"failure", r.failure == TestFailure::None ? nlohmann::ordered_json(nullptr)
                                                                            : nlohmann::ordered_json(failure_name(r.failure))}};
        add_test_fields(t, r, proposal ? &*proposal : nullptr, run->device(), updated[i]);
        tests.push_back(std::move(t));
    }
    const std::size_t total = results.size();
    std::ostringstream summary;
    summary << verdict << ": " << passed << " of " << total << " tests passed on " << subject.url << " ("
            << kind.noun() << " " << document.name << ", "
            << (kind.id() == DocumentKind::RegisterAutomaton ? "the generalised " : "") << "DroidStar Algorithm 2, B="
            << run->bound() << ")";
    if (failed) summary << ", " << failed << " failed";
    if (!untested.empty()) summary << ", " << untested.size() << " not tested";
    if (skipped) summary << ", " << skipped << " skipped";
    summary << (verdict == std::string("pass") ? ": bounded evidence, not a proof" : "");

    const TestRunTiming timing = run->timing();
    const PhaseCounts t = run->stats().total();
    nlohmann::ordered_json j;
    j["format"] = kCheckFormat;
    j["spec"] = document.path;
    j["name"] = document.name;
    j["kind"] = kind_json_name(kind);
    j["device"] = subject.url;
    j["bound"] = run->bound();
    j["method"] = "alg2";
    j["verdict"] = verdict;
    j["exit_code"] = exit_code;
    j["summary"] = summary.str();
    j["assumptions"] = run->assumptions();
    j["timing"] = {{"tmax_ms", optional_ms(timing.tmax_ms)},
                   {"spec_tmax_ms", optional_ms(timing.spec_tmax_ms)},
                   {"max_delay_ms", optional_ms(timing.max_delay_ms)},
                   {"note", text_or_null(timing.note)}};
    j["reproduce"] = run->reproduce();
    j["stats"] = {{"tests", total},
                  {"words", words},
                  {"queries_asked", t.queries_asked},
                  {"queries_executed", t.queries_executed},
                  {"symbols_executed", t.symbols_executed},
                  {"waits_executed", t.waits_executed},
                  {"timing_retries", t.timing_retries}};
    j["tests"] = std::move(tests);
    std::string reason;
    for (const auto& u : untested) reason += (reason.empty() ? "" : "; ") + u;
    j["not_tested"] = {{"count", untested.size()}, {"reason", text_or_null(reason)}};
    j["proposal"] = described ? described->json : nlohmann::ordered_json(nullptr);
    j["learned"] = nullptr;
    out << j.dump(2) << "\n";
    return exit_code;
}

int write_first_run_json(std::ostream& out, const std::string& spec, Subject& subject, const CheckJsonOptions& options) {
    if (!options.proposal) throw std::invalid_argument("the spec " + spec + " does not exist");
    nlohmann::ordered_json j;
    j["format"] = kCheckFormat;
    j["spec"] = spec;
    j["name"] = nullptr;
    j["kind"] = "typestate";
    j["device"] = subject.url;
    const ProposalMode mode = *options.proposal;
    const auto proposed = proposed_path(spec, "yaml").filename().string();
    const auto file = std::filesystem::path(spec).filename().string();
    std::string summary;
    int code = 1;
    if (mode == ProposalMode::Print) {
        summary = "fail: the spec " + spec + " does not exist. CI is set, so typestar neither learns nor writes it "
                  "here. Learn it locally (run without CI set: it writes " + proposed +
                  " for review, or the spec itself in update mode), then commit " + file + ".";
        j["learned"] = nullptr;
        j["proposal"] = nullptr;
    } else {  // the proposal workflow of the kind the device is learned as
        const DocumentProposalRequest q = runner_request(spec, subject, options, options.bound.value_or(2));
        const DocumentProposal p = propose_document(q);
        const RunnerProposal d = describe_proposal(p, mode, "");
        const std::string from = options.device_label.empty() ? subject.url : options.device_label;
        if (!p.document) {
            code = 2;
            summary = "error: the spec " + spec + " does not exist, and learning it from " + from + " failed: " + p.error;
            j["learned"] = nullptr;
        } else {
            const SpecKind& kind = kind_of(*p.document);
            code = p.wrote_spec ? 0 : 1;
            summary = std::string(code == 0 ? "pass: learned " : "fail: the spec does not exist, so it was learned: ") +
                      spec + " from " + from + " with " + p.summary + d.report;
            j["kind"] = kind_json_name(kind);
            j["learned"] = {{p.unit.empty() ? "size" : p.unit, p.size},
                            {"bound", d.json["bound"]},
                            {"learner", kind.id() == DocumentKind::RegisterAutomaton ? "slstar"
                                                                                     : learner_name(options.learner)},
                            {"summary", p.summary}};
        }
        j["proposal"] = d.json;
    }
    // What a runner prints after the summary: who asked for the bound, and what to do with a spec learned.
    std::string after;
    if (!options.bound_from.empty()) after += "(The bound was asked by " + options.bound_from + ".)\n";
    if (code == 0) after += "Review and commit it.\n";
    if (!after.empty() && !summary.empty() && summary.back() != '\n') summary += "\n";
    summary += after;
    j["verdict"] = code == 0 ? "pass" : code == 1 ? "fail" : "error";
    j["exit_code"] = code;
    j["summary"] = summary;
    j["tests"] = nlohmann::ordered_json::array();
    j["not_tested"] = {{"count", 0}, {"reason", nullptr}};
    out << j.dump(2) << "\n";
    return code;
}

void write_check_error_json(std::ostream& out, const std::string& spec, const std::string& message) {
    nlohmann::ordered_json j;
    j["format"] = kCheckFormat;
    j["spec"] = spec;
    j["verdict"] = "error";
    j["exit_code"] = 2;
    j["summary"] = "error: " + message;
    j["tests"] = nlohmann::ordered_json::array();
    j["not_tested"] = {{"count", 0}, {"reason", nullptr}};
    out << j.dump(2) << "\n";
}

}  // namespace typestar
