#include "typestar/conformance/exploration.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

#include "typestar/core/algorithms.hpp"
#include "typestar/log/logging.hpp"

#include <spdlog/spdlog.h>

namespace typestar {

namespace {

/// A draw in [0, n) from the engine; `%` rather than std::uniform_int_distribution, whose results
/// differ between standard libraries (a spec must not depend on the compiler). n > 0.
std::size_t draw(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(rng() % n); }

}  // namespace

TestSuite exploration_suite(const MealyMachine& model, const ExplorationConfig& config) {
    TestSuite suite;
    suite.inputs = model.inputs();
    suite.outputs = model.outputs();
    suite.method = SuiteMethod::Wp;  // the closest named method: words ending in a characterizing set
    suite.bound = 0;
    if (config.words_per_transition == 0 || model.num_states() == 0 || model.num_inputs() == 0) return suite;

    // One access word per state: the given ones (each must reach its state), else the shortest ones
    // (an unreachable state has none and is not explored).
    std::vector<Word> access = config.access;
    std::vector<char> reachable(model.num_states(), 0);
    if (access.empty()) {
        const auto shortest = access_sequences(model);
        for (StateId q = 0; q < model.num_states(); ++q) {
            access.push_back(shortest[q].value_or(Word{}));
            reachable[q] = shortest[q].has_value() ? 1 : 0;
        }
    } else {
        for (StateId q = 0; q < model.num_states() && q < access.size(); ++q) {
            if (model.run(access[q]) != q)
                throw std::invalid_argument("exploration: the access word of state " + std::to_string(q) +
                                            " does not reach it");
            reachable[q] = 1;
        }
    }

    const std::vector<Word> w = characterizing_set(model);
    const std::optional<Symbol> absorbing = config.traits ? config.traits->absorbing : std::nullopt;
    const std::size_t max_walk =
        config.max_walk != 0 ? config.max_walk : 4 * std::max<std::size_t>(8, model.num_states());
    // How often each state was entered by a walk step of this search (the coverage the bias evens out).
    std::vector<std::size_t> visits(model.num_states(), 0);
    std::size_t states = 0;
    for (StateId q = 0; q < model.num_states(); ++q) states += reachable[q] ? 1 : 0;
    const std::size_t per_state = std::max(config.words_per_transition * model.num_inputs(),
                                           (config.min_words + states - 1) / std::max<std::size_t>(1, states));
    std::mt19937_64 rng(config.seed);
    std::vector<Symbol> allowed;
    for (StateId q = 0; q < model.num_states(); ++q) {
        if (!reachable[q]) continue;
        // An absorbing state (every input answers the absorbing output) has nothing to explore.
        if (absorbing) {
            bool open = false;
            for (Symbol i = 0; i < model.num_inputs() && !open; ++i) open = model.output(q, i) != *absorbing;
            if (!open) continue;
        }
        for (std::size_t k = 0; k < per_state; ++k) {
            Word word = access[q];
            StateId at = q;
            const std::size_t walk = 1 + draw(rng, max_walk);
            for (std::size_t step = 0; step < walk; ++step) {
                allowed.clear();
                for (Symbol i = 0; i < model.num_inputs(); ++i)
                    if (!absorbing || model.output(at, i) != *absorbing) allowed.push_back(i);
                if (allowed.empty()) break;
                // State coverage: mostly an input whose successor this search entered least (ties
                // drawn at random), so walks leave the states every word passes through and reach
                // the rarely visited ones, where a merged state hides; else any input, so that
                // inputs the hypothesis thinks change nothing (self-loops) are walked too.
                if (draw(rng, 100) < config.coverage_percent) {
                    std::size_t least = SIZE_MAX;
                    for (Symbol a : allowed) least = std::min(least, visits[model.successor(at, a)]);
                    std::erase_if(allowed, [&](Symbol a) { return visits[model.successor(at, a)] != least; });
                }
                const Symbol i = allowed[draw(rng, allowed.size())];
                ++visits[model.successor(at, i)];
                word.push_back(i);
                at = model.successor(at, i);
            }
            if (!w.empty()) {
                const Word& suffix = w[draw(rng, w.size())];
                word.insert(word.end(), suffix.begin(), suffix.end());
            }
            TestCase c;
            c.expected = model.outputs_of(word);
            c.inputs = std::move(word);
            c.purpose = "exploration from state " + model.state_name(q);
            suite.cases.push_back(std::move(c));
        }
    }
    finalize_cases(suite.cases, absorbing);
    std::stable_sort(suite.cases.begin(), suite.cases.end(),
                     [](const TestCase& a, const TestCase& b) { return a.inputs.size() < b.inputs.size(); });
    return suite;
}

ExploringEquivalenceOracle::ExploringEquivalenceOracle(EquivalenceOracle& inner, MembershipOracle& oracle,
                                                       ExplorationConfig config, RunConfig run)
    : inner_(&inner), oracle_(oracle), config_(std::move(config)), run_(run) {}

std::optional<Counterexample> ExploringEquivalenceOracle::find_counterexample(const MealyMachine& hypothesis,
                                                                            std::span<const Word> access) {
    if (auto cex = inner_->find_counterexample(hypothesis, access)) return cex;
    if (config_.words_per_transition == 0) return std::nullopt;
    ExplorationConfig config = config_;
    config.access.assign(access.begin(), access.end());
    if (!config.traits) config.traits = oracle_.traits();
    // New words for every search: the seed advances with each hypothesis searched.
    config.seed = config_.seed + 0x9E3779B97F4A7C15ULL * (record_.searches + 1);
    ++record_.searches;
    const TestSuite suite = exploration_suite(hypothesis, config);
    auto found = run_suite(suite, oracle_, run_);
    if (found) {
        ++record_.counterexamples;
        found->purpose = "search beyond the bound: " + found->purpose;
        detail::logger("typestar.conformance")
            ->info("the search beyond the bound found a counterexample of length {} ({} states in the hypothesis)",
                   found->inputs.size(), hypothesis.num_states());
        return found;
    }
    record_.words = suite.cases.size();
    record_.longest = 0;
    for (const TestCase& c : suite.cases) record_.longest = std::max(record_.longest, c.inputs.size());
    return std::nullopt;
}

}  // namespace typestar
