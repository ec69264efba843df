// Internal to the learn module: L#'s state (LSharp::Impl), shared by lsharp.cpp (the tree, the rules,
// the loop), lsharp_ads.cpp (adaptive distinguishing sequences for extension and separation) and
// lsharp_seed.cpp (adaptive L#'s rebuilding from a seed). See include/typestar/learn/lsharp.hpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "typestar/learn/lsharp.hpp"
#include "typestar/sul/cache.hpp"
#include "typestar/log/logging.hpp"
#include "tree_consistency.hpp"

namespace typestar {

namespace lsharp_detail {

using NodeId = CacheOracle::NodeId;
constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr NodeId kRoot = CacheOracle::kRootNode;
constexpr std::size_t kAdsSample = 64;
constexpr std::size_t kSharedLength = 8;
constexpr std::size_t kConsistencyBatch = 16;

inline Word concat(const Word& a, const Word& b) {
    Word w;
    w.reserve(a.size() + b.size());
    w.insert(w.end(), a.begin(), a.end());
    w.insert(w.end(), b.begin(), b.end());
    return w;
}

}  // namespace lsharp_detail

using lsharp_detail::NodeId;
using lsharp_detail::kNone;
using lsharp_detail::kRoot;

class LSharp::Impl {
public:
    Impl(MembershipOracle& oracle, LSharpConfig config)
        : config_(std::move(config)), k_(oracle.inputs().size()), log_(detail::logger("typestar.learn")) {
        tree_ = oracle.prefix_tree();
        if (tree_ == nullptr) {
            // No cache in the stack: keep one of our own over it (the tree must exist somewhere).
            own_ = std::make_unique<CacheOracle>(oracle);
            tree_ = own_.get();
            ask_ = own_.get();
        } else {
            ask_ = &oracle;
        }
        consistency_.emplace(*tree_);
    }

    void start();
    bool refine(const Counterexample& cex);

    std::size_t suggested_ = 1;
    bool explore_ = false;  // LSharpConfig::explore_suggested and a suggested length >= 2
    std::optional<MealyMachine> hypothesis_;
    std::vector<Word> hypothesis_access_;  // valid unless access_stale_ (see hypothesis_access())
    bool access_stale_ = false;
    const std::vector<Word>& hypothesis_access();
    std::vector<NodeId> basis_;       // basis state i is tree node basis_[i]; hypothesis state i
    std::size_t alive_frontier_ = 0;
    std::size_t full_passes_ = 0;

private:
    struct Frontier {
        NodeId node = 0;
        Word access;
        std::vector<std::uint32_t> candidates;  // basis indices not (yet known to be) apart, ascending
        std::uint32_t key_input = kNone;        // the bucket it is filed under (kNone: unkeyed)
        bool alive = true;
        bool dirty = false;                     // its subtree grew since candidates were checked
        bool no_prediction = false;             // a counterexample ran into it: ask, never predict
        bool responsive = false;                // filed by its answer to the shared suffix
        bool explored = false;                  // explore_suggested asked its words
        std::size_t source = 0;                 // its transition in the hypothesis table: basis * k + input
    };

    // ---- the tree, through the cache's view ----
    std::optional<CacheOracle::Edge> edge(NodeId node, Symbol a) const { return tree_->edge(node, a); }
    std::uint32_t basis_of(NodeId node) const { return node < basis_role_.size() ? basis_role_[node] : kNone; }
    std::uint32_t frontier_of(NodeId node) const {
        return node < frontier_role_.size() ? frontier_role_[node] : kNone;
    }
    void grow_roles() {
        const std::size_t n = tree_->num_nodes();
        if (basis_role_.size() < n) {
            basis_role_.resize(n, kNone);
            frontier_role_.resize(n, kNone);
        }
    }
    // Apartness (L# §3): some word is defined in both subtrees with different outputs. Self-loops
    // (a quiet wait, everything after err) stand for the whole infinite branch.
    bool apart(NodeId x, NodeId y);
    // A shortest witness of x # y, if apart (breadth-first over the common subtree).
    std::optional<Word> witness(NodeId x, NodeId y) const;
    const Word& basis_witness(std::uint32_t p, std::uint32_t q);

