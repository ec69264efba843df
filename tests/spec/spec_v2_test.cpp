// Spec format version 2, kind typestate (docs/spec-format-v2.md): partitions, unknown transitions,
// the environment role; v1 files read unchanged and written as v1; three-valued minimisation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "spec_fixtures.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/json.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {
namespace {

namespace fs = std::filesystem;
using namespace testing_fixtures;

TEST(SpecV2, GoldenOutputAndRoundTrip) {
    const Spec spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    const std::string text = write_spec(spec);
    EXPECT_EQ(text, read_text(kFixtures / "golden" / "params_v2.yaml"));
    const Spec back = parse_spec(text, "back.yaml");
    EXPECT_EQ(back.typestate, canonical(spec.typestate));
    EXPECT_EQ(back.declarations, spec.declarations);
    EXPECT_EQ(write_spec(back), text);
}

TEST(SpecV2, NotRunValuesRoundTripAndSpecsWithoutThemReadAsBefore) {
    Spec spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    const std::string before = write_spec(spec);
    EXPECT_EQ(before.find("not_run"), std::string::npos);  // old specs: nothing new written
    for (const Partition& p : spec.declarations[3].partitions) EXPECT_TRUE(p.not_run.empty());
    spec.declarations[3].partitions[0].not_run = {"b'z',26", "b'y',25", "b'z',26"};
    const std::string text = write_spec(spec);
    EXPECT_NE(text.find("not_run: [\"b'y',25\", \"b'z',26\"]"), std::string::npos) << text;
    const Spec back = parse_spec(text, "back.yaml");
    EXPECT_EQ(back.declarations[3].partitions[0].not_run, (std::vector<std::string>{"b'y',25", "b'z',26"}));
    EXPECT_EQ(back.declarations, normalised_declarations(spec.declarations));
    EXPECT_EQ(write_spec(back), text);
    try {
        const std::string list = "not_run: [\"b'y',25\", \"b'z',26\"]";
        (void)parse_spec(std::string(text).replace(text.find(list), list.size(), "not_run: {a: 1}"), "bad.yaml");
        ADD_FAILURE() << "no error";
    } catch (const SpecError& e) {
        EXPECT_NE(std::string(e.what()).find("'not_run' of partition 'nonempty' must be a list of strings"),
                  std::string::npos) << e.what();
    }
}

TEST(SpecV2, ReadsDeclarationsPartitionsRolesAndUnknown) {
    const Spec spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    const Typestate& t = spec.typestate;
    // Abstract inputs, indexed by name.
    EXPECT_EQ(t.callins, (std::vector<std::string>{"close", "connect[connected]", "connect[null]",
                                                   "connect[unconnected]", "feed", "flush", "write[empty]",
                                                   "write[nonempty]"}));
    ASSERT_EQ(spec.declarations.size(), 4u);  // connect, feed, flush(), write; close is bare
    const CallinDeclaration& write = spec.declarations[3];
    EXPECT_EQ(write.signature(), "write(buf: bytes, len: int)");
    ASSERT_EQ(write.partitions.size(), 2u);
    EXPECT_EQ(write.partitions[0].name, "nonempty");  // declaration order kept
    EXPECT_EQ(write.partitions[0].values, (std::vector<std::string>{"b'abc',3", "b'x',1"}));  // sorted, unique
    EXPECT_EQ(write.partitions[0].split_from, "any");
    EXPECT_EQ(write.partitions[0].split_by, "connect[unconnected] write");
    EXPECT_EQ(spec.declarations[2].signature(), "flush()");
    EXPECT_TRUE(spec.declarations[1].environment);
    EXPECT_TRUE(t.info("feed").environment);
    EXPECT_EQ(t.info("connect[null]").guard, "snk == null");
    EXPECT_FALSE(t.info("close").environment);
    const StateId s0 = *t.find_state("S0");
    const auto* u = t.unknown_at(s0, 1);  // connect[connected]
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->source, Unknown::Source::Unresolved);
    EXPECT_EQ(u->reason, "3 runs disagreed: ok x2, err x1");
    EXPECT_FALSE(t.states[s0].callins[1].has_value());
    EXPECT_EQ(t.unknown_at(*t.find_state("Connected"), 1)->source, Unknown::Source::Disagreeing);
    EXPECT_EQ(t.unknown_at(s0, 6)->source, Unknown::Source::Purpose);
    EXPECT_EQ(spec.source.line_of("S0", "write[empty]"), 26);
}

