// The flake policy (issue 24 item 1): a device that answers `err` instead of `ok` to a callin 2% of
// the time never yields a wrong spec — each seeded run ends in the right spec or in a
// NondeterminismError naming the word.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>

#include "support/flaky_connection.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar {
namespace {

/// A connection: open, a callback, then any number of sends; flush starts over, close ends.
const char* const kConnection = R"(typestar: 1
name: Connection
callins: [close, flush, open, send]
callbacks: [onOpen]
initial: idle
states:
  idle:
    callins:
      open: opening
      close: closed
  opening:
    callbacks:
      onOpen: ready
  ready:
    callins:
      send: ready
      flush: idle
      close: closed
  closed:
    callins:
      close: closed
)";

/// The truth, except that an enabled `send` answers `err` (and does nothing) with probability
/// `rate`, from a seeded generator: a rarely flaky device, in process.
class FlakyDevice final : public Device {
public:
    FlakyDevice(const MealyMachine& truth, double rate, std::uint64_t seed)
        : inner_(truth, "model:connection"), rate_(rate), random_(seed) {
        send_ = *truth.inputs().find("send");
        ok_ = *truth.outputs().find(kOk);
        err_ = *truth.outputs().find(kErr);
    }
    const Alphabet& inputs() const override { return inner_.inputs(); }
    const Alphabet& outputs() const override { return inner_.outputs(); }
    DeviceTraits traits() const override { return inner_.traits(); }
    std::string name() const override { return "flaky"; }
    void reset() override { inner_.reset(); }
    Symbol step(Symbol input) override {
        if (input == send_ && std::bernoulli_distribution(rate_)(random_)) {
            // Flaky only where the truth says ok (a refused send stays refused): probe a copy.
            ModelDevice probe = inner_;
            if (probe.step(input) == ok_) return err_;
        }
        return inner_.step(input);
    }

private:
    ModelDevice inner_;
    double rate_;
    std::mt19937_64 random_;
    Symbol send_ = 0, ok_ = 0, err_ = 0;
};

struct Outcomes {
    int right = 0, wrong = 0, nondeterminism = 0;
    std::string first_wrong;
};

Outcomes learn_flaky(bool flake_check, int runs) {
    const spec::Spec truth = spec::parse_spec(kConnection, "connection.yaml");
    const MealyMachine machine = synchronous_closure(truth.typestate);
    Outcomes out;
    for (int seed = 1; seed <= runs; ++seed) {
        FlakyDevice device(machine, 0.02, static_cast<std::uint64_t>(seed));
        Device* devices[] = {&device};
        LearnOptions options;
        options.flake_check = flake_check;
        try {
            const LearnedSpec learned = learn_spec(devices, options);
            if (learned.spec && spec::same_behaviour(*learned.spec, truth)) {
                ++out.right;
            } else {
                ++out.wrong;
                if (out.first_wrong.empty())
                    out.first_wrong = "seed " + std::to_string(seed) + ":\n" +
                                      (learned.spec ? spec::write_spec(*learned.spec) : learned.not_a_closure);
            }
        } catch (const NondeterminismError& e) {
            ++out.nondeterminism;
            EXPECT_FALSE(e.inputs().empty()) << "seed " << seed << ": " << e.what();
            EXPECT_GE(e.answers().size(), 2u) << "seed " << seed << ": " << e.what();
            EXPECT_NE(std::string(e.what()).find("send"), std::string::npos) << e.what();  // names the word
        }
    }
    return out;
}

TEST(FlakePolicy, ARarelyFlakyDeviceNeverYieldsAWrongSpec) {
    // 100 seeded runs (the issue's target: 30); measured: 0 wrong with the policy, 6 of 300 without.
    const Outcomes out = learn_flaky(true, 100);
    std::printf("flake policy on: %d right, %d wrong, %d NondeterminismError\n", out.right, out.wrong, out.nondeterminism);
    EXPECT_EQ(out.wrong, 0) << out.first_wrong;
    EXPECT_EQ(out.right + out.nondeterminism, 100);
    EXPECT_GT(out.right, 0);  // a rare flake that never touched the result still learns the spec
}

TEST(FlakePolicy, WithoutItTheSameSeedsLearnWrongSpecs) {
    // The device is flaky enough to matter: the cache alone absorbs some of its wrong answers.
    const Outcomes out = learn_flaky(false, 100);
    std::printf("flake policy off: %d right, %d wrong, %d NondeterminismError\n", out.right, out.wrong, out.nondeterminism);
    EXPECT_GT(out.wrong, 0);
}

/// Learns the merging-flake device (tests/support/flaky_connection.hpp) once per seed at `rate`.
Outcomes learn_merging_flake(double rate, int first_seed, int runs) {
    const spec::Spec truth = testing_support::flaky_connection_truth();
    Outcomes out;
    for (int seed = first_seed; seed < first_seed + runs; ++seed) {
        testing_support::FlakyConnection device(rate, std::make_shared<std::mt19937_64>(seed));
        Device* devices[] = {&device};
        try {
            const LearnedSpec learned = learn_spec(devices);
            if (learned.spec && spec::same_behaviour(*learned.spec, truth)) {
                ++out.right;
            } else {
                ++out.wrong;
                if (out.first_wrong.empty())
                    out.first_wrong = "seed " + std::to_string(seed) + ":\n" +
                                      (learned.spec ? spec::write_spec(*learned.spec) : learned.not_a_closure);
            }
        } catch (const NondeterminismError& e) {
            ++out.nondeterminism;
            EXPECT_GE(e.answers().size(), 2u) << "seed " << seed << ": " << e.what();
            EXPECT_NE(std::string(e.what()).find("send"), std::string::npos) << e.what();  // names the word
        }
    }
    return out;
}

