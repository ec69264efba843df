// The one guard language (issue 28 item 5; docs/spec-format-v2.md, "Guards"): parser, printer and
// evaluator shared by partition guards and register-automaton guards.
#include "typestar/core/guard.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace typestar {
namespace {

/// Names `a`, `b` are parameters 0 and 1.
std::optional<Term> two_parameters(const std::string& name) {
    if (name == "a") return Term{Term::Kind::Param, 0};
    if (name == "b") return Term{Term::Kind::Param, 1};
    if (name == "trueness") return Term{Term::Kind::Param, 2};
    return std::nullopt;
}

bool holds(const std::string& text, std::vector<std::int64_t> values) {
    const auto parsed = parse_guard(text, two_parameters);
    EXPECT_TRUE(std::holds_alternative<Guard>(parsed)) << text;
    if (!std::holds_alternative<Guard>(parsed)) return false;
    return evaluate_guard(std::get<Guard>(parsed), [&](const Term& t) {
        return t.kind == Term::Kind::Literal ? t.literal : values.at(t.index);
    });
}

TEST(Guard, EvaluatesComparisonsOffsetsAndPrecedence) {
    EXPECT_TRUE(holds("a < b && a != 3 || b == 7", {1, 2, 0}));
    EXPECT_FALSE(holds("a < b && a != 3 || b == 7", {3, 4, 0}));
    EXPECT_TRUE(holds("a < b && a != 3 || b == 7", {3, 7, 0}));   // && binds tighter
    EXPECT_TRUE(holds("a == b + 1", {5, 4, 0}));
    EXPECT_TRUE(holds("a - 2 >= -1", {1, 0, 0}));
    EXPECT_TRUE(holds("true", {0, 0, 0}));
    EXPECT_TRUE(holds("a <= 0 || true", {9, 0, 0}));
}

TEST(Guard, TrueIsAWholeWordNotThePrefixOfAName) {
    // Before: `trueness` was read as `true` followed by `ness`, a syntax error.
    EXPECT_TRUE(holds("trueness > 1", {0, 0, 2}));
    EXPECT_FALSE(holds("trueness > 1", {0, 0, 1}));
    EXPECT_EQ(guard_names("trueness > 1 && true"), (std::vector<std::string>{"trueness"}));
}

TEST(Guard, NamesOfATextThatParsesElseNothing) {
    EXPECT_EQ(guard_names("len > 0 && x.y != len + 2 || z == 1"),
              (std::vector<std::string>{"len", "x.y", "z"}));
    EXPECT_EQ(guard_names("true"), std::vector<std::string>{});
    EXPECT_FALSE(guard_names("snk is an unconnected PipedInputStream").has_value());
    EXPECT_FALSE(guard_names("0 <= v <= 99").has_value());
    EXPECT_FALSE(guard_names("any length; answers err at the end of connect[any.ok] write[any]").has_value());
}

TEST(Guard, PrintsWhatItParses) {
    for (const std::string text : {"a < b && a != 3 || b == 7", "a == b + 1", "a - 2 >= -1", "true"}) {
        const auto parsed = parse_guard(text, two_parameters);
        ASSERT_TRUE(std::holds_alternative<Guard>(parsed)) << text;
        EXPECT_EQ(guard_text(std::get<Guard>(parsed), [](const Term& t) { return t.index == 0 ? "a" : "b"; }), text);
    }
    EXPECT_EQ(guard_text(Guard{{}}, [](const Term&) { return "?"; }), "false");
}

TEST(Guard, TreatmentsHaveOneNameEach) {
    EXPECT_STREQ(abstraction_name(Abstraction::Partition), "partition");
    EXPECT_STREQ(abstraction_name(Abstraction::Data), "data");
    EXPECT_EQ(abstraction_named("data"), Abstraction::Data);
    EXPECT_EQ(abstraction_named("partition"), Abstraction::Partition);
    EXPECT_FALSE(abstraction_named("Data").has_value());
}

}  // namespace
}  // namespace typestar
