// An SL*-style learner for register automata (Cassel, Howar, Jonsson, Steffen: "Learning Extended
// Finite State Machines", SEFM 2014). Design note: tree queries are realised by black-box testing.
// For a prefix u (a concrete data word) and a symbolic suffix (a sequence of inputs), the tree
// oracle enumerates one concrete continuation per data class of the suffix's parameters (equal to
// each earlier value, fresh, and for `int` below, between and above them) and records the output
// words symbolically: that is the tree. A prefix value is *memorable* when some branch depends on
// it (replacing it by a neighbouring or fresh value in the suffix changes the answer) or an output
// reveals it; memorable values become registers. Rows are compared by their trees over the
// memorable values, up to an order-preserving renaming of `int` values and any renaming of `id`
// values (tried exhaustively for up to RaLearnConfig::max_permuted ids, else first-occurrence
// order, which can only add locations, never merge wrong ones). Closedness adds prefixes, register
// consistency adds suffixes, counterexamples add all their suffixes (Maler–Pnueli).
// Equality theory (no `int` data): the tree oracle builds SL*'s symbolic decision trees — an
// equality branch that behaves like the else branch (the parameter read as the equal term) is
// merged into it — and the registers are the prefix values the merged trees name; rows are
// compared as trees up to register renaming, an equality class of a successor is absorbed into the
// else class when its trees are the else class's read that way (so registers may hold equal values
// and guards are first-match), and symbolic suffixes mark each parameter free (may equal a prefix
// value) or local (only the suffix's own values and constants): the initial suffixes are local,
// a counterexample's suffix is free where its value occurred before. Ordered theory (`int` data):
// the trees branch an `int` parameter by interval and equality classes and merge
// adjacent classes whose subtrees are the same with the parameter read accordingly (`p < r1` and
// `p == r1` -> `p <= r1`), rows are compared up to an order-preserving renaming, and registers are
// again the prefix values the merged trees name; `int` parameters stay free. With SL*'s `+c`
// increments the trees keep one branch per data class (registers by replacing values by their
// integer neighbours).
// The roles are the typestate pipeline's (one loop, one counter, one equivalence interface): the learner implements BasicLearner<RaKind>
// and runs in the one experiment loop (typestar/learn/learner.hpp, run_experiment), its data
// oracle counts into the one QueryCounter, and its equivalence oracle is the generalised
// Algorithm 2 suite in conformance (typestar/conformance/ra_equivalence.hpp);
// learn_register_automaton (typestar/session/register_automata.hpp) puts them together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "typestar/learn/learner.hpp"
#include "typestar/ra/automaton.hpp"
#include "typestar/ra/oracle.hpp"

namespace typestar::ra {

/// Register automata as a kind of hypothesis for the experiment loop: access words and
/// counterexamples are data words; a counterexample refutes a hypothesis while the hypothesis,
/// run in lockstep with the device's answers (LockstepCheck), differs on it.
struct RaKind {
    using Hypothesis = RegisterAutomaton;
    using Access = DataWord;
    using Counterexample = RaCounterexample;
    static bool refutes(const Hypothesis& hypothesis, const Counterexample& cex);
    static std::size_t size(const Hypothesis& hypothesis) { return hypothesis.locations.size(); }
    static std::size_t length(const Counterexample& cex) { return cex.inputs.size(); }
    static void finish(Hypothesis&, std::vector<Access>&) {}
};

/// Options of the learner and its equivalence oracle; plain values with defaults.
struct RaLearnConfig {
    std::size_t max_locations = 64;   ///< give up (converged = false) beyond this many locations
    std::size_t max_rounds = 64;      ///< give up after this many hypotheses
    std::size_t max_permuted = 5;     ///< try every renaming of up to this many memorable ids
    /// The distinguisher bound B of the equivalence oracle, recorded in the learned spec: every
    /// data word of up to B steps from each location in the data classes of the hypothesis's
    /// guards (ra::search_difference), the random words below, and then (the certification,
    /// `equivalence_suite`) the generalised Algorithm 2 suite at B (every transition of every explored (location, register
    /// order type) pair, followed by every data word of up to B steps, one per data class): the
    /// words `typestar check --bound B` runs, so a converged result passes that check.
    std::size_t equivalence_bound = 2;
    /// Then random data words (ra::search_difference): `random_words_per_transition` per transition
    /// of the hypothesis (at least 100), at most `random_words`, of up to `random_length` steps
    /// (shortest first), each parameter in a data class relative to the hypothesis's registers or
    /// to every value of the word, from a generator seeded with `seed`.
    std::size_t random_words = 500;
    std::size_t random_length = 12;
    std::uint64_t seed = 1;
    /// Whether the equivalence oracle runs the suite at B (RaEquivalenceConfig::suite). Off, a
    /// converged result is weaker evidence than `check --bound B`: only for measuring the learner.
    bool equivalence_suite = true;
    /// Give up (converged = false) once this many concrete queries were executed, or ten times as
    /// many were asked (cache hits included); 0: no limit.
    std::size_t max_executed = 0;
    /// Ordered theory (`int` data without increments): a transition of a one-parameter input that
    /// takes adjacent data classes gets one interval guard (`p <= r1`, `r1 < p <= r2`) instead of
    /// their disjunction (`p < r1 || p == r1`). Interval guards stay disjoint when registers hold
    /// equal values, so equality classes merge into their neighbours where the disjunctions made
    /// guards overlap (then the learner falls back to one branch per class): RALib's pq3 is learned
    /// as 4 locations (a register per queued value, equal values allowed) instead of 8, exactly.
    /// Off by default: on, it would change the committed learned specs (std/java priority queue),
    /// which must stay byte for byte what users have stored.
    bool interval_guards = false;
    std::size_t random_words_per_transition = 8;  ///< see random_words
};

/// The SL*-style learner (see the design note above) as a BasicLearner<RaKind>: start() and
/// refine() ask tree queries through `oracle`; a configured limit (locations, query budget, a
/// counterexample that adds no suffix) is a LearningLimit.
class SlStarLearner final : public BasicLearner<RaKind> {
public:
    /// `signature` gives the name, inputs, outputs and constants (its locations are ignored);
    /// `signature` and `oracle` outlive the learner.
    SlStarLearner(const RegisterAutomaton& signature, DataOracle& oracle, const RaLearnConfig& config = {});
    ~SlStarLearner() override;
    SlStarLearner(const SlStarLearner&) = delete;
    SlStarLearner& operator=(const SlStarLearner&) = delete;

