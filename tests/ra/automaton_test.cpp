// The register-automaton model: guards, the simulator, validation (issue 18, SL*).
#include "typestar/ra/automaton.hpp"

#include <gtest/gtest.h>

#include "ra_fixtures.hpp"

namespace typestar::ra {
namespace {

TEST(RaGuard, ParsesPrecedenceAndNames) {
    auto resolve = [](const std::string& n) -> std::optional<Term> {
        if (n == "p") return Term{Term::Kind::Param, 0};
        if (n == "r1") return Term{Term::Kind::Register, 0};
        if (n == "r2") return Term{Term::Kind::Register, 1};
        return std::nullopt;
    };
    auto parsed = parse_guard("p < r1 && p != r2 || p == 7", resolve);
    ASSERT_TRUE(std::holds_alternative<Guard>(parsed));
    const Guard& g = std::get<Guard>(parsed);
    ASSERT_EQ(g.disjuncts.size(), 2U);
    EXPECT_EQ(g.disjuncts[0].size(), 2U);
    EXPECT_EQ(g.disjuncts[1][0].right.kind, Term::Kind::Literal);
    EXPECT_EQ(g.disjuncts[1][0].right.literal, 7);
    EXPECT_TRUE(std::get<Guard>(parse_guard("true", resolve)).is_true());

    auto bad = parse_guard("p < q", resolve);
    ASSERT_TRUE(std::holds_alternative<GuardSyntaxError>(bad));
    EXPECT_EQ(std::get<GuardSyntaxError>(bad).column, 5);
    EXPECT_NE(std::get<GuardSyntaxError>(bad).message.find("unknown name 'q'"), std::string::npos);
    // the +c theory (issue 28): `r1 + 1` is a term; a literal takes no `+ c`
    auto plus = parse_guard("p == r1 + 1", resolve);
    ASSERT_TRUE(std::holds_alternative<Guard>(plus));
    EXPECT_EQ(std::get<Guard>(plus).disjuncts.at(0).at(0).right.offset, 1);
    auto literal_plus = parse_guard("p == 5 + 1", resolve);
    ASSERT_TRUE(std::holds_alternative<GuardSyntaxError>(literal_plus));
    EXPECT_NE(std::get<GuardSyntaxError>(literal_plus).message.find("literal"), std::string::npos);
    EXPECT_TRUE(std::holds_alternative<GuardSyntaxError>(parse_guard("p <> r1", resolve)));
    EXPECT_TRUE(std::holds_alternative<GuardSyntaxError>(parse_guard("p < r1 &&", resolve)));
}

TEST(RaSimulator, PriorityQueueReturnsTheSmallest) {
    const RegisterAutomaton pq = testing::priority_queue2();
    EXPECT_TRUE(validate(pq).empty()) << validate(pq).front();
    RaSimulator sim(pq);
    const std::size_t offer = *pq.input_index("offer"), poll = *pq.input_index("poll");
    const DataWord out = sim.run({{offer, {5}}, {offer, {3}}, {poll, {}}, {poll, {}}, {poll, {}}});
    ASSERT_EQ(out.size(), 5U);
    EXPECT_EQ(pq.outputs[out[2].symbol].name, "out");
    EXPECT_EQ(out[2].values, std::vector<Value>{3});
    EXPECT_EQ(out[3].values, std::vector<Value>{5});
    EXPECT_EQ(pq.outputs[out[4].symbol].name, "nok");
    // A full queue refuses.
    const DataWord full = sim.run({{offer, {1}}, {offer, {2}}, {offer, {3}}});
    EXPECT_EQ(pq.outputs[full[2].symbol].name, "nok");
}

TEST(RaSimulator, FreshOutputsAreNewAndStored) {
    const RegisterAutomaton kg = testing::key_store();
    ASSERT_TRUE(validate(kg).empty()) << validate(kg).front();
    RaSimulator sim(kg);
    const std::size_t put = *kg.input_index("put"), get = *kg.input_index("get");
    const DataWord out = sim.run({{put, {10}}, {get, {11}}, {get, {12}}});
    ASSERT_EQ(out[0].values.size(), 1U);
    const Value key = out[0].values[0];
    EXPECT_NE(key, 10);
    const DataWord again = sim.run({{put, {10}}, {get, {key}}});
    EXPECT_EQ(kg.outputs[again[1].symbol].name, "val");
    EXPECT_EQ(again[1].values, std::vector<Value>{10});
    EXPECT_EQ(kg.outputs[out[1].symbol].name, key == 11 ? "val" : "nok");
}

TEST(RaValidate, FindsOverlapsGapsAndTypeErrors) {
    RegisterAutomaton pq = testing::priority_queue2();
    // Turn "p < r1" into "p <= r1": overlaps with "p >= r1".
    for (auto& t : pq.locations[1].transitions)
        for (auto& conj : t.guard.disjuncts)
            for (auto& a : conj)
                if (a.op == Op::Lt) a.op = Op::Le;
    auto problems = validate(pq);
    ASSERT_FALSE(problems.empty());
    EXPECT_NE(problems.front().find("guards overlap"), std::string::npos) << problems.front();

    RegisterAutomaton gap = testing::priority_queue2();
    gap.locations[1].transitions.erase(gap.locations[1].transitions.begin());
    problems = validate(gap);
    ASSERT_FALSE(problems.empty());
    EXPECT_NE(problems.front().find("no guard holds"), std::string::npos) << problems.front();

    RegisterAutomaton typed = testing::key_store();
    typed.locations[1].transitions[0].guard = Guard{{{Atom{{Term::Kind::Param, 0}, Op::Lt, {Term::Kind::Register, 0}}}}};
    problems = validate(typed);
    ASSERT_FALSE(problems.empty());
    EXPECT_NE(problems.front().find("ids have only == and !="), std::string::npos) << problems.front();
    EXPECT_THROW(check_valid(typed), Error);

    RegisterAutomaton clash = testing::key_store();
    clash.locations[1].registers[0].name = "k";  // get(k) reads register k: ambiguous in a file
    problems = validate(clash);
    ASSERT_FALSE(problems.empty());
    EXPECT_NE(problems.front().find("'k' is both a parameter and a register"), std::string::npos) << problems.front();
}

// The initial location's registers are checked with and without increments (before: only inside
// the increments loop, so never without increments, and with an out-of-range initial location and
// an increment the location was read out of range).
TEST(RaValidate, InitialRegistersAreAnErrorWithAndWithoutIncrements) {
    RegisterAutomaton pq = testing::priority_queue2();
    pq.initial = 1;  // a location with registers
    ASSERT_FALSE(pq.locations[1].registers.empty());
    auto has = [](const std::vector<std::string>& problems, const std::string& text) {
        for (const auto& p : problems)
            if (p.find(text) != std::string::npos) return true;
        return false;
    };
    EXPECT_TRUE(has(validate(pq), "has registers, but registers have no initial values"));
    pq.increments = {1};
    EXPECT_TRUE(has(validate(pq), "has registers, but registers have no initial values"));
    pq.initial = pq.locations.size() + 3;
    const auto problems = validate(pq);
    EXPECT_TRUE(has(problems, "the initial location is out of range"));
    EXPECT_FALSE(has(problems, "has registers"));
}

TEST(RaValueClasses, EqualityAndOrder) {
    EXPECT_EQ(value_classes(DataType::Id, {4, 2, 4}), (std::vector<Value>{2, 4, 5}));
    const auto ordered = value_classes(DataType::Int, {0, 10});
    ASSERT_EQ(ordered.size(), 5U);
    EXPECT_LT(ordered[0], 0);
    EXPECT_EQ(ordered[1], 0);
    EXPECT_EQ(ordered[2], 5);
    EXPECT_EQ(ordered[3], 10);
    EXPECT_GT(ordered[4], 10);
    EXPECT_EQ(value_classes(DataType::Int, {0, 1}).size(), 4U);  // no integer between 0 and 1
}

}  // namespace
}  // namespace typestar::ra
