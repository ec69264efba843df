// Learning benchmark: learns the DroidStar stand-in models (bench/droidstar) with DroidStar
// Algorithm 2 at B = 2 and with a perfect equivalence oracle, the AALpy Mealy models (perfect
// oracle), and two seeded random machines (1,000 and 10,000 states), and prints query counts and
// times next to the issue's targets and AALpy's published L* resets. Not a test: it never fails on
// a missed target, only on a wrong result (a hypothesis that is not the model) or a crash.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "report.hpp"
#include "support/random_mealy.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace {

namespace fs = std::filesystem;
using namespace typestar::bench;
using typestar::MealyMachine;

// ---- Reference numbers ---------------------------------------------------------------------------

/// The issue's targets for the graders' DroidStar models (16 classes, DroidStar Table 1).
constexpr std::uint64_t kDroidStarReplayQueries = 6573;  // DroidStar replay: learning + Alg2, B = 2
constexpr std::uint64_t kDroidStarReplayWaits = 6711;
constexpr std::uint64_t kAlg2FloorQueries = 4496;        // Algorithm 2 suite alone
constexpr std::uint64_t kAlg2FloorWaits = 3866;
constexpr std::uint64_t kTargetQueries = 4930;           // targets, learning + Alg2, B = 2
constexpr std::uint64_t kTargetWaits = 4360;
constexpr std::uint64_t kTargetPerfectQueries = 1828;    // learning alone, perfect oracle
constexpr double kTarget1000Seconds = 0.03;
/// The stand-ins' cost with the defaults before the search beyond the bound, when issue 34 was filed.
constexpr std::uint64_t kDefaultsBefore34 = 6635;
constexpr double kTarget10000Seconds = 1.0;

/// AALpy 1.6.1 (commit 499270a) with a perfect equivalence oracle, from
/// /work/shared/bench/models/README.md ("Anchor: AALpy on these models"): L* with Rivest–Schapire
/// counterexample processing, and L# for comparison. resets = membership queries that reached the
/// system.
struct AalpyAnchor {
    const char* file;
    std::size_t states;
    std::uint64_t lstar_resets;
    std::uint64_t lstar_symbols;
    std::uint64_t lstar_rounds;
    std::uint64_t lsharp_resets;
};

constexpr AalpyAnchor kAalpy[] = {
    {"aalpy/Angluin_Mealy.dot", 4, 21, 70, 2, 16},
    {"aalpy/Bluetooth/CC2640R2-no-feature-req.dot", 11, 704, 3136, 1, 200},
    {"aalpy/Bluetooth/CC2640R2-no-pairing-req.dot", 6, 384, 1472, 1, 87},
    {"aalpy/Bluetooth/CC2650.dot", 5, 405, 1458, 1, 98},
    {"aalpy/Bluetooth/CYBLE-416045-02.dot", 3, 243, 729, 1, 50},
    {"aalpy/Bluetooth/CYW43455.dot", 16, 784, 3136, 1, 309},
    {"aalpy/Bluetooth/bluetooth_model.dot", 3, 243, 729, 1, 50},
    {"aalpy/Bluetooth/bluetooth_reduced.dot", 3, 243, 729, 1, 50},
    {"aalpy/Bluetooth/cc2652r1.dot", 4, 196, 588, 1, 61},
    {"aalpy/Bluetooth/nRF52832.dot", 5, 405, 1458, 1, 92},
    {"aalpy/MQTT/ActiveMQ__two_client_will_retain.dot", 18, 2602, 15276, 9, 379},
    {"aalpy/MQTT/VerneMQ__two_client_will_retain.dot", 17, 2193, 12148, 7, 369},
    {"aalpy/MQTT/emqtt__two_client_will_retain.dot", 18, 2602, 15276, 9, 379},
    {"aalpy/MQTT/hbmqtt__two_client_will_retain.dot", 17, 2054, 10601, 6, 389},
    {"aalpy/MQTT/mosquitto__two_client_will_retain.dot", 18, 2175, 12239, 6, 391},
    {"aalpy/SimpleABC/simple_abc_mealy.dot", 1, 9, 18, 1, 3},
    {"aalpy/TCP/TCP_Linux_Client.dot", 15, 1771, 8460, 3, 338},
    {"aalpy/TCP/tcp_server_bsd_trans.dot", 55, 21085, 208054, 19, 2674},
    {"aalpy/TCP/tcp_server_ubuntu_trans.dot", 57, 18806, 178913, 17, 2593},
    {"aalpy/TCP/tcp_server_windows_trans.dot", 38, 11876, 92619, 12, 1812},
    {"aalpy/TLS/JSSE_1.8.0_25_server_regular.dot", 9, 576, 2496, 1, 99},
    {"aalpy/TLS/NSS_3.17.4_server_regular.dot", 8, 512, 2112, 1, 79},
    {"aalpy/TLS/OpenSSL_1.0.2_server_regular.dot", 7, 343, 1274, 1, 92},
    {"aalpy/TLS/RSA_BSAFE_C_4.0.4_server_regular.dot", 9, 576, 2240, 1, 102},
    {"aalpy/TLS/miTLS_0.1.3_server_regular.dot", 6, 384, 1472, 1, 111},
    {"aalpy/coffee_mealy.dot", 2, 8, 20, 1, 6},
};

