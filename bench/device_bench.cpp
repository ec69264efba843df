// Device benchmark: learning the simulated MediaPlayer (callback delays 20–50 ms, tmax 100 ms) from
// scratch with 1 and 4 in-process devices and with 1 and 4 HTTP devices (batch call, loopback).
// Prints a table and JSON: wall time, executed queries and waits, and the floor waits × tmax ÷ devices.
//   typestar_device_bench [--quick] [--json FILE] [--class NAME]
#include <atomic>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "report.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

using namespace typestar;

namespace {

/// Counts the waits answered `quiet` (each costs a full tmax) of the device it wraps.
class QuietCounter final : public Device {
public:
    QuietCounter(std::unique_ptr<Device> inner, std::atomic<std::uint64_t>* quiet)
        : inner_(std::move(inner)), quiet_(quiet) {}
    const Alphabet& inputs() const override { return inner_->inputs(); }
    const Alphabet& outputs() const override { return inner_->outputs(); }
    DeviceTraits traits() const override { return inner_->traits(); }
    std::string name() const override { return inner_->name(); }
    bool deterministic() const override { return inner_->deterministic(); }
    DeviceDescription describe() const override { return inner_->describe(); }
    void check_timing() override { inner_->check_timing(); }
    std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix, std::chrono::milliseconds timeout) override {
        return inner_->confirm_wait(prefix, timeout);
    }
    void reset() override { inner_->reset(); }
    Symbol step(Symbol input) override { return inner_->step(input); }
    void finish() noexcept override { inner_->finish(); }
    RunResult run(std::span<const Symbol> word) override {
        RunResult r = inner_->run(word);
        const DeviceTraits t = traits();
        bool skipped = false;  // a wait right after a quiet wait is answered without running
        const auto quiet_symbol = outputs().find("quiet");
        for (std::size_t i = 0; i < word.size(); ++i) {
            if (t.absorbing && r.outputs[i] == *t.absorbing) break;
            const bool quiet = t.wait && word[i] == *t.wait && quiet_symbol && r.outputs[i] == *quiet_symbol;
            if (quiet && !skipped) ++*quiet_;
            skipped = quiet && t.quiet.has_value();
        }
        return r;
    }
    Device& inner() { return *inner_; }

private:
    std::unique_ptr<Device> inner_;
    std::atomic<std::uint64_t>* quiet_;
};

struct Row {
    std::string path;
    std::size_t devices = 0;
    double wall_s = 0;
    QueryStats stats;
    double floor_s = 0;
    std::uint64_t quiet_waits = 0;
    double quiet_floor_s = 0;
    bool matches_spec = false;
    std::uint64_t http_requests = 0;
};

