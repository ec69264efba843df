// Internal to the session: the equivalence oracles learn_on puts around the inner one — the flake
// policy's second look at the decisive words (VerifiedEquivalenceOracle) and the check of a seed's
// own distinctions (SeedStatesOracle) — and the notes that say what the flake policy ran.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "typestar/conformance/suite.hpp"
#include "typestar/core/mealy.hpp"
#include "typestar/sul/device.hpp"
#include "typestar/sul/equivalence.hpp"
#include "typestar/sul/oracle.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar::detail {

/// The flake policy (docs/spec-format.md, "Rare flakes"): a hypothesis the inner oracle finds no
/// counterexample to is judged once more on fresh answers. The decisive words are the equivalence
/// suite the hypothesis passed — Algorithm 2 at B, or W/Wp with their extra states (with a perfect
/// oracle, the Wp-method suite for no extra state) — each cut after an expected absorbing output
/// (the device stops there) and reduced to the maximal ones; they run once more past the cache as one
/// batch (CacheOracle::rerun: over the pool; an answer the cache contradicts is NondeterminismError
/// naming the word). So every answer the verdict relies on, including the ones that made two
/// observations one state, was seen in two independent runs that agreed; a word the cache did not
/// hold runs twice. A fresh answer that refutes the hypothesis is its counterexample. A word re-run
/// once (or a prefix of one) is never re-run for a later hypothesis.
class VerifiedEquivalenceOracle final : public EquivalenceOracle {
public:
    VerifiedEquivalenceOracle(EquivalenceOracle& inner, OracleStack& stack, SuiteConfig decisive)
        : inner_(&inner), stack_(stack), decisive_(std::move(decisive)) {}
    void set_inner(EquivalenceOracle& inner, SuiteConfig decisive) {
        inner_ = &inner;
        decisive_ = std::move(decisive);
    }

    std::optional<Counterexample> find_counterexample(const MealyMachine& hypothesis,
                                                      std::span<const Word> access) override;
    std::size_t suggested_suffix_length() const override { return inner_->suggested_suffix_length(); }

    /// Verification rounds run (hypotheses checked past the cache), words re-run in all, and the
    /// answers (distinct prefixes of those words) each seen in two runs.
    std::size_t rounds() const noexcept { return rounds_; }
    std::size_t words_rerun() const noexcept { return words_rerun_; }
    std::size_t answers() const noexcept { return answers_; }
    /// Whether `word` is a prefix of a word re-run past the cache that agreed with its hypothesis.
    bool ran(const Word& word) const {
        const auto it = confirmed_.lower_bound(word);
        return it != confirmed_.end() && is_prefix(word, *it);
    }

private:
    static bool is_prefix(const Word& a, const Word& b) {
        return b.size() >= a.size() && std::equal(a.begin(), a.end(), b.begin());
    }
    static std::size_t common_prefix(const Word& a, const Word& b) {
        std::size_t n = 0;
        while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
        return n;
    }

    EquivalenceOracle* inner_;
    OracleStack& stack_;
    SuiteConfig decisive_;
    std::set<Word> confirmed_;
    std::size_t rounds_ = 0, words_rerun_ = 0, answers_ = 0;
};

/// "flake policy: the N decisive word(s) of the result (...) were run again ...", or empty when no
/// verification round ran.
[[nodiscard]] std::string flake_note(const VerifiedEquivalenceOracle& verified, const SuiteConfig& decisive);

/// The flake note of a run whose devices all declare themselves deterministic (Device::deterministic).
[[nodiscard]] std::string deterministic_note(const std::vector<Device*>& devices);

/// What a seed's states are worth (LearnOptions::seed, e.g. the stored spec a proposal re-learns):
/// a hypothesis the inner oracle finds no counterexample to is checked against the seed's own
/// distinctions. Every two seed states whose access words (in the seed) reach one hypothesis state
/// are run with the seed's shortest word telling them apart, access(p)·w and access(q)·w, through
/// the stack (the cache answers what ran before); an answer the hypothesis does not predict is its
/// counterexample. So a seed state merges with another only when the device no longer tells them
/// apart by the words that told them apart in the seed.
class SeedStatesOracle final : public EquivalenceOracle {
public:
    SeedStatesOracle(EquivalenceOracle& inner, MembershipOracle& oracle, const MealyMachine& seed);
    void set_inner(EquivalenceOracle& inner) noexcept { inner_ = &inner; }

    std::optional<Counterexample> find_counterexample(const MealyMachine& hypothesis,
                                                      std::span<const Word> access) override;
    std::size_t suggested_suffix_length() const override { return inner_->suggested_suffix_length(); }

    /// The checks that ran and the words they ran.
    std::size_t rounds() const noexcept { return rounds_; }
    std::size_t words_run() const noexcept { return words_run_; }

private:
    std::optional<Word> separating(StateId p, StateId q) {
        const auto key = std::make_pair(std::min(p, q), std::max(p, q));
        auto it = separating_.find(key);
        if (it == separating_.end()) it = separating_.emplace(key, separating_word(seed_, p, q)).first;
        return it->second;
    }

    EquivalenceOracle* inner_;
    MembershipOracle& oracle_;
    MealyMachine seed_;
    std::vector<std::optional<Word>> access_;
    std::map<std::pair<StateId, StateId>, std::optional<Word>> separating_;
    std::size_t rounds_ = 0, words_run_ = 0;
};

}  // namespace typestar::detail
