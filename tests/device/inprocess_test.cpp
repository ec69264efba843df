// The in-process device API (DroidStar's LearningPurpose): snippets, variants, callbacks from other
// threads, merged callbacks, err, learning-purpose filters; and quiescence: arrival order, queued
// callbacks, late callbacks and tmin/tmax violations.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "learning_support.hpp"
#include "support/background.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/inprocess.hpp"

namespace typestar {
namespace {

using namespace std::chrono_literals;

using testing_support::Background;

struct Probe {
    std::shared_ptr<CallbackSink> sink;
    std::atomic<int>* calls = nullptr;
};

LearningPurpose<Probe> probe(std::atomic<int>& calls, QuiescenceTiming timing = {30ms, 0ms}) {
    LearningPurpose<Probe> p("Probe");
    p.reset([&calls](const std::shared_ptr<CallbackSink>& sink) {
         auto probe = std::make_shared<Probe>();
         probe->sink = sink;
         probe->calls = &calls;
         return probe;
     })
        .timing(timing);
    return p;
}

std::vector<std::string> answer(Device& d, const std::vector<std::string>& names) {
    return names_of(d.run(word_of(names, d.inputs())).outputs, d.outputs());
}

TEST(InProcessDevice, AlphabetsTraitsAndName) {
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls)
                          .callin("b", [](Probe&) {})
                          .callin("a", [](Probe&) {})
                          .callback("x")
                          .merged_callback("y", {"y1", "y2"})
                          .build());
    EXPECT_EQ(d.inputs().names(), (std::vector<std::string>{"b", "a", "wait"}));
    EXPECT_EQ(d.outputs().names(), (std::vector<std::string>{"ok", "quiet", "err", "x", "y"}));
    EXPECT_EQ(d.traits(), closure_traits(d.inputs(), d.outputs()));
    EXPECT_EQ(d.name(), "Probe (in-process)");
}

TEST(InProcessDevice, ThrowingCallinAnswersErrAndErrIsAbsorbing) {
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls)
                          .callin("good", [](Probe& p) { ++*p.calls; })
                          .callin("bad", [](Probe&) { throw std::runtime_error("IllegalStateException"); })
                          .build());
    d.reset();
    EXPECT_EQ(d.outputs().name(d.step(0)), "ok");
    EXPECT_EQ(d.outputs().name(d.step(1)), "err");
    EXPECT_EQ(d.outputs().name(d.step(0)), "err");  // absorbing: not run
    EXPECT_EQ(d.outputs().name(d.step(2)), "err");
    d.finish();
    EXPECT_EQ(calls.load(), 1);
    const RunResult r = d.run(word_of({"good", "bad", "good", "wait"}, d.inputs()));
    EXPECT_EQ(names_of(r.outputs, d.outputs()), (std::vector<std::string>{"ok", "err", "err", "err"}));
    EXPECT_EQ(r.steps, 2u);
    EXPECT_EQ(calls.load(), 2);
}

TEST(InProcessDevice, CallbacksFromOtherThreadsArriveInOrderThenQuiet) {
    Background bg;
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls, {40ms, 1ms})
                          .callin("go",
                                  [&bg](Probe& p) {
                                      bg.emit_after(p.sink, "x", 3ms);
                                      bg.emit_after(p.sink, "y", 12ms);
                                  })
                          .callback("x")
                          .callback("y")
                          .build());
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(answer(d, {"go", "wait", "wait", "wait"}), (std::vector<std::string>{"ok", "x", "y", "quiet"}));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 12ms + 40ms);  // the last wait took tmax
}

TEST(InProcessDevice, CallbackDuringACallinIsQueuedNotLost) {
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls, {20ms, 0ms})
                          .callin("sync", [](Probe& p) { p.sink->emit("x"); })
                          .callback("x")
                          .build());
    EXPECT_EQ(answer(d, {"sync", "wait", "wait"}), (std::vector<std::string>{"ok", "x", "quiet"}));
}

