// Regression tests of the spec readers and writers on hostile and clumsy input (issue 12): each
// test is built from a reproducer of the hardening report — long DOT concatenations, names YAML
// cannot take as implicit keys, control characters in names, errors without a location, alias
// bombs, declared sizes that exhaust memory, non-regular files, size caps, stale temporaries and
// symbolic links — plus the boundary fixtures of every numeric rule of the format.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "../../src/spec/spec_detail.hpp"
#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

/// The diagnostics `action` throws as SpecError, as `file:line:col: message` lines.
template <typename F>
Strings diagnostics_of(F&& action) {
    try {
        (void)action();
    } catch (const SpecError& e) {
        Strings lines;
        for (const auto& d : e.diagnostics()) lines.push_back(d.str());
        return lines;
    }
    return {"(no SpecError)"};
}

Strings yaml_diagnostics(const std::string& text, const ReadLimits& limits = {}) {
    return diagnostics_of([&] { return parse_spec(text, "s.yaml", limits); });
}

ReadLimits with_transitions(std::size_t n) {
    ReadLimits limits;
    limits.max_transitions = n;
    return limits;
}

/// A fresh directory per test, removed afterwards.
class TempDir : public testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::path(testing::TempDir()) / ("typestar-hardening-" + std::to_string(::getpid()) + "-" +
                                               testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    static void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
    static std::string read(const fs::path& path) {
        std::ifstream in(path, std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        return buffer.str();
    }
    Strings listing() const {
        Strings names;
        for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
    fs::path dir_;
};

// --- item 4: DOT string concatenation ------------------------------------------------------------

TEST(DotConcatenation, HundredThousandPartsAreReadWithoutRecursion) {
    // Reproducer: about 40,000 `"a" + "a" + ...` overflowed the stack (SIGSEGV) in every DOT reader.
    constexpr std::size_t kParts = 100'000;
    std::string text = "digraph g {\n  s -> s [label=\"go/\"";
    text.reserve(text.size() + 6 * kParts + 16);
    for (std::size_t i = 0; i < kParts; ++i) text += " + \"a\"";
    text += "];\n}\n";
    const MealyMachine m = parse_mealy_dot(text, "concat.dot");
    ASSERT_EQ(m.outputs().size(), 1u);
    EXPECT_EQ(m.outputs().name(0), std::string(kParts, 'a'));
}

TEST(DotConcatenation, AnUnterminatedLaterPartIsReportedWhereItStarts) {
    EXPECT_EQ(diagnostics_of([] { return parse_mealy_dot("digraph {\n s -> s [label=\"a/\" +\n  \"b", "c.dot"); }),
              (Strings{"c.dot:3:3: unterminated string"}));
    EXPECT_EQ(diagnostics_of([] { return parse_mealy_dot("digraph { s -> s [label=\"a/\" + x] }", "c.dot"); }),
              (Strings{"c.dot:1:32: expected a quoted string after '+'"}));
}

// --- item 5: names YAML cannot take as implicit keys ----------------------------------------------

Spec long_names_spec(std::size_t length) {
    Typestate t;
    t.name = "Long";
    const std::string state = "S" + std::string(length, 'x');
    const std::string other = "T" + std::string(length, 'y') + " with: colon";
    t.callins = {"c" + std::string(length, 'c'), "go"};
    t.callbacks = {"on" + std::string(length, 'o')};
    t.states = {Typestate::State{state, {1, 0}, {}, Typestate::Wait::Quiet, {}},
                Typestate::State{other, {std::nullopt, 1}, Typestate::CallbackEdge{0, 0}, Typestate::Wait::Quiet, {}}};
    Spec spec;
    spec.typestate = t;
    spec.provenance.stats["s" + std::string(length, 's')] = "1";
    return spec;
}

TEST(LongNames, OverAThousandBytesAreWrittenAsExplicitKeysAndReadBack) {
    // Reproducer: a state name over 1,024 characters was written as a plain key; `export`,
    // `learn --out` and `import -o` exited 0 and the next `validate` failed.
    for (const std::size_t length : {999u, 1000u, 1024u, 1100u, 5000u}) {
        SCOPED_TRACE(length);
        const Spec spec = long_names_spec(length);
        const std::string text = write_spec(spec);
        const Spec back = parse_spec(text, "long.yaml");
        EXPECT_EQ(back.typestate, canonical(spec.typestate));
        EXPECT_EQ(back.provenance, spec.provenance);
        EXPECT_EQ(write_spec(back), text);
        // "S" + length characters: implicit up to 1000 bytes, explicit above.
        EXPECT_EQ(text.find("  ? S" + std::string(length, 'x') + "\n  :\n") != std::string::npos, length + 1 > 1000)
            << text.substr(0, 300);
    }
}

TEST(LongNames, ShortKeysKeepTheImplicitForm) {
    const std::string text = write_spec(long_names_spec(10));
    EXPECT_EQ(text.find('?'), std::string::npos) << text;
}

TEST(WriteSpec, RefusesToWriteWhatWouldNotLoadAgain) {
    Spec spec = long_names_spec(3);
    spec.timing.tmax_ms = std::numeric_limits<double>::quiet_NaN();
    try {
        (void)write_spec(spec);
        FAIL() << "wrote a spec with tmax_ms = nan";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot write spec: the text would not load again: timing 'tmax_ms' must be a non-negative number "
                  "of milliseconds, found 'nan'");
    }
    spec.timing = {};
    spec.bounds.states = 0;
    EXPECT_THROW((void)write_spec(spec), Error);
}

// --- item 8: control characters in names ----------------------------------------------------------

TEST(Printable, EscapesControlsC1AndBrokenUtf8AndKeepsTheRest) {
    EXPECT_EQ(detail::printable("a\nb\tc\rd"), "a\\nb\\tc\\rd");
    EXPECT_EQ(detail::printable("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
    EXPECT_EQ(detail::printable(std::string("nul\0x", 5)), "nul\\x00x");
    EXPECT_EQ(detail::printable("\xc2\x9b" "2J"), "\\u009b2J");            // C1 CSI
    EXPECT_EQ(detail::printable("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93");  // UTF-8 kept
    EXPECT_EQ(detail::printable("\xff\xc3"), "\\xff\\xc3");                 // not UTF-8
    EXPECT_EQ(detail::printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");        // a surrogate
    EXPECT_EQ(detail::printable("back\\slash 'q'"), "back\\slash 'q'");
}

/// True when some line of `text` starts with `prefix`.
bool has_line_starting_with(const std::string& text, const std::string& prefix) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(prefix, 0) == 0) return true;
    }
    return false;
}

TEST(Printable, NoNameCanForgeADiagnosticLineOrATerminalEscape) {
    // Reproducer: one problem printed a forged `other.yaml:1:1:` line and a terminal escape.
    const std::string yaml =
        "typestar: 1\nname: F\ncallins: [\"go\\nother.yaml:1:1: fine\"]\ncallbacks: []\n"
        "initial: \"A\\nother.yaml:1:1: all good\\e[31m\\u009b\"\nstates:\n  B: {callins: {\"x\\ny\": B}}\n";
    try {
        (void)parse_spec(yaml, "s.yaml");
        FAIL() << "expected a SpecError";
    } catch (const SpecError& e) {
        ASSERT_EQ(e.diagnostics().size(), 2u);
        EXPECT_EQ(e.diagnostics()[0].str(),
                  "s.yaml:5:10: initial state 'A\\nother.yaml:1:1: all good\\x1b[31m\\u009b' is not defined in 'states'");
        EXPECT_EQ(e.diagnostics()[1].str(), "s.yaml:7:17: undeclared callin 'x\\ny' in state 'B'");
        const std::string all = e.what();
        EXPECT_FALSE(has_line_starting_with(all, "other.yaml")) << all;
        EXPECT_EQ(all.find('\x1b'), std::string::npos);
        EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 1);
    }
    const std::string dot = "digraph {\n  s -> s [label=\"a\nother.dot:1:1: fine\x1b[0m\"]\n}\n";
    EXPECT_EQ(diagnostics_of([&] { return parse_mealy_dot(dot, "d.dot"); }),
              (Strings{"d.dot:2:17: label \"a\\nother.dot:1:1: fine\\x1b[0m\" is not \"input/output\""}));
}

TEST(Printable, FileNamesAreEscapedToo) {
    EXPECT_EQ(yaml_diagnostics("typestar: 3\n").size(), 1u);
    EXPECT_EQ(diagnostics_of([] { return parse_spec("typestar: 3\n", "a\nb.yaml"); }),
              (Strings{"a\\nb.yaml:1:11: unsupported format version 3 (this typestar reads 1 and 2)"}));
}

TEST(Printable, NotAClosureMessagesFromMachineNamesAreEscaped) {
    // A named output is any name now (Mealy devices); `quiet` from a callin is still no answer.
    MealyBuilder b(Alphabet({"g\no", "wait"}), Alphabet({"ok", "quiet", "err"}));
    const StateId s = b.add_state("s\x1b");
    b.set_transition(s, 0, s, 1);
    b.set_transition(s, 1, s, 1);
    try {
        (void)spec_of_mealy(b.build(), "m");
        FAIL() << "expected NotAClosureError";
    } catch (const NotAClosureError& e) {
        EXPECT_STREQ(e.what(), "not a synchronous closure: state s\\x1b, input 'g\\no' answers 'quiet': a callin "
                               "answers ok, err or a named output, never 'quiet'");
        EXPECT_EQ(e.state(), "s\x1b");
        EXPECT_EQ(e.input(), "g\no");
    }
}

TEST(Printable, DiffReportsAndWriteErrorsEscapeNames) {
    Typestate mutant = testing_support::async_task_typestate();
    mutant.states[2].name = "Run\nning\x1b[2J";
    mutant.states[2].callins[1] = 1;
    Spec before;
    before.typestate = testing_support::async_task_typestate();
    Spec after;
    after.typestate = mutant;
    const std::string report = format_diff(diff_specs(before, after));
    EXPECT_EQ(report.find('\x1b'), std::string::npos) << report;
    EXPECT_NE(report.find("| Running (new: Run\\nning\\x1b[2J) |"), std::string::npos) << report;
    mutant.states[1].name = mutant.states[2].name;  // twice: refused, and the message is escaped
    after.typestate = mutant;
    try {
        (void)write_spec(after);
        FAIL() << "wrote a spec with a duplicate state name";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "cannot write spec: state name 'Run\\nning\\x1b[2J' is used twice");
    }
}

