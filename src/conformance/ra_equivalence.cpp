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
    // Cheap first: the words of up to B steps from the learner's access words, then random words;
    // a counterexample is usually among them (and they are what learning asked before issue 23).
    const std::vector<ra::DataWord> starts(access.begin(), access.end());
    if (auto cex = ra::find_difference(oracle_, hypothesis, starts, config_.bound)) return cex;
    if (auto cex = ra::random_difference(oracle_, hypothesis, config_.random_words, config_.random_length,
                                         config_.seed + queries_))
        return cex;
    if (!config_.suite) return std::nullopt;
    // Then what `typestar check --bound B` runs: a result that converged passes that check.
    const ra::RaSuiteResult suite = ra::check_register_automaton(hypothesis, oracle_, {config_.bound, config_.max_states});
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
    std::string out = "every data word of up to " + b + " steps from each location, one per data class";
    if (config_.random_words > 0)
        out += ", " + std::to_string(config_.random_words) + " random data words of " +
               std::to_string(config_.random_length) + " steps";
    if (!config_.suite) return out;
    return out + ", and the generalised Algorithm 2 suite at B=" + b +
           " (every transition of every (location, register order type) pair, then every data word of up to " + b +
           " steps)";
}

}  // namespace typestar
