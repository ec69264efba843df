// typestar_learn_targets: learns the real targets from scratch, checks that consecutive runs give
// byte-identical specs, and writes the spec and its typestate picture (DOT).
//
//   typestar_learn_targets [--runs N] [--bound B] [--spec-dir DIR] [--dot-dir DIR] [--check] [TARGET...]
//
// --check compares each result with the committed spec by behaviour (spec::same_behaviour): the
// runs among themselves stay byte for byte.
// Exit codes: 0 all stable (and, with --check, equal to the committed specs), 1 a run differed or a
// committed spec differs, 2 bad arguments or a device error.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "typestar/core/error.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/targets/learning.hpp"
#include "typestar/targets/targets.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    CLI::App app{"Learn the real targets (Boost.Asio steady_timer, TCP socket, SQLite) from scratch"};
    std::size_t runs = 3;
    std::size_t bound = 2;
    std::string spec_dir;
    std::string dot_dir;
    bool check = false;
    std::vector<std::string> keys;
    app.add_option("--runs", runs, "learning runs per target; all must give the same bytes")->check(CLI::Range(1, 100));
    app.add_option("--bound", bound, "distinguisher bound B of Algorithm 2")->check(CLI::Range(1, 4));
    app.add_option("--spec-dir", spec_dir, "write <target>.yaml here");
    app.add_option("--dot-dir", dot_dir, "write the typestate picture <target>.dot here");
    app.add_flag("--check", check, "compare with the committed specs under --spec-dir instead of writing");
    app.add_option("targets", keys, "targets (default: all)");
    CLI11_PARSE(app, argc, argv);
    if (keys.empty())
        for (const auto& t : typestar::targets::real_targets()) keys.push_back(t.key);

    int status = 0;
    for (const auto& key : keys) {
        const auto target = typestar::targets::find_target(key);
        if (!target) {
            std::cerr << "unknown target '" << key << "'\n";
            return 2;
        }
        std::vector<typestar::targets::LearnedTarget> results;
        try {
            for (std::size_t r = 0; r < runs; ++r) {
                results.push_back(typestar::targets::learn_target(target->make(), bound));
                const auto& l = results.back();
                const auto t = l.stats.total();
                std::cout << key << " run " << r + 1 << ": " << l.spec.typestate.states.size() << " states, "
                          << l.rounds << " rounds, " << t.queries_executed << " queries executed ("
                          << l.stats.learning.queries_executed << " learning, " << l.stats.equivalence.queries_executed
                          << " equivalence), " << t.queries_asked << " asked, " << t.symbols_executed << " symbols, "
                          << t.waits_executed << " waits, " << std::fixed << std::setprecision(2) << l.seconds
                          << " s, " << l.contradictions << " contradictions re-run"
                          << (l.converged ? "" : " (NOT converged)") << std::endl;
            }
        } catch (const std::exception& e) {
            std::cerr << key << ": " << e.what() << '\n';
            return 2;
        }
        bool stable = true;
        for (const auto& l : results) stable = stable && l.text == results.front().text;
        std::cout << key << ": " << runs << " runs " << (stable ? "byte-identical" : "DIFFER") << std::endl;
        if (!stable) status = 1;
        const auto& first = results.front();
        if (!spec_dir.empty()) {
            const fs::path path = fs::path(spec_dir) / (key + ".yaml");
            if (check) {
                // By behaviour: the committed spec may be in an older format version than the writer's.
                bool same = false;
                try {
                    same = typestar::spec::same_behaviour(typestar::spec::load_spec(path), first.spec);
                } catch (const std::exception& e) {
                    std::cerr << key << ": " << e.what() << '\n';
                }
                std::cout << key << ": " << (same ? "same behaviour as " : "DIFFERS from ") << path.string() << '\n';
                if (!same) status = 1;
            } else if (stable) {
                typestar::spec::save_spec(first.spec, path);
            }
        }
        if (!dot_dir.empty() && stable && !check)
            typestar::spec::write_file_atomically(fs::path(dot_dir) / (key + ".dot"),
                                                  typestar::spec::write_typestate_dot(first.spec.typestate));
    }
    return status;
}
