// L*: exact on every reference machine, on seeded random machines of 2-200 states and on random
// typestate closures, for every learner option, with the perfect oracle and with Algorithm 2 at a
// bound the machine needs; err-awareness, seeding, statistics and failure modes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "support/first_mutant.hpp"
#include "support/random_mealy.hpp"
#include "support/random_typestate.hpp"
#include "support/reference_machines.hpp"
#include "typestar/conformance/runner.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/learn/lstar.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

enum class Eq { Perfect, Alg2, Wp };

struct Outcome {
    LearnedSpec result;
    bool exact = false;
};

/// Learns `truth` through a model device and the session layer (learn_spec).
Outcome learn_model(const MealyMachine& truth, Eq eq, LearnerConfig config = {}, std::size_t bound = 0,
                    LearnerKind learner = LearnerKind::LStar) {
    ModelDevice device(truth);
    LearnOptions options;
    options.learner = learner;  // L* unless asked: these tests pin L*'s own costs (the default is L#)
    options.lstar = std::move(config);
    options.wait_rechecks = 0;  // L*'s own costs (the session's determinism re-check is tested in tests/session)
    if (eq == Eq::Perfect) {
        options.equivalence.perfect = truth;
    } else {
        options.equivalence.method = eq == Eq::Wp ? SuiteMethod::Wp : SuiteMethod::Algorithm2;
        options.equivalence.bound = bound;
        options.equivalence.extra_states = bound;
        // L* with the bounded suite alone (the search beyond the bound is tested in
        // tests/conformance/exploration_test.cpp): these tests pin what the suite costs.
        options.equivalence.explore_words_per_transition = 0;
    }
    Device* devices[] = {&device};
    Outcome out{learn_spec(devices, options), false};
    out.exact = !separating_word(out.result.machine, truth).has_value();
    return out;
}

/// L* itself through the learner interface and the experiment loop (for what only L* knows).
LearnResult run_lstar(OracleStack& stack, EquivalenceOracle& equivalence, LearnerConfig config = {},
                      ExperimentConfig experiment = {}, std::vector<Word>* suffixes = nullptr) {
    LStar lstar(stack.oracle(), std::move(config));
    LearnResult r = run_experiment(lstar, equivalence, stack.counter(), experiment);
    if (suffixes != nullptr) *suffixes = lstar.suffixes();
    return r;
}

std::size_t needed_bound(const MealyMachine& m) { return std::max<std::size_t>(1, distinguisher_bound(minimize(m)).value()); }

struct Options {
    CexStrategy strategy;
    bool pad;
    std::size_t initial;
};

std::vector<Options> all_options() {
    std::vector<Options> result;
    for (auto s : {CexStrategy::RivestSchapire, CexStrategy::ShortestSuffix, CexStrategy::AllSuffixes})
        for (bool pad : {true, false})
            for (std::size_t initial : {1u, 2u}) result.push_back({s, pad, initial});
    return result;
}

LearnerConfig config_of(const Options& o) {
    LearnerConfig c;
    c.counterexamples = o.strategy;
    c.pad_queries = o.pad;
    c.initial_suffix_length = o.initial;
    return c;
}

std::string describe(const Options& o) {
    return "strategy " + std::to_string(static_cast<int>(o.strategy)) + " pad " + std::to_string(o.pad) +
           " initial " + std::to_string(o.initial);
}

// ---- learner x model matrix -------------------------------------------------------------------

TEST(LStarMatrix, ReferenceMachinesEveryOptionPerfectAndAlgorithm2) {
    for (const auto& [name, machine] : testing_support::reference_machines()) {
        const std::size_t bound = needed_bound(machine);
        for (const Options& o : all_options()) {
            const auto perfect = learn_model(machine, Eq::Perfect, config_of(o));
            EXPECT_TRUE(perfect.exact) << name << " perfect " << describe(o);
            EXPECT_TRUE(perfect.result.converged);
            EXPECT_EQ(perfect.result.machine.num_states(), minimize(machine).num_states()) << name;
            const auto alg2 = learn_model(machine, Eq::Alg2, config_of(o), bound);
            EXPECT_TRUE(alg2.exact) << name << " alg2 B=" << bound << " " << describe(o);
        }
    }
}

