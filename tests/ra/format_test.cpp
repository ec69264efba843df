// The v2 register-automaton format, RALib XML import and DOT (issue 18).
#include "typestar/ra/format.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "ra_fixtures.hpp"

namespace typestar::ra {
namespace {

const char* const kPq = R"~(typestar: 2
kind: register-automaton
name: PriorityQueue
callins: ["offer(p: int)", poll]
callbacks: []
returns: [ok, nok, "out(v: int)"]
constants: {}
initial: l0
locations:
  l0:
    registers: []
    transitions:
      - {input: "offer(p)", output: ok,  assign: {r1: p}, to: l1}
      - {input: poll,       output: nok, to: l0}
  l1:
    registers: [r1]
    transitions:
      - {input: "offer(x)", guard: "x < r1",  output: ok, assign: {r1: x, r2: r1}, to: l2}
      - {input: "offer(p)", guard: "p >= r1", output: ok, assign: {r1: r1, r2: p}, to: l2}
      - {input: poll, output: "out(r1)", to: l0}
  l2:
    registers: [r1, r2]
    transitions:
      - {input: "offer(p)", output: nok, assign: {r1: r1, r2: r2}, to: l2}
      - {input: poll, output: "out(r1)", assign: {r1: r2}, to: l1}
)~";

std::vector<std::string> messages(const std::string& text) {
    try {
        (void)parse_register_spec(text, "f.yaml");
    } catch (const SpecError& e) {
        std::vector<std::string> out;
        for (const auto& d : e.diagnostics()) out.push_back(d.str());
        return out;
    }
    return {};
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos) text.replace(pos, from.size(), to);
    return text;
}

TEST(RaFormat, ReadsTheDesignExampleAndBehavesLikeTheQueue) {
    const RaSpec spec = parse_register_spec(kPq, "pq.yaml");
    const RegisterAutomaton& ra = spec.automaton;
    EXPECT_EQ(ra.locations.size(), 3U);
    EXPECT_EQ(ra.locations[1].registers.at(0).type, DataType::Int);
    EXPECT_EQ(ra.locations[1].transitions[0].line, 18);
    const RegisterAutomaton truth = testing::priority_queue2();
    RaSimulator a(ra), b(truth);
    const DataWord w{{0, {5}}, {0, {3}}, {0, {9}}, {1, {}}, {1, {}}, {1, {}}, {0, {4}}, {0, {4}}, {1, {}}};
    EXPECT_EQ(a.run(w), b.run(w));
}

TEST(RaFormat, WritesCanonicallyAndReadsBackEqual) {
    const RaSpec spec = parse_register_spec(kPq, "pq.yaml");
    const std::string text = write_register_spec(spec);
    EXPECT_EQ(text, write_register_spec(spec));
    const RaSpec back = parse_register_spec(text, "back.yaml");
    EXPECT_EQ(write_register_spec(back), text);  // a fixpoint
    EXPECT_NE(text.find(R"~(- {input: "offer(p)", guard: "p < r1", output: ok, assign: {r1: p, r2: r1}, to: l2})~"),
              std::string::npos)
        << text;
    for (const auto& fixture : {testing::key_store(), testing::login(), testing::priority_queue2()}) {
        const std::string t = write_register_spec(RaSpec{fixture, 2, {}});
        EXPECT_EQ(parse_register_spec(t, "x.yaml").automaton, fixture) << t;
    }
}

