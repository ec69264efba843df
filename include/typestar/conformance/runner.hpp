// The one runner of conformance suites, and the equivalence oracles built from suites and models.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "typestar/conformance/suite.hpp"
#include "typestar/core/mealy.hpp"
#include "typestar/sul/equivalence.hpp"
#include "typestar/sul/oracle.hpp"

namespace typestar {

/// Options of run_suite.
struct RunConfig {
    /// Test cases handed to the oracle per batch (a device pool may run a batch in parallel). The
    /// runner stops after the first batch with a failure, so 1 runs nothing after a failure.
    std::size_t batch_size = 1;
    /// Conformance checks (not learning): when set, a case the device answers `unknown:purpose`
    /// (kOutsidePurpose: its learning purpose does not explore that input there) where the suite
    /// expects `err` is not checked from that input on, and the case's inputs up to and including
    /// it are appended here (the caller names them among the assumptions). Where the suite expects
    /// any other answer (ok, a callback), or when null, such an answer is a difference like any
    /// other (the device is not where the suite says; during learning, a counterexample).
    std::vector<Word>* outside_purpose = nullptr;
};

/// Runs every test case of `suite` through `oracle` in order and returns the first that fails
/// (inputs over the oracle's inputs, expected over `suite.outputs`, actual over the oracle's
/// outputs, with the case's purpose and index), or nullopt: no counterexample — bounded evidence
/// (up to the suite's bound), not a proof. Outputs are compared by name, so an output the device
/// does not know never matches. Throws std::invalid_argument if the suite's inputs are not the
/// oracle's (same names in the same order); DeviceError, NondeterminismError from the oracle.
[[nodiscard]] std::optional<Counterexample> run_suite(const TestSuite& suite, MembershipOracle& oracle,
                                                      const RunConfig& config = {});

/// run_suite over the cases `suite` generates, one batch at a time: the same queries in the same
/// order as over generate_suite's result, without holding the suite (a failure also ends
/// generation). `cases_run`, if given, receives the number of cases handed to the oracle (the
/// whole suite when nothing failed). Same errors as above.
[[nodiscard]] std::optional<Counterexample> run_suite(SuiteGenerator& suite, MembershipOracle& oracle,
                                                      const RunConfig& config = {},
                                                      std::size_t* cases_run = nullptr);

/// The equivalence oracle for L* built from a suite generator and the runner: each hypothesis gets
/// the suite of `config` (with L*'s access sequences, and the oracle's traits unless the config
/// sets them), run through `oracle` — share the learner's oracle stack so the suite reuses what
/// learning ran.
class SuiteEquivalenceOracle final : public EquivalenceOracle {
public:
    SuiteEquivalenceOracle(MembershipOracle& oracle, SuiteConfig config = {}, RunConfig run = {});
    [[nodiscard]] std::optional<Counterexample> find_counterexample(const MealyMachine& hypothesis,
                                                                    std::span<const Word> access) override;
    /// B for Algorithm 2 (at least 1), else 1.
    [[nodiscard]] std::size_t suggested_suffix_length() const override;
    /// The test cases the last call ran: the whole suite (after deduplication) when it found no
    /// counterexample, else up to the batch with the first failure (the suite is streamed).
    [[nodiscard]] std::size_t last_suite_size() const noexcept { return last_suite_size_; }

private:
    MembershipOracle& oracle_;
    SuiteConfig config_;
    RunConfig run_;
    std::size_t last_suite_size_ = 0;
    std::vector<Word> ran_;  ///< chained: the words earlier calls ran (SuiteConfig::prior)
};

/// The perfect equivalence oracle for a model device: a shortest separating word between the
/// hypothesis and the known `truth` (core separating_word), costing no queries. For measuring
/// learning alone. Outputs of `truth` are matched to the hypothesis's by name.
class PerfectOracle final : public EquivalenceOracle {
public:
    explicit PerfectOracle(MealyMachine truth);
    /// Throws std::invalid_argument if the input alphabets differ as sets, or if the truth answers an
    /// output the hypothesis's output alphabet lacks (it then has no id for `actual`).
    [[nodiscard]] std::optional<Counterexample> find_counterexample(const MealyMachine& hypothesis,
                                                                    std::span<const Word> access) override;

private:
    MealyMachine truth_;
};

}  // namespace typestar
