// Tests of the YAML spec format v1: exact diagnostics for malformed files, canonical and
// deterministic writing, round trips, atomic saving, behavioural comparison, the shipped specs.
#include "typestar/spec/spec.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "typestar/core/algorithms.hpp"
#include "spec_fixtures.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar::spec {
namespace {

namespace fs = std::filesystem;

using namespace testing_fixtures;

std::vector<std::string> diagnostics_of(const std::string& text, const std::string& file) {
    try {
        (void)parse_spec(text, file);
    } catch (const SpecError& e) {
        std::vector<std::string> lines;
        for (const auto& d : e.diagnostics()) lines.push_back(d.str());
        return lines;
    }
    return {};
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    return text;
}

/// Names of the fixtures in `directory` with extension `.yaml`, sorted.
std::vector<std::string> fixture_names(const fs::path& directory) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(directory)) {
        if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string test_name(std::string name) {
    for (char& c : name) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!ok) c = '_';
    }
    return name;
}

// ---------------------------------------------------------------------------------------------
// Malformed files: every fixture bad/<name>.yaml has bad/<name>.expected with the exact lines.

class BadFixture : public testing::TestWithParam<std::string> {};

TEST_P(BadFixture, ReportsExactlyTheExpectedDiagnostics) {
    const std::string name = GetParam();
    const std::string text = read_text(kFixtures / "bad" / (name + ".yaml"));
    const std::string expected = read_text(kFixtures / "bad" / (name + ".expected"));
    ASSERT_FALSE(expected.empty()) << "empty expectation for " << name;
    try {
        (void)parse_spec(text, name + ".yaml");
        FAIL() << name << ".yaml was accepted";
    } catch (const SpecError& e) {
        std::vector<std::string> lines;
        for (const auto& d : e.diagnostics()) {
            lines.push_back(d.str());
            EXPECT_EQ(d.file, name + ".yaml");
            EXPECT_GT(d.line, 0) << d.str();
            EXPECT_GT(d.column, 0) << d.str();
        }
        EXPECT_EQ(joined(lines), expected);
        // The exception text is the same lines, and the diagnostics are in file order.
        EXPECT_EQ(std::string(e.what()) + "\n", expected);
        EXPECT_TRUE(std::is_sorted(e.diagnostics().begin(), e.diagnostics().end(), [](const auto& a, const auto& b) {
            return std::pair{a.line, a.column} < std::pair{b.line, b.column};
        }));
    }
}

INSTANTIATE_TEST_SUITE_P(Spec, BadFixture, testing::ValuesIn(fixture_names(kFixtures / "bad")),
                         [](const testing::TestParamInfo<std::string>& param) { return test_name(param.param); });

TEST(BadFixtures, AreManyAndEachHasItsExpectation) {
    const auto names = fixture_names(kFixtures / "bad");
    EXPECT_GE(names.size(), 22u);
    std::size_t expectations = 0;
    for (const auto& entry : fs::directory_iterator(kFixtures / "bad")) {
        if (entry.path().extension() != ".expected") continue;
        ++expectations;
        EXPECT_TRUE(fs::exists(fs::path(entry.path()).replace_extension(".yaml"))) << entry.path();
    }
    EXPECT_EQ(expectations, names.size());
}

TEST(Parse, SameTextSameDiagnostics) {
    const std::string text = read_text(kFixtures / "bad" / "many_errors.yaml");
    EXPECT_EQ(diagnostics_of(text, "a.yaml"), diagnostics_of(text, "a.yaml"));
    EXPECT_EQ(diagnostics_of(text, "a.yaml").size(), 5u);
}

TEST(Parse, DeepNestingIsMalformedNotACrash) {
    const std::string text = "typestar: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
    const auto lines = diagnostics_of(text, "deep.yaml");
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines.front().rfind("deep.yaml:1:", 0), 0u) << lines.front();
    EXPECT_NE(lines.front().find(": malformed YAML: nested too deeply ("), std::string::npos) << lines.front();
}