// RALib names the parameters of inputs and outputs alike (keygen: `IPut(p1)` answers `OPut(p1)`
// with a fresh key it stores). The reader takes a name for the input's parameter first, so the
// writer renames the input's parameter in such a transition; it used to refuse the automaton
// ("would read back differently").
TEST(RaFormat, RenamesInputParametersThatWouldHideAStoredOutputParameter) {
    RegisterAutomaton ra = testing::key_store();
    ra.outputs[0].params[0].name = "v";  // put(v) / key(fresh), assign {value: v, key: <the key's v>}
    std::string text = write_register_spec(RaSpec{ra, 2, {}});
    EXPECT_EQ(parse_register_spec(text, "x.yaml").automaton, ra) << text;
    EXPECT_NE(text.find(R"~({input: "put(v_)", output: "key(fresh)", assign: {value: v_, key: v}, to: s1})~"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(R"~({input: "get(k)", output: nok, to: s0})~"), std::string::npos) << text;  // no need
    const std::string dot = write_register_dot(ra);  // the picture names them as the file does
    EXPECT_NE(dot.find("put(v_) / key(fresh)\\nvalue:=v_, key:=v"), std::string::npos) << dot;
    // A new name hides nothing either: not a register, not another parameter.
    ra.locations[1].registers[0].name = "v_";
    ra.locations[1].registers[1].name = "v__";
    ra.inputs[0].params.push_back({"v___", DataType::Id});
    ASSERT_EQ(ra.locations[1].transitions[0].input, 0U);  // s1's put: now also a new key, stored
    ra.locations[1].transitions[0] = {0, Guard{}, 0, {OutputArg{true, {}}}, 1,
                                      {Term{Term::Kind::Param, 0}, Term{Term::Kind::OutputParam, 0}}};
    text = write_register_spec(RaSpec{ra, 2, {}});
    EXPECT_EQ(parse_register_spec(text, "x.yaml").automaton, ra) << text;
    EXPECT_NE(text.find(R"~({input: "put(v____, v___)", output: "key(fresh)", assign: {v_: v____, v__: v}, to: s1})~"),
              std::string::npos)
        << text;
}

TEST(RaFormat, RefusesAnAssignmentSourceWithTwoMeanings) {
    const std::string text = R"~(typestar: 2
kind: register-automaton
name: ks
callins: ["put(v: id)"]
callbacks: []
returns: ["key(v: id)"]
constants: {}
initial: s0
locations:
  s0:
    registers: []
    transitions:
      - {input: "put(v)", output: "key(fresh)", assign: {k: v}, to: s1}
  s1:
    registers: [k]
    transitions:
      - {input: "put(v)", output: "key(k)", assign: {k: k}, to: s1}
)~";
    const auto m = messages(text);
    ASSERT_EQ(m.size(), 1U);
    EXPECT_EQ(m[0].rfind("f.yaml:13:", 0), 0U) << m[0];
    EXPECT_NE(m[0].find("'v' names both"), std::string::npos) << m[0];
    // renaming the input's parameter reads
    EXPECT_TRUE(messages(replace(text, R"~("put(v)", output: "key(fresh)", assign: {k: v})~",
                                 R"~("put(x)", output: "key(fresh)", assign: {k: v})~"))
                    .empty());
}

