// Incremental consistency of a hypothesis with L#'s observation tree (tree_consistency.hpp).
// Hand-written: it works on typestar's own cache tree; no library has this structure.
#include "tree_consistency.hpp"

#include <algorithm>
#include <tuple>

namespace typestar::detail {

namespace {

bool shortlex_less(const Word& a, const Word& b) {
    if (a.size() != b.size()) return a.size() < b.size();
    return a < b;
}

}  // namespace

void TreeConsistency::note_word(std::span<const Symbol> word) {
    if (!primed_) return;  // the first check is a full pass anyway
    NodeId n = CacheOracle::kRootNode;
    for (const Symbol a : word) {
        const auto e = tree_.edge(n, a);
        if (!e) return;
        if (e->target == n) {
            pending_.push_back(n);  // a loop has no node of its own: it may be new
            continue;
        }
        const NodeId c = e->target;
        if (c >= state_.size() || state_[c] == kNone) {
            pending_.push_back(n);  // a checked node with a new node below it
            return;
        }
        n = c;
    }
}

void TreeConsistency::full_reset(const MealyMachine& hypothesis) {
    const std::size_t n = tree_.num_nodes();
    k_ = hypothesis.num_inputs();
    state_.assign(n, kNone);
    parent_.assign(n, kNone);
    input_.assign(n, 0);
    members_.assign(hypothesis.num_states(), {});
    table_.assign(hypothesis.table().begin(), hypothesis.table().end());
    states_ = hypothesis.num_states();
    wrong_.clear();
    pending_.clear();
    state_[CacheOracle::kRootNode] = hypothesis.initial();
    members_[hypothesis.initial()].push_back(CacheOracle::kRootNode);
    member_entries_ = 1;
    pending_.push_back(CacheOracle::kRootNode);
    checked_nodes_ = 1;
    primed_ = true;
    initial_ = hypothesis.initial();
}

void TreeConsistency::compact() {
    member_entries_ = 0;
    for (std::uint32_t s = 0; s < members_.size(); ++s) {
        auto& bucket = members_[s];
        std::erase_if(bucket, [&](NodeId u) { return state_[u] != s; });
        std::sort(bucket.begin(), bucket.end());
        bucket.erase(std::unique(bucket.begin(), bucket.end()), bucket.end());
        member_entries_ += bucket.size();
    }
}

void TreeConsistency::process() {
    while (!pending_.empty()) {
        const NodeId u = pending_.back();
        pending_.pop_back();
        ++visited_;
        const std::uint32_t s = state_[u];
        for (Symbol a = 0; a < k_; ++a) {
            const auto e = tree_.edge(u, a);
            if (!e) continue;
            const Transition& t = table_[static_cast<std::size_t>(s) * k_ + a];
            if (e->output != t.output) wrong_.emplace_back(u, a);
            if (e->target == u) continue;  // a loop: its output is all there is to compare
            const NodeId c = e->target;
            if (state_[c] == t.target) continue;  // checked in this state, and nothing new below it
            if (state_[c] == kNone) {
                ++checked_nodes_;
                parent_[c] = u;
                input_[c] = a;
            }
            state_[c] = t.target;
            members_[t.target].push_back(c);
            ++member_entries_;
            pending_.push_back(c);
        }
    }
}

Word TreeConsistency::word_of(NodeId node, Symbol input) const {
    Word w{input};
    for (NodeId n = node; n != CacheOracle::kRootNode; n = parent_[n]) w.push_back(input_[n]);
    std::reverse(w.begin(), w.end());
    return w;
}

std::vector<Word> TreeConsistency::check(const MealyMachine& hypothesis, std::size_t limit) {
    visited_ = 0;
    last_full_ = false;
    const std::size_t n = tree_.num_nodes();
    const bool comparable = primed_ && hypothesis.num_inputs() == k_ && hypothesis.num_states() >= states_ &&
                            hypothesis.initial() == initial_;
    if (!comparable) {
        full_reset(hypothesis);
        last_full_ = true;
    } else {
        state_.resize(n, kNone);
        parent_.resize(n, kNone);
        input_.resize(n, 0);
        members_.resize(hypothesis.num_states());
        // Nodes checked in a state whose transition changed: their children again.
        const auto table = hypothesis.table();
        for (std::uint32_t s = 0; s < states_; ++s) {
            bool changed = false;
            for (Symbol a = 0; a < k_ && !changed; ++a) {
                const std::size_t i = static_cast<std::size_t>(s) * k_ + a;
                changed = !(table[i] == table_[i]);
            }
            if (!changed) continue;
            auto& bucket = members_[s];
            std::erase_if(bucket, [&](NodeId u) { return state_[u] != s; });  // moved to another state
            pending_.insert(pending_.end(), bucket.begin(), bucket.end());
        }
        table_.assign(table.begin(), table.end());
        states_ = hypothesis.num_states();
    }
    process();
    if (member_entries_ > 2 * n + 1024) compact();  // memory stays proportional to the tree
    if (checked_nodes_ != n) {
        // The tree grew by words nobody told us about (e.g. an equivalence oracle's): all of it.
        full_reset(hypothesis);
        last_full_ = true;
        process();
    }
    // Still wrong (a node's state may have changed since it was found), once each.
    std::erase_if(wrong_, [&](const std::pair<NodeId, Symbol>& w) {
        const auto e = tree_.edge(w.first, w.second);
        return !e || e->output == table_[static_cast<std::size_t>(state_[w.first]) * k_ + w.second].output;
    });
    std::sort(wrong_.begin(), wrong_.end());
    wrong_.erase(std::unique(wrong_.begin(), wrong_.end()), wrong_.end());
    if (wrong_.empty()) return {};
    // Reported as a breadth-first pass would: not below another wrong answer, shortest first.
    std::vector<char>& below_wrong = below_wrong_;  // all 0 between checks: only marked entries are cleared
    below_wrong.resize(n, 0);
    for (const auto& [u, a] : wrong_) {
        const auto e = tree_.edge(u, a);
        if (e->target != u) below_wrong[e->target] = 1;
    }
    std::vector<std::tuple<std::size_t, NodeId, Symbol>> candidates;  // depth, node, input
    for (const auto& [u, a] : wrong_) {
        std::size_t depth = 0;
        bool hidden = false;
        for (NodeId m = u; m != CacheOracle::kRootNode; m = parent_[m], ++depth) hidden = hidden || below_wrong[m];
        if (!hidden) candidates.emplace_back(depth, u, a);
    }
    for (const auto& [u, a] : wrong_) {
        const auto e = tree_.edge(u, a);
        if (e->target != u) below_wrong[e->target] = 0;
    }
    std::sort(candidates.begin(), candidates.end());
    // Every candidate as short as the limit-th one, in shortlex order.
    std::size_t take = std::min(limit, candidates.size());
    if (take == 0) return {};
    const std::size_t max_depth = std::get<0>(candidates[take - 1]);
    std::vector<Word> words;
    for (const auto& [depth, u, a] : candidates) {
        if (depth > max_depth) break;
        words.push_back(word_of(u, a));
    }
    std::sort(words.begin(), words.end(), shortlex_less);
    words.resize(take);
    return words;
}

std::vector<Word> TreeConsistency::full_check(const CacheOracle& tree, const MealyMachine& hypothesis,
                                              std::size_t limit) {
    struct Item {
        NodeId node;
        StateId state;
        std::uint32_t parent;
        Symbol input;
    };
    std::vector<Word> found;
    if (limit == 0) return found;
    const std::size_t k = hypothesis.num_inputs();
    std::vector<Item> queue{{CacheOracle::kRootNode, hypothesis.initial(), kNone, 0}};
    for (std::size_t i = 0; i < queue.size(); ++i) {
        const Item item = queue[i];
        for (Symbol a = 0; a < k; ++a) {
            const auto e = tree.edge(item.node, a);
            if (!e) continue;
            const Transition& t = hypothesis.transition(item.state, a);
            if (t.output != e->output) {
                Word w{a};
                for (std::uint32_t j = static_cast<std::uint32_t>(i); queue[j].parent != kNone; j = queue[j].parent)
                    w.push_back(queue[j].input);
                std::reverse(w.begin(), w.end());
                found.push_back(std::move(w));
                if (found.size() >= limit) return found;
                continue;  // not below it
            }
            if (e->target == item.node) continue;
            queue.push_back(Item{e->target, t.target, static_cast<std::uint32_t>(i), a});
        }
    }
    return found;
}

}  // namespace typestar::detail
