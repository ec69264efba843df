// Core algorithms benchmark (issue 12, item 6): times DOT import of counter machines (the worst
// case for round-by-round partition refinement: n states, distinguisher bound n - 1) and the core
// algorithms on counter and seeded random machines, printing a table and, with --json, the same
// rows as JSON. Not a test: it never fails on a slow result, only on a wrong one (a minimised
// counter that is not minimal, a distinguisher bound that is not n - 1) or a crash.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "report.hpp"
#include "support/random_mealy.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"

namespace {

using typestar::MealyMachine;

/// The DOT text of a counter's synchronous closure: states c0..c<n-1>, `inc` answers ok and moves
/// one up, except in the last state where it is refused (err, to the sink); `wait` answers quiet.
/// About 67 bytes per state (a 5,000-state counter is the 335 KB file).
std::string counter_dot(std::size_t n) {
    std::string out = "digraph counter {\n  __start0 [label=\"\" shape=none];\n";
    for (std::size_t i = 0; i < n; ++i) {
        const std::string s = "c" + std::to_string(i);
        if (i + 1 < n)
            out += "  " + s + " -> c" + std::to_string(i + 1) + " [label=\"inc/ok\"];\n";
        else
            out += "  " + s + " -> __err [label=\"inc/err\"];\n";
        out += "  " + s + " -> " + s + " [label=\"wait/quiet\"];\n";
    }
    out += "  __err -> __err [label=\"inc/err\"];\n  __err -> __err [label=\"wait/err\"];\n";
    out += "  __start0 -> c0;\n}\n";
    return out;
}

struct Row {
    std::string machine;
    std::size_t states = 0;
    std::string operation;
    double seconds = 0;
    std::string result;  // a short fact about the result, to show the work was done
};

double time_of(const std::function<std::string()>& work, std::string& result) {
    const auto start = std::chrono::steady_clock::now();
    result = work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void check(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error("wrong result: " + what);
}

/// Times every operation on `m`; `expected_bound` (if not SIZE_MAX) is checked.
void bench_machine(const std::string& label, const MealyMachine& m, std::size_t expected_bound,
                   std::size_t characterizing_limit, std::vector<Row>& rows) {
    auto add = [&](const std::string& op, const std::function<std::string()>& work) {
        Row row{label, m.num_states(), op, 0, {}};
        row.seconds = time_of(work, row.result);
        std::printf("%-10s %7zu  %-22s %10.4f s  %s\n", row.machine.c_str(), row.states, op.c_str(),
                    row.seconds, row.result.c_str());
        std::fflush(stdout);
        rows.push_back(row);
    };
    add("minimize", [&] {
        const auto q = typestar::minimize(m);
        check(q.num_states() == m.num_states(), "minimize merged states of a minimal machine");
        return std::to_string(q.num_states()) + " states";
    });
    add("equivalence_classes", [&] {
        const auto c = typestar::equivalence_classes(m);
        return std::to_string(*std::max_element(c.begin(), c.end()) + 1) + " classes";
    });
    add("distinguisher_bound", [&] {
        const auto b = typestar::distinguisher_bound(m);
        check(b.has_value(), "distinguisher bound of a minimal machine");
        if (expected_bound != SIZE_MAX) check(*b == expected_bound, "distinguisher bound");
        return "bound " + std::to_string(*b);
    });
    add("access_sequences", [&] {
        const auto a = typestar::access_sequences(m);
        std::size_t total = 0;
        for (const auto& w : a) total += w ? w->size() : 0;
        return std::to_string(total) + " symbols in all";
    });
    add("separating_word(0,1)", [&] {
        const auto w = typestar::separating_word(m, 0, 1);
        check(w.has_value(), "states 0 and 1 are inequivalent");
        return "length " + std::to_string(w->size());
    });
    if (m.num_states() <= characterizing_limit) {
        add("characterizing_set", [&] {
            const auto w = typestar::characterizing_set(m);
            std::size_t total = 0;
            for (const auto& x : w) total += x.size();
            return std::to_string(w.size()) + " words, " + std::to_string(total) + " symbols";
        });
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"typestar core algorithms benchmark"};
    std::vector<std::size_t> counter_sizes{1000, 5000, 20000};
    std::vector<std::size_t> random_sizes{1000, 20000};
    std::size_t characterizing_limit = 5000;
    std::string json_file;
    app.add_option("--counter", counter_sizes, "counter machine sizes (DOT import and algorithms)");
    app.add_option("--random", random_sizes, "seeded random machine sizes (4 inputs, 3 outputs)");
    app.add_option("--characterizing-limit", characterizing_limit,
                   "time characterizing_set only up to this many states");
    app.add_option("--json", json_file, "also write the rows as JSON to this file");
    CLI11_PARSE(app, argc, argv);

    std::vector<Row> rows;
    std::printf("%-10s %7s  %-22s %12s  %s\n", "machine", "states", "operation", "time", "result");
    try {
        for (const std::size_t n : counter_sizes) {
            const std::string text = counter_dot(n);
            std::string result;
            MealyMachine closure = typestar::spec::parse_mealy_dot(text, "counter.dot");
            Row parse{"counter", n + 1, "parse_mealy_dot", 0, {}};
            parse.seconds = time_of(
                [&] {
                    closure = typestar::spec::parse_mealy_dot(text, "counter.dot");
                    return std::to_string(text.size() / 1024) + " KB";
                },
                parse.result);
            std::printf("%-10s %7zu  %-22s %10.4f s  %s\n", "counter", n + 1, "parse_mealy_dot", parse.seconds,
                        parse.result.c_str());
            rows.push_back(parse);
            Row import{"counter", n + 1, "import (spec_of_mealy)", 0, {}};
            import.seconds = time_of(
                [&] {
                    const auto spec = typestar::spec::spec_of_mealy(closure, "counter");
                    check(spec.bounds.distinguisher == std::max<std::size_t>(1, n - 1), "imported distinguisher bound");
                    return std::to_string(spec.typestate.states.size()) + " states, B " +
                           std::to_string(spec.bounds.distinguisher);
                },
                import.result);
            std::printf("%-10s %7zu  %-22s %10.4f s  %s\n", "counter", n + 1, "import (spec_of_mealy)",
                        import.seconds, import.result.c_str());
            std::fflush(stdout);
            rows.push_back(import);
            bench_machine("counter", closure, std::max<std::size_t>(1, n - 1), characterizing_limit, rows);
        }
        for (const std::size_t n : random_sizes) {
            const auto m = typestar::testing_support::random_mealy(n, 4, 3, 12);
            bench_machine("random", m, SIZE_MAX, characterizing_limit, rows);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "core bench failed: %s\n", e.what());
        return 1;
    }
    if (!json_file.empty()) {
        nlohmann::ordered_json j = nlohmann::ordered_json::array();
        for (const auto& r : rows)
            j.push_back({{"machine", r.machine}, {"states", r.states}, {"operation", r.operation},
                         {"seconds", r.seconds}, {"result", r.result}});
        if (!typestar::bench::write_json_file(json_file, j)) return 2;
    }
    return 0;
}
