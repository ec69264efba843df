// A prefix-tree cache with a non-determinism guard, as a membership-oracle decorator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/sul/oracle.hpp"

namespace typestar {

/// Options of CacheOracle.
struct CacheConfig {
    /// How often a word whose answer contradicts the cache is run again, to report every answer it
    /// gets and how often (DroidStar §5.3). Any contradiction ends in NondeterminismError: a re-run
    /// that agrees with the cache never wins.
    std::size_t reruns = 2;
    /// Use the traits' absorbing output: a word extending a cached absorbing answer is answered
    /// without running anything.
    bool use_absorbing = true;
    /// Use the traits' quiet output: a `wait` answered `quiet` is a self-loop of the tree, so
    /// `u·wait·v` is answered by `u·v`, and known quiet waits are left out of executed words.
    bool use_quiet = true;
};

/// How a contradiction between `quiet` and a callback at one `wait` of a device with real time (or
/// between a purpose's denial and an answer at a callin, CacheOracle) is told apart from
/// non-determinism: a callback that arrives after tmax leaves its `wait` quiet, and at the end of a
/// word nothing is left to notice it (OracleStack::listen_for_late_callbacks
/// installs it; see CacheOracle).
struct LateCallbackListener {
    /// Runs `prefix` on a fresh instance, then one `wait` that listens `timeout_ms` instead of
    /// tmax, and returns what it heard (Device::confirm_wait): a callback or `quiet`; nullopt when
    /// nothing can arrive late (no real time).
    std::function<std::optional<Symbol>(std::span<const Symbol> prefix)> listen;
    /// Called once per run repeated past a late callback (the stack counts it as a timing retry).
    std::function<void()> retried;
    double tmax_ms = 0;     ///< the tmax in force, for messages
    double timeout_ms = 0;  ///< how long `listen` waits
    std::string device;     ///< the device's name, for messages
};

/// Thrown by CacheOracle when the answer it held was the late one (a `quiet` where a later run and
/// a longer wait heard a callback): the tree no longer holds it (nor anything recorded after it on
/// that path), and holds the on-time answer instead, but whoever read the old answer may rest on
/// it. A learner starts again over the repaired cache (learn_spec does, at most kTimingRetries
/// times); anything else treats it as the TimingError it is.
class LateAnswerRemoved : public TimingError {
public:
    using TimingError::TimingError;
};

/// Cache statistics (plain data).
struct CacheStats {
    std::uint64_t hits = 0;          ///< queries answered from the tree
    std::uint64_t misses = 0;        ///< queries that needed a run (possibly shared with others)
    std::uint64_t executed = 0;      ///< words sent to the inner oracle
    std::uint64_t contradictions = 0;///< answers that contradicted the tree (then re-run)
    std::uint64_t late_callbacks = 0;///< runs a late callback explained (quiet at a wait, a callin the purpose denies elsewhere), re-run or removed
    std::size_t nodes = 0;           ///< nodes in the tree
};

/// Answers from a prefix tree of every answer seen, and sends only what it cannot answer to the
/// inner oracle. A query is answered without the inner oracle when its word is a prefix of a cached
/// word, extends a cached absorbing answer (`err`), or differs from one only by `wait`s known to
/// answer `quiet`. In a batch, only the maximal missing words run: longest first, each checked
/// against the tree again just before it runs (an earlier run may have answered it), with known
/// quiet waits left out. An answer that contradicts the tree is run again CacheConfig::reruns times
/// to collect evidence, then throws NondeterminismError with the input word and every distinct
/// answer with its count (DroidStar §5.3). Never exits.
///
/// With a LateCallbackListener (devices with real time), a contradiction that is `quiet` against a
/// callback at one `wait` is first judged as a question of time: the word's prefix runs again with
/// a wait longer than tmax. Heard the callback: the run that answered `quiet` broke the timing (the
/// callback came after tmax). If that run is the new one, its answer never enters the tree: the
/// word runs again (at most kTimingRetries times, each counted as a timing retry) until a run
/// agrees with the tree, and only a `quiet` that repeats on every run ends in TimingError naming
/// the callback, tmax and the option that raises it. If the tree's own answer was the late one, it
/// is removed with what was recorded after it on that path, the on-time answer is inserted, and
/// LateAnswerRemoved (a TimingError) is thrown: answers given since may rest on the old one, so
/// the reader must start again (never a spec on it). Not heard, or heard something else: the
/// non-determinism stands, as above.
///
/// The same judgement covers the race of the drained rule (typestar/device/drained.hpp): a callin
/// the learning purpose denied (`unknown:purpose`, a callback of the callin before it still
/// queued) in one run and ran in another, because there the callback came only after its callin
/// had settled (a busy machine outlasting an adapter's quiet window). The listen after the prefix
/// must hear a callback still on its way; then the run that ran the callin is the late one,
/// handled as above (re-run, or the tree's answer removed and LateAnswerRemoved), and a run that
/// keeps running it ends in a TimingError of kind QueuedCallback naming the callback.
class CacheOracle final : public MembershipOracle {
public:
    explicit CacheOracle(MembershipOracle& inner, CacheConfig config = {});