TEST(InProcessDevice, MergedCallbacksAreOneSymbol) {
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls, {20ms, 0ms})
                          .callin("succeed", [](Probe& p) { p.sink->emit("onSuccess"); })
                          .callin("fail", [](Probe& p) { p.sink->emit("onFailure"); })
                          .merged_callback("onDone", {"onSuccess", "onFailure"})
                          .build());
    EXPECT_EQ(answer(d, {"succeed", "wait"}), (std::vector<std::string>{"ok", "onDone"}));
    EXPECT_EQ(answer(d, {"fail", "wait"}), (std::vector<std::string>{"ok", "onDone"}));
}

TEST(InProcessDevice, UndeclaredCallbackIsAHarnessError) {
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls).callin("go", [](Probe& p) { p.sink->emit("onSurprise"); }).build());
    try {
        (void)d.run(word_of({"go"}, d.inputs()));
        FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_EQ(std::string(e.what()), "Probe (in-process): undeclared callback 'onSurprise' emitted in query #1 'go'");
    }
}

TEST(InProcessDevice, FailingResetSnippetIsADeviceError) {
    auto def = LearningPurpose<Probe>("Broken")
                   .reset([](const std::shared_ptr<CallbackSink>&) -> std::shared_ptr<Probe> {
                       throw std::runtime_error("no such service");
                   })
                   .callin("a", [](Probe&) {})
                   .build();
    InProcessDevice d(def);
    try {
        d.reset();
        FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
        EXPECT_EQ(std::string(e.what()), "Broken (in-process): the reset snippet failed: no such service");
    }
}

TEST(ClassDefinition, ValidationNamesTheProblem) {
    std::atomic<int> calls{0};
    auto message = [](auto&& build) {
        try {
            (void)build();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([&] { return probe(calls).callin("wait", [](Probe&) {}).build(); }),
              "class 'Probe': reserved name 'wait' used as a callin");
    EXPECT_EQ(message([&] { return probe(calls).callin("a", [](Probe&) {}).callin("a", [](Probe&) {}).build(); }),
              "callin 'a' declared twice");
    EXPECT_EQ(message([&] { return probe(calls).callin("a", [](Probe&) {}).callback("a").build(); }),
              "class 'Probe': symbol 'a' declared twice");
    EXPECT_EQ(message([&] {
                  return probe(calls).variant("a", "v", [](Probe&) {}).variant("a", "v", [](Probe&) {}).build();
              }),
              "class 'Probe': callin 'a' has two variants labelled 'v'");
    EXPECT_EQ(message([&] { return probe(calls).merged_callback("x", {"s"}).merged_callback("y", {"s"}).build(); }),
              "class 'Probe': callback source 's' is used twice");
    EXPECT_EQ(message([&] { return LearningPurpose<Probe>("NoReset").callin("a", [](Probe&) {}).build(); }),
              "class 'NoReset': no reset snippet");
}

TEST(InProcessDevice, VariantsThatAgreeRunOncePerVariant) {
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls)
                          .variant("set", "one", [](Probe& p) { ++*p.calls; })
                          .variant("set", "two", [](Probe& p) { ++*p.calls; })
                          .build());
    const RunResult r = d.run(word_of({"set", "set"}, d.inputs()));
    EXPECT_EQ(names_of(r.outputs, d.outputs()), (std::vector<std::string>{"ok", "ok"}));
    EXPECT_EQ(r.steps, 4u);  // both variants ran the word
    EXPECT_EQ(calls.load(), 4);
}