/// AALpy 1.6.1's Wp-method oracle with m = n (the true number of states) and its L#, on the same
/// DOT files and machine, as measured for issue 27 (queries = resets that reached the system,
/// learning and equivalence together; committed as data, not re-run). Only these three were
/// measured side by side.
struct AalpyWpAnchor {
    const char* file;
    std::uint64_t queries;
};
constexpr AalpyWpAnchor kAalpyWp[] = {
    {"aalpy/MQTT/emqtt__two_client_will_retain.dot", 6180},
    {"aalpy/TCP/TCP_Linux_Client.dot", 6806},
    {"aalpy/Bluetooth/CYW43455.dot", 1449},
};

const AalpyAnchor* find_anchor(const std::string& file) {
    for (const auto& a : kAalpy)
        if (file == a.file) return &a;
    return nullptr;
}

// ---- Measuring -----------------------------------------------------------------------------------

enum class Oracle {
    Algorithm2,
    Perfect,
    WpStates,    ///< Wp with an absolute state bound, `bound` = the model's states (AALpy's m = n)
    WStates,     ///< W, likewise
    WpRelative,  ///< Wp with `bound` extra states relative to each hypothesis
    Default,     ///< LearnOptions{} untouched: what `typestar learn` does with no flags
};

/// One learning run: what it cost and whether it found the model.
struct Row {
    std::string group;
    std::string model;
    std::string oracle;
    std::size_t states = 0;   ///< of the model (Mealy machine, err sink included)
    std::size_t inputs = 0;
    std::uint64_t asked = 0;
    std::uint64_t executed = 0;
    std::uint64_t symbols = 0;
    std::uint64_t waits = 0;
    std::uint64_t learning_executed = 0;  ///< executed queries of the learning phase alone
    std::uint64_t verification_executed = 0;  ///< re-runs past the cache after learning (flake policy, waits)
    std::uint64_t verification_waits = 0;
    std::uint64_t floor_executed = 0;     ///< Alg2 rows: the suite of the true model alone, executed
    std::uint64_t floor_waits = 0;        ///< Alg2 rows: its waits
    std::size_t rounds = 0;
    double seconds = 0;       ///< wall time of learn()
    double cpu_seconds = 0;   ///< user + system time of learn()
    bool exact = false;       ///< the hypothesis has no separating word from the model
    long peak_rss_kb = 0;     ///< process high-water mark after this run
    std::string error;        ///< non-empty if the run threw
};


/// A model device that does not declare itself deterministic (as an agent over HTTP would not):
/// forwards everything else, so learning runs the flake policy's verification on it.
class MayFlake final : public typestar::Device {
public:
    explicit MayFlake(typestar::Device& inner) : inner_(inner) {}
    const typestar::Alphabet& inputs() const override { return inner_.inputs(); }
    const typestar::Alphabet& outputs() const override { return inner_.outputs(); }
    typestar::DeviceTraits traits() const override { return inner_.traits(); }
    std::string name() const override { return inner_.name(); }
    typestar::DeviceDescription describe() const override { return inner_.describe(); }
    void check_timing() override { inner_.check_timing(); }
    void reset() override { inner_.reset(); }
    typestar::Symbol step(typestar::Symbol input) override { return inner_.step(input); }
    void finish() noexcept override { inner_.finish(); }
    typestar::RunResult run(std::span<const typestar::Symbol> inputs) override { return inner_.run(inputs); }

private:
    typestar::Device& inner_;
};

/// Learns `truth` from a model device (deterministic unless `may_flake`: then behind MayFlake).
/// For Algorithm 2, `suffix_length` is L*'s initial suffix length (0: the bound B).
/// The seed of the search beyond the bound in the "default" rows (--explore-seed; 0: the default's).
std::uint64_t g_explore_seed = 0;
/// Random words per transition of that search in the "default" rows (--explore-words; 0: the default's).
std::size_t g_explore_words = 0;

