#include "typestar/core/mealy.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace typestar {
namespace {

MealyMachine toggle() {
    MealyBuilder b(Alphabet({"flip", "read"}), Alphabet({"ok", "on", "off"}));
    const auto off = b.add_state("Off");
    const auto on = b.add_state("On");
    b.set_transition(off, 0, on, 0);
    b.set_transition(on, 0, off, 0);
    b.set_transition(off, 1, off, 2);
    b.set_transition(on, 1, on, 1);
    return b.build();
}

TEST(MealyMachine, RunsWordsFromTheInitialState) {
    const auto m = toggle();
    EXPECT_EQ(m.num_states(), 2u);
    EXPECT_EQ(m.num_inputs(), 2u);
    EXPECT_EQ(m.outputs_of({1, 0, 1, 0, 1}), (Word{2, 0, 1, 0, 2}));
    EXPECT_EQ(m.run({0}), 1u);
    EXPECT_EQ(m.state_name(1), "On");
    EXPECT_EQ(m.outputs_of({1}, 1), (Word{1}));
}

TEST(MealyMachine, RejectsInconsistentTables) {
    Alphabet in({"a"}), out({"x"});
    EXPECT_THROW(MealyMachine(in, out, 0, {{1, 0}}), std::invalid_argument);       // target out of range
    EXPECT_THROW(MealyMachine(in, out, 0, {{0, 4}}), std::invalid_argument);       // output out of range
    EXPECT_THROW(MealyMachine(in, out, 2, {{0, 0}}), std::invalid_argument);       // initial out of range
    EXPECT_THROW(MealyMachine(in, out, 0, {{0, 0}, {0, 0}}, {"a", "a"}), std::invalid_argument);
    EXPECT_THROW(MealyMachine(Alphabet{}, out, 0, {}), std::invalid_argument);
}

TEST(MealyBuilder, NamesTheFirstMissingTransition) {
    MealyBuilder b(Alphabet({"a", "b"}), Alphabet({"x"}));
    const auto s = b.add_state("Idle");
    b.set_transition(s, 0, s, 0);
    try {
        (void)b.build();
        FAIL() << "incomplete machine built";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "state Idle has no transition on input 'b'");
    }
}

TEST(MealyBuilder, GrowsTheTableWhenInputsAreInterned) {
    MealyBuilder b(Alphabet({"a"}), Alphabet({"x", "y"}));
    const auto s0 = b.add_state();
    const auto s1 = b.add_state();
    b.set_transition(s0, 0, s1, 0);
    b.set_transition(s1, 0, s0, 1);
    const Symbol c = b.inputs().intern("c");
    b.set_transition(s0, c, s0, 1);
    b.set_transition(s1, c, s1, 0);
    const auto m = b.build();
    EXPECT_EQ(m.outputs_of({1, 0, 1, 0}), (Word{1, 0, 0, 1}));
    EXPECT_FALSE(m.has_state_names());
    EXPECT_EQ(m.state_name(1), "s1");
}

}  // namespace
}  // namespace typestar
