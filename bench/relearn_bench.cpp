// Re-learning benchmark (the soundness issue's second measurement): after a one-transition change of
// a class, what does the proposal cost next to learning the changed class from scratch?
//   typestar_relearn_bench [--droidstar DIR] [--specs DIR] [--models DIR] [--groups mutants,upgrades] [--json FILE]
// Group "upgrades" (what a proposal costs when a dependency upgrade changes one transition): the 19 one-transition upgrades of the AALpy models in
// ../shared/bench/models/upgrades, re-learned seeded with the original (what `typestar learn --from`
// does) with a perfect oracle and with the defaults (Algorithm 2 and the search beyond the bound,
// through a model device), beside learning each from scratch and AALpy 1.6.1's figures of its README,
// and beside --from's floor: each upgrade re-learned seeded with itself (nothing changed), which runs
// only the certification that every run ending in the upgrade repeats.
// For every one-transition mutant (one transition of the Mealy machine retargeted, err still
// absorbing, behaviour changed) of the 16 DroidStar stand-ins and the bundled specs: run the stored
// spec's conformance suite against the mutant as CI does (every transition's words, Algorithm 2,
// B = 2), then propose() through that run's oracle stack, seeded with the stored spec and driven by
// the first failing word; count the executed queries of the proposal — everything after the
// conformance run failed — against learn_spec on the mutant from scratch.
// Model devices declare only what their spec file declares. Not a test: it fails only on a wrong
// proposal (one that is not the mutant) or a crash.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "report.hpp"
#include "support/first_mutant.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/traits.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace {

namespace fs = std::filesystem;
using namespace typestar;
using typestar::bench::ull;

struct ModelTotals {
    std::string name;
    std::size_t mutants = 0;        ///< behaviour-changing one-transition mutants
    std::size_t undetected = 0;     ///< mutants the B=2 suite of the stored spec passes (bounded evidence)
    std::size_t exact = 0;          ///< proposals equal to the mutant
    std::uint64_t after_failure = 0;  ///< executed queries of propose() after the failing run
    std::uint64_t check = 0;          ///< executed queries of the failing conformance runs
    std::uint64_t scratch = 0;        ///< executed queries of learn_spec on the mutant from scratch
};

/// Every behaviour-changing one-transition mutant that keeps `m`'s absorbing output.
std::vector<MealyMachine> mutants_of(const MealyMachine& m) {
    std::vector<MealyMachine> out;
    const DeviceTraits base = infer_traits(m);
    testing_support::for_each_mutant(
        m, [&](const DeviceTraits& traits) { return traits.absorbing == base.absorbing; },
        [&](MealyMachine mutant) {
            out.push_back(std::move(mutant));
            return true;
        });
    return out;
}

ModelTotals measure(const spec::Spec& stored) {
    ModelTotals t;
    t.name = stored.typestate.name;
    const MealyMachine truth = synchronous_closure(stored.typestate);
    const DeviceTraits declared = spec::declared_traits(stored);
    for (const MealyMachine& mutant : mutants_of(truth)) {
        ++t.mutants;
        ModelDevice device(mutant, "model:mutant", declared);
        // The conformance run as CI runs it: every transition's words (the gtest plugin runs one
        // test per transition, each to its end), through one oracle stack; the first failing word
        // drives the proposal.
        Conformance conformance(truth, {&device});
        CheckOptions check;
        const TestSuite suite = conformance.suite(check);
        std::optional<CheckReport> failed;
        std::uint64_t checked = 0;
        for (const TestCase& c : suite.cases) {
            TestSuite one = suite;
            one.cases = {c};
            CheckReport report = conformance.run(one);
            checked += report.stats.total().queries_executed;
            if (report.verdict == Verdict::Fail && !failed) failed = std::move(report);
        }
        if (!failed) {
            ++t.undetected;
            continue;
        }
        const CheckReport& report = *failed;
        t.check += checked;
        LearnOptions options;
        options.wait_rechecks = 0;  // a simulation cannot be flaky; the comparison is of learning alone
        const LearnedSpec proposal = propose(&stored, conformance, &*report.counterexample, options);
        t.after_failure += proposal.stats.total().queries_executed;
        if (!separating_word(proposal.machine, mutant)) ++t.exact;
        ModelDevice fresh(mutant, "model:mutant", declared);
        Device* fresh_devices[] = {&fresh};
        const LearnedSpec scratch = learn_spec(fresh_devices, options);
        t.scratch += scratch.stats.total().queries_executed;
    }
    return t;
}