// --- item 7: every error has a location ------------------------------------------------------------

TEST(DotImport, NotAClosureNamesTheEdgesLine) {
    const std::string dot =
        "digraph g {\n"
        "  s0 -> s0 [label=\"go/ok\"];\n"
        "  s0 -> s1 [label=\"wait/quiet\"];\n"
        "  s1 -> s1 [label=\"go/quiet\"];\n"
        "  s1 -> s1 [label=\"wait/quiet\"];\n"
        "}\n";
    EXPECT_EQ(diagnostics_of([&] { return parse_dot_spec(dot, "x.dot", "x"); }),
              (Strings{"x.dot:4:19: not a synchronous closure: state s1, input 'go' answers 'quiet': a callin "
                       "answers ok, err or a named output, never 'quiet'"}));
    // A problem of the whole machine is located at the start of the file.
    EXPECT_EQ(diagnostics_of([] { return parse_dot_spec("digraph { a -> a [label=\"x/wait\"] }", "y.dot", "y"); }),
              (Strings{"y.dot:1:1: not a synchronous closure: 'wait' is used as an output"}));
}

TEST(DotImport, AStateNamedLikeTheErrorSinkIsALocatedError) {
    // Reproducer: "duplicate state name" with no file and no line.
    EXPECT_EQ(diagnostics_of([] { return parse_dot_spec("digraph{__err->__err[label=\"wait/err\"]}", "e.dot", "e"); }),
              (Strings{"e.dot:1:9: state name '__err' is reserved for the error sink of the synchronous closure; "
                       "rename the state"}));
    // The closure's own sink may be called __err when the typestate drops it (our mealy-dot export).
    const MealyMachine closure = synchronous_closure(testing_support::async_task_typestate());
    const Spec spec = parse_dot_spec(write_mealy_dot(closure, "AsyncTask"), "at.dot", "AsyncTask");
    EXPECT_FALSE(separating_word(synchronous_closure(spec.typestate), closure));
    EXPECT_EQ(spec.source.file, "at.dot");
}

