// The learner interface and the experiment loop, written once for every learner.
// Design note: in the shape of LearnLib's LearningAlgorithm + Experiment<A>. A Learner only *asks*
// membership queries (through the MembershipOracle it was made with) and keeps a hypothesis; the
// experiment loop (run_experiment) alternates it with an EquivalenceOracle, counts phases as scopes
// on the stack's QueryCounter, logs one progress line per round and calls the round callback.
// L* (lstar.hpp) and L# (lsharp.hpp) implement Learner; neither contains a loop over rounds. The
// loop is generic over the kind of hypothesis (MealyKind here): the SL*-style learner of register
// automata (typestar/ra/learner.hpp) implements BasicLearner<ra::RaKind> and runs in the same loop.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/core/mealy.hpp"
#include "typestar/sul/equivalence.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

/// A learner stopped at one of its configured limits (states, query budget, no progress on a
/// counterexample): the experiment ends with converged = false and this message as the reason. A
/// learner throws it from start() or refine(); run_experiment catches it, nothing above sees it.
class LearningLimit : public Error {
public:
    using Error::Error;
};

/// What the experiment loop needs to know about a kind of hypothesis (LearnLib's automaton type
/// parameter A): its hypothesis, access word and counterexample types, whether a counterexample
/// still refutes a hypothesis, sizes for the progress line, and the final clean-up. MealyKind is
/// the Mealy instance; register automata have ra::RaKind (typestar/ra/learner.hpp).
struct MealyKind {
    using Hypothesis = MealyMachine;
    using Access = Word;
    using Counterexample = typestar::Counterexample;
    static bool refutes(const Hypothesis& hypothesis, const Counterexample& cex) {
        return hypothesis.outputs_of(cex.inputs) != cex.actual;
    }
    static std::size_t size(const Hypothesis& hypothesis) { return hypothesis.num_states(); }
    static std::size_t length(const Counterexample& cex) { return cex.inputs.size(); }
    /// A learner may keep apart states the device does not tell apart (e.g. cells predicted by a
    /// seed): the experiment reports the minimal machine and its access sequences.
    static void finish(Hypothesis& hypothesis, std::vector<Access>& access);
};

/// The equivalence oracle of a kind.
template <class Kind>
using KindEquivalenceOracle =
    BasicEquivalenceOracle<typename Kind::Hypothesis, typename Kind::Access, typename Kind::Counterexample>;

/// An active learning algorithm for any kind of hypothesis (LearnLib LearningAlgorithm<A, I, D>).
template <class Kind>
class BasicLearner {
public:
    using Hypothesis = typename Kind::Hypothesis;
    using Access = typename Kind::Access;
    using Cex = typename Kind::Counterexample;

    virtual ~BasicLearner() = default;

    /// Asks what the first hypothesis needs. Called once, before anything else. Throws DeviceError,
    /// NondeterminismError from the oracle, LearningLimit at a configured limit.
    virtual void start() = 0;
    /// Refines the hypothesis with a counterexample on which it is wrong (the device's answers are
    /// in it). Returns whether the hypothesis changed; false means the counterexample could not be
    /// used (the experiment then fails loudly). Throws like start().
    virtual bool refine(const Cex& cex) = 0;
    /// The current hypothesis.
    [[nodiscard]] virtual Hypothesis hypothesis() const = 0;
    /// One access word per hypothesis state (state 0: ε), for the equivalence oracle.
    [[nodiscard]] virtual std::vector<Access> access_sequences() const = 0;
    /// What the first hypothesis will be asked about by an equivalence oracle that suggests suffixes
    /// of this length (suggested_suffix_length); learners that do not use it ignore it. Called
    /// before start().
    virtual void prepare_for(std::size_t /*suggested_suffix_length*/) {}
    /// A short description of the learner's data for the progress line, e.g. "12 suffixes".
    [[nodiscard]] virtual std::string progress() const { return {}; }
    /// The learner's name for messages and provenance, e.g. "L*".
    [[nodiscard]] virtual std::string name() const = 0;
};

/// An active learning algorithm for Mealy machines (LearnLib LearningAlgorithm.MealyLearner):
/// hypotheses over the device's inputs and (a snapshot of) its outputs; cex.actual are the device's
/// outputs.
using Learner = BasicLearner<MealyKind>;

/// What the experiment reports after each equivalence query.
struct RoundInfo {
    std::size_t round = 0;          ///< 1-based
    std::size_t states = 0;         ///< of the hypothesis just checked (locations of a register automaton)
    std::string progress;           ///< Learner::progress() at that point
    bool counterexample = false;    ///< whether the equivalence oracle found one
    std::size_t counterexample_length = 0;
    QueryStats stats;               ///< a snapshot
    double seconds = 0;             ///< since the experiment started
};

/// Options of run_experiment. Plain data with defaults.
template <class Kind>
struct BasicExperimentConfig {
    /// Give up after this many equivalence queries (0: no limit); the result then says not converged.
    std::size_t max_rounds = 0;
    /// Called after each equivalence query (e.g. for a progress line). May be empty.
    std::function<void(const RoundInfo&)> on_round;
    /// A counterexample known before the first equivalence query (e.g. the word a conformance test
    /// failed on): the first hypothesis is refined with it for as long as it refutes it, at no
    /// oracle cost. Its device answers must be over the oracle's current output alphabet.
    std::optional<typename Kind::Counterexample> counterexample;
};
using ExperimentConfig = BasicExperimentConfig<MealyKind>;

