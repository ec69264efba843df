// The learner interface and the experiment loop, written once for every learner.
// Design note: in the shape of LearnLib's LearningAlgorithm + Experiment. A Learner only *asks*
// membership queries (through the MembershipOracle it was made with) and keeps a hypothesis; the
// experiment loop (run_experiment) alternates it with an EquivalenceOracle, counts phases as scopes
// on the stack's QueryCounter, logs one progress line per round and calls the round callback.
// L* (lstar.hpp) and L# (lsharp.hpp) implement Learner; neither contains a loop over rounds.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/sul/equivalence.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

/// An active learning algorithm for Mealy machines (LearnLib LearningAlgorithm.MealyLearner).
class Learner {
public:
    virtual ~Learner() = default;

    /// Asks what the first hypothesis needs. Called once, before anything else. Throws DeviceError,
    /// NondeterminismError from the oracle.
    virtual void start() = 0;
    /// Refines the hypothesis with a counterexample on which it is wrong (cex.actual are the
    /// device's outputs). Returns whether the hypothesis changed; false means the counterexample
    /// could not be used (the experiment then fails loudly). Throws like start().
    virtual bool refine(const Counterexample& cex) = 0;
    /// The current hypothesis over the device's inputs and (a snapshot of) its outputs.
    [[nodiscard]] virtual MealyMachine hypothesis() const = 0;
    /// One access sequence per hypothesis state (state 0: ε), for the equivalence oracle.
    [[nodiscard]] virtual std::vector<Word> access_sequences() const = 0;
    /// What the first hypothesis will be asked about by an equivalence oracle that suggests suffixes
    /// of this length (EquivalenceOracle::suggested_suffix_length); learners that do not use it
    /// ignore it. Called before start().
    virtual void prepare_for(std::size_t /*suggested_suffix_length*/) {}
    /// A short description of the learner's data for the progress line, e.g. "12 suffixes".
    [[nodiscard]] virtual std::string progress() const { return {}; }
    /// The learner's name for messages and provenance, e.g. "L*".
    [[nodiscard]] virtual std::string name() const = 0;
};

/// What the experiment reports after each equivalence query.
struct RoundInfo {
    std::size_t round = 0;          ///< 1-based
    std::size_t states = 0;         ///< of the hypothesis just checked
    std::string progress;           ///< Learner::progress() at that point
    bool counterexample = false;    ///< whether the equivalence oracle found one
    std::size_t counterexample_length = 0;
    QueryStats stats;               ///< a snapshot
    double seconds = 0;             ///< since the experiment started
};

/// Options of run_experiment. Plain data with defaults.
struct ExperimentConfig {
    /// Give up after this many equivalence queries (0: no limit); the result then says not converged.
    std::size_t max_rounds = 0;
    /// Called after each equivalence query (e.g. for a progress line). May be empty.
    std::function<void(const RoundInfo&)> on_round;
    /// A counterexample known before the first equivalence query (e.g. the word a conformance test
    /// failed on): the first hypothesis is refined with it for as long as it refutes it, at no
    /// oracle cost. Its `actual` outputs must be over the oracle's current output alphabet.
    std::optional<Counterexample> counterexample;
};

/// The result of an experiment.
struct LearnResult {
    /// The last hypothesis, minimal, over the device's inputs and (a snapshot of) its outputs.
    MealyMachine hypothesis;
    /// One access sequence per hypothesis state (state 0: ε).
    std::vector<Word> access_sequences;
    std::size_t rounds = 0;   ///< equivalence queries asked
    bool converged = false;   ///< the equivalence oracle found no counterexample to `hypothesis`
    QueryStats stats;         ///< the counter's statistics at the end
};

/// The experiment loop (DroidStar Algorithm 1's outer loop; LearnLib Experiment): start the learner,
/// then until the equivalence oracle finds no counterexample (or `max_rounds`): ask it about the
/// hypothesis inside an Equivalence phase scope on `counter`, and refine with the counterexample for
/// as long as it still refutes the hypothesis (LearnLib's repeated use of one counterexample).
/// Logs one info line per round to "typestar.learn". Throws DeviceError, NondeterminismError (from
/// the oracles), typestar::Error when the oracle returns a word on which the hypothesis is right or
/// the learner cannot use a counterexample (answers contradicting each other without a cache).
[[nodiscard]] LearnResult run_experiment(Learner& learner, EquivalenceOracle& equivalence, QueryCounter& counter,
                                         const ExperimentConfig& config = {});

}  // namespace typestar