// Issue 39 (surviving mutants): a register's type may be left out wherever the assignments imply
// it, however far the implication travels. Here la's register is typed only through lb's, and lb's
// only through lc's, which the file lists after them: a reader that stops after one pass over the
// locations (or never infers) refuses a valid file.
TEST(RaFormat, InfersRegisterTypesThroughAChainListedBackwards) {
    const char* const text = R"~(typestar: 2
kind: register-automaton
name: chain
callins: ["offer(p: int)", poll]
callbacks: []
returns: [ok, nok, "out(v: int)"]
constants: {}
initial: l0
locations:
  l0:
    registers: []
    transitions:
      - {input: "offer(p)", output: ok, assign: {c: p}, to: lc}
      - {input: poll, output: nok, to: l0}
  la:
    registers: [a]
    transitions:
      - {input: "offer(p)", output: nok, assign: {a: a}, to: la}
      - {input: poll, output: "out(a)", to: l0}
  lb:
    registers: [b]
    transitions:
      - {input: "offer(p)", output: ok, assign: {a: b}, to: la}
      - {input: poll, output: "out(b)", to: l0}
  lc:
    registers: [c]
    transitions:
      - {input: "offer(p)", output: ok, assign: {b: c}, to: lb}
      - {input: poll, output: "out(c)", to: l0}
)~";
    EXPECT_EQ(messages(text), std::vector<std::string>{});
    const RaSpec spec = parse_register_spec(text, "chain.yaml");
    for (const auto& l : spec.automaton.locations)
        for (const auto& r : l.registers) EXPECT_EQ(r.type, DataType::Int) << l.name << "." << r.name;
    // The behaviour: three offers are remembered along the chain, poll answers the first.
    RaSimulator sim(spec.automaton);
    const DataWord out = sim.run(DataWord{{0, {5}}, {0, {6}}, {0, {7}}, {1, {}}});
    ASSERT_EQ(out.size(), 4U);
    EXPECT_EQ(out[3], (DataSymbol{2, {5}}));
    // Written without the types (the reader infers them) and read back the same.
    const std::string written = write_register_spec(spec);
    EXPECT_NE(written.find("registers: [a]"), std::string::npos) << written;
    EXPECT_EQ(write_register_spec(parse_register_spec(written, "back.yaml")), written);
}

// Issue 39 (a surviving mutant): `bounds: {distinguisher: 0}` is a valid bound (suffixes of length
// 0: the learner's words end at each transition); only a negative or non-integer one is refused.
TEST(RaFormat, ADistinguisherBoundOfZeroIsReadAndWrittenBack) {
    const std::string text = replace(kPq, "constants: {}\n", "constants: {}\nbounds: {distinguisher: 0}\n");
    EXPECT_EQ(messages(text), std::vector<std::string>{});
    const RaSpec spec = parse_register_spec(text, "pq.yaml");
    EXPECT_EQ(spec.distinguisher, 0U);
    EXPECT_NE(write_register_spec(spec).find("bounds: {distinguisher: 0}"), std::string::npos);
    const std::string negative = replace(kPq, "constants: {}\n", "constants: {}\nbounds: {distinguisher: -1}\n");
    ASSERT_EQ(messages(negative).size(), 1U);
    EXPECT_NE(messages(negative)[0].find("bounds: distinguisher must be a non-negative integer"), std::string::npos)
        << messages(negative)[0];
}

TEST(RaFormat, MalformedFilesNameFileLineAndColumn) {
    EXPECT_EQ(messages(replace(kPq, "guard: \"x < r1\"", "guard: \"x < q1\"")),
              std::vector<std::string>{"f.yaml:18:41: guard: unknown name 'q1' (not a parameter, register or constant)"});
    EXPECT_EQ(messages(replace(kPq, "input: poll,       output", "input: pull,       output")),
              std::vector<std::string>{"f.yaml:14:17: undeclared callin 'pull'"});
    EXPECT_EQ(messages(replace(kPq, "assign: {r1: r2}, to: l1", "to: l1")),
              std::vector<std::string>{"f.yaml:25:9: register r1 of l1 is not assigned (write `r1: r1` to keep it)"});
    EXPECT_EQ(messages(replace(kPq, "guard: \"p >= r1\"", "guard: \"p > r1\"")).at(0),
              "f.yaml:15: location l1, offer: no guard holds when r1 = 0, p = 0");
    EXPECT_EQ(messages(replace(kPq, "guard: \"p >= r1\"", "guard: \"p <= r1\"")).at(0),
              "f.yaml:15: location l1, offer: guards overlap when r1 = 0, p = -1048576 (lines 18 19)");
    EXPECT_EQ(messages(replace(kPq, "kind: register-automaton", "kind: typestate")),
              std::vector<std::string>{"f.yaml:2:7: this file is a typestate: use load_spec"});
    EXPECT_EQ(messages(replace(kPq, "typestar: 2", "typestar: 1")),
              std::vector<std::string>{"f.yaml:1:11: register automata need `typestar: 2`"});
    EXPECT_EQ(messages(replace(kPq, "\"offer(p: int)\"", "\"offer(p: float)\"")),
              std::vector<std::string>{"f.yaml:4:11: type 'float' is not compared by register automata (use int or id)"});
    EXPECT_EQ(messages(replace(kPq, "initial: l0", "initial: l0\ninital: l1")).at(0),
              "f.yaml:9:1: spec: unknown key 'inital' (expected one of typestar, kind, name, callins, callbacks, returns, "
              "constants, increments, initial, bounds, provenance, locations, timing, assumptions)");
    EXPECT_FALSE(messages("{").empty());
    EXPECT_FALSE(messages("").empty());
    EXPECT_FALSE(messages("- 1\n- 2\n").empty());
    // the +c theory (issue 28): a `+` without its integer names the column after it
    EXPECT_EQ(messages(replace(kPq, "guard: \"x < r1\"", "guard: \"x < r1 +\"")).at(0),
              "f.yaml:18:45: guard: expected a non-negative integer after '+' or '-'");
}

