#include "typestar/conformance/ra_equivalence.hpp"

#include <vector>

#include <spdlog/spdlog.h>

#include "typestar/log/logging.hpp"
#include "typestar/ra/suite.hpp"

namespace typestar {

std::optional<ra::RaCounterexample> RaEquivalenceOracle::find_counterexample(const ra::RegisterAutomaton& hypothesis,
                                                                             std::span<const ra::DataWord> access) {
    ++queries_;
    truncated_ = false;
    // Cheap first: the search guided by the hypothesis; a counterexample is usually among its words.
    const std::vector<ra::DataWord> starts(access.begin(), access.end());
    if (auto cex = ra::search_difference(oracle_, hypothesis, starts,
                                         {.depth = config_.bound,
                                          .words_per_transition = config_.words_per_transition,
                                          .min_words = config_.min_random_words,
                                          .random_words = config_.random_words,
                                          .random_length = config_.random_length,
                                          .seed = config_.seed + queries_}))
        return cex;
    if (!config_.suite) return std::nullopt;
    // Then what `typestar check --bound B` runs: a result that converged passes that check.
    const std::uint64_t before = oracle_.stats().total().queries_executed;
    const ra::RaSuiteResult suite = ra::check_register_automaton(hypothesis, oracle_, {config_.bound, config_.max_states});
    certification_executed_ += oracle_.stats().total().queries_executed - before;
    truncated_ = suite.truncated;
    if (!suite.counterexample && suite.truncated)
        detail::logger("typestar.conformance")
            ->warn("the suite of the hypothesis stopped exploring at {} (location, register order type) pairs: "
                   "partial evidence",
                   config_.max_states);
    return suite.counterexample;
}

std::string RaEquivalenceOracle::description() const {
    const std::string b = std::to_string(config_.bound);
    std::string out = "every data word of up to " + b + " steps from each location in the data classes of the "
                      "hypothesis's guards";
    if (config_.random_words > 0 && config_.words_per_transition > 0)
        out += ", " + std::to_string(config_.words_per_transition) + " random data words per transition (at least " +
               std::to_string(std::min(config_.min_random_words, config_.random_words)) + ", at most " +
               std::to_string(config_.random_words) + ") of up to " + std::to_string(config_.random_length) +
               " steps, shortest first";
    if (!config_.suite) return out;
    return out + ", and the generalised Algorithm 2 suite at B=" + b +
           " (every transition of every (location, register order type) pair, then every data word of up to " + b +
           " steps)";
}

}  // namespace typestar