TEST(InProcessDevice, VariantsThatDisagreeAreReportedOrSplit) {
    std::atomic<int> calls{0};
    auto def = probe(calls)
                   .variant("setDataSource", "goodURL", [](Probe&) {})
                   .variant("setDataSource", "badURL", [](Probe&) { throw std::runtime_error("unreachable"); })
                   .build();
    InProcessDevice compare(def);
    try {
        (void)compare.run(word_of({"setDataSource", "wait"}, compare.inputs()));
        FAIL() << "expected VariantError";
    } catch (const VariantError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "variants of callin 'setDataSource' behave differently on 'setDataSource': with 'goodURL' it "
                  "answers 'ok', with 'badURL' 'err'; split the symbol (VariantMode::Split) or drop a variant");
    }
    InProcessConfig split;
    split.variants = VariantMode::Split;
    InProcessDevice s(def, split);
    EXPECT_EQ(s.inputs().names(),
              (std::vector<std::string>{"setDataSource/goodURL", "setDataSource/badURL", "wait"}));
    EXPECT_EQ(answer(s, {"setDataSource/badURL"}), (std::vector<std::string>{"err"}));
    InProcessConfig first;
    first.variants = VariantMode::First;
    InProcessDevice f(def, first);
    EXPECT_EQ(answer(f, {"setDataSource"}), (std::vector<std::string>{"ok"}));
}

// A request/response class with unboundedly many pending requests (not regular, DroidStar §5.3).
struct Server {
    std::shared_ptr<CallbackSink> sink;
    Background* background = nullptr;
    std::atomic<int>* requests = nullptr;
};

TEST(LearningPurposeFilter, AtMostOnePendingRequestAnswersUnknownPurposeOutsideThePurpose) {
    Background bg;
    std::atomic<int> requests{0};
    auto def = LearningPurpose<Server>("Server")
                   .reset([&](const std::shared_ptr<CallbackSink>& sink) {
                       return std::make_shared<Server>(Server{sink, &bg, &requests});
                   })
                   .callin("request",
                           [](Server& s) {
                               ++*s.requests;
                               s.background->emit_after(s.sink, "response", 4ms);
                           })
                   .callback("response")
                   .timing({30ms, 1ms})
                   .restrict_to(at_most_pending({"request"}, {"response"}, 1))
                   .build();
    InProcessDevice d(def);
    EXPECT_EQ(answer(d, {"request", "wait", "request", "wait"}),
              (std::vector<std::string>{"ok", "response", "ok", "response"}));
    EXPECT_EQ(answer(d, {"request", "request"}), (std::vector<std::string>{"ok", "unknown:purpose"}));
    EXPECT_EQ(requests.load(), 3);  // the denied request never ran

    // Learning the purpose gives a regular approximation: Idle <-> Pending.
    std::vector<std::unique_ptr<Device>> devices;
    devices.push_back(std::make_unique<InProcessDevice>(def));
    const auto learned = testing_support::learn_from_scratch(std::move(devices), "Server");
    EXPECT_TRUE(learned.result.converged);
    EXPECT_EQ(learned.typestate.states.size(), 2u);
    // In Pending, a second request is outside the purpose: unknown, not refused by the class.
    const StateId pending = *learned.typestate.states[learned.typestate.initial].callins[0];
    ASSERT_NE(learned.typestate.unknown_at(pending, 0), nullptr);
    EXPECT_EQ(learned.typestate.unknown_at(pending, 0)->source, Unknown::Source::Purpose);
}

TEST(Quiescence, LateCallbackAfterQuietIsReportedAndNeverLeaks) {
    Background bg;
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls, {10ms, 0ms})
                          .callin("slow", [&bg](Probe& p) { bg.emit_after(p.sink, "x", 60ms); })
                          .callback("x")
                          .build());
    EXPECT_EQ(answer(d, {"slow", "wait"}), (std::vector<std::string>{"ok", "quiet"}));  // wrong: tmax too small
    std::this_thread::sleep_for(100ms);
    try {
        (void)d.run(word_of({"wait"}, d.inputs()));
        FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("Probe (in-process): tmax too small: callback 'x' arrived ", 0), 0u) << what;
        EXPECT_NE(what.find("after the start of a `wait` that answered quiet (tmax 10 ms) in query #1 'slow wait'"),
                  std::string::npos)
            << what;
    }
    EXPECT_EQ(d.timing_report().tmax_violations, 1u);
    EXPECT_EQ(answer(d, {"wait"}), (std::vector<std::string>{"quiet"}));  // reported once, then usable
}