// One way to say "this argument matters" (issue 28; docs/spec-format-v2.md, "Guards"): a register
// automaton keeps its parameters as data; `data` after the type says so and is written back,
// `partition` (a typestate's treatment) is refused by name.
TEST(RaFormat, AParameterSaysItIsKeptAsDataAndPartitionIsRefused) {
    const std::string with_data = replace(kPq, "\"offer(p: int)\"", "\"offer(p: int data)\"");
    const RaSpec spec = parse_register_spec(with_data, "f.yaml");
    ASSERT_TRUE(spec.automaton.inputs[0].params[0].abstraction.has_value());
    EXPECT_EQ(*spec.automaton.inputs[0].params[0].abstraction, Abstraction::Data);
    EXPECT_EQ(spec.automaton, parse_register_spec(kPq, "f.yaml").automaton);  // the same automaton
    const std::string text = write_register_spec(spec);
    EXPECT_NE(text.find("\"offer(p: int data)\""), std::string::npos) << text;
    EXPECT_EQ(write_register_spec(parse_register_spec(text, "back.yaml")), text);
    EXPECT_EQ(write_register_spec(parse_register_spec(kPq, "f.yaml")).find(" data"), std::string::npos);
    EXPECT_EQ(messages(replace(kPq, "\"offer(p: int)\"", "\"offer(p: int partition)\"")).at(0),
              std::string(
                  "f.yaml:4:11: callins: parameter 'p' of offer is abstracted by partitions ('partition'), but a "
                  "register automaton keeps every parameter as data: write 'data' (or nothing), or write the spec as "
                  "a typestate (kind: typestate) with partitions"));
    EXPECT_EQ(messages(replace(kPq, "\"offer(p: int)\"", "\"offer(p: int often)\"")).at(0),
              "f.yaml:4:11: callins: unknown treatment 'often' of parameter 'p' (expected 'data' or 'partition' after "
              "the type)");
}

// Every committed register automaton (specs/**, examples/**) loads; one typestar wrote (no comment
// lines) writes back byte for byte, and every written form is a fixpoint.
TEST(RaFormat, EveryCommittedRegisterAutomatonRoundTrips) {
    namespace fs = std::filesystem;
    std::size_t seen = 0;
    std::size_t byte_for_byte = 0;
    for (const char* dir : {"specs", "examples"})
        for (const auto& e : fs::recursive_directory_iterator(fs::path(TYPESTAR_SOURCE_DIR) / dir)) {
            if (e.path().extension() != ".yaml") continue;
            std::ifstream in(e.path(), std::ios::binary);
            const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
            if (text.find("kind: register-automaton") == std::string::npos) continue;
            SCOPED_TRACE(e.path().string());
            ++seen;
            const std::string written = write_register_spec(load_register_spec(e.path()));
            EXPECT_EQ(write_register_spec(parse_register_spec(written, "back.yaml")), written);
            if (text.rfind("#", 0) == 0 || text.find("\n#") != std::string::npos ||
                text.find("\n  #") != std::string::npos)
                continue;  // annotated by hand
            ++byte_for_byte;
            EXPECT_EQ(written, text);
        }
    EXPECT_GE(seen, 4u);
    EXPECT_GE(byte_for_byte, 1u);
}