    void start() override;
    bool refine(const RaCounterexample& cex) override;
    [[nodiscard]] RegisterAutomaton hypothesis() const override;
    [[nodiscard]] std::vector<DataWord> access_sequences() const override;
    [[nodiscard]] std::string progress() const override;
    [[nodiscard]] std::string name() const override { return "SL*"; }
    /// Symbolic suffixes in the table.
    [[nodiscard]] std::size_t suffixes() const;
    /// Of the tree queries, those built only to check that an equality class behaves like a
    /// neighbouring class (and it did, so the class got no branch of its own): SL*'s tree oracle
    /// merges such guards inside one tree and asks no tree for them.
    [[nodiscard]] std::size_t covering_tree_queries() const;

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

/// The result of learning. `converged` is true when the last hypothesis passed the equivalence
/// oracle (bounded evidence: `equivalence` says which words); else `failure` says why learning
/// stopped and `hypothesis` is the last one.
struct RaLearnResult {
    RegisterAutomaton hypothesis;
    QueryStats stats;              ///< the one counter: learning and equivalence phases, rounds
    std::size_t tree_queries = 0;  ///< SL* tree queries
    std::size_t covering_tree_queries = 0;  ///< of those, SlStarLearner::covering_tree_queries()
    bool converged = false;
    std::string failure;
    std::size_t suffixes = 0;      ///< symbolic suffixes in the final table
    std::string learner;           ///< the learner's name, "SL*"
    std::string equivalence;       ///< what the equivalence oracle ran, for messages and provenance
    /// Of stats.equivalence's queries executed, those of the certification (the suite at B); the
    /// rest are the counterexample search's.
    std::uint64_t certification_executed = 0;
};

/// The tree oracle alone: one concrete continuation of `prefix` per data class of `suffix`'s
/// parameters relative to every value of the prefix (and its outputs), the constants of
/// `signature` and the suffix's own earlier values; each leaf is the suffix's inputs and the
/// device's outputs. Counts one tree query.
[[nodiscard]] std::vector<std::pair<DataWord, DataWord>> tree_query(DataOracle& oracle, const RegisterAutomaton& signature,
                                                                    const DataWord& prefix,
                                                                    const std::vector<std::size_t>& suffix);
/// SL*'s tree query: the symbolic decision tree of `suffix` (every parameter free) after `prefix`,
/// one line per guard or output, indented by depth: `[p1 == 7]`, `[p1 != 7]` (the else branch),
/// `[p1 <= 5]`, `[5 < p1 < 9]`, `[LOW <= p1 <= HIGH]`, `[true]`, `ok`, `val(7)`, `key(fresh)`;
/// suffix parameters are p1, p2, ... across the suffix, prefix values appear as themselves and
/// constants by name. Equality branches that behave like the else branch are merged into it; for
/// `int` parameters adjacent interval and equality branches with the same subtree (the parameter
/// read accordingly) are one guard. Empty when `signature` declares `+c` increments (then the
/// ordered theory keeps one concrete run per data class: see tree_query). Counts one tree query.
[[nodiscard]] std::string symbolic_tree(DataOracle& oracle, const RegisterAutomaton& signature, const DataWord& prefix,
                                        const std::vector<std::size_t>& suffix);
/// The memorable values of `prefix` with respect to the symbolic `suffixes` (each a sequence of
/// input indices): the prefix values (constants excluded) that some tree depends on or some output
/// reveals, in order of first occurrence.
[[nodiscard]] std::vector<Value> memorable_values(DataOracle& oracle, const RegisterAutomaton& signature,
                                                  const DataWord& prefix,
                                                  const std::vector<std::vector<std::size_t>>& suffixes);

}  // namespace typestar::ra