TEST(SpecV2, Version1IsReadUnchangedAndWrittenAsVersion1) {
    for (const char* name : {"asynctask", "mediaplayer"}) {
        const Spec v1 = load_spec(kSource / "specs" / (std::string(name) + ".yaml"));
        EXPECT_FALSE(v1.uses_version2());
        EXPECT_TRUE(v1.declarations.empty());
        EXPECT_TRUE(v1.typestate.input_info.empty());
        EXPECT_EQ(write_spec(v1).rfind("typestar: 1\n", 0), 0u);
    }
}

TEST(SpecV2, Version1SpecGainingAnUnknownIsWrittenAsVersion2AndReadsBackEqual) {
    Spec spec = load_spec(kSource / "specs" / "mediaplayer.yaml");
    Typestate& t = spec.typestate;
    // Make one refused callin of the initial state unknown (never tried by the purpose).
    std::size_t callin = 0;
    while (t.states[t.initial].callins[callin]) ++callin;
    t.states[t.initial].unknown[callin] = Unknown{Unknown::Source::Purpose, "purpose 'Drained' never calls it here"};
    const std::string text = write_spec(spec);
    EXPECT_EQ(text.rfind("typestar: 2\nkind: typestate\n", 0), 0u) << text;
    EXPECT_NE(text.find("    unknown:\n      " + t.callins[callin] +
                        ": {source: purpose, reason: \"purpose 'Drained' never calls it here\"}\n"),
              std::string::npos)
        << text;
    const Spec back = parse_spec(text, "back.yaml");
    EXPECT_EQ(back.typestate, canonical(spec.typestate));
    EXPECT_FALSE(same_behaviour(back, load_spec(kSource / "specs" / "mediaplayer.yaml")))
        << "unknown and err are different answers";
}

Typestate two_twins(const Unknown* first, const Unknown* second) {
    // S0 -a-> S1 -a-> S2 -a-> S0 ... with b refused everywhere; S1 and S2 equivalent unless their
    // unknown sets differ.
    Typestate t;
    t.name = "Twins";
    t.callins = {"a", "b"};
    t.states = {Typestate::State{"S0", {StateId{1}, std::nullopt}, {}, Typestate::Wait::Quiet, {}, {}},
                Typestate::State{"S1", {StateId{2}, std::nullopt}, {}, Typestate::Wait::Quiet, {}, {}},
                Typestate::State{"S2", {StateId{1}, std::nullopt}, {}, Typestate::Wait::Quiet, {}, {}}};
    if (first) t.states[1].unknown[1] = *first;
    if (second) t.states[2].unknown[1] = *second;
    return t;
}

TEST(SpecV2, MinimisationNeverMergesStatesWithDifferentUnknownSets) {
    const Unknown purpose{Unknown::Source::Purpose, "never tried"};
    const Unknown unresolved{Unknown::Source::Unresolved, "disagreed"};
    EXPECT_EQ(canonical(two_twins(nullptr, nullptr)).states.size(), 1u);      // all three equivalent
    EXPECT_EQ(canonical(two_twins(&purpose, &purpose)).states.size(), 2u);    // S1 ~ S2: same unknown
    EXPECT_EQ(canonical(two_twins(&purpose, nullptr)).states.size(), 2u);     // S1 apart: unknown vs err
    EXPECT_EQ(canonical(two_twins(&purpose, &unresolved)).states.size(), 3u); // different reasons
    const Typestate c = canonical(two_twins(&purpose, &unresolved));
    ASSERT_NE(c.unknown_at(*c.find_state("S1"), 1), nullptr);
    EXPECT_EQ(*c.unknown_at(*c.find_state("S1"), 1), purpose);
    EXPECT_EQ(*c.unknown_at(*c.find_state("S2"), 1), unresolved);
}

