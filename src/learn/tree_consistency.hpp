// Internal to L# (lsharp.cpp; not installed): which words of the observation tree a hypothesis
// answers wrongly, checked incrementally. A full breadth-first pass per hypothesis is linear in the
// tree, and L# builds many hypotheses (every counterexample, every batch of inconsistencies): at
// 10,000 states that pass was most of the learner's CPU. This checker remembers, per tree node, the
// hypothesis state it was last checked in, and visits again only what can have changed: the nodes
// whose state changed (below a transition of the hypothesis that changed) and the nodes that are new
// (below the words it was told about). Memory: a few words per tree node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/sul/cache.hpp"

namespace typestar::detail {

/// Incremental consistency of a hypothesis with an observation tree (a CacheOracle's prefix tree).
class TreeConsistency {
public:
    using NodeId = CacheOracle::NodeId;

    /// Checks against `tree`, which must outlive this checker and may only grow.
    explicit TreeConsistency(const CacheOracle& tree) : tree_(tree) {}

    /// The tree may have grown along `word` (asked or inserted since the last check). A word the
    /// checker is not told about is still found if it added a node (a check that leaves tree nodes
    /// unvisited falls back to a full pass), but not if it added only a loop (a `wait` answered
    /// `quiet`): a caller that does not know what grew calls reset().
    void note_word(std::span<const Symbol> word);
    /// The next check is a full pass.
    void reset() noexcept { primed_ = false; }

    /// The first `limit` words (shortest first, then by input ids: breadth-first order) of the tree
    /// whose last output `hypothesis` answers wrongly while it answers every proper prefix rightly —
    /// exactly what full_check returns. `hypothesis` must be over the tree's inputs with states
    /// numbered stably from one check to the next (a state keeps its id; new states are added).
    [[nodiscard]] std::vector<Word> check(const MealyMachine& hypothesis, std::size_t limit);

    /// The same by one breadth-first pass over the whole tree (the reference, and what a check
    /// falls back to).
    [[nodiscard]] static std::vector<Word> full_check(const CacheOracle& tree, const MealyMachine& hypothesis,
                                                      std::size_t limit);

    /// Tree nodes whose children the last check examined (for tests: far below the tree's size when
    /// little changed).
    [[nodiscard]] std::size_t last_visited() const noexcept { return visited_; }
    /// Whether the last check was a full pass.
    [[nodiscard]] bool last_was_full() const noexcept { return last_full_; }

private:
    static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

    void full_reset(const MealyMachine& hypothesis);
    void process();
    void compact();
    Word word_of(NodeId node, Symbol input) const;

    const CacheOracle& tree_;
    std::size_t k_ = 0;
    std::vector<std::uint32_t> state_;   // per node: the hypothesis state it was checked in (kNone: never)
    std::vector<NodeId> parent_;         // per node: its parent, once checked
    std::vector<Symbol> input_;          // per node: the input from its parent
    std::vector<std::vector<NodeId>> members_;  // per hypothesis state: nodes checked in it (stale entries skipped)
    std::vector<Transition> table_;      // the hypothesis the nodes were checked against
    std::size_t states_ = 0;
    std::vector<NodeId> pending_;        // checked nodes whose children are to be (re)examined
    std::vector<std::pair<NodeId, Symbol>> wrong_;  // (node, input) the hypothesis answered wrongly
    std::vector<char> below_wrong_;      // per node, scratch of check(): kept all 0 between checks
    std::size_t checked_nodes_ = 0;      // nodes with a state
    std::size_t member_entries_ = 0;     // in members_, stale ones included
    StateId initial_ = 0;
    bool primed_ = false;
    std::size_t visited_ = 0;
    bool last_full_ = false;
};

}  // namespace typestar::detail
