// L# beside L*: both learners through the same OracleStack + run_experiment on (a) the AALpy Mealy
// models (perfect oracle), next to AALpy's published L* and L# resets (read from the models'
// README, not re-typed) and AALpy's best L# rule pair (best_rule_pair(), measured for issue 38), (b) the 16 DroidStar stand-ins (bench/droidstar) learning alone and with
// DroidStar Algorithm 2 at B = 2, (c) seeded random machines (5 inputs, 5 outputs) of 1,000 and
// 10,000 states: learner CPU and peak RSS, each in a child process of its own. Not a test: it fails
// only on a wrong result (a hypothesis with a separating word from the model) or a crash.
//
//     typestar_lsharp_bench [--models DIR] [--droidstar DIR] [--seed N] [--skip-random] [--json FILE]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "report.hpp"
#include "support/random_mealy.hpp"
#include "typestar/conformance/runner.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/learn/lsharp.hpp"
#include "typestar/learn/lstar.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace {

namespace fs = std::filesystem;
using namespace typestar::bench;
using typestar::MealyMachine;

// Issue 14's targets.
constexpr std::uint64_t kTargetAalpyResets = 10730;       // AALpy L# in total
constexpr double kTargetPerModel = 1.10;                  // no model worse than AALpy L# by more than 10%
constexpr std::uint64_t kTargetStandInsAlone = 800;       // 16 stand-ins, learning alone, executed queries
constexpr double kTarget1000Seconds = 0.1;
constexpr double kTarget10000Seconds = 2.0;
// Issue 27 item 4: input symbols at most AALpy L#'s in total, resets at most 0.9x its.
constexpr double kTargetSymbolsRatio = 1.0;
constexpr double kTargetResetsRatio = 0.9;

// Issue 38 item 2: resets at most 0.80x AALpy's default L# (0.80 x 10,833), input symbols at most
// those of AALpy's best rule pair, and no model's resets above 1.10x the best rule pair's.
constexpr std::uint64_t kTarget38Resets = 8666;
constexpr std::uint64_t kTarget38Symbols = 73526;
constexpr double kTarget38PerModel = 1.10;

/// AALpy's best rule pair per model, {resets, symbols}: AALpy 1.6.1 (commit 499270a, read from its
/// source) `run_Lsharp(extension_rule="ADS", separation_rule="ADS")`, its cache on, a perfect
/// equivalence oracle (PerfectKnowledgeEqOracle: AALpy's shortest counterexample, costing no
/// queries), the input alphabet in the order inputs first appear in the DOT file; resets =
/// `queries_learning`, symbols = `steps_learning`. Run on this machine for issue 38 (totals 9,747 /
/// 73,526, the issue's figures; with the alphabet sorted by name instead: 10,172 / 76,987). The
/// models' README holds AALpy's default rules (`SepSeq` extension, ADS separation) only. AALpy runs an
/// ADS adaptively in one reset; typestar asks fixed words, so a wrong branch costs another.
const std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>& best_rule_pair() {
    static const std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> table{
    {"aalpy/Angluin_Mealy.dot", {16, 47}},
    {"aalpy/Bluetooth/CC2640R2-no-feature-req.dot", {181, 805}},
    {"aalpy/Bluetooth/CC2640R2-no-pairing-req.dot", {78, 271}},
    {"aalpy/Bluetooth/CC2650.dot", {90, 317}},
    {"aalpy/Bluetooth/CYBLE-416045-02.dot", {44, 114}},
    {"aalpy/Bluetooth/CYW43455.dot", {296, 1277}},
    {"aalpy/Bluetooth/bluetooth_model.dot", {44, 114}},
    {"aalpy/Bluetooth/bluetooth_reduced.dot", {44, 114}},
    {"aalpy/Bluetooth/cc2652r1.dot", {60, 174}},
    {"aalpy/Bluetooth/nRF52832.dot", {85, 297}},
    {"aalpy/MQTT/ActiveMQ__two_client_will_retain.dot", {335, 1826}},
    {"aalpy/MQTT/VerneMQ__two_client_will_retain.dot", {336, 1746}},
    {"aalpy/MQTT/emqtt__two_client_will_retain.dot", {335, 1826}},
    {"aalpy/MQTT/hbmqtt__two_client_will_retain.dot", {368, 1930}},
    {"aalpy/MQTT/mosquitto__two_client_will_retain.dot", {349, 1833}},
    {"aalpy/SimpleABC/simple_abc_mealy.dot", {3, 3}},
    {"aalpy/TCP/TCP_Linux_Client.dot", {336, 1637}},
    {"aalpy/TCP/tcp_server_bsd_trans.dot", {2284, 22246}},
    {"aalpy/TCP/tcp_server_ubuntu_trans.dot", {2287, 21905}},
    {"aalpy/TCP/tcp_server_windows_trans.dot", {1716, 13300}},
    {"aalpy/TLS/JSSE_1.8.0_25_server_regular.dot", {100, 416}},
    {"aalpy/TLS/NSS_3.17.4_server_regular.dot", {77, 292}},
    {"aalpy/TLS/OpenSSL_1.0.2_server_regular.dot", {87, 330}},
    {"aalpy/TLS/RSA_BSAFE_C_4.0.4_server_regular.dot", {90, 339}},
    {"aalpy/TLS/miTLS_0.1.3_server_regular.dot", {100, 355}},
    {"aalpy/coffee_mealy.dot", {6, 12}},
    };
    return table;
}