TEST(LStarMatrix, SmallReferenceMachinesWithTheWpMethod) {
    for (const auto& [name, machine] : testing_support::reference_machines()) {
        if (machine.num_states() > 4) continue;  // k = n - 1 extra states makes the suite exact
        const auto wp = learn_model(machine, Eq::Wp, {}, machine.num_states() - 1);
        EXPECT_TRUE(wp.exact) << name;
    }
}

class RandomMachines : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RandomMachines, PerfectOracleEveryStrategy) {
    const std::size_t n = GetParam();
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const MealyMachine truth = testing_support::random_mealy(n, 3, 2 + seed % 2, seed);
        for (auto s : {CexStrategy::RivestSchapire, CexStrategy::ShortestSuffix, CexStrategy::AllSuffixes})
            for (bool pad : {true, false}) {
                LearnerConfig c;
                c.counterexamples = s;
                c.pad_queries = pad;
                const auto out = learn_model(truth, Eq::Perfect, c);
                EXPECT_TRUE(out.exact) << "n=" << n << " seed=" << seed << " strategy " << static_cast<int>(s);
                EXPECT_EQ(out.result.machine.num_states(), n);
            }
    }
}

TEST_P(RandomMachines, Algorithm2AtTheNeededBound) {
    const std::size_t n = GetParam();
    // The suite has about |Q|·|Σ|^(B+1) words: two inputs above 30 states keep it test-sized.
    const std::size_t inputs = n > 30 ? 2 : 3;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const MealyMachine truth = testing_support::random_mealy(n, inputs, 3, seed);
        const std::size_t bound = needed_bound(truth);
        for (std::size_t initial : {std::size_t{1}, bound}) {
            LearnerConfig c;
            c.initial_suffix_length = initial;
            const auto out = learn_model(truth, Eq::Alg2, c, bound);
            EXPECT_TRUE(out.exact) << "n=" << n << " seed=" << seed << " B=" << bound << " initial " << initial;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(States, RandomMachines, ::testing::Values(2, 3, 5, 10, 20, 30, 50, 100, 200));

TEST(LStar, RandomTypestateClosuresWithAlgorithm2) {
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const Typestate t = testing_support::random_typestate(2 + seed % 7, 3, 2, seed);
        const MealyMachine truth = minimize(synchronous_closure(t));
        const std::size_t bound = needed_bound(truth);
        LearnerConfig c;
        c.initial_suffix_length = bound;
        const auto out = learn_model(truth, Eq::Alg2, c, bound);
        EXPECT_TRUE(out.exact) << "seed " << seed;
        // Learned as the closure of a typestate again.
        EXPECT_NO_THROW((void)typestate_of(out.result.machine, "learned")) << "seed " << seed;
    }
}

// ---- err-awareness ----------------------------------------------------------------------------

/// Records every word a device runs (cut after an err).
class RecordingDevice final : public Device {
public:
    explicit RecordingDevice(const MealyMachine& m) : model_(m) {}
    const Alphabet& inputs() const override { return model_.inputs(); }
    const Alphabet& outputs() const override { return model_.outputs(); }
    DeviceTraits traits() const override { return model_.traits(); }
    std::string name() const override { return "recording"; }
    void reset() override { model_.reset(); }
    Symbol step(Symbol input) override { return model_.step(input); }
    RunResult run(std::span<const Symbol> in) override {
        RunResult r = model_.run(in);
        Word w(in.begin(), in.end());
        const auto err = traits().absorbing;
        for (std::size_t j = 0; err && j < r.outputs.size(); ++j)
            if (r.outputs[j] == *err) {
                w.resize(j + 1);
                break;
            }
        runs.push_back(w);
        return r;
    }
    std::vector<Word> runs;

private:
    ModelDevice model_;
};

TEST(LStar, NothingRunsPastAKnownErr) {
    const Typestate t = testing_support::random_typestate(6, 3, 2, 7);
    const MealyMachine truth = minimize(synchronous_closure(t));
    RecordingDevice device(truth);
    OracleStack stack(device);
    PerfectOracle perfect(truth);
    const auto result = run_lstar(stack, perfect);
    EXPECT_FALSE(separating_word(result.hypothesis, truth).has_value());
    const Symbol err = truth.outputs().at("err");
    std::set<Word> err_words;  // words seen ending in err
    for (const Word& w : device.runs) {
        for (std::size_t n = 1; n < w.size(); ++n)
            EXPECT_FALSE(err_words.count(Word(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(n))))
                << "ran a word extending a known err";
        if (truth.outputs_of(w).back() == err) err_words.insert(w);
    }
    EXPECT_FALSE(err_words.empty());
}

// ---- bundled specs and seeding ----------------------------------------------------------------

MealyMachine bundled(const std::string& file) {
    return minimize(synchronous_closure(spec::load_spec(std::string(TYPESTAR_SOURCE_DIR) + "/specs/" + file).typestate));
}

using testing_support::first_mutant;

TEST(LStar, BundledSpecsAreLearnedExactly) {
    for (const char* file : {"asynctask.yaml", "mediaplayer.yaml"}) {
        const MealyMachine truth = bundled(file);
        const std::size_t k = truth.num_inputs();
        // Default config: E starts as what the oracle suggests (all words of length <= B for
        // Algorithm 2, the single inputs for the perfect oracle).
        const auto perfect = learn_model(truth, Eq::Perfect);
        EXPECT_TRUE(perfect.exact) << file;
        const auto out = learn_model(truth, Eq::Alg2, {}, 2);
        EXPECT_TRUE(out.exact) << file;
        {
            ModelDevice device(truth);
            OracleStack stack(device);
            PerfectOracle oracle(truth);
            std::vector<Word> suffixes;
            (void)run_lstar(stack, oracle, {}, {}, &suffixes);
            EXPECT_EQ(suffixes.size(), k) << file;  // needed bound 1: nothing added
        }
        {
            ModelDevice device(truth);
            OracleStack stack(device);
            SuiteEquivalenceOracle alg2(stack.oracle());
            std::vector<Word> suffixes;
            (void)run_lstar(stack, alg2, {}, {}, &suffixes);
            EXPECT_EQ(suffixes.size(), k + k * k) << file;
        }
        EXPECT_EQ(out.result.rounds, 1u) << file;  // E = Σ^{<=2} already separates every state
        EXPECT_EQ(out.result.stats.equivalence.queries_executed, 0u) << file;  // the suite runs from the cache
    }
}

TEST(LStar, DroidStarStandInsAreLearnedExactly) {
    // bench/droidstar: the 16 classes of DroidStar's Table 1 (reconstructions), all needing B <= 2.
    std::size_t models = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(TYPESTAR_SOURCE_DIR) + "/bench/droidstar")) {
        if (entry.path().extension() != ".yaml") continue;
        ++models;
        const MealyMachine truth = minimize(synchronous_closure(spec::load_spec(entry.path()).typestate));
        const auto perfect = learn_model(truth, Eq::Perfect);
        EXPECT_TRUE(perfect.exact) << entry.path();
        LearnerConfig c;
        c.initial_suffix_length = 2;
        const auto alg2 = learn_model(truth, Eq::Alg2, c, 2);
        EXPECT_TRUE(alg2.exact) << entry.path();
        EXPECT_EQ(alg2.result.rounds, 1u) << entry.path();
        EXPECT_EQ(alg2.result.stats.equivalence.queries_executed, 0u) << entry.path();
    }
    EXPECT_EQ(models, 16u);
}

