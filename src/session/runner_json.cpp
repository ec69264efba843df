// The machine interface the runners read (JUnit 5, node:test, any program): the JSON of `typestar
// suite --format json`, `typestar check --format json` and `typestar diff --format json`, composed here in the session so that the
// CLI only prints it and every runner reads one shape.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "session_detail.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/translate.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/kind.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/session/test_run.hpp"
#include "typestar/spec/diff.hpp"

namespace typestar {
namespace {

/// The additive `test_suite` and `transitions` fields of `suite --format json` for a spec: its tests
/// as the gtest plugin names them (`<Spec>.<State>_<symbol>`, gtest/plan.hpp) and, per transition,
/// the indices of the words in `tests` that check it (the plugin's assign_cases); a transition with
/// none runs `word` (its access word and input) alone. For runners in other languages.
void write_suite_transitions(std::ostream& out, const spec::Spec& spec, const MealyMachine& machine, const TestSuite& suite) {
    std::vector<Word> access;
    for (const auto& w : access_sequences(machine)) access.push_back(w.value_or(Word{}));  // unreachable: unused
    const auto groups = typestar::assign_cases(machine, access, suite);
    out << ",\n  \"test_suite\": " << nlohmann::json(typestar::suite_identifier(spec)).dump() << ",\n  \"transitions\": [";
    bool first = true;
    std::map<std::string, StateId> state_of;
    for (StateId q = 0; q < machine.num_states(); ++q) state_of.emplace(machine.state_name(q), q);
    for (const auto& t : typestar::plan_transition_tests(spec)) {
        const auto found = state_of.find(t.state);
        const auto i = machine.inputs().find(t.input);
        if (found == state_of.end() || !i) continue;
        const StateId q = found->second;
        const auto& group = groups[q * machine.num_inputs() + *i];
        nlohmann::json j{{"name", t.name}, {"state", t.state}, {"input", t.input}, {"line", t.line}, {"tests", group}};
        if (group.empty()) {
            Word w = access[q];
            w.push_back(*i);
            j["word"] = {{"inputs", names_of(w, machine.inputs())}, {"expected", names_of(machine.outputs_of(w), machine.outputs())}};
            std::vector<std::string> states;  // additive: the spec's state before each input
            for (StateId s = machine.initial(); const Symbol a : w) {
                states.push_back(machine.state_name(s));
                s = machine.successor(s, a);
            }
            j["word"]["states"] = states;
        }
        // Additive (the node:test runner): the transition's output and target (a runner walks the
        // spec with them), the access word of its state, and why it is unknown (three-valued specs).
        j["output"] = machine.outputs().name(machine.output(q, *i));
        j["target"] = machine.state_name(machine.successor(q, *i));
        j["access"] = names_of(access[q], machine.inputs());
        if (!t.unknown.empty()) j["unknown"] = t.unknown;  // the plan says it (plan_transition_tests)
        out << (first ? "\n    " : ",\n    ") << j.dump();
        first = false;
    }
    out << (first ? "]" : "\n  ]");
    // Additive (the JUnit 5 and node:test runners): the quiescence double-check of `typestar check`
    // and the gtest plugin (confirm_quiescence): every way into a quiet state, each to be followed
    // by a `wait` of factor x tmax that must stay quiet.
    nlohmann::json checks = nlohmann::json::array();
    for (const auto& w : typestar::quiescence_words(machine, access)) {
        std::vector<std::string> states;
        for (StateId s = machine.initial(); const Symbol a : w.word) {
            states.push_back(machine.state_name(s));
            s = machine.successor(s, a);
        }
        checks.push_back({{"inputs", names_of(w.word, machine.inputs())}, {"states", states},
                          {"state", machine.state_name(w.state)}});
    }
    out << ",\n  \"quiet_checks\": {\"factor\": " << nlohmann::json(CheckOptions{}.quiet_check_factor).dump()
              << ", \"words\": " << checks.dump() << "}";
}

}  // namespace

void write_suite_json(std::ostream& out, const Document& document, SuiteMethod method, std::size_t bound) {
    const Document& model = document;
    const MealyMachine& machine = suite_model(model);  // a register automaton's suite is built on the device
    SuiteConfig config;
    config.method = method;
    config.bound = bound;
    config.extra_states = bound;
    // Streamed: the generator yields one case at a time, so memory does not grow with the suite.
    const Alphabet& inputs = machine.inputs();
    const Alphabet& outputs = machine.outputs();
    const auto wait = inputs.find(kWait);
    auto waits_of = [&](const Word& w) {
        return wait ? static_cast<std::size_t>(std::count(w.begin(), w.end(), *wait)) : std::size_t{0};
    };
    std::size_t tests = 0;
    std::size_t symbols = 0;
    std::size_t waits = 0;
    // Keys in a fixed order, counts after the tests (known only at the end); each test on one line.
    out << "{\n  \"spec\": " << nlohmann::json(model.name).dump() << ",\n  \"method\": "
              << nlohmann::json(method_name(method)).dump() << ",\n  \"bound\": " << bound
              << ",\n  \"inputs\": " << nlohmann::json(inputs.names()).dump() << ",\n  \"tests\": [";
    SuiteGenerator generator(machine, config);
    TestSuite kept;  // a spec's words, for grouping them by transition below
    while (auto c = generator.next()) {
        nlohmann::json t{{"inputs", names_of(c->inputs, inputs)},
                         {"expected", names_of(c->expected, outputs)},
                         {"purpose", c->purpose}};
        if (model.spec) {  // additive: the spec's state before each input (for aligned traces)
            std::vector<std::string> states;
            StateId q = machine.initial();
            for (const Symbol i : c->inputs) {
                states.push_back(machine.state_name(q));
                q = machine.successor(q, i);
            }
            t["states"] = states;
        }
        out << (tests == 0 ? "\n    " : ",\n    ") << t.dump();
        ++tests;
        symbols += c->inputs.size();
        waits += waits_of(c->inputs);
        if (model.spec) kept.cases.push_back(std::move(*c));
    }
    out << (tests == 0 ? "]" : "\n  ]") << ",\n  \"symbols\": " << symbols << ",\n  \"waits\": " << waits;
    if (model.spec) write_suite_transitions(out, *model.spec, machine, kept);
    out << "\n}\n";
}

std::string detail::typestate_diff_json(const spec::SpecDiff& d, bool same) {
    const auto kind = [](spec::TransitionChange::Kind k) {
        return k == spec::TransitionChange::Kind::Added ? "added" : k == spec::TransitionChange::Kind::Removed ? "removed" : "changed";
    };
    const auto changes = [&](const std::vector<spec::TransitionChange>& list) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& c : list)
            out.push_back(nlohmann::ordered_json{{"state", c.old_state}, {"new_state", c.new_state}, {"input", c.symbol},
                                                 {"kind", kind(c.kind)}, {"before", c.before}, {"after", c.after},
                                                 {"access", c.access}});
        return out;
    };
    const auto states = [](const std::vector<spec::UnpairedState>& list) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& s : list) out.push_back(nlohmann::ordered_json{{"name", s.name}, {"access", s.access}});
        return out;
    };
    nlohmann::ordered_json j;
    j["same"] = same;
    j["callins_added"] = d.callins_added;
    j["callins_removed"] = d.callins_removed;
    j["callbacks_added"] = d.callbacks_added;
    j["callbacks_removed"] = d.callbacks_removed;
    j["changes"] = changes(d.changes);
    j["unknown_changes"] = changes(d.unknown_changes);
    j["old_only_states"] = states(d.old_only_states);
    j["new_only_states"] = states(d.new_only_states);
    return j.dump(2) + "\n";
}

