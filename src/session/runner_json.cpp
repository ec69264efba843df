// The machine interface the runners read (JUnit 5, node:test, any program): the JSON of `typestar
// suite --format json`, `typestar check --format json` and `typestar diff --format json`, composed here in the session so that the
// CLI only prints it and every runner reads one shape.
#include <algorithm>
#include <filesystem>
#include <fstream>
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
#include "typestar/device/connection.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/kind.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/session/test_run.hpp"
#include "typestar/spec/diff.hpp"

namespace typestar {
namespace {

constexpr const char* kCheckFormat = "typestar-check/2";

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

namespace {

/// The suite of `document` at `method` and `bound`, one case at a time (never all in memory), and
/// how its words are counted: what `suite` prints in either format.
struct SuiteStream {
    const MealyMachine& machine;
    SuiteConfig config;
    std::optional<Symbol> wait;

    SuiteStream(const Document& document, SuiteMethod method, std::size_t bound)
        : machine(suite_model(document)),  // a register automaton's suite is built on the device
          config(detail::suite_config(method, bound, bound)),
          wait(machine.inputs().find(kWait)) {}
    [[nodiscard]] SuiteGenerator generator() const { return SuiteGenerator(machine, config); }
    [[nodiscard]] std::size_t waits_of(const Word& w) const {
        return wait ? static_cast<std::size_t>(std::count(w.begin(), w.end(), *wait)) : std::size_t{0};
    }
};

}  // namespace

void write_suite_text(std::ostream& out, const Document& document, SuiteMethod method, std::size_t bound) {
    const SuiteStream stream(document, method, bound);
    const Alphabet& inputs = stream.machine.inputs();
    std::size_t tests = 0, symbols = 0, waits = 0;
    {  // First pass: the header's totals.
        SuiteGenerator counting = stream.generator();
        while (auto c = counting.next()) {
            ++tests;
            symbols += c->inputs.size();
            waits += stream.waits_of(c->inputs);
        }
    }
    out << "# " << suite_method_title(method) << " suite of " << document.name << " ("
        << suite_bound_text(method, bound) << "): " << tests << " tests, " << symbols << " inputs, " << waits
        << " waits\n";
    SuiteGenerator generator = stream.generator();
    std::size_t i = 0;
    while (auto c = generator.next())
        out << ++i << ": " << to_string(c->inputs, inputs) << " -> " << to_string(c->expected, stream.machine.outputs())
            << "  # " << c->purpose << '\n';
}

DeviceMismatch compare_with_device(const Document& document, const std::string& spec_path,
                                   const std::string& device_status, const std::string& who) {
    const AgentStatus device = read_agent_status(device_status, who);
    DeviceMismatch m;
    if (document.name != device.name)
        m.differences.push_back("the spec is of class '" + document.name + "', the purpose drives '" + device.name + "'");
    m.another_class = !m.differences.empty();
    if (document.spec) {
        const auto compare = [&](const std::string& what, std::vector<std::string> in_spec,
                                 const std::vector<std::string>& in_device) {
            std::sort(in_spec.begin(), in_spec.end());
            const auto has = [](const std::vector<std::string>& v, const std::string& x) {
                return std::find(v.begin(), v.end(), x) != v.end();
            };
            std::string lacks, adds;
            for (const auto& x : in_spec)
                if (!has(in_device, x)) lacks += (lacks.empty() ? "" : ", ") + x;
            for (const auto& x : in_device)
                if (!has(in_spec, x)) adds += (adds.empty() ? "" : ", ") + x;
            if (!lacks.empty()) m.differences.push_back(what + " of the spec the purpose does not have: " + lacks);
            if (!adds.empty()) m.differences.push_back(what + " of the purpose the spec does not have: " + adds);
        };
        const Typestate& t = document.spec->typestate;
        if (device.parameters.empty()) compare("callins", t.callins, device.callins);
        compare("callbacks", t.callbacks, device.callbacks);
    }
    if (m.differences.empty()) return m;
    m.message = spec_path + " does not match the learning purpose of " + device.name + "; no word was run:\n";
    for (const auto& d : m.differences) m.message += "  - " + d + "\n";
    if (m.another_class) m.message += "Check that the test names the right spec file and the right purpose.\n";
    return m;
}

void write_suite_json(std::ostream& out, const Document& document, SuiteMethod method, std::size_t bound,
                      const DeviceMismatch* mismatch) {
    const Document& model = document;
    const SuiteStream stream(document, method, bound);
    const MealyMachine& machine = stream.machine;
    const Alphabet& inputs = machine.inputs();
    const Alphabet& outputs = machine.outputs();
    std::size_t tests = 0;
    std::size_t symbols = 0;
    std::size_t waits = 0;
    // Keys in a fixed order, counts after the tests (known only at the end); each test on one line.
    out << "{\n  \"spec\": " << nlohmann::json(model.name).dump() << ",\n  \"method\": "
              << nlohmann::json(method_name(method)).dump() << ",\n  \"bound\": " << bound
              << ",\n  \"inputs\": " << nlohmann::json(inputs.names()).dump() << ",\n  \"tests\": [";
    SuiteGenerator generator = stream.generator();
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
        waits += stream.waits_of(c->inputs);
        if (model.spec) kept.cases.push_back(std::move(*c));
    }
    out << (tests == 0 ? "]" : "\n  ]") << ",\n  \"symbols\": " << symbols << ",\n  \"waits\": " << waits;
    if (model.spec) write_suite_transitions(out, *model.spec, machine, kept);
    if (model.spec && (model.spec->timing.tmax_ms || model.spec->timing.tmin_ms)) {  // what the spec records
        nlohmann::ordered_json timing = nlohmann::ordered_json::object();
        if (model.spec->timing.tmax_ms) timing["tmax_ms"] = *model.spec->timing.tmax_ms;
        if (model.spec->timing.tmin_ms) timing["tmin_ms"] = *model.spec->timing.tmin_ms;
        out << ",\n  \"timing\": " << timing.dump();
    }
    if (mismatch != nullptr)
        out << ",\n  \"device_mismatch\": "
            << nlohmann::ordered_json{{"differences", mismatch->differences},
                                      {"another_class", mismatch->another_class},
                                      {"message", mismatch->message}}
                   .dump();
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

std::string indented(const std::string& text, const std::string& prefix) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out += line.empty() ? "\n" : prefix + line + "\n";
    return out;
}

/// The one call of the session's proposal workflow for `check --format json` (what the gtest
/// plugin calls for a failing or missing spec: propose_spec), so that a move of that workflow is a
/// one-line change here. `stored` null: the spec does not exist yet (first run); `failure` null
/// then. Typestates only.
SpecProposal propose_for_runner(const std::string& spec_path, const spec::Spec* stored, Device& device,
                                Conformance* conformance, const Counterexample* failure, std::size_t bound,
                                const CheckJsonOptions& options, const std::string& device_url) {
    ProposalRequest request;
    request.spec = spec_path;
    request.stored = stored;
    if (stored) request.stored_bytes = read_bytes(spec_path);
    request.device = &device;
    request.conformance = conformance;
    request.counterexample = failure;
    request.bound = bound;
    request.auto_bound = options.auto_bound;
    request.learner = options.learner;
    request.mode = *options.proposal;
    request.share_key = proposal_device_key(device_url, device);
    request.requester = "typestar check --format json";
    request.pictures = options.pictures;
    request.device_label = options.device_label;
    return propose_spec(request);
}

/// `typestar accept SPEC` with what makes it work on this proposal: `--force` when the proposal is
/// over other inputs, of another class or alphabet, or loses stored states (accept refuses those
/// otherwise); `--auto` when it has states the stored spec has not (accept asks for their names:
/// `--name NEW=Chosen` instead keeps a chosen one).
std::string accept_command_for(const std::string& spec_path, const spec::Spec* stored, const SpecProposal& p,
                               bool inputs_differ) {
    bool force = inputs_differ;
    bool unnamed = stored == nullptr;  // a first run: every state is new
    if (stored) {
        force = force || !proposal_mismatch(*stored, *p.spec).empty() || (p.diff && !stored_states_lost(*p.diff).empty());
        unnamed = p.diff && !p.diff->new_only_states.empty();
    }
    return "typestar accept " + shell_quote(spec_path) + (unnamed ? " --auto" : "") + (force ? " --force" : "");
}

/// The proposal as the runners read it (typestar-check/2 `proposal`), and the text a failing test
/// prints once (`report`) or points to (`pointer`).
struct RunnerProposal {
    nlohmann::ordered_json json;
    std::string report;
    std::string pointer;
};

RunnerProposal describe_for_runner(const std::string& spec_path, const spec::Spec* stored, const SpecProposal& p,
                                   ProposalMode mode, bool inputs_differ, const std::string& learned_from) {
    RunnerProposal out;
    nlohmann::ordered_json& j = out.json;
    j["mode"] = mode_name(mode);
    j["learned_from"] = text_or_null(learned_from);
    if (!p.spec) {
        j["status"] = "error";
        j["error"] = p.error;
        out.report = out.pointer = "Re-learning failed: " + p.error + "\n";
        return out;
    }
    const bool wrote_spec = p.written.wrote_spec;
    j["status"] = mode == ProposalMode::Print ? "printed" : wrote_spec ? "updated" : "written";
    j["error"] = nullptr;
    const std::string accept = accept_command_for(spec_path, stored, p, inputs_differ);
    j["path"] = mode == ProposalMode::Print ? nlohmann::ordered_json(nullptr)
                                            : nlohmann::ordered_json(p.written.file.string());
    j["accept"] = mode == ProposalMode::Write ? nlohmann::ordered_json(accept) : nlohmann::ordered_json(nullptr);
    j["states"] = p.spec->typestate.states.size();
    j["bound"] = p.spec->bounds.distinguisher;
    j["summary"] = p.summary;
    j["shared_by"] = text_or_null(p.shared_by);
    j["pictures"] = text_or_null(p.written.pictures);
    j["yaml"] = p.yaml;
    j["diff"] = p.diff ? nlohmann::ordered_json::parse(detail::typestate_diff_json(*p.diff, p.diff->empty()))
                       : nlohmann::ordered_json(nullptr);
    j["diff_error"] = text_or_null(p.diff_error);
    std::ostringstream o;
    if (mode == ProposalMode::Print) {
        o << "CI is set, so nothing was written. The proposed spec:\n" << indented(p.yaml, "    ");
        out.pointer = "The proposed spec and its diff are printed in full above (first failing test).\n";
    } else if (wrote_spec) {
        o << "Update mode: wrote " << spec_path << ".\n";
        out.pointer = "Update mode: wrote " + spec_path + ".\n";
    } else {
        o << "Proposed spec: " << p.written.file.string() << "\n  (pictures: " << p.written.pictures
          << ")\nReview it, then accept it (" << (stored ? "keeps the stored state names; " : "")
          << "new states get --name NEW=Name, or --auto keeps the generated names):\n    " << accept
          << "\nor rerun in update mode, which writes " << std::filesystem::path(spec_path).filename().string()
          << " itself.\n";
        out.pointer = "Proposed spec: " + p.written.file.string() +
                      " (its diff and pictures are in the first failing test's message above)\nAccept it: " + accept +
                      "\n";
    }
    if (p.diff)
        o << "Stored -> proposed (typestar diff):\n" << indented(spec::format_diff(*p.diff), "    ");
    else if (stored)
        o << "(no diff: " << p.diff_error << ")\n";
    out.report = o.str();
    j["report"] = out.report;
    return out;
}

nlohmann::ordered_json trace_json(const std::vector<TraceStep>& trace) {
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const auto& s : trace)
        steps.push_back({{"state", s.state}, {"input", s.input}, {"expected", s.expected}, {"actual", s.actual}});
    return steps;
}

