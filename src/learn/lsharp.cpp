// L# (lsharp.hpp). Hand-written: no Debian package offers an active automata learner.
#include "typestar/learn/lsharp.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <spdlog/spdlog.h>

#include "typestar/core/algorithms.hpp"
#include "typestar/sul/cache.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/core/translate.hpp"
#include "tree_consistency.hpp"

namespace typestar {

namespace {

using NodeId = CacheOracle::NodeId;
constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr NodeId kRoot = CacheOracle::kRootNode;
constexpr std::size_t kAdsSample = 64;
constexpr std::size_t kSharedLength = 8;
constexpr std::size_t kConsistencyBatch = 16;

Word concat(const Word& a, const Word& b) {
    Word w;
    w.reserve(a.size() + b.size());
    w.insert(w.end(), a.begin(), a.end());
    w.insert(w.end(), b.begin(), b.end());
    return w;
}

/// Per state of `m`, words that identify it among all of m's states, as an adaptive distinguishing
/// tree read as words (Lee–Yannakakis): a group of states (their outputs alike so far) is split by
/// the input that leaves the fewest pairs together (inputs in `order`, `avoid` — a slow `wait` —
/// only if nothing else splits); where no input splits the states it has not merged, the
/// group's word ends and a new one starts from the states themselves with a shortest word telling
/// two of them apart. Any two states share the word their paths split at (a prefix of both their
/// words), so asked from two tree nodes it makes them apart where the device agrees with `m`.
/// Mostly one word per state.
std::vector<std::vector<Word>> identifiers(const MealyMachine& m, const std::vector<Symbol>& order,
                                           std::optional<Symbol> avoid) {
    std::vector<std::vector<Word>> ids(m.num_states());
    struct Group {
        std::vector<StateId> states, current;  // original states, and where `word` took each
        Word word;
    };
    std::vector<Group> todo;
    {
        Group all;
        for (StateId s = 0; s < m.num_states(); ++s) {
            all.states.push_back(s);
            all.current.push_back(s);
        }
        todo.push_back(std::move(all));
    }
    std::map<Symbol, std::vector<std::size_t>> blocks;
    std::set<StateId> seen;
    while (!todo.empty()) {
        Group g = std::move(todo.back());
        todo.pop_back();
        if (g.states.size() < 2) {
            if (!g.word.empty())
                for (const StateId s : g.states) ids[s].push_back(g.word);
            continue;
        }
        // The input that splits the group's current states best: the fewest pairs left together
        // (the sum of the squared block sizes), then the fewest merged (merged states cannot be told
        // apart further along this word: they get a word of their own later, while the others are
        // still told apart by this one). Measured on the 19 AALpy upgrades, perfect oracle: 2,378
        // learning queries; no merging while an input splits without: 2,392; the smallest largest
        // block first: 2,371 (but 23 rounds instead of 21 with the defaults).
        std::set<StateId> positions(g.current.begin(), g.current.end());
        std::optional<Symbol> best;
        std::pair<std::size_t, std::size_t> best_score{0, 0};
        for (int pass = 0; pass < 2 && !best && positions.size() > 1; ++pass) {
            for (const Symbol a : order) {
                if ((pass == 0) == (avoid && a == *avoid)) continue;
                blocks.clear();
                for (const StateId q : positions) blocks[m.output(q, a)].push_back(q);
                std::size_t largest = 0, merged = 0, pairs = 0;
                for (const auto& [o, members] : blocks) {
                    largest = std::max(largest, members.size());
                    pairs += members.size() * members.size();
                    seen.clear();
                    for (const std::size_t q : members) merged += seen.insert(m.successor(static_cast<StateId>(q), a)).second ? 0 : 1;
                }
                if (largest >= positions.size()) continue;  // splits nothing
                const std::pair<std::size_t, std::size_t> score{pairs, merged};
                if (!best || score < best_score) {
                    best = a;
                    best_score = score;
                }
            }
        }
        Word word;
        std::vector<StateId> current(g.states.size());
        if (best) {
            word = g.word;
            word.push_back(*best);
            for (std::size_t i = 0; i < g.states.size(); ++i) current[i] = m.successor(g.current[i], *best);
        } else {
            // No input splits the group: end its word, start a new one from the states themselves.
            if (!g.word.empty())
                for (const StateId s : g.states) ids[s].push_back(g.word);
            const auto w = separating_word(m, g.states[0], g.states[1]);
            if (!w) throw std::logic_error("L#: two states of a minimal seed are not apart");
            word = *w;
            for (std::size_t i = 0; i < g.states.size(); ++i) current[i] = m.run(word, g.states[i]);
        }
        // Blocks by the outputs of the step just taken (of the whole new word when restarted).
        std::map<Word, std::vector<std::size_t>> by;
        for (std::size_t i = 0; i < g.states.size(); ++i) {
            Word key;
            if (best) key.push_back(m.output(g.current[i], *best));
            else key = m.outputs_of(word, g.states[i]);
            by[key].push_back(i);
        }
        for (auto& [key, members] : by) {
            Group next;
            next.word = word;
            for (const std::size_t i : members) {
                next.states.push_back(g.states[i]);
                next.current.push_back(current[i]);
            }
            todo.push_back(std::move(next));
        }
    }
    return ids;
}

}  // namespace

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
    // handed out. Returns whether that asked anything (then the tree may contradict the hypothesis).
    bool check_seed_states();
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
    // Whether the tree below `node` answers as the seed does from `state` on its identifying words.
    bool agrees_with_seed(NodeId node, StateId state) const;
    // The seed's state the tree below basis node `node` agrees with: `guess` if it does, else the only
    // state that does; none if none or several.
    std::optional<StateId> seed_identity(NodeId node, StateId guess) const {
        if (agrees_with_seed(node, guess)) return guess;
        std::optional<StateId> found;
        for (StateId q = 0; q < seed_->num_states(); ++q) {
            if (q == guess || !agrees_with_seed(node, q)) continue;
            if (found) return guess;
            found = q;
        }
        return found.value_or(guess);
    }

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
};

