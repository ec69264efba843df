// The O(n·k·log n) partition refinement behind equivalence_classes, minimize and
// distinguisher_bound, and the incremental characterizing_set, checked against the round-by-round Moore refinement it replaced (kept here,
// verbatim in behaviour, as the reference oracles) on thousands of seeded random machines of 1-300
// states (minimal and not, with unreachable states, one to three outputs), the reference machines,
// random typestate closures, and the specs shipped in specs/ (whose bytes must not change).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <unordered_map>

#include "support/random_mealy.hpp"
#include "support/random_typestate.hpp"
#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using testing_support::uniform_below;

// ---- The reference oracle: naive Moore refinement, one full pass per round -----------------------

struct OracleHash {
    std::size_t operator()(const std::vector<std::uint32_t>& v) const noexcept {
        std::uint64_t h = 1469598103934665603ULL;
        for (auto x : v) h = (h ^ x) * 1099511628211ULL;
        return static_cast<std::size_t>(h);
    }
};

std::size_t oracle_refine(const MealyMachine& m, const std::vector<std::uint32_t>& old_classes,
                          std::vector<std::uint32_t>& new_classes) {
    const std::size_t k = m.num_inputs();
    std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, OracleHash> ids;
    std::vector<std::uint32_t> sig(1 + k);
    new_classes.assign(m.num_states(), 0);
    for (StateId s = 0; s < m.num_states(); ++s) {
        sig[0] = old_classes[s];
        for (std::size_t i = 0; i < k; ++i) sig[1 + i] = old_classes[m.successor(s, static_cast<Symbol>(i))];
        new_classes[s] = ids.try_emplace(sig, static_cast<std::uint32_t>(ids.size())).first->second;
    }
    return ids.size();
}

std::size_t oracle_output_classes(const MealyMachine& m, std::vector<std::uint32_t>& classes) {
    std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, OracleHash> ids;
    std::vector<std::uint32_t> sig(m.num_inputs());
    classes.assign(m.num_states(), 0);
    for (StateId s = 0; s < m.num_states(); ++s) {
        for (std::size_t i = 0; i < m.num_inputs(); ++i) sig[i] = m.output(s, static_cast<Symbol>(i));
        classes[s] = ids.try_emplace(sig, static_cast<std::uint32_t>(ids.size())).first->second;
    }
    return ids.size();
}

std::vector<std::uint32_t> oracle_classes(const MealyMachine& m) {
    std::vector<std::uint32_t> classes, next;
    std::size_t count = oracle_output_classes(m, classes);
    for (;;) {
        const std::size_t refined = oracle_refine(m, classes, next);
        classes.swap(next);
        if (refined == count) return classes;
        count = refined;
    }
}

std::optional<std::size_t> oracle_bound(const MealyMachine& m) {
    const std::size_t n = m.num_states();
    if (n <= 1) return 0;
    std::vector<std::uint32_t> classes, next;
    std::size_t count = oracle_output_classes(m, classes);
    std::size_t k = 1;
    while (count < n) {
        const std::size_t refined = oracle_refine(m, classes, next);
        classes.swap(next);
        if (refined == count) return std::nullopt;
        count = refined;
        ++k;
    }
    return k;
}

MealyMachine oracle_minimize(const MealyMachine& machine, const std::vector<Symbol>& order = {}) {
    const MealyMachine reach = canonical(machine, order);
    const auto classes = oracle_classes(reach);
    const std::size_t n = *std::max_element(classes.begin(), classes.end()) + 1;
    const std::size_t k = reach.num_inputs();
    std::vector<Transition> table(n * k);
    std::vector<bool> done(n, false);
    std::vector<std::string> names(reach.has_state_names() ? n : 0);
    for (StateId s = 0; s < reach.num_states(); ++s) {
        const auto c = classes[s];
        if (done[c]) continue;
        done[c] = true;
        if (!names.empty()) names[c] = reach.state_name(s);
        for (std::size_t i = 0; i < k; ++i) {
            const auto& t = reach.transition(s, static_cast<Symbol>(i));
            table[c * k + i] = Transition{classes[t.target], t.output};
        }
    }
    return canonical(MealyMachine(reach.inputs(), reach.outputs(), classes[reach.initial()], std::move(table),
                                  std::move(names)),
                     order);
}