/// The additive per-test fields of typestar-check/2 (the failing word as data, its trace, whether
/// the proposal changed this test's own transition, whether update mode took it).
void add_test_fields(nlohmann::ordered_json& t, const TestResult& r, const SpecProposal* p, Device* device,
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

/// After a run with a difference (`options.proposal` set): the session's proposal, learned once from
/// the first test failing by a difference, described for the runners; each such test's message gains
/// what the gtest plugin adds (what was re-learned, what changed, the report or a pointer to it), and
/// in update mode the tests whose answers the written spec explains pass (`updated`).
void propose_after_run(const Document& document, Subject& subject, SpecTestRun& run_ref, const CheckJsonOptions& options,
                       std::vector<TestResult>& results, std::optional<SpecProposal>& proposal,
                       std::optional<RunnerProposal>& described, std::vector<bool>& updated) {
    SpecTestRun* run = &run_ref;
    const SpecKind& kind = kind_of(document);
    const auto first = std::find_if(results.begin(), results.end(), [](const TestResult& r) {
        return r.failure == TestFailure::Counterexample || r.failure == TestFailure::Inputs;
    });
    const bool typestate = kind.id() != DocumentKind::RegisterAutomaton && document.spec.has_value();
    if (first != results.end()) {
        const bool inputs_differ = first->failure == TestFailure::Inputs;
        if (!typestate || run->device() == nullptr) {
            SpecProposal none;
            none.error = "proposals of a " + std::string(kind.noun()) +
                         " are not served by `check --format json` (learn one with `typestar learn --from`)";
            proposal = std::move(none);
        } else {
            proposal = propose_for_runner(document.path, &*document.spec, *run->device(),
                                          inputs_differ ? nullptr : run->conformance(),
                                          first->counterexample ? &*first->counterexample : nullptr, run->bound(),
                                          options, subject.url);
        }
        described = describe_for_runner(document.path, &*document.spec, *proposal, *options.proposal, inputs_differ,
                                        first->test.name);
        bool printed = false;
        for (std::size_t i = 0; i < results.size(); ++i) {
            TestResult& r = results[i];
            if (r.failure != TestFailure::Counterexample && r.failure != TestFailure::Inputs) continue;
            const SpecProposal& p = *proposal;
            if (p.spec && p.written.wrote_spec && r.counterexample &&
                proposal_explains(*p.spec, *r.counterexample, *run->device())) {
                updated[i] = true;
                r.status = TestStatus::Passed;
                r.failure = TestFailure::None;
                r.message = "typestar: " + typestar::suite_identifier(*document.spec) + "." + r.test.name +
                            ": the device's answer on " +
                            to_string(r.counterexample->inputs, run->device()->inputs()) +
                            " is in the updated spec (update mode: wrote " + document.path + ").\n";
                continue;
            }
            std::string m = r.message;
            if (!p.spec) {
                m += described->report;
            } else {
                if (p.written.wrote_spec)
                    m += "Re-learned and wrote the spec, but it does not explain this answer (a non-deterministic device?).\n";
                m += (p.shared() ? "Re-learned by another test process of this run.\n" + p.summary
                                 : "Re-learned with " + p.summary);
                if (p.diff) m += change_summary(*p.diff, r.test.state, r.test.input);
                m += printed ? described->pointer : described->report;
                printed = true;
            }
            r.message = m;
        }
    }

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
    std::optional<SpecProposal> proposal;
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
    } else {
        if (!subject.device.typestate)
            throw std::invalid_argument(subject.url + " is not a typestate device: a missing spec is learned from one");
        const SpecProposal p = propose_for_runner(spec, nullptr, *subject.device.typestate, nullptr, nullptr,
                                                  options.bound.value_or(2), options, subject.url);
        RunnerProposal d = describe_for_runner(spec, nullptr, p, mode, false, "");
        if (!p.spec) {
            code = 2;
            summary = "error: the spec " + spec + " does not exist, and learning it from " +
                      (options.device_label.empty() ? subject.url : options.device_label) + " failed: " + p.error;
            j["learned"] = nullptr;
        } else {
            code = p.written.wrote_spec ? 0 : 1;
            const std::string from = options.device_label.empty() ? subject.url : options.device_label;
            summary = std::string(code == 0 ? "pass: learned " : "fail: the spec does not exist, so it was learned: ") +
                      spec + " from " + from + " with " + p.summary + d.report;

            j["learned"] = {{"states", p.spec->typestate.states.size()},
                            {"bound", p.spec->bounds.distinguisher},
                            {"learner", learner_name(options.learner)},
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
