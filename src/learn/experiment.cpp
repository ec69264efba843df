#include <chrono>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/learn/learner.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

namespace {

bool refutes(const MealyMachine& hypothesis, const Counterexample& cex) {
    return hypothesis.outputs_of(cex.inputs) != cex.actual;
}

}  // namespace

LearnResult run_experiment(Learner& learner, EquivalenceOracle& equivalence, QueryCounter& counter,
                           const ExperimentConfig& config) {
    const auto log = detail::logger("typestar.learn");
    const auto started = std::chrono::steady_clock::now();
    learner.prepare_for(equivalence.suggested_suffix_length());
    {
        const auto phase = counter.enter(Phase::Learning);
        learner.start();
        if (config.counterexample) {
            const Counterexample& cex = *config.counterexample;
            while (refutes(learner.hypothesis(), cex))
                if (!learner.refine(cex))
                    throw Error("the " + learner.name() + " learner could not use the given counterexample of length " +
                                std::to_string(cex.inputs.size()));
        }
    }
    std::size_t rounds = 0;
    while (true) {
        MealyMachine hypothesis = learner.hypothesis();
        std::vector<Word> access = learner.access_sequences();
        if (config.max_rounds != 0 && rounds >= config.max_rounds) {
            return LearnResult{std::move(hypothesis), std::move(access), rounds, false, counter.stats()};
        }
        ++rounds;
        std::optional<Counterexample> cex;
        {
            const auto phase = counter.enter(Phase::Equivalence);
            counter.count_round();
            cex = equivalence.find_counterexample(hypothesis, access);
        }
        RoundInfo info;
        info.round = rounds;
        info.states = hypothesis.num_states();
        info.progress = learner.progress();
        info.counterexample = cex.has_value();
        info.counterexample_length = cex ? cex->inputs.size() : 0;
        info.stats = counter.stats();
        info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        const PhaseCounts total = info.stats.total();
        log->info("{} round {}: {} states{}{}, {} queries executed ({} asked), {} waits, {:.2f} s; {}", learner.name(),
                  info.round, info.states, info.progress.empty() ? "" : ", ", info.progress, total.queries_executed,
                  total.queries_asked, total.waits_executed, info.seconds,
                  cex ? "counterexample of length " + std::to_string(cex->inputs.size())
                      : std::string("no counterexample"));
        if (config.on_round) config.on_round(info);
        if (!cex) {
            // A learner may keep apart states the device does not tell apart (e.g. cells predicted by
            // a seed): report the minimal machine.
            MealyMachine minimal = minimize(hypothesis);
            if (minimal.num_states() < hypothesis.num_states()) {
                access.clear();
                for (auto& a : access_sequences(minimal)) access.push_back(a.value_or(Word{}));
                hypothesis = std::move(minimal);
            }
            return LearnResult{std::move(hypothesis), std::move(access), rounds, true, counter.stats()};
        }
        if (!refutes(hypothesis, *cex))
            throw Error("the equivalence oracle returned a word on which the hypothesis is right");
        // Use the counterexample for as long as it refutes the hypothesis (no new oracle question).
        const auto phase = counter.enter(Phase::Learning);
        do {
            if (!learner.refine(*cex))
                throw Error("the " + learner.name() + " learner could not use a counterexample of length " +
                            std::to_string(cex->inputs.size()) + " (the device answers inconsistently?)");
        } while (refutes(learner.hypothesis(), *cex));
    }
}

}  // namespace typestar