TEST(SpecV2, WriterRefusesInconsistentDeclarations) {
    Spec spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    spec.typestate.input_info["close"].guard = "made up";
    EXPECT_THROW((void)write_spec(spec), Error);
    spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    spec.declarations[0].partitions.pop_back();  // connect[connected] is still an input
    EXPECT_THROW((void)write_spec(spec), Error);
}

// ---------------------------------------------------------------------------------------------
// Guards (issue 28; docs/spec-format-v2.md, "Guards"): one expression language for partitions and
// register automata. The reader's errors are the bad/v2_guard_errors and bad/v2_parameter_treatment
// fixtures (exact file:line:col diagnostics).

const CallinDeclaration* declaration_named(const Spec& spec, const std::string& name) {
    for (const auto& d : spec.declarations)
        if (d.name == name) return &d;
    return nullptr;
}

TEST(SpecV2Guards, AGuardThatParsesOverTheParametersIsAnExpressionEvaluatedOnItsValues) {
    const Spec spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    const CallinDeclaration* write = declaration_named(spec, "write");
    ASSERT_NE(write, nullptr);
    const auto nonempty = partition_guard(write->partitions[0].guard, write->parameters);  // "len > 0"
    ASSERT_TRUE(nonempty.expression.has_value()) << nonempty.error;
    EXPECT_EQ(std::get<bool>(guard_holds(*nonempty.expression, *write->parameters, "b'abc',3")), true);
    EXPECT_EQ(std::get<bool>(guard_holds(*nonempty.expression, *write->parameters, "b'',0")), false);
    EXPECT_EQ(std::get<bool>(guard_holds(*nonempty.expression, *write->parameters, " b'q' , -4 ")), false);
    EXPECT_NE(std::get<std::string>(guard_holds(*nonempty.expression, *write->parameters, "b'q',four"))
                  .find("'four' is not an integer for parameter 'len'"),
              std::string::npos);
    // Words: a name that is no parameter and no near miss of one (`null`), or no grammar at all.
    const CallinDeclaration* connect = declaration_named(spec, "connect");
    ASSERT_NE(connect, nullptr);
    for (const auto& p : connect->partitions) {
        const auto g = partition_guard(p.guard, connect->parameters);
        EXPECT_FALSE(g.expression.has_value()) << p.guard;
        EXPECT_TRUE(g.error.empty()) << g.error;
    }
    // No signature: words. `true` is an expression that every value satisfies.
    EXPECT_FALSE(partition_guard("len > 0", std::nullopt).expression.has_value());
    const auto always = partition_guard("true", write->parameters);
    ASSERT_TRUE(always.expression.has_value());
    EXPECT_TRUE(std::get<bool>(guard_holds(*always.expression, *write->parameters, "no fields at all")));
    // The RA language's `+ c` and `||` read the same way here.
    const auto either = partition_guard("len == 2 || len + 1 == 0", write->parameters);
    ASSERT_TRUE(either.expression.has_value());
    EXPECT_TRUE(std::get<bool>(guard_holds(*either.expression, *write->parameters, "b'',-1")));
    EXPECT_FALSE(std::get<bool>(guard_holds(*either.expression, *write->parameters, "b'',1")));
}

TEST(SpecV2Guards, ASpecWhoseGuardContradictsItsOwnValuesIsNeverWritten) {
    Spec spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    for (auto& d : spec.declarations)
        if (d.name == "write") d.partitions[0].values.push_back("b'',0");  // "len > 0", and in `empty` too
    try {
        (void)write_spec(spec);
        ADD_FAILURE() << "written";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("value 'b'',0' of partition 'nonempty' of write(buf: bytes, len: int) does not satisfy "
                            "its guard \"len > 0\""),
                  std::string::npos) << what;
    }
}

TEST(SpecV2Guards, APartitionTreatmentIsReadAndWrittenBack) {
    const std::string text = read_text(kFixtures / "golden" / "params_v2.yaml");
    const std::string from = "\"write(buf: bytes, len: int)\"";
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos);
    const std::string marked = std::string(text).replace(at, from.size(), "\"write(buf: bytes, len: int partition)\"");
    const Spec spec = parse_spec(marked, "marked.yaml");
    const CallinDeclaration* write = declaration_named(spec, "write");
    ASSERT_NE(write, nullptr);
    EXPECT_EQ(write->parameters->at(1).abstraction, Abstraction::Partition);
    EXPECT_FALSE(write->parameters->at(0).abstraction.has_value());
    EXPECT_EQ(write_spec(spec), marked);
}