bool LSharp::Impl::agrees_with_seed(NodeId node, StateId state) const {
    // On the words that identify `state` in the seed, as far as the tree knows them (deeper answers
    // may differ past a changed transition without the state being another one).
    for (const Word& w : seed_ids_[state]) {
        NodeId n = node;
        StateId q = state;
        for (const Symbol a : w) {
            const auto e = edge(n, a);
            if (!e) break;
            if (e->output != seed_->output(q, a)) return false;
            n = e->target;
            q = seed_->successor(q, a);
        }
    }
    return true;
}

// ---- apartness ---------------------------------------------------------------------------------------

bool LSharp::Impl::apart(NodeId x, NodeId y) {
    if (x == y) return false;
    stack_.clear();
    stack_.emplace_back(x, y);
    while (!stack_.empty()) {
        const auto [u, v] = stack_.back();
        stack_.pop_back();
        for (Symbol a = 0; a < k_; ++a) {
            const auto eu = edge(u, a);
            if (!eu) continue;
            const auto ev = edge(v, a);
            if (!ev) continue;
            if (eu->output != ev->output) return true;
            if (eu->target == u && ev->target == v) continue;  // both loop: the same pair again
            if (eu->target == ev->target) continue;
            stack_.emplace_back(eu->target, ev->target);
        }
    }
    return false;
}

std::optional<Word> LSharp::Impl::witness(NodeId x, NodeId y) const {
    struct Item {
        NodeId u, v;
        std::uint32_t parent;
        Symbol input;
    };
    std::vector<Item> queue{{x, y, kNone, 0}};
    for (std::size_t i = 0; i < queue.size(); ++i) {
        const Item item = queue[i];
        for (Symbol a = 0; a < k_; ++a) {
            const auto eu = edge(item.u, a);
            if (!eu) continue;
            const auto ev = edge(item.v, a);
            if (!ev) continue;
            if (eu->output != ev->output) {
                Word w{a};
                for (std::uint32_t j = static_cast<std::uint32_t>(i); queue[j].parent != kNone; j = queue[j].parent)
                    w.push_back(queue[j].input);
                std::reverse(w.begin(), w.end());
                return w;
            }
            if (eu->target == item.u && ev->target == item.v) continue;
            if (eu->target == ev->target) continue;
            queue.push_back(Item{eu->target, ev->target, static_cast<std::uint32_t>(i), a});
        }
    }
    return std::nullopt;
}

const Word& LSharp::Impl::basis_witness(std::uint32_t p, std::uint32_t q) {
    const auto key = std::make_pair(std::min(p, q), std::max(p, q));
    auto it = witnesses_.find(key);
    if (it == witnesses_.end()) {
        auto w = witness(basis_[key.first], basis_[key.second]);
        if (!w) throw std::logic_error("L#: two basis states are not apart");
        it = witnesses_.emplace(key, std::move(*w)).first;
    }
    return it->second;
}

// ---- queries -----------------------------------------------------------------------------------------

void LSharp::Impl::ask(const Word& word) {
    (void)ask_->query(word);
    grow_roles();
    touch(word);
}

void LSharp::Impl::ask_all(const std::vector<Word>& words) {
    if (words.empty()) return;
    std::vector<Word> answers(words.size());
    std::vector<Query> batch;
    batch.reserve(words.size());
    for (std::size_t i = 0; i < words.size(); ++i) {
        answers[i].resize(words[i].size());
        batch.push_back(Query{{}, words[i], answers[i]});
    }
    ask_->query_all(batch);
    grow_roles();
    for (const Word& w : words) touch(w);
}

