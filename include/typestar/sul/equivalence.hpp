// Equivalence oracles and counterexamples: what a learner asks after building a hypothesis, and what
// a conformance run returns.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "typestar/core/alphabet.hpp"
#include "typestar/core/mealy.hpp"

namespace typestar {

/// An input word on which a device and a model disagree: the model's expected outputs and the
/// device's actual outputs (both one per input, over the device's alphabets), and what the test
/// that found it was checking.
struct Counterexample {
    Word inputs;
    Word expected;
    Word actual;
    std::string purpose;  ///< e.g. "state Preparing, input start, then suffix wait"; may be empty
    std::optional<std::size_t> test_case;  ///< index of the test case in its suite, if from a suite

    /// The first position where `expected` and `actual` differ (inputs.size() if they do not).
    [[nodiscard]] std::size_t first_difference() const noexcept;
    bool operator==(const Counterexample&) const = default;
};

/// An equivalence oracle for any kind of hypothesis (LearnLib's EquivalenceOracle<A, I, D>): a
/// counterexample to a hypothesis, or nullopt when none was found — which, for a testing oracle, is
/// bounded evidence, not a proof. `Access` is the kind's word type (one access word per hypothesis
/// state), `Cex` its counterexample. EquivalenceOracle below is the Mealy instance; register
/// automata implement it at their data-word types (typestar/conformance/ra_equivalence.hpp).
template <class Hypothesis, class Access, class Cex>
class BasicEquivalenceOracle {
public:
    virtual ~BasicEquivalenceOracle() = default;

    /// Looks for a word on which the device and `hypothesis` disagree. `access` gives one access
    /// word per hypothesis state (the learner's state representatives; the Remark after DroidStar
    /// Algorithm 2 reuses them), or is empty to let the oracle compute its own. Throws DeviceError,
    /// NondeterminismError.
    [[nodiscard]] virtual std::optional<Cex> find_counterexample(const Hypothesis& hypothesis,
                                                                 std::span<const Access> access) = 0;

    /// The suffix length a learner's table should start with (its E = all words of length
    /// 1..this) so that the oracle's own queries come from the learner's cache: DroidStar
    /// Algorithm 2 at bound B asks every state and transition for every suffix of length <= B, so
    /// it suggests B. Default 1.
    [[nodiscard]] virtual std::size_t suggested_suffix_length() const { return 1; }
};

/// An equivalence oracle for Mealy machines (DroidStar §4.2, EOracle). The hypothesis is over the
/// device's alphabets (outputs may be a prefix of the device's current output alphabet).
using EquivalenceOracle = BasicEquivalenceOracle<MealyMachine, Word, Counterexample>;

}  // namespace typestar