// ---- the 19 one-transition upgrades of the AALpy models -----------------------------------------------

/// ../shared/bench/models/upgrades/README.md: AALpy 1.6.1's L# (perfect oracle, resets below its
/// cache) learning each upgrade from scratch and adaptively (the original as reference).
struct UpgradeAnchor {
    const char* file;      ///< in upgrades/
    const char* original;  ///< relative to the models directory
    std::uint64_t scratch_resets;
    std::size_t scratch_rounds;
    std::uint64_t adaptive_resets;
    std::size_t adaptive_rounds;
};

constexpr UpgradeAnchor kUpgrades[] = {
    {"Angluin_Mealy.upgrade.dot", "aalpy/Angluin_Mealy.dot", 17, 4, 12, 1},
    {"CC2640R2-no-feature-req.upgrade.dot", "aalpy/Bluetooth/CC2640R2-no-feature-req.dot", 200, 6, 200, 1},
    {"CC2640R2-no-pairing-req.upgrade.dot", "aalpy/Bluetooth/CC2640R2-no-pairing-req.dot", 98, 4, 89, 1},
    {"CC2650.upgrade.dot", "aalpy/Bluetooth/CC2650.dot", 103, 5, 76, 1},
    {"CYW43455.upgrade.dot", "aalpy/Bluetooth/CYW43455.dot", 302, 12, 284, 1},
    {"cc2652r1.upgrade.dot", "aalpy/Bluetooth/cc2652r1.dot", 61, 4, 53, 1},
    {"nRF52832.upgrade.dot", "aalpy/Bluetooth/nRF52832.dot", 96, 5, 72, 1},
    {"ActiveMQ__two_client_will_retain.upgrade.dot", "aalpy/MQTT/ActiveMQ__two_client_will_retain.dot", 397, 14, 398, 1},
    {"VerneMQ__two_client_will_retain.upgrade.dot", "aalpy/MQTT/VerneMQ__two_client_will_retain.dot", 385, 13, 388, 3},
    {"emqtt__two_client_will_retain.upgrade.dot", "aalpy/MQTT/emqtt__two_client_will_retain.dot", 396, 13, 412, 1},
    {"hbmqtt__two_client_will_retain.upgrade.dot", "aalpy/MQTT/hbmqtt__two_client_will_retain.dot", 410, 13, 386, 1},
    {"mosquitto__two_client_will_retain.upgrade.dot", "aalpy/MQTT/mosquitto__two_client_will_retain.dot", 400, 14, 405, 1},
    {"TCP_Linux_Client.upgrade.dot", "aalpy/TCP/TCP_Linux_Client.dot", 339, 11, 323, 1},
    {"tcp_server_windows_trans.upgrade.dot", "aalpy/TCP/tcp_server_windows_trans.dot", 1811, 28, 1749, 1},
    {"JSSE_1.8.0_25_server_regular.upgrade.dot", "aalpy/TLS/JSSE_1.8.0_25_server_regular.dot", 41, 3, 33, 2},
    {"NSS_3.17.4_server_regular.upgrade.dot", "aalpy/TLS/NSS_3.17.4_server_regular.dot", 80, 5, 80, 1},
    {"OpenSSL_1.0.2_server_regular.upgrade.dot", "aalpy/TLS/OpenSSL_1.0.2_server_regular.dot", 62, 4, 61, 1},
    {"RSA_BSAFE_C_4.0.4_server_regular.upgrade.dot", "aalpy/TLS/RSA_BSAFE_C_4.0.4_server_regular.dot", 100, 5, 96, 1},
    {"miTLS_0.1.3_server_regular.upgrade.dot", "aalpy/TLS/miTLS_0.1.3_server_regular.dot", 111, 4, 92, 1},
};