void LSharp::Impl::touch(const Word& word) {
    consistency_->note_word(word);
    NodeId node = kRoot;
    std::size_t i = 0;
    while (i < word.size() && basis_of(node) != kNone) {
        mark_basis_changed(basis_of(node));  // its subtree may have grown
        const auto e = edge(node, word[i++]);
        if (!e) return;
        node = e->target;
    }
    if (basis_of(node) != kNone) return;
    const std::uint32_t f = frontier_of(node);
    if (f == kNone || !frontier_[f].alive) return;
    mark_dirty(f);
    attend(f);
}

// ---- basis and frontier ------------------------------------------------------------------------------

Word LSharp::Impl::extension_suffix(std::uint32_t b, Symbol a) {
    if (basis_.size() < 2 || config_.extension == LSharpExtension::Plain) return {};
    if (config_.extension != LSharpExtension::Ads) return basis_witness(b, b == 0 ? 1 : 0);
    std::vector<std::uint32_t> all(basis_.size());
    for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    if (basis_.size() <= config_.ads_limit) {
        std::optional<StateId> predicted;
        if (seed_ && basis_seed_[b]) predicted = seed_->successor(*basis_seed_[b], a);
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

void LSharp::Impl::add_basis(NodeId node, Word access) {
    const auto b = static_cast<std::uint32_t>(basis_.size());
    basis_.push_back(node);
    access_.push_back(std::move(access));
    if (seed_) {
        // Its parent's seed state followed by the last input (the seed's run of the access word
        // for the root), checked against what the tree knows below it.
        StateId guess = seed_->initial();
        if (!access_.back().empty()) {
            const NodeId parent = *tree_->node_of(Word(access_.back().begin(), access_.back().end() - 1));
            const auto& p = basis_seed_[basis_of(parent)];
            guess = p ? seed_->successor(*p, access_.back().back()) : seed_->run(access_.back());
        }
        basis_seed_.push_back(seed_identity(node, guess));
    }
    basis_changed_.push_back(0);
    by_candidate_.emplace_back();
    mark_basis_changed(b);
    grow_roles();
    basis_role_[node] = b;
    // Extension: every input of the new basis state, asked in one batch (a known err or quiet wait
    // is already an edge of the tree and asks nothing).
    std::vector<Word> words;
    Word ads;  // without a seed the extension suffix does not depend on the input: compute it once
    bool have_ads = false;
    for (Symbol a = 0; a < k_; ++a) {
        if (const auto e = edge(node, a)) {
            // Known already; above ads_limit its answer to the shared suffix is asked too, so that
            // it is looked up by it (else it would be compared with every new basis state).
            if (shared_ads_basis_ == 0 || e->target == node || response(e->target)) continue;
        }
        Word w = access_[b];
        w.push_back(a);
        if (!seed_ && !have_ads) {
            ads = extension_suffix(b, a);
            have_ads = true;
        }
        Word suffix = seed_ ? extension_suffix(b, a) : ads;
        if (basis_.size() > 1) continue_word(suffix);
        pad(suffix);
        w.insert(w.end(), suffix.begin(), suffix.end());
        words.push_back(std::move(w));
    }
    if (shared_ads_basis_ != 0 && !response(node)) {
        // Above ads_limit: every basis state answers the shared suffix, so candidates are looked up.
        words.push_back(concat(access_[b], shared_ads_));
    }
    ask_all(words);
    // Its signature, filed by output per input.
    for (Symbol a = 0; a < k_; ++a) {
        const auto e = edge(node, a);
        if (!e) throw std::logic_error("L#: a basis state is not complete after extension");
        signature_.push_back(e->output);
        auto& by = basis_by_output_[a];
        if (by.size() <= e->output) by.resize(e->output + 1);
        by[e->output].push_back(b);
    }
    // The new state as a candidate of every frontier node not apart from it: only those filed under an
    // (input, output) it agrees with, and the unkeyed ones, can be.
    auto consider = [&](std::uint32_t f) {
        Frontier& fr = frontier_[f];
        if (!fr.alive) return;
        if (!apart(fr.node, node)) {
            add_candidate(f, b);
            changed(f);
            attend(f);
        }
    };
    if (shared_ads_basis_ != 0) file_basis_response(b);
    const std::optional<std::uint64_t> own = shared_ads_basis_ != 0 ? response(node) : std::nullopt;
    if (own) {
        // Frontier nodes filed by their response are found by it; the others are few (those from
        // before the shared suffix, or that learned their response later), kept in a list.
        std::erase_if(nonresponsive_, [&](std::uint32_t f) { return !frontier_[f].alive || frontier_[f].responsive; });
        for (const std::uint32_t f : nonresponsive_) consider(f);
        if (const auto it = frontier_by_response_.find(*own); it != frontier_by_response_.end())
            for (const std::uint32_t f : it->second) consider(f);
    } else {
        for (Symbol a = 0; a < k_; ++a) {
            auto& by = frontier_by_key_[a];
            const Symbol o = signature_[static_cast<std::size_t>(b) * k_ + a];
            if (o < by.size())
                for (const std::uint32_t f : by[o]) consider(f);
        }
        for (const std::uint32_t f : unkeyed_)
            if (frontier_[f].key_input == kNone) consider(f);
    }
    // Its successors outside the basis become frontier nodes.
    for (Symbol a = 0; a < k_; ++a) {
        const NodeId t = edge(node, a)->target;
        if (t == node || basis_of(t) != kNone || frontier_of(t) != kNone) continue;
        Word w = access_[b];
        w.push_back(a);
        add_frontier(t, std::move(w), static_cast<std::size_t>(b) * k_ + a);
    }
}

void LSharp::Impl::file(std::uint32_t f) {
    Frontier& fr = frontier_[f];
    for (Symbol a = 0; a < k_; ++a) {
        const auto e = edge(fr.node, a);
        if (!e) continue;
        fr.key_input = a;
        auto& by = frontier_by_key_[a];
        if (by.size() <= e->output) by.resize(e->output + 1);
        by[e->output].push_back(f);
        return;
    }
}

void LSharp::Impl::add_frontier(NodeId node, Word access, std::size_t source) {
    const auto f = static_cast<std::uint32_t>(frontier_.size());
    frontier_.push_back(Frontier{node, std::move(access), {}, kNone, true, false});
    frontier_.back().source = source;
    frontier_role_[node] = f;
    ++alive_frontier_;
    file(f);
    Frontier& fr = frontier_[f];
    const std::optional<std::uint64_t> own = shared_ads_basis_ != 0 ? response(node) : std::nullopt;
    if (own) {
        fr.responsive = true;
        frontier_by_response_[*own].push_back(f);
        if (fr.key_input == kNone) unkeyed_.push_back(f);  // (cannot happen: it knows a suffix)
        std::vector<std::uint32_t> maybe = basis_no_response_;
        if (const auto it = basis_by_response_.find(*own); it != basis_by_response_.end())
            maybe.insert(maybe.end(), it->second.begin(), it->second.end());
        std::sort(maybe.begin(), maybe.end());
        for (const std::uint32_t b : maybe)
            if (!apart(node, basis_[b])) add_candidate(f, b);
    } else if (fr.key_input == kNone) {
        nonresponsive_.push_back(f);
        unkeyed_.push_back(f);
        for (std::uint32_t b = 0; b < basis_.size(); ++b) add_candidate(f, b);  // nothing known
    } else {
        nonresponsive_.push_back(f);
        const Symbol o = edge(node, fr.key_input)->output;
        const auto& by = basis_by_output_[fr.key_input];
        if (o < by.size())
            for (const std::uint32_t b : by[o])
                if (!apart(node, basis_[b])) add_candidate(f, b);
    }
    if (fr.candidates.empty()) isolate(f);
    else if (fr.candidates.size() > 1) attend(f);
}

void LSharp::Impl::refresh(std::uint32_t f) {
    Frontier& fr = frontier_[f];
    fr.dirty = false;
    changed(f);
    if (fr.key_input == kNone) file(f);
    if (shared_ads_basis_ != 0 && !fr.responsive) {
        if (auto own = response(fr.node)) {
            // Now it answers the shared suffix: only basis states with its answer (or none) remain.
            fr.responsive = true;
            frontier_by_response_[*own].push_back(f);
            const auto it = basis_by_response_.find(*own);
            std::erase_if(fr.candidates, [&](std::uint32_t b) {
                const auto& r = basis_response_[b];
                return r && *r != *own;
            });
            (void)it;
        }
    }
    std::erase_if(fr.candidates, [&](std::uint32_t b) { return apart(fr.node, basis_[b]); });
    if (fr.candidates.capacity() > 4 * fr.candidates.size() + 16) fr.candidates.shrink_to_fit();  // memory ~ tree
}

void LSharp::Impl::promote(std::uint32_t f) {
    Frontier& fr = frontier_[f];
    changed(f);
    fr.alive = false;
    --alive_frontier_;
    unattend(f);
    isolated_.erase({access_cost(f).first, access_cost(f).second, f});
    frontier_role_[fr.node] = kNone;
    add_basis(fr.node, std::move(fr.access));
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
        // The input that leaves the fewest candidates in the worst case (ties: more answers known,
        // then the smaller input).
        Symbol best = 0;
        std::size_t best_score = 0, best_defined = 0;
        bool found = false;
        // Scored on the first kAdsSample candidates only: the choice stays linear in |current|.
        const std::span<const NodeId> sample(current.data(), std::min(current.size(), kAdsSample));
        for (Symbol a = 0; a < k_; ++a) {
            if (ads_without_wait_ && ask_->traits().wait && a == *ask_->traits().wait) continue;
            std::size_t defined = 0, largest = 0;
            for (const NodeId n : sample) {
                const auto e = edge(n, a);
                if (!e) continue;
                if (counts_.size() <= e->output) counts_.resize(e->output + 1, 0);
                largest = std::max<std::size_t>(largest, ++counts_[e->output]);
                ++defined;
            }
            for (const NodeId n : sample) {
                const auto e = edge(n, a);
                if (e) counts_[e->output] = 0;
            }
            const std::size_t score = defined - largest;
            if (score > 0 && (!found || score > best_score || (score == best_score && defined > best_defined))) {
                found = true;
                best = a;
                best_score = score;
                best_defined = defined;
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

// ---- the loop ------------------------------------------------------------------------------------------

void LSharp::Impl::make_adequate() {
    while (true) {
        while (!isolated_.empty() || !attention_.empty()) {
            // Cheapest first, as L*'s breadth-first rows: a frontier node dearer than one still to be
            // identified waits for it (that node may be the new state). Its access sequence becomes a
            // basis state's, which every word of an Algorithm 2 suite repeats; and a cheaper basis
            // makes cheaper queries (measured: fewer queries and waits on the stand-ins).
            std::optional<std::uint32_t> cheaper;
            if (!isolated_.empty()) {
                const auto bound = std::make_pair(std::get<0>(*isolated_.begin()), std::get<1>(*isolated_.begin()));
                while (!attention_by_cost_.empty() && !frontier_[std::get<2>(*attention_by_cost_.begin())].alive)
                    unattend(std::get<2>(*attention_by_cost_.begin()));
                if (!attention_by_cost_.empty()) {
                    const auto& [waits, length, g] = *attention_by_cost_.begin();
                    if (std::make_pair(waits, length) < bound) cheaper = g;
                }
            }
            if (explore_ && !isolated_.empty() && !cheaper &&
                explore_suggested(std::make_pair(std::get<0>(*isolated_.begin()), std::get<1>(*isolated_.begin()))))
                continue;  // cheaper frontier nodes first: their answers may make one of them the new state
            if (!isolated_.empty() && !cheaper) {
                // Promotion first: a frontier node apart from the whole basis.
                const std::uint32_t f = std::get<2>(*isolated_.begin());
                isolated_.erase(isolated_.begin());
                Frontier& fr = frontier_[f];
                if (!fr.alive) continue;
                if (fr.dirty) refresh(f);
                if (fr.candidates.empty()) promote(f);
                else if (fr.candidates.size() > 1) attend(f);
                continue;
            }
            const std::uint32_t f = cheaper.value_or(*attention_.begin());
            Frontier& fr = frontier_[f];
            if (!fr.alive) {
                unattend(f);
                continue;
            }
            if (fr.dirty) refresh(f);
            if (fr.candidates.size() == 1 || predicted(f)) {
                unattend(f);
            } else if (fr.candidates.empty()) {
                unattend(f);
                isolate(f);
            } else {
                identify(f);  // separation: the answer makes it dirty
            }
        }
        ++full_passes_;
        // Answers below basis states may have made them apart from frontier nodes: check all once.
        // Only pairs where one side grew can have become apart.
        // Only those can pass the test below (in the same ascending order as a loop over all).
        std::vector<std::uint32_t>& todo = pass_scratch_;
        todo.clear();
        if (all_dirty_) {
            for (std::uint32_t f = 0; f < frontier_.size(); ++f) todo.push_back(f);
        } else {
            todo.insert(todo.end(), dirty_list_.begin(), dirty_list_.end());
            for (const std::uint32_t b : changed_basis_list_) {
                auto& list = by_candidate_[b];
                std::erase_if(list, [&](std::uint32_t f) {
                    const Frontier& fr = frontier_[f];
                    return !fr.alive || std::find(fr.candidates.begin(), fr.candidates.end(), b) == fr.candidates.end();
                });
                todo.insert(todo.end(), list.begin(), list.end());
            }
            std::sort(todo.begin(), todo.end());
            todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
        }
        for (const std::uint32_t f : todo) {
            Frontier& fr = frontier_[f];
            if (!fr.alive) continue;
            if (!fr.dirty && std::none_of(fr.candidates.begin(), fr.candidates.end(),
                                          [&](std::uint32_t b) { return basis_changed_[b] != 0; }))
                continue;
            refresh(f);
            if (fr.candidates.empty()) isolate(f);
            else if (fr.candidates.size() > 1 && !predicted(f)) attend(f);
        }
        if (all_dirty_) std::fill(basis_changed_.begin(), basis_changed_.end(), 0);
        for (const std::uint32_t b : changed_basis_list_) basis_changed_[b] = 0;
        changed_basis_list_.clear();
        dirty_list_.clear();
        all_dirty_ = false;
        if (isolated_.empty() && attention_.empty()) return;
    }
}

void LSharp::Impl::construct() {
    // Incrementally: the rows of new basis states, and the transitions into frontier nodes whose
    // candidates changed since the last hypothesis (a basis state's outputs and tree edges never change).
    const std::size_t n = basis_.size();
    auto fill = [&](std::size_t i) {
        const auto b = static_cast<std::uint32_t>(i / k_);
        const auto e = edge(basis_[b], static_cast<Symbol>(i % k_));
        std::uint32_t target = basis_of(e->target);
        if (target == kNone) target = choice(frontier_of(e->target));
        table_[i] = Transition{target, e->output};
    };
    const std::size_t built = table_.size();
    table_.resize(n * k_);
    for (const std::size_t i : changed_transitions_)
        if (i < built) fill(i);
    changed_transitions_.clear();
    for (std::size_t i = built; i < table_.size(); ++i) fill(i);
    hypothesis_.emplace(ask_->inputs(), ask_->outputs(), 0, table_);
    access_stale_ = true;  // computed when asked (access_sequences()), not per hypothesis
}

const std::vector<Word>& LSharp::Impl::hypothesis_access() {
    if (!access_stale_) return hypothesis_access_;
    access_stale_ = false;
    // The equivalence oracle runs its tests through these: the hypothesis's own shortest access
    // sequences (inputs other than `wait` first: waits are slow on a device), which may be shorter
    // than the basis's tree paths.
    hypothesis_access_.clear();
    const auto wait = ask_->traits().wait;
    auto cost = [&](const Word& w) {
        return std::make_pair(wait ? std::count(w.begin(), w.end(), *wait) : 0, w.size());
    };
    if (explore_) {
        // The words explore_suggested asked are built on the basis's access sequences: the suite must
        // use the same ones to find them in the tree.
        hypothesis_access_ = access_;
        return hypothesis_access_;
    }
    StateId s = 0;
    for (auto& w : typestar::access_sequences(*hypothesis_, input_order())) {
        // The basis's own word where it is no dearer: the words asked from it are then the suite's.
        Word shortest = w.value_or(Word{});
        hypothesis_access_.push_back(cost(access_[s]) <= cost(shortest) ? access_[s] : std::move(shortest));
        ++s;
    }
    return hypothesis_access_;
}

std::vector<Word> LSharp::Impl::inconsistencies(std::size_t limit) {
    // Incremental: only nodes whose hypothesis state changed, or that are new, are looked at again
    // (the same words as a breadth-first pass over the whole tree; tree_consistency.hpp).
    return consistency_->check(*hypothesis_, limit);
}

void LSharp::Impl::process(Word sigma) {
    const MealyMachine& h = *hypothesis_;
    while (true) {
        const auto r = tree_->node_of(sigma);
        if (!r) throw std::logic_error("L#: a counterexample left the tree");
        if (basis_of(*r) != kNone) return;
        if (const std::uint32_t f = frontier_of(*r); f != kNone && frontier_[f].alive) {
            mark_dirty(f);
            frontier_[f].no_prediction = true;
            changed(f);
            attend(f);
            return;
        }
        // The part of sigma inside the basis, up to the frontier node it runs through.
        std::size_t j = 0;
        for (NodeId n = kRoot; basis_of(n) != kNone; ++j) n = edge(n, sigma[j])->target;
        --j;  // the frontier node is reached by sigma[0..j]
        const std::size_t split = (j + 1 + sigma.size()) / 2;
        const Word s1(sigma.begin(), sigma.begin() + static_cast<std::ptrdiff_t>(split));
        const Word s2(sigma.begin() + static_cast<std::ptrdiff_t>(split), sigma.end());
        const StateId q1 = h.run(s1);
        const NodeId b = basis_[h.run(sigma)];
        const auto eta = witness(*r, b);
        if (!eta) throw std::logic_error("L#: counterexample analysis lost its witness");
        Word next = concat(access_[q1], s2);
        ask(concat(next, *eta));
        const auto x = tree_->node_of(next);
        if (x && apart(*x, b)) sigma = std::move(next);
        else sigma = s1;
    }
}

bool LSharp::Impl::explore_suggested(std::optional<std::pair<std::size_t, std::size_t>> below) {
    if (suggested_words_.empty()) {
        // Σ^B in input order: the suffixes DroidStar Algorithm 2 runs from every transition.
        suggested_words_.emplace_back();
        for (std::size_t length = 0; length < suggested_; ++length) {
            std::vector<Word> longer;
            longer.reserve(suggested_words_.size() * k_);
            for (const Word& w : suggested_words_)
                for (Symbol a = 0; a < k_; ++a) {
                    longer.push_back(w);
                    longer.back().push_back(a);
                }
            suggested_words_.swap(longer);
        }
    }
    const std::size_t before = tree_->num_nodes();
    std::vector<Word> words;
    // Every transition leaving the basis tree ends in a frontier node (a loop — err, a declared
    // quiet wait — and an edge of the basis tree have no words of their own). Cheapest first.
    std::vector<std::uint32_t> order;
    for (std::uint32_t f = 0; f < frontier_.size(); ++f)
        if (frontier_[f].alive && !frontier_[f].explored && (!below || access_cost(f) < *below)) order.push_back(f);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t x, std::uint32_t y) { return access_cost(x) < access_cost(y); });
    for (const std::uint32_t f : order) {
        frontier_[f].explored = true;
        {
            for (const Word& s : suggested_words_) {
                NodeId n = frontier_[f].node;
                bool known = true;
                for (const Symbol x : s) {
                    const auto next = edge(n, x);
                    if (!next) {
                        known = false;
                        break;
                    }
                    n = next->target;
                }
                if (known) continue;
                Word w = frontier_[f].access;
                w.insert(w.end(), s.begin(), s.end());
                w.push_back(pad_input_);
                words.push_back(std::move(w));
            }
        }
    }
    if (words.empty()) return false;
    // The pad is a look-ahead (Query::optional_tail): what the tree knows without it runs nothing.
    std::vector<Word> answers(words.size());
    std::vector<Query> batch;
    batch.reserve(words.size());
    for (std::size_t i = 0; i < words.size(); ++i) {
        answers[i].resize(words[i].size());
        batch.push_back(Query{{}, words[i], answers[i], 1});
    }
    ask_->query_all(batch);
    grow_roles();
    for (const Word& w : words) touch(w);
    return tree_->num_nodes() != before;
}

bool LSharp::Impl::check_seed_states() {
    std::vector<Word> words;
    for (std::uint32_t f = 0; f < frontier_.size(); ++f) {
        const Frontier& fr = frontier_[f];
        if (!fr.alive) continue;
        const std::optional<StateId> predicted_state = seed_state_of_frontier(f);
        const std::uint32_t b = choice(f);
        const std::optional<StateId> chosen = basis_seed_[b];
        if (!predicted_state || !chosen || *predicted_state == *chosen) continue;
        if (!seed_pairs_checked_.emplace(fr.node, b).second) continue;
        const auto w = separating_word(*seed_, *predicted_state, *chosen);
        if (!w) continue;
        for (const Word* access : {static_cast<const Word*>(&fr.access), static_cast<const Word*>(&access_[b])}) {
            Word word = concat(*access, *w);
            if (!tree_->node_of(word)) words.push_back(std::move(word));
        }
    }
    if (words.empty()) return false;
    log_->debug("L#: the hypothesis takes {} word(s) of the seed's transitions elsewhere: asked the seed's words telling "
                "them apart", words.size());
    ask_all(words);
    return true;
}

void LSharp::Impl::build() {
    while (true) {
        make_adequate();
        construct();
        const auto words = inconsistencies(kConsistencyBatch);
        if (words.empty()) {
            if (explore_ && explore_suggested()) continue;  // new answers: adequate and consistent again
            if (seed_ && check_seed_states()) continue;
            nodes_after_build_ = tree_->num_nodes();
            executed_after_build_ = tree_->stats().executed;
            return;
        }
        log_->debug("L#: the hypothesis contradicts the tree on {} words", words.size());
        for (const Word& word : words) process(Word(word.begin(), word.end() - 1));
    }
}

void LSharp::Impl::start() {
    const Alphabet& inputs = ask_->inputs();
    explore_ = config_.explore_suggested && suggested_ >= 2;
    basis_by_output_.assign(k_, {});
    const auto wait = ask_->traits().wait;
    for (auto a = static_cast<Symbol>(k_); a-- > 0;)
        if (!wait || a != *wait) pad_input_ = a;
    frontier_by_key_.assign(k_, {});
    if (config_.seed) {
        seed_ = over_alphabets(minimize(*config_.seed), inputs, ask_->outputs());
        log_->info("L# seeded with a {}-state machine: its states are rebuilt on the device first",
                   seed_->num_states());
        predicting_ = true;
        rebuild();
    }
    add_basis(kRoot, {});
    build();
}

void LSharp::Impl::rebuild() {
    // Adaptive L# (rebuilding): every transition of the seed, from the seed's access words, followed by
    // the words that identify its target in the seed, asked of the device before the first
    // hypothesis. Where the device still behaves as the seed, the seed's states come out pairwise
    // apart and every transition identified, so L#'s rules promote and identify them without another
    // query; where it does not (the change), the tree says so and the rules ask what is missing.
    // Nothing is taken from the seed without the device's answer.
    const MealyMachine& seed = *seed_;
    const std::vector<Symbol> order = input_order();
    seed_ids_ = identifiers(seed, order, ask_->traits().wait);
    const std::vector<std::vector<Word>>& ids = seed_ids_;
    std::vector<Word> words;
    // From `prefix`, the first (`all`: every) word identifying `target` in the seed.
    const auto ask_from = [&](const Word& prefix, StateId target, bool all) {
        if (ids[target].empty()) {
            if (!prefix.empty()) words.push_back(prefix);
            return;
        }
        for (const Word& id : ids[target]) {
            Word suffix = id;
            pad(suffix);
            words.push_back(concat(prefix, suffix));
            if (!all) break;
        }
    };
    // The seed's states, each from its access word with every identifying word (so that they come out
    // pairwise apart and are promoted); every other transition with the first word of its target's
    // (mostly enough to identify it; where not, the seed predicts the rest until the device refutes it).
    seed_access_ = typestar::access_sequences(seed, order);
    const auto& access = seed_access_;
    for (StateId q = 0; q < seed.num_states(); ++q)
        if (access[q]) ask_from(*access[q], q, true);
    for (StateId q = 0; q < seed.num_states(); ++q) {
        if (!access[q]) continue;
        for (const Symbol a : order) {
            Word w = *access[q];
            w.push_back(a);
            ask_from(w, seed.successor(q, a), false);
        }
    }
    // A word that is a prefix of another asks nothing more.
    std::sort(words.begin(), words.end());
    std::vector<Word> kept;
    for (std::size_t i = 0; i < words.size(); ++i) {
        const Word& w = words[i];
        if (i + 1 < words.size() && words[i + 1].size() >= w.size() &&
            std::equal(w.begin(), w.end(), words[i + 1].begin()))
            continue;
        kept.push_back(w);
    }
    log_->debug("L#: rebuilding the seed's {} states with {} words", seed.num_states(), kept.size());
    ask_all(kept);
}

bool LSharp::Impl::refine(const Counterexample& cex) {
    if (tree_->num_nodes() != nodes_after_build_ || tree_->stats().executed != executed_after_build_) {
        // The equivalence oracle's queries went into the tree too: any subtree may have grown.
        consistency_->reset();
        std::fill(basis_changed_.begin(), basis_changed_.end(), 1);
        for (Frontier& fr : frontier_) fr.dirty = fr.alive;
        all_dirty_ = true;  // the next pass looks at every frontier node
    }
    const MealyMachine old = *hypothesis_;
    const Word expected = old.outputs_of(cex.inputs);
    std::size_t d = 0;
    while (d < cex.inputs.size() && d < cex.actual.size() && expected[d] == cex.actual[d]) ++d;
    if (d >= cex.inputs.size() || d >= cex.actual.size()) return false;
    const Word prefix(cex.inputs.begin(), cex.inputs.begin() + static_cast<std::ptrdiff_t>(d) + 1);
    // The counterexample's answer is the device's (the equivalence oracle's contract): into the tree
    // like any answer, checked against it (NondeterminismError on a contradiction), no query.
    tree_->insert(prefix, std::span<const Symbol>(cex.actual.data(), d + 1));
    grow_roles();
    touch(prefix);
    const auto last = tree_->node_of(Word(prefix.begin(), prefix.end() - 1));
    const auto e = last ? edge(*last, prefix.back()) : std::nullopt;
    if (!e || e->output == expected[d]) return false;  // the device does not answer as the counterexample says
    process(Word(prefix.begin(), prefix.end() - 1));
    build();
    auto changed = [&] {
        return hypothesis_->num_states() != old.num_states() ||
               !std::equal(hypothesis_->table().begin(), hypothesis_->table().end(), old.table().begin());
    };
    if (!changed() && predicting_) {
        log_->info("L#: seed predictions stop helping; identifying every state by queries from now on");
        predicting_ = false;
        table_.clear();
        for (std::uint32_t f = 0; f < frontier_.size(); ++f)
            if (frontier_[f].alive && frontier_[f].candidates.size() > 1) attend(f);
        build();
    }
    return changed();
}

// ---- LSharp --------------------------------------------------------------------------------------------

LSharp::LSharp(MembershipOracle& oracle, LSharpConfig config)
    : impl_(std::make_unique<Impl>(oracle, std::move(config))) {}
LSharp::~LSharp() = default;

void LSharp::prepare_for(std::size_t suggested_suffix_length) { impl_->suggested_ = suggested_suffix_length; }
void LSharp::start() { impl_->start(); }
bool LSharp::refine(const Counterexample& cex) { return impl_->refine(cex); }

MealyMachine LSharp::hypothesis() const {
    if (!impl_->hypothesis_) throw std::logic_error("LSharp::hypothesis() before start()");
    return *impl_->hypothesis_;
}
std::vector<Word> LSharp::access_sequences() const { return impl_->hypothesis_access(); }

std::string LSharp::progress() const {
    return std::to_string(impl_->basis_.size()) + " basis, " + std::to_string(impl_->alive_frontier_) +
           " frontier states, " + std::to_string(impl_->full_passes_) + " passes";
}

}  // namespace typestar
