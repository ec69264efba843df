// SL*'s observation table for register automata, the engine of SlStarLearner
// (typestar/ra/learner.hpp), declared once for its parts: learner.cpp (the learner's steps:
// start, build, refine), sl_star_tree_oracle.cpp (the tree oracle and symbolic decision trees),
// sl_star_memorable.cpp (memorable values), sl_star_table.cpp (rows, closedness and register
// consistency) and sl_star_hypothesis.cpp (the hypothesis). Private to src/ra.
#pragma once

#include <spdlog/spdlog.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "input_classes.hpp"
#include "typestar/ra/learner.hpp"
#include "values.hpp"

namespace typestar::ra {

// Named, not anonymous: SlStarLearner::Impl (external linkage) derives from Table.
namespace sl_star {

/// A symbolic suffix (SL*): input symbols and, per parameter (flattened in order), whether it is
/// *free* (any data class relative to the prefix's values, the constants and the suffix's earlier
/// values) or *local* (only relative to the constants and the suffix's earlier values: never equal
/// to a prefix value). Local parameters keep a tree from branching on prefix values that do not
/// matter for this suffix; `int` parameters are always free.
struct Suffix {
    std::vector<std::size_t> symbols;
    std::vector<char> free;
    bool operator==(const Suffix&) const = default;
    auto operator<=>(const Suffix&) const = default;
    [[nodiscard]] std::size_t size() const { return symbols.size(); }
    [[nodiscard]] std::size_t operator[](std::size_t i) const { return symbols[i]; }
};
using Tokens = std::vector<long>;

/// A typed value: values of different types are different values.
struct TV {
    DataType type;
    Value value;
    bool operator==(const TV&) const = default;
    auto operator<=>(const TV&) const = default;
};

constexpr long kMem = 1000, kConst = 2000, kSufIn = 3000, kSufOut = 5000, kNew = 5, kNonMem = 7, kEq = 9,
               kBetween = 6, kSymbol = 100000;
/// A reference's token plus kShift * (i + 1) names the reference's value plus the i-th increment.
constexpr long kShift = 1000000;

/// `ints` followed by each of them plus each increment (SL*'s terms x + c); `ints` without any.
std::vector<Value> with_increments(std::vector<Value> ints, const std::vector<Value>& increments);

/// Every value of a word (inputs and outputs interleaved), with types, in order of occurrence.
std::vector<TV> word_values(const RegisterAutomaton& sig, const DataWord& in, const DataWord& out);

/// The values of type `type` among `vals`, in order.
std::vector<Value> raw(const std::vector<TV>& vals, DataType type);
/// Every value of `vals`, in order.
std::vector<Value> raw_all(const std::vector<TV>& vals);

/// The symbolic environment of a suffix: references to values, in a fixed order.
struct Env {
    std::vector<std::pair<long, TV>> refs;  // token, value
    std::vector<Value> increments;          // SL*'s +c theory: `int` refs also name ref + c
    [[nodiscard]] std::optional<long> first(const TV& v) const {
        for (const auto& [tok, x] : refs)
            if (x == v) return tok;
        return std::nullopt;
    }
    [[nodiscard]] std::optional<long> latest(const TV& v) const {
        for (auto it = refs.rbegin(); it != refs.rend(); ++it)
            if (it->second == v) return it->first;
        return std::nullopt;
    }
    /// The first `int` ref + increment equal to `v` (no ref itself is), as a shifted token.
    [[nodiscard]] std::optional<long> shifted(const TV& v) const {
        if (v.type != DataType::Int) return std::nullopt;
        for (std::size_t i = 0; i < increments.size(); ++i)
            for (const auto& [tok, x] : refs)
                if (x.type == DataType::Int && internal::plus(x.value, increments[i]) == v.value)
                    return tok + kShift * static_cast<long>(i + 1);
        return std::nullopt;
    }
    /// The class of a new parameter value relative to the environment.
    void class_tokens(const TV& v, Tokens& out) const;
};

struct Row {
    DataWord prefix;
    DataWord outputs;
    std::vector<TV> memorable;  // canonical order: the registers
    std::string signature;
};

class Table {
public:
    Table(const RegisterAutomaton& sig, DataOracle& oracle, const RaLearnConfig& config);
    /// Symbolic decision trees: the equality theory, or the ordered theory without increments.
    [[nodiscard]] bool trees() const noexcept { return sdt_mode_ || ordered_trees_; }
    /// The token of a prefix value in a tree: 'v' an id, 'w' an int (so equal numbers of two
    /// types are two terms).
    static std::pair<char, long> value_token(const TV& v) { return {v.type == DataType::Int ? 'w' : 'v', v.value}; }