TEST(Load, UnreadableFileIsADiagnosticOnLineZero) {
    const fs::path missing = fs::path(testing::TempDir()) / "typestar-no-such-dir" / "spec.yaml";
    try {
        (void)load_spec(missing);
        FAIL() << "loaded a missing file";
    } catch (const SpecError& e) {
        ASSERT_EQ(e.diagnostics().size(), 1u);
        const Diagnostic& d = e.diagnostics().front();
        EXPECT_EQ(d.file, missing.string());
        EXPECT_EQ(d.line, 0);
        EXPECT_EQ(d.column, 0);
        EXPECT_EQ(d.str(), missing.string() + ": cannot read spec file: No such file or directory");
    }
    try {
        (void)load_spec(kFixtures);  // a directory
        FAIL() << "loaded a directory";
    } catch (const SpecError& e) {
        ASSERT_EQ(e.diagnostics().size(), 1u);
        EXPECT_EQ(e.diagnostics().front().message, "cannot read spec file: Is a directory");
    }
}

// ---------------------------------------------------------------------------------------------
// Writing: canonical, deterministic, round-tripping.

std::vector<fs::path> good_files() {
    std::vector<fs::path> files;
    for (const auto& name : fixture_names(kFixtures / "good")) files.push_back(kFixtures / "good" / (name + ".yaml"));
    files.push_back(kSource / "specs" / "asynctask.yaml");
    files.push_back(kSource / "specs" / "mediaplayer.yaml");
    return files;
}

TEST(RoundTrip, ParseWriteParseGivesTheSameSpec) {
    for (const fs::path& file : good_files()) {
        SCOPED_TRACE(file.string());
        const Spec first = load_spec(file);
        const std::string written = write_spec(first);
        EXPECT_EQ(write_spec(first), written) << "writing twice differs";
        const Spec second = parse_spec(written, "written.yaml");
        EXPECT_EQ(second.typestate, canonical(first.typestate));
        EXPECT_EQ(canonical(second.typestate), second.typestate) << "written spec is not canonical";
        EXPECT_EQ(second.bounds, first.bounds);
        EXPECT_EQ(second.timing, first.timing);
        EXPECT_EQ(second.provenance, first.provenance);
        EXPECT_EQ(write_spec(second), written) << "writing is not idempotent";
        EXPECT_TRUE(same_behaviour(first, second));
    }
}

TEST(RoundTrip, GoldenOutput) {
    for (const std::string name : {"asynctask", "mediaplayer"}) {
        EXPECT_EQ(write_spec(load_spec(kSource / "specs" / (name + ".yaml"))),
                  read_text(kFixtures / "golden" / (name + ".yaml")))
            << name;
    }
    for (const std::string name :
         {"quiet_and_err", "quoting", "minimal", "boundaries", "extreme_numbers", "zero_timing"}) {
        EXPECT_EQ(write_spec(load_spec(kFixtures / "good" / (name + ".yaml"))),
                  read_text(kFixtures / "golden" / (name + ".yaml")))
            << name;
    }
}

TEST(RoundTrip, QuotedNamesComeBackExactly) {
    const Spec spec = load_spec(kFixtures / "good" / "quoting.yaml");
    const Spec again = parse_spec(write_spec(spec), "again.yaml");
    std::vector<std::string> callins = again.typestate.callins;
    EXPECT_EQ(callins, (std::vector<std::string>{"-dash", "1", "back\\slash", "null", "q\"uote", "tab\there",
                                                 "with space", "yes"}));
    EXPECT_EQ(again.typestate.callbacks, (std::vector<std::string>{"on", "ünïcode"}));
    EXPECT_EQ(again.typestate.states[again.typestate.initial].name, "true");
    EXPECT_TRUE(again.typestate.find_state("a: b").has_value());
    EXPECT_TRUE(again.typestate.find_state("~").has_value());
}

TEST(RoundTrip, TimingKeepsExactDoubles) {
    Spec spec = load_spec(kSource / "specs" / "asynctask.yaml");
    spec.timing.tmax_ms = 0.1 + 0.2;  // not representable in few digits
    spec.timing.tmin_ms = 1e-7;
    const Spec again = parse_spec(write_spec(spec), "t.yaml");
    EXPECT_EQ(again.timing, spec.timing);
}

