// JVM agent benchmark (not a test): per-step and per-query cost of HTTP to the JVM agent beside the
// C++ agent (issue 27: JVM <= 3x C++) and an in-process C++ device, and learning a real JDK target
// from scratch with 1 vs N pooled HttpDevices.
//   typestar_jvm_bench --url http://127.0.0.1:PORT [--url ...] --spec specs/targets/java_timer.yaml
//                      [--pool 4] [--steps 2000] [--step-url http://... (an agent of java_piped)]
// With one --url the pool is N sessions of that agent; with several, N devices spread over them.
// The token comes from TYPESTAR_DEVICE_TOKEN. Learning goes through the session layer (learn_spec).
// Exit 0 when both runs learned the spec's typestate with identical statistics, 1 otherwise.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "typestar/core/typestate.hpp"
#include "typestar/device/agent.hpp"
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
        // The same words (connect, then flush × steps; and 4-callin queries) on the JVM agent and on
        // the C++ agent (typestar-device's Agent, in this process, over loopback HTTP like the JVM's)
        // serving a device whose callins do as little (no-op connect and flush), and in-process.
        struct Nop {};
        auto nop = [] {
            return std::make_unique<InProcessDevice>(LearningPurpose<Nop>("Nop")
                                                         .reset([](const auto&) { return std::make_shared<Nop>(); })
                                                         .callin("connect", [](Nop&) {})
                                                         .callin("flush", [](Nop&) {})
                                                         .build());
        };
        AgentConfig agent_config;
        agent_config.token = token;
        Agent cpp_agent(nop, agent_config);
        cpp_agent.start();
        auto local = nop();
        struct Path {
            std::string name;
            std::unique_ptr<Device> stepwise, batch;
        };
        std::vector<Path> paths;
        paths.push_back({"JVM agent", http(step_url, false), http(step_url, true)});
        paths.push_back({"C++ agent", http(cpp_agent.url(), false), http(cpp_agent.url(), true)});
        auto word_of = [&](const Device& d, std::size_t flushes) {
            Word w{d.inputs().at("connect")};
            w.resize(flushes + 1, d.inputs().at("flush"));
            return w;
        };
        // Median milliseconds per query of `word` (4 callins) over `n` queries.
        auto query_ms = [&](Device& d, std::size_t n) {
            const Word w = word_of(d, 3);
            std::vector<double> ms;
            for (std::size_t i = 0; i < n; ++i) {
                const auto t = Clock::now();
                (void)d.run(w);
                ms.push_back(seconds_since(t) * 1e3);
            }
            std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(n / 2), ms.end());
            return ms[n / 2];
        };
        struct Figures {
            double step_us = 1e18, batch_us = 1e18, query_ms = 0, step_query_ms = 0;
        };
        std::vector<Figures> figures(paths.size());
        for (int warm = 0; warm < 3; ++warm)
            for (auto& p : paths) {
                (void)per_step_us(*p.stepwise, word_of(*p.stepwise, steps));
                (void)per_step_us(*p.batch, word_of(*p.batch, steps));
            }
        for (int i = 0; i < 5; ++i)
            for (std::size_t k = 0; k < paths.size(); ++k) {
                figures[k].step_us = std::min(figures[k].step_us, per_step_us(*paths[k].stepwise, word_of(*paths[k].stepwise, steps)));
                figures[k].batch_us = std::min(figures[k].batch_us, per_step_us(*paths[k].batch, word_of(*paths[k].batch, steps)));
            }
        for (std::size_t k = 0; k < paths.size(); ++k) {
            figures[k].query_ms = query_ms(*paths[k].batch, 500);
            figures[k].step_query_ms = query_ms(*paths[k].stepwise, 200);
        }
        double l = 1e18;
        for (int i = 0; i < 5; ++i) l = std::min(l, per_step_us(*local, word_of(*local, steps)));
        const Figures& j = figures[0];
        const Figures& c = figures[1];
        std::cout << std::fixed << std::setprecision(1) << "per step and per query (" << steps + 1
                  << "-step word best of 5; 4-callin queries: median of 500 / 200):\n"
                  << "                                         JVM agent    C++ agent   JVM/C++  (target <= 3)\n";
        auto row = [&](const char* what, double a, double b, const char* unit) {
            std::cout << "  " << std::left << std::setw(38) << what << std::right << std::setw(9)
                      << std::setprecision(unit[0] == 'm' ? 3 : 1) << a << " " << unit << std::setw(9) << b << " "
                      << unit << std::setw(9) << std::setprecision(2) << a / b << "x\n";
        };
        row("one HTTP request per step, per step", j.step_us, c.step_us, "us");
        row("one /v1/run per query, per step", j.batch_us, c.batch_us, "us");
        row("4-callin query, one /v1/run", j.query_ms, c.query_ms, "ms");
        row("4-callin query, step-wise (6 requests)", j.step_query_ms, c.step_query_ms, "ms");
        std::cout << "  in-process C++ device, per step: " << std::setprecision(3) << l << " us\n";
        std::cout << "JSON: {\"jvm_step_us\":" << j.step_us << ",\"cpp_step_us\":" << c.step_us
                  << ",\"jvm_batch_step_us\":" << j.batch_us << ",\"cpp_batch_step_us\":" << c.batch_us
                  << ",\"jvm_run4_ms\":" << j.query_ms << ",\"cpp_run4_ms\":" << c.query_ms
                  << ",\"jvm_stepwise4_ms\":" << j.step_query_ms << ",\"cpp_stepwise4_ms\":" << c.step_query_ms
                  << ",\"inprocess_step_us\":" << l << "}\n";
        cpp_agent.stop();
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
              << "\n  speed-up: " << single.wall_s / pooled.wall_s << "x (issue 27's target with every check on, "
              << "the learn_spec defaults: >= 3x for 4 JVM agents on java_timer)\n";
    const bool same_stats =
        pooled.stats.learning == single.stats.learning && pooled.stats.equivalence == single.stats.equivalence;
    return single.same && pooled.same && same_stats ? 0 : 1;
}
