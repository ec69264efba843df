// SL*'s `+c` theory (issue 28 item 1): terms `x + c` in guards, outputs and assignments, the
// declared increments, SL*'s Sequence Number benchmark and an ordered sequence-number receiver,
// learned exactly. The learned automata are checked by typestar's own suite at a covering bound and
// by a small evaluator written here (not RaSimulator) against hand-written reference functions.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/learner.hpp"
#include "typestar/ra/suite.hpp"
#include "typestar/session/register_automata.hpp"

namespace typestar::ra {
namespace {

const std::string kSeq = std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/sequence_number.yaml";
const std::string kReceiver = std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/sequence_receiver.yaml";

// ---- an independent evaluator: reads the automaton's terms itself (not RaSimulator) ----

struct Step {
    std::string output;
    std::vector<Value> values;
    bool operator==(const Step&) const = default;
};

std::vector<Step> evaluate_independently(const RegisterAutomaton& ra, const DataWord& word) {
    std::size_t loc = ra.initial;
    std::vector<Value> regs;
    std::vector<Step> out;
    for (const auto& in : word) {
        auto value = [&](const Term& t, const std::vector<Value>& outs) -> Value {
            Value base = 0;
            if (t.kind == Term::Kind::Param) base = in.values.at(t.index);
            else if (t.kind == Term::Kind::Register) base = regs.at(t.index);
            else if (t.kind == Term::Kind::Constant) base = ra.constants.at(t.index).value;
            else if (t.kind == Term::Kind::Literal) return t.literal;
            else base = outs.at(t.index);
            return base + t.offset;
        };
        const Transition* taken = nullptr;
        for (const auto& t : ra.locations[loc].transitions) {
            if (t.input != in.symbol) continue;
            bool holds = false;
            for (const auto& conj : t.guard.disjuncts) {
                bool all = true;
                for (const auto& a : conj) {
                    const Value l = value(a.left, {}), r = value(a.right, {});
                    const bool ok = a.op == Op::Eq ? l == r : a.op == Op::Ne ? l != r : a.op == Op::Lt ? l < r
                                  : a.op == Op::Le ? l <= r : a.op == Op::Gt ? l > r : l >= r;
                    all = all && ok;
                }
                holds = holds || all;
            }
            if (holds) {
                EXPECT_EQ(taken, nullptr) << "two guards hold";
                if (!taken) taken = &t;
            }
        }
        if (!taken) {
            ADD_FAILURE() << "no guard holds";
            return out;
        }
        Step s{ra.outputs[taken->output].name, {}};
        for (const auto& arg : taken->output_args) {
            EXPECT_FALSE(arg.fresh);
            s.values.push_back(value(arg.term, {}));
        }
        std::vector<Value> next;
        for (const auto& a : taken->assign) next.push_back(value(a, s.values));
        regs = next;
        loc = taken->target;
        out.push_back(s);
    }
    return out;
}

/// SL*'s Sequence Number language, written out: ok while each number is the last one + 1.
std::vector<Step> sequence_number_reference(const DataWord& word) {
    std::vector<Step> out;
    std::optional<Value> last;
    bool broken = false;
    for (const auto& in : word) {
        const Value p = in.values.at(0);
        if (!broken && (!last || p == *last + 1)) {
            last = p;
            out.push_back({"ok", {}});
        } else {
            broken = true;
            out.push_back({"nok", {}});
        }
    }
    return out;
}

/// The receiver, written out: open(s) once, then recv(n): ack / dup / gap(expected).
std::vector<Step> receiver_reference(const DataWord& word) {
    std::vector<Step> out;
    std::optional<Value> r;
    for (const auto& in : word) {
        const Value x = in.values.at(0);
        if (in.symbol == 0) {  // open
            if (!r) {
                r = x;
                out.push_back({"ok", {}});
            } else {
                out.push_back({"nok", {}});
            }
        } else if (!r) {
            out.push_back({"nok", {}});
        } else if (x == *r + 1) {
            r = x;
            out.push_back({"ack", {x}});
        } else if (x <= *r) {
            out.push_back({"dup", {}});
        } else {
            out.push_back({"gap", {*r + 1}});
        }
    }
    return out;
}

/// Every word of up to `depth` steps over values in [lo, hi], plus random longer words: the
/// automaton (by the independent evaluator) answers as `reference`.
void expect_matches_reference(const RegisterAutomaton& ra,
                              const std::function<std::vector<Step>(const DataWord&)>& reference, std::size_t depth,
                              Value lo, Value hi) {
    std::size_t words = 0;
    DataWord word;
    std::function<void()> grow = [&]() {
        ++words;
        ASSERT_EQ(evaluate_independently(ra, word), reference(word)) << format_word(ra, word);
        if (word.size() == depth) return;
        for (std::size_t a = 0; a < ra.inputs.size(); ++a)
            for (Value v = lo; v <= hi; ++v) {
                word.push_back(DataSymbol{a, {v}});
                grow();
                word.pop_back();
                if (::testing::Test::HasFatalFailure()) return;
            }
    };
    grow();
    std::mt19937_64 rng(7);
    for (int i = 0; i < 2000; ++i) {
        DataWord w;
        Value last = 0;
        for (int k = 0; k < 12; ++k) {
            const std::size_t a = rng() % ra.inputs.size();
            // mostly near the last value (where +1 matters), sometimes anywhere
            const Value v = rng() % 4 == 0 ? static_cast<Value>(rng() % 200) - 100 : last + static_cast<Value>(rng() % 5) - 2;
            w.push_back(DataSymbol{a, {v}});
            last = v;
        }
        ASSERT_EQ(evaluate_independently(ra, w), reference(w)) << format_word(ra, w);
    }
    EXPECT_GT(words, 100U);
}

// ---- the format ----

TEST(RaIncrements, SpecsReadWriteAndReadBackEqual) {
    for (const auto& path : {kSeq, kReceiver}) {
        const RaSpec spec = load_register_spec(path);
        EXPECT_TRUE(validate(spec.automaton).empty()) << path << ": " << validate(spec.automaton).front();
        EXPECT_EQ(spec.automaton.increments, std::vector<Value>{1});
        const std::string text = write_register_spec(spec);
        EXPECT_NE(text.find("increments: [1]"), std::string::npos) << text;
        EXPECT_NE(text.find(" + 1"), std::string::npos) << text;
        const RaSpec back = parse_register_spec(text, "back");
        EXPECT_EQ(back.automaton, spec.automaton);
        EXPECT_EQ(write_register_spec(back), text);
    }
    const RaSpec receiver = load_register_spec(kReceiver);
    EXPECT_NE(write_register_spec(receiver).find("gap(r + 1)"), std::string::npos);
}

TEST(RaIncrements, GuardTermsParseAndBadOnesNameTheColumn) {
    auto resolve = [](const std::string& n) -> std::optional<Term> {
        if (n == "p") return Term{Term::Kind::Param, 0};
        if (n == "r") return Term{Term::Kind::Register, 0};
        return std::nullopt;
    };
    auto g = parse_guard("p == r + 1 && p > r - 2", resolve);
    ASSERT_TRUE(std::holds_alternative<Guard>(g));
    const auto& conj = std::get<Guard>(g).disjuncts.at(0);
    EXPECT_EQ(conj.at(0).right, (Term{Term::Kind::Register, 0, 0, 1}));
    EXPECT_EQ(conj.at(1).right, (Term{Term::Kind::Register, 0, 0, -2}));
    auto lit = parse_guard("p == 5 + 1", resolve);
    ASSERT_TRUE(std::holds_alternative<GuardSyntaxError>(lit));
    EXPECT_EQ(std::get<GuardSyntaxError>(lit).column, 8);
    auto twice = parse_guard("p == r + 1 + 1", resolve);
    ASSERT_TRUE(std::holds_alternative<GuardSyntaxError>(twice));
    EXPECT_NE(std::get<GuardSyntaxError>(twice).message.find("one '+ c'"), std::string::npos);
    auto missing = parse_guard("p == r +", resolve);
    ASSERT_TRUE(std::holds_alternative<GuardSyntaxError>(missing));
    const auto t = parse_term("r - 3", resolve);
    ASSERT_TRUE(std::holds_alternative<Term>(t));
    EXPECT_EQ(std::get<Term>(t).offset, -3);
}

TEST(RaIncrements, ValidateRefusesOffsetsOnIdsAndTooLarge) {
    const std::string head = "typestar: 2\nkind: register-automaton\nname: t\ncallins: [\"put(v: id)\", \"num(n: int)\"]\n"
                             "returns: [ok]\ninitial: a\nlocations:\n  a:\n    transitions:\n"
                             "      - {input: put, output: ok, assign: {k: v, m: v}, to: b}\n      - {input: num, output: ok, to: a}\n"
                             "  b:\n    registers: [{k: id}, {m: id}]\n    transitions:\n";
    try {
        (void)parse_register_spec(head + "      - {input: put, guard: \"v == k + 1\", output: ok, assign: {k: k, m: m}, to: b}\n"
                                         "      - {input: put, guard: \"v != k + 1\", output: ok, assign: {k: k, m: m}, to: b}\n"
                                         "      - {input: num, output: ok, assign: {k: k, m: m}, to: b}\n",
                                  "ids");
        ADD_FAILURE() << "an id + c was read";
    } catch (const SpecError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("ids:"), std::string::npos) << what;
        EXPECT_NE(what.find("line 15"), std::string::npos) << what;
        EXPECT_NE(what.find("k + 1 adds to an id value"), std::string::npos) << what;
    }
    RegisterAutomaton seq = load_register_spec(kSeq).automaton;
    seq.locations[1].transitions[0].guard.disjuncts[0][0].right.offset = 5000;
    const auto big = validate(seq);
    ASSERT_FALSE(big.empty());
    EXPECT_NE(big.front().find("beyond"), std::string::npos) << big.front();
    EXPECT_THROW(parse_register_spec("typestar: 2\nkind: register-automaton\nname: t\ncallins: [a]\nreturns: [ok]\n"
                                     "increments: [0]\ninitial: s\nlocations:\n  s:\n    transitions:\n"
                                     "      - {input: a, output: ok, to: s}\n",
                                     "zero"),
                 SpecError);
}

TEST(RaIncrements, ValidateSeesTheClassOfRPlusOne) {
    // `p == r + 1` and `p != r` overlap exactly at p = r + 1: the exploration must try that class.
    RegisterAutomaton seq = load_register_spec(kSeq).automaton;
    seq.locations[1].transitions[1].guard.disjuncts[0][0] = Atom{Term{Term::Kind::Param, 0}, Op::Ne, Term{Term::Kind::Register, 0}};
    const auto problems = validate(seq);
    ASSERT_EQ(problems.size(), 2U);
    EXPECT_EQ(problems[0], "location l1, msg: no guard holds when r = 0, p = 0");
    EXPECT_NE(problems[1].find("location l1, msg: guards overlap when r = 0, p = 1"), std::string::npos) << problems[1];
}

TEST(RaIncrements, SimulatorAndIndependentEvaluatorAgreeWithTheReferences) {
    const RegisterAutomaton seq = load_register_spec(kSeq).automaton;
    expect_matches_reference(seq, sequence_number_reference, 4, -1, 3);
    RaSimulator sim(seq);
    EXPECT_EQ(sim.run({{0, {5}}, {0, {6}}, {0, {7}}, {0, {7}}}),
              (DataWord{{0, {}}, {0, {}}, {0, {}}, {1, {}}}));
    const RegisterAutomaton receiver = load_register_spec(kReceiver).automaton;
    expect_matches_reference(receiver, receiver_reference, 3, -2, 3);
    RaSimulator rs(receiver);
    const auto out = rs.run({{0, {3}}, {1, {6}}, {1, {4}}});
    ASSERT_EQ(out.size(), 3U);
    EXPECT_EQ(format_symbol(receiver.outputs, out[1]), "gap(4)");
    EXPECT_EQ(format_symbol(receiver.outputs, out[2]), "ack(4)");
}

// ---- learning ----

/// Learns `truth` through a simulator device with check's suite at `bound` as the equivalence
/// oracle's last step, then checks the result: typestar's suite both ways at `bound` and the
/// independent evaluator against the reference.
RaLearnResult learn_exactly(const RegisterAutomaton& truth, std::size_t bound,
                            const std::function<std::vector<Step>(const DataWord&)>& reference, std::size_t depth,
                            Value lo, Value hi) {
    SimulatorSul sul(truth);
    RaLearnConfig config;
    config.equivalence_bound = bound;
    RaLearnResult r = learn_register_automaton(sul, truth, config);
    EXPECT_TRUE(r.converged) << r.failure << "\n" << write_register_dot(r.hypothesis);
    EXPECT_TRUE(validate(r.hypothesis).empty()) << validate(r.hypothesis).front();
    EXPECT_EQ(r.hypothesis.increments, truth.increments);  // the theory is recorded in the spec
    SimulatorSul truth_device(truth), learned_device(r.hypothesis);
    const auto forward = check_register_automaton(r.hypothesis, truth_device, RaSuiteConfig{bound, 20000});
    EXPECT_FALSE(forward.counterexample.has_value()) << forward.summary();
    EXPECT_FALSE(forward.truncated);
    const auto backward = check_register_automaton(truth, learned_device, RaSuiteConfig{bound, 20000});
    EXPECT_FALSE(backward.counterexample.has_value()) << backward.summary();
    expect_matches_reference(r.hypothesis, reference, depth, lo, hi);
    return r;
}

TEST(RaIncrements, LearnsSlStarsSequenceNumberBenchmarkExactly) {
    const RegisterAutomaton truth = load_register_spec(kSeq).automaton;
    const auto r = learn_exactly(truth, 3, sequence_number_reference, 4, -1, 3);
    // SL* Table 1: 3 locations, 1 register, 4 transitions
    EXPECT_EQ(r.hypothesis.locations.size(), 3U);
    EXPECT_EQ(r.hypothesis.max_registers(), 1U);
    EXPECT_EQ(r.hypothesis.num_transitions(), 4U) << write_register_spec(RaSpec{r.hypothesis, 3, {}});
}

TEST(RaIncrements, LearnsTheOrderedSequenceReceiverExactly) {
    const RegisterAutomaton truth = load_register_spec(kReceiver).automaton;
    const auto r = learn_exactly(truth, 2, receiver_reference, 3, -2, 3);
    EXPECT_EQ(r.hypothesis.locations.size(), 2U) << write_register_dot(r.hypothesis);
    EXPECT_EQ(r.hypothesis.max_registers(), 1U);
}

}  // namespace
}  // namespace typestar::ra