TEST(LStar, SeededWithTheRightSpecNeedsOneRound) {
    // Through the session's default learner (L#): the seed is rebuilt on the device before the first
    // hypothesis, which is then right. With the perfect oracle the rebuild asks at most a word per
    // transition and the identifying words of the seed's states, and nothing else runs. With
    // Algorithm 2 in chained words (the default on a device that declares itself deterministic) the
    // rebuild does not ask the plain suite's words in advance; the one suite runs its chained words,
    // fewer than the plain suite's.
    for (const char* file : {"asynctask.yaml", "mediaplayer.yaml"}) {
        const MealyMachine truth = bundled(file);
        for (Eq eq : {Eq::Perfect, Eq::Alg2}) {
            LearnerConfig c;
            c.seed = truth;
            const auto out = learn_model(truth, eq, c, 2, LearnerKind::LSharp);
            EXPECT_TRUE(out.exact) << file;
            EXPECT_EQ(out.result.rounds, 1u) << file;
            if (eq == Eq::Alg2) {
                SuiteConfig plain;
                plain.bound = 2;
                EXPECT_LT(out.result.stats.equivalence.queries_executed, generate_suite(truth, plain).cases.size()) << file;
            } else {
                EXPECT_EQ(out.result.stats.equivalence.queries_executed, 0u) << file;
            }
            if (eq == Eq::Perfect) {
                EXPECT_LE(out.result.stats.learning.queries_executed, truth.num_states() * truth.num_inputs()) << file;
            }
        }
    }
}

