// L#: the rules that ask adaptive distinguishing sequences computed on the tree — extension
// (LSharpExtension::Ads) and separation (LSharpSeparation::Ads) — and the ADS path itself (lsharp.hpp).
#include "lsharp_impl.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/translate.hpp"

namespace typestar {

using lsharp_detail::concat;
using lsharp_detail::kAdsSample;
using lsharp_detail::kSharedLength;

Word LSharp::Impl::extension_suffix(std::uint32_t b, Symbol a) {
    if (basis_.size() < 2 || config_.extension == LSharpExtension::Plain) return {};
    if (config_.extension != LSharpExtension::Ads) return basis_witness(b, b == 0 ? 1 : 0);
    std::vector<std::uint32_t> all(basis_.size());
    for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    if (basis_.size() <= config_.ads_limit) {
        // The branch to follow: where the seed, else the last hypothesis, says the transition leads
        // (the new basis state stood for a hypothesis state as a frontier node: its successor there).
        std::optional<StateId> predicted;
        if (seed_ && basis_seed_[b]) predicted = seed_->successor(*basis_seed_[b], a);
        if (!seed_ && hypothesis_) predicted = hypothesis_->successor(hypothesis_->run(access_[b]), a);
        return ads_path(all, std::nullopt, predicted);
    }
    // A large basis: one ADS path over all of it, computed again only when the basis has grown by a
    // quarter (every new state then shares one suffix, so extension stays linear overall).
    if (shared_ads_basis_ == 0) {
        // Long enough to tell many states apart by their answers alone: padded to kSharedLength
        // with the inputs in turn (`wait` last).
        shared_ads_ = ads_path(all, std::nullopt, std::nullopt);
        pad(shared_ads_);
        const auto order = input_order();
        for (std::size_t i = 0; shared_ads_.size() < kSharedLength; ++i) shared_ads_.push_back(order[i % order.size()]);
        shared_ads_basis_ = basis_.size();
        // From now on every new basis state and frontier node knows its answer to this suffix, so
        // they are filed by it: candidates are looked up, not searched.
        for (std::uint32_t q = 0; q + 1 < basis_.size(); ++q) file_basis_response(q);
    }
    return shared_ads_;
}

void LSharp::Impl::identify(std::uint32_t f) {
    const Frontier& fr = frontier_[f];
    Word suffix;
    if (shared_ads_basis_ != 0 && !fr.responsive && !response(fr.node)) {
        suffix = shared_ads_;  // first its answer to the shared suffix: then it is looked up
    } else if (config_.separation == LSharpSeparation::Ads) {
        // The branch the ADS word follows past what the tree knows: the seed's prediction, else
        // the last hypothesis's (consistent with the whole tree, it is right more often than the
        // largest branch: fewer deviations, each of which costs another query).
        std::optional<StateId> predicted = seed_state_of_frontier(f);
        if (!seed_ && hypothesis_) predicted = hypothesis_->run(fr.access);
        suffix = ads_path(fr.candidates, fr.node, predicted);
        // A word the tree already answers from this node brings nothing new.
        NodeId n = fr.node;
        bool known = true;
        for (const Symbol a : suffix) {
            const auto e = edge(n, a);
            if (!e) {
                known = false;
                break;
            }
            n = e->target;
        }
        if (known) suffix.clear();
    }
    // A witness of two candidates: the node cannot know it (it would be apart from one of them).
    if (suffix.empty()) suffix = basis_witness(fr.candidates[0], fr.candidates[1]);
    continue_word(suffix);
    pad(suffix);
    ask(concat(fr.access, suffix));
}

Word LSharp::Impl::ads_path(const std::vector<std::uint32_t>& candidates, std::optional<NodeId> tracked,
                            std::optional<StateId> seed_state) {
    std::vector<NodeId> current;
    current.reserve(candidates.size());
    for (const std::uint32_t b : candidates) current.push_back(basis_[b]);
    Word word;
    std::vector<NodeId> next;
    // The predicting machine: the seed, else the last hypothesis (see identify()).
    const MealyMachine* predictor = seed_ ? &*seed_ : hypothesis_ ? &*hypothesis_ : nullptr;
    // Plain values, not the optional: GCC reads *seed_state as maybe uninitialised (a false positive).
    const bool predicting = predictor != nullptr && seed_state.has_value();
    StateId predicted_state = seed_state.value_or(0);
    bool is_tracked = tracked.has_value();
    NodeId tracked_node = tracked.value_or(kRoot);
    while (current.size() > 1) {
        // The input that takes the most candidates off the branch the word follows (the tracked
        // node's answer, else the prediction; with neither, every input scores 0 here), then splits
        // the most pairs of candidates (ties: more answers known, then the smaller input). A fixed
        // word is only as good as its branch: when the branch is right, the candidates taken off it
        // early are the ones this query rules out; when it is wrong, the query still tells apart
        // the pairs split before the deviation. Measured on the 26 AALpy models (perfect oracle):
        // 8,953 resets / 71,140 symbols; the fewest candidates left in the worst case (before):
        // 9,189 / 74,096; the most pairs split alone: 9,110 / 73,062.
        Symbol best = 0;
        std::tuple<std::size_t, std::size_t, std::size_t> best_score{0, 0, 0};  // off branch, pairs, defined
        bool found = false;
        // Scored on the first kAdsSample candidates only: the choice stays linear in |current|.
        const std::span<const NodeId> sample(current.data(), std::min(current.size(), kAdsSample));
        for (Symbol a = 0; a < k_; ++a) {
            if (ads_without_wait_ && ask_->traits().wait && a == *ask_->traits().wait) continue;
            std::optional<Symbol> expected;
            if (is_tracked)
                if (const auto e = edge(tracked_node, a)) expected = e->output;
            if (!expected && predicting) expected = predictor->output(predicted_state, a);
            std::size_t defined = 0, squares = 0, off_branch = 0;
            for (const NodeId n : sample) {
                const auto e = edge(n, a);
                if (!e) continue;
                if (counts_.size() <= e->output) counts_.resize(e->output + 1, 0);
                ++counts_[e->output];
                ++defined;
                if (expected && e->output != *expected) ++off_branch;
            }
            for (const NodeId n : sample) {
                const auto e = edge(n, a);
                if (!e || counts_[e->output] == 0) continue;
                squares += counts_[e->output] * counts_[e->output];
                counts_[e->output] = 0;
            }
            const std::size_t pairs = (defined * defined - squares) / 2;  // pairs with different answers
            if (pairs == 0) continue;  // splits nothing
            const std::tuple<std::size_t, std::size_t, std::size_t> score{off_branch, pairs, defined};
            if (!found || score > best_score) {
                found = true;
                best = a;
                best_score = score;
            }
        }
        if (!found) {
            // No single input splits what is left on this branch: a shortest witness of two of them
            // does (the tree knows one: basis states are pairwise apart), so the same query goes on
            // telling them apart instead of a later one repeating the access sequence. Not in a
            // continuation (it may hold `wait`, and the continuation is cut short anyway).
            if (!word.empty() && !ads_without_wait_)
                if (const auto w = witness(current[0], current[1])) word.insert(word.end(), w->begin(), w->end());
            break;
        }
        word.push_back(best);
        // The branch: known from the tracked node, else predicted.
        std::optional<Symbol> branch;
        if (is_tracked) {
            const auto e = edge(tracked_node, best);
            if (e) {
                branch = e->output;
                tracked_node = e->target;
            } else {
                is_tracked = false;
            }
        }
        for (const NodeId n : current) {
            const auto e = edge(n, best);
            if (e) ++(counts_[e->output]);
        }
        if (!branch && predicting) {
            const Symbol predicted = predictor->output(predicted_state, best);
            if (predicted < counts_.size() && counts_[predicted] > 0) branch = predicted;
        }
        if (!branch) {
            Symbol largest = 0;
            for (Symbol o = 0; o < counts_.size(); ++o)
                if (counts_[o] > counts_[largest]) largest = o;
            branch = largest;
        }
        if (predicting) predicted_state = predictor->successor(predicted_state, best);
        next.clear();
        for (const NodeId n : current) {
            const auto e = edge(n, best);
            if (!e) continue;
            counts_[e->output] = 0;
            if (e->output == *branch) next.push_back(e->target);
        }
        current.swap(next);
    }
    return word;
}

}  // namespace typestar
