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

std::optional<LSharp::Impl::AdsStart> LSharp::Impl::adaptive_extension(std::uint32_t b, Symbol a) {
    if (!config_.adaptive_queries || !ask_->adaptive() || config_.extension != LSharpExtension::Ads ||
        basis_.size() < 2 || basis_.size() > config_.ads_limit)
        return std::nullopt;
    AdsStart start;
    start.candidates.resize(basis_.size());
    for (std::uint32_t i = 0; i < basis_.size(); ++i) start.candidates[i] = i;
    // The prediction as extension_suffix's.
    if (seed_ && basis_seed_[b]) start.predicted = seed_->successor(*basis_seed_[b], a);
    if (!seed_ && hypothesis_) start.predicted = hypothesis_->successor(hypothesis_->run(access_[b]), a);
    start.witness_if_empty = false;
    return start;
}

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
        if (config_.adaptive_queries && ask_->adaptive()) {
            // Each input chosen from the device's last answer, in one query (LSharpConfig::adaptive_queries).
            const AdsStart start{fr.candidates, fr.node, predicted};
            if (!ads_known(start, fr.node)) {
                const Word access = fr.access;
                Word outputs;
                const Word chosen = ask_->query_adaptive(
                    access, [&](std::span<const Symbol> answered) { return ads_next(start, answered); }, outputs);
                grow_roles();
                touch(concat(access, chosen));
                return;
            }
        } else {
            suffix = ads_path(fr.candidates, fr.node, predicted);
        }
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

std::optional<Symbol> LSharp::Impl::best_split(std::span<const NodeId> current, std::optional<NodeId> tracked,
                                               const MealyMachine* predictor, StateId predicted_state) {
    // The input that takes the most candidates off the branch the word follows (the tracked
    // node's answer, else the prediction; with neither, every input scores 0 here), then splits
    // the most pairs of candidates (ties: more answers known, then the smaller input). A fixed
    // word is only as good as its branch: when the branch is right, the candidates taken off it
    // early are the ones this query rules out; when it is wrong, the query still tells apart
    // the pairs split before the deviation. Measured on the 26 AALpy models (perfect oracle, fixed
    // words): 8,953 resets / 71,140 symbols; the fewest candidates left in the worst case (before):
    // 9,189 / 74,096; the most pairs split alone: 9,110 / 73,062. Adaptively (ads_next) the branch
    // is the device's own, and the same choice still pays: the most pairs alone cost 9,198 resets
    // against 8,890 (an earlier form of ads_next).
    Symbol best = 0;
    std::tuple<std::size_t, std::size_t, std::size_t> best_score{0, 0, 0};  // off branch, pairs, defined
    bool found = false;
    const bool is_tracked = tracked.has_value();
    const NodeId tracked_node = tracked.value_or(kRoot);
    // Scored on the first kAdsSample candidates only: the choice stays linear in |current|.
    const std::span<const NodeId> sample(current.data(), std::min(current.size(), kAdsSample));
    for (Symbol a = 0; a < k_; ++a) {
        if (ads_without_wait_ && ask_->traits().wait && a == *ask_->traits().wait) continue;
        std::optional<Symbol> expected;
        if (is_tracked)
            if (const auto e = edge(tracked_node, a)) expected = e->output;
        if (!expected && predictor != nullptr) expected = predictor->output(predicted_state, a);
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
    if (!found) return std::nullopt;
    return best;
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
        const std::optional<NodeId> track = is_tracked ? std::optional<NodeId>(tracked_node) : std::nullopt;
        const std::optional<Symbol> chosen = best_split(current, track, predicting ? predictor : nullptr, predicted_state);
        const bool found = chosen.has_value();
        const Symbol best = chosen.value_or(0);
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

std::optional<Symbol> LSharp::Impl::ads_next(const AdsStart& start, std::span<const Symbol> outputs, bool* in_tail) {
    // Replayed from the start on every call (the chooser is a pure function of the outputs): the
    // ADS over the candidates, each input chosen as ads_path chooses it, but the candidates kept
    // are those that answer as the device did, not those of a predicted branch.
    std::vector<NodeId> current, next;
    current.reserve(start.candidates.size());
    for (const std::uint32_t b : start.candidates) current.push_back(basis_[b]);
    const MealyMachine* predictor = seed_ ? &*seed_ : hypothesis_ ? &*hypothesis_ : nullptr;
    const bool predicting = predictor != nullptr && start.predicted.has_value();
    StateId predicted_state = start.predicted.value_or(0);
    std::optional<NodeId> tracked = start.tracked;
    Word word;
    // Where no single input splits the candidates left: the inputs of a shortest witness of two of
    // them (both answer it, differently, so one at least drops out), then the ADS goes on over
    // those that answer as the device did, until one is left (or none). Measured on the 26 AALpy
    // models (perfect oracle): 8,834 resets / 70,097 symbols; ending the query after the witness,
    // as the fixed word does: 8,890 / 70,816.
    Word witness_inputs;
    std::size_t witnessed = 0;
    while (current.size() > 1) {
        std::optional<Symbol> a;
        if (witnessed < witness_inputs.size()) a = witness_inputs[witnessed++];
        else a = best_split(current, tracked, predicting ? predictor : nullptr, predicted_state);
        if (!a) {
            // An extension word (witness_if_empty false) that nothing splits from the start asks no
            // witness, as extension_suffix's fixed word.
            if (word.empty() && !start.witness_if_empty) break;
            const std::optional<Word> w = word.empty()
                                              ? std::optional<Word>(basis_witness(start.candidates[0], start.candidates[1]))
                                              : witness(current[0], current[1]);
            if (!w || w->empty()) break;
            witness_inputs = *w;
            witnessed = 0;
            a = witness_inputs[witnessed++];
        }
        if (word.size() == outputs.size()) {
            if (in_tail != nullptr) *in_tail = false;
            return a;
        }
        const Symbol o = outputs[word.size()];
        word.push_back(*a);
        if (tracked) {
            const auto e = edge(*tracked, *a);
            tracked = e ? std::optional<NodeId>(e->target) : std::nullopt;
        }
        if (predicting) predicted_state = predictor->successor(predicted_state, *a);
        next.clear();
        for (const NodeId n : current) {
            const auto e = edge(n, *a);
            if (e && e->output == o) next.push_back(e->target);
        }
        current.swap(next);
    }
    // The ADS is over: the continuation and the pad.
    Word tail = word;
    const std::size_t core = tail.size();
    continue_word(tail);
    pad(tail);
    if (in_tail != nullptr) *in_tail = outputs.size() >= core;
    if (outputs.size() < tail.size()) return tail[outputs.size()];
    return std::nullopt;
}

bool LSharp::Impl::ads_known(const AdsStart& start, NodeId node) {
    Word outputs;
    while (true) {
        bool tail = false;
        const std::optional<Symbol> a = ads_next(start, outputs, &tail);
        if (!a || tail) return true;
        const auto e = edge(node, *a);
        if (!e) return false;
        outputs.push_back(e->output);
        node = e->target;
    }
}

}  // namespace typestar