    /// class_candidates with SL*'s +c terms: `int` values relative to each relevant x and x + c.
    [[nodiscard]] std::vector<Value> candidates(DataType type, const std::vector<Value>& relevant,
                                                const std::vector<Value>& avoid) const {
        if (type != DataType::Int || increments_.empty()) return class_candidates(type, relevant, avoid);
        return class_candidates(type, with_increments(relevant, increments_), avoid);
    }

    void check_budget() const;

    /// Index of parameter k of step j among the suffix's parameters.
    [[nodiscard]] std::size_t param_index(const Suffix& suffix, std::size_t j, std::size_t k) const {
        std::size_t g = k;
        for (std::size_t i = 0; i < j; ++i) g += sig_.inputs[suffix.symbols[i]].params.size();
        return g;
    }
    [[nodiscard]] bool is_free(const Suffix& suffix, std::size_t j, std::size_t k) const {
        const std::size_t g = param_index(suffix, j, k);
        return g >= suffix.free.size() || suffix.free[g];
    }
    /// A suffix over `symbols` whose parameters are free exactly where `free_at` says (always for
    /// `int` parameters, and everywhere when the signature has `int` data: the ordered theory keeps
    /// one branch per data class relative to every prefix value).
    Suffix make_suffix(const std::vector<std::size_t>& symbols, const std::function<bool(std::size_t j, std::size_t k)>& free_at) const;

    // ---- the learner's steps (BasicLearner<RaKind>, run by run_experiment) ----

    void start();

    /// Closes the table and builds the hypothesis; throws LearningLimit when closing gives up.
    void build();

    bool refine(const RaCounterexample& cex_in);
    /// A shortest-found counterexample within `cex` (one step left out at a time while the device
    /// and the hypothesis still differ): shorter suffixes, smaller trees.
    RaCounterexample shortened(const RaCounterexample& cex);

    [[nodiscard]] const RegisterAutomaton& current() const noexcept { return h_; }
    [[nodiscard]] const std::vector<DataWord>& prefixes() const noexcept { return S_; }
    [[nodiscard]] std::size_t suffix_count() const noexcept { return E_.size(); }
    [[nodiscard]] std::size_t covering_tree_queries() const noexcept { return covering_trees_; }

    // ---- the tree oracle, also for tree_query and memorable_values ----
    static Suffix all_free(const RegisterAutomaton& sig, const std::vector<std::size_t>& symbols) {
        Suffix e{symbols, {}};
        for (std::size_t a : symbols) e.free.resize(e.free.size() + sig.inputs[a].params.size(), 1);
        return e;
    }
    void set_suffixes(const std::vector<std::vector<std::size_t>>& e) {
        E_.clear();
        for (const auto& symbols : e) E_.push_back(all_free(sig_, symbols));
    }
    std::string tree_text(const DataWord& prefix, const std::vector<std::size_t>& symbols) {
        const Suffix e = all_free(sig_, symbols);
        if (!trees()) return {};
        return readable(sdt(prefix, e), e, 0);
    }
    std::vector<std::pair<DataWord, DataWord>> leaves(const DataWord& prefix, const std::vector<std::size_t>& symbols);
    std::vector<Value> memorable_of(const DataWord& prefix);

private:

    /// Enumerates one continuation of `prefix` per data class of `suffix`'s parameters, relative to
    /// `relevant` prefix values, the constants and the suffix's own earlier values.
    void enumerate(const DataWord& prefix, const Suffix& suffix, const std::vector<TV>& relevant,
                   const std::function<void(const DataWord&, const DataWord&)>& visit);

    // ---- symbolic decision trees (SL*'s tree oracle: equality and ordered theories) ----

    /// A term of a tree: 'v' an `id` and 'w' an `int` prefix value (by value), 'c' a constant, 's' a
    /// suffix parameter and 'o' a suffix output value (by position), 'n' a value new in the run,
    /// 'r' an `id` register and 'R' an `int` register by rank (after renaming), '#' an output
    /// symbol, '-' no bound (an interval's open side).
    using TermTok = std::pair<char, long>;
    using Subst = std::map<TermTok, TermTok>;
    /// A guard of the ordered theory: lo < p (lo <= p when lo_in) and p < hi (p <= hi when hi_in);
    /// an unbounded side is ('-', 0). `p == t` is [t, t].
    struct Interval {
        TermTok lo{'-', 0};
        bool lo_in = false;
        TermTok hi{'-', 0};
        bool hi_in = false;
    };
    /// A symbolic decision tree: a leaf (end of the suffix), an output (then `kids[0]`), or the
    /// branches of one suffix parameter. An `id` parameter: equal to `eq[i]` -> `kids[i]`, else ->
    /// `kids.back()`; equality branches that behave like the else branch (with the parameter read
    /// as the equal term) are merged into it. An `int` parameter: one interval guard `iv[i]` ->
    /// `kids[i]` per group of adjacent data classes (below t1, == t1, between t1 and t2, ...) whose
    /// subtrees are the same with the parameter read accordingly (SL*'s guard merging), in
    /// increasing order; so only the comparisons that matter remain.
    struct Sdt {
        bool branch = false;
        long param = 0;              // branch: the suffix parameter's position
        std::vector<TermTok> out;    // output: ('#', symbol), then one term per value
        std::vector<TermTok> eq;
        std::vector<Interval> iv;    // ordered theory: the merged guards (never empty for `int`)
        std::vector<Sdt> kids;
    };