/// The greedy characterizing set as first written: every state's whole output history, re-sorted
/// into a map after each word.
std::vector<Word> oracle_characterizing_set(const MealyMachine& machine, const std::vector<Word>& known) {
    const std::size_t n = machine.num_states();
    const auto classes = oracle_classes(machine);
    std::vector<Word> signature(n);
    auto extend = [&](const Word& w) {
        for (StateId s = 0; s < n; ++s) {
            const Word out = machine.outputs_of(w, s);
            signature[s].insert(signature[s].end(), out.begin(), out.end());
        }
    };
    for (const Word& w : known) extend(w);
    std::vector<Word> result;
    for (;;) {
        std::map<Word, StateId> first_of;
        std::optional<std::pair<StateId, StateId>> clash;
        for (StateId s = 0; s < n && !clash; ++s) {
            const auto [it, inserted] = first_of.emplace(signature[s], s);
            if (!inserted && classes[it->second] != classes[s]) clash = std::make_pair(it->second, s);
        }
        if (!clash) return result;
        auto w = separating_word(machine, clash->first, clash->second);
        extend(*w);
        result.push_back(std::move(*w));
    }
}

// ---- Machines -------------------------------------------------------------------------------------

/// A uniformly random complete machine (not necessarily minimal or connected): few outputs make
/// equivalent states common, one output makes every state equivalent.
MealyMachine wild_machine(std::size_t states, std::size_t inputs, std::size_t outputs, std::uint64_t seed,
                          bool named) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> in, out, names;
    for (std::size_t i = 0; i < inputs; ++i) in.push_back("i" + std::to_string(i));
    for (std::size_t o = 0; o < outputs; ++o) out.push_back("o" + std::to_string(o));
    if (named)
        for (std::size_t s = 0; s < states; ++s) names.push_back("q" + std::to_string(states - s));
    std::vector<Transition> table(states * inputs);
    for (auto& t : table)
        t = Transition{static_cast<StateId>(uniform_below(rng, states)),
                       static_cast<Symbol>(uniform_below(rng, outputs))};
    const auto initial = static_cast<StateId>(uniform_below(rng, states));
    return MealyMachine(Alphabet(in), Alphabet(out), initial, std::move(table), std::move(names));
}

/// A chain machine with long separating words: state i moves to i+1 on every input, the last state
/// answers differently; some inputs jump back to the start. Bound close to n.
MealyMachine chain_machine(std::size_t states, std::size_t inputs, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> in;
    for (std::size_t i = 0; i < inputs; ++i) in.push_back("i" + std::to_string(i));
    std::vector<Transition> table(states * inputs);
    for (std::size_t s = 0; s < states; ++s)
        for (std::size_t i = 0; i < inputs; ++i) {
            const bool back = i > 0 && uniform_below(rng, 4) == 0;
            const auto target = static_cast<StateId>(back ? uniform_below(rng, s + 1) : std::min(s + 1, states - 1));
            table[s * inputs + i] = Transition{target, s + 1 == states ? Symbol{1} : Symbol{0}};
        }
    return MealyMachine(Alphabet(in), Alphabet({"o0", "o1"}), 0, std::move(table));
}

void expect_same_as_oracle(const MealyMachine& m, const std::string& what, const std::vector<Symbol>& order = {}) {
    SCOPED_TRACE(what);
    ASSERT_EQ(equivalence_classes(m), oracle_classes(m));
    ASSERT_EQ(distinguisher_bound(m), oracle_bound(m));
    const MealyMachine fast = minimize(m, order);
    const MealyMachine slow = oracle_minimize(m, order);
    ASSERT_EQ(fast.num_states(), slow.num_states());
    ASSERT_EQ(fast.initial(), slow.initial());
    ASSERT_TRUE(std::equal(fast.table().begin(), fast.table().end(), slow.table().begin(), slow.table().end()));
    for (StateId s = 0; s < fast.num_states(); ++s) ASSERT_EQ(fast.state_name(s), slow.state_name(s));
    if (m.num_states() <= 120) {
        ASSERT_EQ(characterizing_set(m), oracle_characterizing_set(m, {}));
        const auto singles = words_of_length(m.num_inputs(), 1);
        ASSERT_EQ(characterizing_set(m, singles), oracle_characterizing_set(m, singles));
    }
}

TEST(PartitionOracle, AgreesOnThousandsOfRandomMachines) {
    std::size_t checked = 0, with_equivalent_states = 0, max_bound = 0;
    for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
        std::mt19937_64 rng(seed * 7919);
        const std::size_t states = 1 + uniform_below(rng, seed % 10 == 0 ? 300 : 40);
        const std::size_t inputs = 1 + uniform_below(rng, 4);
        const std::size_t outputs = 1 + uniform_below(rng, 3);
        const MealyMachine m = wild_machine(states, inputs, outputs, seed, seed % 2 == 0);
        expect_same_as_oracle(m, "wild seed " + std::to_string(seed));
        if (HasFatalFailure()) return;
        const auto bound = oracle_bound(m);
        if (!bound) ++with_equivalent_states;
        else max_bound = std::max(max_bound, *bound);
        ++checked;
    }
    EXPECT_EQ(checked, 3000u);
    EXPECT_GT(with_equivalent_states, 500u);  // the nullopt and merging paths are exercised
    EXPECT_GE(max_bound, 4u);
}

