#include "typestar/conformance/ra_equivalence.hpp"

#include <spdlog/spdlog.h>

#include "typestar/log/logging.hpp"
#include "typestar/ra/suite.hpp"

namespace typestar {

std::optional<ra::RaCounterexample> RaEquivalenceOracle::find_counterexample(const ra::RegisterAutomaton& hypothesis,
                                                                             std::span<const ra::DataWord> /*access*/) {
    ++queries_;
    const ra::RaSuiteResult suite = ra::check_register_automaton(hypothesis, oracle_, {config_.bound, config_.max_states});
    truncated_ = suite.truncated;
    if (suite.counterexample) return suite.counterexample;
    if (suite.truncated)
        detail::logger("typestar.conformance")
            ->warn("the suite of the hypothesis stopped exploring at {} (location, register order type) pairs: "
                   "partial evidence",
                   config_.max_states);
    return ra::random_difference(oracle_, hypothesis, config_.random_words, config_.random_length,
                                 config_.seed + queries_);
}

std::string RaEquivalenceOracle::description() const {
    std::string out = "the generalised Algorithm 2 suite at B=" + std::to_string(config_.bound) +
                      " (every transition of every (location, register order type) pair, then every data word of up "
                      "to " +
                      std::to_string(config_.bound) + " steps, one per data class)";
    if (config_.random_words > 0)
        out += ", then " + std::to_string(config_.random_words) + " random data words of " +
               std::to_string(config_.random_length) + " steps";
    return out;
}

}  // namespace typestar