    static std::string tok_text(TermTok t, const Subst& subst);
    static std::string interval_text(const Interval& g, const Subst& subst);
    /// Canonical text of a tree under a renaming of its terms (equality branches sorted after it;
    /// interval guards in their order, which an order-preserving renaming keeps).
    static std::string text(const Sdt& n, const Subst& subst);
    static void used_terms(const Sdt& n, std::set<TermTok>& used);

    /// The tree of `suffix` after `prefix` (cached; one tree query per computation).
    const Sdt& sdt(const DataWord& prefix, const Suffix& suffix);

    /// The branches of an `int` parameter (SL*'s guard merging for the ordered theory): one run per
    /// data class relative to the `terms` (below the least, equal to each, between neighbours,
    /// above the greatest; an empty interval has none), then adjacent classes whose subtrees are the
    /// same merge into one guard. An interval's subtree names the parameter ('s', param); an
    /// equality's names the equal term, so the two compare with the parameter read as that term.
    /// Two adjacent equalities (nothing between them) never merge: there is no subtree to read both.
    Sdt ordered_branch(Sdt node, std::vector<std::pair<TermTok, Value>> terms, const std::vector<std::pair<TermTok, TV>>& env,
                       const std::function<Sdt(Value)>& child) const;

    /// The tree as text for people: `login(s1,s2): s1 == v7 ...`.
    std::string readable(const Sdt& n, const Suffix& suffix, std::size_t depth) const;

    /// The memorable values of a prefix in the equality theory: the prefix values its trees name.
    std::vector<TV> memorable_sdt(const DataWord& prefix, const DataWord& prefix_out);

    /// Output tokens of a suffix run: each output value by its latest reference.
    void outcome_tokens(const Env& base, const DataWord& suf_in, const DataWord& suf_out, Tokens& out,
                        const std::vector<TV>& non_memorable) const;

    /// Class tokens of a suffix's parameters relative to the environment.
    void path_tokens(const Env& base, const DataWord& suf_in, const DataWord& suf_out, Tokens& out) const;

    /// The memorable values of a prefix: those some suffix of E depends on or an output reveals.
    std::vector<TV> memorable(const DataWord& prefix, const DataWord& prefix_out);

    /// The candidate x (an `int` prefix value) with x + c == v for an increment c, if any.
    [[nodiscard]] std::optional<TV> shifted_candidate(const TV& v, const std::vector<TV>& candidates) const;

    /// Values to put in place of `d`: a fresh id, or the integers just above and below an int.
    std::vector<Value> replacements(const TV& d, const DataWord& prefix, const DataWord& prefix_out,
                                    const DataWord& suf_in, const DataWord& suf_out) const;

    /// Output words with each value as the latest earlier position holding it (run-independent).
    Tokens position_outcome(const DataWord& prefix, const DataWord& prefix_out, const DataWord& suf_in,
                            const DataWord& suf_out) const;

    /// The least `signature` over the renamings of `ids` memorable ids tried (every permutation of
    /// up to RaLearnConfig::max_permuted ids, else first-occurrence order), with its permutation.
    std::pair<std::string, std::vector<std::size_t>> least_signature(
        std::size_t ids, const std::function<std::string(const std::vector<std::size_t>&)>& signature) const;
    /// The row of a prefix: memorable values in canonical order and the signature.
    const Row& row(const DataWord& prefix);

    // ---- closedness and consistency ----

    struct Successor {
        DataSymbol input;
        DataWord word;
    };
    /// One successor of row s per data class of each input, relative to s's registers.
    std::vector<Successor> successors(const Row& s);

    /// For a successor whose parameter k equals a register of s: a sibling class (the same input
    /// and values, parameter k fresh or in a neighbouring interval) whose every tree answers the
    /// same once its value of parameter k is replaced by the register's (SL*'s guard merging: the
    /// equality needs no branch of its own). Cached until E changes.
    std::optional<std::size_t> covering_sibling(const Row& s, const std::vector<Successor>& succs, std::size_t si);
    /// The last parameter of `succ`'s input equal to a register of `s`, an earlier parameter or
    /// (symbolic trees) a constant: where covering_sibling looks for a sibling class.
    [[nodiscard]] std::optional<std::size_t> last_equal_parameter(const Row& s, const Successor& succ) const;