TEST_F(TempDir, DirectoriesDevicesAndMissingFilesAreRefusedByName) {
    // Reproducer: `import DIR` said "1:1: expected 'digraph'", `validate /dev/zero` read until bad_alloc.
    const std::string d = dir_.string();
    EXPECT_EQ(diagnostics_of([&] { return load_mealy_dot(dir_); }), (Strings{d + ": cannot read DOT file: Is a directory"}));
    EXPECT_EQ(diagnostics_of([&] { return load_dot_spec(dir_, "x"); }),
              (Strings{d + ": cannot read DOT file: Is a directory"}));
    EXPECT_EQ(diagnostics_of([&] { return load_spec(dir_); }), (Strings{d + ": cannot read spec file: Is a directory"}));
    EXPECT_EQ(diagnostics_of([] { return load_spec("/dev/zero"); }),
              (Strings{"/dev/zero: cannot read spec file: Not a regular file (a device or socket)"}));
    EXPECT_EQ(diagnostics_of([] { return load_mealy_dot("/dev/null"); }),
              (Strings{"/dev/null: cannot read DOT file: Not a regular file (a device or socket)"}));
    EXPECT_EQ(diagnostics_of([&] { return load_spec(dir_ / "absent.yaml"); }),
              (Strings{(dir_ / "absent.yaml").string() + ": cannot read spec file: No such file or directory"}));
}

