// Register automata and RALib input on hostile input (issue 26, items 2-5): reading, validating and
// comparing are polynomial or refuse with a limit naming its knob; what validates is what export
// writes back; diagnostics never carry raw control characters.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <limits>
#include <string>

#include "ra_fixtures.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/suite.hpp"
#include "typestar/ra/learner.hpp"
#include "typestar/ra/oracle.hpp"
#include "typestar/session/register_automata.hpp"

namespace typestar::ra {
namespace {

/// Sets an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
    ~ScopedEnv() { ::unsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
};

std::string diagnostics_of(const std::function<void()>& read) {
    try {
        read();
    } catch (const SpecError& e) {
        std::string out;
        for (const auto& d : e.diagnostics()) out += d.str() + "\n";
        return out;
    }
    return {};
}

bool has_control_character(const std::string& text) {
    for (std::size_t i = 0; i + 1 < text.size(); ++i)  // the last newline is ours
        if (static_cast<unsigned char>(text[i]) < 0x20 || text[i] == 0x7f) return true;
    return false;
}

/// A RALib model with one input location l0 and its output location m0: input `in` with `params`
/// int parameters, and one transition per guard (in order, then a last one without a guard), the
/// i-th answering output `o<i>`.
std::string ralib_model(std::size_t params, const std::vector<std::string>& guards) {
    std::string xml = "<register-automaton>\n<alphabet><inputs><symbol name=\"in\">";
    std::string names;
    for (std::size_t p = 0; p < params; ++p) {
        xml += "<param type=\"int\" name=\"x" + std::to_string(p) + "\"/>";
        names += (p ? "," : "") + std::string("x") + std::to_string(p);
    }
    xml += "</symbol></inputs><outputs>";
    for (std::size_t i = 0; i <= guards.size(); ++i) xml += "<symbol name=\"o" + std::to_string(i) + "\"/>";
    xml += "</outputs></alphabet>\n<constants/><globals/>\n<locations><location name=\"l0\" initial=\"true\"/>";
    for (std::size_t i = 0; i <= guards.size(); ++i) xml += "<location name=\"m" + std::to_string(i) + "\"/>";
    xml += "</locations>\n<transitions>\n";
    for (std::size_t i = 0; i <= guards.size(); ++i) {
        const std::string m = "m" + std::to_string(i);
        xml += "<transition from=\"l0\" to=\"" + m + "\" symbol=\"in\" params=\"" + names + "\">";
        if (i < guards.size()) xml += "<guard>" + guards[i] + "</guard>";
        xml += "</transition>\n<transition from=\"" + m + "\" to=\"l0\" symbol=\"o" + std::to_string(i) + "\"/>\n";
    }
    return xml + "</transitions>\n</register-automaton>\n";
}

// Issue 26, item 2: 20 overlapping guards (each `x0 != a && x0 != b`) expanded first-match: the
// negations multiply to 2^19 conjunctions, nearly all contradictory. Pruned at every step, the
// import is immediate (before: 21 s, 2.98 GB, std::bad_alloc).
TEST(RaHardening, FirstMatchPrunesContradictionsOfOverlappingGuards) {
    std::vector<std::string> guards;
    for (int i = 0; i < 20; ++i)
        guards.push_back("x0!=" + std::to_string(2 * i) + " &amp;&amp; x0!=" + std::to_string(2 * i + 1));
    RalibImportOptions options;
    options.first_match = true;
    const RegisterAutomaton ra = import_ralib_xml(ralib_model(1, guards), "overlap.xml", options);
    RaSimulator sim(ra);
    auto answer = [&](Value v) { return ra.outputs[sim.run({{0, {v}}})[0].symbol].name; };
    EXPECT_EQ(answer(100), "o0");  // the first guard holds
    EXPECT_EQ(answer(0), "o1");    // the second is the first that holds
    EXPECT_EQ(answer(3), "o0");
    EXPECT_EQ(answer(1), "o1");
    EXPECT_TRUE(validate(ra).empty());
}

// ... and guards over independent parameters, whose conjunctions are all satisfiable, are refused
// with the knob named, at the line of the transition, instead of growing without bound.
TEST(RaHardening, FirstMatchExpansionPastTheLimitIsRefusedNamingTheKnob) {
    std::vector<std::string> guards;
    for (std::size_t i = 0; i < 8; ++i)
        guards.push_back("x" + std::to_string(2 * i) + "!=0 &amp;&amp; x" + std::to_string(2 * i + 1) + "!=0");
    RalibImportOptions options;
    options.first_match = true;
    const std::string xml = ralib_model(16, guards);
    {
        const ScopedEnv limit("TYPESTAR_MAX_GUARD_DISJUNCTS", "64");
        const std::string d = diagnostics_of([&] { (void)import_ralib_xml(xml, "wide.xml", options); });
        EXPECT_NE(d.find("wide.xml:20: first-match expansion of the guards of in in location 'l0' needs more than 64 "
                         "conjunctions in one guard (overlapping guards; set TYPESTAR_MAX_GUARD_DISJUNCTS to allow more)"),
                  std::string::npos)
            << d;
    }
    const ScopedEnv bad("TYPESTAR_MAX_GUARD_DISJUNCTS", "many");
    EXPECT_THROW((void)import_ralib_xml(xml, "wide.xml", options), Error);
}

// Issue 26 item 8 (the sanitizer run): a conjunction with a negative cycle through many terms
// (56 literals, every pair ordered both ways) is a contradiction found at once; the shortest paths
// of a negative cycle grow exponentially with the terms, so the search stops at the first one
// (before: they overflowed even 128 bits).
TEST(RaHardening, FirstMatchContradictionThroughManyTermsIsFoundWithoutOverflow) {
    std::string cycle;
    for (std::size_t i = 0; i < 56; ++i)
        for (std::size_t j = 0; j < 56; ++j)
            if (i != j) cycle += (cycle.empty() ? "" : " &amp;&amp; ") + std::to_string(i) + " &lt; " + std::to_string(j);
    RalibImportOptions options;
    options.first_match = true;
    options.ordered_types = {"int"};
    // the last transition's guard, the negation of the cycle, has up to 3080 conjunctions
    const ScopedEnv limit("TYPESTAR_MAX_GUARD_DISJUNCTS", "4096");
    const RegisterAutomaton ra = import_ralib_xml(ralib_model(1, {"x0!=0", cycle}), "cycle.xml", options);
    RaSimulator sim(ra);
    auto answer = [&](Value x) { return ra.outputs[sim.run({{0, {x}}})[0].symbol].name; };
    EXPECT_EQ(answer(0), "o2");  // neither guard holds
    EXPECT_EQ(answer(7), "o0");
}

std::string one_callin_spec(const std::string& guard_a, const std::string& guard_b) {
    std::string params, names;
    for (char c = 'a'; c <= 'j'; ++c) {
        params += std::string(c == 'a' ? "" : ", ") + c + ": int";
        names += std::string(c == 'a' ? "" : ", ") + c;
    }
    std::string text = "typestar: 2\nkind: register-automaton\nname: wide\ncallins: [\"f(" + params +
                       ")\"]\nreturns: [ok, nok]\ninitial: l0\nlocations:\n  l0:\n    transitions:\n";
    text += "      - {input: \"f(" + names + ")\"" + (guard_a.empty() ? "" : ", guard: \"" + guard_a + "\"") +
            ", output: ok, to: l0}\n";
    if (!guard_b.empty()) text += "      - {input: \"f(" + names + ")\", guard: \"" + guard_b + "\", output: nok, to: l0}\n";
    return text;
}

// Issue 26, item 3: one callin of 10 int parameters that no guard reads validates at once (before:
// 93 s, ×14 per parameter): only the parameters a transition reads are split into data classes.
TEST(RaHardening, ValidateSplitsOnlyTheParametersTransitionsRead) {
    EXPECT_EQ(parse_register_spec(one_callin_spec("", ""), "wide.yaml").automaton.num_transitions(), 1U);
    const RaSpec two = parse_register_spec(one_callin_spec("a < j", "a >= j"), "wide.yaml");
    EXPECT_EQ(two.automaton.num_transitions(), 2U);
    const std::string d = diagnostics_of([] { (void)parse_register_spec(one_callin_spec("a < j", "a > j"), "w.yaml"); });
    EXPECT_NE(d.find("no guard holds when"), std::string::npos) << d;  // a == j is still a class
}

// ... and one whose guards read all ten is refused with the knob named, never answered partially.
TEST(RaHardening, ValidatePastTheClassLimitIsRefusedNamingTheKnob) {
    const std::string chain = "a < b && b < c && c < d && d < e && e < f && f < g && g < h && h < i && i < j";
    const std::string rest = "a >= b || b >= c || c >= d || d >= e || e >= f || f >= g || g >= h || h >= i || i >= j";
    const ScopedEnv limit("TYPESTAR_MAX_RA_WORK", "200000");
    const std::string d = diagnostics_of([&] { (void)parse_register_spec(one_callin_spec(chain, rest), "w.yaml"); });
    EXPECT_NE(d.find("w.yaml: register automaton 'wide': exploring its data classes takes more than 200000 units of "
                     "work (one per guard atom in each class of input parameters; set TYPESTAR_MAX_RA_WORK to allow more)"),
              std::string::npos)
        << d;
}

// Issue 26, item 3: diff of two equivalent automata explores their product once per (locations,
// register pattern): depth 12 on the login pair answers at once (before: depth 5 88 s, depth 6
// std::bad_alloc on RALib's login); a difference is still found, and is shortest.
TEST(RaHardening, DiffExploresTheProductOncePerPattern) {
    EXPECT_FALSE(separating_word(testing::login(), testing::login(), 12));
    RegisterAutomaton wrong = testing::login();
    // logged in, logout answers nok instead of ok: found after register, login, logout
    wrong.locations[2].transitions[2].output = 1;
    const auto cex = separating_word(testing::login(), wrong, 12);
    ASSERT_TRUE(cex);
    EXPECT_EQ(cex->inputs.size(), 3U);
    EXPECT_EQ(cex->inputs[0].values, cex->inputs[1].values);
    const ScopedEnv limit("TYPESTAR_MAX_RA_STATES", "2");
    EXPECT_THROW((void)separating_word(testing::login(), testing::login(), 12), Error);
}

/// A set of up to `n` ids: put(p) stores p (nok when full), has(p) answers whether p is stored.
std::string id_set_spec(std::size_t n) {
    std::string text = "typestar: 2\nkind: register-automaton\nname: set\ncallins: [\"put(p: id)\", \"has(p: id)\"]\n"
                       "returns: [ok, nok]\ninitial: l0\nlocations:\n";
    for (std::size_t i = 0; i <= n; ++i) {
        std::string regs, keep, eq, ne;
        for (std::size_t j = 1; j <= i; ++j) {
            const std::string r = "r" + std::to_string(j);
            regs += (j > 1 ? ", " : "") + r;
            keep += (j > 1 ? ", " : "") + r + ": " + r;
            eq += (j > 1 ? " || p == " : "p == ") + r;
            ne += (j > 1 ? " && p != " : "p != ") + r;
        }
        const std::string here = "l" + std::to_string(i);
        text += "  " + here + ":\n    registers: [" + regs + "]\n    transitions:\n";
        if (i < n)
            text += "      - {input: put, output: ok, assign: {" + keep + (i ? ", " : "") + "r" + std::to_string(i + 1) +
                    ": p}, to: l" + std::to_string(i + 1) + "}\n";
        else
            text += "      - {input: put, output: nok, assign: {" + keep + "}, to: " + here + "}\n";
        if (i == 0) {
            text += "      - {input: has, output: nok, to: l0}\n";
        } else {
            text += "      - {input: has, guard: \"" + eq + "\", output: ok, assign: {" + keep + "}, to: " + here + "}\n";
            text += "      - {input: has, guard: \"" + ne + "\", output: nok, assign: {" + keep + "}, to: " + here + "}\n";
        }
    }
    return text;
}

// Issue 26, item 3: `check` of a spec with six registers against itself (before: no answer in
// 120 s, 2.2 GB) stops at the word limit with the knob named, never with a partial "conforms".
TEST(RaHardening, CheckPastTheWordLimitIsRefusedNamingTheKnob) {
    const RaSpec six = parse_register_spec(id_set_spec(6), "six.yaml");
    SimulatorSul device(six.automaton);
    RaSuiteConfig config;
    config.max_words = 5000;
    try {
        (void)check_register_automaton(six.automaton, device, config);
        ADD_FAILURE() << "the suite ran past its word limit";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("needs more than 5000 data words on the device (set TYPESTAR_MAX_RA_WORDS"),
                  std::string::npos)
            << e.what();
    }
    const RaSpec two = parse_register_spec(id_set_spec(2), "two.yaml");  // a small one still conforms
    SimulatorSul small(two.automaton);
    EXPECT_FALSE(check_register_automaton(two.automaton, small).counterexample);
}

// Issue 38, item 4: the same six-register spec is now checked against itself, the steps after each
// transition taken in the spec's symbolic classes (has(p): equal to each register or fresh; put(p):
// fresh) with their prefixes shared. Before: refused past 2,000,000 words (39 s, 1.3 GB).
TEST(RaHardening, SixRegisterIdSetChecksAgainstItselfWithinTheSymbolicSuite) {
    const RaSpec six = parse_register_spec(id_set_spec(6), "six.yaml");
    SimulatorSul device(six.automaton);
    RaSuiteConfig config;
    config.max_words = 150000;
    const RaSuiteResult r = check_register_automaton(six.automaton, device, config);
    EXPECT_FALSE(r.counterexample) << r.summary();
    EXPECT_FALSE(r.truncated);
    EXPECT_EQ(r.states, 279U);  // every (location, equality type of its registers): Bell(0) + ... + Bell(6)
    EXPECT_LE(r.words, 150000U);
    // and a device that forgets the sixth id it stored (has(p) compares only five) is told apart
    std::string text = id_set_spec(6);
    for (const std::string cut : {" || p == r6", " && p != r6"}) text.erase(text.find(cut), cut.size());
    const RaSpec forgetful = parse_register_spec(text, "forgetful.yaml");
    SimulatorSul wrong(forgetful.automaton);
    const RaSuiteResult kill = check_register_automaton(six.automaton, wrong, config);
    ASSERT_TRUE(kill.counterexample) << kill.summary();
    EXPECT_NE(kill.counterexample->reason.find("expected ok"), std::string::npos) << kill.counterexample->reason;
}

// The same limit on every path that runs a suite: one transition's tests (the plugin's cases) and
// learning's certification (the suite at B in the last round). Before, learning ran its
// certification unbounded (fifo7: 2.5 million words inside `learn`), while `check` refused.
TEST(RaHardening, EverySuitePathRefusesPastTheWordLimit) {
    const RaSpec six = parse_register_spec(id_set_spec(6), "six.yaml");
    SimulatorSul device(six.automaton);
    DataOracle oracle(device, six.automaton);
    RaSuiteConfig config;
    config.max_words = 5000;
    const std::size_t last = six.automaton.locations.size() - 1;
    try {
        (void)check_register_transition(six.automaton, oracle, last, 0, config);
        ADD_FAILURE() << "one transition's tests ran past the word limit";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("needs more than 5000 data words on the device (set TYPESTAR_MAX_RA_WORDS"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_LE(oracle.stats().total().queries_executed, 5001U);

    const RaSpec three = parse_register_spec(id_set_spec(3), "three.yaml");
    SimulatorSul small(three.automaton);
    const RaLearnResult learned = learn_register_automaton(small, three.automaton, {});  // within the default
    ASSERT_TRUE(learned.converged) << learned.failure;
    ASSERT_GT(learned.certification_executed, 100U);
    const ScopedEnv limit("TYPESTAR_MAX_RA_WORDS", "100");
    SimulatorSul again(three.automaton);
    try {
        (void)learn_register_automaton(again, three.automaton, {});
        ADD_FAILURE() << "learning's certification ran past the word limit";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("needs more than 100 data words on the device (set TYPESTAR_MAX_RA_WORDS"),
                  std::string::npos)
            << e.what();
    }
}

// Issue 26, item 4: an unreachable register whose type only its declaration gives (two unreachable
// locations copying it between them) validates, and export writes it back.
TEST(RaHardening, UnreachableTypedRegistersAreWrittenBack) {
    const std::string text = R"~(typestar: 2
kind: register-automaton
name: island
callins: ["f(p: int)"]
returns: [ok]
initial: l0
locations:
  l0:
    transitions:
      - {input: f, output: ok, to: l0}
  a:
    registers: [{x: int}]
    transitions:
      - {input: f, output: ok, assign: {y: x}, to: b}
  b:
    registers: [{y: int}]
    transitions:
      - {input: f, output: ok, assign: {x: y}, to: a}
)~";
    const RaSpec spec = parse_register_spec(text, "island.yaml");
    const std::string written = write_register_spec(spec);
    EXPECT_EQ(parse_register_spec(written, "back.yaml"), spec);
}

// ... and so is a guard with a `true` disjunct (written `true`) and an output whose argument is a
// negative literal (both found by fuzz_round_trip).
TEST(RaHardening, TrueDisjunctsAndLiteralOutputsAreWrittenBack) {
    RegisterAutomaton ra = testing::priority_queue2();
    ra.locations[0].transitions[0].guard.disjuncts.push_back({Atom{testing::param(0), Op::Lt, Term{Term::Kind::Literal, 0, 3}}});
    ra.locations[1].transitions[2].output_args[0] = testing::arg(Term{Term::Kind::Literal, 0, -5});
    ASSERT_TRUE(validate(ra).empty());
    const RaSpec spec{ra, 2, {}};
    const RaSpec back = parse_register_spec(write_register_spec(spec), "back.yaml");
    RaSimulator a(ra), b(back.automaton);
    const DataWord w{{0, {5}}, {1, {}}, {0, {1}}, {0, {2}}, {1, {}}};
    EXPECT_EQ(a.run(w), b.run(w));
}

// ... and a RALib name the format cannot write (a quote in a symbol name) is refused at import.
TEST(RaHardening, NamesTheFormatCannotWriteAreRefused) {
    std::string xml = ralib_model(1, {});
    xml.replace(xml.find("name=\"o0\""), 9, "name=\"o&quot;0\"");
    xml.replace(xml.find("symbol=\"o0\""), 11, "symbol=\"o&quot;0\"");
    const std::string d = diagnostics_of([&] { (void)import_ralib_xml(xml, "quote.xml"); });
    EXPECT_NE(d.find("quote.xml: output 'o\"0' is not a name the spec format can write"), std::string::npos) << d;
    RegisterAutomaton clash = testing::login();
    clash.locations[1].registers[0].name = "fresh";
    EXPECT_FALSE(validate(clash).empty());
    RegisterAutomaton twice = testing::login();
    twice.outputs[1].name = "ok";  // the reader refuses a second `ok`
    EXPECT_FALSE(validate(twice).empty());
}

const char* const kEscYaml =
    "typestar: 2\nkind: register-automaton\nname: esc\ncallins: [\"f\\e[31m\\nforged.yaml:1:1: x\"]\n"
    "returns: [ok]\ninitial: l0\nlocations:\n  l0: {}\n";

// Issue 26, item 5: control characters in names read from RA YAML and RALib XML are escaped in
// diagnostics (a file cannot forge a diagnostic line or recolour the terminal).
TEST(RaHardening, DiagnosticsEscapeControlCharacters) {
    const std::string yaml = std::string(kEscYaml);
    const std::string d1 = diagnostics_of([&] { (void)parse_register_spec(yaml, "esc.yaml"); });
    ASSERT_FALSE(d1.empty());
    EXPECT_FALSE(has_control_character(d1)) << d1;
    EXPECT_NE(d1.find("\\x1b"), std::string::npos) << d1;
    std::string xml = ralib_model(1, {});
    xml.replace(xml.find("symbol=\"o0\""), 11, "symbol=\"o&#10;x.xml:1: forged&#27;[31m\"");
    const std::string d2 = diagnostics_of([&] { (void)import_ralib_xml(xml, "esc.xml"); });
    ASSERT_FALSE(d2.empty());
    EXPECT_FALSE(has_control_character(d2)) << d2;
    EXPECT_NE(d2.find("o\\nx.xml:1: forged\\x1b[31m"), std::string::npos) << d2;
}

// Issue 26, item 8 (the sanitizer run): values at the int64 limits. A fresh output above the
// largest value seen does not exist when that value is INT64_MAX: the simulator says so (before:
// signed overflow, a "fresh" value INT64_MIN equal to nothing it should differ from).
TEST(RaHardening, NoFreshValueAboveTheInt64LimitIsAnError) {
    const RegisterAutomaton kg = testing::key_store();
    RaSimulator sim(kg);
    const std::size_t put = *kg.input_index("put");
    try {
        (void)sim.run({{put, {std::numeric_limits<Value>::max()}}});
        ADD_FAILURE() << "a fresh value above INT64_MAX was answered";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no fresh value above 9223372036854775807"), std::string::npos) << e.what();
    }
    // Below the limit, the fresh value is the next one.
    const DataWord out = sim.run({{put, {std::numeric_limits<Value>::max() - 1}}});
    EXPECT_EQ(out[0].values, std::vector<Value>{std::numeric_limits<Value>::max()});
}

// Constants and literals at the int64 limits: the data classes below the smallest and above the
// largest value exist only where int64 has values, and midpoints never overflow (before: signed
// overflow in value_classes and validate).
TEST(RaHardening, ConstantsAtTheInt64LimitsValidate) {
    const std::string text = "typestar: 2\nkind: register-automaton\nname: edge\ncallins: [\"f(p: int)\"]\n"
                             "returns: [lo, mid, hi]\n"
                             "constants: {top: 9223372036854775807, bottom: -9223372036854775808}\n"
                             "initial: l0\nlocations:\n  l0:\n    transitions:\n"
                             "      - {input: f, guard: \"p == bottom\", output: lo, to: l0}\n"
                             "      - {input: f, guard: \"p > bottom && p < top\", output: mid, to: l0}\n"
                             "      - {input: f, guard: \"p == top\", output: hi, to: l0}\n";
    const RaSpec spec = parse_register_spec(text, "edge.yaml");
    EXPECT_TRUE(validate(spec.automaton).empty());
    const std::vector<Value> classes =
        value_classes(DataType::Int, {std::numeric_limits<Value>::min(), std::numeric_limits<Value>::max()});
    EXPECT_EQ(classes, (std::vector<Value>{std::numeric_limits<Value>::min(), -1, std::numeric_limits<Value>::max()}));
    EXPECT_FALSE(separating_word(spec.automaton, spec.automaton, 3));
}

// The learner's and the suite's candidate values, one per data class: at the int64 limits the
// classes below INT64_MIN and above INT64_MAX do not exist, and a fresh id is still unused.
TEST(RaHardening, ClassCandidatesAtTheInt64Limits) {
    constexpr Value lo = std::numeric_limits<Value>::min(), hi = std::numeric_limits<Value>::max();
    EXPECT_EQ(class_candidates(DataType::Int, {hi}, {}), (std::vector<Value>{hi - (Value{1} << 20), hi}));
    EXPECT_EQ(class_candidates(DataType::Int, {lo, hi}, {}), (std::vector<Value>{lo, -1, hi}));
    EXPECT_EQ(class_candidates(DataType::Int, {}, {hi}), std::vector<Value>{hi - 1});
    EXPECT_EQ(class_candidates(DataType::Id, {hi}, {hi - 1}), (std::vector<Value>{hi, hi - 2}));
    EXPECT_EQ(class_candidates(DataType::Int, {hi - 1, hi}, {}),
              (std::vector<Value>{hi - 1 - (Value{1} << 20), hi - 1, hi}));  // nothing between them
}

/// A device over ids whose `get` answers the constant `top` = INT64_MAX.
class TopDevice final : public DataSul {
public:
    void reset() override {}
    DataSymbol step(const DataSymbol& input) override {
        if (input.symbol == 0) return {0, {}};                                  // put(p): ok
        return {1, {std::numeric_limits<Value>::max()}};                      // get: val(top)
    }
};

// Output values at the int64 limit reach the learner's value choices (fresh values, neighbours,
// gaps): it learns the device, never overflowing.
TEST(RaHardening, LearnsOutputsAtTheInt64Limit) {
    RegisterAutomaton signature;
    signature.name = "top";
    signature.inputs = {{"put", {{"p", DataType::Int}}}, {"get", {}}};
    signature.outputs = {{"ok", {}}, {"val", {{"v", DataType::Int}}}};
    signature.constants = {{"top", DataType::Int, std::numeric_limits<Value>::max()}};
    TopDevice device;
    const RaLearnResult learned = learn_register_automaton(device, signature);
    ASSERT_TRUE(learned.converged) << learned.failure;
    EXPECT_EQ(learned.hypothesis.locations.size(), 1U);
}

}  // namespace
}  // namespace typestar::ra
