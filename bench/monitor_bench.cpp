// What this measures: how many events per second a typestar::Monitor checks (MediaPlayer spec),
// single-threaded and with 4 threads, so that leaving it on in every unit test is an informed choice.
// Usage: monitor_bench [events_per_thread] [spec.yaml]. Prints a table, then one JSON object.
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "typestar/spec/monitor.hpp"
#include "typestar/monitor/monitor.hpp"
#include "typestar/spec/spec.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Row {
    std::string name;
    unsigned threads = 1;
    std::uint64_t events = 0;
    double seconds = 0;
    [[nodiscard]] double per_second() const { return seconds > 0 ? static_cast<double>(events) / seconds : 0; }
};

// A cycle of the MediaPlayer typestate that ends where it starts (Idle).
const std::vector<std::pair<bool, std::string>> kCycle = {
    {true, "setDataSource"}, {true, "prepareAsync"}, {false, "onPrepared"}, {true, "start"},
    {true, "pause"},         {true, "start"},        {false, "onCompletion"}, {true, "stop"},
    {true, "reset"},
};

std::vector<typestar::Event> cycle_events(const typestar::MonitorModel& model) {
    std::vector<typestar::Event> out;
    for (const auto& [is_callin, name] : kCycle) out.push_back(is_callin ? model.callin(name) : model.callback(name));
    return out;
}

template <class Body>
double timed(Body body) {
    const auto start = Clock::now();
    body();
    return std::chrono::duration<double>(Clock::now() - start).count();
}

Row single_ids(const std::shared_ptr<const typestar::MonitorModel>& model, std::uint64_t n) {
    typestar::Monitor monitor(model, typestar::MonitorOptions{.trace_limit = 4096});
    const auto events = cycle_events(*model);
    const double s = timed([&] {
        for (std::uint64_t i = 0; i < n; ++i) monitor.observe(events[i % events.size()]);
    });
    if (!monitor.ok()) throw std::runtime_error("bench: unexpected violation");
    return {"1 thread, ids (fast path)", 1, n, s};
}

Row single_names(const std::shared_ptr<const typestar::MonitorModel>& model, std::uint64_t n) {
    typestar::Monitor monitor(model, typestar::MonitorOptions{.trace_limit = 4096});
    const double s = timed([&] {
        for (std::uint64_t i = 0; i < n; ++i) {
            const auto& [is_callin, name] = kCycle[i % kCycle.size()];
            if (is_callin) monitor.callin(name);
            else monitor.callback(name);
        }
    });
    if (!monitor.ok()) throw std::runtime_error("bench: unexpected violation");
    return {"1 thread, names", 1, n, s};
}

Row single_violations(const std::shared_ptr<const typestar::MonitorModel>& model, std::uint64_t n) {
    // Every event refused (start in Idle): the slow path that builds a Violation.
    typestar::Monitor monitor(model, typestar::MonitorOptions{.trace_limit = 4096});
    const auto start = model->callin("start");
    const double s = timed([&] {
        for (std::uint64_t i = 0; i < n; ++i) monitor.observe(start);
    });
    return {"1 thread, every event a violation", 1, n, s};
}

Row shared_monitor(const std::shared_ptr<const typestar::MonitorModel>& model, std::uint64_t n, unsigned threads) {
    // One monitor, `threads` threads hammering a self-loop (seekTo in Started): contention on its mutex.
    typestar::Monitor monitor(model, typestar::MonitorOptions{.trace_limit = 4096});
    for (const auto* c : {"setDataSource", "prepare", "start"}) monitor.callin(c);
    const auto seek = model->callin("seekTo");
    const double s = timed([&] {
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads; ++t)
            pool.emplace_back([&] {
                for (std::uint64_t i = 0; i < n; ++i) monitor.observe(seek);
            });
        for (auto& th : pool) th.join();
    });
    if (!monitor.ok()) throw std::runtime_error("bench: unexpected violation");
    return {std::to_string(threads) + " threads, one shared monitor", threads, n * threads, s};
}

Row own_monitors(const std::shared_ptr<const typestar::MonitorModel>& model, std::uint64_t n, unsigned threads) {
    // One monitor per thread (one per test, or per framework object): no contention.
    bool ok = true;
    const double s = timed([&] {
        std::vector<std::thread> pool;
        std::vector<char> oks(threads, 1);
        for (unsigned t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                typestar::Monitor monitor(model, typestar::MonitorOptions{.trace_limit = 4096});
                const auto events = cycle_events(*model);
                for (std::uint64_t i = 0; i < n; ++i) monitor.observe(events[i % events.size()]);
                oks[t] = monitor.ok() ? 1 : 0;
            });
        for (auto& th : pool) th.join();
        for (const char o : oks) ok = ok && o;
    });
    if (!ok) throw std::runtime_error("bench: unexpected violation");
    return {std::to_string(threads) + " threads, a monitor each", threads, n * threads, s};
}

}  // namespace

int main(int argc, char** argv) {
    const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
    const std::string path = argc > 2 ? argv[2] : TYPESTAR_SOURCE_DIR "/specs/mediaplayer.yaml";
    try {
        const auto model = typestar::spec::monitor_model_of(typestar::spec::load_spec(path));
        std::vector<Row> rows;
        rows.push_back(single_ids(model, n));
        rows.push_back(single_names(model, n));
        rows.push_back(single_violations(model, n / 20));
        rows.push_back(shared_monitor(model, n, 4));
        rows.push_back(own_monitors(model, n, 4));

        std::cout << std::left << std::setw(36) << "case" << std::right << std::setw(8) << "threads" << std::setw(12)
                  << "events" << std::setw(10) << "seconds" << std::setw(16) << "events/s" << "\n";
        for (const auto& r : rows)
            std::cout << std::left << std::setw(36) << r.name << std::right << std::setw(8) << r.threads << std::setw(12)
                      << r.events << std::setw(10) << std::fixed << std::setprecision(3) << r.seconds << std::setw(16)
                      << std::setprecision(0) << r.per_second() << "\n";
        std::ostringstream json;
        json << std::fixed;
        json << "{\"bench\":\"monitor\",\"spec\":\"" << model->name() << "\",\"hardware_threads\":"
             << std::thread::hardware_concurrency() << ",\"cases\":[";
        for (std::size_t i = 0; i < rows.size(); ++i)
            json << (i ? "," : "") << "{\"case\":\"" << rows[i].name << "\",\"threads\":" << rows[i].threads
                 << ",\"events\":" << rows[i].events << ",\"seconds\":" << std::setprecision(6) << rows[i].seconds
                 << ",\"events_per_second\":" << std::setprecision(0) << rows[i].per_second() << "}";
        json << "]}";
        std::cout << json.str() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "monitor_bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
