#include "typestar/spec/dot.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/random_typestate.hpp"
#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"

namespace typestar::spec {
namespace {

const std::string kFixtures = TYPESTAR_SOURCE_DIR "/tests/spec/fixtures/dot/";

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Compares `actual` with the golden file; TYPESTAR_UPDATE_GOLDEN=1 rewrites the file instead.
void expect_golden(const std::string& actual, const std::string& name) {
    const std::string path = kFixtures + "golden/" + name;
    if (std::getenv("TYPESTAR_UPDATE_GOLDEN") != nullptr) {
        std::ofstream(path, std::ios::binary) << actual;
        GTEST_SKIP() << "rewrote " << path;
    }
    EXPECT_EQ(actual, read(path)) << "golden file " << path;
}

/// Every transition as "state -input/output-> target", states then inputs by id.
std::vector<std::string> listing(const MealyMachine& m) {
    std::vector<std::string> lines;
    for (StateId s = 0; s < m.num_states(); ++s)
        for (Symbol i = 0; i < m.num_inputs(); ++i)
            lines.push_back(m.state_name(s) + " -" + m.inputs().name(i) + "/" + m.outputs().name(m.output(s, i)) +
                            "-> " + m.state_name(m.successor(s, i)));
    return lines;
}

std::vector<std::string> state_names(const MealyMachine& m) {
    std::vector<std::string> names;
    for (StateId s = 0; s < m.num_states(); ++s) names.push_back(m.state_name(s));
    return names;
}

using Strings = std::vector<std::string>;

std::vector<std::string> diagnostics_of(const std::string& fixture) {
    try {
        (void)load_mealy_dot(kFixtures + fixture);
    } catch (const SpecError& e) {
        std::vector<std::string> lines;
        for (const auto& d : e.diagnostics()) lines.push_back(d.str());
        return lines;
    }
    return {"(loaded without error)"};
}

// --- syntax variants ---------------------------------------------------------------------------

TEST(MealyDotReader, AalpyPlainTrimsBlanksAroundTheSlash) {
    const auto m = load_mealy_dot(kFixtures + "aalpy_plain.dot");
    EXPECT_EQ(state_names(m), (Strings{"s0", "s1"}));
    EXPECT_EQ(m.inputs().names(), (Strings{"coin", "button"}));
    EXPECT_EQ(m.outputs().names(), (Strings{"beep", "init", "coffee"}));
    EXPECT_EQ(m.initial(), 0u);
    EXPECT_EQ(listing(m), (Strings{"s0 -coin/beep-> s1", "s0 -button/init-> s0", "s1 -coin/beep-> s1",
                                   "s1 -button/coffee-> s0"}));
}

TEST(MealyDotReader, MqttSpacedSlashAndQuotedAttributes) {
    const auto m = load_mealy_dot(kFixtures + "spaced_slash.dot");
    EXPECT_EQ(m.inputs().names(), (Strings{"ConnectC1", "DisconnectC1"}));
    EXPECT_EQ(m.initial(), 0u);
    EXPECT_EQ(listing(m), (Strings{"s0 -ConnectC1/c1_ConnAck-> s1", "s0 -DisconnectC1/c1_ConnectionClosed-> s0",
                                   "s1 -ConnectC1/c1_ConnectionClosed-> s1",
                                   "s1 -DisconnectC1/c1_ConnectionClosed-> s0"}));
}

TEST(MealyDotReader, TcpNoSpaceBeforeBracketAndPunctuationInSymbols) {
    const auto m = load_mealy_dot(kFixtures + "no_space_before_bracket.dot");
    EXPECT_EQ(m.inputs().names(), (Strings{"ACK+PSH(V,V,1)", "LISTEN"}));
    EXPECT_EQ(listing(m), (Strings{"s0 -ACK+PSH(V,V,1)/RST(ZERO,ZERO,0)-> s0", "s0 -LISTEN/TIMEOUT-> s1",
                                   "s1 -ACK+PSH(V,V,1)/ACK+RST(ZERO,NEXT,0)-> s0", "s1 -LISTEN/TIMEOUT-> s1"}));
}

TEST(MealyDotReader, NumericIdsWithoutSemicolonsAndALateInitialMarker) {
    const auto m = load_mealy_dot(kFixtures + "numeric_ids.dot");
    EXPECT_EQ(state_names(m), (Strings{"0", "1", "2"}));  // node ids, not their labels
    EXPECT_EQ(m.state_name(m.initial()), "1");
    EXPECT_EQ(listing(m),
              (Strings{"0 -ClientHelloRSA/ServerHello Certificate & CertificateRequest & ServerHelloDone-> 1",
                       "0 -Finished/Alert Fatal (Unexpected message) & ConnectionClosed-> 2",
                       "1 -ClientHelloRSA/ConnectionClosed-> 2", "1 -Finished/Empty-> 0",
                       "2 -ClientHelloRSA/ConnectionClosed-> 2", "2 -Finished/ConnectionClosed-> 2"}));
}

TEST(MealyDotReader, TlsHtmlLabelsWithGroupedInputs) {
    const auto m = load_mealy_dot(kFixtures + "html_labels.dot");
    EXPECT_EQ(m.inputs().names(), (Strings{"ClientHelloRSA", "Finished", "ApplicationData"}));
    EXPECT_EQ(m.initial(), 0u);  // the labelled __start0 edge is only the marker
    EXPECT_EQ(listing(m),
              (Strings{"s0 -ClientHelloRSA/ServerHello / Certificate / ServerHelloDone-> s1",
                       "s0 -Finished/Alert Fatal (Unexpected message) / ConnectionClosed-> s2",
                       "s0 -ApplicationData/Alert Fatal (Unexpected message) / ConnectionClosed-> s2",
                       "s1 -ClientHelloRSA/Empty-> s1", "s1 -Finished/Alert & Close-> s2",
                       "s1 -ApplicationData/Empty-> s1", "s2 -ClientHelloRSA/ConnectionClosed-> s2",
                       "s2 -Finished/ConnectionClosed-> s2", "s2 -ApplicationData/ConnectionClosed-> s2"}));
}

TEST(MealyDotReader, CommentsAttributesQuotedIdsConcatenationAndFirstSlash) {
    const auto m = load_mealy_dot(kFixtures + "comments_and_attributes.dot");
    EXPECT_EQ(state_names(m), (Strings{"state one", "state two"}));
    EXPECT_EQ(m.initial(), 0u);  // no marker: the first state, silently
    EXPECT_EQ(listing(m), (Strings{"state one -go/ok-> state two", "state one -path/a/b-> state one",
                                   "state two -go/back-> state one", "state two -path/\"q\"-> state two"}));
}

TEST(MealyDotReader, BareAttributeValuesAndBarsInOutputs) {
    const auto m = load_mealy_dot(kFixtures + "bare_label_values.dot");
    EXPECT_EQ(m.state_name(m.initial()), "s1");
    EXPECT_EQ(m.outputs().names(), (Strings{"Adv", "BTLE|BTLE_DATA"}));
}

TEST(MealyDotReader, WithoutInitialMarkerStartsInTheFirstStateMentioned) {
    const auto m = load_mealy_dot(kFixtures + "no_initial_marker.dot");
    EXPECT_EQ(state_names(m), (Strings{"b", "a"}));
    EXPECT_EQ(m.initial(), 0u);
}

TEST(MealyDotReader, EveryVariantFixtureRoundTripsThroughTheWriter) {
    for (const char* name : {"aalpy_plain.dot", "spaced_slash.dot", "no_space_before_bracket.dot", "numeric_ids.dot",
                             "html_labels.dot", "comments_and_attributes.dot", "bare_label_values.dot",
                             "no_initial_marker.dot"}) {
        SCOPED_TRACE(name);
        const auto m = load_mealy_dot(kFixtures + name);
        const auto text = write_mealy_dot(m, "x");
        const auto back = parse_mealy_dot(text, "written");
        EXPECT_EQ(listing(back), listing(m));
        EXPECT_EQ(back.initial(), m.initial());
        EXPECT_EQ(write_mealy_dot(back, "x"), text);  // a fixpoint, byte for byte
    }
}

// --- diagnostics ---------------------------------------------------------------------------------

TEST(MealyDotReader, SyntaxErrorsStopAtTheFirstWithItsPosition) {
    EXPECT_EQ(diagnostics_of("bad/bad_character.dot"),
              (Strings{kFixtures + "bad/bad_character.dot:2:26: unexpected character '@'"}));
    EXPECT_EQ(diagnostics_of("bad/unterminated_string.dot"),
              (Strings{kFixtures + "bad/unterminated_string.dot:2:19: unterminated string"}));
    EXPECT_EQ(diagnostics_of("bad/unterminated_comment.dot"),
              (Strings{kFixtures + "bad/unterminated_comment.dot:2:27: unterminated /* comment"}));
    EXPECT_EQ(diagnostics_of("bad/missing_brace.dot"),
              (Strings{kFixtures + "bad/missing_brace.dot:3:1: expected '}', found end of file"}));
    EXPECT_EQ(diagnostics_of("bad/missing_attribute_value.dot"),
              (Strings{kFixtures + "bad/missing_attribute_value.dot:2:19: expected an attribute value, found ']'"}));
    EXPECT_EQ(diagnostics_of("bad/trailing_garbage.dot"),
              (Strings{kFixtures +
                       "bad/trailing_garbage.dot:4:1: unexpected identifier 'digraph' after the end of the graph"}));
    EXPECT_EQ(diagnostics_of("bad/undirected_graph.dot"),
              (Strings{kFixtures +
                       "bad/undirected_graph.dot:1:1: an undirected 'graph' is not a Mealy machine: expected 'digraph'"}));
    EXPECT_EQ(diagnostics_of("bad/undirected_edge.dot"),
              (Strings{kFixtures + "bad/undirected_edge.dot:2:6: undirected edge '--' in a digraph"}));
    EXPECT_EQ(diagnostics_of("bad/edge_chain.dot"),
              (Strings{kFixtures + "bad/edge_chain.dot:2:12: edge chains (a -> b -> c) are not supported"}));
    EXPECT_EQ(diagnostics_of("bad/subgraph.dot"),
              (Strings{kFixtures + "bad/subgraph.dot:2:3: subgraphs are not supported"}));
}

TEST(MealyDotReader, NonDeterminismNamesBothResults) {
    // The identical duplicate s1 -a/x-> s1 (lines 4 and 5) is accepted.
    EXPECT_EQ(diagnostics_of("bad/nondeterministic.dot"),
              (Strings{kFixtures + "bad/nondeterministic.dot:3:19: non-deterministic: state s0 on input 'a' goes to "
                                   "s1 with output 'x' (line 2) and to s0 with output 'x' here"}));
}

TEST(MealyDotReader, IncompletenessListsEveryMissingInputPerState) {
    EXPECT_EQ(diagnostics_of("bad/incomplete.dot"),
              (Strings{kFixtures + "bad/incomplete.dot:2:9: state s1 has no transition on inputs 'a', 'b'",
                       kFixtures + "bad/incomplete.dot:5:9: state s2 has no transition on inputs 'a', 'b', 'c'"}));
}

TEST(MealyDotReader, EveryBadLabelIsReportedInFileOrder) {
    const std::string f = kFixtures + "bad/bad_labels.dot";
    EXPECT_EQ(diagnostics_of("bad/bad_labels.dot"),
              (Strings{f + ":2:19: label \"a-x\" is not \"input/output\"",
                       f + ":3:3: edge s0 -> s0 has no label; expected label=\"input/output\"",
                       f + ":4:3: edge s0 -> s0 has no label; expected label=\"input/output\"",
                       f + ":5:19: empty input in label \" /x\"", f + ":6:19: empty output in label \"a/  \"",
                       f + ":7:19: empty input in label <a | <br />x>",
                       f + ":8:19: HTML label <a x> has no <br /> between inputs and output"}));
}

TEST(MealyDotReader, InitialMarkerMisuse) {
    const std::string f = kFixtures + "bad/two_initial_markers.dot";
    EXPECT_EQ(diagnostics_of("bad/two_initial_markers.dot"),
              (Strings{f + ":6:3: second initial marker edge: the initial state is already s0 (line 2)",
                       f + ":7:9: edge into the initial marker __start0"}));
}

TEST(MealyDotReader, EmptyGraphs) {
    EXPECT_EQ(diagnostics_of("bad/empty_graph.dot"),
              (Strings{kFixtures + "bad/empty_graph.dot:1:1: the graph has no states"}));
    EXPECT_EQ(diagnostics_of("bad/no_transitions.dot"),
              (Strings{kFixtures + "bad/no_transitions.dot:1:1: the graph has no labelled transitions"}));
}

TEST(MealyDotReader, UnreadableFileIsADiagnostic) {
    EXPECT_EQ(diagnostics_of("does_not_exist.dot"), (Strings{kFixtures + "does_not_exist.dot: cannot read DOT file: No such file or directory"}));
}

TEST(MealyDotReader, ParseUsesTheGivenFileName) {
    try {
        (void)parse_mealy_dot("digraph {\n  a -> a [label=\"x\"]\n}\n", "inline.dot");
        FAIL() << "expected a SpecError";
    } catch (const SpecError& e) {
        ASSERT_EQ(e.diagnostics().size(), 1u);
        EXPECT_EQ(e.diagnostics()[0].str(), "inline.dot:2:17: label \"x\" is not \"input/output\"");
    }
}

// --- writers ------------------------------------------------------------------------------------

TEST(MealyDotWriter, GoldenQuietTimer) {
    expect_golden(write_mealy_dot(testing_support::quiet_timer(), "quiet_timer"), "quiet_timer.mealy.dot");
}

TEST(MealyDotWriter, AwkwardNamesSurviveTheRoundTrip) {
    MealyBuilder b(Alphabet({"a/b", " lead", "x|y", "q\"uote", "back\\slash", "node"}),
                   Alphabet({"o/p", "<&>", " sp "}));
    const StateId s0 = b.add_state("state \"zero\"");
    const StateId s1 = b.add_state("1st");
    const StateId s2 = b.add_state("node");
    for (Symbol i = 0; i < 6; ++i) {
        b.set_transition(s0, i, i % 2 == 0 ? s1 : s2, i % 3);
        b.set_transition(s1, i, i % 2 == 0 ? s0 : s1, (i + 1) % 3);
        b.set_transition(s2, i, s2, (i + 2) % 3);
    }
    const MealyMachine m = b.build();
    const auto back = parse_mealy_dot(write_mealy_dot(m, "weird name"), "written");
    EXPECT_EQ(listing(back), listing(m));
    EXPECT_EQ(back.inputs().names(), m.inputs().names());
}

TEST(MealyDotWriter, RejectsAStateNamedLikeTheMarker) {
    MealyBuilder b(Alphabet({"a"}), Alphabet({"x"}));
    const StateId s = b.add_state("__start0");
    b.set_transition(s, 0, s, 0);
    EXPECT_THROW((void)write_mealy_dot(b.build()), std::invalid_argument);
}

/// AsyncTask after DroidStar Fig. 3, plus a quiet move so every edge style appears.
Typestate small_typestate() {
    using State = Typestate::State;
    Typestate ts;
    ts.name = "AsyncTask";
    ts.callins = {"cancel", "execute"};
    ts.callbacks = {"onCancelled", "onPostExecute"};
    ts.states = {
        State{"Start", {4, 1}, {}, Typestate::Wait::Quiet, {}},
        State{"Running", {3, std::nullopt}, Typestate::CallbackEdge{1, 2}, Typestate::Wait::Quiet, {}},
        State{"Completed", {2, std::nullopt}, {}, Typestate::Wait::Quiet, {}},
        State{"Cancelling", {3, std::nullopt}, Typestate::CallbackEdge{0, 2}, Typestate::Wait::Quiet, {}},
        State{"Cancelled Early", {4, std::nullopt}, {}, Typestate::Wait::Quiet, 2},
    };
    ts.initial = 0;
    return ts;
}

TEST(TypestateDotWriter, GoldenAsyncTask) {
    expect_golden(write_typestate_dot(small_typestate()), "asynctask.typestate.dot");
}

TEST(TypestateDotWriter, OmitsRefusedCallinsErrAndQuietSelfLoops) {
    const auto text = write_typestate_dot(small_typestate());
    EXPECT_EQ(text.find("err"), std::string::npos);
    EXPECT_EQ(text.find("Completed -> Completed [label=\"quiet\""), std::string::npos);
    EXPECT_NE(text.find("\"Cancelled Early\" -> Completed [label=\"quiet\" style=dotted]"), std::string::npos);
    EXPECT_NE(text.find("Running -> Completed [label=\"onPostExecute\" style=dashed]"), std::string::npos);
    EXPECT_EQ(text, write_typestate_dot(small_typestate()));
}

// --- conversion -----------------------------------------------------------------------------------

TEST(SpecOfMealy, APlainMealyMachineIsATypestateWithoutWaitWithNamedOutputs) {
    // Issue 34 item 4: a plain Mealy machine (no `wait`, outputs other than ok/err) is accepted by
    // import, diff and check alike; before, it was "not a synchronous closure: it has no input 'wait'".
    const MealyMachine m = testing_support::angluin_example();
    const Spec s = spec_of_mealy(m, "angluin");
    EXPECT_FALSE(s.typestate.has_wait);
    EXPECT_FALSE(s.typestate.err_absorbing);  // nothing declared absorbing in a DOT file
    EXPECT_TRUE(s.typestate.callbacks.empty());
    EXPECT_EQ(s.typestate.outputs, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(s.typestate.states.size(), 4u);
    EXPECT_FALSE(separating_word(synchronous_closure(s.typestate), m));  // the same behaviour
    const std::string yaml = write_spec(s);
    EXPECT_NE(yaml.find("typestar: 2\n"), std::string::npos) << yaml;
    EXPECT_NE(yaml.find("wait: false\n"), std::string::npos) << yaml;
    EXPECT_NE(yaml.find("absorbing: []\n"), std::string::npos) << yaml;
    EXPECT_NE(yaml.find("{output: \"1\", to: "), std::string::npos) << yaml;
    const Spec back = parse_spec(yaml, "angluin.yaml");
    EXPECT_EQ(back.typestate, s.typestate);
    EXPECT_EQ(write_spec(back), yaml);
    // The picture labels each callin with its output.
    EXPECT_NE(write_typestate_dot(s.typestate).find("a() / 1"), std::string::npos);
}

TEST(SpecOfMealy, ADeclaredAbsorbingErrIsKeptAsRefusals) {
    // A Mealy device that declares err absorbing: refused callins, no error sink in the spec.
    MealyBuilder b(Alphabet({"open", "send"}), Alphabet({"ACK", "err", "DATA"}));
    const StateId closed = b.add_state("closed"), open = b.add_state("open"), sink = b.add_state("sink");
    b.set_transition(closed, 0, open, 0);
    b.set_transition(closed, 1, sink, 1);
    b.set_transition(open, 0, sink, 1);
    b.set_transition(open, 1, open, 2);
    b.set_transition(sink, 0, sink, 1);
    b.set_transition(sink, 1, sink, 1);
    const MealyMachine m = b.build();
    ClosureReading reading;
    reading.err_absorbing = true;
    const Typestate t = canonical(typestate_of(m, "chan", {}, reading));
    EXPECT_TRUE(t.err_absorbing);
    EXPECT_EQ(t.states.size(), 2u);  // the sink is the closure's, not a state
    EXPECT_EQ(t.outputs, (std::vector<std::string>{"ACK", "DATA"}));
    EXPECT_FALSE(separating_word(synchronous_closure(t), m));
    // Read without the declaration, err is an output like any other and the sink a state.
    const Typestate plain = canonical(typestate_of(m, "chan"));
    EXPECT_FALSE(plain.err_absorbing);
    EXPECT_EQ(plain.states.size(), 3u);
    EXPECT_FALSE(separating_word(synchronous_closure(plain), m));
}

TEST(SpecOfMealy, QuietTimerGivesItsTypestateAndBound) {
    const Spec s = spec_of_mealy(testing_support::quiet_timer(), "timer");
    EXPECT_EQ(s.typestate.name, "timer");
    EXPECT_EQ(s.typestate, canonical(s.typestate));
    EXPECT_FALSE(separating_word(synchronous_closure(s.typestate), testing_support::quiet_timer()));
    EXPECT_EQ(s.bounds.distinguisher, 1u);
}

// DOT -> YAML -> DOT on seeded random synchronous closures of 2..50 states.
TEST(MealyDotRoundTrip, RandomClosuresThroughYamlStayEquivalent) {
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        const std::size_t states = 2 + (seed * 7) % 49;  // 2..50
        const Typestate ts = testing_support::random_typestate(states, 1 + seed % 4, seed % 4, seed);
        SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(states) + " states");
        const MealyMachine closure = synchronous_closure(ts);

        const MealyMachine read = parse_mealy_dot(write_mealy_dot(closure, ts.name), "first.dot");
        EXPECT_EQ(listing(read), listing(closure));

        const Spec spec = spec_of_mealy(read, ts.name);
        const std::string yaml = write_spec(spec);
        const Spec reloaded = parse_spec(yaml, "reloaded.yaml");
        const MealyMachine again =
            parse_mealy_dot(write_mealy_dot(synchronous_closure(reloaded.typestate), ts.name), "second.dot");
        EXPECT_FALSE(separating_word(closure, again)) << yaml;
        EXPECT_EQ(minimize(again).num_states(), minimize(closure).num_states());
        EXPECT_EQ(write_spec(spec_of_mealy(again, ts.name)), yaml);  // canonical: a fixpoint
    }
}

}  // namespace
}  // namespace typestar::spec
