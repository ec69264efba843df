// The test plan of a spec: which tests it becomes (one per transition, named like the gtest cases)
// and which words of its Algorithm 2 suite each test runs. Shared by the gtest plugin, the CLI's
// `suite --format json` (the JUnit 5 and node:test runners) and the tests.
// Design note: one test per transition (state, input) of the spec's synchronous closure. The suite
// is generated once per spec (DroidStar Algorithm 2, conformance/suite.hpp) and each of its words
// goes to exactly one test: the transition where the word first leaves the access-sequence tree,
// i.e. the transition R(q)·i whose check R(q)·i·s generated it. A transition whose own words are
// all prefixes of other words (a tree transition, typically) runs its access word R(q)·i alone.
// Only the YAML is needed to name the tests; the words are computed in the first test body.
// Register automata have their plan too (plan_register_tests): one test per transition of the
// automaton (a location, an input, a guard), whose words are the generalised Algorithm 2 words of
// that transition (typestar::run_register_test, session/register_automata.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/conformance/suite.hpp"
#include "typestar/core/mealy.hpp"
#include "typestar/ra/automaton.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {

/// `text` with every character outside [A-Za-z0-9_] replaced by `_`; "_" for empty text.
[[nodiscard]] std::string test_identifier(std::string_view text);

/// One conformance test: a transition of the spec's synchronous closure.
struct TransitionTest {
    std::string name;   ///< `<State>_<symbol>` in [A-Za-z0-9_], unique within the spec
    std::string state;  ///< the state's name in the spec
    std::string input;  ///< a callin, or `wait`
    int line = 0;       ///< the spec's line of the transition (of the state if it has none; else 0)
    /// Register automata: the location's index and the transition's index in its list (file order).
    std::size_t location = 0;
    std::size_t transition = 0;
    /// Typestates: non-empty when the spec leaves the transition unknown (three-valued specs),
    /// "source: reason" or "source": the test is not tested, never passed.
    std::string unknown;
    bool operator==(const TransitionTest&) const = default;
};

/// The machine a spec's tests check: its synchronous closure restricted to reachable states
/// (typestar::canonical; state names kept, the error sink `__err` included when some input errs).
/// Throws std::invalid_argument for a malformed typestate.
[[nodiscard]] MealyMachine test_model(const spec::Spec& spec);

/// The tests of `spec`, in a stable order: states in file order (unreachable ones left out), and
/// per state the callins in declared order, then `wait`. Names that would clash after
/// test_identifier get `_2`, `_3`, … in that order. Throws std::invalid_argument for a malformed
/// typestate.
[[nodiscard]] std::vector<TransitionTest> plan_transition_tests(const spec::Spec& spec);

/// For every transition (q, i) of `model`, at index q·|inputs| + i, the indices (in suite order)
/// of the cases of `suite` whose word first leaves the tree of `access` at (q, i); a word entirely
/// inside the tree goes to its last transition. `access` must be the access sequences `suite` was
/// generated with (one per state of `model`) and form a tree (prefix-closed). Throws
/// std::invalid_argument when a case's inputs are out of range or `access` has the wrong size.
[[nodiscard]] std::vector<std::vector<std::size_t>> assign_cases(const MealyMachine& model,
                                                                 const std::vector<Word>& access,
                                                                 const TestSuite& suite);

/// A word the quiescence double-check runs (followed by a `wait` of factor x tmax): a way into the
/// quiet state `state`.
struct QuiescenceWord {
    Word word;
    StateId state = 0;
    bool operator==(const QuiescenceWord&) const = default;
};

/// Every way into a quiet state of `model` (its `wait` answers `quiet`), the words
/// confirm_quiescence (session.hpp) double-checks: each quiet state's access word, then the access
/// word of every non-refused transition into a quiet state (access[p]·i: a callin there may have
/// scheduled a callback that the state's own access word never sees), without repeats, in that
/// order. States whose access word is empty but the initial one have none given (skipped as
/// sources). Empty when the model has no `wait` or `quiet`. For the CLI's `suite --format json`
/// (`quiet_checks`), which the JUnit 5 and node:test runners run.
[[nodiscard]] std::vector<QuiescenceWord> quiescence_words(const MealyMachine& model, const std::vector<Word>& access);

/// The words every test of a typestate spec's plan runs, over the devices' inputs.
struct TransitionWords {
    TestSuite suite;                               ///< the whole suite, cut before unknown transitions
    std::vector<Word> access;                      ///< per state of the model, its access word
    std::vector<std::vector<std::size_t>> groups;  ///< assign_cases(model, access, suite)
    /// The words of `test` (a transition of `model`, the Conformance's expected()): its cases of
    /// the suite, or its access word and input alone when it has none (a tree transition).
    /// Throws std::out_of_range for a transition `model` does not have.
    [[nodiscard]] TestSuite of(const MealyMachine& model, const TransitionTest& test) const;
};

/// The spec's DroidStar Algorithm 2 suite at `bound` through `conformance` (its model is the spec's
/// test_model; the suite carries the assumptions the devices declare), cut before every unknown
/// transition of the spec (cut_at_unknown), each case assigned to the one test that checks it.
/// Throws std::invalid_argument like the suite generator.
[[nodiscard]] TransitionWords plan_transition_words(const spec::Spec& spec, const Conformance& conformance,
                                                    std::size_t bound);

/// The spec's name as a gtest test-suite name (test_identifier of the typestate's name).
[[nodiscard]] std::string suite_identifier(const spec::Spec& spec);
/// The automaton's name as a gtest test-suite name (test_identifier of it).
[[nodiscard]] std::string suite_identifier(const ra::RegisterAutomaton& automaton);

/// The tests of a register automaton, in file order: per location, per transition,
/// `<location>_<input>`, with `_<k>` (1-based, file order) when the location has several
/// transitions for that input; located at the transition's line (else the location's).
[[nodiscard]] std::vector<TransitionTest> plan_register_tests(const ra::RegisterAutomaton& automaton);

}  // namespace typestar