/// AALpy's published numbers for one model: resets / symbols / rounds of L* and L#.
struct Anchor {
    std::uint64_t lstar_resets = 0, lstar_symbols = 0, lsharp_resets = 0, lsharp_symbols = 0;
};

/// Reads the "Anchor: AALpy on these models" table of the models' README.md (rows
/// "| `file` | n | L* r / s / k | KV r / s / k | L# r / s / k |"). Empty if the file is missing.
std::map<std::string, Anchor> read_anchors(const fs::path& readme) {
    std::map<std::string, Anchor> anchors;
    std::ifstream in(readme);
    const std::regex row(R"(^\| `([^`]+)` \| (\d+) \| (\d+) / (\d+) / (\d+) \| (\d+) / (\d+) / (\d+) \| (\d+) / (\d+) / (\d+) \|)");
    bool in_anchor_section = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("## ", 0) == 0) in_anchor_section = line.find("Anchor") != std::string::npos;
        std::smatch m;
        if (!in_anchor_section || !std::regex_search(line, m, row)) continue;
        Anchor a;
        a.lstar_resets = std::stoull(m[3]);
        a.lstar_symbols = std::stoull(m[4]);
        a.lsharp_resets = std::stoull(m[9]);
        a.lsharp_symbols = std::stoull(m[10]);
        anchors[m[1]] = a;
    }
    return anchors;
}

enum class Kind { LStar, LSharp };
const char* name_of(Kind k) { return k == Kind::LStar ? "L*" : "L#"; }

struct Row {
    std::string group, model, learner, oracle;
    std::size_t states = 0, inputs = 0;
    std::uint64_t executed = 0, symbols = 0, waits = 0, learning_executed = 0;
    /// Algorithm 2 rows: the final hypothesis's suite (with the learner's access sequences), its
    /// words and waits: every one must have run, so no learner executes fewer (a lower bound).
    std::uint64_t suite_words = 0, suite_waits = 0;
    std::size_t rounds = 0;
    double seconds = 0, cpu_seconds = 0;
    double equivalence_cpu_seconds = 0;  ///< of cpu_seconds, inside the equivalence oracle
    long peak_rss_kb = 0;
    bool exact = false;
    std::string error;
};


/// Forwards to an equivalence oracle and sums the CPU time spent in it, so that the learner's own
/// CPU (run_experiment's minus this) can be reported.
class TimedOracle final : public typestar::EquivalenceOracle {
public:
    explicit TimedOracle(typestar::EquivalenceOracle& inner) : inner_(inner) {}
    std::optional<typestar::Counterexample> find_counterexample(const MealyMachine& h,
                                                                std::span<const typestar::Word> access) override {
        const double start = cpu_now();
        auto cex = inner_.find_counterexample(h, access);
        seconds += cpu_now() - start;
        return cex;
    }
    [[nodiscard]] std::size_t suggested_suffix_length() const override { return inner_.suggested_suffix_length(); }
    double seconds = 0;

private:
    typestar::EquivalenceOracle& inner_;
};