Row learn_model(std::string group, std::string name, const MealyMachine& truth, Oracle kind,
                std::size_t bound, std::size_t suffix_length = 0,
                std::optional<typestar::DeviceTraits> declared = std::nullopt, bool may_flake = false) {
    Row row;
    row.group = std::move(group);
    row.model = std::move(name);
    switch (kind) {
        case Oracle::Algorithm2: row.oracle = "alg2(B=" + std::to_string(bound) + ")"; break;
        case Oracle::Perfect: row.oracle = "perfect"; break;
        case Oracle::WpStates: row.oracle = "wp(n)"; break;
        case Oracle::WStates: row.oracle = "w(n)"; break;
        case Oracle::WpRelative: row.oracle = "wp(k=" + std::to_string(bound) + ")"; break;
        case Oracle::Default: row.oracle = "default"; break;
    }
    if (declared && declared->quiet) row.oracle += "+quiet";
    row.states = truth.num_states();
    row.inputs = truth.num_inputs();
    try {
        // A simulation declares only what its spec file declares (default: the closure's traits).
        typestar::ModelDevice model(truth, "model:" + row.model, declared);
        MayFlake undeclared(model);
        typestar::Device* devices[] = {may_flake ? static_cast<typestar::Device*>(&undeclared) : &model};
        typestar::LearnOptions options;
        // Every row but "default" measures one equivalence oracle alone, as before the search
        // beyond the bound became the default (the anchors of issue 34 were measured so).
        if (kind != Oracle::Default) options.equivalence.explore_words_per_transition = 0;
        if (kind != Oracle::Default) options.equivalence.chained = false;  // the plain suite, as the anchors
        if (kind == Oracle::Default) {
            // the defaults of LearnOptions are the CLI's with no flags (the search's seed aside)
            if (g_explore_seed != 0) options.equivalence.explore_seed = g_explore_seed;
            if (g_explore_words != 0) options.equivalence.explore_words_per_transition = g_explore_words;
        } else if (kind == Oracle::Algorithm2) {
            options.equivalence.method = typestar::SuiteMethod::Algorithm2;
            options.equivalence.bound = bound;
            // lstar.hpp: E = all words up to B is the right start for Algorithm 2 at bound B.
            options.lstar.initial_suffix_length = suffix_length == 0 ? bound : suffix_length;
        } else if (kind == Oracle::Perfect) {
            options.equivalence.perfect = truth;
        } else {
            options.equivalence.method = kind == Oracle::WStates ? typestar::SuiteMethod::W : typestar::SuiteMethod::Wp;
            options.equivalence.extra_states = kind == Oracle::WpRelative ? bound : 0;
            if (kind != Oracle::WpRelative) options.equivalence.state_bound = truth.num_states();
        }
        const double cpu_start = cpu_now();
        const typestar::LearnedSpec result = typestar::learn_spec(devices, options);
        row.seconds = result.seconds;  // the experiment alone (minimising and naming are not learning)
        row.cpu_seconds = cpu_now() - cpu_start;
        // executed/symbols/waits: learning + equivalence (what the suite floor is compared with);
        // the verification phase (re-runs past the cache) is reported beside it.
        typestar::PhaseCounts total = result.stats.learning;
        total += result.stats.equivalence;
        row.verification_executed = result.stats.verification.queries_executed;
        row.verification_waits = result.stats.verification.waits_executed;
        row.asked = total.queries_asked;
        row.executed = total.queries_executed;
        row.symbols = total.symbols_executed;
        row.waits = total.waits_executed;
        row.learning_executed = result.stats.learning.queries_executed;
        row.rounds = result.rounds;
        row.exact = result.converged && !typestar::separating_word(result.machine, truth).has_value();
        if (kind == Oracle::Algorithm2 || kind == Oracle::Default) {
            // The floor: Algorithm 2's suite for the true model, run on a fresh device and cache.
            typestar::ModelDevice fresh(truth, "model:" + row.model, declared);
            typestar::Device* fresh_devices[] = {&fresh};
            typestar::CheckOptions check;
            check.bound = kind == Oracle::Default ? 2 : bound;
            const typestar::CheckReport floor = typestar::check_spec(truth, fresh_devices, check);
            if (floor.verdict != typestar::Verdict::Pass)
                throw std::runtime_error("the model fails its own Algorithm 2 suite");
            row.floor_executed = floor.stats.total().queries_executed;
            row.floor_waits = floor.stats.total().waits_executed;
        }
    } catch (const std::exception& e) {
        row.error = e.what();
    }
    row.peak_rss_kb = peak_rss_kb();
    return row;
}

// ---- Printing ------------------------------------------------------------------------------------

void print_header(const char* title) {
    std::printf("\n== %s\n", title);
    std::printf("%-48s %-10s %6s %4s %8s %8s %9s %7s %6s %6s %9s %5s\n", "model", "oracle", "states", "|I|",
                "asked", "executed", "symbols", "waits", "verify", "rounds", "seconds", "exact");
}

void print_row(const Row& r) {
    std::printf("%-48s %-10s %6zu %4zu %8llu %8llu %9llu %7llu %6llu %6zu %9.4f %5s\n", r.model.c_str(),
                r.oracle.c_str(), r.states, r.inputs, ull(r.asked),
                ull(r.executed), ull(r.symbols),
                ull(r.waits), ull(r.verification_executed), r.rounds, r.seconds,
                r.error.empty() ? (r.exact ? "yes" : "NO") : "ERROR");
    if (!r.error.empty()) std::printf("    error: %s\n", r.error.c_str());
    std::fflush(stdout);
}

struct Totals {
    std::uint64_t asked = 0, executed = 0, symbols = 0, waits = 0, learning_executed = 0;
    std::uint64_t verification_executed = 0, verification_waits = 0;
    std::uint64_t floor_executed = 0, floor_waits = 0;
    std::size_t rounds = 0, models = 0, exact = 0;
    double seconds = 0;
};