/// `t` with its states in reverse order and renamed with `prefix` (same behaviour).
Typestate reversed_and_renamed(const Typestate& t, const std::string& prefix) {
    const auto n = static_cast<StateId>(t.states.size());
    const auto map = [n](StateId s) { return static_cast<StateId>(n - 1 - s); };
    Typestate out = t;
    for (StateId s = 0; s < n; ++s) {
        Typestate::State state = t.states[s];
        state.name = prefix + state.name;
        for (auto& target : state.callins) {
            if (target) target = map(*target);
        }
        if (state.callback) state.callback->target = map(state.callback->target);
        if (state.quiet_target) state.quiet_target = map(*state.quiet_target);
        out.states[map(s)] = state;
    }
    out.initial = map(t.initial);
    return out;
}

TEST(Write, StatesInCanonicalOrderAndSymbolsSorted) {
    // Built in memory: callins unsorted, states in an arbitrary order, initial not first.
    Typestate t;
    t.name = "Order";
    t.callins = {"zeta", "alpha"};
    t.callbacks = {"onZ", "onA"};
    t.states.resize(4);
    t.states[0] = {"Last", {std::nullopt, std::nullopt}, std::nullopt, Typestate::Wait::Quiet, std::nullopt};
    t.states[1] = {"ViaZeta", {std::nullopt, StateId{0}}, Typestate::CallbackEdge{1, 1}, Typestate::Wait::Quiet, {}};
    t.states[2] = {"Init", {StateId{1}, StateId{3}}, std::nullopt, Typestate::Wait::Quiet, std::nullopt};
    t.states[3] = {"ViaAlpha", {StateId{2}, std::nullopt}, std::nullopt, Typestate::Wait::Err, std::nullopt};
    t.initial = 2;
    const Spec spec{t, {}, {}, {}, {}, {}};
    const std::string text = write_spec(spec);
    EXPECT_EQ(text,
              "typestar: 1\n"
              "name: Order\n"
              "callins: [alpha, zeta]\n"
              "callbacks: [onA, onZ]\n"
              "initial: Init\n"
              "bounds: {distinguisher: 2}\n"
              "states:\n"
              "  Init:\n"
              "    callins:\n"
              "      alpha: ViaAlpha\n"
              "      zeta: ViaZeta\n"
              "  ViaAlpha:\n"
              "    callins:\n"
              "      zeta: Init\n"
              "    wait: err\n"
              "  ViaZeta:\n"
              "    callins:\n"
              "      alpha: Last\n"
              "    callbacks:\n"
              "      onA: ViaZeta\n"
              "  Last: {}\n");
    // Any presentation of the same typestate (state order) writes the same bytes.
    Spec permuted = spec;
    permuted.typestate = reversed_and_renamed(t, "");
    EXPECT_EQ(write_spec(permuted), text);
}

TEST(Write, RefusesWhatWouldNotLoadAgain) {
    Spec spec = load_spec(kSource / "specs" / "asynctask.yaml");
    spec.typestate.name = "Async Task";
    EXPECT_THROW((void)write_spec(spec), Error);
    spec.typestate.name = "AsyncTask";
    spec.typestate.states[1].name = spec.typestate.states[0].name;
    EXPECT_THROW((void)write_spec(spec), Error);
    spec = load_spec(kSource / "specs" / "asynctask.yaml");
    spec.typestate.states[0].callins[0] = StateId{99};
    EXPECT_THROW((void)write_spec(spec), Error);
}

TEST(Parse, QuietToItselfIsTheDefault) {
    const std::string text =
        "typestar: 1\nname: T\ncallins: [go]\ncallbacks: []\ninitial: A\nstates:\n"
        "  A:\n    callins: {go: B}\n    quiet: A\n  B:\n    quiet: A\n    wait: quiet\n";
    const Spec spec = parse_spec(text, "t.yaml");
    ASSERT_EQ(spec.typestate.states.size(), 2u);
    EXPECT_FALSE(spec.typestate.states[0].quiet_target.has_value());
    EXPECT_EQ(spec.typestate.states[1].quiet_target, std::optional<StateId>(0));
    EXPECT_EQ(spec.typestate.states[1].wait, Typestate::Wait::Quiet);
    EXPECT_EQ(spec.source.line_of("B", "wait"), 11);
}