    [[nodiscard]] const Alphabet& inputs() const override { return inner_.inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return inner_.outputs(); }
    /// The inner traits, minus what this cache was configured not to use.
    [[nodiscard]] DeviceTraits traits() const override { return traits_; }
    /// Forwarded. When the inner oracle runs several queries at once, the words of a pass go to it
    /// in waves, each wave one batch. Words that leave the tree by different edges are independent —
    /// running one can neither answer nor shorten another — so a wave holds the next word of every
    /// such group, and within a group the order and the checks are those of the one-at-a-time
    /// order. For a deterministic device the words executed, and so every count, are the same as
    /// with one device.
    [[nodiscard]] std::size_t parallelism() const override { return inner_.parallelism(); }
    void query_all(std::span<const Query> batch) override;
    bool lookup(std::span<const Symbol> word, std::span<Symbol> out) override;
    /// Forwarded.
    [[nodiscard]] bool adaptive() const override { return inner_.adaptive(); }
    /// Answers from the tree while it knows the chosen inputs' outputs; at the first it does not,
    /// the inner oracle runs the rest as one adaptive query from a fresh instance (the whole word:
    /// known quiet waits are not left out), and its answer is checked and added like any answer.
    Word query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs) override;

    /// Runs every word of `words` again on the inner oracle, past the tree, as one batch (a pool
    /// runs it in parallel), and checks each answer against the tree like any device answer: one
    /// that contradicts it is run again CacheConfig::reruns times and throws NondeterminismError
    /// with the word and every answer with its count; answers the tree lacked are added. Returns
    /// the answers (one per input of each word). This is how a result's answers are seen twice
    /// (the session's flake policy): a wrong answer the tree keeps is never silently reused.
    [[nodiscard]] std::vector<Word> rerun(std::span<const Word> words);

    /// Judges `quiet`-against-callback contradictions as a question of time (see the class
    /// comment); nullopt: every contradiction is non-determinism.
    void set_late_callback_listener(std::optional<LateCallbackListener> listener) { late_ = std::move(listener); }

    /// Adds a known answer (e.g. from another cache), checked like a device answer.
    /// Throws NondeterminismError if it contradicts the tree.
    void insert(std::span<const Symbol> word, std::span<const Symbol> outputs);
    [[nodiscard]] const CacheStats& stats() const noexcept { return stats_; }

    // ---- Read-only view of the prefix tree (added for L#, h-lsharp; nothing else changed) ----
    /// A node of the tree: the word that leads to it from the root. Ids are dense and stable (nodes
    /// are never removed); the root (the empty word) is kRootNode.
    using NodeId = std::uint32_t;
    static constexpr NodeId kRootNode = 0;
    /// One known step of the tree: the node it leads to and its output.
    struct Edge {
        NodeId target = 0;
        Symbol output = 0;
    };
    /// This cache itself.
    [[nodiscard]] CacheOracle* prefix_tree() override { return this; }
    /// The step from `node` on `input` if the tree knows it, else nullopt. Under the traits this
    /// cache uses, a `wait` answered `quiet` and every input after an absorbing output are
    /// self-loops (target == node; output quiet, resp. the absorbing output), and so is every input
    /// after the output `unknown:purpose` (kOutsidePurpose) when the traits have an absorbing output. `node` must be below num_nodes() and `input` below
    /// inputs().size() (unchecked).
    [[nodiscard]] std::optional<Edge> edge(NodeId node, Symbol input) const {
        if (traits_.absorbing && node != kRootNode && ends_run(nodes_[node].output))
            return Edge{node, *traits_.absorbing};
        const std::uint32_t c = child(node, input);
        if (c == kNone) return std::nullopt;
        if (c == kQuietLoop) return Edge{node, *traits_.quiet};
        return Edge{c, nodes_[c].output};
    }
    /// The node `word` leads to from the root, if every step is known.
    [[nodiscard]] std::optional<NodeId> node_of(std::span<const Symbol> word) const;
    /// How many nodes the tree has (ids are 0..num_nodes()-1).
    [[nodiscard]] std::size_t num_nodes() const noexcept { return nodes_.size(); }

private:
    static constexpr std::uint32_t kNone = 0;               // no child (the root is never a child)
    static constexpr std::uint32_t kQuietLoop = 0xFFFFFFFFu;  // wait answered quiet: stay

