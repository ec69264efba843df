// The simulated Android classes: each, learned from scratch with real callbacks and quiescence
// timing, gives back its spec in specs/; their corner cases and non-determinism handling.
#include <gtest/gtest.h>

#include <set>

#include "learning_support.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/simulated.hpp"

namespace typestar {
namespace {

using testing_support::behaves_as;
using testing_support::fast_options;
using testing_support::learn_from_scratch;
using testing_support::source_spec;

Word word(const Device& d, const std::vector<std::string>& names) { return word_of(names, d.inputs()); }

std::vector<std::string> answer(Device& d, const std::vector<std::string>& names) {
    return names_of(d.run(word(d, names)).outputs, d.outputs());
}

std::vector<std::unique_ptr<Device>> sim_devices(const std::string& key, std::size_t n,
                                                 sim::SimOptions options = fast_options()) {
    DeviceOptions o = testing_support::fast_device_options();
    o.sim = options;
    return make_devices({"inproc:" + key}, n, o);
}

class LearnSimulated : public ::testing::TestWithParam<std::string> {};

TEST_P(LearnSimulated, GivesBackItsSpec) {
    const auto entry = sim::find_simulated(GetParam());
    ASSERT_TRUE(entry.has_value());
    const spec::Spec expected = source_spec(entry->spec);
    const auto learned = learn_from_scratch(sim_devices(entry->key, 4), expected.typestate.name);
    EXPECT_TRUE(learned.result.converged);
    EXPECT_TRUE(behaves_as(learned.typestate, expected)) << GetParam();
    EXPECT_GT(learned.stats.total().waits_executed, 0u);
}

INSTANTIATE_TEST_SUITE_P(Registry, LearnSimulated,
                         ::testing::Values("asynctask", "asynctask_purpose", "countdowntimer", "mediaplayer",
                                           "speechrecognizer", "sqliteopenhelper"));

TEST(AsyncTaskSim, ExecuteAfterCancelIsAcceptedButNeverRuns) {
    auto d = make_device("inproc:asynctask", testing_support::fast_device_options());
    EXPECT_EQ(answer(*d, {"cancel", "execute", "wait", "wait"}),
              (std::vector<std::string>{"ok", "ok", "onCancelled", "quiet"}));
    EXPECT_EQ(answer(*d, {"cancel", "execute", "execute"}), (std::vector<std::string>{"ok", "ok", "err"}));
    EXPECT_EQ(answer(*d, {"execute", "wait", "execute"}), (std::vector<std::string>{"ok", "onPostExecute", "err"}));
}

TEST(SQLiteOpenHelperSim, UnsplitConstructorIsReportedAsVariantNondeterminism) {
    DeviceOptions o = testing_support::fast_device_options();
    o.variants = VariantMode::Compare;
    auto d = make_device("inproc:sqliteopenhelper", o);
    EXPECT_EQ(d->inputs().names(), (std::vector<std::string>{"close", "ctor", "getReadableDatabase", "wait"}));
    try {
        (void)d->run(word(*d, {"ctor", "getReadableDatabase", "wait"}));
        FAIL() << "expected VariantError";
    } catch (const VariantError& e) {
        EXPECT_EQ(e.callin(), "ctor");
        EXPECT_EQ(e.first_label(), "fileExists");
        EXPECT_EQ(e.second_label(), "noFileExists");
        EXPECT_EQ(e.first_outputs(), (std::vector<std::string>{"ok", "ok", "onOpen"}));
        EXPECT_EQ(e.second_outputs(), (std::vector<std::string>{"ok", "ok", "onCreate"}));
    }
}

// Compare mode compares a callin's variants on whole runs; stepping one alone would answer with its
// first variant, silently (a client that steps: an agent's session, HttpDevice without batching).
TEST(SQLiteOpenHelperSim, ACompareModeVariantStepIsRefusedNeverItsFirstVariantAlone) {
    DeviceOptions o = testing_support::fast_device_options();
    o.variants = VariantMode::Compare;
    auto d = make_device("inproc:sqliteopenhelper", o);
    d->reset();
    try {
        (void)d->step(*d->inputs().find("ctor"));
        FAIL() << "a step ran the first variant of ctor alone";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("callin 'ctor' has 2 variants, which VariantMode::Compare compares on "
                                             "whole runs only"),
                  std::string::npos)
            << e.what();
    }
    d->finish();
    // A callin without variants steps as before; whole runs still compare every variant.
    d->reset();
    EXPECT_EQ(d->outputs().name(d->step(*d->inputs().find("close"))), "err");
    d->finish();
    EXPECT_THROW((void)d->run(word(*d, {"ctor", "getReadableDatabase", "wait"})), VariantError);
}

TEST(SQLiteOpenHelperSim, SplitConstructorIsDeterministic) {
    auto d = make_device("inproc:sqliteopenhelper", testing_support::fast_device_options());
    EXPECT_EQ(answer(*d, {"ctor/noFileExists", "getReadableDatabase", "wait", "wait", "close", "getReadableDatabase", "wait"}),
              (std::vector<std::string>{"ok", "ok", "onCreate", "onOpen", "ok", "ok", "onOpen"}));
    EXPECT_EQ(answer(*d, {"ctor/fileExists", "getReadableDatabase", "wait"}),
              (std::vector<std::string>{"ok", "ok", "onOpen"}));
}

TEST(MediaPlayerSim, BadUrlVariantIsReportedAndCanBeSplit) {
    sim::SimOptions options = fast_options();
    options.bad_url = true;
    InProcessConfig compare;
    InProcessDevice d(sim::mediaplayer(options), compare);
    EXPECT_THROW((void)d.run(word(d, {"setDataSource", "prepare"})), VariantError);
    InProcessConfig split;
    split.variants = VariantMode::Split;
    InProcessDevice s(sim::mediaplayer(options), split);
    EXPECT_TRUE(s.inputs().contains("setDataSource/goodURL"));
    EXPECT_EQ(answer(s, {"setDataSource/badURL", "prepare"}), (std::vector<std::string>{"err", "err"}));
    EXPECT_EQ(answer(s, {"setDataSource/goodURL", "prepare"}), (std::vector<std::string>{"ok", "ok"}));
}

TEST(SpeechRecognizerSim, UnmergedOutputsAreNondeterministic) {
    sim::SimOptions options = fast_options();
    options.merge_outputs = false;
    InProcessDevice d(sim::speechrecognizer(options));
    std::set<std::string> seen;
    for (int i = 0; i < 16; ++i) seen.insert(answer(d, {"startListening", "wait", "wait"}).back());
    EXPECT_EQ(seen, (std::set<std::string>{"onError", "onResults"}));  // the environment decides
    // Learning them unmerged stops with the two disagreeing answers (DroidStar §5.3).
    std::vector<std::unique_ptr<Device>> devices;
    for (int i = 0; i < 4; ++i) devices.push_back(std::make_unique<InProcessDevice>(sim::speechrecognizer(options)));
    EXPECT_THROW((void)learn_from_scratch(std::move(devices), "SpeechRecognizer"), NondeterminismError);
}

TEST(SimulatedRegistry, ListsTheSevenClassesWithSpecs) {
    std::vector<std::string> keys;
    for (const auto& c : sim::simulated_classes()) {
        keys.push_back(c.key);
        EXPECT_NO_THROW((void)source_spec(c.spec)) << c.spec;
    }
    EXPECT_EQ(keys, (std::vector<std::string>{"asynctask", "asynctask_purpose", "countdowntimer", "mediaplayer", "pipedoutputstream",
                                              "speechrecognizer", "sqliteopenhelper"}));
    EXPECT_TRUE(sim::find_simulated("MediaPlayer").has_value());
    EXPECT_FALSE(sim::find_simulated("camera").has_value());
}

}  // namespace
}  // namespace typestar
