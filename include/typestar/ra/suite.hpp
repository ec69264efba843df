// The bounded conformance suite for register automata: DroidStar's Algorithm 2 generalised to data.
// Design note: every transition of every location is exercised in every data class of the input's
// parameters relative to all values of the word so far (so every class of the relevant registers
// is among them), from an access word of every reachable (location, order type of its registers)
// pair — the equality type when the spec's guards never order data; then every word of up to
// `bound` further steps, one per *symbolic* class of the spec (each parameter against the
// values the spec's guards compare it with where the spec is, the values the spec held and dropped,
// and — for a parameter no guard reads — the previous step's values; else fresh), their prefixes
// shared (one device run per longest word). docs/register-automata.md, "Symbolic suites", states
// what a pass covers. Words are built adaptively in the device's values (an output value can be an
// input later); the spec runs in lockstep (LockstepCheck). "No difference found" is bounded
// evidence, and results say so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "typestar/ra/oracle.hpp"

namespace typestar::ra {

/// (location, register order type) pairs a suite explores by default before it stops (the result
/// says it was truncated): RaSuiteConfig::max_states, RaEquivalenceConfig::max_states.
inline constexpr std::size_t kMaxSuiteStates = 10000;

/// Options of the suite; plain values with defaults.
struct RaSuiteConfig {
    std::size_t bound = 2;             ///< distinguisher bound B: steps after each transition
    std::size_t max_states = kMaxSuiteStates;  ///< stop exploring beyond this many (location, order type) pairs
    /// Most data words one suite run executes on the device (after the cache), on every path: check,
    /// one transition's tests, learning's certification. Past it a typestar::Error names
    /// TYPESTAR_MAX_RA_WORDS (a refusal, never a partial verdict). Default: RaLimits::from_environment().
    std::size_t max_words = RaLimits::from_environment().max_words;
};

/// The verdict of a suite run: a counterexample (the first difference), or none with the evidence.
struct RaSuiteResult {
    std::optional<RaCounterexample> counterexample;
    std::size_t states = 0;   ///< reachable (location, register order type) pairs explored
    std::size_t words = 0;    ///< distinct data words executed (after the cache)
    bool truncated = false;   ///< max_states reached: the evidence covers only part of the spec
    /// The states are (location, register order type) pairs; false: (location, register equality
    /// type) pairs, as for a spec whose guards compare data only for equality.
    bool ordered = true;
    /// "conforms up to bound B on N data words from S states" or the difference.
    [[nodiscard]] std::string summary() const;
};

/// Runs the suite of `spec` (valid) against `sul`. Throws NondeterminismError / DeviceError as
/// DataOracle does, and typestar::Error naming TYPESTAR_MAX_RA_WORDS when the suite would run more
/// than `config.max_words` data words (a refusal: never a partial "conforms").
[[nodiscard]] RaSuiteResult check_register_automaton(const RegisterAutomaton& spec, DataSul& sul,
                                                     const RaSuiteConfig& config = {});
/// The same suite through `oracle` (sharing its cache and counting into its counter, in the
/// counter's current phase): the equivalence oracle of learning runs exactly the words of
/// `typestar check --bound B`. `words` counts the queries this run executed.
[[nodiscard]] RaSuiteResult check_register_automaton(const RegisterAutomaton& spec, DataOracle& oracle,
                                                     const RaSuiteConfig& config = {});

/// Looks for a data word on which the device behind `oracle` and `spec` differ: from each word of
/// `access` (concrete words in the device's values; the empty word when `access` is empty) every
/// word of up to `bound` further steps, one per data class relative to all values of the word and
/// the constants. Returns the first difference (the inputs up to and including the differing step)
/// and the reason, or nothing.
[[nodiscard]] std::optional<RaCounterexample> find_difference(DataOracle& oracle, const RegisterAutomaton& spec,
                                                              const std::vector<DataWord>& access, std::size_t bound);
/// Looks for a difference on `count` random data words of `length` steps (inputs uniform, each
/// parameter in a uniformly chosen data class relative to all values of the word), seeded. Each word
/// is built from the device's answers in one run (DataOracle::query_adaptive): one query executed.
[[nodiscard]] std::optional<RaCounterexample> random_difference(DataOracle& oracle, const RegisterAutomaton& spec,
                                                                std::size_t count, std::size_t length,
                                                                std::uint64_t seed);

/// Options of random_walk_difference: RALib's random-walk equivalence oracle (the `RandomWalk` of its
/// learning tests, LearnLib/ralib src/test) with its parameters; plain values with defaults.
struct RaRandomWalkConfig {
    std::size_t runs = 1000;          ///< random words (RALib: maxRuns)
    std::size_t max_depth = 20;       ///< steps of a word at most (RALib: maxDepth)
    double stop_probability = 0.1;    ///< after each step the word ends with this probability (RALib: resetProbability)
    /// A parameter takes a value new to the word (one data class not equal to any earlier value, each
    /// such class equally likely) with this probability, else one of the word's earlier values of its
    /// type (each equally likely); always new when there is none. RALib's test RandomWalk passes its
    /// reset probability here (its constructor assigns freshProbability = resetProbability).
    double fresh_probability = 0.1;
    std::uint64_t seed = 0;
};

/// The data words RALib's random walk draws with `config` over `hypothesis`'s inputs and constants
/// (each input uniform, each parameter as RaRandomWalkConfig says, ended after each step with the
/// stop probability or at the maximal depth), in order: a word depends on no answer of a device.
/// Fewer than `config.runs` when int64 has no new value left for a parameter.
[[nodiscard]] std::vector<DataWord> random_walk_words(const RegisterAutomaton& hypothesis, const RaRandomWalkConfig& config);

/// RALib's random walk as an equivalence search: `config.runs` random data words (each input
/// uniform, each parameter as RaRandomWalkConfig says, ended after each step with the stop
/// probability or at the maximal depth), each asked once through `oracle` (a word the cache answers
/// executes nothing, as RALib's CacheDataWordOracle) and compared in lockstep with `hypothesis`.
/// Returns the first difference (up to the differing step), or nothing. Seeded: the same answers
/// give the same words.
[[nodiscard]] std::optional<RaCounterexample> random_walk_difference(DataOracle& oracle, const RegisterAutomaton& hypothesis,
                                                                     const RaRandomWalkConfig& config);

/// Options of search_difference; plain values with defaults.
struct RaSearchConfig {
    std::size_t depth = 2;                 ///< guided words of up to this many steps from each access word
    std::size_t words_per_transition = 8;  ///< random words per transition of the hypothesis,
    std::size_t min_words = 100;           ///< at least this many (a small hypothesis of a large device)
    std::size_t random_words = 500;        ///< and at most this many
    std::size_t random_length = 12;        ///< the longest random word (lengths grow from depth + 1)
    std::uint64_t seed = 1;                ///< of the random words
};

/// The equivalence oracle's counterexample search, guided by `hypothesis` (SL*/RALib style):
/// 1. from each word of `access` (the empty word when empty), every data word of up to
///    `config.depth` steps whose parameters take one value per data class relative to the values
///    the hypothesis holds at that point (its registers, read back in the device's values, and the
///    constants; a fresh value avoids every value of the word) — each transition of the hypothesis
///    in each class of its guard, rather than every class relative to every value of the word;
/// 2. random data words, as many as `words_per_transition` times the hypothesis's transitions (at
///    least `min_words`, at most `random_words`), shortest first (from depth + 1 up to `random_length` steps), each
///    parameter in a data class relative to the hypothesis's registers or to every value of the
///    word (one of the two, chosen at random), each word one device run (query_adaptive).
/// Returns the first difference, or nothing. Seeded: the same answers give the same queries.
[[nodiscard]] std::optional<RaCounterexample> search_difference(DataOracle& oracle, const RegisterAutomaton& hypothesis,
                                                                const std::vector<DataWord>& access,
                                                                const RaSearchConfig& config = {});

/// The data trace of a counterexample, one numbered step a line (`  2. offer(7) -> ok`), the last
/// one followed by why it differs (`expected out(3), got out(7)`); `spec` names the symbols.
/// Deprecated: the one trace renderer is typestar::format_trace(trace_of(spec, cex))
/// (typestar/session/register_automata.hpp), which the CLI and the plugin use for both kinds.
[[nodiscard, deprecated("use typestar::format_trace(typestar::trace_of(spec, cex))")]] std::string format_trace(const RegisterAutomaton& spec, const RaCounterexample& cex);

/// The tests of one transition (DroidStar Algorithm 2 generalised, per transition): for every
/// explored (location, register order type) access word and every data class of the input's
/// parameters in which the spec takes transition `transition` of location `location`, that word
/// and every continuation of up to `config.bound` steps. Shares `oracle` (and so its cache) with
/// the other transitions' runs. `words` counts the test words of this transition; `states` the
/// pairs explored; a transition no explored class takes has words == 0 (not exercised). Past
/// `config.max_words` words executed it throws as check_register_automaton does.
[[nodiscard]] RaSuiteResult check_register_transition(const RegisterAutomaton& spec, DataOracle& oracle,
                                                      std::size_t location, std::size_t transition,
                                                      const RaSuiteConfig& config = {});

/// A shortest data word on which `a` and `b` answer differently (for diffs of two register
/// automata with the same inputs and outputs): iterative deepening over every data word of up to
/// `max_depth` steps, one per data class relative to all values of the word; `b` is simulated as
/// the device, `a` is the spec. Nothing when they agree on all of them (bounded evidence).
[[nodiscard]] std::optional<RaCounterexample> separating_word(const RegisterAutomaton& a, const RegisterAutomaton& b,
                                                              std::size_t max_depth);

}  // namespace typestar::ra