/// One learning run of an upgrade: its rounds, executed queries by phase, and whether it is exact.
struct UpgradeRun {
    std::size_t rounds = 0;
    std::uint64_t learning = 0, equivalence = 0, total = 0;
    std::uint64_t check = 0;  ///< proposals: the failing conformance run's executed queries (before)
    bool exact = false;
    bool detected = true;     ///< proposals: the stored spec's suite failed on the upgrade
};

UpgradeRun run_of(const LearnedSpec& learned, const MealyMachine& device_model) {
    UpgradeRun r;
    r.rounds = learned.rounds;
    r.learning = learned.stats.learning.queries_executed;
    r.equivalence = learned.stats.equivalence.queries_executed;
    r.total = learned.stats.total().queries_executed;
    r.exact = learned.converged && !separating_word(learned.machine, device_model);
    return r;
}

/// Learns `device_model` through a model device: seeded with `seed` (learn --from) or from scratch;
/// with a perfect oracle or with the defaults (LearnOptions{}: Algorithm 2 at B = 2 and the search
/// beyond the bound).
UpgradeRun learn_upgrade(const MealyMachine& device_model, const std::optional<MealyMachine>& seed, bool perfect) {
    ModelDevice device(device_model, "model:upgrade");
    Device* devices[] = {&device};
    LearnOptions options;
    if (perfect) options.equivalence.perfect = device_model;
    options.seed = seed;
    return run_of(learn_spec(devices, options), device_model);
}

/// The proposal path as CI runs it: the original's conformance suite (defaults, B = 2) against the
/// upgrade, every transition's words to their end, then propose() through that run's oracle stack,
/// seeded with the original and driven by the first failing word; counts what ran after the failure.
UpgradeRun propose_upgrade(const MealyMachine& device_model, const MealyMachine& original) {
    ModelDevice device(device_model, "model:upgrade");
    Conformance conformance(original, {&device});
    const TestSuite suite = conformance.suite(CheckOptions{});
    std::optional<CheckReport> failed;
    std::uint64_t checked = 0;
    TestSuite one{suite.inputs, suite.outputs, suite.method, suite.bound, {}};  // the cases one at a time
    for (const TestCase& c : suite.cases) {
        one.cases = {c};
        CheckReport report = conformance.run(one);
        checked += report.stats.total().queries_executed;
        if (report.verdict == Verdict::Fail && !failed) failed = std::move(report);
    }
    UpgradeRun r;
    r.check = checked;
    if (!failed) {
        r.detected = false;
        return r;
    }
    LearnOptions options;
    options.seed = original;
    r = run_of(propose(nullptr, conformance, &*failed->counterexample, options), device_model);
    r.check = checked;
    return r;
}

nlohmann::ordered_json run_json(const UpgradeRun& r) {
    return {{"rounds", r.rounds}, {"learning_queries_executed", r.learning},
            {"equivalence_queries_executed", r.equivalence}, {"queries_executed", r.total}, {"exact", r.exact}};
}