    struct Node {
        Symbol output = 0;                 // output of the edge into this node
        std::uint32_t children = kNone;    // index of this node's block in children_, or kNone
    };

    // True for the absorbing output and kOutsidePurpose: nothing after them runs, and every later
    // answer is the absorbing output. Only called when the traits have an absorbing output.
    [[nodiscard]] bool ends_run(Symbol output) const noexcept {
        return output == *traits_.absorbing || output == outside_purpose_;
    }

    // Where a walk stands: a node, or past an absorbing output (then every answer is that output).
    struct Cursor {
        std::uint32_t node = 0;
        bool absorbed = false;
    };
    // Walks `word` from `from`; returns how many symbols were answered (outputs written to `out` if
    // non-empty), word.size() when fully answered, and leaves `from` where the walk stopped.
    std::size_t walk(Cursor& from, std::span<const Symbol> word, std::span<Symbol> out) const;
    std::size_t walk(std::span<const Symbol> word, std::span<Symbol> out) const {
        Cursor c;
        return walk(c, word, out);
    }
    // The word to execute for `word` (known quiet waits of its cached prefix left out) in
    // `executed`; returns false if the tree answers `word` completely (nothing to execute).
    bool normalize(std::span<const Symbol> word, Word& executed) const;
    // Inserts an executed answer; returns the position of the first contradiction, or npos.
    std::size_t try_insert(std::span<const Symbol> word, std::span<const Symbol> outputs);
    // Re-runs a contradicting query (reruns times), then throws NondeterminismError with every
    // distinct answer and its count.
    // Returns only when the new answer was a late callback and a re-run agreed with the tree (the
    // query's answer is then that run's).
    void contradiction(const Query& query, std::size_t at);
    // The late-callback judgement of a contradiction (class comment): true when a re-run agreed.
    bool rerun_past_late_callback(const Query& query, std::size_t at);
    // A callback among the outputs: not quiet, ok, err, the absorbing output nor kOutsidePurpose.
    [[nodiscard]] bool is_callback(Symbol output) const;
    // Runs `word` on the inner oracle and inserts it, with the re-run guard.
    void execute(std::span<const Symbol> word);
    [[noreturn]] void throw_nondeterminism(std::span<const Symbol> word, std::span<const Symbol> outputs,
                                           std::size_t at) const;
    // query_all's phases: look up the batch in the tree (the misses), then per pass normalise the
    // pending words, keep the maximal ones, run them (in waves when the inner oracle is parallel),
    // and resume each pending walk on the grown tree.
    struct Misses;
    Misses look_up(std::span<const Query> batch);
    void normalize_pending(Misses& m) const;
    [[nodiscard]] std::vector<std::size_t> maximal_words(const Misses& m) const;
    void run_in_waves(Misses& m, const std::vector<std::size_t>& maximal);
    void run_in_order(Misses& m, const std::vector<std::size_t>& maximal);
    void resume_walks(std::span<const Query> batch, Misses& m);
    std::uint32_t child(std::uint32_t node, Symbol input) const {
        const auto block = nodes_[node].children;
        return block == kNone ? kNone : children_[block + input];
    }

    MembershipOracle& inner_;
    CacheConfig config_;
    DeviceTraits traits_;
    std::optional<Symbol> outside_purpose_;  // kOutsidePurpose among the outputs, with an absorbing output
    std::size_t width_;
    std::vector<Node> nodes_;
    std::vector<std::uint32_t> children_;  // blocks of width_ child slots
    CacheStats stats_;
    Word answer_buffer_;
    std::optional<LateCallbackListener> late_;
};

}  // namespace typestar