// ---------------------------------------------------------------------------------------------
// `wait` without a callback: quiet that moves, and err, through the synchronous closure.

TEST(Closure, QuietMovesAndWaitErrSurviveTheRoundTrip) {
    const Spec spec = load_spec(kFixtures / "good" / "quiet_and_err.yaml");
    const Typestate& t = spec.typestate;
    const MealyMachine closure = synchronous_closure(t);
    const Symbol wait = closure.inputs().at("wait");
    const StateId cancelling = *t.find_state("Cancelling");
    const StateId dead = *t.find_state("Dead");
    EXPECT_EQ(closure.outputs().name(closure.output(cancelling, wait)), "quiet");
    EXPECT_EQ(closure.successor(cancelling, wait), *t.find_state("Fresh"));
    EXPECT_EQ(closure.outputs().name(closure.output(dead, wait)), "err");
    EXPECT_EQ(closure.outputs().name(closure.output(dead, closure.inputs().at("cancel"))), "err");

    const Typestate back = typestate_of(closure, t.name);
    EXPECT_EQ(canonical(back), canonical(t));
    Spec rebuilt = spec;
    rebuilt.typestate = back;
    EXPECT_EQ(write_spec(rebuilt), write_spec(spec));
    const std::string text = write_spec(rebuilt);
    EXPECT_NE(text.find("  Cancelling:\n    callins:\n      cancel: Cancelling\n    quiet: Fresh\n"), std::string::npos)
        << text;
    EXPECT_NE(text.find("  Dead:\n    wait: err\n"), std::string::npos) << text;
}

// ---------------------------------------------------------------------------------------------
// same_behaviour

TEST(SameBehaviour, IgnoresNamesOrderBoundsTimingAndProvenance) {
    const Spec a = load_spec(kSource / "specs" / "asynctask.yaml");
    Spec b = a;
    b.typestate = reversed_and_renamed(a.typestate, "s_");
    b.typestate.name = "Other";
    b.bounds.distinguisher = 5;
    b.timing.tmax_ms = 1;
    b.provenance.tool = "something else";
    EXPECT_TRUE(same_behaviour(a, b));
    EXPECT_TRUE(same_behaviour(b, a));
}

TEST(SameBehaviour, DetectsOneChangedTransition) {
    const Spec a = load_spec(kSource / "specs" / "asynctask.yaml");
    const StateId completed = *a.typestate.find_state("Completed");
    const StateId cancelling = *a.typestate.find_state("Cancelling");
    const auto execute = static_cast<std::size_t>(
        std::find(a.typestate.callins.begin(), a.typestate.callins.end(), "execute") - a.typestate.callins.begin());
    Spec b = a;
    b.typestate.states[completed].callins[execute] = completed;  // execute accepted after completion
    EXPECT_FALSE(same_behaviour(a, b));
    Spec c = a;
    c.typestate.states[cancelling].callins[execute].reset();  // the DroidStar surprise removed
    EXPECT_FALSE(same_behaviour(a, c));
    Spec d = a;
    d.typestate.states[completed].wait = Typestate::Wait::Err;
    EXPECT_FALSE(same_behaviour(a, d));
    EXPECT_FALSE(same_behaviour(a, load_spec(kSource / "specs" / "mediaplayer.yaml")));
}

TEST(SameBehaviour, NonMinimalFileEqualsItsCanonicalForm) {
    const Spec file = load_spec(kSource / "specs" / "mediaplayer.yaml");
    const Spec written = parse_spec(write_spec(file), "mp.yaml");
    EXPECT_EQ(file.typestate.states.size(), 10u);
    EXPECT_EQ(written.typestate.states.size(), 9u);  // Paused and PlaybackCompleted coincide
    EXPECT_TRUE(same_behaviour(file, written));
}

// ---------------------------------------------------------------------------------------------
// The shipped specs.

/// 1-based line of the first line of `text` equal to `line`, else 0.
int line_number(const std::string& text, const std::string& line) {
    std::istringstream in(text);
    std::string current;
    for (int n = 1; std::getline(in, current); ++n) {
        if (current == line) return n;
    }
    return 0;
}