namespace {

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

int write_check_json(std::ostream& out, const Document& document, Subject& subject, std::optional<std::size_t> bound) {
    const SpecKind& kind = kind_of(document);
    TestRunOptions options;
    options.bound = bound;
    options.device_url = subject.url;
    const std::unique_ptr<SpecTestRun> run = kind.test_run(document, subject, options);
    std::vector<TestResult> results;
    for (std::size_t i = 0; i < run->plan().size(); ++i) results.push_back(run->run(i));

    const auto [verdict, exit_code] = verdict_of(results);
    std::size_t passed = 0, failed = 0, skipped = 0, words = 0;
    std::vector<std::string> untested;  // "state S, input x: unknown (...)" or the RA reason
    nlohmann::ordered_json tests = nlohmann::ordered_json::array();
    for (const auto& r : results) {
        passed += r.status == TestStatus::Passed;
        failed += r.status == TestStatus::Failed;
        skipped += r.status == TestStatus::Skipped;
        words += r.words;
        if (r.status == TestStatus::NotTested) untested.push_back(r.test.state + " " + r.test.input + ": " + r.reason);
        tests.push_back(nlohmann::ordered_json{{"name", r.test.name},
                                               {"state", r.test.state},
                                               {"input", r.test.input},
                                               {"line", r.test.line},
                                               {"status", test_status_name(r.status)},
                                               {"message", r.message},
                                               {"reason", text_or_null(r.reason)},
                                               {"words", r.words},
                                               {"failure", r.failure == TestFailure::None
                                                               ? nlohmann::ordered_json(nullptr)
                                                               : nlohmann::ordered_json(failure_name(r.failure))}});
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
    j["format"] = "typestar-check/1";
    j["spec"] = document.path;
    j["name"] = document.name;
    j["kind"] = kind.id() == DocumentKind::RegisterAutomaton ? "register-automaton" : "typestate";
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
    out << j.dump(2) << "\n";
    return exit_code;
}

void write_check_error_json(std::ostream& out, const std::string& spec, const std::string& message) {
    nlohmann::ordered_json j;
    j["format"] = "typestar-check/1";
    j["spec"] = spec;
    j["verdict"] = "error";
    j["exit_code"] = 2;
    j["summary"] = "error: " + message;
    j["tests"] = nlohmann::ordered_json::array();
    j["not_tested"] = {{"count", 0}, {"reason", nullptr}};
    out << j.dump(2) << "\n";
}

}  // namespace typestar
