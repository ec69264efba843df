#include "typestar/session/test_plan.hpp"

#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {

std::string test_identifier(std::string_view text) {
    if (text.empty()) return "_";
    std::string out(text);
    for (char& c : out) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!ok) c = '_';
    }
    return out;
}

std::string suite_identifier(const spec::Spec& spec) { return test_identifier(spec.typestate.name); }

TestSuite TransitionWords::of(const MealyMachine& model, const TransitionTest& test) const {
    std::optional<StateId> q;
    for (StateId s = 0; s < model.num_states() && !q; ++s)
        if (model.state_name(s) == test.state) q = s;
    if (!q) throw std::out_of_range("no state '" + test.state + "' in the model of the tests");
    const Symbol input = model.inputs().at(test.input);
    TestSuite run;
    run.inputs = suite.inputs;
    run.outputs = suite.outputs;
    run.method = suite.method;
    run.bound = suite.bound;
    for (std::size_t c : groups.at(*q * model.num_inputs() + input)) run.cases.push_back(suite.cases[c]);
    if (run.cases.empty()) {
        Word w = access.at(*q);
        w.push_back(input);
        run.cases.push_back(TestCase{w, model.outputs_of(w), "state " + test.state + ", input " + test.input});
    }
    return run;
}

TransitionWords plan_transition_words(const spec::Spec& spec, const Conformance& conformance, std::size_t bound) {
    const MealyMachine& expected = conformance.expected();
    TransitionWords words;
    for (const auto& w : access_sequences(expected)) words.access.push_back(w.value_or(Word{}));  // canonical: all reachable
    CheckOptions options;
    options.method = SuiteMethod::Algorithm2;
    options.bound = bound;
    words.suite = conformance.suite(options);
    (void)cut_at_unknown(words.suite, spec.typestate);  // unknown transitions are skipped, not tested
    words.groups = assign_cases(expected, words.access, words.suite);
    return words;
}

std::string suite_identifier(const ra::RegisterAutomaton& automaton) { return test_identifier(automaton.name); }

std::vector<TransitionTest> plan_register_tests(const ra::RegisterAutomaton& a) {
    std::vector<TransitionTest> tests;
    for (std::size_t l = 0; l < a.locations.size(); ++l) {
        const auto& loc = a.locations[l];
        std::map<std::size_t, std::size_t> per_input, seen;
        for (const auto& t : loc.transitions) ++per_input[t.input];
        for (std::size_t k = 0; k < loc.transitions.size(); ++k) {
            const auto& t = loc.transitions[k];
            TransitionTest test;
            test.name = loc.name + "_" + a.inputs[t.input].name;
            if (per_input[t.input] > 1) test.name += "_" + std::to_string(++seen[t.input]);
            test.name = test_identifier(test.name);
            test.state = loc.name;
            test.input = a.inputs[t.input].name;
            test.line = t.line ? t.line : loc.line;
            test.location = l;
            test.transition = k;
            tests.push_back(std::move(test));
        }
    }
    return tests;
}

MealyMachine test_model(const spec::Spec& spec) { return canonical(synchronous_closure(spec.typestate)); }

std::vector<TransitionTest> plan_transition_tests(const spec::Spec& spec) {
    const MealyMachine model = test_model(spec);
    std::set<std::string> reachable;
    for (StateId q = 0; q < model.num_states(); ++q) reachable.insert(model.state_name(q));

    const Typestate& t = spec.typestate;
    std::vector<std::string> inputs = t.callins;
    if (t.has_wait) inputs.emplace_back(kWait);

    std::vector<TransitionTest> tests;
    std::set<std::string> used;
    for (const auto& state : t.states) {
        if (reachable.count(state.name) == 0) continue;
        for (const auto& input : inputs) {
            std::string key = input;  // the SourceMap key of `wait`: the callback, else `wait`
            if (input == kWait && state.callback) key = t.callbacks.at(state.callback->callback);
            const std::string base = test_identifier(state.name) + "_" + test_identifier(input);
            std::string name = base;
            for (int n = 2; used.count(name) != 0; ++n) name = base + "_" + std::to_string(n);
            used.insert(name);
            TransitionTest test{name, state.name, input, spec.source.line_of(state.name, key)};
            if (input != kWait) {
                const auto c = std::find(t.callins.begin(), t.callins.end(), input);
                const auto s = t.find_state(state.name);
                if (s && c != t.callins.end())
                    if (const Unknown* u = t.unknown_at(*s, static_cast<std::size_t>(c - t.callins.begin())))
                        test.unknown = std::string(to_string(u->source)) + (u->reason.empty() ? "" : ": " + u->reason);
            }
            tests.push_back(std::move(test));
        }
    }
    return tests;
}

std::vector<std::vector<std::size_t>> assign_cases(const MealyMachine& model, const std::vector<Word>& access,
                                                   const TestSuite& suite) {
    const std::size_t k = model.num_inputs();
    if (access.size() != model.num_states())
        throw std::invalid_argument("assign_cases: " + std::to_string(access.size()) + " access sequences for " +
                                    std::to_string(model.num_states()) + " states");
    // (q, i) is a tree transition when the access sequence of its target is R(q)·i.
    std::vector<char> tree(model.num_states() * k, 0);
    for (StateId q = 0; q < model.num_states(); ++q) {
        for (Symbol i = 0; i < k; ++i) {
            const StateId target = model.successor(q, i);
            const Word& r = access[target];
            tree[q * k + i] = r.size() == access[q].size() + 1 && r.back() == i &&
                              std::equal(access[q].begin(), access[q].end(), r.begin());
        }
    }
    std::vector<std::vector<std::size_t>> groups(model.num_states() * k);
    for (std::size_t c = 0; c < suite.cases.size(); ++c) {
        const Word& w = suite.cases[c].inputs;
        StateId q = model.initial();
        std::optional<std::size_t> slot;
        for (Symbol i : w) {
            if (i >= k) throw std::invalid_argument("assign_cases: input out of range in case " + std::to_string(c));
            slot = q * k + i;
            if (!tree[*slot]) break;
            q = model.successor(q, i);
        }
        if (slot) groups[*slot].push_back(c);  // the empty word checks no transition
    }
    return groups;
}

std::vector<QuiescenceWord> quiescence_words(const MealyMachine& model, const std::vector<Word>& access) {
    std::vector<QuiescenceWord> out;
    const auto wait = model.inputs().find(kWait);
    const auto quiet = model.outputs().find(kQuiet);
    if (!wait || !quiet) return out;
    const auto err = model.outputs().find(kErr);
    const auto quiet_state = [&](StateId q) { return q < access.size() && model.output(q, *wait) == *quiet; };
    std::set<Word> seen;
    for (StateId q = 0; q < model.num_states(); ++q)
        if (quiet_state(q) && seen.insert(access[q]).second) out.push_back({access[q], q});
    for (StateId p = 0; p < model.num_states() && p < access.size(); ++p) {
        if (access[p].empty() && p != model.initial()) continue;
        for (Symbol i = 0; i < model.num_inputs(); ++i) {
            const auto& t = model.transition(p, i);
            if ((err && t.output == *err) || !quiet_state(t.target)) continue;
            Word word = access[p];
            word.push_back(i);
            if (seen.insert(word).second) out.push_back({std::move(word), t.target});
        }
    }
    return out;
}

}  // namespace typestar