TEST(Quiescence, CallbackOfAnEndedQueryNeverReachesTheNextOne) {
    Background bg;
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls, {40ms, 0ms})
                          .callin("slow", [&bg](Probe& p) { bg.emit_after(p.sink, "x", 15ms); })
                          .callin("idle", [](Probe&) {})
                          .callback("x")
                          .build());
    EXPECT_EQ(answer(d, {"slow"}), (std::vector<std::string>{"ok"}));
    // x of the first instance arrives during this query's wait: it belongs to the ended query.
    EXPECT_EQ(answer(d, {"idle", "wait"}), (std::vector<std::string>{"ok", "quiet"}));
    EXPECT_EQ(d.timing_report().late, 1u);
    EXPECT_EQ(d.timing_report().tmax_violations, 0u);
    EXPECT_NO_THROW(d.check_timing());
}

TEST(Quiescence, CallbackFasterThanTminIsReported) {
    Background bg;
    std::atomic<int> calls{0};
    auto def = probe(calls, {50ms, 20ms})
                   .callin("fast", [&bg](Probe& p) { bg.emit_after(p.sink, "x", 1ms); })
                   .callback("x")
                   .build();
    InProcessDevice d(def);
    try {
        (void)d.run(word_of({"fast", "wait"}, d.inputs()));
        FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("Probe (in-process): tmin violated: callback 'x' arrived ", 0), 0u) << what;
        EXPECT_NE(what.find("after callin 'fast' started (tmin 20 ms)"), std::string::npos) << what;
    }
    InProcessConfig warn;
    warn.violations = TimingViolationPolicy::Warn;
    InProcessDevice lenient(def, warn);
    EXPECT_EQ(answer(lenient, {"fast", "wait"}), (std::vector<std::string>{"ok", "x"}));
    EXPECT_EQ(lenient.timing_report().tmin_violations, 1u);
}

TEST(Quiescence, CallbackBeforeTheNextCallinIsATminViolation) {
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls, {20ms, 0ms})
                          .callin("sync", [](Probe& p) { p.sink->emit("x"); })
                          .callin("other", [](Probe&) {})
                          .callback("x")
                          .build());
    try {
        (void)d.run(word_of({"sync", "other"}, d.inputs()));
        FAIL() << "expected DeviceError";
    } catch (const TimingError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("Probe (in-process): a callin ran while a callback was still queued (the synchronous closure's "
                             "rule: no callin before the callbacks of the previous steps were delivered by a wait): "
                             "callback 'x' was queued when callin 'other' was to run, in query #1 'sync' (it arrived ",
                             0),
                  0u)
            << what;
        EXPECT_NE(what.find(" ms after callin 'sync' started; tmin 0 ms, tmax 20 ms"), std::string::npos) << what;
        EXPECT_NE(what.find("if it repeats, a callback that completes during a call: give it tmin (--tmin MS, "
                            "TYPESTAR_TMIN), or restrict the learning purpose with typestar::callbacks_drained from "
                            "typestar/device/drained.hpp so that a wait follows every callin that queues one"),
                  std::string::npos)
            << what;
        EXPECT_EQ(e.kind(), TimingError::Kind::QueuedCallback);
        EXPECT_EQ(e.callback(), "x");
    }
}

TEST(Quiescence, ViolationAfterTheLastQueryIsFoundByCheckTiming) {
    Background bg;
    std::atomic<int> calls{0};
    InProcessDevice d(probe(calls, {5ms, 0ms})
                          .callin("slow", [&bg](Probe& p) { bg.emit_after(p.sink, "x", 30ms); })
                          .callback("x")
                          .build());
    EXPECT_EQ(answer(d, {"slow", "wait"}), (std::vector<std::string>{"ok", "quiet"}));
    std::this_thread::sleep_for(60ms);
    EXPECT_THROW(d.check_timing(), DeviceError);
    EXPECT_NO_THROW(d.check_timing());  // thrown once
    const TimingReport report = d.timing_report();
    EXPECT_EQ(report.tmax_violations, 1u);
    EXPECT_EQ(report.messages.size(), 1u);
}

}  // namespace
}  // namespace typestar