namespace typestar::ra {
namespace {

// SL*'s Sequence Number in RALib's XML shape, with `r + 1` guards (RALib's own ExpressionParser has
// no sum syntax; the importer reads the guard with typestar's parser), read first-match: the second
// guard becomes `... && p != r + 1`, which the difference-constraint check keeps for p == r.
// `double` is RALib's ordered type (ordered_types).
const char* const kSeqXml = R"~(<?xml version="1.0" encoding="UTF-8" ?>
<register-automaton>
   <alphabet>
      <inputs><symbol name="IMsg"><param type="double" name="p0"/></symbol></inputs>
      <outputs><symbol name="OOK"/><symbol name="ONOK"/></outputs>
   </alphabet>
   <constants></constants>
   <globals><variable type="double" name="r">0</variable></globals>
   <locations>
      <location name="l0" initial="true"/><location name="m0"/><location name="l1"/>
      <location name="m1"/><location name="m2"/><location name="l2"/><location name="m3"/>
   </locations>
   <transitions>
      <transition from="l0" to="m0" symbol="IMsg" params="p"><assignments><assign to="r">p</assign></assignments></transition>
      <transition from="m0" to="l1" symbol="OOK"/>
      <transition from="l1" to="m1" symbol="IMsg" params="p"><guard>p==r + 1</guard><assignments><assign to="r">p</assign></assignments></transition>
      <transition from="m1" to="l1" symbol="OOK"/>
      <transition from="l1" to="m2" symbol="IMsg" params="p"><guard>p==r || p!=r</guard></transition>
      <transition from="m2" to="l2" symbol="ONOK"/>
      <transition from="l2" to="m3" symbol="IMsg" params="p"/>
      <transition from="m3" to="l2" symbol="ONOK"/>
   </transitions>
</register-automaton>
)~";

TEST(RaIncrements, RalibImporterReadsSumsAndKeepsTheirFirstMatchNegation) {
    RalibImportOptions options;
    options.first_match = true;
    RegisterAutomaton ra = import_ralib_xml(kSeqXml, "seq.xml", options);
    EXPECT_TRUE(validate(ra).empty()) << validate(ra).front();
    // p == r is kept in the second transition (p == r && p != r + 1 can hold)
    EXPECT_EQ(evaluate_independently(ra, {{0, {5}}, {0, {5}}, {0, {6}}}),
              (std::vector<Step>{{"OOK", {}}, {"ONOK", {}}, {"ONOK", {}}}));
    EXPECT_EQ(evaluate_independently(ra, {{0, {5}}, {0, {6}}, {0, {7}}, {0, {9}}}),
              (std::vector<Step>{{"OOK", {}}, {"OOK", {}}, {"OOK", {}}, {"ONOK", {}}}));
}

}  // namespace
}  // namespace typestar::ra

