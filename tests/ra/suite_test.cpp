// The generalised Algorithm 2 for register automata (issue 18): it passes the truth, every kill is
// a genuine difference (replayed), and every survivor agrees with the truth on every data word up
// to a depth (an exhaustive check of one word per data class).
#include "typestar/ra/suite.hpp"
#include "typestar/ra/oracle.hpp"
#include "typestar/ra/format.hpp"

#include <gtest/gtest.h>

#include <iostream>

#include "ra_fixtures.hpp"

namespace typestar::ra {
namespace {

/// Guard mutants (two guards of one location and input exchanged; one comparison operator
/// changed) and assignment mutants (one register assigned another term of its type). Only valid
/// (deterministic, complete) mutants are returned.
std::vector<std::pair<std::string, RegisterAutomaton>> mutants(const RegisterAutomaton& ra) {
    std::vector<std::pair<std::string, RegisterAutomaton>> out;
    auto add = [&](std::string what, RegisterAutomaton m) {
        if (validate(m).empty()) out.emplace_back(std::move(what), std::move(m));
    };
    for (std::size_t li = 0; li < ra.locations.size(); ++li) {
        const Location& l = ra.locations[li];
        for (std::size_t ti = 0; ti < l.transitions.size(); ++ti) {
            const Transition& t = l.transitions[ti];
            const std::string where = l.name + "/" + input_text(ra, t) + "#" + std::to_string(ti);
            for (std::size_t tj = ti + 1; tj < l.transitions.size(); ++tj) {
                if (l.transitions[tj].input != t.input) continue;
                RegisterAutomaton m = ra;
                std::swap(m.locations[li].transitions[ti].guard, m.locations[li].transitions[tj].guard);
                add("guards swapped " + where + "<->#" + std::to_string(tj), std::move(m));
            }
            for (std::size_t d = 0; d < t.guard.disjuncts.size(); ++d)
                for (std::size_t a = 0; a < t.guard.disjuncts[d].size(); ++a)
                    for (Op op : {Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge}) {
                        if (op == t.guard.disjuncts[d][a].op) continue;
                        RegisterAutomaton m = ra;
                        m.locations[li].transitions[ti].guard.disjuncts[d][a].op = op;
                        add(std::string("guard op ") + op_text(op) + " " + where, std::move(m));
                    }
            const Location& to = ra.locations[t.target];
            for (std::size_t r = 0; r < t.assign.size(); ++r) {
                std::vector<Term> sources;
                for (std::size_t p = 0; p < ra.inputs[t.input].params.size(); ++p)
                    if (ra.inputs[t.input].params[p].type == to.registers[r].type) sources.push_back({Term::Kind::Param, p});
                for (std::size_t q = 0; q < l.registers.size(); ++q)
                    if (l.registers[q].type == to.registers[r].type) sources.push_back({Term::Kind::Register, q});
                for (std::size_t k = 0; k < t.output_args.size(); ++k)
                    if (t.output_args[k].fresh && ra.outputs[t.output].params[k].type == to.registers[r].type)
                        sources.push_back({Term::Kind::OutputParam, k});
                for (const Term& s : sources) {
                    if (s == t.assign[r]) continue;
                    RegisterAutomaton m = ra;
                    m.locations[li].transitions[ti].assign[r] = s;
                    add("assign " + to.registers[r].name + " " + where, std::move(m));
                }
            }
        }
    }
    return out;
}

void kills_every_distinguishable_mutant(const RegisterAutomaton& truth, std::size_t depth, std::size_t min_killed) {
    {
        SimulatorSul same(truth);
        const auto r = check_register_automaton(truth, same);
        EXPECT_FALSE(r.counterexample) << r.summary();
        EXPECT_NE(r.summary().find("no difference found up to the bound"), std::string::npos);
    }
    std::size_t killed = 0, equivalent = 0;
    for (const auto& [what, mutant] : mutants(truth)) {
        SimulatorSul device(mutant);
        const auto r = check_register_automaton(truth, device, RaSuiteConfig{2, 10000});
        if (r.counterexample) {
            // a kill must be a genuine difference: replay the word on the mutant and the truth
            RaSimulator sim(mutant);
            const DataWord out = sim.run(r.counterexample->inputs);
            LockstepCheck check(truth);
            std::string why;
            for (std::size_t i = 0; i < out.size() && why.empty(); ++i) why = check.step(r.counterexample->inputs[i], out[i]);
            EXPECT_FALSE(why.empty()) << what << ": the suite's counterexample is not a difference";
            ++killed;
            continue;
        }
        // a survivor must be equivalent on every data word up to `depth` steps
        SimulatorSul again(mutant);
        DataOracle oracle(again, mutant);
        const auto cex = find_difference(oracle, truth, {}, depth);
        EXPECT_FALSE(cex.has_value()) << truth.name << ": mutant survives: " << what << " on "
                                      << format_word(truth, cex->inputs, cex->outputs);
        ++equivalent;
    }
    EXPECT_GE(killed, min_killed) << equivalent << " equivalent";
    std::cout << truth.name << ": " << killed << " mutants killed, " << equivalent << " equivalent up to depth " << depth << "\n";
}

TEST(RaSuite, KillsPriorityQueueMutants) { kills_every_distinguishable_mutant(testing::priority_queue2(), 5, 10); }
TEST(RaSuite, KillsKeyStoreMutants) { kills_every_distinguishable_mutant(testing::key_store(), 4, 14); }
TEST(RaSuite, KillsLoginMutants) { kills_every_distinguishable_mutant(testing::login(), 3, 35); }
// Issue 38, item 4: RALib's login acceptor (a sink, an equality pair): the symbolic suite kills every
// mutant the exhaustive words up to 4 steps tell apart.
TEST(RaSuite, KillsRalibLoginMutants) {
    kills_every_distinguishable_mutant(
        load_register_spec(std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/ralib_login.yaml").automaton, 4, 15);
}

// Issue 39 (a surviving mutant): a `fresh` output must be a value the run has not seen, inputs
// included. The key store answers put(v) with key(fresh): a device that answers with the value it
// was just given (key(v)) does not conform, whatever it does next; one that answers a new value does,
// and that value then stands for the spec's key.
TEST(RaLockstep, AFreshOutputMustDifferFromEveryValueSeenIncludingInputs) {
    const RegisterAutomaton spec = testing::key_store();
    LockstepCheck echo(spec);
    const std::string why = echo.step(DataSymbol{0, {7}}, DataSymbol{0, {7}});  // put(7) / key(7)
    EXPECT_NE(why.find("with a fresh value"), std::string::npos) << why;
    EXPECT_NE(why.find("7 was seen before"), std::string::npos) << why;

    LockstepCheck good(spec);
    EXPECT_EQ(good.step(DataSymbol{0, {7}}, DataSymbol{0, {100}}), "");  // put(7) / key(100)
    EXPECT_EQ(good.step(DataSymbol{1, {100}}, DataSymbol{1, {7}}), "");  // get(100) / val(7)
    // After a reset the run starts afresh: 7 is no longer a seen value.
    echo.reset();
    EXPECT_EQ(echo.step(DataSymbol{0, {8}}, DataSymbol{0, {7}}), "");
}

TEST(RaSuite, ReportsTheDifferingWord) {
    RegisterAutomaton wrong = testing::priority_queue2();
    wrong.locations[2].transitions[1].output_args[0].term = Term{Term::Kind::Register, 1};  // poll returns the largest
    SimulatorSul device(wrong);
    const auto r = check_register_automaton(testing::priority_queue2(), device);
    ASSERT_TRUE(r.counterexample);
    EXPECT_EQ(r.counterexample->inputs.back().symbol, 1U);  // a poll
    EXPECT_NE(r.summary().find("expected out("), std::string::npos) << r.summary();
}

TEST(RaSuite, SeparatingWordIsShortest) {
    RegisterAutomaton wrong = testing::priority_queue2();
    wrong.locations[2].transitions[1].output_args[0].term = Term{Term::Kind::Register, 1};  // poll returns the largest
    const auto cex = separating_word(testing::priority_queue2(), wrong, 5);
    ASSERT_TRUE(cex);
    ASSERT_EQ(cex->inputs.size(), 3U);  // offer offer poll, with different values
    EXPECT_NE(cex->inputs[0].values, cex->inputs[1].values);
    EXPECT_FALSE(separating_word(testing::priority_queue2(), testing::priority_queue2(), 4));
}

/// Issue 28: the equivalence search guided by the hypothesis (search_difference without random
/// words: every word of up to `depth` steps in the classes of the hypothesis's guards and the last
/// step's values) finds a counterexample for every wrong hypothesis (a mutant of the truth) on which
/// the old search (every word of up to `depth` steps in every class relative to every value of the
/// word) found one, and runs fewer words in total.
void guided_search_finds_what_the_exhaustive_search_found(const RegisterAutomaton& truth, std::size_t depth,
                                                          std::size_t min_found) {
    std::size_t found = 0;
    std::uint64_t guided_executed = 0, exhaustive_executed = 0;
    for (const auto& [what, mutant] : mutants(truth)) {
        SimulatorSul device(truth), device2(truth);
        DataOracle exhaustive(device, truth), guided(device2, truth);
        const auto old_cex = find_difference(exhaustive, mutant, {}, depth);
        RaSearchConfig config;
        config.depth = depth;
        config.random_words = 0;  // the guided words alone
        const auto cex = search_difference(guided, mutant, {}, config);
        exhaustive_executed += exhaustive.stats().total().queries_executed;
        guided_executed += guided.stats().total().queries_executed;
        if (!old_cex) continue;
        ++found;
        ASSERT_TRUE(cex) << truth.name << ": the guided search misses " << what << ", found by the old one on "
                         << format_word(truth, old_cex->inputs, old_cex->outputs);
        // a genuine difference: the hypothesis (the mutant) and the device (the truth) disagree on it
        RaSimulator sim(truth);
        const DataWord out = sim.run(cex->inputs);
        LockstepCheck check(mutant);
        std::string why;
        for (std::size_t i = 0; i < out.size() && why.empty(); ++i) why = check.step(cex->inputs[i], out[i]);
        EXPECT_FALSE(why.empty()) << what;
    }
    EXPECT_GE(found, min_found);
    EXPECT_LT(guided_executed, exhaustive_executed) << truth.name;
    std::cout << truth.name << ": " << found << " wrong hypotheses found; " << guided_executed << " words (guided) vs "
              << exhaustive_executed << " (every class)\n";
}

TEST(RaSearch, GuidedWordsFindEveryLoginMutantTheOldSearchFound) {
    guided_search_finds_what_the_exhaustive_search_found(testing::login(), 3, 17);
}
TEST(RaSearch, GuidedWordsFindEveryKeyStoreMutantTheOldSearchFound) {
    guided_search_finds_what_the_exhaustive_search_found(testing::key_store(), 3, 14);
}
TEST(RaSearch, GuidedWordsFindEveryPriorityQueueMutantTheOldSearchFound) {
    guided_search_finds_what_the_exhaustive_search_found(testing::priority_queue2(), 4, 8);
}

/// A device that records every input it is given (and simulates `ra`).
class RecordingSul final : public DataSul {
public:
    explicit RecordingSul(const RegisterAutomaton& ra) : sim_(ra) {}
    void reset() override {
        sim_.reset();
        log_.push_back({});
    }
    DataSymbol step(const DataSymbol& in) override {
        log_.back().push_back(in);
        return sim_.step(in);
    }
    std::vector<DataWord> log_;

private:
    RaSimulator sim_;
};

TEST(RaSearch, SameSeedSameQueriesAndEachRandomWordIsOneDeviceRun) {
    // Determinism: the same answers and seed give the same words, byte for byte; another seed other
    // random words. The hypothesis is the truth, so every guided and random word runs.
    const RegisterAutomaton truth = testing::login();
    auto run = [&](std::uint64_t seed) {
        RecordingSul device(truth);
        DataOracle oracle(device, truth);
        RaSearchConfig config;
        config.seed = seed;
        EXPECT_FALSE(search_difference(oracle, truth, {}, config));
        EXPECT_EQ(oracle.stats().total().queries_executed, device.log_.size());
        return device.log_;
    };
    const auto a = run(7), b = run(7), c = run(8);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    // the random words (at least min_words of them, up to 12 steps): one reset each, not one per step
    std::size_t long_runs = 0;
    for (const auto& word : a) long_runs += word.size() > 3 ? 1 : 0;
    EXPECT_GT(long_runs, 50U);
    EXPECT_LT(a.size(), 400U) << "login's guided words and 100 random words";
}

TEST(RaSearch, RandomWalkAsRalibRunsItIsSeededEndsWordsAtRandomAndFindsWrongLoginHypotheses) {
    // RALib's random walk (its learning tests' equivalence): the same seed gives the same words;
    // every word has 1..max_depth steps, shorter ones common (stop probability 0.1); one query per
    // word, none executed when the cache answers it.
    const RegisterAutomaton truth = testing::login();
    auto run = [&](std::uint64_t seed) {
        RecordingSul device(truth);
        DataOracle oracle(device, truth);
        EXPECT_FALSE(random_walk_difference(oracle, truth, RaRandomWalkConfig{200, 6, 0.1, 0.1, seed}));
        EXPECT_EQ(oracle.stats().total().queries_executed, device.log_.size());
        EXPECT_EQ(oracle.stats().total().queries_asked, 200U);
        return device.log_;
    };
    const auto a = run(3), b = run(3), c = run(4);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    std::size_t shorter = 0;
    for (const auto& word : a) {
        EXPECT_GE(word.size(), 1U);
        EXPECT_LE(word.size(), 6U);
        shorter += word.size() < 6 ? 1 : 0;
    }
    EXPECT_GT(shorter, 10U);
    EXPECT_LT(a.size(), 200U) << "words the cache answers execute nothing";
    // as an equivalence search: it finds two thirds of the wrong hypotheses (mutants of the truth) of login, and
    // each difference it reports is genuine
    std::size_t found = 0, wrong = 0;
    for (const auto& [what, mutant] : mutants(truth)) {
        SimulatorSul exhaustive_device(truth), device(truth);
        DataOracle exhaustive(exhaustive_device, truth), oracle(device, truth);
        if (!find_difference(exhaustive, mutant, {}, 3)) continue;
        ++wrong;
        const auto cex = random_walk_difference(oracle, mutant, RaRandomWalkConfig{1000, 6, 0.1, 0.1, 0});
        if (!cex) continue;
        ++found;
        RaSimulator sim(truth);
        const DataWord out = sim.run(cex->inputs);
        LockstepCheck check(mutant);
        std::string why;
        for (std::size_t i = 0; i < out.size() && why.empty(); ++i) why = check.step(cex->inputs[i], out[i]);
        EXPECT_FALSE(why.empty()) << what;
    }
    EXPECT_GE(wrong, 17U);
    EXPECT_GE(found * 3, wrong * 2) << found << " of " << wrong << " wrong hypotheses found";
}

TEST(RaSearch, RandomWalkWordsAreTheWordsTheWalkAsksInOrder) {
    // the walk's words depend on no answer: drawn alone (a search that compares only whole-word answers,
    // as RALib's walk does, draws the same words), they are exactly the walk's queries, in order
    const RegisterAutomaton truth = testing::login();
    const RaRandomWalkConfig config{200, 6, 0.1, 0.1, 5};
    const std::vector<DataWord> words = random_walk_words(truth, config);
    ASSERT_EQ(words.size(), 200U);
    EXPECT_EQ(random_walk_words(truth, config), words);
    RecordingSul device(truth);
    DataOracle oracle(device, truth);
    EXPECT_FALSE(random_walk_difference(oracle, truth, config));
    std::vector<DataWord> first_asked;  // the device runs each word the cache cannot answer, once
    for (const auto& word : words) {
        bool answered = false;
        for (const auto& seen : first_asked)
            answered = answered || (seen.size() >= word.size() && std::equal(word.begin(), word.end(), seen.begin()));
        if (!answered) first_asked.push_back(word);
    }
    EXPECT_EQ(device.log_, first_asked);
}

/// A FIFO of up to three `int` values whose guards never order (RALib's fifo models type their data
/// `int` and compare nothing): put(p) stores, get answers the oldest.
std::string int_fifo3() {
    return "typestar: 2\nkind: register-automaton\nname: fifo3\ncallins: [\"put(p: int)\", get]\n"
           "returns: [ok, nok, \"out(v: int)\"]\ninitial: l0\nlocations:\n"
           "  l0:\n    registers: []\n    transitions:\n"
           "      - {input: \"put(p)\", output: ok, assign: {r1: p}, to: l1}\n"
           "      - {input: get, output: nok, to: l0}\n"
           "  l1:\n    registers: [r1]\n    transitions:\n"
           "      - {input: \"put(p)\", output: ok, assign: {r1: r1, r2: p}, to: l2}\n"
           "      - {input: get, output: \"out(r1)\", to: l0}\n"
           "  l2:\n    registers: [r1, r2]\n    transitions:\n"
           "      - {input: \"put(p)\", output: ok, assign: {r1: r1, r2: r2, r3: p}, to: l3}\n"
           "      - {input: get, output: \"out(r1)\", assign: {r1: r2}, to: l1}\n"
           "  l3:\n    registers: [r1, r2, r3]\n    transitions:\n"
           "      - {input: \"put(p)\", output: nok, assign: {r1: r1, r2: r2, r3: r3}, to: l3}\n"
           "      - {input: get, output: \"out(r1)\", assign: {r1: r2, r2: r3}, to: l2}\n";
}

// Issue 38, item 4: a spec whose guards never order `int` data tells their values apart only by
// equality, so the suite explores (location, register equality type) pairs — 1 + 1 + 2 + 5 for three
// registers — where it explored every order type before (1 + 1 + 3 + 13), and still catches a FIFO
// that answers the newest value.
TEST(RaSymbolicSuite, AnEqualityOnlyIntSpecExploresEqualityTypes) {
    const RegisterAutomaton fifo = parse_register_spec(int_fifo3(), "fifo3.yaml").automaton;
    SimulatorSul same(fifo);
    const RaSuiteResult r = check_register_automaton(fifo, same, RaSuiteConfig{2});
    EXPECT_FALSE(r.counterexample) << r.summary();
    EXPECT_EQ(r.states, 9U);
    RegisterAutomaton lifo = fifo;
    lifo.locations[2].transitions[1].output_args[0].term = Term{Term::Kind::Register, 1};  // get answers the newest
    lifo.locations[2].transitions[1].assign[0] = Term{Term::Kind::Register, 0};
    ASSERT_TRUE(validate(lifo).empty()) << validate(lifo).front();
    SimulatorSul wrong(lifo);
    const RaSuiteResult kill = check_register_automaton(fifo, wrong, RaSuiteConfig{2});
    ASSERT_TRUE(kill.counterexample) << kill.summary();
    EXPECT_NE(kill.counterexample->reason.find("expected out("), std::string::npos) << kill.counterexample->reason;
}

/// Counts the device's runs (resets).
class CountingSul final : public DataSul {
public:
    explicit CountingSul(const RegisterAutomaton& ra) : sim_(ra) {}
    void reset() override {
        ++runs;
        sim_.reset();
    }
    DataSymbol step(const DataSymbol& in) override { return sim_.step(in); }
    std::size_t runs = 0;

private:
    RaSimulator sim_;
};

// Issue 38, item 4: the words after each transition share their prefixes: the device runs each
// longest word once and answers every prefix of it from that run. A one-location spec with two
// inputs and no data at B = 2: the exploration runs a and b, then the 2^3 words of three steps —
// before, every prefix of them was one more run (2 + 4 + 8).
TEST(RaSymbolicSuite, TheStepsAfterEachTransitionShareTheirPrefixes) {
    RegisterAutomaton ab;
    ab.name = "ab";
    ab.inputs = {{"a", {}}, {"b", {}}};
    ab.outputs = {{"ok", {}}};
    ab.locations.push_back({"l0", {}, {{0, Guard{}, 0, {}, 0, {}}, {1, Guard{}, 0, {}, 0, {}}}});
    ASSERT_TRUE(validate(ab).empty()) << validate(ab).front();
    CountingSul device(ab);
    const RaSuiteResult r = check_register_automaton(ab, device, RaSuiteConfig{2});
    EXPECT_FALSE(r.counterexample) << r.summary();
    EXPECT_EQ(r.words, 2U + 8U);
    EXPECT_EQ(device.runs, r.words);
}

// The summary names the states the suite explored: order types for a spec whose guards order
// data, equality types for one that compares data only for equality.
TEST(RaSuite, SummaryNamesTheTypeOfItsStates) {
    const RegisterAutomaton ordered = testing::priority_queue2();
    SimulatorSul ordered_device(ordered);
    const auto by_order = check_register_automaton(ordered, ordered_device, RaSuiteConfig{2, kMaxSuiteStates});
    EXPECT_TRUE(by_order.ordered);
    EXPECT_NE(by_order.summary().find("(location, register order type) states"), std::string::npos) << by_order.summary();

    const RegisterAutomaton equality = testing::key_store();
    SimulatorSul equality_device(equality);
    const auto by_equality = check_register_automaton(equality, equality_device, RaSuiteConfig{2, kMaxSuiteStates});
    EXPECT_FALSE(by_equality.ordered);
    EXPECT_NE(by_equality.summary().find("(location, register equality type) states"), std::string::npos)
        << by_equality.summary();
}

/// A class that compares its data with a value its signature does not declare (Node's EventEmitter
/// refuses setMaxListeners(n) below 0): a spec whose signature lacks the constant cannot say so, and
/// one value per data class would pass it. The suite moves its words' values (keeping their order)
/// and fails loudly, naming both words, instead of a verdict; with the constant declared it passes,
/// and a class that only compares its data with each other passes moved words.
TEST(RaSuite, ADeviceComparingWithAnUndeclaredConstantIsNoVerdict) {
    const std::string head = "typestar: 2\nkind: register-automaton\nname: Limit\ncallins: [\"set(n: int)\"]\n"
                             "callbacks: []\nreturns: [ok, range]\n";
    const RaSpec truth = parse_register_spec(head + "constants: {zero: 0}\ninitial: l0\nlocations:\n  l0:\n"
                                                    "    registers: []\n    transitions:\n"
                                                    "      - {input: \"set(n)\", guard: \"n < zero\", output: range, to: l0}\n"
                                                    "      - {input: \"set(n)\", guard: \"n >= zero\", output: ok, to: l0}\n",
                                             "truth.yaml");
    const RaSpec unaware = parse_register_spec(head + "constants: {}\ninitial: l0\nlocations:\n  l0:\n    registers: []\n"
                                                      "    transitions:\n      - {input: \"set(n)\", output: ok, to: l0}\n",
                                               "unaware.yaml");
    SimulatorSul device(truth.automaton);
    try {
        (void)check_register_automaton(unaware.automaton, device);
        FAIL() << "a verdict on a device that compares with an undeclared constant";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("does not compare its data only as the signature says"), std::string::npos) << m;
        EXPECT_NE(m.find("set(0)/ok"), std::string::npos) << m;
        EXPECT_NE(m.find("set(-16777216)/range"), std::string::npos) << m;
        EXPECT_NE(m.find("declare that value as a constant"), std::string::npos) << m;
    }
    // One transition's test relies on the same assumption: no verdict either.
    SimulatorSul device2(truth.automaton);
    DataOracle oracle(device2, unaware.automaton);
    EXPECT_THROW((void)check_register_transition(unaware.automaton, oracle, 0, 0, {}), Error);
    // The signature with the constant: the moved words keep their order against it, and it passes.
    SimulatorSul device3(truth.automaton);
    EXPECT_FALSE(check_register_automaton(truth.automaton, device3).counterexample);
    // A class comparing its data only with each other passes moved words (the priority queue).
    SimulatorSul queue(testing::priority_queue2());
    EXPECT_FALSE(check_register_automaton(testing::priority_queue2(), queue).counterexample);
}

}  // namespace
}  // namespace typestar::ra