TEST_F(TempDir, APipeIsReadButBoundedByTheSizeCap) {
    const fs::path fifo = dir_ / "pipe.yaml";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ReadLimits limits;
    limits.max_bytes = 1000;
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {  // writes more than the cap, then exits (a closed pipe ends it early)
        {
            std::ofstream out(fifo, std::ios::binary);
            out << std::string(5000, '#');
        }
        std::_Exit(0);
    }
    const Strings got = diagnostics_of([&] { return load_spec(fifo, limits); });
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_EQ(got, (Strings{fifo.string() +
                            ": input is larger than the limit of 1000 bytes (set TYPESTAR_MAX_INPUT_BYTES to allow more)"}));
}

// --- item 6: bounded resources ------------------------------------------------------------------------

TEST_F(TempDir, InputsOverTheSizeCapAreRefusedBeforeParsing) {
    ReadLimits limits;
    limits.max_bytes = 64;
    const std::string text = "typestar: 1\nname: N\ncallins: []\ncallbacks: []\ninitial: A\nstates:\n  A: {}\n";
    ASSERT_GT(text.size(), 64u);
    const std::string message = ": input is larger than the limit of 64 bytes (set TYPESTAR_MAX_INPUT_BYTES to allow more)";
    EXPECT_EQ(diagnostics_of([&] { return parse_spec(text, "s.yaml", limits); }), (Strings{"s.yaml" + message}));
    write(dir_ / "s.yaml", text);
    EXPECT_EQ(diagnostics_of([&] { return load_spec(dir_ / "s.yaml", limits); }), (Strings{(dir_ / "s.yaml").string() + message}));
    EXPECT_EQ(diagnostics_of([&] { return parse_mealy_dot(std::string(65, ' '), "d.dot", limits); }),
              (Strings{"d.dot" + message}));
    limits.max_bytes = text.size();
    EXPECT_NO_THROW((void)parse_spec(text, "s.yaml", limits));
}