/// Learns `truth` from a model device declaring `traits` with L* or L#, through one OracleStack and
/// run_experiment; `bound` 0 means the perfect oracle, else DroidStar Algorithm 2 at that bound.
Row learn(std::string group, std::string model, const MealyMachine& truth, Kind kind, std::size_t bound,
          std::optional<typestar::DeviceTraits> traits) {
    Row row;
    row.group = std::move(group);
    row.model = std::move(model);
    row.learner = name_of(kind);
    row.oracle = bound == 0 ? "perfect" : "alg2(B=" + std::to_string(bound) + ")";
    row.states = truth.num_states();
    row.inputs = truth.num_inputs();
    try {
        typestar::ModelDevice device(truth, "model:" + row.model, traits);
        typestar::OracleStack stack(device);
        std::unique_ptr<typestar::EquivalenceOracle> equivalence;
        if (bound == 0) {
            equivalence = std::make_unique<typestar::PerfectOracle>(truth);
        } else {
            typestar::SuiteConfig suite;
            suite.method = typestar::SuiteMethod::Algorithm2;
            suite.bound = bound;
            equivalence = std::make_unique<typestar::SuiteEquivalenceOracle>(stack.oracle(), suite);
        }
        std::unique_ptr<typestar::Learner> learner;
        if (kind == Kind::LStar) learner = std::make_unique<typestar::LStar>(stack.oracle());
        else learner = std::make_unique<typestar::LSharp>(stack.oracle());
        TimedOracle timed(*equivalence);
        const double cpu_start = cpu_now();
        const auto wall_start = std::chrono::steady_clock::now();
        const typestar::LearnResult result = typestar::run_experiment(*learner, timed, stack.counter());
        row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        row.cpu_seconds = cpu_now() - cpu_start;
        row.equivalence_cpu_seconds = timed.seconds;
        const typestar::PhaseCounts total = result.stats.total();
        row.executed = total.queries_executed;
        row.symbols = total.symbols_executed;
        row.waits = total.waits_executed;
        row.learning_executed = result.stats.learning.queries_executed;
        row.rounds = result.rounds;
        if (bound != 0) {
            typestar::SuiteConfig suite;
            suite.method = typestar::SuiteMethod::Algorithm2;
            suite.bound = bound;
            suite.access = result.access_sequences;
            suite.traits = stack.oracle().traits();
            const typestar::TestSuite final_suite = typestar::generate_suite(result.hypothesis, suite);
            row.suite_words = final_suite.cases.size();
            row.suite_waits = final_suite.waits();
        }
        row.exact = result.converged && !typestar::separating_word(result.hypothesis, truth).has_value();
    } catch (const std::exception& e) {
        row.error = e.what();
    }
    row.peak_rss_kb = peak_rss_kb();
    return row;
}

nlohmann::ordered_json row_json(const Row& r) {
    nlohmann::ordered_json j;
    j["group"] = r.group;
    j["model"] = r.model;
    j["learner"] = r.learner;
    j["oracle"] = r.oracle;
    j["states"] = r.states;
    j["inputs"] = r.inputs;
    j["queries_executed"] = r.executed;
    j["learning_queries_executed"] = r.learning_executed;
    j["symbols_executed"] = r.symbols;
    j["waits_executed"] = r.waits;
    if (r.suite_words != 0) {
        j["final_suite_words"] = r.suite_words;
        j["final_suite_waits"] = r.suite_waits;
    }
    j["rounds"] = r.rounds;
    j["seconds"] = r.seconds;
    j["cpu_seconds"] = r.cpu_seconds;
    j["equivalence_cpu_seconds"] = r.equivalence_cpu_seconds;
    j["learner_cpu_seconds"] = r.cpu_seconds - r.equivalence_cpu_seconds;
    j["peak_rss_kb"] = r.peak_rss_kb;
    j["exact"] = r.exact && r.error.empty();
    if (!r.error.empty()) j["error"] = r.error;
    return j;
}