/// The result of an experiment.
template <class Kind>
struct BasicLearnResult {
    /// The last hypothesis (for Mealy machines minimal, over the device's inputs and a snapshot of
    /// its outputs).
    typename Kind::Hypothesis hypothesis;
    /// One access word per hypothesis state (state 0: ε).
    std::vector<typename Kind::Access> access_sequences;
    std::size_t rounds = 0;   ///< equivalence queries asked
    bool converged = false;   ///< the equivalence oracle found no counterexample to `hypothesis`
    QueryStats stats;         ///< the counter's statistics at the end
    /// Why learning stopped when not converged: the learner's LearningLimit, or max_rounds.
    std::string failure;
};
using LearnResult = BasicLearnResult<MealyKind>;

/// The experiment loop for every kind (DroidStar Algorithm 1's outer loop; LearnLib Experiment<A>):
/// start the learner, then until the equivalence oracle finds no counterexample (or `max_rounds`):
/// ask it about the hypothesis inside an Equivalence phase scope on `counter`, and refine with the
/// counterexample for as long as it still refutes the hypothesis (LearnLib's repeated use of one
/// counterexample). Logs one info line per round to "typestar.learn". A LearningLimit from the
/// learner ends the experiment not converged, with the last hypothesis checked and the reason.
/// Throws DeviceError, NondeterminismError (from the oracles), typestar::Error when the oracle
/// returns a word on which the hypothesis is right or the learner cannot use a counterexample
/// (answers contradicting each other without a cache).
template <class Kind>
[[nodiscard]] BasicLearnResult<Kind> run_experiment(BasicLearner<Kind>& learner,
                                                    KindEquivalenceOracle<Kind>& equivalence, QueryCounter& counter,
                                                    const BasicExperimentConfig<Kind>& config = {});

namespace detail {
/// The progress line of one round (src/learn/experiment.cpp).
void log_round(const std::string& learner, const RoundInfo& info);
}  // namespace detail

template <class Kind>
BasicLearnResult<Kind> run_experiment(BasicLearner<Kind>& learner, KindEquivalenceOracle<Kind>& equivalence,
                                      QueryCounter& counter, const BasicExperimentConfig<Kind>& config) {
    using Hypothesis = typename Kind::Hypothesis;
    using Access = typename Kind::Access;
    const auto started = std::chrono::steady_clock::now();
    std::size_t rounds = 0;
    auto result = [&](Hypothesis hypothesis, std::vector<Access> access, bool converged, std::string failure) {
        return BasicLearnResult<Kind>{std::move(hypothesis), std::move(access), rounds, converged, counter.stats(),
                                      std::move(failure)};
    };
    // The last hypothesis checked, with its access words: what a LearningLimit during refinement returns.
    std::optional<std::pair<Hypothesis, std::vector<Access>>> checked;
    auto stopped = [&](const LearningLimit& limit) {
        if (checked) return result(std::move(checked->first), std::move(checked->second), false, limit.what());
        return result(learner.hypothesis(), learner.access_sequences(), false, limit.what());
    };
    learner.prepare_for(equivalence.suggested_suffix_length());
    try {
        const auto phase = counter.enter(Phase::Learning);
        learner.start();
        if (config.counterexample) {
            const auto& cex = *config.counterexample;
            while (Kind::refutes(learner.hypothesis(), cex))
                if (!learner.refine(cex))
                    throw Error("the " + learner.name() + " learner could not use the given counterexample of length " +
                                std::to_string(Kind::length(cex)));
        }
    } catch (const LearningLimit& limit) {
        return stopped(limit);
    }
    while (true) {
        Hypothesis hypothesis = learner.hypothesis();
        std::vector<Access> access = learner.access_sequences();
        if (config.max_rounds != 0 && rounds >= config.max_rounds)
            return result(std::move(hypothesis), std::move(access), false,
                          "gave up after " + std::to_string(config.max_rounds) + " rounds");
        ++rounds;
        std::optional<typename Kind::Counterexample> cex;
        {
            const auto phase = counter.enter(Phase::Equivalence);
            counter.count_round();
            cex = equivalence.find_counterexample(hypothesis, access);
        }
        RoundInfo info;
        info.round = rounds;
        info.states = Kind::size(hypothesis);
        info.progress = learner.progress();
        info.counterexample = cex.has_value();
        info.counterexample_length = cex ? Kind::length(*cex) : 0;
        info.stats = counter.stats();
        info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        detail::log_round(learner.name(), info);
        if (config.on_round) config.on_round(info);
        if (!cex) {
            Kind::finish(hypothesis, access);
            return result(std::move(hypothesis), std::move(access), true, {});
        }
        if (!Kind::refutes(hypothesis, *cex))
            throw Error("the equivalence oracle returned a word on which the hypothesis is right");
        checked.emplace(std::move(hypothesis), std::move(access));
        // Use the counterexample for as long as it refutes the hypothesis (no new oracle question).
        try {
            const auto phase = counter.enter(Phase::Learning);
            do {
                if (!learner.refine(*cex))
                    throw Error("the " + learner.name() + " learner could not use a counterexample of length " +
                                std::to_string(Kind::length(*cex)) + " (the device answers inconsistently?)");
            } while (Kind::refutes(learner.hypothesis(), *cex));
        } catch (const LearningLimit& limit) {
            return stopped(limit);
        }
    }
}

extern template LearnResult run_experiment<MealyKind>(Learner&, KindEquivalenceOracle<MealyKind>&, QueryCounter&,
                                                      const ExperimentConfig&);

}  // namespace typestar