TEST(ReadLimitsFromEnvironment, ReadsBothVariablesAndRefusesNonsense) {
    ::unsetenv("TYPESTAR_MAX_INPUT_BYTES");
    ::unsetenv("TYPESTAR_MAX_TRANSITIONS");
    EXPECT_EQ(ReadLimits::from_environment().max_bytes, std::size_t{64} << 20);
    EXPECT_EQ(ReadLimits::from_environment().max_transitions, std::size_t{1} << 24);
    ::setenv("TYPESTAR_MAX_INPUT_BYTES", "2M", 1);
    ::setenv("TYPESTAR_MAX_TRANSITIONS", "1000", 1);
    EXPECT_EQ(ReadLimits::from_environment().max_bytes, std::size_t{2} << 20);
    EXPECT_EQ(ReadLimits::from_environment().max_transitions, 1000u);
    EXPECT_EQ(yaml_diagnostics("", ReadLimits::from_environment()), (Strings{"s.yaml:1:1: empty spec: expected a map with keys typestar, name, callins, callbacks, initial, states"}));
    for (const char* bad : {"", "0", "-5", "12X", "1.5M", "99999999999999999999", "16000000000000G"}) {
        ::setenv("TYPESTAR_MAX_INPUT_BYTES", bad, 1);
        try {
            (void)ReadLimits::from_environment();
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()), "TYPESTAR_MAX_INPUT_BYTES='" + std::string(bad) +
                                                 "' is not a positive integer (optionally followed by K, M or G)");
        }
    }
    ::unsetenv("TYPESTAR_MAX_INPUT_BYTES");
    ::unsetenv("TYPESTAR_MAX_TRANSITIONS");
}

TEST(DeclaredSize, ThirtyThousandCallinsTimesStatesFailEarlyWithALocation) {
    // Reproducer: 600 KB (30k callins x 30k states) took about 7 GB, then std::bad_alloc, no file, no line.
    std::string text = "typestar: 1\nname: Wide\ncallins: [";
    for (int i = 0; i < 30000; ++i) text += (i > 0 ? ", c" : "c") + std::to_string(i);
    text += "]\ncallbacks: []\ninitial: S0\nstates:\n";
    for (int i = 0; i < 30000; ++i) text += "  S" + std::to_string(i) + ": {}\n";
    EXPECT_EQ(yaml_diagnostics(text),
              (Strings{"s.yaml:6:1: the spec declares 30000 states and 30000 callins: 30000 x 30001 transitions "
                       "exceed the limit of 16777216 (set TYPESTAR_MAX_TRANSITIONS to allow more)"}));
}

TEST(DeclaredSize, TheLimitIsOnStatesTimesCallinsPlusWait) {
    const auto spec_text = [](int states) {
        std::string text = "typestar: 1\nname: W\ncallins: [a, b, c]\ncallbacks: []\ninitial: S0\nstates:\n";
        for (int i = 0; i < states; ++i) text += "  S" + std::to_string(i) + ": {}\n";
        return text;
    };
    EXPECT_NO_THROW((void)parse_spec(spec_text(25), "s.yaml", with_transitions(100)));  // 25 x 4 = 100
    EXPECT_EQ(yaml_diagnostics(spec_text(26), with_transitions(100)),
              (Strings{"s.yaml:6:1: the spec declares 26 states and 3 callins: 26 x 4 transitions exceed the limit "
                       "of 100 (set TYPESTAR_MAX_TRANSITIONS to allow more)"}));
}