/// The upgrades table; false if a learned machine is not the upgrade (or a file is missing).
bool upgrades_table(const fs::path& models, const std::string& only, nlohmann::ordered_json& json) {
    std::printf("\n== the 19 one-transition upgrades (%s/upgrades): re-learned seeded with the original\n",
                models.string().c_str());
    std::printf("   perfect: learn --from ORIGINAL with a perfect oracle; AALpy: L# 1.6.1, perfect oracle, resets / rounds "
                "(README)\n   defaults (Algorithm 2 at B = 2 + the search beyond the bound, model device): --from = learn "
                "--from ORIGINAL, all its queries;\n   proposal = after the original's suite failed on the upgrade (CI), "
                "propose() through that run's stack; scratch = learn with no seed\n");
    std::printf("%-34s | %-22s | %-21s | %-53s\n", "", "perfect oracle, seeded", "AALpy L# (perfect)",
                "defaults: queries executed (rounds)");
    std::printf("%-34s | %6s %7s %3s %3s | %10s %10s | %12s %12s %12s %5s %3s\n", "upgrade", "rounds", "learn", "eq",
                "ok", "adaptive", "scratch", "--from", "proposal", "scratch", "ratio", "ok");
    UpgradeRun perfect_all, seeded_all, proposal_all, scratch_all, unchanged_all;
    std::uint64_t aalpy_adaptive = 0, aalpy_scratch = 0;
    std::size_t aalpy_adaptive_rounds = 0, aalpy_scratch_rounds = 0, exact = 0, runs = 0, measured = 0;
    bool ok = true;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    const auto add = [](UpgradeRun& all, const UpgradeRun& r) {
        all.rounds += r.rounds;
        all.learning += r.learning;
        all.equivalence += r.equivalence;
        all.total += r.total;
        all.check += r.check;
    };
    const auto cell = [](const UpgradeRun& r) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%llu (%zu)", ull(r.total), r.rounds);
        return std::string(buffer);
    };
    for (const UpgradeAnchor& a : kUpgrades) {
        if (!only.empty() && std::string(a.file).find(only) == std::string::npos) continue;
        ++measured;
        const MealyMachine original = spec::load_mealy_dot(models / a.original);
        const MealyMachine upgrade = spec::load_mealy_dot(models / "upgrades" / a.file);
        const UpgradeRun perfect = learn_upgrade(upgrade, original, true);
        const UpgradeRun seeded = learn_upgrade(upgrade, original, false);
        const UpgradeRun proposal = propose_upgrade(upgrade, original);
        const UpgradeRun scratch = learn_upgrade(upgrade, std::nullopt, false);
        // The floor of every learn --from with the defaults: seeded with the upgrade itself (a stored
        // spec that is still right), it runs only the certification — the final suite, the search
        // beyond the bound and the seed's states — which any run that ends in this machine repeats.
        const UpgradeRun unchanged = learn_upgrade(upgrade, upgrade, false);
        for (const UpgradeRun* r : {&perfect, &seeded, &proposal, &scratch, &unchanged}) {
            if (!r->detected) continue;
            ++runs;
            exact += r->exact ? 1 : 0;
        }
        // Exact with the perfect oracle always; with Algorithm 2 at B = 2 a state beyond the bound
        // may be missed (then scratch misses it too): the table says so, the run does not fail.
        ok = ok && perfect.exact;
        add(perfect_all, perfect);
        add(seeded_all, seeded);
        add(proposal_all, proposal);
        add(scratch_all, scratch);
        add(unchanged_all, unchanged);
        aalpy_adaptive += a.adaptive_resets;
        aalpy_adaptive_rounds += a.adaptive_rounds;
        aalpy_scratch += a.scratch_resets;
        aalpy_scratch_rounds += a.scratch_rounds;
        std::string name = a.file;
        name.resize(name.size() - std::string(".upgrade.dot").size());
        if (name.size() > 34) name.resize(34);
        const double ratio = scratch.total ? static_cast<double>(proposal.total) / static_cast<double>(scratch.total) : 0;
        std::string exact_cell = std::string(seeded.exact ? "y" : "N") + (proposal.detected ? (proposal.exact ? "y" : "N") : "-") +
                                 (scratch.exact ? "y" : "N");
        std::printf("%-34s | %6zu %7llu %3llu %3s | %4llu / %-3zu %4llu / %-3zu | %12s %12s %12s %5.2f %3s\n",
                    name.c_str(), perfect.rounds, ull(perfect.learning), ull(perfect.equivalence),
                    perfect.exact ? "yes" : "NO", ull(a.adaptive_resets), a.adaptive_rounds, ull(a.scratch_resets),
                    a.scratch_rounds, cell(seeded).c_str(), proposal.detected ? cell(proposal).c_str() : "undetected",
                    cell(scratch).c_str(), ratio, exact_cell.c_str());
        std::fflush(stdout);
        rows.push_back({{"upgrade", a.file},
                        {"original", a.original},
                        {"perfect_seeded", run_json(perfect)},
                        {"default_seeded", run_json(seeded)},
                        {"default_proposal", run_json(proposal)},
                        {"default_proposal_check_executed", proposal.check},
                        {"default_scratch", run_json(scratch)},
                        {"default_unchanged", run_json(unchanged)},
                        {"aalpy_adaptive", {{"resets", a.adaptive_resets}, {"rounds", a.adaptive_rounds}}},
                        {"aalpy_scratch", {{"resets", a.scratch_resets}, {"rounds", a.scratch_rounds}}}});
    }
    const double ratio = static_cast<double>(proposal_all.total) / static_cast<double>(scratch_all.total);
    const double from_ratio = static_cast<double>(seeded_all.total) / static_cast<double>(scratch_all.total);
    std::printf("%-34s | %6zu %7llu %3llu %3s | %4llu / %-3zu %4llu / %-3zu | %12s %12s %12s %5.2f %3s\n",
                ("total (" + std::to_string(measured) + ")").c_str(), perfect_all.rounds, ull(perfect_all.learning),
                ull(perfect_all.equivalence), "", ull(aalpy_adaptive),
                aalpy_adaptive_rounds, ull(aalpy_scratch), aalpy_scratch_rounds, cell(seeded_all).c_str(),
                cell(proposal_all).c_str(), cell(scratch_all).c_str(), ratio, "");
    std::printf("targets (perfect oracle): rounds <= 22 (AALpy adaptive L#): %zu, %s; learning queries <= 2,257 (before the "
                "seed rebuild): %llu, %s\n",
                perfect_all.rounds, perfect_all.rounds <= 22 ? "met" : "MISSED", ull(perfect_all.learning),
                perfect_all.learning <= 2257 ? "met" : "MISSED");
    std::printf("targets (defaults): rounds <= 22: --from %zu, %s; proposal %zu, %s; queries <= 0.5 x scratch: proposal "
                "%.3f, %s; --from %.3f, %s (the failing conformance run before the proposal executed %llu)\n",
                seeded_all.rounds, seeded_all.rounds <= 22 ? "met" : "MISSED", proposal_all.rounds,
                proposal_all.rounds <= 22 ? "met" : "MISSED", ratio, ratio <= 0.5 ? "met" : "MISSED", from_ratio,
                from_ratio <= 0.5 ? "met" : "MISSED", ull(proposal_all.check));
    const double floor_ratio = static_cast<double>(unchanged_all.total) / static_cast<double>(scratch_all.total);
    std::printf("the floor of --from with the defaults: seeded with each upgrade itself (nothing changed) it executes "
                "%llu = %.3f x scratch, all of it the certification a run ending in the upgrade repeats (final suite, "
                "search beyond the bound, seed states); --from = %.3f x that floor\n",
                ull(unchanged_all.total), floor_ratio,
                unchanged_all.total ? static_cast<double>(seeded_all.total) / static_cast<double>(unchanged_all.total) : 0.0);
    std::printf("%zu of %zu runs exact (ok column: --from, proposal, scratch; and the floor's runs)\n", exact, runs);
    json["upgrades"] = rows;
    json["upgrades_total"] = {{"perfect_seeded", run_json(perfect_all)},
                              {"default_seeded", run_json(seeded_all)},
                              {"default_proposal", run_json(proposal_all)},
                              {"default_proposal_check_executed", proposal_all.check},
                              {"default_scratch", run_json(scratch_all)},
                              {"default_proposal_ratio", ratio},
                              {"default_from_ratio", from_ratio},
                              {"default_unchanged", run_json(unchanged_all)},
                              {"default_unchanged_ratio", floor_ratio},
                              {"aalpy_adaptive", {{"resets", aalpy_adaptive}, {"rounds", aalpy_adaptive_rounds}}},
                              {"aalpy_scratch", {{"resets", aalpy_scratch}, {"rounds", aalpy_scratch_rounds}}}};
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"typestar re-learning benchmark: proposals after one-transition changes"};
    std::string droidstar = std::string(TYPESTAR_SOURCE_DIR) + "/bench/droidstar";
    std::string specs = std::string(TYPESTAR_SOURCE_DIR) + "/specs";
    std::string models = std::string(TYPESTAR_SOURCE_DIR) + "/../shared/bench/models";  // as learn_bench
    std::string json_path;
    std::vector<std::string> groups;
    app.add_option("--droidstar", droidstar, "directory of the DroidStar stand-in specs");
    app.add_option("--specs", specs, "directory of the bundled specs (asynctask.yaml, mediaplayer.yaml are used)");
    app.add_option("--models", models, "directory of the Mealy benchmark models (holds aalpy/ and upgrades/)");
    app.add_option("--groups", groups, "run only these groups (comma-separated: mutants, upgrades; default: both)")
        ->delimiter(',');
    std::string only;
    app.add_option("--upgrade", only, "only the upgrades whose file name contains this");
    app.add_option("--json", json_path, "write the results as JSON here");
    CLI11_PARSE(app, argc, argv);
    const auto wanted = [&](const std::string& group) {
        return groups.empty() || std::find(groups.begin(), groups.end(), group) != groups.end();
    };
    nlohmann::ordered_json j;
    bool ok = true;
    const auto started = std::chrono::steady_clock::now();
    if (wanted("mutants")) {
        std::vector<fs::path> files = bench::files_with_extension(droidstar, ".yaml", false);
        files.push_back(fs::path(specs) / "asynctask.yaml");
        files.push_back(fs::path(specs) / "mediaplayer.yaml");
        std::printf("%-28s %8s %10s %7s %12s %10s %10s %7s\n", "model", "mutants", "undetected", "exact", "after fail",
                    "(check)", "scratch", "ratio");
        ModelTotals all;
        all.name = "total";
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const fs::path& file : files) {
            const ModelTotals t = measure(spec::load_spec(file));
            const double ratio = t.scratch ? static_cast<double>(t.after_failure) / static_cast<double>(t.scratch) : 0;
            std::printf("%-28s %8zu %10zu %7zu %12llu %10llu %10llu %7.3f\n", (file.stem().string()).c_str(), t.mutants,
                        t.undetected, t.exact, ull(t.after_failure),
                        ull(t.check), ull(t.scratch), ratio);
            std::fflush(stdout);
            ok = ok && t.exact + t.undetected == t.mutants;
            all.mutants += t.mutants;
            all.undetected += t.undetected;
            all.exact += t.exact;
            all.after_failure += t.after_failure;
            all.check += t.check;
            all.scratch += t.scratch;
            rows.push_back({{"model", file.stem().string()}, {"mutants", t.mutants}, {"undetected", t.undetected},
                            {"exact", t.exact}, {"after_failure_executed", t.after_failure},
                            {"check_executed", t.check}, {"scratch_executed", t.scratch}, {"ratio", ratio}});
        }
        const double ratio = static_cast<double>(all.after_failure) / static_cast<double>(all.scratch);
        std::printf("%-28s %8zu %10zu %7zu %12llu %10llu %10llu %7.3f   (target <= 0.30: %s)\n", "total", all.mutants,
                    all.undetected, all.exact, ull(all.after_failure),
                    ull(all.check), ull(all.scratch), ratio,
                    ratio <= 0.30 ? "met" : "NOT met");
        j["models"] = rows;
        j["total"] = {{"mutants", all.mutants}, {"undetected", all.undetected}, {"exact", all.exact},
                      {"after_failure_executed", all.after_failure}, {"check_executed", all.check},
                      {"scratch_executed", all.scratch}, {"ratio", ratio}};
    }
    if (wanted("upgrades")) {
        try {
            ok = upgrades_table(models, only, j) && ok;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "the upgrades: %s\n", e.what());
            ok = false;
        }
    }
    std::printf("%.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (!json_path.empty() && !bench::write_json_file(json_path, j)) return 2;
    return ok ? 0 : 1;
}