Row row_of_json(const nlohmann::json& j) {
    Row r;
    r.group = j["group"];
    r.model = j["model"];
    r.learner = j["learner"];
    r.oracle = j["oracle"];
    r.states = j["states"];
    r.inputs = j["inputs"];
    r.executed = j["queries_executed"];
    r.learning_executed = j["learning_queries_executed"];
    r.symbols = j["symbols_executed"];
    r.waits = j["waits_executed"];
    if (j.contains("final_suite_words")) {
        r.suite_words = j["final_suite_words"];
        r.suite_waits = j["final_suite_waits"];
    }
    r.rounds = j["rounds"];
    r.seconds = j["seconds"];
    r.cpu_seconds = j["cpu_seconds"];
    r.equivalence_cpu_seconds = j["equivalence_cpu_seconds"];
    r.peak_rss_kb = j["peak_rss_kb"];
    r.exact = j["exact"];
    if (j.contains("error")) r.error = j["error"];
    return r;
}

/// Runs `learn` in a child process, so that its peak RSS is its own.
Row learn_in_child(const std::string& model, const MealyMachine& truth, Kind kind) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        close(fds[0]);
        const std::string text = row_json(learn("random", model, truth, kind, 0, typestar::DeviceTraits{})).dump();
        std::size_t done = 0;
        while (done < text.size()) {
            const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
            if (n <= 0) _exit(3);
            done += static_cast<std::size_t>(n);
        }
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
        Row r;
        r.group = "random";
        r.model = model;
        r.learner = name_of(kind);
        r.oracle = "perfect";
        r.error = "child process failed";
        return r;
    }
    return row_of_json(nlohmann::json::parse(text));
}

const char* verdict(bool ok) { return ok ? "met" : "MISSED"; }

void print_pair_header(const char* title) {
    std::printf("\n== %s\n", title);
    std::printf("%-48s %5s %4s | %8s %9s %7s %4s | %8s %9s %7s %4s\n", "model", "n", "|I|", "L* exec", "symbols",
                "waits", "ok", "L# exec", "symbols", "waits", "ok");
}

void print_pair(const Row& a, const Row& b) {
    auto ok = [](const Row& r) { return r.error.empty() ? (r.exact ? "yes" : "NO") : "ERR"; };
    std::printf("%-48s %5zu %4zu | %8llu %9llu %7llu %4s | %8llu %9llu %7llu %4s\n", a.model.c_str(), a.states,
                a.inputs, ull(a.executed), ull(a.symbols), ull(a.waits), ok(a), ull(b.executed), ull(b.symbols),
                ull(b.waits), ok(b));
    if (a.suite_words != 0 || b.suite_words != 0)
        std::printf("    final suite (lower bound): L* %llu words / %llu waits, L# %llu / %llu\n", ull(a.suite_words),
                    ull(a.suite_waits), ull(b.suite_words), ull(b.suite_waits));
    for (const Row* r : {&a, &b})
        if (!r->error.empty()) std::printf("    %s error: %s\n", r->learner.c_str(), r->error.c_str());
    std::fflush(stdout);
}

struct Sum {
    std::uint64_t executed = 0, symbols = 0, waits = 0, learning = 0, suite_words = 0, suite_waits = 0;
    std::size_t models = 0, exact = 0;
};

Sum sum(const std::vector<Row>& rows, const std::string& group, const std::string& learner, const std::string& oracle) {
    Sum s;
    for (const Row& r : rows) {
        if (r.group != group || r.learner != learner || r.oracle != oracle) continue;
        ++s.models;
        s.executed += r.executed;
        s.symbols += r.symbols;
        s.waits += r.waits;
        s.learning += r.learning_executed;
        s.suite_words += r.suite_words;
        s.suite_waits += r.suite_waits;
        if (r.exact && r.error.empty()) ++s.exact;
    }
    return s;
}

