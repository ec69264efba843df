// The generalised Algorithm 2 for register automata (issue 18): it passes the truth, every kill is
// a genuine difference (replayed), and every survivor agrees with the truth on every data word up
// to a depth (an exhaustive check of one word per data class).
#include "typestar/ra/suite.hpp"

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

}  // namespace
}  // namespace typestar::ra