TEST(RaFormat, SavesAtomically) {
    const auto dir = std::filesystem::temp_directory_path() / ("ra_format_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const RaSpec spec = parse_register_spec(kPq, "pq.yaml");
    save_register_spec(spec, dir / "pq.yaml");
    EXPECT_EQ(load_register_spec(dir / "pq.yaml").automaton, parse_register_spec(write_register_spec(spec), "x").automaton);
    RaSpec broken = spec;
    broken.automaton.locations[1].transitions.pop_back();  // poll is missing: invalid
    EXPECT_THROW(save_register_spec(broken, dir / "pq.yaml"), Error);
    EXPECT_EQ(load_register_spec(dir / "pq.yaml").automaton.num_transitions(), 7U);  // the old file survives
    EXPECT_THROW((void)load_register_spec(dir / "missing.yaml"), SpecError);
    std::filesystem::remove_all(dir);
}

const char* const kXml = R"~(<?xml version="1.0" encoding="UTF-8" ?>
<register-automaton>
   <alphabet>
      <inputs>
         <symbol name="IPut"><param type="int" name="p0"/></symbol>
         <symbol name="IGet"><param type="int" name="p0"/></symbol>
      </inputs>
      <outputs>
         <symbol name="OKey"><param type="int" name="p0"/></symbol>
         <symbol name="OVal"><param type="int" name="p0"/></symbol>
         <symbol name="ONOK"/>
      </outputs>
   </alphabet>
   <constants></constants>
   <globals>
      <variable type="int" name="key">0</variable>
      <variable type="int" name="val">0</variable>
      <variable type="int" name="dead">0</variable>
   </globals>
   <locations>
      <location name="s0" initial="true"/>
      <location name="m0"/><location name="m1"/><location name="s1"/>
      <location name="m2"/><location name="m3"/><location name="m4"/>
   </locations>
   <transitions>
      <transition from="s0" to="m0" symbol="IPut" params="v">
         <assignments><assign to="val">v</assign><assign to="dead">v</assign></assignments>
      </transition>
      <transition from="m0" to="s1" symbol="OKey" params="key">
         <assignments><assign to="key">__fresh__</assign></assignments>
      </transition>
      <transition from="s0" to="m1" symbol="IGet" params="k"/>
      <transition from="m1" to="s0" symbol="ONOK"/>
      <transition from="s1" to="m2" symbol="IPut" params="v"/>
      <transition from="m2" to="s1" symbol="ONOK"/>
      <transition from="s1" to="m3" symbol="IGet" params="k"><guard>key==k</guard></transition>
      <transition from="m3" to="s1" symbol="OVal" params="val"/>
      <transition from="s1" to="m4" symbol="IGet" params="k"><guard>key!=k</guard></transition>
      <transition from="m4" to="s1" symbol="ONOK"/>
   </transitions>
</register-automaton>
)~";