namespace typestar::ra {
namespace {

// A set of two ordered values (a priority-queue-like shape): a location with two registers whose
// `offer` tells p == r2 from r1 < p < r2. With SL*'s +c terms the learner also branches on
// p == r1 + 1, which overlaps p == r2 when r2 = r1 + 1 (RALib's pq3 under `--increments 1`).
const char* const kSet2 = R"~(typestar: 2
kind: register-automaton
name: set2
callins: ["offer(p: int)"]
callbacks: []
returns: [ok, nok]
constants: {}
bounds: {distinguisher: 2}
initial: l0
locations:
  l0:
    registers: []
    transitions:
      - {input: "offer(p)", output: ok, assign: {r1: p}, to: l1}
  l1:
    registers: [r1]
    transitions:
      - {input: "offer(p)", guard: "p < r1", output: ok, assign: {r1: p, r2: r1}, to: l2}
      - {input: "offer(p)", guard: "p == r1", output: nok, assign: {r1: r1}, to: l1}
      - {input: "offer(p)", guard: "p > r1", output: ok, assign: {r1: r1, r2: p}, to: l2}
  l2:
    registers: [r1, r2]
    transitions:
      - {input: "offer(p)", guard: "p < r1", output: ok, to: l3}
      - {input: "offer(p)", guard: "p == r1", output: nok, assign: {r1: r1, r2: r2}, to: l2}
      - {input: "offer(p)", guard: "p > r1 && p < r2", output: ok, to: l3}
      - {input: "offer(p)", guard: "p == r2", output: nok, assign: {r1: r1, r2: r2}, to: l2}
      - {input: "offer(p)", guard: "p > r2", output: ok, to: l3}
  l3:
    registers: []
    transitions:
      - {input: "offer(p)", output: nok, to: l3}
)~";

TEST(RaIncrements, RalibDoubleIsReadAsIntAndSaysSo) {
    // kSeqXml's `double` data: typestar has no real-valued type; the reading is an assumption.
    std::vector<std::string> assumptions;
    RalibImportOptions options;
    options.first_match = true;
    options.assumptions = &assumptions;
    const RegisterAutomaton ra = import_ralib_xml(kSeqXml, "seq.xml", options);
    EXPECT_EQ(ra.inputs[0].params[0].type, DataType::Int);
    ASSERT_EQ(assumptions.size(), 1U);
    EXPECT_EQ(assumptions.front(),
              "RALib type double of seq.xml is read as int: integers with order, so no value between two integers "
              "(real-valued data) is ever tried");
}

TEST(RaIncrements, OverlappingGuardsUnderIncrementsAreRefusedNamingTheTheory) {
    const RegisterAutomaton truth = parse_register_spec(kSet2, "set2.yaml").automaton;
    RegisterAutomaton signature = truth;
    signature.increments = {1};  // `typestar learn --increments 1`
    SimulatorSul sul(truth);
    RaLearnConfig config;
    config.equivalence_bound = 2;
    const RaLearnResult r = learn_register_automaton(sul, signature, config);
    ASSERT_FALSE(r.converged) << write_register_dot(r.hypothesis);
    EXPECT_NE(r.failure.find("the ordered theory with increments (SL*'s +c terms x + 1) does not apply to set2"),
              std::string::npos)
        << r.failure;
    EXPECT_NE(r.failure.find("guards overlap"), std::string::npos) << r.failure;
    // Without increments the ordered theory learns it.
    const RaLearnResult plain = learn_register_automaton(sul, truth, config);
    EXPECT_TRUE(plain.converged) << plain.failure;
    EXPECT_TRUE(validate(plain.hypothesis).empty());
}

}  // namespace
}  // namespace typestar::ra