Row learn_once(const std::string& path, std::vector<std::unique_ptr<Device>> devices, const QuiescenceTiming& timing,
               const spec::Spec& expected) {
    Row row;
    row.path = path;
    row.devices = devices.size();
    std::vector<Device*> raw;
    for (auto& d : devices) raw.push_back(d.get());
    std::atomic<std::uint64_t> quiet{0};
    for (auto& d : devices) d = std::make_unique<QuietCounter>(std::move(d), &quiet);
    std::vector<Device*> counted;
    for (auto& d : devices) counted.push_back(d.get());
    const auto start = std::chrono::steady_clock::now();
    LearnOptions options;
    options.equivalence.bound = 2;
    options.equivalence.batch_size = 256;
    const LearnedSpec result = learn_spec(counted, options);
    row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    row.stats = result.stats;
    const double tmax_s = std::chrono::duration<double>(timing.tmax).count();
    row.floor_s = static_cast<double>(row.stats.total().waits_executed) * tmax_s / static_cast<double>(row.devices);
    row.quiet_waits = quiet.load();
    row.quiet_floor_s = static_cast<double>(row.quiet_waits) * tmax_s / static_cast<double>(row.devices);
    spec::Spec learned;
    learned.typestate = typestate_of(result.machine, expected.typestate.name);
    row.matches_spec = result.converged && spec::same_behaviour(learned, expected);
    for (Device* d : raw)
        if (auto* h = dynamic_cast<HttpDevice*>(d)) row.http_requests += h->requests();
    return row;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"typestar device benchmark: pools and the HTTP path on a simulated class"};
    bool quick = false;
    std::string json_path;
    std::string key = "mediaplayer";
    std::size_t pool = 4;
    app.add_flag("--quick", quick, "delays 5-10 ms, tmax 25 ms (a smoke run)");
    app.add_option("--json", json_path, "also write the results as JSON to this file");
    app.add_option("--class", key, "simulated class (default mediaplayer)");
    app.add_option("--pool", pool, "devices in the pooled runs (default 4)")->check(CLI::PositiveNumber);
    CLI11_PARSE(app, argc, argv);

    const auto entry = sim::find_simulated(key);
    if (!entry) {
        std::cerr << "unknown class " << key << "\n";
        return 2;
    }
    DeviceOptions options;
    options.sim.delay_min = std::chrono::milliseconds(quick ? 5 : 20);
    options.sim.delay_max = std::chrono::milliseconds(quick ? 10 : 50);
    options.sim.timing = {std::chrono::milliseconds(quick ? 25 : 100), std::chrono::milliseconds(quick ? 2 : 5)};
    const spec::Spec expected = spec::load_spec(std::string(TYPESTAR_SOURCE_DIR) + "/" + entry->spec);

    AgentConfig agent_config;
    agent_config.token = "bench-token";
    agent_config.max_sessions = 16;
    Agent agent(
        [&] {
            InProcessConfig c;
            c.variants = entry->variants;
            return std::make_unique<InProcessDevice>(entry->make(options.sim), c);
        },
        agent_config);
    agent.start();
    options.http.token = agent_config.token;

    std::vector<Row> rows;
    for (const std::size_t n : {std::size_t{1}, pool}) {
        rows.push_back(learn_once("in-process", make_devices({"inproc:" + key}, n, options), options.sim.timing, expected));
        rows.push_back(learn_once("http", make_devices({agent.url()}, n, options), options.sim.timing, expected));
    }
    agent.stop();

    auto find = [&](const std::string& path, std::size_t n) -> const Row& {
        for (const auto& r : rows)
            if (r.path == path && r.devices == n) return r;
        return rows.front();
    };
    const double speedup = find("in-process", 1).wall_s / find("in-process", pool).wall_s;
    const double http_ratio_1 = find("http", 1).wall_s / find("in-process", 1).wall_s;
    const double http_ratio_n = find("http", pool).wall_s / find("in-process", pool).wall_s;
    bool same_stats = true;
    for (const auto& r : rows)
        same_stats = same_stats && r.stats.learning == rows.front().stats.learning &&
                     r.stats.equivalence == rows.front().stats.equivalence &&
                     r.stats.verification == rows.front().stats.verification;

    std::cout << "typestar device benchmark: " << expected.typestate.name << ", callback delays "
              << options.sim.delay_min.count() << "-" << options.sim.delay_max.count() << " ms, tmax "
              << options.sim.timing.tmax.count() << " ms, tmin " << options.sim.timing.tmin.count() << " ms\n\n";
    std::cout << std::left << std::setw(12) << "path" << std::right << std::setw(8) << "devices" << std::setw(10)
              << "wall s" << std::setw(10) << "floor s" << std::setw(14) << "quiet floor s" << std::setw(10)
              << "queries" << std::setw(8) << "waits" << std::setw(8) << "quiet"
              << std::setw(10) << "requests" << std::setw(8) << "spec" << "\n";
    for (const auto& r : rows) {
        const PhaseCounts t = r.stats.total();
        std::cout << std::left << std::setw(12) << r.path << std::right << std::setw(8) << r.devices << std::fixed
                  << std::setprecision(2) << std::setw(10) << r.wall_s << std::setw(10) << r.floor_s << std::setw(14)
                  << r.quiet_floor_s << std::setw(10) << t.queries_executed << std::setw(8) << t.waits_executed
                  << std::setw(8) << r.quiet_waits << std::setw(10)
                  << (r.path == "http" ? std::to_string(r.http_requests) : std::string("-")) << std::setw(8)
                  << (r.matches_spec ? "same" : "DIFF") << "\n";
    }
    std::cout << "\nspeedup in-process " << pool << " vs 1 devices: " << std::setprecision(2) << speedup
              << "x (target >= 3x)\n"
              << "http / in-process wall time: " << http_ratio_1 << " (1 device), " << http_ratio_n << " (" << pool
              << " devices) (target <= 1.10)\n"
              << "statistics identical across runs: " << (same_stats ? "yes" : "NO") << "\n"
              << "executed queries by phase: learning " << rows.front().stats.learning.queries_executed
              << ", equivalence " << rows.front().stats.equivalence.queries_executed << ", verification "
              << rows.front().stats.verification.queries_executed
              << " (flake policy and wait re-checks, past the cache, batches over the pool)\n";

    nlohmann::json j;
    j["class"] = expected.typestate.name;
    j["delay_ms"] = {options.sim.delay_min.count(), options.sim.delay_max.count()};
    j["tmax_ms"] = options.sim.timing.tmax.count();
    j["tmin_ms"] = options.sim.timing.tmin.count();
    for (const auto& r : rows) {
        const PhaseCounts t = r.stats.total();
        j["runs"].push_back({{"path", r.path},
                             {"devices", r.devices},
                             {"wall_s", r.wall_s},
                             {"floor_s", r.floor_s},
                             {"quiet_waits", r.quiet_waits},
                             {"quiet_floor_s", r.quiet_floor_s},
                             {"queries_executed", t.queries_executed},
                             {"learning_queries_executed", r.stats.learning.queries_executed},
                             {"equivalence_queries_executed", r.stats.equivalence.queries_executed},
                             {"verification_queries_executed", r.stats.verification.queries_executed},
                             {"symbols_executed", t.symbols_executed},
                             {"waits_executed", t.waits_executed},
                             {"queries_asked", t.queries_asked},
                             {"http_requests", r.http_requests},
                             {"matches_spec", r.matches_spec}});
    }
    j["speedup_pool"] = speedup;
    j["http_ratio"] = {http_ratio_1, http_ratio_n};
    j["same_stats"] = same_stats;
    std::cout << "\n" << j.dump() << "\n";
    if (!json_path.empty() && !typestar::bench::write_json_file(json_path, j)) return 2;
    bool all_match = same_stats;
    for (const auto& r : rows) all_match = all_match && r.matches_spec;
    return all_match ? 0 : 1;
}