TEST(DeclaredSize, DotStatesTimesInputsAreBoundedWhereTheyGrow) {
    const std::string inputs = "digraph {\n  s0 -> s0 [label=\"a/x\"]\n  s0 -> s0 [label=\"b/x\"]\n  s1\n  s2\n}\n";
    EXPECT_EQ(diagnostics_of([&] { return parse_mealy_dot(inputs, "d.dot", with_transitions(6)); }),
              (Strings{"d.dot:4:3: state s1 has no transition on inputs 'a', 'b'",
                       "d.dot:5:3: state s2 has no transition on inputs 'a', 'b'"}));
    EXPECT_EQ(diagnostics_of([&] { return parse_mealy_dot(inputs, "d.dot", with_transitions(5)); }),
              (Strings{"d.dot:5:3: the graph has 3 states and 2 inputs: 3 x 2 transitions exceed the limit of 5 (set "
                       "TYPESTAR_MAX_TRANSITIONS to allow more)"}));
    EXPECT_EQ(diagnostics_of([&] { return parse_mealy_dot(inputs, "d.dot", with_transitions(1)); }),
              (Strings{"d.dot:3:19: the graph has 1 states and 2 inputs: 1 x 2 transitions exceed the limit of 1 (set "
                       "TYPESTAR_MAX_TRANSITIONS to allow more)"}));
}

TEST(DeclaredSize, AStateMissingManyInputsListsTenAndCountsTheRest) {
    std::string text = "digraph {\n";
    for (int i = 0; i < 25; ++i) text += "  s0 -> s0 [label=\"i" + std::to_string(i) + "/o\"]\n";
    text += "  s1\n}\n";
    EXPECT_EQ(diagnostics_of([&] { return parse_mealy_dot(text, "d.dot"); }),
              (Strings{"d.dot:27:3: state s1 has no transition on inputs 'i0', 'i1', 'i2', 'i3', 'i4', 'i5', 'i6', "
                       "'i7', 'i8', 'i9' and 15 more"}));
}

/// A chain of `states` states over one callin, in the layout typestar writes.
std::string chain_spec(int states) {
    std::string text = "typestar: 1\nname: Big\ncallins: [go]\ncallbacks: []\ninitial: S0\nstates:\n";
    for (int i = 0; i < states; ++i) {
        text += "  S" + std::to_string(i) + ":\n    callins:\n      go: S" + std::to_string((i + 1) % states) + "\n";
    }
    return text;
}

/// The fastest of two parses of `text`, in seconds.
double parse_seconds(const std::string& text) {
    double best = 1e9;
    for (int run = 0; run < 2; ++run) {
        const auto start = std::chrono::steady_clock::now();
        const Spec s = parse_spec(text, "big.yaml");
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        EXPECT_FALSE(s.typestate.states.empty());
    }
    return best;
}

TEST(Scale, ReadingGrowsLinearlyNotQuadratically) {
    // Reproducer: a 4.2 MB spec of 100,000 states took 40-60 s (a linear duplicate search per key).
    // Four times the states must cost about four times as long (quadratic would be sixteen);
    // the bound of 10 leaves room for a loaded machine.
    const std::string small = chain_spec(10'000);
    const std::string large = chain_spec(40'000);
    ASSERT_EQ(parse_spec(large, "big.yaml").typestate.states.size(), 40'000u);
    const double ratio = parse_seconds(large) / parse_seconds(small);
    EXPECT_LT(ratio, 10.0) << "10k states vs 40k states: " << ratio << " times slower";
}

TEST(Aliases, AnAliasBombIsRefusedAtTheAliasThatGoesOver) {
    // Reproducer: 87 KB of aliases took 77 s and 1 GB (messages and did-you-mean over the expansion).
    std::string text = "typestar: 1\nname: Bomb\ncallins: [go]\ncallbacks: []\ninitial: A\njunk: &b " +
                       std::string(40000, 'x') + "\nstates:\n";
    for (int i = 0; i < 4000; ++i) text += "  S" + std::to_string(i) + ": {callins: {go: *b}}\n";
    text += "  A: {}\n";
    const Strings got = yaml_diagnostics(text);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].substr(0, got[0].find(": YAML")), "s.yaml:48:23");  // the 41st alias
    EXPECT_NE(got[0].find("YAML aliases expand the document beyond"), std::string::npos) << got[0];
}

TEST(Aliases, NestedAliasesAreMeasuredExpanded) {
    std::string text = "typestar: 1\nname: Bomb\ncallins: []\ncallbacks: []\ninitial: A\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i <= 9; ++i) {
        text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
        for (int k = 0; k < 10; ++k) text += (k > 0 ? ", *a" : "*a") + std::to_string(i - 1);
        text += "]\n";
    }
    text += "states: {A: {}}\n";
    const Strings got = yaml_diagnostics(text);
    ASSERT_EQ(got.size(), 1u) << got[0];
    EXPECT_NE(got[0].find("refused as an alias bomb"), std::string::npos) << got[0];
}