TEST(LStar, SeededWithAMutantCostsLessThanFromScratch) {
    for (const char* file : {"asynctask.yaml", "mediaplayer.yaml"}) {
        const MealyMachine truth = bundled(file);
        const MealyMachine mutant = first_mutant(truth);
        for (Eq eq : {Eq::Perfect, Eq::Alg2}) {
            LearnerConfig scratch_config;
            scratch_config.initial_suffix_length = eq == Eq::Alg2 ? 2 : 1;
            LearnerConfig seeded_config = scratch_config;
            seeded_config.seed = mutant;
            const auto scratch = learn_model(truth, eq, scratch_config, 2);
            const auto seeded = learn_model(truth, eq, seeded_config, 2);
            EXPECT_TRUE(scratch.exact && seeded.exact) << file;
            EXPECT_LT(seeded.result.stats.learning.queries_executed, scratch.result.stats.learning.queries_executed)
                << file << (eq == Eq::Perfect ? " perfect" : " alg2");
        }
    }
}

TEST(LStar, SeedOverOtherInputsIsRejected) {
    const MealyMachine truth = testing_support::angluin_example();
    LearnerConfig c;
    c.seed = testing_support::combination_lock();  // inputs {a, b} too, but outputs differ: fine
    EXPECT_TRUE(learn_model(truth, Eq::Perfect, c).exact);
    c.seed = testing_support::coffee_machine();
    EXPECT_THROW((void)learn_model(truth, Eq::Perfect, c), std::invalid_argument);
}

// ---- statistics, rounds, failure modes ---------------------------------------------------------

TEST(LStar, ReportsEveryRoundAndSplitsPhases) {
    const MealyMachine truth = testing_support::combination_lock();
    ModelDevice device(truth);
    OracleStack stack(device);
    SuiteConfig suite;
    suite.bound = 3;
    SuiteEquivalenceOracle alg2(stack.oracle(), suite);
    std::vector<RoundInfo> rounds;
    LearnerConfig c;
    c.initial_suffix_length = 1;  // E = Σ: the lock needs counterexamples
    ExperimentConfig e;
    e.on_round = [&](const RoundInfo& r) { rounds.push_back(r); };
    const auto result = run_lstar(stack, alg2, c, e);
    EXPECT_TRUE(result.converged);
    ASSERT_EQ(rounds.size(), result.rounds);
    ASSERT_GE(rounds.size(), 2u);
    for (std::size_t i = 0; i < rounds.size(); ++i) {
        EXPECT_EQ(rounds[i].round, i + 1);
        EXPECT_EQ(rounds[i].counterexample, i + 1 < rounds.size());
        EXPECT_EQ(rounds[i].stats.equivalence_rounds, i + 1);
    }
    EXPECT_EQ(result.stats.equivalence_rounds, result.rounds);
    EXPECT_EQ(stack.counter().phase(), Phase::Learning);
    EXPECT_GT(result.stats.equivalence.queries_asked, 0u);
    EXPECT_GT(result.stats.learning.queries_executed, 0u);
    EXPECT_EQ(result.access_sequences.size(), result.hypothesis.num_states());
    for (StateId s = 0; s < result.access_sequences.size(); ++s)
        EXPECT_EQ(result.hypothesis.run(result.access_sequences[s]), s);
}

TEST(LStar, MaxRoundsStopsWithoutConverging) {
    const MealyMachine truth = testing_support::combination_lock();
    ModelDevice device(truth);
    OracleStack stack(device);
    PerfectOracle perfect(truth);
    ExperimentConfig e;
    e.max_rounds = 1;
    const auto result = run_lstar(stack, perfect, {}, e);
    EXPECT_FALSE(result.converged);
    EXPECT_EQ(result.rounds, 1u);
    EXPECT_TRUE(separating_word(result.hypothesis, truth).has_value());
}

/// Returns a "counterexample" on which the hypothesis is right.
class LyingOracle final : public EquivalenceOracle {
public:
    std::optional<Counterexample> find_counterexample(const MealyMachine& h, std::span<const Word>) override {
        const Word w(3, 0);
        return Counterexample{w, h.outputs_of(w), h.outputs_of(w), "lie", std::nullopt};
    }
};

