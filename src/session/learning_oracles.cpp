#include "learning_oracles.hpp"

#include <algorithm>
#include <cstdio>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/translate.hpp"

namespace typestar::detail {

std::optional<Counterexample> VerifiedEquivalenceOracle::find_counterexample(const MealyMachine& hypothesis,
                                                  std::span<const Word> access) {
    if (auto cex = inner_->find_counterexample(hypothesis, access)) return cex;
    const auto phase = stack_.counter().enter(Phase::Verification);
    SuiteConfig config = decisive_;
    if (!access.empty()) config.access.assign(access.begin(), access.end());  // the inner's suite
    if (!config.traits) config.traits = stack_.oracle().traits();
    config.shortest_first = false;
    const TestSuite suite = generate_suite(hypothesis, config);
    // Cut after an expected absorbing output (or a learning purpose's denial): nothing after it runs.
    const auto absorbing = config.traits->absorbing;
    const auto outside = absorbing ? stack_.oracle().outputs().find(kOutsidePurpose) : std::nullopt;
    std::vector<Word> cut;
    cut.reserve(suite.cases.size());
    for (const TestCase& c : suite.cases) {
        Word w = c.inputs;
        for (std::size_t k = 0; absorbing && k < w.size() && k < c.expected.size(); ++k)
            if (c.expected[k] == *absorbing || (outside && c.expected[k] == *outside)) {
                w.resize(k + 1);
                break;
            }
        if (!w.empty()) cut.push_back(std::move(w));
    }
    std::sort(cut.begin(), cut.end());
    // The maximal words not re-run before (a prefix of a word sorts right before it or one of its kind).
    std::vector<Word> words;
    for (std::size_t k = 0; k < cut.size(); ++k) {
        const Word& w = cut[k];
        if (k + 1 < cut.size() && is_prefix(w, cut[k + 1])) continue;
        if (ran(w)) continue;
        answers_ += w.size() - (words.empty() ? 0 : common_prefix(words.back(), w));
        words.push_back(w);
    }
    // A word the cache does not hold yet runs twice: its answer, too, is seen two times.
    std::vector<Word> batch;
    batch.reserve(words.size());
    Word scratch;
    for (const Word& w : words) {
        batch.push_back(w);
        scratch.resize(w.size());
        if (!stack_.cache().lookup(w, scratch)) batch.push_back(w);
    }
    ++rounds_;
    words_rerun_ += words.size();
    const std::vector<Word> answers = stack_.cache().rerun(batch);
    std::optional<Counterexample> found;
    for (std::size_t k = 0; k < batch.size(); ++k) {
        if (k > 0 && batch[k] == batch[k - 1]) continue;
        const Word expected = hypothesis.outputs_of(batch[k]);
        if (answers[k] != expected) {
            if (!found) found = Counterexample{batch[k], expected, answers[k], "flake policy: a decisive word run again", {}};
            continue;
        }
        confirmed_.insert(batch[k]);
    }
    return found;
}

namespace {

/// What the decisive suite covers, for the flake note: the machines the guarantee is about.
std::string decisive_scope(const SuiteConfig& decisive) {
    switch (decisive.method) {
        case SuiteMethod::Algorithm2:
            return "the Algorithm 2 suite at B=" + std::to_string(decisive.bound) +
                   ", for every machine whose states are told apart by words of length <= " +
                   std::to_string(decisive.bound);
        case SuiteMethod::W:
        case SuiteMethod::Wp: {
            const std::string name = decisive.method == SuiteMethod::W ? "W" : "Wp";
            if (decisive.state_bound)
                return "the " + name + "-method suite for at most " + std::to_string(*decisive.state_bound) +
                       " states, for every machine with at most " + std::to_string(*decisive.state_bound) + " states";
            return "the " + name + "-method suite for " + std::to_string(decisive.extra_states) +
                   " extra state(s), for every machine with at most " + std::to_string(decisive.extra_states) +
                   " more state(s) than the result";
        }
    }
    return "?";
}

}  // namespace

std::string flake_note(const VerifiedEquivalenceOracle& verified, const SuiteConfig& decisive) {
    if (verified.rounds() == 0) return "";
    const double answers = static_cast<double>(verified.answers());
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.3g%%", std::min(100.0, answers * 0.01));
    return "flake policy: the " + std::to_string(verified.words_rerun()) +
           " decisive word(s) of the result (" + decisive_scope(decisive) +
           ") were run again past the cache and agreed with the first run, so each of their " +
           std::to_string(verified.answers()) +
           " answers was seen in two independent runs; a wrong result needs the same wrong answer twice: if a "
           "run answers wrongly with probability p, the chance of a wrong result within that bound is at most " +
           std::to_string(verified.answers()) + "·p² (p=1%: " + percent + ")";
}

std::string deterministic_note(const std::vector<Device*>& devices) {
    return "flake policy: not run: the device " + devices.front()->name() +
           (devices.size() > 1 ? " (and every other of the pool)" : "") +
           " declares itself deterministic (every run of a word answers alike, e.g. a model or a simulation), so no "
           "answer was re-run past the cache";
}

SeedStatesOracle::SeedStatesOracle(EquivalenceOracle& inner, MembershipOracle& oracle, const MealyMachine& seed)
    : inner_(&inner), oracle_(oracle), seed_(minimize(over_alphabets(seed, oracle.inputs(), oracle.outputs()))) {
    for (auto& a : access_sequences(seed_)) access_.push_back(std::move(a));
}

std::optional<Counterexample> SeedStatesOracle::find_counterexample(const MealyMachine& hypothesis,
                                                  std::span<const Word> access) {
    if (auto cex = inner_->find_counterexample(hypothesis, access)) return cex;
    // Seed states by the hypothesis state their access word reaches.
    std::map<StateId, std::vector<StateId>> merged;
    for (StateId s = 0; s < seed_.num_states(); ++s)
        if (access_[s]) merged[hypothesis.run(*access_[s])].push_back(s);
    std::vector<Word> words;
    std::vector<std::string> purposes;
    for (const auto& [h, states] : merged) {
        for (std::size_t i = 0; i < states.size(); ++i)
            for (std::size_t j = i + 1; j < states.size(); ++j) {
                const auto w = separating(states[i], states[j]);
                if (!w) continue;
                for (const StateId s : {states[i], states[j]}) {
                    Word word = *access_[s];
                    word.insert(word.end(), w->begin(), w->end());
                    words.push_back(std::move(word));
                    purposes.push_back("the seed's states " + seed_.state_name(states[i]) + " and " +
                                       seed_.state_name(states[j]) + " (one state of the hypothesis), told apart by '" +
                                       to_string(*w, seed_.inputs()) + "' in the seed");
                }
            }
    }
    if (words.empty()) return std::nullopt;
    ++rounds_;
    words_run_ += words.size();
    std::vector<Word> answers(words.size());
    std::vector<Query> batch;
    for (std::size_t k = 0; k < words.size(); ++k) {
        answers[k].resize(words[k].size());
        batch.push_back(Query{{}, words[k], answers[k]});
    }
    oracle_.query_all(batch);
    for (std::size_t k = 0; k < words.size(); ++k) {
        const Word expected = hypothesis.outputs_of(words[k]);
        bool same = true;
        for (std::size_t n = 0; n < expected.size() && same; ++n)
            same = hypothesis.outputs().name(expected[n]) == oracle_.outputs().name(answers[k][n]);
        if (!same) return Counterexample{words[k], expected, answers[k], purposes[k], {}};
    }
    return std::nullopt;
}

}  // namespace typestar::detail