Totals totals_of(const std::vector<Row>& rows, const std::string& group, const std::string& oracle) {
    Totals t;
    for (const Row& r : rows) {
        if (r.group != group || r.oracle != oracle) continue;
        ++t.models;
        t.asked += r.asked;
        t.executed += r.executed;
        t.symbols += r.symbols;
        t.waits += r.waits;
        t.learning_executed += r.learning_executed;
        t.verification_executed += r.verification_executed;
        t.verification_waits += r.verification_waits;
        t.floor_executed += r.floor_executed;
        t.floor_waits += r.floor_waits;
        t.rounds += r.rounds;
        t.seconds += r.seconds;
        if (r.exact && r.error.empty()) ++t.exact;
    }
    return t;
}

const char* verdict(bool ok) { return ok ? "met" : "MISSED"; }

nlohmann::ordered_json row_json(const Row& r) {
    nlohmann::ordered_json j;
    j["group"] = r.group;
    j["model"] = r.model;
    j["oracle"] = r.oracle;
    j["states"] = r.states;
    j["inputs"] = r.inputs;
    j["queries_asked"] = r.asked;
    j["queries_executed"] = r.executed;
    j["learning_queries_executed"] = r.learning_executed;
    j["verification_queries_executed"] = r.verification_executed;
    j["verification_waits_executed"] = r.verification_waits;
    if (r.floor_executed > 0) {
        j["alg2_floor_queries_executed"] = r.floor_executed;
        j["alg2_floor_waits_executed"] = r.floor_waits;
    }
    j["symbols_executed"] = r.symbols;
    j["waits_executed"] = r.waits;
    j["rounds"] = r.rounds;
    j["seconds"] = r.seconds;
    j["cpu_seconds"] = r.cpu_seconds;
    j["exact"] = r.exact && r.error.empty();
    j["peak_rss_kb"] = r.peak_rss_kb;
    if (!r.error.empty()) j["error"] = r.error;
    return j;
}

