#include "typestar/conformance/runner.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar {

namespace {

/// Runs the cases `next` yields, `batch_size` at a time, and returns the first that fails. `next`
/// returns false when there are no more; `cases_run` counts the cases handed to the oracle.
template <class Next>
std::optional<Counterexample> run_cases(const Alphabet& suite_inputs, const Alphabet& suite_outputs, Next&& next,
                                        MembershipOracle& oracle, const RunConfig& config, std::size_t& cases_run) {
    if (suite_inputs.names() != oracle.inputs().names())
        throw std::invalid_argument("the suite's inputs are not the device's (same names in the same order needed)");
    const std::size_t batch_size = std::max<std::size_t>(1, config.batch_size);
    const std::size_t known = std::min(suite_outputs.size(), oracle.outputs().size());
    auto same = [&](Symbol expected, Symbol actual) {
        if (expected == actual && expected < known) return true;
        return suite_outputs.name(expected) == oracle.outputs().name(actual);
    };
    const auto outside = config.outside_purpose != nullptr ? oracle.outputs().find(kOutsidePurpose) : std::nullopt;
    std::vector<TestCase> cases;
    std::vector<Word> answers;
    std::vector<Query> batch;
    cases_run = 0;
    for (bool more = true; more;) {
        cases.clear();
        while (cases.size() < batch_size) {
            TestCase c;
            if (!next(c)) {
                more = false;
                break;
            }
            cases.push_back(std::move(c));
        }
        if (cases.empty()) break;
        answers.assign(cases.size(), Word{});
        batch.clear();
        for (std::size_t i = 0; i < cases.size(); ++i) {
            answers[i].resize(cases[i].inputs.size());
            batch.push_back(Query{{}, cases[i].inputs, answers[i]});
        }
        oracle.query_all(batch);
        const std::size_t start = cases_run;
        cases_run += cases.size();
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const TestCase& c = cases[i];
            const Word& actual = answers[i];
            for (std::size_t j = 0; j < c.inputs.size(); ++j) {
                if (same(c.expected[j], actual[j])) continue;
                // Not the class's answer where the suite says it refuses: untested from here. Where
                // the suite expects ok or a callback, the device is not where the suite says.
                if (outside && actual[j] == *outside && suite_outputs.name(c.expected[j]) == kErr) {
                    config.outside_purpose->emplace_back(c.inputs.begin(), c.inputs.begin() + static_cast<std::ptrdiff_t>(j) + 1);
                    break;
                }
                return Counterexample{c.inputs, c.expected, actual, c.purpose, start + i};
            }
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<Counterexample> run_suite(const TestSuite& suite, MembershipOracle& oracle, const RunConfig& config) {
    std::size_t i = 0;
    std::size_t cases_run = 0;
    return run_cases(
        suite.inputs, suite.outputs,
        [&](TestCase& c) {
            if (i == suite.cases.size()) return false;
            c = suite.cases[i++];
            return true;
        },
        oracle, config, cases_run);
}

std::optional<Counterexample> run_suite(SuiteGenerator& suite, MembershipOracle& oracle, const RunConfig& config,
                                        std::size_t* cases_run) {
    std::size_t run = 0;
    auto result = run_cases(
        suite.inputs(), suite.outputs(),
        [&](TestCase& c) {
            auto next = suite.next();
            if (!next) return false;
            c = std::move(*next);
            return true;
        },
        oracle, config, run);
    if (cases_run != nullptr) *cases_run = run;
    return result;
}

SuiteEquivalenceOracle::SuiteEquivalenceOracle(MembershipOracle& oracle, SuiteConfig config, RunConfig run)
    : oracle_(oracle), config_(std::move(config)), run_(run) {}

std::optional<Counterexample> SuiteEquivalenceOracle::find_counterexample(const MealyMachine& hypothesis,
                                                                          std::span<const Word> access) {
    SuiteConfig config = config_;
    if (!access.empty()) config.access.assign(access.begin(), access.end());
    if (!config.traits) config.traits = oracle_.traits();
    if (config.chained && config.method == SuiteMethod::Algorithm2) {
        // Chained: the words earlier calls ran come first (the cache answers them) and count.
        config.prior = ran_;
        const TestSuite suite = generate_suite(hypothesis, config);
        auto found = run_suite(suite, oracle_, run_);
        const std::size_t batch = std::max<std::size_t>(1, run_.batch_size);
        last_suite_size_ = found && found->test_case
                               ? std::min(suite.cases.size(), (*found->test_case / batch + 1) * batch)
                               : suite.cases.size();
        ran_.clear();
        for (std::size_t i = 0; i < last_suite_size_; ++i) ran_.push_back(suite.cases[i].inputs);
        return found;
    }
    SuiteGenerator suite(hypothesis, config);  // streamed: a counterexample ends generation too
    return run_suite(suite, oracle_, run_, &last_suite_size_);
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