TEST(PartitionOracle, AgreesOnMinimalRandomMachines) {
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        const std::size_t states = 1 + (seed * 37) % 300;
        const MealyMachine m = testing_support::random_mealy(states, 1 + seed % 4, 2 + seed % 2, seed);
        expect_same_as_oracle(m, "random_mealy seed " + std::to_string(seed));
        if (HasFatalFailure()) return;
        if (states > 1) {
            EXPECT_TRUE(distinguisher_bound(m).has_value());
        }
    }
}

TEST(PartitionOracle, AgreesOnChainsWithLongSeparatingWords) {
    std::size_t max_bound = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        const MealyMachine m = chain_machine(1 + seed % 300, 1 + seed % 3, seed);
        expect_same_as_oracle(m, "chain seed " + std::to_string(seed));
        if (HasFatalFailure()) return;
        max_bound = std::max(max_bound, distinguisher_bound(m).value_or(0));
    }
    EXPECT_GE(max_bound, 200u);
}

TEST(PartitionOracle, AgreesOnReferenceMachinesAndTypestateClosures) {
    for (const auto& [name, m] : testing_support::reference_machines()) expect_same_as_oracle(m, name);
    for (std::uint64_t seed = 1; seed <= 500; ++seed) {
        const Typestate ts =
            testing_support::random_typestate(1 + seed % 30, 1 + seed % 4, seed % 3, seed);
        const MealyMachine closure = synchronous_closure(ts);
        expect_same_as_oracle(closure, "typestate seed " + std::to_string(seed));
        if (HasFatalFailure()) return;
    }
}

// canonical(Typestate) is a deterministic function of minimize(closure, callins-then-wait order),
// so the specs' canonical forms (what typestar writes for them) cannot change while minimize agrees.
TEST(PartitionOracle, AgreesOnTheShippedSpecs) {
    const std::filesystem::path root = TYPESTAR_SOURCE_DIR;
    std::size_t checked = 0;
    for (const auto& dir : {root / "specs", root / "specs" / "targets"}) {
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() != ".yaml") continue;
            std::ifstream in(entry.path(), std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            const spec::Spec s = spec::parse_spec(text.str(), entry.path().string());
            const MealyMachine closure = synchronous_closure(s.typestate);
            std::vector<Symbol> order(closure.num_inputs());
            for (Symbol i = 0; i < order.size(); ++i) order[i] = i;
            expect_same_as_oracle(closure, entry.path().string(), order);
            expect_same_as_oracle(closure, entry.path().string() + " (inputs by name)");
            const std::string canonical_text = spec::write_spec(s);
            EXPECT_EQ(spec::write_spec(spec::parse_spec(canonical_text, "again.yaml")), canonical_text);
            ++checked;
        }
    }
    EXPECT_GE(checked, 8u);
}

TEST(PartitionOracle, CounterImportKeepsItsBound) {
    // The counter: `inc` moves up, refused in the last state; bound n - 1.
    std::string dot = "digraph counter {\n";
    const std::size_t n = 400;
    for (std::size_t i = 0; i < n; ++i) {
        const std::string s = "c" + std::to_string(i);
        dot += s + " -> " + (i + 1 < n ? "c" + std::to_string(i + 1) + " [label=\"inc/ok\"]" : "__err [label=\"inc/err\"]") + ";\n";
        dot += s + " -> " + s + " [label=\"wait/quiet\"];\n";
    }
    dot += "__err -> __err [label=\"inc/err\"];\n__err -> __err [label=\"wait/err\"];\n__start0 -> c0;\n}\n";
    const MealyMachine closure = spec::parse_mealy_dot(dot, "counter.dot");
    expect_same_as_oracle(closure, "counter");
    const spec::Spec s = spec::spec_of_mealy(closure, "counter");
    EXPECT_EQ(s.bounds.distinguisher, n - 1);
    EXPECT_EQ(s.typestate.states.size(), n);
}

TEST(SpecOfMealy, TheBoundIsAtLeastOneEvenForOneState) {
    // One state, nothing refused: the minimal closure has one state (distinguisher bound 0), but a
    // spec's bound is at least 1 (Algorithm 2 then still checks every transition's output).
    const std::string dot =
        "digraph one {\n  s0 -> s0 [label=\"go/ok\"];\n  s0 -> s0 [label=\"wait/quiet\"];\n"
        "  __start0 -> s0;\n}\n";
    const MealyMachine closure = spec::parse_mealy_dot(dot, "one.dot");
    ASSERT_EQ(distinguisher_bound(minimize(closure)), std::optional<std::size_t>{0});
    const spec::Spec s = spec::spec_of_mealy(closure, "One");
    EXPECT_EQ(s.bounds.distinguisher, 1u);
    EXPECT_EQ(s.typestate.states.size(), 1u);
}

}  // namespace
}  // namespace typestar
