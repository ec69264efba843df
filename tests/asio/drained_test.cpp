// The drained rule's helpers (typestar/device/drained.hpp): the ledger, the purpose filter, `both`,
// and the counting sink on a real InProcessDevice.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/device/drained.hpp"
#include "typestar/device/inprocess.hpp"

namespace typestar {
namespace {

TEST(CallbacksDrained, DeniesCallinsWhileAnArrivedCallbackIsUndelivered) {
    auto ledger = std::make_shared<CallbackLedger>();
    const QueryFilter filter = callbacks_drained(ledger);
    EXPECT_EQ(ledger->emitted(), 0U);
    EXPECT_TRUE(filter({}, "open"));
    auto counter = ledger->start_instance();
    counter->fetch_add(1);  // a callback arrived during the first callin
    const std::vector<StepRecord> after_callin{{"insert", "ok"}};
    EXPECT_FALSE(filter(after_callin, "commit"));
    EXPECT_TRUE(filter(after_callin, "wait"));
    const std::vector<StepRecord> delivered{{"insert", "ok"}, {"wait", "update_hook"}};
    EXPECT_TRUE(filter(delivered, "commit"));
    const std::vector<StepRecord> quiet{{"insert", "ok"}, {"wait", "quiet"}};
    EXPECT_FALSE(filter(quiet, "commit"));
    (void)ledger->start_instance();  // a new instance starts from zero
    EXPECT_TRUE(filter({}, "open"));
}

TEST(Both, AllowsOnlyWhatBothAllow) {
    const QueryFilter no_a = [](std::span<const StepRecord>, std::string_view n) { return n != "a"; };
    const QueryFilter no_b = [](std::span<const StepRecord>, std::string_view n) { return n != "b"; };
    const QueryFilter f = both(no_a, no_b);
    EXPECT_FALSE(f({}, "a"));
    EXPECT_FALSE(f({}, "b"));
    EXPECT_TRUE(f({}, "c"));
    EXPECT_TRUE(both({}, {})({}, "a"));
}

std::string run(Device& device, const std::string& word) {
    std::istringstream in(word);
    Word inputs;
    for (std::string w; in >> w;) inputs.push_back(device.inputs().at(w));
    const RunResult result = device.run(inputs);
    std::string out;
    for (const Symbol s : result.outputs) out += (out.empty() ? "" : " ") + device.outputs().name(s);
    return out;
}

/// A class whose callin `poke` reports `poked` inside the call (a synchronous callback), through a
/// CountingSink; `mute_and_poke` mutes it (as a teardown does) and pokes again.
struct Instance {
    Instance(std::shared_ptr<CallbackSink> s, std::shared_ptr<std::atomic<std::size_t>> counter)
        : sink(std::move(s), std::move(counter)) {}
    CountingSink sink;
};

ClassDefinition poker(bool drained) {
    auto ledger = std::make_shared<CallbackLedger>();
    LearningPurpose<Instance> p("Poker");
    p.reset([ledger](const std::shared_ptr<CallbackSink>& sink) {
         return std::make_shared<Instance>(sink, ledger->start_instance());
     })
        .callin("poke", [](Instance& i) { i.sink.emit("poked"); })
        .callin("mute_and_poke", [](Instance& i) {
            i.sink.mute();
            i.sink.emit("poked");
        })
        .callback("poked")
        .timing({std::chrono::milliseconds(20), std::chrono::milliseconds(0)});
    if (drained) p.restrict_to(callbacks_drained(ledger));
    return p.build();
}

TEST(CountingSink, WithTheDrainedPurposeACallbackDuringACallIsDeliveredBeforeTheNextCallin) {
    InProcessDevice device(poker(true));
    EXPECT_EQ(run(device, "poke wait wait"), "ok poked quiet");
    EXPECT_EQ(run(device, "poke poke"), "ok unknown:purpose");  // the drained rule: a wait must come first
    EXPECT_EQ(run(device, "poke wait poke wait"), "ok poked ok poked");
    EXPECT_EQ(run(device, "mute_and_poke wait poke"), "ok quiet ok");  // muted: nothing counted or reported
}

TEST(CountingSink, WithoutTheDrainedPurposeTheDeviceNamesTheRuleInsteadOfAnswering) {
    InProcessDevice device(poker(false));
    try {
        (void)run(device, "poke poke");
        FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_NE(std::string(e.what()).find("a callin ran while a callback was still queued"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace typestar
