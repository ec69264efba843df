// L# for Mealy machines (Vaandrager, Garhewal, Rot, Wißmann, "A New Approach for Active Automata
// Learning Based on Apartness", TACAS 2022, arXiv 2107.05419), error-aware (Kruger, Junges, Rot,
// "Error-awareness accelerates active automata learning").
// Design note: L# keeps no table. Its observation tree is the oracle stack's prefix-tree cache, read
// through CacheOracle's view (MembershipOracle::prefix_tree()), so every answer the stack has seen —
// learning, counterexample analysis, the equivalence oracle's suite — counts for apartness. The
// assumptions the device declares are the cache's: a known `err` is absorbing (no query extends it,
// and a node past it answers `err` to everything, so every state that answers only `err` is one
// basis state, the sink, identified without a query) and a `wait` answered `quiet` is a self-loop
// only when the device declares `quiet` (DeviceTraits). The learner keeps a basis (tree nodes pairwise
// apart), its frontier (their one-input successors) with candidate sets, and applies the four rules:
// promotion, extension, separation, equivalence; counterexamples are analysed by binary search on the
// tree. Identification uses adaptive distinguishing sequences computed on the tree; since a
// membership query is a fixed word, an ADS runs as the word along its predicted branch (the seed's,
// else the last hypothesis's, else the largest one; for extension words too), each input chosen to
// take the most candidates off that branch (then to split the most pairs), completed by a shortest
// witness where no single input splits the candidates left, and a deviation costs one more query. A
// counterexample's answer goes into the tree (CacheOracle::insert, checked like a device answer)
// without a query. Queries from a frontier node are padded to the equivalence oracle's suggested
// suffix length, so that DroidStar Algorithm 2's suite finds them in the cache. When that length B
// is at least 2, L# also asks the suite's own words before each hypothesis (R(q)·i·s, |s| = B, on
// the basis's access sequences, frontier nodes cheapest first, each word with one look-ahead input),
// so the suite is answered by the tree and no query is spent twice (LSharpConfig::explore_suggested).
// Every hypothesis is checked against the whole tree, incrementally: only tree nodes whose
// hypothesis state changed, or that are new, are looked at again; and the hypothesis itself is
// rebuilt only where a frontier node's candidates changed (near-linear CPU at 10,000 states).
//
// Typical use (exactly like LStar; the session layer does this):
//
//     OracleStack stack(device);
//     SuiteEquivalenceOracle alg2(stack.oracle());
//     LSharp lsharp(stack.oracle());
//     LearnResult r = run_experiment(lsharp, alg2, stack.counter());
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/learn/learner.hpp"
#include "typestar/sul/equivalence.hpp"
#include "typestar/sul/oracle.hpp"