TEST(Aliases, ARecursiveAliasIsRefused) {
    EXPECT_EQ(yaml_diagnostics("typestar: 1\nx: &a [*a]\n"),
              (Strings{"s.yaml:2:8: alias inside the node it refers to (a recursive alias)"}));
}

TEST(Aliases, OrdinaryAnchorsStillWork) {
    const Spec s = parse_spec(
        "typestar: 1\nname: Shared\ncallins: [go, stop]\ncallbacks: []\ninitial: A\n"
        "states:\n  A: &same {callins: {go: B, stop: A}}\n  B: *same\n",
        "s.yaml");
    ASSERT_EQ(s.typestate.states.size(), 2u);
    EXPECT_EQ(s.typestate.states[1].callins, s.typestate.states[0].callins);
}

TEST(Suggestions, DidYouMeanIsBoundedButStillHelps) {
    EXPECT_EQ(detail::did_you_mean("Playng", std::vector<std::string_view>{"Idle", "Playing", "Paused"}), "Playing");
    EXPECT_EQ(detail::did_you_mean("abc", std::vector<std::string_view>{"abcdef", "xyz"}), std::nullopt);
    EXPECT_EQ(detail::did_you_mean(std::string(5000, 'a') + "b",
                                   std::vector<std::string_view>{std::string(5000, 'a') + "cd"}),
              std::string(5000, 'a') + "cd");
    // Ties go to the first listed.
    EXPECT_EQ(detail::did_you_mean("ab", std::vector<std::string_view>{"xb", "ay"}), "xb");
    detail::SuggestionBudget budget(7);
    const std::vector<std::string_view> names{"Idle", "Playing", "Paused"};
    EXPECT_EQ(detail::did_you_mean("Idel", names, &budget), "Idle");  // 3 + 4 units spent
    EXPECT_EQ(detail::did_you_mean("Idel", names, &budget), std::nullopt);
}

TEST(Suggestions, ManyTyposAgainstManyStatesStayFast) {
    // Reproducer: 190 KB of typos took 5.5 s (did-you-mean against every name per error). The
    // budget keeps the first suggestions and drops the rest; the diagnostics all stay.
    std::string text = "typestar: 1\nname: Typos\ncallins: [go]\ncallbacks: []\ninitial: State0\nstates:\n";
    for (int i = 0; i < 4000; ++i) {
        text += "  State" + std::to_string(i) + ":\n    callins: {go: Stat" + std::to_string(i) + "x}\n";
    }
    const Strings got = yaml_diagnostics(text);
    ASSERT_EQ(got.size(), 4000u);
    EXPECT_EQ(got[0], "s.yaml:8:19: unknown target state 'Stat0x' of callin 'go' in state 'State0' (did you mean 'State0'?)");
    EXPECT_EQ(got.back().find("did you mean"), std::string::npos) << got.back();
}

// --- item 12: stale temporaries and symbolic links -------------------------------------------------------

TEST_F(TempDir, StaleTemporariesOfTheSameTargetAreRemovedFreshOnesAndOthersKept) {
    // Reproducer: a kill -9 between creating and renaming the temporary left it there for ever.
    const fs::path stale = dir_ / ".spec.yaml.typestar-tmp-AbC123";
    const fs::path fresh = dir_ / ".spec.yaml.typestar-tmp-Fresh1";
    const fs::path other = dir_ / ".other.yaml.typestar-tmp-Zzz999";
    const fs::path lookalike = dir_ / ".spec.yaml.typestar-tmp-toolong";
    for (const auto& p : {stale, fresh, other, lookalike}) write(p, "partial");
    const auto age = [](const fs::path& p) {
        fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::minutes(11));
    };
    age(stale);
    age(other);
    age(lookalike);
    write_file_atomically(dir_ / "spec.yaml", "new\n");
    EXPECT_EQ(listing(), (Strings{".other.yaml.typestar-tmp-Zzz999", ".spec.yaml.typestar-tmp-Fresh1",
                                  ".spec.yaml.typestar-tmp-toolong", "spec.yaml"}));
}