TEST(FlakePolicy, AFlakeThatMergesTwoStatesNeverYieldsAWrongSpec) {
    // Issue 39: `connect wait send` answered `err` once made the open state look like another one;
    // the spec had a state fewer than the device and the old policy never ran that word again.
    // Measured with the old policy (the Wp suite for no extra state re-run): 1 of 30 wrong at 2% and
    // 1 of 30 at 5% (seed 6: open merged into closed), seeds 1-30.
    for (const double rate : {0.02, 0.05}) {
        const Outcomes out = learn_merging_flake(rate, 1, 30);
        std::printf("merging flake at %.0f%%: %d right, %d wrong, %d NondeterminismError\n", rate * 100, out.right,
                    out.wrong, out.nondeterminism);
        EXPECT_EQ(out.wrong, 0) << "at " << rate << ": " << out.first_wrong;
        EXPECT_EQ(out.right + out.nondeterminism, 30);
        EXPECT_GT(out.right, 0);
    }
}

TEST(FlakePolicy, TheNoteNamesWhatWasRerunAndTheResidualChance) {
    // A device that does not declare determinism (FlakyDevice at rate 0: it never flakes, but says nothing).
    const spec::Spec truth = spec::parse_spec(kConnection, "connection.yaml");
    FlakyDevice device(synchronous_closure(truth.typestate), 0.0, 1);
    ASSERT_FALSE(device.deterministic());
    Device* devices[] = {&device};
    const LearnedSpec learned = learn_spec(devices);
    ASSERT_TRUE(learned.spec);
    EXPECT_TRUE(spec::same_behaviour(*learned.spec, truth));
    // The decisive suite, what it covers, and the residual chance for every machine within the bound.
    EXPECT_NE(learned.flake_note.find("run again past the cache"), std::string::npos) << learned.flake_note;
    EXPECT_NE(learned.flake_note.find("Algorithm 2 suite at B=2, for every machine whose states are told apart by "
                                      "words of length <= 2"),
              std::string::npos)
        << learned.flake_note;
    EXPECT_NE(learned.flake_note.find("·p² (p=1%: "), std::string::npos) << learned.flake_note;
    std::printf("%s\n", learned.flake_note.c_str());
    EXPECT_GT(learned.stats.verification.queries_executed, 0u);
    // Nothing is re-run for two reasons: each decisive word once (a device that never flakes: one round).
    LearnOptions off;
    off.flake_check = false;
    // The same suite: where nothing is re-run, the defaults would chain Algorithm 2's words
    // (EquivalenceOptions::chained), which the flake policy does not (its decisive words are the plain suite's).
    off.equivalence.chained = false;
    const LearnedSpec plain = learn_spec(devices, off);
    EXPECT_TRUE(plain.flake_note.empty());
    EXPECT_FALSE(separating_word(plain.machine, learned.machine).has_value());
    EXPECT_EQ(plain.stats.learning, learned.stats.learning);
    EXPECT_EQ(plain.stats.equivalence, learned.stats.equivalence);
}

TEST(FlakePolicy, ADeviceThatCannotFlakeIsNotVerifiedAndTheNoteSaysSo) {
    // Issue 38 item 3: a model device declares itself deterministic; nothing is re-run past the
    // cache (no flake-policy words, no `wait` re-checks), and the note says why.
    const spec::Spec truth = spec::parse_spec(kConnection, "connection.yaml");
    ModelDevice model(synchronous_closure(truth.typestate), "model:connection");
    ASSERT_TRUE(model.deterministic());
    Device* devices[] = {&model};
    LearnOptions same_suite;  // the plain suite, as the verified run below (see the test above)
    same_suite.equivalence.chained = false;
    const LearnedSpec learned = learn_spec(devices, same_suite);
    ASSERT_TRUE(learned.spec);
    EXPECT_TRUE(spec::same_behaviour(*learned.spec, truth));
    EXPECT_EQ(learned.stats.verification.queries_executed, 0u);
    // With the defaults (chained words) the same spec, and no more executed queries.
    ModelDevice model2(synchronous_closure(truth.typestate), "model:connection");
    Device* devices2[] = {&model2};
    const LearnedSpec chained = learn_spec(devices2);
    ASSERT_TRUE(chained.spec);
    EXPECT_TRUE(spec::same_behaviour(*chained.spec, truth));
    EXPECT_LE(chained.stats.total().queries_executed, learned.stats.total().queries_executed);
    EXPECT_NE(learned.flake_note.find("not run: the device model:connection declares itself deterministic"),
              std::string::npos)
        << learned.flake_note;
    // ... and the assumption it rests on is listed with the others (a verdict names what it relied on).
    EXPECT_NE(std::find(learned.assumptions.begin(), learned.assumptions.end(),
                        "every run of a word answers alike (declared by the device: a model or a simulation), so no "
                        "answer was re-run to rule out a flake"),
              learned.assumptions.end());
    // The same machine behind a decorator that does not declare it is verified (never inferred).
    FlakyDevice undeclared(synchronous_closure(truth.typestate), 0.0, 1);
    Device* others[] = {&undeclared};
    const LearnedSpec verified = learn_spec(others);
    EXPECT_GT(verified.stats.verification.queries_executed, 0u);
    for (const auto& a : verified.assumptions) EXPECT_EQ(a.find("answers alike"), std::string::npos) << a;
    EXPECT_EQ(verified.stats.learning, learned.stats.learning);
    EXPECT_EQ(verified.stats.equivalence, learned.stats.equivalence);
}

}  // namespace
}  // namespace typestar