TEST(Specs, LoadWithSourceLines) {
    const fs::path path = kSource / "specs" / "asynctask.yaml";
    const std::string text = read_text(path);
    const Spec spec = load_spec(path);
    EXPECT_EQ(spec.typestate.name, "AsyncTask");
    EXPECT_EQ(spec.typestate.states.size(), 5u);
    EXPECT_EQ(spec.typestate.states[spec.typestate.initial].name, "Start");
    EXPECT_EQ(spec.source.file, path.string());
    const int line = line_number(text, "      onPostExecute: Completed");
    ASSERT_GT(line, 0);
    EXPECT_EQ(spec.source.line_of("Running", "onPostExecute"), line);
    EXPECT_EQ(spec.source.transitions.at({"Running", "onPostExecute"}).column, 7);
    EXPECT_EQ(spec.source.line_of("Running"), line_number(text, "  Running:"));
    EXPECT_EQ(spec.source.line_of("Running", "execute"), line_number(text, "  Running:"));  // refused: the state
    EXPECT_EQ(spec.source.line_of("NoSuchState", "cancel"), 0);
    EXPECT_EQ(spec.bounds, (Bounds{2, 5}));
    EXPECT_TRUE(spec.timing.tmax_ms.has_value());

    const fs::path mp_path = kSource / "specs" / "mediaplayer.yaml";
    const std::string mp_text = read_text(mp_path);
    const Spec mp = load_spec(mp_path);
    EXPECT_EQ(mp.typestate.callins.size(), 9u);
    EXPECT_EQ(mp.source.line_of("Started", "onCompletion"), line_number(mp_text, "      onCompletion: PlaybackCompleted"));
    EXPECT_GT(mp.source.line_of("Started", "onCompletion"), 0);
}

TEST(Specs, BoundsHoldForTheirOwnMachines) {
    for (const std::string name : {"asynctask", "mediaplayer"}) {
        SCOPED_TRACE(name);
        const Spec spec = load_spec(kSource / "specs" / (name + ".yaml"));
        const MealyMachine minimal = minimize(synchronous_closure(spec.typestate));
        const auto needed = distinguisher_bound(minimal);
        ASSERT_TRUE(needed.has_value());
        EXPECT_LE(*needed, spec.bounds.distinguisher);
        ASSERT_TRUE(spec.bounds.states.has_value());
        EXPECT_LE(canonical(spec.typestate).states.size(), *spec.bounds.states);
    }
}

TEST(Specs, DroidStarFindingsArePresent) {
    const Spec mp = load_spec(kSource / "specs" / "mediaplayer.yaml");
    const MealyMachine m = synchronous_closure(mp.typestate);
    const auto out = [&](const std::vector<std::string>& word) {
        return names_of(m.outputs_of(word_of(word, m.inputs())), m.outputs());
    };
    // pause() enabled in PlaybackCompleted; onPrepared() after the synchronous prepare().
    EXPECT_EQ(out({"setDataSource", "prepare", "start", "wait", "pause"}),
              (std::vector<std::string>{"ok", "ok", "ok", "onCompletion", "ok"}));
    EXPECT_EQ(out({"setDataSource", "prepare", "wait", "wait"}),
              (std::vector<std::string>{"ok", "ok", "onPrepared", "quiet"}));
    EXPECT_EQ(out({"setDataSource", "prepareAsync", "start"}), (std::vector<std::string>{"ok", "ok", "err"}));

    const Spec task = load_spec(kSource / "specs" / "asynctask.yaml");
    const MealyMachine a = synchronous_closure(task.typestate);
    const auto task_out = [&](const std::vector<std::string>& word) {
        return names_of(a.outputs_of(word_of(word, a.inputs())), a.outputs());
    };
    // execute() after cancel() but before onCancelled() is accepted; the task never runs.
    EXPECT_EQ(task_out({"cancel", "execute", "wait", "wait", "execute"}),
              (std::vector<std::string>{"ok", "ok", "onCancelled", "quiet", "err"}));
    EXPECT_EQ(task_out({"execute", "execute"}), (std::vector<std::string>{"ok", "err"}));
}