// Every committed typestate spec (specs/**, examples/**) loads; one typestar wrote (no comment
// lines) writes back byte for byte, and every written form is a fixpoint.
TEST(SpecV2Guards, EveryCommittedSpecLoadsAndRoundTrips) {
    std::size_t seen = 0;
    std::size_t byte_for_byte = 0;
    for (const char* dir : {"specs", "examples"})
        for (const auto& e : fs::recursive_directory_iterator(kSource / dir)) {
            if (e.path().extension() != ".yaml") continue;
            const std::string text = read_text(e.path());
            if (text.find("kind: register-automaton") != std::string::npos) continue;
            SCOPED_TRACE(e.path().string());
            ++seen;
            const Spec spec = load_spec(e.path());
            const std::string written = write_spec(spec);
            EXPECT_EQ(write_spec(parse_spec(written, "back.yaml")), written);
            std::istringstream lines(text);
            bool comments = false;
            for (std::string line; std::getline(lines, line);) {
                const auto first = line.find_first_not_of(' ');
                comments = comments || (first != std::string::npos && line[first] == '#');
            }
            if (comments) continue;
            ++byte_for_byte;
            EXPECT_EQ(written, text);
        }
    EXPECT_GE(seen, 20u);
    EXPECT_GE(byte_for_byte, 15u);
}

TEST(SpecV2Diff, GuardChangesAreShownApartFromBehaviour) {
    const Spec old_spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    Spec new_spec = old_spec;
    new_spec.declarations[0].partitions[0].guard = "snk is null";  // connect[null]
    new_spec.typestate.input_info = input_info_of(new_spec.declarations);
    const SpecDiff d = diff_specs(old_spec, new_spec);
    ASSERT_EQ(d.guard_changes.size(), 1u);
    EXPECT_EQ(d.guard_changes[0], (GuardChange{"connect[null]", "snk == null", "snk is null"}));
    EXPECT_TRUE(d.changes.empty());
    EXPECT_TRUE(d.unknown_changes.empty());
    EXPECT_FALSE(d.witness);
    EXPECT_FALSE(d.empty());
    const std::string text = format_diff(d);
    EXPECT_NE(text.find("### Guards and roles"), std::string::npos) << text;
    EXPECT_NE(text.find("snk is null"), std::string::npos) << text;
    EXPECT_TRUE(same_behaviour(old_spec, new_spec));
}

TEST(SpecV2Diff, LegalAndErrToUnknownAreListedSeparately) {
    const Spec old_spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    Spec new_spec = old_spec;
    Typestate& t = new_spec.typestate;
    const StateId s0 = *t.find_state("S0");
    // close: legal -> unknown; connect[null]: err -> unknown; connect[connected]: unknown -> err.
    t.states[s0].callins[0].reset();
    t.states[s0].unknown[0] = Unknown{Unknown::Source::Unresolved, "timing"};
    t.states[s0].unknown[2] = Unknown{Unknown::Source::Purpose, "never tried"};
    t.states[s0].unknown.erase(1);
    const SpecDiff d = diff_specs(old_spec, new_spec);
    EXPECT_TRUE(d.changes.empty()) << format_diff(d);
    ASSERT_EQ(d.unknown_changes.size(), 3u) << format_diff(d);
    EXPECT_EQ(d.unknown_changes[0].symbol, "close");
    EXPECT_EQ(d.unknown_changes[0].before, "-> Closed");
    EXPECT_EQ(d.unknown_changes[0].after, "unknown (unresolved: timing)");
    EXPECT_EQ(d.unknown_changes[1].symbol, "connect[connected]");
    EXPECT_EQ(d.unknown_changes[1].after, "err");
    EXPECT_EQ(d.unknown_changes[2].symbol, "connect[null]");
    EXPECT_EQ(d.unknown_changes[2].before, "err");
    EXPECT_NE(format_diff(d).find("### Unknown transitions"), std::string::npos);
    // err <-> unknown alone: the two-valued closures agree, the diff still is not empty.
    Spec only_err = old_spec;
    only_err.typestate.states[s0].unknown[2] = Unknown{Unknown::Source::Purpose, "never tried"};
    const SpecDiff e = diff_specs(old_spec, only_err);
    EXPECT_FALSE(e.witness);
    EXPECT_EQ(e.unknown_changes.size(), 1u);
    EXPECT_FALSE(e.empty());
}

