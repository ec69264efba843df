// JVM agent benchmark (not a test): per-step cost of HTTP to the JVM agent vs an in-process C++
// device, and learning a real JDK target from scratch with 1 vs N pooled HttpDevices.
//   typestar_jvm_bench --url http://127.0.0.1:PORT [--url ...] --spec specs/targets/java_timer.yaml
//                      [--pool 4] [--steps 2000] [--step-url http://... (an agent of java_piped)]
// With one --url the pool is N sessions of that agent; with several, N devices spread over them.
// The token comes from TYPESTAR_DEVICE_TOKEN. Learning goes through the session layer (learn_spec).
// Exit 0 when both runs learned the spec's typestate with identical statistics, 1 otherwise.
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "typestar/core/typestate.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

using namespace typestar;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// Microseconds per step of `word` on `d`: one query (batch) or a session of steps.
double per_step_us(Device& d, const Word& word) {
    const auto t = Clock::now();
    const RunResult r = d.run(word);
    return seconds_since(t) * 1e6 / static_cast<double>(r.steps);
}

struct Learned {
    double wall_s = 0;
    QueryStats stats;
    bool same = false;
};

Learned learn_with(std::vector<std::unique_ptr<Device>> devices, const spec::Spec& expected) {
    Learned out;
    const auto t = Clock::now();
    std::vector<Device*> raw;
    for (auto& d : devices) raw.push_back(d.get());
    LearnOptions options;
    options.equivalence.bound = 2;
    options.equivalence.batch_size = 256;
    const LearnedSpec result = learn_spec(raw, options);
    out.wall_s = seconds_since(t);
    out.stats = result.stats;
    spec::Spec learned;
    learned.typestate = typestate_of(result.machine, expected.typestate.name);
    out.same = result.converged && spec::same_behaviour(learned, expected);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"typestar JVM agent benchmark"};
    std::vector<std::string> urls;
    std::string spec_path;
    std::string step_url;
    std::size_t pool = 4;
    std::size_t steps = 2000;
    app.add_option("--url", urls, "agent(s) of the learned target")->required();
    app.add_option("--spec", spec_path, "the target's committed spec (the expected typestate)")->required();
    app.add_option("--pool", pool, "devices in the pooled run (default 4)")->check(CLI::PositiveNumber);
    app.add_option("--step-url", step_url, "an agent of java_piped for the per-step cost (connect, then flush)");
    app.add_option("--steps", steps, "steps per measurement (default 2000)")->check(CLI::PositiveNumber);
    CLI11_PARSE(app, argc, argv);
    const char* token = std::getenv("TYPESTAR_DEVICE_TOKEN");
    if (token == nullptr) {
        std::cerr << "typestar_jvm_bench: set TYPESTAR_DEVICE_TOKEN\n";
        return 2;
    }
    auto http = [&](const std::string& url, bool batch) {
        HttpConfig c;
        c.url = url;
        c.token = token;
        c.batch = batch;
        return std::make_unique<HttpDevice>(c);
    };

    if (!step_url.empty()) {
        // The same word (connect, then flush × steps) on the JVM, step-wise and in one /v1/run, and on
        // an in-process C++ device whose callins do as little (a no-op flush).
        struct Nop {};
        InProcessDevice local(LearningPurpose<Nop>("Nop")
                                  .reset([](const auto&) { return std::make_shared<Nop>(); })
                                  .callin("connect", [](Nop&) {})
                                  .callin("flush", [](Nop&) {})
                                  .build());
        auto stepwise = http(step_url, false);
        auto batch = http(step_url, true);
        auto word_of = [&](const Device& d) {
            Word w{d.inputs().at("connect")};
            w.resize(steps + 1, d.inputs().at("flush"));
            return w;
        };
        for (int warm = 0; warm < 3; ++warm) {
            (void)per_step_us(*stepwise, word_of(*stepwise));
            (void)per_step_us(*batch, word_of(*batch));
            (void)per_step_us(local, word_of(local));
        }
        std::cout << std::fixed << std::setprecision(1) << "per step (" << steps + 1 << " steps, best of 5):\n";
        double s = 1e18, b = 1e18, l = 1e18;
        for (int i = 0; i < 5; ++i) {
            s = std::min(s, per_step_us(*stepwise, word_of(*stepwise)));
            b = std::min(b, per_step_us(*batch, word_of(*batch)));
            l = std::min(l, per_step_us(local, word_of(local)));
        }
        std::cout << "  JVM agent, one HTTP request per step: " << s << " us\n"
                  << "  JVM agent, one /v1/run per query:     " << b << " us\n"
                  << "  in-process C++ device:                " << std::setprecision(3) << l << " us\n";
    }

    const spec::Spec expected = spec::load_spec(spec_path);
    std::vector<std::unique_ptr<Device>> one;
    one.push_back(http(urls.front(), true));
    const Learned single = learn_with(std::move(one), expected);
    std::vector<std::unique_ptr<Device>> many;
    for (std::size_t i = 0; i < pool; ++i) many.push_back(http(urls[i % urls.size()], true));
    const Learned pooled = learn_with(std::move(many), expected);
    const PhaseCounts t = single.stats.total();
    std::cout << std::fixed << std::setprecision(2) << expected.typestate.name << ": " << t.queries_executed << " queries executed, "
              << t.symbols_executed << " symbols, " << t.waits_executed << " waits\n"
              << "  1 device:  " << single.wall_s << " s, typestate " << (single.same ? "same as the spec" : "DIFFERS") << "\n"
              << "  " << pool << " devices: " << pooled.wall_s << " s, typestate "
              << (pooled.same ? "same as the spec" : "DIFFERS") << ", statistics "
              << (pooled.stats.learning == single.stats.learning && pooled.stats.equivalence == single.stats.equivalence
                      ? "identical"
                      : "DIFFER")
              << "\n  speed-up: " << single.wall_s / pooled.wall_s << "x\n";
    const bool same_stats =
        pooled.stats.learning == single.stats.learning && pooled.stats.equivalence == single.stats.equivalence;
    return single.same && pooled.same && same_stats ? 0 : 1;
}