TEST(Docs, AnnotatedExampleLoadsAndBehavesLikeTheShippedSpec) {
    const std::string doc = read_text(kSource / "docs" / "spec-format.md");
    const auto begin = doc.find("```yaml\n");
    ASSERT_NE(begin, std::string::npos);
    const auto end = doc.find("```", begin + 8);
    ASSERT_NE(end, std::string::npos);
    const Spec example = parse_spec(doc.substr(begin + 8, end - begin - 8), "spec-format.md");
    EXPECT_EQ(example.typestate.states.size(), 8u);
    EXPECT_EQ(example.provenance.stats.at("queries_executed"), "94");
    // Its unreachable states aside, it is the shipped AsyncTask spec.
    EXPECT_TRUE(same_behaviour(example, load_spec(kSource / "specs" / "asynctask.yaml")));
}

// ---------------------------------------------------------------------------------------------
// Atomic writing.

class AtomicWrite : public testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::path(testing::TempDir()) /
               ("typestar-spec-" + std::to_string(::getpid()) + "-" +
                testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
        fs::remove_all(dir_);
    }
    /// Every entry of the test directory, sorted.
    std::vector<std::string> listing() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
    static void write_plain(const fs::path& path, const std::string& text) {
        std::ofstream(path, std::ios::binary) << text;
    }
    fs::path dir_;
};

TEST_F(AtomicWrite, WritesAndLeavesNoTemporaryFiles) {
    const fs::path target = dir_ / "spec.yaml";
    write_file_atomically(target, "first\n");
    EXPECT_EQ(read_text(target), "first\n");
    fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    write_file_atomically(target, "second\n");
    EXPECT_EQ(read_text(target), "second\n");
    EXPECT_EQ(fs::status(target).permissions(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    EXPECT_EQ(listing(), std::vector<std::string>{"spec.yaml"});
}

TEST_F(AtomicWrite, FailedRenameLeavesTheOldEntryAndNoTemporary) {
    // The target is a non-empty directory: rename(2) cannot replace it.
    const fs::path target = dir_ / "spec.yaml";
    fs::create_directory(target);
    write_plain(target / "keep", "old");
    try {
        write_file_atomically(target, "new\n");
        FAIL() << "rename over a non-empty directory succeeded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_text(target / "keep"), "old");
    EXPECT_EQ(listing(), std::vector<std::string>{"spec.yaml"});
}

TEST_F(AtomicWrite, TemporaryThatCannotBeCreatedLeavesTheOldFile) {
    // A 250-byte name is legal, but the temporary next to it (".<name>.typestar-tmp-XXXXXX") is too long.
    const fs::path target = dir_ / std::string(250, 'x');
    write_plain(target, "old\n");
    EXPECT_THROW(write_file_atomically(target, "new\n"), Error);
    EXPECT_EQ(read_text(target), "old\n");
    EXPECT_EQ(listing(), std::vector<std::string>{std::string(250, 'x')});
}

TEST_F(AtomicWrite, UnwritableDirectoryLeavesTheOldFile) {
    if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
    const fs::path target = dir_ / "spec.yaml";
    write_plain(target, "old\n");
    fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(write_file_atomically(target, "new\n"), Error);
    fs::permissions(dir_, fs::perms::owner_all);
    EXPECT_EQ(read_text(target), "old\n");
    EXPECT_EQ(listing(), std::vector<std::string>{"spec.yaml"});
}

TEST_F(AtomicWrite, MissingDirectoryIsAnErrorNamingThePath) {
    const fs::path target = dir_ / "absent" / "spec.yaml";
    try {
        write_file_atomically(target, "x");
        FAIL() << "wrote into a missing directory";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
    }
    EXPECT_TRUE(listing().empty());
}

TEST_F(AtomicWrite, SaveThenLoad) {
    const Spec spec = load_spec(kSource / "specs" / "mediaplayer.yaml");
    const fs::path target = dir_ / "mp.yaml";
    save_spec(spec, target);
    EXPECT_EQ(read_text(target), write_spec(spec));
    const Spec loaded = load_spec(target);
    EXPECT_TRUE(same_behaviour(loaded, spec));
    EXPECT_EQ(loaded.bounds, spec.bounds);
    EXPECT_EQ(loaded.timing, spec.timing);
    EXPECT_EQ(loaded.source.line_of("Idle"), 9);
}

}  // namespace
}  // namespace typestar::spec