    // ---- queries ----
    void ask(const Word& word);
    void ask_all(const std::vector<Word>& words);
    // Marks the frontier node a word runs through as dirty.
    void touch(const Word& word);

    // ---- the rules ----
    void add_basis(NodeId node, Word access);
    void add_frontier(NodeId node, Word access, std::size_t source);
    // The hypothesis transition into frontier node f may have changed (its candidates did).
    void changed(std::uint32_t f) { changed_transitions_.push_back(frontier_[f].source); }
    void refresh(std::uint32_t f);
    void file(std::uint32_t f);
    void promote(std::uint32_t f);
    void identify(std::uint32_t f);
    Word extension_suffix(std::uint32_t b, Symbol a);
    // Pads a suffix asked from a frontier node to the equivalence oracle's suggested length (the
    // words DroidStar Algorithm 2 at bound B runs from every transition are all words of length B:
    // a learning query of that length is one the final suite would run anyway, a shorter one is not).
    // With the suggested words explored (explore_), one input more: a look-ahead, so that a query from
    // a frontier node that is promoted later is still a word of the final suite (R(q)·i·s, |s| = B,
    // from the new state), as L*'s padded rows are.
    void pad(Word& suffix) const {
        const std::size_t length = explore_ ? suggested_ + 1 : suggested_;
        while (suffix.size() < length) suffix.push_back(pad_input_);
    }
    // Before a hypothesis is handed out (explore_ only): asks, for every transition that leaves the
    // basis tree, R(q)·i·s for every s of the suggested length (with a look-ahead pad) that the tree
    // does not know — exactly the words DroidStar Algorithm 2 at that bound runs from the
    // hypothesis, so its suite is answered by the tree. Only frontier nodes not explored yet, and
    // of access cost below `below` if given. Returns whether the tree grew.
    bool explore_suggested(std::optional<std::pair<std::size_t, std::size_t>> below = std::nullopt);
    // An ADS over `candidates` (basis indices) computed on the tree, as the word along one branch:
    // where `tracked` (a node) knows the answer, the branch it takes; else the prediction from
    // `seed_state` (a state of the seed if there is one, else of the last hypothesis), if any; else
    // the largest branch. Where no single input splits the candidates left, a shortest witness of two.
    Word ads_path(const std::vector<std::uint32_t>& candidates, std::optional<NodeId> tracked,
                  std::optional<StateId> seed_state);
    // The input of an ADS (as ads_path) that takes the most candidates among `current` off the
    // expected branch (the tracked node's answer, else the predictor's from `predicted_state`),
    // then splits the most pairs; nullopt when no input splits any pair.
    std::optional<Symbol> best_split(std::span<const NodeId> current, std::optional<NodeId> tracked,
                                     const MealyMachine* predictor, StateId predicted_state);
    // An adaptive ADS (LSharpConfig::adaptive_queries): what identify() asks from a frontier node.
    struct AdsStart {
        std::vector<std::uint32_t> candidates;  // basis indices, at least two
        std::optional<NodeId> tracked;          // the frontier node
        std::optional<StateId> predicted;       // as ads_path's seed_state
        bool witness_if_empty = true;           // identify(): an ADS that asks nothing is a basis witness
    };
    // Extension (LSharpExtension::Ads, adaptive): the ADS over the whole basis from basis state b's
    // transition on a, as extension_suffix's, if one applies (else the fixed suffix is asked).
    std::optional<AdsStart> adaptive_extension(std::uint32_t b, Symbol a);
    // The next input after the device answered `outputs` (NextInput: a pure function of them): the
    // ADS over the candidates left that answered so, then (as identify's fixed word) a witness where
    // no input splits, the continuation and the pad; nullopt at the end. `in_tail`: whether the
    // input is past the ADS and its witness.
    std::optional<Symbol> ads_next(const AdsStart& start, std::span<const Symbol> outputs, bool* in_tail = nullptr);
    // Whether the tree answers the ADS part of ads_next from `node` (then the query brings nothing new).
    bool ads_known(const AdsStart& start, NodeId node);
    // LSharpConfig::continue_with_ads: appends an ADS over the basis (but the sink) without `wait`,
    // along its largest branch, while the basis has at most ads_limit states.
    void continue_word(Word& suffix) {
        if (!config_.continue_with_ads || basis_.size() > config_.ads_limit) return;
        // Not the sink (a basis state answering only the absorbing output): it is told apart by
        // its first answer already, and an ADS that splits it off spends inputs on `err`.
        std::vector<std::uint32_t> all;
        const auto absorbing = ask_->traits().absorbing;
        for (std::uint32_t i = 0; i < basis_.size(); ++i) {
            bool sink = absorbing.has_value() && signature_.size() >= (static_cast<std::size_t>(i) + 1) * k_;
            for (Symbol a = 0; sink && a < k_; ++a) sink = signature_[static_cast<std::size_t>(i) * k_ + a] == *absorbing;
            if (!sink) all.push_back(i);
        }
        const std::size_t limit = config_.continued_suffix_length;
        if (limit != 0 && suffix.size() >= limit) return;
        ads_without_wait_ = true;
        const Word more = ads_path(all, std::nullopt, std::nullopt);
        ads_without_wait_ = false;
        const std::size_t take = limit == 0 ? more.size() : std::min(more.size(), limit - suffix.size());
        suffix.insert(suffix.end(), more.begin(), more.begin() + static_cast<std::ptrdiff_t>(take));
    }
    void make_adequate();
    // Seeded (LSharpConfig::seed): asks the seed's transitions and identifying words (see start()).
    void rebuild();
    // Seeded: every frontier node the hypothesis takes to a basis state of another seed state than the
    // seed predicts for it (the change, and what it moved) is asked the seed's shortest word telling
    // the two seed states apart, and so is that basis state, once per pair, before the hypothesis is
    // handed out. Where the seed state predicted for a frontier node is no basis state's and the node
    // still agrees with it, the node is first asked a word the tree knows below its chosen basis state
    // that the seed state answers otherwise (adaptive L#'s match separation: the missing state is
    // found before the first hypothesis). Returns whether that asked anything (then the tree may
    // contradict the hypothesis).
    bool check_seed_states();
    // Seeded: a shortest word the tree knows below `node` whose answer there is unlike the seed's from
    // `state` (breadth-first), if any.
    std::optional<Word> seed_witness(NodeId node, StateId state) const;
    // A node's outputs on the shared extension suffix, if the tree knows them all, as a 64-bit key
    // (no allocation). Equal outputs give equal keys; two different outputs may share a key, which
    // only costs an apartness check: every candidate found by key is checked by apart(), and a
    // candidate is dropped by key only when the keys differ (then the outputs differ: apart).
    std::optional<std::uint64_t> response(NodeId x) const {
        std::uint64_t key = 0x9E3779B97F4A7C15ull;
        for (const Symbol a : shared_ads_) {
            const auto e = edge(x, a);
            if (!e) return std::nullopt;
            key ^= static_cast<std::uint64_t>(e->output) + 0x9E3779B97F4A7C15ull + (key << 6) + (key >> 2);
            x = e->target;
        }
        return key;
    }
    void file_basis_response(std::uint32_t q) {
        if (basis_response_.size() <= q) basis_response_.resize(q + 1);
        basis_response_[q] = response(basis_[q]);
        if (basis_response_[q]) basis_by_response_[*basis_response_[q]].push_back(q);
        else basis_no_response_.push_back(q);
    }
    // Inputs by id, `wait` last.
    std::vector<Symbol> input_order() const {
        std::vector<Symbol> order;
        const auto wait = ask_->traits().wait;
        for (Symbol a = 0; a < k_; ++a)
            if (!wait || a != *wait) order.push_back(a);
        if (wait) order.push_back(*wait);
        return order;
    }
    // Seeded learning: the one candidate of `f` whose state in the seed is the seed's state of f, if
    // predictions are on for f (the seed predicts the identification the tree has not confirmed).
    std::optional<std::uint32_t> predicted(std::uint32_t f) const {
        const Frontier& fr = frontier_[f];
        if (!predicting_ || fr.no_prediction || fr.candidates.size() < 2) return std::nullopt;
        const std::optional<StateId> seeded = seed_state_of_frontier(f);
        if (!seeded) return std::nullopt;
        const StateId s = *seeded;
        std::optional<std::uint32_t> match;
        for (const std::uint32_t b : fr.candidates) {
            if (basis_seed_[b] != s) continue;
            if (match) return std::nullopt;
            match = b;
        }
        return match;
    }
    // The basis state a frontier node stands for in the hypothesis.
    std::uint32_t choice(std::uint32_t f) const {
        const Frontier& fr = frontier_[f];
        if (fr.candidates.size() == 1) return fr.candidates.front();
        return predicted(f).value();
    }
    std::pair<std::size_t, std::size_t> access_cost(std::uint32_t f) const {
        const Word& w = frontier_[f].access;
        const auto wait = ask_->traits().wait;
        return {wait ? static_cast<std::size_t>(std::count(w.begin(), w.end(), *wait)) : 0, w.size()};
    }
    void build();
    void construct();
    // Words of the tree the hypothesis answers wrongly at their last input (breadth-first, at most
    // `limit`): all are analysed against the same hypothesis, then it is rebuilt once.
    std::vector<Word> inconsistencies(std::size_t limit);
    // Counterexample analysis by binary search on the tree (L# §3, ProcCounterEx): `sigma` is in the
    // tree and its node is apart from the basis node of the hypothesis state it reaches.
    void process(Word sigma);
    // Seeded: the seed's state a basis state behaves as (basis_seed_), and the one the seed predicts
    // for a frontier node: its basis parent's, followed by its input. Not the seed's run of the
    // access word: past a changed transition that is another state than the device's.
    std::optional<StateId> seed_state_of_frontier(std::uint32_t f) const {
        if (!seed_) return std::nullopt;
        const std::size_t source = frontier_[f].source;
        const auto& parent = basis_seed_[source / k_];
        if (!parent) return std::nullopt;
        return seed_->successor(*parent, static_cast<Symbol>(source % k_));
    }
    // Whether the tree below `node` answers as the seed does from `state` (see seed_mismatch).
    bool agrees_with_seed(NodeId node, StateId state) const { return seed_mismatch(node, state, true).first == 0; }
    // The answers the tree knows below `node`, to the depth of the seed's longest identifying word,
    // unlike and alike the seed's from `state` (`first`: stops at the first unlike one).
    std::pair<std::size_t, std::size_t> seed_mismatch(NodeId node, StateId state, bool first = false) const;
    // The seed's state the tree below basis node `node` behaves as: `guess` if it agrees with it, else
    // the state it agrees with best (approximate matching, as adaptive L#): the fewest answers unlike
    // the seed's, then the most alike; `guess` if several agree.
    std::optional<StateId> seed_identity(NodeId node, StateId guess) const {
        if (agrees_with_seed(node, guess)) return guess;
        std::optional<StateId> best;
        std::pair<std::size_t, std::size_t> best_score{0, 0};
        std::size_t agreeing = 0;
        for (StateId q = 0; q < seed_->num_states(); ++q) {
            const auto [unlike, alike] = seed_mismatch(node, q);
            if (unlike == 0) ++agreeing;
            const std::pair<std::size_t, std::size_t> score{unlike, std::numeric_limits<std::size_t>::max() - alike};
            if (!best || score < best_score) {
                best = q;
                best_score = score;
            }
        }
        return agreeing > 1 ? guess : best.value_or(guess);
    }
    // Seeded, when the tree has grown since the last time: every basis state matched again
    // (seed_identity from its current match), so that predictions use what the tree knows now.
    void relabel_basis();