namespace typestar {

/// What a new frontier node is asked together with its first output (the L# extension rule).
enum class LSharpExtension {
    /// Only access(q)·i (the rule as first published).
    Plain,
    /// access(q)·i followed by a witness that separates q from another basis state (AALpy's default).
    SeparatingSequence,
    /// access(q)·i followed by an ADS over the whole basis, along its predicted branch. Above
    /// LSharpConfig::ads_limit basis states one suffix is fixed (that ADS path, padded to 8 inputs)
    /// and every basis state and frontier node is asked it, so candidates are looked up by their
    /// answer instead of compared with the whole basis (learning stays near-linear in CPU).
    Ads,
};

/// How a frontier node with several candidates is told apart (the L# separation rule).
enum class LSharpSeparation {
    /// A witness of two of its candidates (the rule as first published).
    SeparatingSequence,
    /// An adaptive distinguishing sequence over its candidates (the variant the paper reports best).
    Ads,
};

/// Options of L#. Plain data with defaults.
struct LSharpConfig {
    LSharpExtension extension = LSharpExtension::Ads;
    LSharpSeparation separation = LSharpSeparation::Ads;
    /// The Ads extension rule computes an ADS for each new basis state up to this many basis states
    /// (then the shared suffix, see LSharpExtension::Ads).
    std::size_t ads_limit = 64;
    /// When the equivalence oracle suggests suffixes of length B >= 2 (DroidStar Algorithm 2 at
    /// bound B, EquivalenceOracle::suggested_suffix_length), ask its words before each hypothesis:
    /// R(q)·i·s for every transition (q, i) that leaves the basis tree and every s of length B, each
    /// with one look-ahead input, on the basis's access sequences (which the hypothesis then
    /// reports). The suite is then answered by the tree, and every query from a frontier node is a
    /// word the final suite runs even if that node is promoted later. Off: L# asks only what its
    /// rules need, and the suite runs what is left (more equivalence rounds, more queries in total).
    bool explore_suggested = true;
    /// Each extension and identification query continues, after the suffix its rule needs, with an
    /// ADS over the basis (the err sink left out) along its largest branch, without `wait` (while
    /// the basis has at most ads_limit states). The same query then answers more of the tree, so
    /// later apartness needs fewer queries: more symbols per query, fewer queries, no more waits
    /// (measured on the 16 stand-ins, perfect oracle: 781 queries / 639 waits instead of 850 /
    /// 718). Allowing `wait` in it saved more queries in an earlier measurement (791 instead of
    /// 813) for 31% more waits, a trade this option does not make.
    bool continue_with_ads = true;
    /// With continue_with_ads, the continuation only fills the suffix its rule needs up to this
    /// many inputs (0: no limit, the whole ADS). A symbol after the suffix tells less than the
    /// suffix does, and every query repeats its access sequence, so a short rule suffix is
    /// continued and a long one is not. Measured on the 26 AALpy models (perfect oracle, with the
    /// hypothesis predicting the ADS branch, extension words included, inputs taking the most
    /// candidates off that branch first, and ADS paths completed by a witness): limit 2: 8,953
    /// resets / 71,140 input symbols; no limit: 8,879 / 83,047; limit 3: 8,974 / 75,241 (AALpy L#:
    /// 10,829 / 80,098; its best rule pair, ADS extension and separation: 9,747 / 73,526). The 16
    /// stand-ins learn with 735 queries. (Fixed words, adaptive_queries off; re-checked with an
    /// earlier form of adaptive queries: no limit, 1 and 3 all cost more resets than 2.)
    std::size_t continued_suffix_length = 2;
    /// Where the oracle runs adaptive queries (MembershipOracle::adaptive: a device whose steps are
    /// as cheap as its runs, Device::runs_adaptively), the separation rule's ADS is asked
    /// adaptively: each input chosen from the device's last answer, in one query, instead of a
    /// fixed word along a predicted branch that a wrong prediction cuts short (another query from
    /// the same access sequence), and the extension rule's ADS likewise. Where no input splits the
    /// candidates left, a witness of two, and the ADS goes on. Same answers seen, same checks: the
    /// query's word and answers enter the tree like any other. Elsewhere (a remote device, a pool)
    /// the fixed words, as before. Measured on the 26 AALpy models (perfect oracle): 8,834 resets /
    /// 70,097 symbols (fixed words: 8,953 / 71,140).
    bool adaptive_queries = true;
    /// Start from this machine (e.g. an old spec's synchronous closure; see seed_of in lstar.hpp):
    /// adaptive L#'s rebuilding. Before the first hypothesis every transition of the seed off its
    /// access tree is asked from the seed's access word of its state, followed by the first word
    /// identifying its target in the seed (an adaptive distinguishing tree of the seed read as words,
    /// padded like any frontier query), and, for every pair of seed states those words do not tell
    /// apart (as the seed answers), the identifying word the two share from both access words.
    /// Where the device still behaves as the seed, the seed's states come out pairwise apart and
    /// are promoted, and its transitions identified, by L#'s own rules without another query, so
    /// the first hypothesis is mostly right (one equivalence round). The seed then predicts what the
    /// answers leave open: which branch an ADS takes, and which candidate a frontier node is (the
    /// one that behaves as the seed state its basis parent's transition leads to) — a prediction
    /// the equivalence oracle checks like any hypothesis; a counterexample that lands on a
    /// predicted node stops predicting it, and if predictions stop helping they stop altogether.
    /// A basis state behaves as the seed state its parent's transition leads to if the tree below it
    /// agrees with that state (to the depth of the seed's identifying words), else as the state it
    /// agrees with best (adaptive L#'s approximate matching); matched again whenever the tree grew.
    /// Before a hypothesis is handed out, every frontier node it takes to a basis state of another
    /// seed state than the seed predicts is asked the seed's shortest word telling the two apart
    /// (once per pair); where that seed state is no basis state's and the node still agrees with it,
    /// first a word the tree knows below the chosen basis state that the seed state answers
    /// otherwise (adaptive L#'s match separation). Nothing from the seed enters the tree: only the
    /// device's answers do. Measured on the 19 one-transition upgrades of the AALpy models with a
    /// perfect oracle, fixed ADS words: 22 rounds and 2,228 learning queries (2,230 with
    /// adaptive_queries on a model device; without match separation: 24 and
    /// 2,226; every seed state asked all its identifying words and
    /// matched once: 25 and 2,373; the seed handed out unasked as the first hypothesis: 192 and
    /// 2,257). Its inputs must equal the device's by name; its outputs are matched by name.
    std::optional<MealyMachine> seed;
};

/// L# as a Learner. Asks through `oracle`; its observation tree is `oracle.prefix_tree()` (an
/// OracleStack's cache), or a cache of its own over `oracle` if it has none. Throws
/// std::invalid_argument from start() for a seed over other inputs; DeviceError and
/// NondeterminismError from the oracle (a device whose answers contradict the tree).
class LSharp final : public Learner {
public:
    explicit LSharp(MembershipOracle& oracle, LSharpConfig config = {});
    ~LSharp() override;
    LSharp(const LSharp&) = delete;
    LSharp& operator=(const LSharp&) = delete;

    void prepare_for(std::size_t suggested_suffix_length) override;
    void start() override;
    bool refine(const Counterexample& cex) override;
    [[nodiscard]] MealyMachine hypothesis() const override;
    [[nodiscard]] std::vector<Word> access_sequences() const override;
    [[nodiscard]] std::string progress() const override;
    [[nodiscard]] std::string name() const override { return "L#"; }

private:
    class Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace typestar