    /// covering_sibling for every successor. With symbolic trees a class is covered only when its
    /// whole branch is: an equality p_k == t stays a branch of its own (SL*: the subtree differs
    /// from the else branch's) when some uncovered class has the same parameters up to k, and then
    /// every class in it is uncovered (to a fixpoint), so the guards stay complete.
    std::vector<std::optional<std::size_t>> covers(const Row& s, const std::vector<Successor>& succs);

    /// True when every tree of `sibling` answers like `eq` once the sibling's parameter k value is
    /// replaced by eq's (outputs compared as values under that replacement; new values as new).
    bool behaves_as(const Successor& sibling, const Successor& eq, std::size_t k);

    /// behaves_as with symbolic trees: the sibling's parameters from k on read as eq's (k equal,
    /// the later ones fresh in both), the step answers the same and every tree of the sibling (all
    /// parameters free) is eq's tree under that reading.
    bool behaves_as_sdt(const Successor& sibling, const Successor& eq, std::size_t k);

    /// Makes the table closed and register-consistent. False (with failure_) when it gives up.
    bool close();

    // ---- the hypothesis ----

    /// SL*'s guard merging in the hypothesis (ordered theory): a transition of a one-parameter
    /// `int` input that takes a contiguous run of data classes (in increasing order) gets one
    /// interval guard instead of their disjunction: `p < r1 || p == r1` is `p <= r1`. Valid for
    /// the register order type of the access word, as the per-class guards are (build() checks
    /// every hypothesis with validate and falls back to the disjunctions).
    void merge_intervals(std::vector<Transition>& trs, const std::vector<std::vector<std::size_t>>& members,
                         const std::vector<std::vector<Atom>>& class_guard, const std::vector<Successor>& succs) const;

    /// The hypothesis of the closed table: one location per prefix of S (its registers the row's
    /// memorable values), the transitions of each (transitions_of), locations renamed breadth-first.
    RegisterAutomaton hypothesis();
    /// The transitions of row `s`'s location: one per uncovered data class of each input (guard,
    /// target, output, assignment), merged where they agree, then merge_intervals; an input with
    /// one transition gets the guard true. `index` maps a row signature to its location.
    std::vector<Transition> transitions_of(const Row& s, const std::map<std::string, std::size_t>& index);
    /// A guard's terms with their values: registers, constants, earlier parameters (and x + c).
    using GuardEnv = std::vector<std::pair<Term, TV>>;
    /// Appends SL*'s +c terms x + c for every `int` term of `env` from position `from` on (an
    /// equality names the plain term first).
    void add_shifted(GuardEnv& env, std::size_t from) const;
    /// The conjunction of class `si` of row `s`: each parameter's data class relative to the
    /// registers, the constants and the earlier parameters (with symbolic trees, only the
    /// equalities some uncovered class keeps; first match).
    std::vector<Atom> guard_of(const Row& s, const std::vector<Successor>& succs,
                               const std::vector<std::optional<std::size_t>>& cover, std::size_t si) const;
    /// The output's values as terms: a register, a parameter of `basis` (the input of `decl`
    /// whose run the transition takes), a constant, one of those plus an increment, else fresh.
    std::vector<OutputArg> output_args_of(const Row& s, const SymbolDecl& decl, const DataSymbol& basis,
                                          const DataSymbol& out) const;
    /// The target row `t`'s registers (its canonical order) from `s`'s registers, the parameters
    /// of `basis` or the output's values.
    std::vector<Term> assignments_of(const Row& s, const SymbolDecl& decl, const DataSymbol& basis, const DataSymbol& out,
                                     const Row& t) const;

    const RegisterAutomaton& sig_;
    DataOracle& oracle_;
    RaLearnConfig config_;
    std::shared_ptr<spdlog::logger> log_;
    std::vector<TV> constants_;
    std::vector<Value> increments_;  // SL*'s +c theory (ordered data only)
    std::vector<DataWord> S_;
    std::vector<Suffix> E_;
    std::map<DataWord, Row> rows_;
    std::map<std::pair<DataWord, Suffix>, Sdt> sdts_;
    bool sdt_mode_ = true;  // no `int` data: symbolic decision trees with merged equality branches
    bool ordered_trees_ = false;  // `int` data, no increments: trees with merged interval guards
    std::size_t covering_trees_ = 0;  // trees first built to cover an equality class that was covered
    std::map<DataWord, std::optional<DataWord>> covered_;
    bool covering_ = true;
    bool interval_guards_ = false;  // merge_intervals in the hypothesis (RaLearnConfig::interval_guards)
    std::string failure_;
    RegisterAutomaton h_;  // the hypothesis of the last build()
};

}  // namespace sl_star
}  // namespace typestar::ra