    LSharpConfig config_;
    std::size_t k_;
    std::shared_ptr<spdlog::logger> log_;
    std::unique_ptr<CacheOracle> own_;
    CacheOracle* tree_ = nullptr;  // the observation tree: read through its view; a counterexample is inserted
    MembershipOracle* ask_ = nullptr;

    std::vector<Word> access_;             // per basis state
    std::vector<Symbol> signature_;        // basis * k + input: its output (basis states are complete)
    std::vector<std::vector<std::vector<std::uint32_t>>> basis_by_output_;     // [input][output]
    std::vector<Frontier> frontier_;
    std::vector<std::vector<std::vector<std::uint32_t>>> frontier_by_key_;     // [input][output]
    std::vector<std::uint32_t> unkeyed_;
    std::vector<std::uint32_t> basis_role_, frontier_role_;  // per tree node
    std::size_t nodes_after_build_ = 0;    // tree size when the last hypothesis was built
    std::uint64_t executed_after_build_ = 0;  // and the words it had run (a quiet loop adds no node)
    std::vector<char> basis_changed_;      // per basis state: its subtree grew since the last full pass
    // What the full pass of make_adequate must look at (instead of every frontier node): the dirty
    // ones, and those with a candidate whose subtree grew (found through by_candidate_).
    std::vector<std::uint32_t> dirty_list_, changed_basis_list_, pass_scratch_;
    std::vector<std::vector<std::uint32_t>> by_candidate_;  // per basis state: frontier nodes that had it as a candidate (stale entries dropped when read)
    bool all_dirty_ = false;
    void mark_dirty(std::uint32_t f) {
        if (frontier_[f].dirty) return;
        frontier_[f].dirty = true;
        dirty_list_.push_back(f);
    }
    void mark_basis_changed(std::uint32_t b) {
        if (basis_changed_[b]) return;
        basis_changed_[b] = 1;
        changed_basis_list_.push_back(b);
    }
    void add_candidate(std::uint32_t f, std::uint32_t b) {
        frontier_[f].candidates.push_back(b);
        by_candidate_[b].push_back(f);
    }
    std::set<std::uint32_t> attention_;    // frontier nodes that may not have exactly one candidate
    // The same, by (waits, length) of their access sequence: one cheaper than every isolated node is
    // identified before a promotion (it may be the new state, with a cheaper access sequence).
    std::set<std::tuple<std::size_t, std::size_t, std::uint32_t>> attention_by_cost_;
    void attend(std::uint32_t f) {
        if (attention_.insert(f).second) {
            const auto [waits, length] = access_cost(f);
            attention_by_cost_.emplace(waits, length, f);
        }
    }
    void unattend(std::uint32_t f) {
        if (attention_.erase(f) != 0) {
            const auto [waits, length] = access_cost(f);
            attention_by_cost_.erase({waits, length, f});
        }
    }
    // Frontier nodes seen with no candidate, to promote first: by (waits, length) of their access
    // sequence (the equivalence oracle's suite runs every test through these words), then index.
    std::set<std::tuple<std::size_t, std::size_t, std::uint32_t>> isolated_;
    void isolate(std::uint32_t f) {
        const auto [waits, length] = access_cost(f);
        isolated_.emplace(waits, length, f);
    }
    std::map<std::pair<std::uint32_t, std::uint32_t>, Word> witnesses_;
    std::vector<std::pair<NodeId, NodeId>> stack_;
    std::optional<detail::TreeConsistency> consistency_;  // the hypothesis against the tree, incrementally
    std::vector<std::uint32_t> counts_;
    bool ads_without_wait_ = false;  // ads_path leaves out `wait` (see continue_word)
    std::vector<Transition> table_;                   // the last hypothesis's transitions
    std::vector<std::size_t> changed_transitions_;    // to construct again (see changed())
    std::vector<Word> suggested_words_;  // Σ^B for explore_suggested, computed once