TEST(SpecV2Dot, EdgesCarryGuardsAndUnknownIsDrawnApart) {
    const Spec spec = load_spec(kFixtures / "good" / "params_v2.yaml");
    const std::string dot = write_typestate_dot(canonical(spec.typestate));
    EXPECT_NE(dot.find("S0 -> Connected [label=\"connect[unconnected]()\\n[snk is an unconnected PipedInputStream]\"]"),
              std::string::npos) << dot;
    EXPECT_NE(dot.find("S0 -> S0 [label=\"env: feed()\"]"), std::string::npos) << dot;
    EXPECT_NE(dot.find("S0 -> S0 [label=\"write[empty]()\\n[len == 0] ?\\n(unknown: purpose)\" style=dotted"),
              std::string::npos) << dot;
}

TEST(SpecV2Json, CarriesVersionUnknownAndGuards) {
    const std::string json = write_spec_json(load_spec(kFixtures / "good" / "params_v2.yaml"));
    EXPECT_NE(json.find("\"typestar\": 2"), std::string::npos) << json;
    EXPECT_NE(json.find("\"source\": \"unresolved\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"guard\": \"snk == null\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"role\": \"environment\""), std::string::npos) << json;
}

// --- Mealy devices (issue 34 item 4): named outputs, err absorption, no wait --------------------

std::string first_message(const std::string& text) {
    try {
        (void)parse_spec(text, "m.yaml");
    } catch (const SpecError& e) {
        return e.diagnostics().front().message + " @" + std::to_string(e.diagnostics().front().line);
    }
    return "(loaded)";
}

constexpr const char* kBroker =
    "typestar: 2\n"
    "kind: typestate\n"
    "name: broker\n"
    "callins: [connect, publish]\n"
    "callbacks: []\n"
    "outputs: [CONNACK, PUBACK, closed]\n"
    "absorbing: []\n"
    "wait: false\n"
    "initial: idle\n"
    "states:\n"
    "  idle:\n"
    "    callins:\n"
    "      connect: {output: CONNACK, to: up}\n"
    "      publish: {output: closed, to: idle}\n"
    "  up:\n"
    "    callins:\n"
    "      connect: {output: closed, to: idle}\n"
    "      publish: {output: PUBACK, to: up}\n";

TEST(SpecMealy, ReadsWritesAndChecksTheNamedOutputs) {
    const Spec spec = parse_spec(kBroker, "broker.yaml");
    const Typestate& t = spec.typestate;
    EXPECT_FALSE(t.has_wait);
    EXPECT_FALSE(t.err_absorbing);
    EXPECT_EQ(t.outputs, (std::vector<std::string>{"CONNACK", "PUBACK", "closed"}));
    ASSERT_EQ(t.states.size(), 2u);
    EXPECT_EQ(t.answer_of(0, 0), "CONNACK");
    EXPECT_EQ(t.answer_of(1, 1), "PUBACK");
    const MealyMachine closure = synchronous_closure(t);
    EXPECT_FALSE(closure.inputs().contains("wait"));
    EXPECT_EQ(names_of(closure.outputs_of(word_of({"connect", "publish", "connect", "publish"}, closure.inputs())),
                       closure.outputs()),
              (std::vector<std::string>{"CONNACK", "PUBACK", "closed", "closed"}));
    EXPECT_FALSE(declared_traits(spec).absorbing);  // err is not absorbing, and there is no wait
    EXPECT_FALSE(declared_traits(spec).wait);
    const std::string text = write_spec(spec);
    EXPECT_EQ(text.find("wait: false"), text.find("wait:"));  // only the top-level key
    EXPECT_EQ(parse_spec(text, "back.yaml").typestate, canonical(t));
    EXPECT_EQ(write_spec(parse_spec(text, "back.yaml")), text);
    // A changed output is a difference with a witness, and the table names both outputs.
    std::string changed = kBroker;
    changed.replace(changed.find("publish: {output: PUBACK"), 25, "publish: {output: closed,");
    const SpecDiff d = diff_specs(spec, parse_spec(changed, "new.yaml"));
    ASSERT_TRUE(d.witness.has_value());
    const std::string report = format_diff(d);
    EXPECT_NE(report.find("PUBACK -> up"), std::string::npos) << report;
    EXPECT_NE(report.find("closed -> up"), std::string::npos) << report;
    // JSON carries the outputs per state.
    EXPECT_NE(write_spec_json(spec).find("\"outputs\""), std::string::npos);
}

