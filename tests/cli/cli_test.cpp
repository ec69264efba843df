// Runs the built `typestar` binary (TYPESTAR_CLI) and checks output and exit status of every spec
// subcommand.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/diff_dot.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/json.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {
namespace {

namespace fs = std::filesystem;

using testing_support::kAsyncTask;
using testing_support::kMediaPlayer;
using testing_support::kSource;
const std::string kMutant = kSource + "/tests/cli/fixtures/mediaplayer_stop_refused.yaml";

using testing_support::read;
using testing_support::Result;
using testing_support::shell_quote;

class Cli : public testing_support::CliTest {
protected:
    Cli() : CliTest("typestar_cli_test_") {}

    /// Runs `typestar <args>` in the test's scratch directory.
    Result run(const std::vector<std::string>& args) const { return run_cli(args, ""); }
};

std::size_t count_lines_starting_with(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
}

// --- the app -------------------------------------------------------------------------------------

TEST_F(Cli, LearnRefinesTheDeclaredPartitionsOfAParameterisedDeviceAndCheckRunsThem) {
    // inproc:pipedoutputstream declares connect(snk) and write(len) with one partition each.
    const Result learned = run({"learn", "--device", "inproc:pipedoutputstream", "--out", "pipe.yaml"});
    ASSERT_EQ(learned.status, 0) << learned.err;
    EXPECT_EQ(read(dir_ / "pipe.yaml"), read(kSource + "/specs/pipedoutputstream.yaml"));  // byte for byte
    EXPECT_NE(learned.err.find("alphabet 3 -> 5 inputs, 2 refinements, 0 unknown transitions"), std::string::npos)
        << learned.err;
    EXPECT_NE(learned.err.find("write[any] split after 'connect[any.ok] write[any]' into any.err any.ok"),
              std::string::npos) << learned.err;
    EXPECT_NE(learned.err.find("asked (without the cache)"), std::string::npos) << learned.err;
    // The same evidence lines as a plain learn (issue 24 item 4), and the values sampled (item 2).
    EXPECT_NE(learned.err.find("typestar: the learned machine's own distinguisher bound is "), std::string::npos)
        << learned.err;
    EXPECT_NE(learned.err.find("The learned spec relies on:\ntypestar:   - the device's states are told apart by "
                               "words of length <= 2 (distinguisher bound B=2)\n"),
              std::string::npos) << learned.err;
    EXPECT_NE(learned.err.find("typestar:   - a wait answered quiet changes nothing (declared by the device)"),
              std::string::npos) << learned.err;
    EXPECT_NE(learned.err.find("typestar: assumed: values sampled: connect[any.err]: connected, null; connect[any.ok]: "
                               "new; write[any.err]: -1; write[any.ok]: 0, 3\n"),
              std::string::npos) << learned.err;
    const Result checked = run({"check", "pipe.yaml", "--device", "inproc:pipedoutputstream"});
    EXPECT_EQ(checked.status, 0) << checked.out << checked.err;
    EXPECT_NE(checked.out.find("conforms: inproc:pipedoutputstream passed all"), std::string::npos) << checked.out;
    EXPECT_NE(checked.out.find("  - values sampled: connect[any.err]: connected, null; connect[any.ok]: new; "
                               "write[any.err]: -1; write[any.ok]: 0, 3\n"),
              std::string::npos) << checked.out;
    // A spec whose partition puts a null sink with a new one: its values answer differently.
    std::string wrong = read(dir_ / "pipe.yaml");
    const std::string from = "values: [connected, \"null\"]";
    ASSERT_NE(wrong.find(from), std::string::npos) << wrong;
    wrong.replace(wrong.find(from), from.size(), "values: [connected]");
    const std::string ok = "values: [new]";
    wrong.replace(wrong.find(ok), ok.size(), "values: [new, \"null\"]");
    std::ofstream(dir_ / "wrong.yaml") << wrong;
    const Result failed = run({"check", "wrong.yaml", "--device", "inproc:pipedoutputstream"});
    EXPECT_EQ(failed.status, 1) << failed.out << failed.err;
    EXPECT_NE(failed.out.find("does not conform to PipedOutputStream"), std::string::npos) << failed.out;
    EXPECT_NE(failed.out.find("connect/v0"), std::string::npos) << failed.out;  // the null sink's input
    // --from cannot seed a learner whose alphabet refinement changes.
    const Result seeded = run({"learn", "--device", "inproc:pipedoutputstream", "--from", "pipe.yaml"});
    EXPECT_EQ(seeded.status, 2);
    EXPECT_NE(seeded.err.find("--from cannot seed"), std::string::npos) << seeded.err;
}

TEST_F(Cli, RefinedLearnKeepsTheTightBoundWarning) {
    // At B=1 every machine of more than one state needs words of length B: the bound is tight.
    const Result learned = run({"learn", "--device", "inproc:pipedoutputstream", "--bound", "1", "--out", "pipe.yaml"});
    ASSERT_EQ(learned.status, 0) << learned.err;
    EXPECT_NE(learned.err.find("(B=1)\ntypestar: warning: the bound is tight: the learned machine needs words of "
                               "length B=1"),
              std::string::npos) << learned.err;
    EXPECT_NE(learned.err.find("Re-run with --bound 2"), std::string::npos) << learned.err;
}

TEST_F(Cli, AcceptKeepsTheProposalsPartitionsAndUnknownTransitions) {
    // A stored partitioned spec with an unknown transition and one wrong transition, and the plugin's
    // proposal for it (the same partitions and unknown transition, the transition fixed).
    const std::string plugin_specs = kSource + "/tests/plugin/specs/";
    fs::copy_file(plugin_specs + "pipe_unknown_close_twice_refused.yaml", dir_ / "pipe.yaml");
    std::string proposal = read(plugin_specs + "pipe_unknown.yaml");
    while (proposal.rfind("#", 0) == 0) proposal = proposal.substr(proposal.find('\n') + 1);
    std::ofstream(dir_ / "pipe.proposed.yaml") << proposal;
    const Result r = run({"accept", "pipe.yaml"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read(dir_ / "pipe.yaml"), proposal);  // partitions (split_from, split_by) and unknowns kept
    EXPECT_NE(proposal.find("split_by: \"connect[any.ok] write[any]\""), std::string::npos);
    EXPECT_NE(proposal.find("{source: purpose, reason:"), std::string::npos);
}

TEST_F(Cli, VersionAndHelp) {
    const Result v = run({"--version"});
    EXPECT_EQ(v.status, 0);
    EXPECT_EQ(v.out, "typestar 0.1.0\n");
    for (const char* sub : {"validate", "export", "import", "diff"}) {
        const Result h = run({sub, "--help"});
        EXPECT_EQ(h.status, 0) << sub;
        EXPECT_NE(h.out.find(std::string("Usage: typestar ") + sub), std::string::npos) << h.out;
    }
    const Result top = run({"--help"});
    EXPECT_EQ(top.status, 0);
    for (const char* sub : {"validate", "export", "import", "diff"}) EXPECT_NE(top.out.find(sub), std::string::npos);
}

TEST_F(Cli, BadUsageExitsTwo) {
    const Result none = run({});
    EXPECT_EQ(none.status, 2);
    EXPECT_EQ(none.err, "typestar: error: A subcommand is required\nRun with --help for more information.\n");
    const Result unknown = run({"frobnicate"});
    EXPECT_EQ(unknown.status, 2);
    EXPECT_EQ(unknown.err.rfind("typestar: error: ", 0), 0u) << unknown.err;
    EXPECT_EQ(run({"export", kMediaPlayer}).status, 2);  // --format is required
    const Result format = run({"export", kMediaPlayer, "--format", "png"});
    EXPECT_EQ(format.status, 2);
    EXPECT_NE(format.err.find("png"), std::string::npos) << format.err;
    EXPECT_EQ(run({"diff", kMediaPlayer}).status, 2);
}

// --- validate ------------------------------------------------------------------------------------

TEST_F(Cli, ValidateGoodSpecs) {
    const Result r = run({"validate", kMediaPlayer, kAsyncTask});
    EXPECT_EQ(r.status, 0) << r.err;
    const Spec mp = load_spec(kMediaPlayer);
    const Spec at = load_spec(kAsyncTask);
    EXPECT_EQ(r.out, "ok: " + kMediaPlayer + " (" + std::to_string(mp.typestate.states.size()) + " states, B=" +
                         std::to_string(mp.bounds.distinguisher) + ")\nok: " + kAsyncTask + " (" +
                         std::to_string(at.typestate.states.size()) + " states, B=" +
                         std::to_string(at.bounds.distinguisher) + ")\n");
    EXPECT_EQ(r.err, "");
}

TEST_F(Cli, ValidatePrintsEveryDiagnosticAndExitsTwo) {
    const fs::path bad = kSource + "/tests/spec/fixtures/bad/unknown_target.yaml";
    fs::copy_file(bad, dir_ / "unknown_target.yaml");
    const Result r = run({"validate", kMediaPlayer, "unknown_target.yaml"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(count_lines_starting_with(r.out, "ok: "), 1u);  // the good one still passes
    EXPECT_EQ(r.err, read(kSource + "/tests/spec/fixtures/bad/unknown_target.expected"));
}

TEST_F(Cli, ValidateMissingFile) {
    const Result r = run({"validate", "nope.yaml"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind("nope.yaml", 0), 0u) << r.err;
}

// --- export --------------------------------------------------------------------------------------

TEST_F(Cli, ExportEveryFormat) {
    const Spec spec = load_spec(kMediaPlayer);

    const Result yaml = run({"export", kMediaPlayer, "--format", "yaml"});
    EXPECT_EQ(yaml.status, 0) << yaml.err;
    EXPECT_EQ(yaml.out, write_spec(spec));
    EXPECT_TRUE(same_behaviour(parse_spec(yaml.out, "exported.yaml"), spec));

    const Result dot = run({"export", kMediaPlayer, "--format", "dot", "-o", "mp.dot"});
    EXPECT_EQ(dot.status, 0) << dot.err;
    EXPECT_EQ(dot.out, "");
    EXPECT_EQ(read(dir_ / "mp.dot"), write_typestate_dot(canonical(spec.typestate)));

    const Result mealy = run({"export", kMediaPlayer, "--format", "mealy-dot"});
    EXPECT_EQ(mealy.status, 0) << mealy.err;
    const MealyMachine closure = parse_mealy_dot(mealy.out, "exported.dot");
    EXPECT_FALSE(separating_word(closure, synchronous_closure(spec.typestate)));

    const Result json = run({"export", kMediaPlayer, "-f", "json", "--output", "mp.json"});
    EXPECT_EQ(json.status, 0) << json.err;
    EXPECT_EQ(read(dir_ / "mp.json"), write_spec_json(spec));

    // Atomic writes leave nothing else behind.
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir_)) files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files, (std::vector<std::string>{"mp.dot", "mp.json", "stderr.txt", "stdout.txt"}));
}

TEST_F(Cli, ExportInvalidSpecExitsTwoWithDiagnostics) {
    fs::copy_file(kSource + "/tests/spec/fixtures/bad/unknown_target.yaml", dir_ / "unknown_target.yaml");
    const Result r = run({"export", "unknown_target.yaml", "--format", "json"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, read(kSource + "/tests/spec/fixtures/bad/unknown_target.expected"));
}

// --- import --------------------------------------------------------------------------------------

TEST_F(Cli, ImportAClosureGivesTheSameSpec) {
    const Spec spec = load_spec(kAsyncTask);
    ASSERT_EQ(run({"export", kAsyncTask, "--format", "mealy-dot", "-o", "closure.dot"}).status, 0);

    const Result r = run({"import", "closure.dot"});
    EXPECT_EQ(r.status, 0) << r.err;
    const Spec imported = parse_spec(r.out, "imported.yaml");
    EXPECT_TRUE(same_behaviour(imported, spec));
    EXPECT_EQ(imported.typestate.name, "closure");  // the file's stem
    EXPECT_EQ(imported.provenance.device, "dot:closure.dot");

    const Result named = run({"import", "closure.dot", "--name", "AsyncTask", "-o", "at.yaml"});
    EXPECT_EQ(named.status, 0) << named.err;
    const Spec from_file = load_spec(dir_ / "at.yaml");
    EXPECT_EQ(from_file.typestate.name, "AsyncTask");
    EXPECT_EQ(from_file.typestate, canonical(spec.typestate));
}

TEST_F(Cli, ImportDiffAndCheckAcceptAPlainMealyMachine) {
    // Issue 34 item 4: a plain Mealy DOT file (AALpy's convention: no `wait`, named outputs) was
    // refused by import, diff and check ("not a synchronous closure: it has no input 'wait'").
    fs::copy_file(kSource + "/tests/spec/fixtures/dot/aalpy_plain.dot", dir_ / "coffee.dot");
    const Result imported = run({"import", "coffee.dot", "-o", "coffee.yaml"});
    ASSERT_EQ(imported.status, 0) << imported.err;
    const Spec spec = load_spec(dir_ / "coffee.yaml");
    EXPECT_FALSE(spec.typestate.has_wait);
    EXPECT_EQ(spec.typestate.outputs, (std::vector<std::string>{"beep", "coffee", "init"}));
    const Result same = run({"diff", "coffee.dot", "coffee.yaml"});
    EXPECT_EQ(same.status, 0) << same.out << same.err;
    const Result checked = run({"check", "coffee.yaml", "--device", "model:coffee.dot"});
    EXPECT_EQ(checked.status, 0) << checked.out << checked.err;
    // A changed output is found by check and shown by diff.
    std::string text = read(dir_ / "coffee.yaml");
    const auto at = text.find("{output: coffee,");
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, 16, "{output: tea,");
    text.replace(text.find("outputs: [beep, coffee, init]"), 29, "outputs: [beep, init, tea]");
    std::ofstream(dir_ / "tea.yaml") << text;
    const Result differs = run({"diff", "coffee.yaml", "tea.yaml"});
    EXPECT_EQ(differs.status, 1) << differs.err;
    EXPECT_NE(differs.out.find("coffee -> "), std::string::npos) << differs.out;
    EXPECT_NE(differs.out.find("tea -> "), std::string::npos) << differs.out;
    const Result fails = run({"check", "tea.yaml", "--device", "model:coffee.dot"});
    EXPECT_EQ(fails.status, 1) << fails.out << fails.err;
    EXPECT_NE(fails.out.find("coffee"), std::string::npos) << fails.out;
}

TEST_F(Cli, ImportLocatesEveryProblem) {
    // Issue 12: a directory said "1:1: expected 'digraph'"; a state named __err said "duplicate
    // state name" with no file and no line; a non-closure edge named no line.
    fs::create_directory(dir_ / "graphs");
    const Result directory = run({"import", "graphs"});
    EXPECT_EQ(directory.status, 2);
    EXPECT_EQ(directory.err, "graphs: cannot read DOT file: Is a directory\n");
    std::ofstream(dir_ / "err.dot") << "digraph{__err->__err[label=\"wait/err\"]}\n";
    const Result sink = run({"import", "err.dot", "-o", "err.yaml"});
    EXPECT_EQ(sink.status, 2);
    EXPECT_EQ(sink.err,
              "err.dot:1:9: state name '__err' is reserved for the error sink of the synchronous closure; rename the state\n");
    EXPECT_FALSE(fs::exists(dir_ / "err.yaml"));
    std::ofstream(dir_ / "boom.dot") << "digraph {\n  s -> s [label=\"wait/quiet\"]\n  s -> s [label=\"go/quiet\"]\n}\n";
    const Result boom = run({"import", "boom.dot"});
    EXPECT_EQ(boom.status, 2);
    EXPECT_EQ(boom.err, "boom.dot:3:17: not a synchronous closure: state s, input 'go' answers 'quiet': a callin "
                        "answers ok, err or a named output, never 'quiet'\n");
}

TEST_F(Cli, ValidateRefusesDevicesAndDirectories) {
    const Result r = run({"validate", "/dev/zero", "."});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err,
              "/dev/zero: cannot read spec file: Not a regular file (a device or socket)\n"
              ".: cannot read spec file: Is a directory\n");
}

TEST_F(Cli, ExportToASymlinkWritesTheFileItNames) {
    fs::create_directory(dir_ / "real");
    std::ofstream(dir_ / "real" / "at.yaml") << "old\n";
    fs::create_symlink("real/at.yaml", dir_ / "at.yaml");
    const Result r = run({"export", kAsyncTask, "-f", "yaml", "-o", "at.yaml"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(dir_ / "at.yaml"));
    EXPECT_EQ(read(dir_ / "real" / "at.yaml"), write_spec(load_spec(kAsyncTask)));
}

TEST_F(Cli, ImportReportsDotDiagnostics) {
    fs::copy_file(kSource + "/tests/spec/fixtures/dot/bad/incomplete.dot", dir_ / "incomplete.dot");
    const Result r = run({"import", "incomplete.dot"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err,
              "incomplete.dot:2:9: state s1 has no transition on inputs 'a', 'b'\n"
              "incomplete.dot:5:9: state s2 has no transition on inputs 'a', 'b', 'c'\n");
}

TEST_F(Cli, ImportRejectsABadName) {
    ASSERT_EQ(run({"export", kAsyncTask, "--format", "mealy-dot", "-o", "closure.dot"}).status, 0);
    const Result r = run({"import", "closure.dot", "--name", "bad name!", "-o", "x.yaml"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind("typestar: error: ", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "x.yaml"));
}

// --- diff ----------------------------------------------------------------------------------------

TEST_F(Cli, DiffOfASpecWithItselfAndItsClosureIsEmpty) {
    const Result same = run({"diff", kMediaPlayer, kMediaPlayer});
    EXPECT_EQ(same.status, 0) << same.err;
    EXPECT_EQ(same.out, "same behaviour\n");

    ASSERT_EQ(run({"export", kMediaPlayer, "--format", "mealy-dot", "-o", "mp.dot"}).status, 0);
    const Result mixed = run({"diff", kMediaPlayer, "mp.dot"});
    EXPECT_EQ(mixed.status, 0) << mixed.out << mixed.err;
    EXPECT_EQ(mixed.out, "same behaviour\n");
}

TEST_F(Cli, MutantFixtureDiffersFromTheSpecByOneLine) {
    const auto content_lines = [](const std::string& path) {
        std::vector<std::string> lines;
        std::istringstream in(read(path));
        for (std::string line; std::getline(in, line);)
            if (line.rfind('#', 0) != 0) lines.push_back(line);
        return lines;
    };
    auto spec = content_lines(kMediaPlayer);
    const auto mutant = content_lines(kMutant);
    ASSERT_EQ(spec.size(), mutant.size() + 1) << "regenerate " << kMutant << " from specs/mediaplayer.yaml";
    const auto stopped = std::find(spec.begin(), spec.end(), "  Stopped:");
    ASSERT_NE(stopped, spec.end());
    const auto removed = std::find(stopped, spec.end(), "      stop: Stopped");
    ASSERT_NE(removed, spec.end());
    spec.erase(removed);
    EXPECT_EQ(spec, mutant) << "regenerate " << kMutant << " from specs/mediaplayer.yaml";
}

TEST_F(Cli, DiffNamesExactlyTheMutatedTransition) {
    const Result r = run({"diff", kMediaPlayer, kMutant});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(r.err, "");
    // One table row, naming state Stopped, callin stop, removed.
    EXPECT_EQ(count_lines_starting_with(r.out, "| Stopped "), 1u) << r.out;
    EXPECT_NE(r.out.find("| Stopped | setDataSource prepare stop | stop   | removed | -> Stopped | err |"),
              std::string::npos)
        << r.out;
    const auto transitions = r.out.find("### Transitions");
    const auto trace = r.out.find("### Shortest separating trace");
    ASSERT_NE(transitions, std::string::npos);
    ASSERT_NE(trace, std::string::npos);
    const std::string table = r.out.substr(transitions, trace - transitions);
    EXPECT_EQ(count_lines_starting_with(table, "| "), 2u) << table;  // header and one row
    EXPECT_NE(r.out.find("| 4   | stop          | ok         | err        | <-  |"), std::string::npos) << r.out;
}

TEST_F(Cli, DiffAsJsonNamesTheMutatedTransitionForPrograms) {
    // The runners (JUnit, node:test) read which transitions changed from here, not from the table.
    const Result r = run({"diff", kMediaPlayer, kMutant, "--format", "json"});
    EXPECT_EQ(r.status, 1) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_FALSE(j.at("same").get<bool>());
    ASSERT_EQ(j.at("changes").size(), 1u) << r.out;
    const auto& c = j.at("changes").at(0);
    EXPECT_EQ(c.at("state"), "Stopped");
    EXPECT_EQ(c.at("input"), "stop");
    EXPECT_EQ(c.at("kind"), "removed");
    EXPECT_EQ(c.at("before"), "-> Stopped");
    EXPECT_EQ(c.at("after"), "err");
    const Result same = run({"diff", kMediaPlayer, kMediaPlayer, "--format", "json"});
    EXPECT_EQ(same.status, 0) << same.err;
    EXPECT_TRUE(nlohmann::json::parse(same.out).at("changes").empty());
    EXPECT_EQ(run({"diff", kMediaPlayer, kMutant, "--format", "yaml"}).status, 2);
}

TEST_F(Cli, DiffOfBadInputExitsTwo) {
    const Result missing = run({"diff", kMediaPlayer, "missing.yaml"});
    EXPECT_EQ(missing.status, 2);
    EXPECT_EQ(missing.err.rfind("missing.yaml", 0), 0u) << missing.err;
    std::ofstream(dir_ / "bad.dot") << "digraph { a -> a [label=\"x/wait\"] }\n";
    const Result not_closure = run({"diff", "bad.dot", kMediaPlayer});
    EXPECT_EQ(not_closure.status, 2);
    EXPECT_EQ(not_closure.err, "bad.dot:1:1: not a synchronous closure: 'wait' is used as an output\n");
}

// --- pictures (export --format svg, diff --picture) ----------------------------------------------

#if TYPESTAR_HAVE_RENDER
std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

TEST_F(Cli, ExportSvgIsTheTypestatePictureSameBytesEveryRun) {
    const Result first = run({"export", kMediaPlayer, "--format", "svg", "-o", "mp.svg"});
    EXPECT_EQ(first.status, 0) << first.err;
    EXPECT_EQ(first.out, "");
    const std::string svg = read(dir_ / "mp.svg");
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_NE(svg.find("<svg "), std::string::npos);
    const std::string dot = write_typestate_dot(canonical(load_spec(kMediaPlayer).typestate));
    EXPECT_EQ(count_of(svg, "class=\"edge\""), count_of(dot, " -> "));
    const Result second = run({"export", kMediaPlayer, "--format", "svg"});  // another process, to stdout
    EXPECT_EQ(second.status, 0) << second.err;
    EXPECT_EQ(second.out, svg);
}

TEST_F(Cli, DiffPictureAsSvgAndDot) {
    const Result svg = run({"diff", kMediaPlayer, kMutant, "--picture", "diff.svg"});
    EXPECT_EQ(svg.status, 1) << svg.err;
    EXPECT_EQ(svg.out, run({"diff", kMediaPlayer, kMutant}).out);  // the report is unchanged
    const std::string picture = read(dir_ / "diff.svg");
    EXPECT_NE(picture.find("&#45; stop()"), std::string::npos);  // the removed transition, in red
    EXPECT_EQ(count_of(picture, "stroke=\"#cf222e\""), 2u);      // its line and arrowhead
    EXPECT_EQ(count_of(picture, "stroke=\"#1a7f37\""), 0u);      // nothing added

    const Result dot = run({"diff", kMediaPlayer, kMutant, "--picture", "diff.dot"});
    EXPECT_EQ(dot.status, 1) << dot.err;
    EXPECT_EQ(read(dir_ / "diff.dot"), write_diff_dot(load_spec(kMediaPlayer), load_spec(kMutant)));
}
#else
TEST_F(Cli, SvgWithoutGraphvizIsAClearError) {
    const Result r = run({"export", kMediaPlayer, "--format", "svg", "-o", "mp.svg"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("built without Graphviz"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "mp.svg"));
    const Result dot = run({"diff", kMediaPlayer, kMutant, "--picture", "diff.dot"});
    EXPECT_EQ(dot.status, 1) << dot.err;
    EXPECT_EQ(read(dir_ / "diff.dot"), write_diff_dot(load_spec(kMediaPlayer), load_spec(kMutant)));
}
#endif

TEST_F(Cli, DiffPictureOfTheSameBehaviourIsWrittenToo) {
    const Result r = run({"diff", kMediaPlayer, kMediaPlayer, "--picture", "same.dot"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(read(dir_ / "same.dot").find("(same behaviour)"), std::string::npos);
}

TEST_F(Cli, DiffPictureNeedsAKnownExtension) {
    const Result r = run({"diff", kMediaPlayer, kMutant, "--picture", "diff.png"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "typestar: error: --picture diff.png: the file must end in .svg or .dot\n");
    EXPECT_FALSE(fs::exists(dir_ / "diff.png"));
}

// --- devices by URL ------------------------------------------------------------------------------

TEST_F(Cli, LearnsAndChecksAnInProcessDevice) {
    const Result learned = run({"learn", "--device", "inproc:asynctask", "--out", "learned.yaml"});
    ASSERT_EQ(learned.status, 0) << learned.err;
    const Spec spec = load_spec(dir_ / "learned.yaml");
    EXPECT_TRUE(same_behaviour(spec, load_spec(kAsyncTask)));
    EXPECT_EQ(spec.typestate.name, "AsyncTask");  // the class definition's name
    EXPECT_EQ(spec.provenance.device, "inproc:asynctask");
    const Result checked = run({"check", kAsyncTask, "--device", "inproc:asynctask"});
    EXPECT_EQ(checked.status, 0) << checked.out << checked.err;
    const Result mutant = run({"check", kMutant, "--device", "inproc:mediaplayer"});
    EXPECT_EQ(mutant.status, 1) << mutant.out << mutant.err;
}

TEST_F(Cli, WpWithAnAbsoluteStateBoundUsesNoMoreStatesThanItSays) {
    // --states n replaces --bound's extra states (AALpy's m = n): the hypothesis that has n states
    // is checked with no extra state, so it costs less than 2 extra states relative to it.
    const std::size_t n = minimize(synchronous_closure(load_spec(kMediaPlayer).typestate)).num_states();
    const std::string device = "model:" + kMediaPlayer;
    const Result absolute = run({"learn", "--device", device, "--equivalence", "wp", "--states", std::to_string(n),
                                 "--out", "absolute.yaml", "--stats", "absolute.json"});
    ASSERT_EQ(absolute.status, 0) << absolute.err;
    const Result relative = run({"learn", "--device", device, "--equivalence", "wp", "--bound", "2", "--out",
                                 "relative.yaml", "--stats", "relative.json"});
    ASSERT_EQ(relative.status, 0) << relative.err;
    EXPECT_TRUE(same_behaviour(load_spec(dir_ / "absolute.yaml"), load_spec(kMediaPlayer)));
    EXPECT_TRUE(same_behaviour(load_spec(dir_ / "relative.yaml"), load_spec(kMediaPlayer)));
    const auto executed = [&](const std::string& file) {
        const std::string text = read(dir_ / file);
        const std::string key = "\"equivalence_queries_executed\": ";
        const auto at = text.find(key);
        return at == std::string::npos ? std::size_t{0} : std::stoul(text.substr(at + key.size()));
    };
    EXPECT_GT(executed("relative.json"), 0u);
    EXPECT_LT(executed("absolute.json"), executed("relative.json")) << absolute.err << relative.err;
    EXPECT_NE(read(dir_ / "absolute.json").find("\"verification_queries_executed\""), std::string::npos);
    EXPECT_NE(absolute.err.find(" verification)"), std::string::npos) << absolute.err;  // the phases apart
}

TEST_F(Cli, UnknownDeviceKindIsBadInput) {
    const Result r = run({"learn", "--device", "serial:/dev/ttyUSB0"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("serial:/dev/ttyUSB0"), std::string::npos) << r.err;
    const Result perfect = run({"learn", "--device", "inproc:asynctask", "--equivalence", "perfect"});
    EXPECT_EQ(perfect.status, 2);
    EXPECT_NE(perfect.err.find("needs a model device"), std::string::npos) << perfect.err;
}

#ifdef TYPESTAR_DEVICE_BIN
TEST_F(Cli, LearnsAndChecksOverHttpWithTheToken) {
    // A typestar-device agent on loopback (any free port), then learn and check through it, with
    // and without the bearer token.
    const std::string script =
        "cd " + shell_quote(dir_.string()) + " || exit 1; "
        "TYPESTAR_DEVICE_TOKEN=s3cret " + shell_quote(TYPESTAR_DEVICE_BIN) +
        " --class asynctask --port 0 > agent.txt 2>&1 & pid=$!; "
        "for i in $(seq 200); do grep -q 'http://' agent.txt && break; sleep 0.05; done; "
        "url=$(grep -o 'http://[0-9.:]*' agent.txt | head -n 1); echo \"$url\" > url.txt; "
        "TYPESTAR_DEVICE_TOKEN=s3cret " + shell_quote(TYPESTAR_CLI) +
        " learn --device \"$url\" --out learned.yaml > learn.out 2> learn.err; echo $? > learn.status; "
        "TYPESTAR_DEVICE_TOKEN=s3cret " + shell_quote(TYPESTAR_CLI) + " check " + shell_quote(kAsyncTask) +
        " --device \"$url\" > check.out 2> check.err; echo $? > check.status; "
        "env -u TYPESTAR_DEVICE_TOKEN -u TYPESTAR_DEVICE_TOKEN_FILE " + shell_quote(TYPESTAR_CLI) + " check " +
        shell_quote(kAsyncTask) + " --device \"$url\" > untokened.out 2> untokened.err; echo $? > untokened.status; "
        "kill $pid; wait $pid";
    (void)std::system(script.c_str());
    const std::string url = read(dir_ / "url.txt");
    ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << read(dir_ / "agent.txt");
    EXPECT_EQ(read(dir_ / "learn.status"), "0\n") << read(dir_ / "learn.err");
    // A remote device: the flake policy's residual chance is printed (issue 24).
    EXPECT_NE(read(dir_ / "learn.err").find("flake policy: "), std::string::npos) << read(dir_ / "learn.err");
    EXPECT_NE(read(dir_ / "learn.err").find("·p² (p=1%: "), std::string::npos) << read(dir_ / "learn.err");
    EXPECT_TRUE(same_behaviour(load_spec(dir_ / "learned.yaml"), load_spec(kAsyncTask)));
    EXPECT_EQ(read(dir_ / "check.status"), "0\n") << read(dir_ / "check.err");
    EXPECT_NE(read(dir_ / "check.out").find("conforms"), std::string::npos);
    EXPECT_EQ(read(dir_ / "untokened.status"), "2\n") << read(dir_ / "untokened.err");
    EXPECT_NE(read(dir_ / "untokened.err").find("token"), std::string::npos) << read(dir_ / "untokened.err");
}
#endif

// --- accept -------------------------------------------------------------------------------------

constexpr const char* kStoredTimer = R"(typestar: 1
name: TimerService
callins: [start, cancel]
callbacks: [onFired, onCancelled]
initial: Idle
states:
  Idle:
    callins: {start: Running}
  Running:
    callins: {cancel: Cancelling}
    callbacks: {onFired: Idle}
  Cancelling:
    callbacks: {onCancelled: Idle}
)";

// A learned proposal with generated names: cancelling now ends in a new state s3 that refuses
// everything (s0, s1, s2 are Idle, Running, Cancelling).
constexpr const char* kProposedTimer = R"y(typestar: 1
name: TimerService
callins: [cancel, start]
callbacks: [onCancelled, onFired]
initial: s0
timing: {tmax_ms: 150, tmin_ms: 2}
states:
  s0:
    callins: {start: s1}
  s1:
    callins: {cancel: s2}
    callbacks: {onFired: s0}
  s2:
    callbacks: {onCancelled: s3}
  s3: {}
provenance:
  tool: "typestar 0.1.0"
  device: "TimerService (in-process)"
)y";

TEST_F(Cli, AcceptKeepsStoredNamesAndAsksOnlyForNewStates) {
    std::ofstream(dir_ / "timer.yaml") << kStoredTimer;
    std::ofstream(dir_ / "timer.proposed.yaml") << kProposedTimer;
    std::ofstream(dir_ / "timer.proposed.dot") << "digraph {}";
    std::ofstream(dir_ / "timer.diff.svg") << "<svg/>";

    const Result unnamed = run({"accept", "timer.yaml"});
    EXPECT_EQ(unnamed.status, 2);
    EXPECT_EQ(unnamed.out, "");
    EXPECT_EQ(unnamed.err,
              "typestar: error: the proposal has 1 new state without a name; name it with --name NEW=Chosen, or keep "
              "the generated name with --auto:\n"
              "  s3  reached by: start cancel wait\n"
              "  e.g. typestar accept timer.yaml --name s3=...\n");
    EXPECT_EQ(read(dir_ / "timer.yaml"), kStoredTimer);  // nothing written
    EXPECT_TRUE(fs::exists(dir_ / "timer.proposed.yaml"));

    const Result stored_state = run({"accept", "timer.yaml", "--name", "s1=Busy"});
    EXPECT_EQ(stored_state.status, 2);
    EXPECT_NE(stored_state.err.find("'s1' is the stored state 'Running' (same behaviour); stored names are kept"),
              std::string::npos)
        << stored_state.err;
    const Result clash = run({"accept", "timer.yaml", "--name", "s3=Idle"});
    EXPECT_EQ(clash.status, 2);
    EXPECT_NE(clash.err.find("two states would be named 'Idle'"), std::string::npos) << clash.err;
    const Result bad = run({"accept", "timer.yaml", "--name", "s3=no good"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("'no good' is not a state name"), std::string::npos) << bad.err;
    const Result unknown = run({"accept", "timer.yaml", "--name", "s9=X"});
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find("has no state 's9'"), std::string::npos) << unknown.err;
    EXPECT_EQ(read(dir_ / "timer.yaml"), kStoredTimer);

    const Result ok = run({"accept", "timer.yaml", "--name", "s3=Finished"});
    ASSERT_EQ(ok.status, 0) << ok.err;
    EXPECT_EQ(ok.out,
              "accepted timer.proposed.yaml as timer.yaml: 4 states (3 with their stored names, 1 new), 4 renamed; "
              "removed timer.proposed.yaml timer.proposed.dot timer.diff.svg\n");
    const Spec accepted = load_spec(dir_ / "timer.yaml");
    std::vector<std::string> names;
    for (const auto& st : accepted.typestate.states) names.push_back(st.name);
    EXPECT_EQ(names, (std::vector<std::string>{"Idle", "Running", "Cancelling", "Finished"}));
    EXPECT_TRUE(same_behaviour(accepted, parse_spec(kProposedTimer, "proposal")));
    EXPECT_EQ(accepted.typestate.name, "TimerService");  // the class name the proposal records
    EXPECT_EQ(accepted.timing.tmax_ms, std::optional<double>(150));
    EXPECT_FALSE(fs::exists(dir_ / "timer.proposed.yaml"));
    EXPECT_FALSE(fs::exists(dir_ / "timer.proposed.dot"));
    EXPECT_FALSE(fs::exists(dir_ / "timer.diff.svg"));

    const Result again = run({"accept", "timer.yaml"});
    EXPECT_EQ(again.status, 2);
    EXPECT_NE(again.err.find("no proposal to accept: timer.proposed.yaml does not exist"), std::string::npos)
        << again.err;
}

TEST_F(Cli, AcceptAutoKeepsGeneratedNamesOfNewStatesOnly) {
    std::ofstream(dir_ / "timer.yaml") << kStoredTimer;
    std::ofstream(dir_ / "timer.proposed.yaml") << kProposedTimer;
    const Result ok = run({"accept", "timer.yaml", "--auto"});
    ASSERT_EQ(ok.status, 0) << ok.err;
    std::vector<std::string> names;
    for (const auto& st : load_spec(dir_ / "timer.yaml").typestate.states) names.push_back(st.name);
    EXPECT_EQ(names, (std::vector<std::string>{"Idle", "Running", "Cancelling", "s3"}));
}

TEST_F(Cli, AcceptKeepsTheProposalsEnvironmentRole) {
    // A proposal learned from a purpose that declares `cancel` as the peer's (format 2): accepting
    // it renames states only; the declaration stays.
    std::ofstream(dir_ / "timer.yaml") << kStoredTimer;
    std::string proposal = kProposedTimer;
    proposal.replace(0, proposal.find("callbacks:"),
                     "typestar: 2\nkind: typestate\nname: TimerService\ncallins:\n  - cancel: {role: environment}\n"
                     "  - start\n");
    std::ofstream(dir_ / "timer.proposed.yaml") << proposal;
    const Result ok = run({"accept", "timer.yaml", "--name", "s3=Finished"});
    ASSERT_EQ(ok.status, 0) << ok.err;
    const std::string text = read(dir_ / "timer.yaml");
    EXPECT_NE(text.find("  - cancel: {role: environment}\n"), std::string::npos) << text;
    const Spec accepted = load_spec(dir_ / "timer.yaml");
    ASSERT_EQ(accepted.declarations.size(), 1u);
    EXPECT_EQ(accepted.declarations[0].name, "cancel");
    EXPECT_TRUE(accepted.declarations[0].environment);
    EXPECT_EQ(accepted.typestate.states.at(0).name, "Idle");
}

TEST_F(Cli, AcceptRefusesABrokenProposalAndKeepsTheSpec) {
    std::ofstream(dir_ / "timer.yaml") << kStoredTimer;
    std::ofstream(dir_ / "timer.proposed.yaml") << "typestar: 1\nname: T\nstates: [\n";
    const Result r = run({"accept", "timer.yaml", "--auto"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("timer.proposed.yaml:"), std::string::npos) << r.err;
    EXPECT_EQ(read(dir_ / "timer.yaml"), kStoredTimer);
    EXPECT_TRUE(fs::exists(dir_ / "timer.proposed.yaml"));
}

#ifdef EXEC_SUBJECT
// --- a user's own class, served by its test binary (exec:BINARY#SPEC) ----------------------------

TEST_F(Cli, LearnsAndChecksTheUsersOwnClassThroughItsTestBinary) {
    const std::string device = std::string("exec:") + EXEC_SUBJECT + "#Beeper";
    const Result learned = run({"learn", "--device", device, "--out", "beeper.yaml"});
    ASSERT_EQ(learned.status, 0) << learned.err;
    const Spec spec = load_spec(dir_ / "beeper.yaml");
    EXPECT_EQ(spec.typestate.name, "Beeper");  // the LearningPurpose's class name, from /v1/status
    EXPECT_EQ(spec.provenance.device, device);  // a URL that can be passed again
    EXPECT_EQ(spec.provenance.framework, "exec-subject-1");
    ASSERT_EQ(spec.typestate.states.size(), 3u) << read(dir_ / "beeper.yaml");
    EXPECT_EQ(spec.timing.tmax_ms, std::optional<double>(60));
    // Query statistics are not in the spec: learning again gives the same bytes (no diff noise).
    EXPECT_TRUE(spec.provenance.stats.empty());
    const Result relearned = run({"learn", "--device", device, "--out", "beeper2.yaml"});
    ASSERT_EQ(relearned.status, 0) << relearned.err;
    EXPECT_EQ(read(dir_ / "beeper2.yaml"), read(dir_ / "beeper.yaml"));

    const Result checked = run({"check", "beeper.yaml", "--device", device});
    EXPECT_EQ(checked.status, 0) << checked.out << checked.err;
    EXPECT_NE(checked.out.find("conforms: " + device), std::string::npos) << checked.out;

    // The same class with `start` allowed twice in the spec: a counterexample from the real class.
    Spec twice = load_spec(dir_ / "beeper.yaml");
    auto& states = twice.typestate.states;
    const auto refused = std::find_if(states.begin(), states.end(), [](const auto& st) { return !st.callins.at(0); });
    ASSERT_NE(refused, states.end());
    refused->callins[0] = static_cast<StateId>(refused - states.begin());
    save_spec(twice, dir_ / "twice.yaml");
    const Result mutant = run({"check", "twice.yaml", "--device", device});
    EXPECT_EQ(mutant.status, 1) << mutant.out << mutant.err;
    EXPECT_NE(mutant.out.find("counterexample: " + device), std::string::npos) << mutant.out;
}

TEST_F(Cli, TheGtestPluginRecordsClassNameAndTimingAndNoStatistics) {
    // The plugin's first run learns the missing spec (beeper.proposed.yaml); twice, for the bytes.
    const std::string command = "cd " + shell_quote(dir_.string()) + " && env -u CI -u TYPESTAR_UPDATE " +
                                "TYPESTAR_EXEC_SUBJECT_SPEC=" + shell_quote((dir_ / "beeper.yaml").string()) + " " +
                                shell_quote(EXEC_SUBJECT) + " > out.txt 2> err.txt";
    const int first = std::system(command.c_str());
    EXPECT_EQ(WIFEXITED(first) ? WEXITSTATUS(first) : -1, 1) << read(dir_ / "out.txt");
    const std::string proposal = read(dir_ / "beeper.proposed.yaml");
    ASSERT_FALSE(proposal.empty()) << read(dir_ / "out.txt") << read(dir_ / "err.txt");
    const Spec spec = parse_spec(proposal, "beeper.proposed.yaml");
    EXPECT_EQ(spec.typestate.name, "Beeper");
    EXPECT_EQ(spec.timing.tmax_ms, std::optional<double>(60));
    EXPECT_EQ(spec.timing.tmin_ms, std::optional<double>(2));
    EXPECT_EQ(spec.provenance.framework, "exec-subject-1");
    EXPECT_EQ(spec.provenance.device, "Beeper (in-process)");
    EXPECT_TRUE(spec.provenance.stats.empty());
    EXPECT_EQ(proposal.find("queries"), std::string::npos) << proposal;
    EXPECT_NE(read(dir_ / "out.txt").find("typestar accept " + (dir_ / "beeper.yaml").string()), std::string::npos);
    (void)std::system(command.c_str());
    EXPECT_EQ(read(dir_ / "beeper.proposed.yaml"), proposal);  // same behaviour, same bytes
}

TEST_F(Cli, ExecDeviceErrorsNameTheCause) {
    const Result unknown = run({"check", kAsyncTask, "--device", std::string("exec:") + EXEC_SUBJECT + "#Nope"});
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find("no registered spec 'Nope' (registered: Beeper)"), std::string::npos) << unknown.err;
    EXPECT_NE(unknown.err.find("did not start serving (it exited with status 2"), std::string::npos) << unknown.err;
    const Result not_a_test = run({"check", kAsyncTask, "--device", "exec:/bin/true"});
    EXPECT_EQ(not_a_test.status, 2);
    EXPECT_NE(not_a_test.err.find("exec:/bin/true: the binary did not start serving (it exited with status 0"),
              std::string::npos)
        << not_a_test.err;
    const Result missing = run({"check", kAsyncTask, "--device", "exec:./no-such-binary"});
    EXPECT_EQ(missing.status, 2);
    EXPECT_NE(missing.err.find("cannot run the binary"), std::string::npos) << missing.err;
}

/// Whether process `pid` is gone (or a zombie nobody reaps yet: it runs no more).
bool process_ended(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const auto paren = line.rfind(')');
    return paren == std::string::npos || line.substr(paren + 2, 1) == "Z";
}

TEST_F(Cli, AnExecDeviceEndsEveryProcessItsBinaryStarted) {
    // A binary that says it serves, starts a child of its own, then hangs; the device over it fails
    // (nothing listens), and ending it must end the child too (issue 26 item 7: it survived).
    const fs::path script = dir_ / "forks.sh";
    std::ofstream(script) << "#!/bin/sh\nsleep 300 </dev/null >/dev/null 2>&1 &\necho $! > \"$0.pid\"\n"
                             "echo 'typestar: serving X at http://127.0.0.1:1 (test)'\necho 'typestar: ready'\nexec sleep 300\n";
    fs::permissions(script, fs::perms::owner_all);
    const Result r = run({"check", kAsyncTask, "--device", "exec:" + script.string()});
    EXPECT_EQ(r.status, 2) << r.err;
    std::ifstream pid_file(script.string() + ".pid");
    pid_t child = 0;
    ASSERT_TRUE(pid_file >> child) << r.err;
    bool ended = false;
    for (int i = 0; i < 100 && !ended; ++i) {
        ended = process_ended(child);
        if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(ended) << "the binary's child " << child << " outlived the device";
    if (!ended) ::kill(child, SIGKILL);
}

TEST_F(Cli, AnExecDeviceEscapesTheControlCharactersOfItsBinarysLastLine) {
    const fs::path script = dir_ / "forges.sh";
    std::ofstream(script) << "#!/bin/sh\nprintf 'red \\033[31mtext\\rforged.yaml:1:1: error\\n'\nexit 3\n";
    fs::permissions(script, fs::perms::owner_all);
    const Result r = run({"check", kAsyncTask, "--device", "exec:" + script.string()});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("its last line: 'red \\x1b[31mtext\\rforged.yaml:1:1: error'"), std::string::npos) << r.err;
    const std::string message = r.err.substr(r.err.find("did not start serving"));
    EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
    EXPECT_EQ(message.find('\r'), std::string::npos) << message;
}

TEST_F(Cli, TheTestBinaryRefusesToServeWithoutAToken) {
    const std::string command = "cd " + shell_quote(dir_.string()) + " && env -u TYPESTAR_DEVICE_TOKEN -u " +
                                "TYPESTAR_DEVICE_TOKEN_FILE " + shell_quote(EXEC_SUBJECT) +
                                " --typestar_serve=127.0.0.1:0 > out.txt 2> err.txt";
    const int raw = std::system(command.c_str());
    EXPECT_EQ(WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, 2);
    EXPECT_EQ(read(dir_ / "out.txt"), "");
    EXPECT_NE(read(dir_ / "err.txt").find("no bearer token"), std::string::npos) << read(dir_ / "err.txt");
    // A token file others can read is refused too.
    std::ofstream(dir_ / "token") << "t0ken";
    fs::permissions(dir_ / "token", fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
    const std::string loose = "cd " + shell_quote(dir_.string()) + " && " + shell_quote(EXEC_SUBJECT) +
                              " --typestar_serve=127.0.0.1:0 --typestar_token_file=token > out.txt 2> err.txt";
    const int raw2 = std::system(loose.c_str());
    EXPECT_EQ(WIFEXITED(raw2) ? WEXITSTATUS(raw2) : -1, 2);
    EXPECT_NE(read(dir_ / "err.txt").find("token"), std::string::npos) << read(dir_ / "err.txt");
}
#endif

}  // namespace
}  // namespace typestar::spec