TEST(RaRalibXml, JoinsInputAndOutputLocationsAndKeepsLiveRegisters) {
    const RegisterAutomaton ra = import_ralib_xml(kXml, "keys.xml");
    ASSERT_EQ(ra.locations.size(), 2U);
    EXPECT_EQ(ra.locations[1].registers.size(), 2U);  // key and val; `dead` is never read
    EXPECT_EQ(ra.inputs[0].params[0].type, DataType::Id);
    RaSimulator sim(ra);
    const DataWord out = sim.run({{0, {10}}, {1, {3}}});
    ASSERT_EQ(out[0].values.size(), 1U);
    const Value key = out[0].values[0];
    const DataWord again = sim.run({{0, {10}}, {1, {key}}, {0, {11}}});
    EXPECT_EQ(ra.outputs[again[1].symbol].name, "OVal");
    EXPECT_EQ(again[1].values, std::vector<Value>{10});
    EXPECT_EQ(ra.outputs[again[2].symbol].name, "ONOK");
    // The same machine as the in-memory key store, up to names.
    const RegisterAutomaton ks = testing::key_store();
    RaSimulator other(ks);
    const DataWord w{{0, {4}}, {1, {5}}, {1, {5}}, {0, {5}}};
    auto names = [](const RegisterAutomaton&, const DataWord& o) {
        std::vector<std::size_t> s;
        for (const auto& x : o) s.push_back(x.symbol);
        return s;
    };
    EXPECT_EQ(names(ra, sim.run(w)), names(ks, other.run(w)));
}

TEST(RaRalibXml, RefusesOverlapsUnlessFirstMatchAndReportsLines) {
    std::string overlapping = kXml;
    overlapping.replace(overlapping.find("<guard>key!=k</guard>"), 21, "<guard>key!=k || val!=k</guard>");
    try {
        (void)import_ralib_xml(overlapping, "keys.xml");
        ADD_FAILURE() << "overlap accepted";
    } catch (const SpecError& e) {
        for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
        EXPECT_NE(e.diagnostics().at(0).message.find("guards overlap"), std::string::npos) << e.diagnostics().at(0).str();
    }
    std::string broken = kXml;
    broken.replace(broken.find("<guard>key==k</guard>"), 21, "<guard>kee==k</guard>");
    try {
        (void)import_ralib_xml(broken, "keys.xml");
        ADD_FAILURE() << "unknown name accepted";
    } catch (const SpecError& e) {
        EXPECT_EQ(e.diagnostics().at(0).str(), "keys.xml:36: guard 'kee==k': unknown name 'kee' (not a parameter, "
                                               "register or constant)");
    }
    EXPECT_THROW((void)import_ralib_xml("<register-automaton><alphabet>", "x.xml"), SpecError);
    EXPECT_THROW((void)import_ralib_xml("<other/>", "x.xml"), SpecError);
}

TEST(RaRalibXml, FirstMatchMakesOverlapsDeterministic) {
    std::string overlapping = kXml;
    // `key!=k || val!=k` overlaps `key==k` when val != key == k; RALib takes the first (key==k).
    overlapping.replace(overlapping.find("<guard>key!=k</guard>"), 21, "<guard>key!=k || val!=k</guard>");
    RalibImportOptions options;
    options.first_match = true;
    const RegisterAutomaton ra = import_ralib_xml(overlapping, "keys.xml", options);
    RaSimulator sim(ra);
    const DataWord out = sim.run({{0, {10}}});
    const DataWord w{{0, {10}}, {1, {out[0].values[0]}}};
    EXPECT_EQ(ra.outputs[sim.run(w)[1].symbol].name, "OVal");
}

TEST(RaDot, GuardsAndAssignmentsOnEdges) {
    const std::string dot = write_register_dot(testing::priority_queue2());
    EXPECT_NE(dot.find(R"~("l1" -> "l2" [label="offer(p) | p < r1 / ok\nr1:=p, r2:=r1"];)~"), std::string::npos) << dot;
    EXPECT_NE(dot.find(R"~("l2" [label="l2\n[r1,r2]"];)~"), std::string::npos) << dot;
    EXPECT_NE(dot.find(R"~("l2" -> "l1" [label="poll / out(r1)\nr1:=r2"];)~"), std::string::npos) << dot;
    EXPECT_EQ(dot, write_register_dot(testing::priority_queue2()));
}

}  // namespace
}  // namespace typestar::ra