    Symbol pad_input_ = 0;
    Word shared_ads_;                   // the extension suffix above LSharpConfig::ads_limit
    std::size_t shared_ads_basis_ = 0;  // basis size when it was computed (0: not yet)
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> basis_by_response_, frontier_by_response_;
    std::vector<std::uint32_t> basis_no_response_;
    std::vector<std::optional<std::uint64_t>> basis_response_;  // per basis state, as filed
    std::vector<std::uint32_t> nonresponsive_;          // frontier nodes not filed by a response  // the first input that is not `wait` (waits are slow on a device)
    std::optional<MealyMachine> seed_;
    bool predicting_ = false;           // seeded: identifications predicted by the seed are taken
    std::vector<std::optional<Word>> seed_access_;  // seeded: the seed's access words (input order)
    std::set<std::pair<NodeId, std::uint32_t>> seed_pairs_checked_;  // (frontier node, basis state) checked
    std::vector<std::vector<Word>> seed_ids_;  // seeded: the words identifying each seed state (identifiers())
    std::vector<std::optional<StateId>> basis_seed_;  // seeded: the seed's state each basis state behaves as (seed_identity)
    std::size_t seed_depth_ = 0;        // seeded: the length of the seed's longest identifying word
    std::size_t relabelled_at_ = 0;     // tree size at the last relabel_basis()
};

}  // namespace typestar