nlohmann::ordered_json sum_json(const Sum& s) {
    return {{"models", s.models}, {"exact", s.exact}, {"queries_executed", s.executed},
            {"learning_queries_executed", s.learning}, {"symbols_executed", s.symbols}, {"waits_executed", s.waits},
            {"final_suite_words", s.suite_words}, {"final_suite_waits", s.suite_waits}};
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"typestar L# benchmark: L# beside L* on AALpy models, DroidStar stand-ins, random machines"};
    std::string models_dir = std::string(TYPESTAR_SOURCE_DIR) + "/../shared/bench/models";
    std::string droidstar_dir = std::string(TYPESTAR_SOURCE_DIR) + "/bench/droidstar";
    std::string json_file;
    std::uint64_t seed = 20180527;
    bool skip_random = false, random_only = false;
    std::vector<std::size_t> random_sizes{1000, 10000};
    app.add_option("--models", models_dir, "directory of the Mealy benchmark models (holds aalpy/ and README.md)");
    app.add_option("--droidstar", droidstar_dir, "directory of the DroidStar spec files");
    app.add_option("--json", json_file, "also write the results as JSON to this file");
    app.add_option("--seed", seed, "seed of the random machines");
    app.add_flag("--skip-random", skip_random, "leave out the random machines");
    app.add_option("--random", random_sizes, "sizes of the random machines (default 1000 10000)");
    app.add_flag("--random-only", random_only, "run only the random machines");
    CLI11_PARSE(app, argc, argv);

    print_title("L# benchmark", TYPESTAR_BUILD_TYPE);
    std::vector<Row> rows;
    bool all_exact = true;
    auto pair = [&](Row a, Row b) {
        print_pair(a, b);
        all_exact = all_exact && a.error.empty() && a.exact && b.error.empty() && b.exact;
        rows.push_back(std::move(a));
        rows.push_back(std::move(b));
    };

    // (a) AALpy models: perfect oracle; the devices declare nothing (as AALpy assumes nothing).
    const fs::path models(models_dir);
    const auto anchors = read_anchors(models / "README.md");
    if (random_only) {
        // nothing but (c)
    } else if (fs::is_directory(models / "aalpy")) {
        print_pair_header("AALpy models, perfect equivalence oracle (executed queries = resets)");
        for (const fs::path& file : files_with_extension(models / "aalpy", ".dot", true)) {
            const std::string rel = fs::relative(file, models).generic_string();
            try {
                const MealyMachine m = typestar::spec::load_mealy_dot(file);
                pair(learn("aalpy", rel, m, Kind::LStar, 0, typestar::DeviceTraits{}),
                     learn("aalpy", rel, m, Kind::LSharp, 0, typestar::DeviceTraits{}));
            } catch (const std::exception& e) {
                std::printf("%-48s cannot load: %s\n", rel.c_str(), e.what());
                all_exact = false;
            }
        }
    } else {
        std::printf("\n== AALpy models: skipped, no directory %s/aalpy (use --models DIR)\n", models_dir.c_str());
    }

    // (b) DroidStar stand-ins: the devices declare the closure's traits only (wait, err absorbing;
    // no quiet assumption), as bench/learn_bench.cpp's "no undeclared assumption" rows.
    std::vector<std::pair<std::string, MealyMachine>> droidstar;
    try {
        if (!random_only)
        for (const fs::path& file : files_with_extension(droidstar_dir, ".yaml", false)) {
            const typestar::spec::Spec s = typestar::spec::load_spec(file);
            droidstar.emplace_back(s.typestate.name, typestar::synchronous_closure(s.typestate));
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cannot load the DroidStar models from %s: %s\n", droidstar_dir.c_str(), e.what());
        return 2;
    }
    if (!random_only) print_pair_header("DroidStar stand-ins, perfect equivalence oracle (learning alone)");
    for (const auto& [name, m] : droidstar)
        pair(learn("droidstar", name, m, Kind::LStar, 0, std::nullopt), learn("droidstar", name, m, Kind::LSharp, 0, std::nullopt));
    if (!random_only) print_pair_header("DroidStar stand-ins, DroidStar Algorithm 2 with B = 2 (learning + conformance)");
    for (const auto& [name, m] : droidstar)
        pair(learn("droidstar", name, m, Kind::LStar, 2, std::nullopt), learn("droidstar", name, m, Kind::LSharp, 2, std::nullopt));

    // (c) Random machines, each learner in a child process of its own (its own peak RSS).
    if (!skip_random) {
        std::printf("\n== Random machines (5 inputs, 5 outputs, seed %llu, perfect oracle), one process per run\n",
                    ull(seed));
        std::printf("%-14s %-3s %9s %9s %9s %8s %12s %6s %5s\n", "model", "", "executed", "cpu s", "learner s",
                    "wall s", "peak RSS KiB", "rounds", "exact");
        for (std::size_t n : random_sizes) {
            const MealyMachine m = typestar::testing_support::random_mealy(n, 5, 5, seed);
            for (Kind kind : {Kind::LStar, Kind::LSharp}) {
                Row r = learn_in_child("random_" + std::to_string(n), m, kind);
                std::printf("%-14s %-3s %9llu %9.4f %9.4f %8.4f %12ld %6zu %5s\n", r.model.c_str(), r.learner.c_str(),
                            ull(r.executed), r.cpu_seconds, r.cpu_seconds - r.equivalence_cpu_seconds, r.seconds,
                            r.peak_rss_kb, r.rounds,
                            r.error.empty() ? (r.exact ? "yes" : "NO") : "ERR");
                if (!r.error.empty()) std::printf("    error: %s\n", r.error.c_str());
                std::fflush(stdout);
                all_exact = all_exact && r.error.empty() && r.exact;
                rows.push_back(std::move(r));
            }
        }
    }

    // Summary against issue 14's targets.
    std::printf("\n== Summary (issue 14 targets)\n");
    nlohmann::ordered_json aalpy_json = nlohmann::ordered_json::array();
    nlohmann::ordered_json aalpy_totals = nlohmann::ordered_json::object();
    if (!anchors.empty() && !random_only) {
        std::printf("AALpy models, perfect oracle, resets (executed queries) and symbols:\n");
        std::printf("  %-48s %8s %9s %8s %9s %8s %8s %7s %9s %7s %8s %7s %9s %7s\n", "model", "L#", "symbols", "L*",
                    "symbols", "AALpy L*", "AALpy L#", "L#/AL#", "AL# symb", "sym/AL#", "best", "L#/best", "best sym",
                    "sym/best");
        std::uint64_t ours = 0, ours_symbols = 0, lstar = 0, lstar_symbols = 0, anchor_lstar = 0, anchor_lsharp = 0,
                      anchor_lsharp_symbols = 0;
        std::size_t within = 0, compared = 0, within_best = 0, compared_best = 0;
        std::uint64_t best_resets = 0, best_symbols = 0, best_ours = 0, best_ours_symbols = 0;
        for (const Row& r : rows) {
            if (r.group != "aalpy" || r.learner != "L#") continue;
            const auto it = anchors.find(r.model);
            const Row* star = nullptr;
            for (const Row& s : rows)
                if (s.group == "aalpy" && s.learner == "L*" && s.model == r.model) star = &s;
            if (it == anchors.end() || star == nullptr) continue;
            ++compared;
            const Anchor& a = it->second;
            ours += r.executed;
            ours_symbols += r.symbols;
            lstar += star->executed;
            lstar_symbols += star->symbols;
            anchor_lstar += a.lstar_resets;
            anchor_lsharp += a.lsharp_resets;
            anchor_lsharp_symbols += a.lsharp_symbols;
            const double symbols_ratio = static_cast<double>(r.symbols) / static_cast<double>(a.lsharp_symbols);
            const double ratio = static_cast<double>(r.executed) / static_cast<double>(a.lsharp_resets);
            if (ratio <= kTargetPerModel) ++within;
            std::printf("  %-48s %8llu %9llu %8llu %9llu %8llu %8llu %7.2f %9llu %7.2f", r.model.c_str(),
                        ull(r.executed), ull(r.symbols), ull(star->executed), ull(star->symbols), ull(a.lstar_resets),
                        ull(a.lsharp_resets), ratio, ull(a.lsharp_symbols), symbols_ratio);
            const auto best = best_rule_pair().find(r.model);
            if (best != best_rule_pair().end()) {
                const auto [b_resets, b_symbols] = best->second;
                const double b_ratio = static_cast<double>(r.executed) / static_cast<double>(b_resets);
                ++compared_best;
                if (b_ratio <= kTarget38PerModel) ++within_best;
                best_resets += b_resets;
                best_symbols += b_symbols;
                best_ours += r.executed;
                best_ours_symbols += r.symbols;
                std::printf(" %8llu %7.2f %9llu %7.2f", ull(b_resets), b_ratio, ull(b_symbols),
                            static_cast<double>(r.symbols) / static_cast<double>(b_symbols));
                if (b_ratio > kTarget38PerModel) std::printf(" resets >1.10x best pair");
            }
            std::printf("%s\n", ratio <= kTargetPerModel ? "" : " resets >1.10");
            aalpy_json.push_back({{"model", r.model}, {"lsharp_resets", r.executed}, {"lsharp_symbols", r.symbols},
                                  {"lstar_resets", star->executed}, {"lstar_symbols", star->symbols},
                                  {"aalpy_lstar_resets", a.lstar_resets}, {"aalpy_lsharp_resets", a.lsharp_resets},
                                  {"aalpy_lsharp_symbols", a.lsharp_symbols}});
            if (best != best_rule_pair().end()) {
                aalpy_json.back()["aalpy_best_pair_resets"] = best->second.first;
                aalpy_json.back()["aalpy_best_pair_symbols"] = best->second.second;
            }
        }
        const double resets_ratio = anchor_lsharp == 0 ? 0 : static_cast<double>(ours) / static_cast<double>(anchor_lsharp);
        const double symbols_ratio =
            anchor_lsharp_symbols == 0 ? 0 : static_cast<double>(ours_symbols) / static_cast<double>(anchor_lsharp_symbols);
        std::printf("  %-48s %8llu %9llu %8llu %9llu %8llu %8llu %7.2f %9llu %7.2f\n", "total", ull(ours),
                    ull(ours_symbols), ull(lstar), ull(lstar_symbols), ull(anchor_lstar), ull(anchor_lsharp),
                    resets_ratio, ull(anchor_lsharp_symbols), symbols_ratio);
        std::printf("  issue 27: L# input symbols %llu = %.3fx AALpy L#'s %llu, target <= %.2fx (%s); resets %.3fx "
                    "AALpy L#'s, target <= %.2fx (%s)\n",
                    ull(ours_symbols), symbols_ratio, ull(anchor_lsharp_symbols), kTargetSymbolsRatio,
                    verdict(compared > 0 && symbols_ratio <= kTargetSymbolsRatio), resets_ratio, kTargetResetsRatio,
                    verdict(compared > 0 && resets_ratio <= kTargetResetsRatio));
        aalpy_totals = {{"models", compared},
                        {"lsharp_resets", ours},
                        {"lsharp_symbols", ours_symbols},
                        {"aalpy_lsharp_resets", anchor_lsharp},
                        {"aalpy_lsharp_symbols", anchor_lsharp_symbols},
                        {"resets_ratio", resets_ratio},
                        {"symbols_ratio", symbols_ratio}};
        std::printf("  total L# resets %llu, target <= %llu (%s); %zu of %zu models within 10%% of AALpy L# (%s)\n",
                    ull(ours), ull(kTargetAalpyResets), verdict(ours <= kTargetAalpyResets), within, compared,
                    verdict(within == compared));
        if (compared_best > 0) {
            // Issue 38 item 2 (the best rule pair's figures are this bench's table, the default's the README's).
            std::printf("  issue 38: L# resets %llu = %.3fx AALpy L#'s default %llu, target <= %llu (%s); input symbols "
                        "%llu, target <= %llu, AALpy's best rule pair (ADS extension + ADS separation) %llu / %llu "
                        "(%s); %zu of %zu models' resets within 10%% of the best rule pair's (%s)\n",
                        ull(best_ours), resets_ratio, ull(anchor_lsharp), ull(kTarget38Resets),
                        verdict(compared_best == compared && best_ours <= kTarget38Resets), ull(best_ours_symbols),
                        ull(kTarget38Symbols), ull(best_resets), ull(best_symbols),
                        verdict(compared_best == compared && best_ours_symbols <= kTarget38Symbols), within_best,
                        compared_best, verdict(within_best == compared_best && compared_best == compared));
            aalpy_totals["aalpy_best_pair_resets"] = best_resets;
            aalpy_totals["aalpy_best_pair_symbols"] = best_symbols;
            aalpy_totals["models_within_best_pair"] = within_best;
        }
    } else if (!random_only) {
        std::printf("AALpy anchors: none read from %s\n", (models / "README.md").c_str());
    }
    const Sum lsharp_alone = sum(rows, "droidstar", "L#", "perfect");
    const Sum lstar_alone = sum(rows, "droidstar", "L*", "perfect");
    const Sum lsharp_alg2 = sum(rows, "droidstar", "L#", "alg2(B=2)");
    const Sum lstar_alg2 = sum(rows, "droidstar", "L*", "alg2(B=2)");
    if (lsharp_alone.models > 0) {
    std::printf("DroidStar stand-ins, learning alone: L# %llu executed queries (target <= %llu, %s), L* %llu\n",
                ull(lsharp_alone.executed), ull(kTargetStandInsAlone), verdict(lsharp_alone.executed <= kTargetStandInsAlone),
                ull(lstar_alone.executed));
    std::printf("DroidStar stand-ins, Algorithm 2 B=2: L# %llu queries / %llu waits, L* %llu / %llu (%s)\n",
                ull(lsharp_alg2.executed), ull(lsharp_alg2.waits), ull(lstar_alg2.executed), ull(lstar_alg2.waits),
                verdict(lsharp_alg2.executed < lstar_alg2.executed && lsharp_alg2.waits < lstar_alg2.waits));
    std::printf("  their final suites (every word must run: a lower bound): L# %llu words / %llu waits, L* %llu / %llu\n",
                ull(lsharp_alg2.suite_words), ull(lsharp_alg2.suite_waits), ull(lstar_alg2.suite_words),
                ull(lstar_alg2.suite_waits));
    }
    for (const Row& r : rows) {
        if (r.group != "random" || r.learner != "L#") continue;
        const double target = r.states >= 10000 ? kTarget10000Seconds : kTarget1000Seconds;
        const double learner = r.cpu_seconds - r.equivalence_cpu_seconds;
        std::printf("%s L#: %.4f s learner CPU (%.4f s with the perfect oracle), target < %g s (%s); peak RSS %ld KiB\n",
                    r.model.c_str(), learner, r.cpu_seconds, target, verdict(r.error.empty() && learner < target),
                    r.peak_rss_kb);
    }
    if (!all_exact) std::printf("SOME MODELS WERE NOT LEARNED EXACTLY (see rows marked NO / ERR)\n");

    if (!json_file.empty()) {
        nlohmann::ordered_json out;
        out["build_type"] = TYPESTAR_BUILD_TYPE;
        out["seed"] = seed;
        out["targets"] = {{"aalpy_total_resets", kTargetAalpyResets},
                          {"aalpy_per_model_ratio", kTargetPerModel},
                          {"droidstar_alone_queries_executed", kTargetStandInsAlone},
                          {"random_1000_cpu_seconds", kTarget1000Seconds},
                          {"random_10000_cpu_seconds", kTarget10000Seconds},
                          {"aalpy_lsharp_symbols_ratio", kTargetSymbolsRatio},
                          {"aalpy_lsharp_resets_ratio", kTargetResetsRatio},
                          {"issue38_resets", kTarget38Resets},
                          {"issue38_symbols", kTarget38Symbols},
                          {"issue38_best_pair_per_model_ratio", kTarget38PerModel}};
        out["totals"] = {{"droidstar_perfect_lsharp", sum_json(lsharp_alone)},
                         {"droidstar_perfect_lstar", sum_json(lstar_alone)},
                         {"droidstar_alg2_lsharp", sum_json(lsharp_alg2)},
                         {"droidstar_alg2_lstar", sum_json(lstar_alg2)}};
        out["aalpy_vs_anchor"] = aalpy_json;
        out["aalpy_vs_anchor_totals"] = aalpy_totals;
        nlohmann::ordered_json all = nlohmann::ordered_json::array();
        for (const Row& r : rows) all.push_back(row_json(r));
        out["rows"] = all;
        if (!write_json_file(json_file, out)) return 2;
    }
    return all_exact ? 0 : 1;
}
