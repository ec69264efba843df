#include "typestar/conformance/runner.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "typestar/core/algorithms.hpp"

namespace typestar {

std::optional<Counterexample> run_suite(const TestSuite& suite, MembershipOracle& oracle, const RunConfig& config) {
    if (suite.inputs.names() != oracle.inputs().names())
        throw std::invalid_argument("the suite's inputs are not the device's (same names in the same order needed)");
    const std::size_t batch_size = std::max<std::size_t>(1, config.batch_size);
    const std::size_t known = std::min(suite.outputs.size(), oracle.outputs().size());
    auto same = [&](Symbol expected, Symbol actual) {
        if (expected == actual && expected < known) return true;
        return suite.outputs.name(expected) == oracle.outputs().name(actual);
    };
    std::vector<Word> answers;
    std::vector<Query> batch;
    for (std::size_t start = 0; start < suite.cases.size(); start += batch_size) {
        const std::size_t end = std::min(suite.cases.size(), start + batch_size);
        answers.assign(end - start, Word{});
        batch.clear();
        for (std::size_t i = start; i < end; ++i) {
            answers[i - start].resize(suite.cases[i].inputs.size());
            batch.push_back(Query{{}, suite.cases[i].inputs, answers[i - start]});
        }
        oracle.query_all(batch);
        for (std::size_t i = start; i < end; ++i) {
            const TestCase& c = suite.cases[i];
            const Word& actual = answers[i - start];
            for (std::size_t j = 0; j < c.inputs.size(); ++j) {
                if (!same(c.expected[j], actual[j]))
                    return Counterexample{c.inputs, c.expected, actual, c.purpose, i};
            }
        }
    }
    return std::nullopt;
}

SuiteEquivalenceOracle::SuiteEquivalenceOracle(MembershipOracle& oracle, SuiteConfig config, RunConfig run)
    : oracle_(oracle), config_(std::move(config)), run_(run) {}

std::optional<Counterexample> SuiteEquivalenceOracle::find_counterexample(const MealyMachine& hypothesis,
                                                                          std::span<const Word> access) {
    SuiteConfig config = config_;
    if (!access.empty()) config.access.assign(access.begin(), access.end());
    if (!config.traits) config.traits = oracle_.traits();
    const TestSuite suite = generate_suite(hypothesis, config);
    last_suite_size_ = suite.cases.size();
    return run_suite(suite, oracle_, run_);
}

std::size_t SuiteEquivalenceOracle::suggested_suffix_length() const {
    return config_.method == SuiteMethod::Algorithm2 ? std::max<std::size_t>(1, config_.bound) : 1;
}

PerfectOracle::PerfectOracle(MealyMachine truth) : truth_(std::move(truth)) {}

std::optional<Counterexample> PerfectOracle::find_counterexample(const MealyMachine& hypothesis,
                                                                 std::span<const Word> /*access*/) {
    const auto word = separating_word(hypothesis, truth_);
    if (!word) return std::nullopt;
    Word truth_inputs;
    truth_inputs.reserve(word->size());
    for (Symbol a : *word) truth_inputs.push_back(truth_.inputs().at(hypothesis.inputs().name(a)));
    const Word truth_outputs = truth_.outputs_of(truth_inputs);
    Word actual;
    actual.reserve(truth_outputs.size());
    for (Symbol o : truth_outputs) {
        const auto id = hypothesis.outputs().find(truth_.outputs().name(o));
        if (!id)
            throw std::invalid_argument("the true model answers '" + truth_.outputs().name(o) +
                                        "', which the hypothesis's outputs lack");
        actual.push_back(*id);
    }
    return Counterexample{*word, hypothesis.outputs_of(*word), std::move(actual), "shortest separating word", std::nullopt};
}

}  // namespace typestar
