// Device benchmark: learning the simulated MediaPlayer (callback delays 20–50 ms, tmax 100 ms) from
// scratch with 1 and 4 in-process devices and with 1 and 4 HTTP devices (batch call, loopback).
// Prints a table and JSON: wall time, executed queries and waits, and the floor waits × tmax ÷ devices.
// Then the client's own CPU: a fixed seeded set of queries run through one HttpDevice against a
// no-op agent in a child process (a one-state machine: callins answer ok, wait answers quiet at
// once), over /v1/run and step by step; getrusage of this process is the client's CPU alone.
//   typestar_device_bench [--quick] [--json FILE] [--class NAME] [--client-cpu-only] [--queries N]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "report.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

using namespace typestar;

namespace {

/// HttpConfig::direct_loopback of every client of the bench (--libcurl: false, the transport a
/// loopback agent had before the direct one, measured beside it in one run by bench/issue38.sh).
bool g_direct_loopback = true;

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

// ---- The client's own CPU per executed query over HTTP ----

/// The client's CPU per query and per symbol before the client's trimming (library at commit
/// cb6a7de, this bench, RelWithDebInfo -O2 -g1, the shared 2-core machine, median of 3 runs): the
/// anchor the target (half of it) is printed against. CPU time on a loaded machine varies by ~10%.
struct ClientCpuAnchor {
    const char* path;
    double us_per_query;
    double us_per_symbol;
};
/// `override` (a tmax override, e.g. --tmax) went step by step then: its anchor is the step path's.
constexpr ClientCpuAnchor kClientCpuAnchors[] = {
    {"run", 15.5, 1.8},       {"step", 142.1, 16.7},      {"override", 142.1, 16.7}, {"learn-run", 17.0, 2.8},
    {"learn-step", 112.9, 18.6}, {"broker-run", 18.4, 2.6}, {"broker-step", 126.7, 18.2}};
constexpr const char* kClientCpuAnchorCommit = "cb6a7de";

/// The no-op device: one state, callins c0..c5 answer ok, wait answers quiet (callbacks cb0, cb1
/// declared, never sent), no time spent anywhere.
MealyMachine noop_machine() {
    Alphabet in;
    for (int i = 0; i < 6; ++i) in.intern("c" + std::to_string(i));
    in.intern("wait");
    Alphabet out;
    const Symbol ok = out.intern("ok");
    const Symbol quiet = out.intern("quiet");
    out.intern("err");
    out.intern("cb0");
    out.intern("cb1");
    std::vector<Transition> table;
    for (std::size_t i = 0; i < in.size(); ++i) table.push_back({0, i + 1 == in.size() ? quiet : ok});
    return MealyMachine(std::move(in), std::move(out), 0, std::move(table));
}

/// An agent serving ModelDevice(`machine`) in a child process (forked before this process starts any
/// thread), so that the parent's getrusage is the client's CPU alone.
struct NoopAgent {
    pid_t pid = -1;
    std::string url;
    int keep_alive = -1;  ///< the child serves until this pipe closes
};

NoopAgent fork_model_agent(const std::string& token, const MealyMachine& machine, const std::string& name) {
    int url_pipe[2];
    int life_pipe[2];
    if (pipe(url_pipe) != 0 || pipe(life_pipe) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        // Only its own pipe ends: an earlier agent's keep-alive pipe must close when the parent's does.
        for (int fd = 3; fd < 1024; ++fd)
            if (fd != url_pipe[1] && fd != life_pipe[0]) close(fd);
        int rc = 0;
        try {
            AgentConfig config;
            config.token = token;
            Agent agent(AnyDevices{[&] { return std::make_unique<ModelDevice>(machine, name); }}, config);
            agent.start();
            const std::string url = agent.url() + "\n";
            if (write(url_pipe[1], url.data(), url.size()) != static_cast<ssize_t>(url.size())) rc = 1;
            close(url_pipe[1]);
            char c;
            while (read(life_pipe[0], &c, 1) > 0) {
            }
            agent.stop();
        } catch (const std::exception& e) {
            std::cerr << "model agent: " << e.what() << "\n";
            rc = 1;
        }
        _exit(rc);
    }
    close(url_pipe[1]);
    close(life_pipe[0]);
    NoopAgent agent;
    agent.pid = pid;
    agent.keep_alive = life_pipe[1];
    char c;
    while (read(url_pipe[0], &c, 1) == 1 && c != '\n') agent.url.push_back(c);
    close(url_pipe[0]);
    if (agent.url.empty()) throw std::runtime_error("the model agent did not start");
    return agent;
}

/// System CPU seconds of this process so far.
double sys_now() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_stime.tv_sec) + static_cast<double>(usage.ru_stime.tv_usec) * 1e-6;
}