TEST_F(TempDir, ASymbolicLinkIsWrittenThroughAndStaysALink) {
    fs::create_directory(dir_ / "real");
    write(dir_ / "real" / "spec.yaml", "old\n");
    fs::permissions(dir_ / "real" / "spec.yaml", fs::perms::owner_read | fs::perms::owner_write);
    fs::create_symlink("real/spec.yaml", dir_ / "link.yaml");
    fs::create_symlink(dir_ / "link.yaml", dir_ / "link2.yaml");  // a link to a link
    write_file_atomically(dir_ / "link2.yaml", "new\n");
    EXPECT_TRUE(fs::is_symlink(dir_ / "link.yaml"));
    EXPECT_TRUE(fs::is_symlink(dir_ / "link2.yaml"));
    EXPECT_EQ(read(dir_ / "real" / "spec.yaml"), "new\n");
    EXPECT_EQ(fs::status(dir_ / "real" / "spec.yaml").permissions(), fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(listing(), (Strings{"link.yaml", "link2.yaml", "real"}));
    // A dangling link creates the file it names.
    fs::create_symlink("real/new.yaml", dir_ / "dangling.yaml");
    write_file_atomically(dir_ / "dangling.yaml", "made\n");
    EXPECT_EQ(read(dir_ / "real" / "new.yaml"), "made\n");
    // A loop is an error naming the path, and nothing is written.
    fs::create_symlink("loop_b", dir_ / "loop_a");
    fs::create_symlink("loop_a", dir_ / "loop_b");
    try {
        write_file_atomically(dir_ / "loop_a", "x");
        FAIL() << "wrote through a symlink loop";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find((dir_ / "loop_a").string()), std::string::npos) << e.what();
    }
}

// --- item 13: boundaries of the numeric rules, and diff naming -------------------------------------------

TEST(NumericBoundaries, TminEqualToTmaxIsAccepted) {
    const Spec s = parse_spec("typestar: 1\nname: T\ncallins: []\ncallbacks: []\ninitial: A\n"
                              "timing: {tmax_ms: 7.5, tmin_ms: 7.5}\nstates:\n  A: {}\n",
                              "t.yaml");
    EXPECT_EQ(s.timing.tmin_ms, 7.5);
    EXPECT_EQ(s.timing.tmax_ms, 7.5);
}

TEST(DiffNames, ARenamedStateIsNamedByItsBehaviourNotByAnotherStatesOldName) {
    // Swap the names of Running and Completed and change Running's cancel: the change is in the
    // state now called Completed, and its new target is the one now called Running. Mapping new
    // states by name alone would report "Running" for both and hide the rename.
    Typestate mutant = testing_support::async_task_typestate();
    std::swap(mutant.states[1].name, mutant.states[2].name);
    mutant.states[2].callins[1] = 1;  // (was Running, now "Completed"): cancel -> (now "Running")
    Spec before;
    before.typestate = testing_support::async_task_typestate();
    Spec after;
    after.typestate = mutant;
    const SpecDiff d = diff_specs(before, after);
    ASSERT_EQ(d.changes.size(), 1u) << format_diff(d);
    EXPECT_EQ(d.changes[0], (TransitionChange{TransitionChange::Kind::Changed, "Running", "Completed", "cancel",
                                              {"execute"}, "-> Cancelling", "-> Running"}));
    EXPECT_NE(format_diff(d).find("| Running (new: Completed) | execute    | cancel | changed | -> Cancelling | -> Running |"),
              std::string::npos)
        << format_diff(d);
}

}  // namespace
}  // namespace typestar::spec
