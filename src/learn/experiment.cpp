// The experiment loop is a template (typestar/learn/learner.hpp); this file holds its Mealy
// instance, the Mealy kind's final minimisation and the one progress line of every kind.
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "typestar/core/algorithms.hpp"
#include "typestar/learn/learner.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

void MealyKind::finish(Hypothesis& hypothesis, std::vector<Access>& access) {
    MealyMachine minimal = minimize(hypothesis);
    if (minimal.num_states() < hypothesis.num_states()) {
        access.clear();
        for (auto& a : typestar::access_sequences(minimal)) access.push_back(a.value_or(Word{}));
        hypothesis = std::move(minimal);
    }
}

namespace detail {

void log_round(const std::string& learner, const RoundInfo& info) {
    const auto log = logger("typestar.learn");
    const PhaseCounts total = info.stats.total();
    // Waits are counted only when some ran (a Mealy device without `wait` has none to count).
    log->info("{} round {}: {} states{}{}, {} queries executed ({} asked){}, {:.2f} s; {}", learner, info.round,
              info.states, info.progress.empty() ? "" : ", ", info.progress, total.queries_executed,
              total.queries_asked,
              total.waits_executed > 0 ? ", " + std::to_string(total.waits_executed) + " waits" : std::string(),
              info.seconds,
              info.counterexample ? "counterexample of length " + std::to_string(info.counterexample_length)
                                  : std::string("no counterexample"));
}

}  // namespace detail

template LearnResult run_experiment<MealyKind>(Learner&, KindEquivalenceOracle<MealyKind>&, QueryCounter&,
                                               const ExperimentConfig&);

}  // namespace typestar