TEST(LStar, ACounterexampleThatIsNoneIsAnError) {
    const MealyMachine truth = testing_support::angluin_example();
    ModelDevice device(truth);
    OracleStack stack(device);
    LyingOracle liar;
    EXPECT_THROW((void)run_lstar(stack, liar), Error);
}

/// A learner whose hypothesis keeps apart two states nobody tells apart (as a seed's predicted cells
/// can): three states, the last two equivalent.
class RedundantLearner final : public Learner {
public:
    void start() override {}
    bool refine(const Counterexample&) override { return false; }
    MealyMachine hypothesis() const override {
        MealyBuilder b(Alphabet({"a", "b"}), Alphabet({"ok", "err"}));
        const StateId s0 = b.add_state("s0"), s1 = b.add_state("s1"), s2 = b.add_state("s2");
        b.set_transition(s0, 0, s1, 0);  // a: ok, to s1
        b.set_transition(s0, 1, s0, 1);  // b: err
        b.set_transition(s1, 0, s2, 0);  // s1 and s2 answer alike and stay among themselves
        b.set_transition(s1, 1, s1, 0);
        b.set_transition(s2, 0, s1, 0);
        b.set_transition(s2, 1, s2, 0);
        return b.build();
    }
    std::vector<Word> access_sequences() const override { return {{}, {0}, {0, 0}}; }
    std::string name() const override { return "redundant"; }
};

// Issue 39 (a surviving mutant): the experiment's result is the minimal machine with one access word
// per state of it (run_experiment's contract), not the learner's redundant hypothesis.
TEST(Experiment, TheResultIsTheMinimalMachineWithItsOwnAccessWords) {
    RedundantLearner learner;
    const MealyMachine redundant = learner.hypothesis();
    ASSERT_EQ(minimize(redundant).num_states(), 2u);
    PerfectOracle perfect(redundant);  // nothing to refute: the first hypothesis is the result
    QueryCounter counter;
    const LearnResult r = run_experiment(learner, perfect, counter);
    ASSERT_TRUE(r.converged);
    EXPECT_EQ(r.hypothesis.num_states(), 2u);
    ASSERT_EQ(r.access_sequences.size(), r.hypothesis.num_states());
    EXPECT_EQ(r.access_sequences, (std::vector<Word>{{}, {0}}));
    for (StateId q = 0; q < r.hypothesis.num_states(); ++q)
        EXPECT_EQ(r.hypothesis.run(r.access_sequences[q]), q) << q;
    EXPECT_FALSE(separating_word(r.hypothesis, redundant).has_value());
}

/// Flips the output of the first step of every run from the `from`-th run on.
class DriftingDevice final : public Device {
public:
    DriftingDevice(const MealyMachine& m, int from) : model_(m), from_(from) {}
    const Alphabet& inputs() const override { return model_.inputs(); }
    const Alphabet& outputs() const override { return model_.outputs(); }
    std::string name() const override { return "drifting"; }
    void reset() override {
        model_.reset();
        ++runs_;
        first_ = true;
    }
    Symbol step(Symbol input) override {
        const Symbol out = model_.step(input);
        const bool flip = first_ && runs_ >= from_;
        first_ = false;
        return flip ? static_cast<Symbol>((out + 1) % outputs().size()) : out;
    }

private:
    ModelDevice model_;
    int from_;
    int runs_ = 0;
    bool first_ = true;
};

TEST(LStar, NondeterministicDeviceRaisesWithBothTraces) {
    const MealyMachine truth = testing_support::coffee_machine();
    DriftingDevice device(truth, 5);
    OracleStack stack(device);
    PerfectOracle perfect(truth);
    try {
        (void)run_lstar(stack, perfect);
        FAIL() << "no NondeterminismError";
    } catch (const NondeterminismError& e) {
        ASSERT_FALSE(e.inputs().empty());
        EXPECT_EQ(e.inputs().size(), e.first_outputs().size());
        EXPECT_EQ(e.inputs().size(), e.second_outputs().size());
        EXPECT_NE(e.first_outputs(), e.second_outputs());
        EXPECT_EQ(e.first_outputs().back(), truth.outputs().name(truth.outputs_of(word_of(e.inputs(), truth.inputs())).back()));
    }
}

}  // namespace
}  // namespace typestar