/// User + system CPU seconds of process `pid` so far (/proc/PID/stat utime + stime).
double process_cpu(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close_paren = text.rfind(')');
    if (close_paren == std::string::npos) return 0;
    std::istringstream fields(text.substr(close_paren + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i)
        if (i == 14 || i == 15) ticks += std::stod(field);
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

struct ClientCpuRow {
    /// "run" (POST /v1/run, one round trip), "step" (a session, one request per step) or "override"
    /// (a tmax override: /v1/run carrying timeout_ms when the agent declares run_timeout, else steps)
    std::string path;
    std::size_t queries = 0;
    std::uint64_t symbols = 0;  ///< inputs of the queries
    std::uint64_t steps = 0;    ///< inputs the agent executed
    std::uint64_t requests = 0;
    double client_cpu_s = 0;
    double client_sys_s = 0;  ///< of client_cpu_s, in the kernel (loopback TCP, poll)
    double agent_cpu_s = 0;
    double wall_s = 0;
    std::uint64_t outputs_hash = 0;  ///< of every output, so both paths are seen to answer alike
};

ClientCpuRow client_cpu_once(const std::string& path, const NoopAgent& agent, const std::string& token,
                             const std::vector<Word>& words) {
    HttpConfig config;
    config.url = agent.url;
    config.token = token;
    config.batch = path != "step";
    config.direct_loopback = g_direct_loopback;
    HttpDevice device(config);
    if (path == "override") {  // the agent's waits cost nothing: any tmax answers alike
        TimingOverride o;
        o.tmax = std::chrono::milliseconds(100);
        o.origin = "the bench";
        device.override_timing(o);
    }
    ClientCpuRow row;
    row.path = path;
    row.queries = words.size();
    const double agent_before = process_cpu(agent.pid);
    const double before = bench::cpu_now();
    const double sys_before = sys_now();
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t hash = 1469598103934665603ULL;
    for (const Word& w : words) {
        const RunResult r = device.run(w);
        row.symbols += w.size();
        row.steps += r.steps;
        for (const Symbol o : r.outputs) hash = (hash ^ o) * 1099511628211ULL;
    }
    row.client_cpu_s = bench::cpu_now() - before;
    row.client_sys_s = sys_now() - sys_before;
    row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    row.agent_cpu_s = process_cpu(agent.pid) - agent_before;
    row.requests = device.requests();
    row.outputs_hash = hash;
    return row;
}

/// Whether `learned` answers as `truth` on `count` seeded random words of 1 to 20 inputs (by names:
/// the learned machine's alphabets are the HTTP device's).
bool agrees(const MealyMachine& learned, const MealyMachine& truth, std::size_t count) {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::size_t> length(1, 20);
    std::uniform_int_distribution<Symbol> symbol(0, static_cast<Symbol>(truth.num_inputs() - 1));
    for (std::size_t k = 0; k < count; ++k) {
        Word word(length(rng));
        for (auto& s : word) s = symbol(rng);
        Word mapped;
        for (const Symbol s : word) {
            const auto id = learned.inputs().find(truth.inputs().name(s));
            if (!id) return false;
            mapped.push_back(*id);
        }
        const Word a = learned.outputs_of(mapped);
        const Word b = truth.outputs_of(word);
        for (std::size_t i = 0; i < word.size(); ++i)
            if (learned.outputs().name(a[i]) != truth.outputs().name(b[i])) return false;
    }
    return true;
}

/// Learning `truth` over HTTP (L#, the options of learn_once) from an agent serving it without any
/// delay: the whole process's CPU (learner, cache, oracles and the HTTP client).
ClientCpuRow learn_cpu_once(const std::string& path, const NoopAgent& agent, const std::string& token,
                            const MealyMachine& truth, bool& matches) {
    HttpConfig config;
    config.url = agent.url;
    config.token = token;
    config.batch = path.ends_with("-run");
    config.direct_loopback = g_direct_loopback;
    std::vector<std::unique_ptr<Device>> owned;
    owned.push_back(std::make_unique<HttpDevice>(config));
    auto& device = static_cast<HttpDevice&>(*owned.front());
    std::vector<Device*> devices{owned.front().get()};
    LearnOptions options;
    options.equivalence.bound = 2;
    options.equivalence.batch_size = 256;
    ClientCpuRow row;
    row.path = path;
    const double agent_before = process_cpu(agent.pid);
    const double before = bench::cpu_now();
    const double sys_before = sys_now();
    const auto start = std::chrono::steady_clock::now();
    const LearnedSpec result = learn_spec(devices, options);
    row.client_cpu_s = bench::cpu_now() - before;
    row.client_sys_s = sys_now() - sys_before;
    row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    row.agent_cpu_s = process_cpu(agent.pid) - agent_before;
    const PhaseCounts t = result.stats.total();
    row.queries = t.queries_executed;
    row.symbols = t.symbols_executed;
    row.steps = t.symbols_executed;
    row.requests = device.requests();
    matches = result.converged && result.machine.num_states() == minimize(truth).num_states() &&
              agrees(result.machine, truth, 2000);
    return row;
}

/// Measures, prints and returns the client's CPU rows as JSON; false in `same` when the paths
/// disagree or a learned spec differs from `expected`.
nlohmann::json client_cpu(const NoopAgent& agent, const NoopAgent& model_agent, const MealyMachine& model,
                          const NoopAgent* broker_agent, const MealyMachine* broker, const std::string& broker_name,
                          const std::string& token,
                          std::size_t queries, const spec::Spec& expected, bool& same) {
    std::mt19937_64 rng(38);
    const MealyMachine machine = noop_machine();
    std::uniform_int_distribution<std::size_t> length(1, 16);
    std::uniform_int_distribution<Symbol> symbol(0, static_cast<Symbol>(machine.num_inputs() - 1));
    std::vector<Word> words(queries);
    for (auto& w : words) {
        w.resize(length(rng));
        for (auto& s : w) s = symbol(rng);
    }
    std::vector<ClientCpuRow> rows;
    for (const char* path : {"run", "step", "override"}) rows.push_back(client_cpu_once(path, agent, token, words));
    same = rows[0].outputs_hash == rows[1].outputs_hash && rows[0].outputs_hash == rows[2].outputs_hash;
    for (const char* path : {"learn-run", "learn-step"}) {
        bool matches = false;
        rows.push_back(learn_cpu_once(path, model_agent, token, model, matches));
        same = same && matches;
    }
    if (broker_agent != nullptr) {
        for (const char* path : {"broker-run", "broker-step"}) {
            bool matches = false;
            rows.push_back(learn_cpu_once(path, *broker_agent, token, *broker, matches));
            same = same && matches;
        }
    }

    std::cout << "\nclient CPU over HTTP against a no-op agent (child process; one HttpDevice, "
              << (g_direct_loopback ? "the direct socket" : "libcurl") << "): run, step: "
              << queries << " seeded queries of 1-16 symbols over 6 callins and wait; learn-run, learn-step: "
              << "learning " << expected.typestate.name << " (L#, bound 2) from an agent serving its closure "
              << "without delays; broker-run, broker-step: learning " << broker_name << " likewise (the whole "
              << "process: learner, cache, oracles, client); override: run with a tmax override (--tmax)\n";
    std::cout << std::left << std::setw(11) << "path" << std::right << std::setw(9) << "queries" << std::setw(9)
              << "symbols" << std::setw(9) << "steps" << std::setw(10) << "requests" << std::setw(10) << "client s"
              << std::setw(7) << "sys %" << std::setw(9) << "agent s" << std::setw(8) << "wall s" << std::setw(10) << "us/query" << std::setw(9)
              << "us/symb" << std::setw(13) << "anchor q/sym" << std::setw(14) << "target q/sym" << std::setw(6)
              << "met" << "\n";
    nlohmann::json j;
    for (const auto& r : rows) {
        const double per_query = r.client_cpu_s * 1e6 / static_cast<double>(r.queries);
        const double per_symbol = r.client_cpu_s * 1e6 / static_cast<double>(r.symbols);
        ClientCpuAnchor anchor{r.path.c_str(), 0, 0};
        for (const auto& a : kClientCpuAnchors)
            if (r.path == a.path) anchor = a;
        const bool met = anchor.us_per_query > 0 && per_query <= anchor.us_per_query / 2;
        std::ostringstream anchor_text, target_text;
        anchor_text << std::fixed << std::setprecision(1) << anchor.us_per_query << "/" << anchor.us_per_symbol;
        target_text << std::fixed << std::setprecision(1) << anchor.us_per_query / 2 << "/"
                    << anchor.us_per_symbol / 2;
        std::cout << std::left << std::setw(11) << r.path << std::right << std::setw(9) << r.queries << std::setw(9)
                  << r.symbols << std::setw(9) << r.steps << std::setw(10) << r.requests << std::fixed
                  << std::setprecision(2) << std::setw(10) << r.client_cpu_s << std::setprecision(0) << std::setw(7)
                  << 100 * r.client_sys_s / r.client_cpu_s << std::setprecision(2) << std::setw(9) << r.agent_cpu_s
                  << std::setw(8) << r.wall_s << std::setprecision(1) << std::setw(10) << per_query << std::setw(9)
                  << per_symbol << std::setw(13) << anchor_text.str() << std::setw(14) << target_text.str()
                  << std::setw(6) << (met ? "yes" : "NO") << "\n";
        j.push_back({{"path", r.path},
                     {"queries", r.queries},
                     {"symbols", r.symbols},
                     {"steps", r.steps},
                     {"requests", r.requests},
                     {"client_cpu_s", r.client_cpu_s},
                     {"client_sys_s", r.client_sys_s},
                     {"agent_cpu_s", r.agent_cpu_s},
                     {"wall_s", r.wall_s},
                     {"client_us_per_query", per_query},
                     {"client_us_per_symbol", per_symbol},
                     {"anchor_us_per_query", anchor.us_per_query},
                     {"anchor_us_per_symbol", anchor.us_per_symbol},
                     {"anchor_commit", kClientCpuAnchorCommit},
                     {"transport", g_direct_loopback ? "direct" : "libcurl"},
                     {"target_us_per_query", anchor.us_per_query / 2},
                     {"met", met}});
    }
    std::cout << "anchor: the same measurement at commit " << kClientCpuAnchorCommit
              << "; target: half of it per query. Both paths answered alike and learned the spec: "
              << (same ? "yes" : "NO") << "\n";
    return j;
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
    bool client_cpu_only = false;
    std::size_t cpu_queries = 20000;
    app.add_flag("--client-cpu-only", client_cpu_only, "only the client's CPU per query against a no-op agent");
    bool libcurl = false;
    app.add_flag("--libcurl", libcurl, "reach the agents with libcurl (HttpConfig::direct_loopback = false)");
    app.add_option("--queries", cpu_queries, "queries of the client CPU measurement (default 20000)")
        ->check(CLI::PositiveNumber);
    std::string broker_path =
        std::string(TYPESTAR_SOURCE_DIR) + "/../shared/bench/models/aalpy/MQTT/ActiveMQ__two_client_will_retain.dot";
    app.add_option("--broker", broker_path, "Mealy DOT model of a broker for the client CPU rows broker-run, broker-step "
                                            "(default AALpy's ActiveMQ two-client model; skipped when absent)");
    CLI11_PARSE(app, argc, argv);
    g_direct_loopback = !libcurl;


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

    // Before any thread starts: the agents' processes (a no-op device, the class's closure).
    const std::string noop_token = "bench-noop-token";
    NoopAgent noop = fork_model_agent(noop_token, noop_machine(), "noop");
    const MealyMachine closure = synchronous_closure(expected.typestate);
    NoopAgent model = fork_model_agent(noop_token, closure, expected.typestate.name);
    std::optional<MealyMachine> broker;
    NoopAgent broker_agent;
    const std::string broker_name = std::filesystem::path(broker_path).stem().string();
    if (std::filesystem::exists(broker_path)) {
        broker = spec::load_mealy_dot(broker_path);
        broker_agent = fork_model_agent(noop_token, *broker, broker_name);
    } else {
        std::cout << "note: no broker model at " << broker_path << ": rows broker-run, broker-step skipped\n";
    }
    auto end_noop = [&] {
        for (NoopAgent* a : {&noop, &model, &broker_agent}) {
            if (a->pid < 0) continue;
            close(a->keep_alive);
            int status = 0;
            waitpid(a->pid, &status, 0);
            a->pid = -1;
        }
    };
    if (client_cpu_only) {
        bool same = false;
        nlohmann::json j;
        j["client_cpu"] = client_cpu(noop, model, closure, broker ? &broker_agent : nullptr, broker ? &*broker : nullptr,
                                     broker_name, noop_token, cpu_queries, expected, same);
        j["client_cpu_same_answers"] = same;
        end_noop();
        std::cout << "\n" << j.dump() << "\n";
        if (!json_path.empty() && !typestar::bench::write_json_file(json_path, j)) return 2;
        return same ? 0 : 1;
    }

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
    // A pool asks what one device asks. The paths differ: a simulation declares itself
    // deterministic and is not verified, a device over HTTP is (the flake policy).
    bool same_stats = true;
    for (const auto& r : rows) {
        const Row& first = find(r.path, 1);
        same_stats = same_stats && r.stats.learning == first.stats.learning &&
                     r.stats.equivalence == first.stats.equivalence &&
                     r.stats.verification == first.stats.verification;
    }

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
              << "statistics identical for 1 and " << pool << " devices on each path: " << (same_stats ? "yes" : "NO") << "\n"
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
    bool cpu_same = false;
    j["client_cpu"] = client_cpu(noop, model, closure, broker ? &broker_agent : nullptr, broker ? &*broker : nullptr,
                                 broker_name, noop_token, cpu_queries, expected, cpu_same);
    j["client_cpu_same_answers"] = cpu_same;
    end_noop();
    std::cout << "\n" << j.dump() << "\n";
    if (!json_path.empty() && !typestar::bench::write_json_file(json_path, j)) return 2;
    bool all_match = same_stats && cpu_same;
    for (const auto& r : rows) all_match = all_match && r.matches_spec;
    return all_match ? 0 : 1;
}
