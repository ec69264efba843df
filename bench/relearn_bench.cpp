// Re-learning benchmark (the soundness issue's second measurement): after a one-transition change of
// a class, what does the proposal cost next to learning the changed class from scratch?
//   typestar_relearn_bench [--droidstar DIR] [--specs DIR] [--json FILE]
// For every one-transition mutant (one transition of the Mealy machine retargeted, err still
// absorbing, behaviour changed) of the 16 DroidStar stand-ins and the bundled specs: run the stored
// spec's conformance suite against the mutant as CI does (every transition's words, Algorithm 2,
// B = 2), then propose() through that run's oracle stack, seeded with the stored spec and driven by
// the first failing word; count the executed queries of the proposal — everything after the
// conformance run failed — against learn_spec on the mutant from scratch.
// Model devices declare only what their spec file declares. Not a test: it fails only on a wrong
// proposal (one that is not the mutant) or a crash.
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

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"typestar re-learning benchmark: proposals after one-transition changes"};
    std::string droidstar = std::string(TYPESTAR_SOURCE_DIR) + "/bench/droidstar";
    std::string specs = std::string(TYPESTAR_SOURCE_DIR) + "/specs";
    std::string json_path;
    app.add_option("--droidstar", droidstar, "directory of the DroidStar stand-in specs");
    app.add_option("--specs", specs, "directory of the bundled specs (asynctask.yaml, mediaplayer.yaml are used)");
    app.add_option("--json", json_path, "write the results as JSON here");
    CLI11_PARSE(app, argc, argv);

    std::vector<fs::path> files = bench::files_with_extension(droidstar, ".yaml", false);
    files.push_back(fs::path(specs) / "asynctask.yaml");
    files.push_back(fs::path(specs) / "mediaplayer.yaml");
    std::printf("%-28s %8s %10s %7s %12s %10s %10s %7s\n", "model", "mutants", "undetected", "exact", "after fail",
                "(check)", "scratch", "ratio");
    ModelTotals all;
    all.name = "total";
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    bool ok = true;
    const auto started = std::chrono::steady_clock::now();
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
    std::printf("%.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    if (!json_path.empty()) {
        nlohmann::ordered_json j;
        j["models"] = rows;
        j["total"] = {{"mutants", all.mutants}, {"undetected", all.undetected}, {"exact", all.exact},
                      {"after_failure_executed", all.after_failure}, {"check_executed", all.check},
                      {"scratch_executed", all.scratch}, {"ratio", ratio}};
        if (!bench::write_json_file(json_path, j)) return 2;
    }
    return ok ? 0 : 1;
}