nlohmann::ordered_json totals_json(const Totals& t) {
    nlohmann::ordered_json j;
    j["models"] = t.models;
    j["exact"] = t.exact;
    j["queries_asked"] = t.asked;
    j["queries_executed"] = t.executed;
    j["learning_queries_executed"] = t.learning_executed;
    j["verification_queries_executed"] = t.verification_executed;
    j["verification_waits_executed"] = t.verification_waits;
    if (t.floor_executed > 0) {
        j["alg2_floor_queries_executed"] = t.floor_executed;
        j["alg2_floor_waits_executed"] = t.floor_waits;
    }
    j["symbols_executed"] = t.symbols;
    j["waits_executed"] = t.waits;
    j["rounds"] = t.rounds;
    j["seconds"] = t.seconds;
    return j;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"typestar learning benchmark: DroidStar stand-ins, AALpy models, random machines"};
    std::string models_dir = std::string(TYPESTAR_SOURCE_DIR) + "/../shared/bench/models";
    std::string droidstar_dir = std::string(TYPESTAR_SOURCE_DIR) + "/bench/droidstar";
    std::string json_file;
    std::uint64_t seed = 20180527;
    bool skip_random = false;
    std::size_t alg2_suffix_length = 0;
    app.add_option("--models", models_dir, "directory of the Mealy benchmark models (holds aalpy/)");
    app.add_option("--droidstar", droidstar_dir, "directory of the DroidStar spec files");
    app.add_option("--json", json_file, "also write the results as JSON to this file");
    app.add_option("--seed", seed, "seed of the random machines");
    app.add_option("--alg2-suffix-length", alg2_suffix_length,
                   "initial suffix length of L* in the Algorithm 2 runs (default: B)");
    app.add_option("--explore-seed", g_explore_seed,
                   "seed of the search beyond the bound in the rows of the defaults (default: LearnOptions' own)");
    app.add_option("--explore-words", g_explore_words,
                   "random words per transition of that search in the rows of the defaults (default: LearnOptions' own)");
    app.add_flag("--skip-random", skip_random, "leave out the random 1,000- and 10,000-state machines");
    std::vector<std::string> groups;
    app.add_option("--groups", groups,
                   "run only these row groups (comma-separated: droidstar, droidstar_declared, droidstar_may_flake, droidstar_default, "
                   "aalpy, aalpy_wp_n, aalpy_w_n, aalpy_wp_k2, aalpy_default, aalpy_alg2, random; default: all)")
        ->delimiter(',');
    CLI11_PARSE(app, argc, argv);

    const auto wanted = [&](const std::string& group) {
        return groups.empty() || std::find(groups.begin(), groups.end(), group) != groups.end();
    };
    print_title("learning benchmark", TYPESTAR_BUILD_TYPE);
    std::vector<Row> rows;
    bool all_exact = true;
    auto record = [&](Row row) {
        print_row(row);
        // aalpy_alg2 shows where the defaults before the search learned wrong machines: expected.
        if (row.group != "aalpy_alg2") all_exact = all_exact && row.error.empty() && row.exact;
        rows.push_back(std::move(row));
    };

    // DroidStar stand-ins: Algorithm 2 at B = 2, then the perfect oracle.
    std::vector<std::pair<std::string, MealyMachine>> droidstar;
    std::vector<typestar::DeviceTraits> declared;  // what each stand-in's spec file declares
    try {
        for (const fs::path& file : files_with_extension(droidstar_dir, ".yaml", false)) {
            const typestar::spec::Spec s = typestar::spec::load_spec(file);
            droidstar.emplace_back(s.typestate.name, typestar::synchronous_closure(s.typestate));
            declared.push_back(typestar::spec::declared_traits(s));
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cannot load the DroidStar models from %s: %s\n", droidstar_dir.c_str(), e.what());
        return 2;
    }
    print_header("DroidStar stand-ins (bench/droidstar), DroidStar Algorithm 2 with B = 2, no assumption beyond err");
    for (const auto& [name, machine] : droidstar)
        if (wanted("droidstar")) record(learn_model("droidstar", name, machine, Oracle::Algorithm2, 2, alg2_suffix_length));
    print_header("DroidStar stand-ins, Algorithm 2 with B = 2, quiet waits stable where the spec declares it");
    for (std::size_t i = 0; i < droidstar.size() && wanted("droidstar_declared"); ++i)
        record(learn_model("droidstar_declared", droidstar[i].first, droidstar[i].second, Oracle::Algorithm2, 2,
                           alg2_suffix_length, declared[i]));
    print_header("DroidStar stand-ins, Algorithm 2 with B = 2, as devices that may flake (determinism not declared)");
    for (const auto& [name, machine] : droidstar)
        if (wanted("droidstar_may_flake")) record(learn_model("droidstar_may_flake", name, machine, Oracle::Algorithm2, 2, alg2_suffix_length, std::nullopt,
                           true));
    print_header("DroidStar stand-ins, the defaults (no flags: Algorithm 2 at B = 2 and the search beyond the bound)");
    for (const auto& [name, machine] : droidstar)
        if (wanted("droidstar_default")) record(learn_model("droidstar_default", name, machine, Oracle::Default, 2));
    print_header("DroidStar stand-ins, perfect equivalence oracle (learning alone)");
    for (const auto& [name, machine] : droidstar)
        if (wanted("droidstar")) record(learn_model("droidstar", name, machine, Oracle::Perfect, 0));

    // AALpy models, perfect oracle.
    const fs::path models(models_dir);
    const bool have_models = fs::is_directory(models / "aalpy");
    if (have_models) {
        print_header("AALpy models (perfect equivalence oracle)");
        for (const fs::path& file : files_with_extension(models / "aalpy", ".dot", true)) {
            if (!wanted("aalpy")) break;
            const std::string rel = fs::relative(file, models).generic_string();
            try {
                record(learn_model("aalpy", rel, typestar::spec::load_mealy_dot(file), Oracle::Perfect, 0));
            } catch (const std::exception& e) {
                Row row;
                row.group = "aalpy";
                row.model = rel;
                row.oracle = "perfect";
                row.error = e.what();
                record(std::move(row));
            }
        }
        // One group of rows: every AALpy model learned with `kind` (a model that cannot be loaded or
        // learned is a row with its error).
        const auto aalpy_group = [&](const std::string& group, Oracle kind, const char* title) {
            if (!wanted(group)) return;
            print_header(title);
            for (const fs::path& file : files_with_extension(models / "aalpy", ".dot", true)) {
                const std::string rel = fs::relative(file, models).generic_string();
                try {
                    record(learn_model(group, rel, typestar::spec::load_mealy_dot(file), kind, 2));
                } catch (const std::exception& e) {
                    Row row;
                    row.group = group;
                    row.model = rel;
                    row.error = e.what();
                    record(std::move(row));
                }
            }
        };
        // W and Wp as equivalence oracles: with the true number of states (AALpy's m = n), and
        // Wp with 2 extra states relative to each hypothesis.
        aalpy_group("aalpy_wp_n", Oracle::WpStates,
                    "AALpy models, L# + Wp with --states n (learning + equivalence; verification apart)");
        aalpy_group("aalpy_w_n", Oracle::WStates, "AALpy models, L# + W with --states n");
        aalpy_group("aalpy_wp_k2", Oracle::WpRelative, "AALpy models, L# + Wp with 2 extra states relative to each hypothesis");
        aalpy_group("aalpy_default", Oracle::Default,
                    "AALpy models through a model device with no flags (the defaults; no perfect oracle, no --states)");
        aalpy_group("aalpy_alg2", Oracle::Algorithm2,
                    "AALpy models through a model device, Algorithm 2 at B = 2 alone (the defaults before the search)");
    } else {
        std::printf("\n== AALpy models: skipped, no directory %s/aalpy (use --models DIR)\n", models_dir.c_str());
    }

    // Random machines, perfect oracle.
    if (!skip_random && wanted("random")) {
        const std::string title = "Random machines (5 inputs, 5 outputs, seed " + std::to_string(seed) +
                                  ", perfect equivalence oracle)";
        print_header(title.c_str());
        for (std::size_t n : {std::size_t{1000}, std::size_t{10000}}) {
            const MealyMachine machine = typestar::testing_support::random_mealy(n, 5, 5, seed);
            record(learn_model("random", "random_" + std::to_string(n), machine, Oracle::Perfect, 0));
        }
    }

    // Summary next to the targets.
    std::printf("\n== Summary (targets are the issue's, set for the graders' DroidStar models; these are stand-ins)\n");
    const Totals alg2 = totals_of(rows, "droidstar", "alg2(B=2)");
    const Totals perfect = totals_of(rows, "droidstar", "perfect");
    std::printf("DroidStar, Alg2 B=2 (learning + conformance), %zu models, %zu exact:\n", alg2.models, alg2.exact);
    std::printf("  executed queries %6llu   target <= %llu (%s); DroidStar replay %llu, Alg2 suite floor %llu\n",
                ull(alg2.executed), ull(kTargetQueries),
                verdict(alg2.executed <= kTargetQueries), ull(kDroidStarReplayQueries),
                ull(kAlg2FloorQueries));
    std::printf("  waits            %6llu   target <= %llu (%s); DroidStar replay %llu, Alg2 suite floor %llu\n",
                ull(alg2.waits), ull(kTargetWaits),
                verdict(alg2.waits <= kTargetWaits), ull(kDroidStarReplayWaits),
                ull(kAlg2FloorWaits));
    std::printf("  (of which learning phase: %llu executed queries; asked %llu)\n",
                ull(alg2.learning_executed), ull(alg2.asked));
    std::printf("  Alg2 suite floor on these stand-ins (suite of the true model alone): %llu queries / %llu waits\n",
                ull(alg2.floor_executed), ull(alg2.floor_waits));
    std::printf("  learning + equivalence vs the floor: %.3f x queries, %.3f x waits (target <= 1.01)\n",
                static_cast<double>(alg2.executed) / static_cast<double>(alg2.floor_executed),
                static_cast<double>(alg2.waits) / static_cast<double>(alg2.floor_waits));
    std::printf("  verification phase (model devices declare themselves deterministic: no flake policy, no wait"
                " re-checks): %llu queries, %llu waits = %.3f x the floor's queries\n",
                ull(alg2.verification_executed), ull(alg2.verification_waits),
                static_cast<double>(alg2.verification_executed) / static_cast<double>(alg2.floor_executed));
    const Totals may_flake = totals_of(rows, "droidstar_may_flake", "alg2(B=2)");
    std::printf("DroidStar, Alg2 B=2, as devices that may flake (%zu models, %zu exact): learning + equivalence %llu"
                " queries (%.3f x the floor);\n  verification phase (flake policy: the Algorithm 2 suite's decisive"
                " words once more past the cache; wait re-checks): %llu queries, %llu waits = %.3f x the floor's"
                " queries, %.3f x its waits\n",
                may_flake.models, may_flake.exact, ull(may_flake.executed),
                static_cast<double>(may_flake.executed) / static_cast<double>(may_flake.floor_executed),
                ull(may_flake.verification_executed), ull(may_flake.verification_waits),
                static_cast<double>(may_flake.verification_executed) / static_cast<double>(may_flake.floor_executed),
                static_cast<double>(may_flake.verification_waits) / static_cast<double>(may_flake.floor_waits));
    {
        Totals declared_totals;
        for (const Row& r : rows) {
            if (r.group != "droidstar_declared") continue;
            ++declared_totals.models;
            declared_totals.exact += r.exact ? 1 : 0;
            declared_totals.executed += r.executed;
            declared_totals.waits += r.waits;
            declared_totals.floor_executed += r.floor_executed;
            declared_totals.floor_waits += r.floor_waits;
        }
        std::printf("DroidStar, Alg2 B=2 with the quiet assumption where declared (%zu models, %zu exact):\n",
                    declared_totals.models, declared_totals.exact);
        std::printf("  executed queries %6llu (floor %llu, %.1f%% above); waits %llu (floor %llu, %.1f%% above)\n",
                    ull(declared_totals.executed),
                    ull(declared_totals.floor_executed),
                    100.0 * (static_cast<double>(declared_totals.executed) / static_cast<double>(declared_totals.floor_executed) - 1),
                    ull(declared_totals.waits),
                    ull(declared_totals.floor_waits),
                    100.0 * (static_cast<double>(declared_totals.waits) / static_cast<double>(declared_totals.floor_waits) - 1));
        std::printf("  no undeclared assumption: executed %llu (floor %llu, %.1f%% above); waits %llu (floor %llu, %.1f%% above)\n",
                    ull(alg2.executed), ull(alg2.floor_executed),
                    100.0 * (static_cast<double>(alg2.executed) / static_cast<double>(alg2.floor_executed) - 1),
                    ull(alg2.waits), ull(alg2.floor_waits),
                    100.0 * (static_cast<double>(alg2.waits) / static_cast<double>(alg2.floor_waits) - 1));
    }
    {
        // Issue 34's targets for the defaults: the stand-ins at <= 1.2 x the cost of the defaults
        // before the search (Algorithm 2 at B = 2 alone, the alg2 rows of this run; 6,635 when the
        // issue was filed), every model exact.
        // Learning + equivalence on both sides (the verification phase is reported apart, as the
        // 6,635 of the issue was measured).
        const Totals d = totals_of(rows, "droidstar_default", "default");
        std::printf("DroidStar, the defaults (Alg2 B=2 + the search beyond the bound), %zu models, %zu exact:\n",
                    d.models, d.exact);
        std::printf("  executed queries %6llu (learning + equivalence; verification %llu apart); before the search "
                    "%llu (this run's alg2 rows; %llu when issue 34 was filed): %.3f x, target <= 1.2 x (%s)\n",
                    ull(d.executed), ull(d.verification_executed), ull(alg2.executed), ull(kDefaultsBefore34),
                    static_cast<double>(d.executed) / static_cast<double>(alg2.executed),
                    verdict(d.exact == d.models && static_cast<double>(d.executed) <= 1.2 * static_cast<double>(alg2.executed)));
    }
    std::printf("DroidStar, perfect oracle (learning alone), %zu models, %zu exact:\n", perfect.models, perfect.exact);
    std::printf("  executed queries %6llu   target <= %llu (%s); waits %llu\n",
                ull(perfect.executed), ull(kTargetPerfectQueries),
                verdict(perfect.executed <= kTargetPerfectQueries), ull(perfect.waits));

    nlohmann::ordered_json aalpy_json = nlohmann::ordered_json::array();
    if (have_models) {
        std::printf("AALpy, perfect oracle: executed queries (= resets) vs AALpy 1.6.1 L* and L#:\n");
        std::printf("  %-48s %5s %8s %8s %8s %s\n", "model", "n", "typestar", "L*", "L#", "vs L*");
        std::uint64_t ours = 0, lstar = 0, lsharp = 0;
        std::size_t at_most_lstar = 0, compared = 0;
        for (const Row& r : rows) {
            if (r.group != "aalpy") continue;
            const AalpyAnchor* anchor = find_anchor(r.model);
            nlohmann::ordered_json j;
            j["model"] = r.model;
            j["typestar_resets"] = r.executed;
            if (anchor == nullptr || !r.error.empty()) {
                std::printf("  %-48s %5zu %8llu %8s %8s %s\n", r.model.c_str(), r.states,
                            ull(r.executed), "-", "-",
                            r.error.empty() ? "no anchor" : "error");
                aalpy_json.push_back(j);
                continue;
            }
            ++compared;
            ours += r.executed;
            lstar += anchor->lstar_resets;
            lsharp += anchor->lsharp_resets;
            const bool ok = r.executed <= anchor->lstar_resets;
            if (ok) ++at_most_lstar;
            std::printf("  %-48s %5zu %8llu %8llu %8llu %s\n", r.model.c_str(), anchor->states,
                        ull(r.executed),
                        ull(anchor->lstar_resets),
                        ull(anchor->lsharp_resets), ok ? "<=" : "MORE");
            j["aalpy_lstar_resets"] = anchor->lstar_resets;
            j["aalpy_lstar_symbols"] = anchor->lstar_symbols;
            j["aalpy_lstar_rounds"] = anchor->lstar_rounds;
            j["aalpy_lsharp_resets"] = anchor->lsharp_resets;
            aalpy_json.push_back(j);
        }
        std::printf("  %-48s %5s %8llu %8llu %8llu %zu of %zu models at most L*\n", "total", "",
                    ull(ours), ull(lstar),
                    ull(lsharp), at_most_lstar, compared);
    }
    for (const Row& r : rows) {
        if (r.group != "random") continue;
        const double target = r.states >= 10000 ? kTarget10000Seconds : kTarget1000Seconds;
        std::printf("%s: %.4f s wall, %.4f s CPU, target < %g s (%s)\n", r.model.c_str(), r.seconds, r.cpu_seconds,
                    target, verdict(r.error.empty() && r.cpu_seconds < target));
    }
    const long peak = peak_rss_kb();
    if (have_models) {
        std::printf("AALpy models, W and Wp as equivalence oracles (executed = learning + equivalence):\n");
        for (const char* group : {"aalpy_wp_n", "aalpy_w_n", "aalpy_wp_k2"}) {
            Totals t;
            std::string oracle;
            for (const Row& r : rows)
                if (r.group == group) {
                    ++t.models;
                    t.exact += r.exact && r.error.empty() ? 1 : 0;
                    t.executed += r.executed;
                    t.symbols += r.symbols;
                    t.verification_executed += r.verification_executed;
                    t.seconds += r.seconds;
                    oracle = r.oracle;
                }
            std::printf("  %-8s %2zu models, %2zu exact: %8llu queries, %9llu symbols, %.2f s; verification %llu\n",
                        oracle.c_str(), t.models, t.exact, ull(t.executed), ull(t.symbols), t.seconds,
                        ull(t.verification_executed));
        }
        for (const auto& anchor : kAalpyWp)
            for (const Row& r : rows)
                if (r.group == "aalpy_wp_n" && r.model == anchor.file)
                    std::printf("  %-48s wp(n) %6llu queries, %.2f s, exact %s; AALpy Wp m=n %6llu (%s)\n",
                                r.model.c_str(), ull(r.executed), r.seconds, r.exact ? "yes" : "NO",
                                ull(anchor.queries), verdict(r.exact && r.executed <= anchor.queries));
    }
    if (have_models) {
        // Issue 34: every AALpy model learned through a device with no flags is exact, at <= 0.25 x
        // what L# + Wp with 2 extra states needs (this run's wp(k=2) rows; 1,336,311 when filed).
        const Totals d = totals_of(rows, "aalpy_default", "default");
        const Totals a2 = totals_of(rows, "aalpy_alg2", "alg2(B=2)");
        const Totals wp2 = totals_of(rows, "aalpy_wp_k2", "wp(k=2)");
        const std::uint64_t now = d.executed + d.verification_executed;
        const std::uint64_t wp = wp2.executed + wp2.verification_executed;
        std::printf("AALpy models through a device with no flags (issue 34):\n");
        std::printf("  defaults now:          %2zu of %2zu exact, %8llu queries executed (verification %llu included)\n",
                    d.exact, d.models, ull(now), ull(d.verification_executed));
        std::printf("  before (alg2 B=2):     %2zu of %2zu exact, %8llu queries executed (verification included; "
                    "when filed: 17 of 26, 264,883)\n",
                    a2.exact, a2.models, ull(a2.executed + a2.verification_executed));
        std::printf("  L# + Wp k=2:           %2zu of %2zu exact, %8llu queries executed (when filed: 1,336,311)\n",
                    wp2.exact, wp2.models, ull(wp));
        std::printf("  target: all exact and <= 0.25 x L# + Wp k=2 = %llu: %s (%.3f x)\n",
                    ull(wp / 4), verdict(d.exact == d.models && d.models > 0 && now * 4 <= wp),
                    wp == 0 ? 0.0 : static_cast<double>(now) / static_cast<double>(wp));
        // The plain Algorithm 2 suite (B = 2) of the true models: the floor of the defaults before the
        // chained words (docs/conformance-chained.md), which make the same checks in fewer words.
        std::printf("  the plain Algorithm 2 suite at B = 2 alone on the true models (the floor before chained words): "
                    "%llu queries = %.3f x L# + Wp k=2\n",
                    ull(d.floor_executed), wp == 0 ? 0.0 : static_cast<double>(d.floor_executed) / static_cast<double>(wp));
        for (const Row& r : rows)
            if (r.group == "aalpy_default" && r.model.find("mosquitto") != std::string::npos)
                std::printf("  the published mosquitto model as a model device, no flags: %zu states, exact %s, %llu queries\n",
                            r.states, r.exact && r.error.empty() ? "yes" : "NO", ull(r.executed + r.verification_executed));
    }
    std::printf("peak memory (getrusage ru_maxrss, whole process): %ld KiB\n", peak);
    if (!all_exact) std::printf("SOME MODELS WERE NOT LEARNED EXACTLY (see rows marked NO / ERROR)\n");

    if (!json_file.empty()) {
        nlohmann::ordered_json out;
        out["build_type"] = TYPESTAR_BUILD_TYPE;
        out["seed"] = seed;
        out["alg2_initial_suffix_length"] = alg2_suffix_length == 0 ? std::size_t{2} : alg2_suffix_length;
        out["targets"] = {{"droidstar_alg2_queries_executed", kTargetQueries},
                          {"droidstar_alg2_waits_executed", kTargetWaits},
                          {"droidstar_perfect_queries_executed", kTargetPerfectQueries},
                          {"droidstar_replay_queries_executed", kDroidStarReplayQueries},
                          {"droidstar_replay_waits_executed", kDroidStarReplayWaits},
                          {"alg2_floor_queries", kAlg2FloorQueries},
                          {"alg2_floor_waits", kAlg2FloorWaits},
                          {"random_1000_seconds", kTarget1000Seconds},
                          {"random_10000_seconds", kTarget10000Seconds}};
        out["totals"] = {{"droidstar_alg2", totals_json(alg2)},
                         {"droidstar_alg2_may_flake", totals_json(may_flake)},
                         {"droidstar_perfect", totals_json(perfect)},
                         {"aalpy_perfect", totals_json(totals_of(rows, "aalpy", "perfect"))}};
        out["aalpy_vs_anchor"] = aalpy_json;
        nlohmann::ordered_json all = nlohmann::ordered_json::array();
        for (const Row& r : rows) all.push_back(row_json(r));
        out["rows"] = all;
        out["peak_rss_kb"] = peak;
        if (!write_json_file(json_file, out)) return 2;
    }
    return all_exact ? 0 : 1;
}
