// The observation table alone: cells, closedness, BuildMM, padded queries.
#include <gtest/gtest.h>

#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/learn/lstar.hpp"
#include "typestar/learn/observation_table.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

TEST(ObservationTable, StartsWithEpsilonAndTheSingleInputs) {
    ObservationTable table(3);
    EXPECT_EQ(table.num_states(), 1u);
    EXPECT_EQ(table.num_rows(), 4u);  // ε and its three extensions
    EXPECT_EQ(table.suffixes(), (std::vector<Word>{{0}, {1}, {2}}));
    EXPECT_EQ(table.access_sequences(), (std::vector<Word>{{}}));
    EXPECT_FALSE(table.add_suffix({1}));
    EXPECT_TRUE(table.add_suffix({1, 2}));
    EXPECT_TRUE(table.has_suffix({1, 2}));
    EXPECT_THROW((void)table.add_suffix({}), std::invalid_argument);
    EXPECT_THROW(ObservationTable(0), std::invalid_argument);
}

void close(ObservationTable& table, MembershipOracle& oracle) {
    table.fill(oracle);
    for (auto open = table.unclosed(); !open.empty(); open = table.unclosed()) {
        for (auto r : open) table.promote(r);
        table.fill(oracle);
    }
}

TEST(ObservationTable, SingleInputsDoNotSeparateTheCombinationLock) {
    // With E = {a, b} every state but L2 answers `locked` to both inputs: one short of the lock.
    const MealyMachine lock = testing_support::combination_lock();
    ModelDevice device(lock);
    OracleStack stack(device);
    ObservationTable table(lock.num_inputs());
    close(table, stack.oracle());
    const MealyMachine h = table.hypothesis(lock.inputs(), lock.outputs());
    EXPECT_EQ(h.num_states(), table.num_states());
    EXPECT_LT(h.num_states(), lock.num_states());
    EXPECT_TRUE(separating_word(h, lock).has_value());
    // Every cell is the suffix of a real answer: the hypothesis agrees with the lock on row·input.
    for (const Word& access : table.access_sequences())
        for (Symbol a = 0; a < lock.num_inputs(); ++a) {
            Word w = access;
            w.push_back(a);
            EXPECT_EQ(h.outputs_of(w), lock.outputs_of(w));
        }
}

TEST(ObservationTable, SeparatingSuffixesGiveTheExactMachine) {
    for (const auto& [name, machine] : testing_support::reference_machines()) {
        ModelDevice device(machine);
        OracleStack stack(device);
        ObservationTable table(machine.num_inputs());
        for (const Word& e : separating_suffixes(machine)) table.add_suffix(e);
        close(table, stack.oracle());
        const MealyMachine h = table.hypothesis(machine.inputs(), machine.outputs());
        EXPECT_EQ(h.num_states(), machine.num_states()) << name;
        EXPECT_FALSE(separating_word(h, machine).has_value()) << name;
    }
}

TEST(ObservationTable, AccessSequencesReachTheirStates) {
    const MealyMachine coffee = testing_support::coffee_machine();
    ModelDevice device(coffee);
    OracleStack stack(device);
    ObservationTable table(coffee.num_inputs());
    table.fill(stack.oracle());
    for (auto open = table.unclosed(); !open.empty(); open = table.unclosed()) {
        for (auto r : open) table.promote(r);
        table.fill(stack.oracle());
    }
    const MealyMachine h = table.hypothesis(coffee.inputs(), coffee.outputs());
    const auto access = table.access_sequences();
    ASSERT_EQ(access.size(), h.num_states());
    EXPECT_TRUE(access[0].empty());
    for (StateId s = 0; s < access.size(); ++s) {
        EXPECT_EQ(h.run(access[s]), s);
        EXPECT_EQ(table.state_of(table.successor_row(s, 0)), h.successor(s, 0));
    }
}

TEST(ObservationTable, PaddedCellsAskOneMoreInputForNoMoreRuns) {
    // Cells of rows outside SQ are asked as row·e·pad: the padded words are known afterwards, and
    // the number of runs is the same as without padding.
    const MealyMachine coffee = testing_support::coffee_machine();
    const Symbol pad = coffee.inputs().at("clean");
    ModelDevice device(coffee), device2(coffee);
    OracleStack padded(device), plain(device2);
    ObservationTable a(coffee.num_inputs()), b(coffee.num_inputs());
    a.fill(padded.oracle(), pad);
    b.fill(plain.oracle());
    EXPECT_EQ(padded.stats().total().queries_executed, plain.stats().total().queries_executed);
    EXPECT_GT(padded.stats().total().symbols_executed, plain.stats().total().symbols_executed);
    for (Symbol row = 0; row < coffee.num_inputs(); ++row)
        for (Symbol e = 0; e < coffee.num_inputs(); ++e) {
            const Word w{row, e, pad};
            Word out(w.size());
            EXPECT_TRUE(padded.oracle().lookup(w, out));
            EXPECT_EQ(out, coffee.outputs_of(w));
            EXPECT_FALSE(plain.oracle().lookup(w, out));
        }
    // Both tables hold the same cells.
    EXPECT_EQ(a.unclosed().size(), b.unclosed().size());
}

}  // namespace
}  // namespace typestar