TEST(SpecMealy, BadMealyKeysAreLocatedErrors) {
    std::string v1 = kBroker;
    v1.replace(0, 11, "typestar: 1");
    EXPECT_NE(first_message(v1).find("needs 'typestar: 2'"), std::string::npos) << first_message(v1);
    std::string undeclared = kBroker;
    undeclared.replace(undeclared.find("output: PUBACK"), 14, "output: PUBACX");
    EXPECT_EQ(first_message(undeclared),
              "undeclared output 'PUBACX' of callin 'publish' in state 'up' (declare it in the top-level 'outputs' "
              "list) @18");
    std::string missing = kBroker;
    missing.replace(missing.find("      publish: {output: closed, to: idle}\n"), 42, "");
    EXPECT_EQ(first_message(missing),
              "state 'idle' does not give the answer of publish (the spec says 'absorbing: []', so err is an output "
              "like any other and every callin needs {output: ..., to: ...}) @11");
    std::string quiet = kBroker + std::string("    quiet: idle\n");
    EXPECT_EQ(first_message(quiet),
              "'quiet' in state 'up': the spec says 'wait: false' (no callbacks, no quiescence input) @19");
    std::string callbacks = kBroker;
    callbacks.replace(callbacks.find("callbacks: []"), 13, "callbacks: [onX]");
    EXPECT_NE(first_message(callbacks).find("'wait: false' (no quiescence input) with callbacks declared"),
              std::string::npos);
    std::string err_output = kBroker;
    err_output.replace(err_output.find("absorbing: []\n"), 14, "");
    err_output.replace(err_output.find("closed]"), 7, "err]");
    EXPECT_NE(first_message(err_output).find("reserved name 'err' used as an output (err is absorbing unless"),
              std::string::npos) << first_message(err_output);
}

TEST(SpecMealy, InputsWithParenthesesThatAreNoSignatureRoundTrip) {
    // AALpy's TCP models name inputs like ACK(V,V,0): a name, not a signature (no parameter list).
    // Before, writing a spec learned from them failed ("malformed parameter 'V' in signature").
    MealyBuilder b(Alphabet({"ACK(V,V,0)", "SYN(V,V,0)"}), Alphabet({"NIL", "ACK(FRESH,NEXT,0)"}));
    const StateId s0 = b.add_state("s0"), s1 = b.add_state("s1");
    b.set_transition(s0, 0, s0, 0);
    b.set_transition(s0, 1, s1, 1);
    b.set_transition(s1, 0, s0, 0);
    b.set_transition(s1, 1, s1, 0);
    const Spec spec = spec_of_mealy(b.build(), "tcp");
    const std::string text = write_spec(spec);
    const Spec back = parse_spec(text, "tcp.yaml");
    EXPECT_EQ(back.typestate, spec.typestate);
    EXPECT_TRUE(back.declarations.empty());
    // A parameter list is still a signature, and a malformed one is still named as such.
    EXPECT_NE(first_message("typestar: 2\nkind: typestate\nname: x\ncallins: [\"read(n int)\"]\ncallbacks: []\n"
                            "initial: s\nstates: {s: {}}\n")
                  .find("read(n int)"),
              std::string::npos);
}

}  // namespace
}  // namespace typestar::spec
