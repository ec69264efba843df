// The plan the runners read before any word runs (JUnit 5, node:test, any program): `typestar suite`
// in either format (a spec's words, or a register automaton's tests without words), the spec
// compared with the runner's own device (`device_mismatch`), and `typestar diff --format json`.
// Composed here in the session so that the CLI only prints it and every runner reads one shape.
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "proposal_flow.hpp"
#include "session_detail.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/translate.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/connection.hpp"
#include "typestar/device/data_device.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/kind.hpp"
#include "typestar/session/test_plan.hpp"
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
    if (document.automaton && m.differences.empty()) {  // a register automaton: its typed signature
        const auto data = read_agent_data_signature(device_status, who);
        if (!data) {
            m.differences.push_back("the spec is a register automaton, the purpose drives a typestate device (no "
                                    "data signature)");
        } else {
            const auto spec_lines = detail::signature_lines(document.automaton->automaton);
            const auto device_lines = detail::signature_lines(*data);
            if (spec_lines != device_lines)
                m.differences.push_back("the spec's signature is not the purpose's: the purpose " +
                                        detail::alphabet_change(spec_lines, device_lines));
        }
    }
    if (m.differences.empty()) return m;
    m.message = spec_path + " does not match the learning purpose of " + device.name + "; no word was run:\n";
    for (const auto& d : m.differences) m.message += "  - " + d + "\n";
    if (m.another_class) m.message += "Check that the test names the right spec file and the right purpose.\n";
    return m;
}

namespace {

/// `device_mismatch` of `suite --format json` (differences, another_class, message).
void write_device_mismatch(std::ostream& out, const DeviceMismatch* mismatch) {
    if (mismatch != nullptr)
        out << ",\n  \"device_mismatch\": "
            << nlohmann::ordered_json{{"differences", mismatch->differences},
                                      {"another_class", mismatch->another_class},
                                      {"message", mismatch->message}}
                   .dump();
}

/// `suite --format json` of a register automaton: its plan (one test per transition, named as the
/// gtest plugin names them) without words, which the generalised Algorithm 2 builds on the device
/// from its output values (a runner runs them with `typestar check --format json`).
void write_register_suite_json(std::ostream& out, const Document& document, SuiteMethod method, std::size_t bound,
                               const DeviceMismatch* mismatch) {
    if (method != SuiteMethod::Algorithm2)
        throw std::invalid_argument(document.path + " is a register automaton: its suite is the generalised DroidStar "
                                                    "Algorithm 2 (--method alg2), not " + std::string(method_name(method)));
    const ra::RegisterAutomaton& a = document.automaton->automaton;
    std::vector<std::string> inputs;
    for (const auto& d : a.inputs) inputs.push_back(d.name);
    out << "{\n  \"spec\": " << nlohmann::json(document.name).dump() << ",\n  \"kind\": \"register-automaton\""
        << ",\n  \"method\": " << nlohmann::json(method_name(method)).dump() << ",\n  \"bound\": " << bound
        << ",\n  \"inputs\": " << nlohmann::json(inputs).dump()
        << ",\n  \"words\": \"built on the device: the generalised Algorithm 2 words use the device's output values; "
           "run them with typestar check --format json\""
        << ",\n  \"test_suite\": " << nlohmann::json(typestar::suite_identifier(a)).dump() << ",\n  \"transitions\": [";
    bool first = true;
    for (const auto& t : kind_of(document).test_plan(document)) {
        const nlohmann::json j{{"name", t.name}, {"state", t.state}, {"input", t.input}, {"line", t.line}};
        out << (first ? "\n    " : ",\n    ") << j.dump();
        first = false;
    }
    out << (first ? "]" : "\n  ]");
    write_device_mismatch(out, mismatch);
    out << "\n}\n";
}

}  // namespace

void write_suite_json(std::ostream& out, const Document& document, SuiteMethod method, std::size_t bound,
                      const DeviceMismatch* mismatch) {
    if (document.automaton) return write_register_suite_json(out, document, method, bound, mismatch);
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
    write_device_mismatch(out, mismatch);
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

}  // namespace typestar
