// Parameterised callins with automatic alphabet refinement (issue 17, PSYCO Algorithm 3 black-box):
// partitions split by observed behaviour (one needing a two-call prefix), memoisation across
// refinements, and every source of unknown (purpose, unresolved, disagreeing).
#include "typestar/targets/refinement.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "typestar/core/error.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/targets/targets.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::targets {
namespace {

/// PSYCO's motivating example, java.io.PipedOutputStream, as a C++ class: connect(snk) succeeds
/// only for an unconnected sink; write(len) needs a connection and a non-negative length.
struct Pipe {
    bool connected = false;
    bool closed = false;
    void connect(const std::string& snk) {
        if (snk == "null") throw std::invalid_argument("NullPointerException");
        if (snk == "connected" || connected) throw std::runtime_error("IOException: already connected");
        connected = true;
    }
    void write(const std::string& len) {
        if (!connected || closed) throw std::runtime_error("IOException: pipe not connected");
        if (std::stoi(len) < 0) throw std::out_of_range("IndexOutOfBoundsException");
    }
    void flush() {}
    void close() { closed = true; }
};

LearningPurpose<Pipe> pipe_purpose() {
    return LearningPurpose<Pipe>("PipedOutputStream")
        .framework("test-1")
        .reset([](const std::shared_ptr<CallbackSink>&) { return std::make_shared<Pipe>(); })
        .callin_with("connect", {{"snk", "object"}}, [](Pipe& p, const std::string& v) { p.connect(v); })
        .partition("connect", "any", "", ValueGenerator::fixed({"null", "new", "connected"}))
        .callin_with("write", {{"len", "int"}}, [](Pipe& p, const std::string& v) { p.write(v); })
        .partition("write", "any", "", ValueGenerator::fixed({"-1", "0", "3"}))
        .callin("flush", [](Pipe& p) { p.flush(); })
        .callin("close", [](Pipe& p) { p.close(); })
        .timing({std::chrono::milliseconds(2), std::chrono::milliseconds(0)})
        .quiet_is_stable();
}

TEST(Refinement, SplitsPartitionsByBehaviourIncludingOneNeedingATwoCallPrefix) {
    const RefinedTarget r = learn_with_refinement(pipe_purpose().build());
    const RefinementReport& rep = r.report;
    EXPECT_EQ(rep.initial_alphabet, 4u);  // connect[any], write[any], flush, close
    ASSERT_EQ(rep.refinements.size(), 2u) << r.learned.text;
    EXPECT_EQ(rep.refinements[0], (RefinementRecord{"connect", "any", {"any.err", "any.ok"}, "connect[any]"}));
    // write's values only answer differently after a successful connect: a two-call prefix.
    EXPECT_EQ(rep.refinements[1],
              (RefinementRecord{"write", "any", {"any.err", "any.ok"}, "connect[any.ok] write[any]"}));
    EXPECT_EQ(rep.final_alphabet, 6u);
    EXPECT_EQ(rep.learning_rounds, 3u);
    EXPECT_TRUE(r.learned.converged);
    EXPECT_EQ(rep.unknown_transitions, 0u);
    // The spec records the partitions, their values and where they came from.
    const spec::Spec& s = r.learned.spec;
    ASSERT_EQ(s.declarations.size(), 2u);
    const spec::CallinDeclaration& connect = s.declarations[0];
    EXPECT_EQ(connect.signature(), "connect(snk: object)");
    ASSERT_EQ(connect.partitions.size(), 2u);
    EXPECT_EQ(connect.partitions[0].values, (std::vector<std::string>{"connected", "null"}));
    EXPECT_EQ(connect.partitions[1].values, (std::vector<std::string>{"new"}));
    EXPECT_EQ(connect.partitions[1].split_from, "any");
    EXPECT_EQ(connect.partitions[1].split_by, "connect[any]");
    EXPECT_EQ(s.declarations[1].partitions[1].values, (std::vector<std::string>{"0", "3"}));
    // Guards (docs/spec-format-v2.md, "Guards"): write's int values split at an ordered boundary are
    // said in the guard language; connect's objects stay in words (what they answered).
    EXPECT_EQ(s.declarations[1].partitions[0].guard, "len < 0");
    EXPECT_EQ(s.declarations[1].partitions[1].guard, "len >= 0");
    EXPECT_EQ(connect.partitions[0].guard, "answers err at the end of connect[any]");
    // Fresh, closed before connecting (connect still allowed), connected, closed after connecting.
    EXPECT_EQ(s.typestate.states.size(), 4u) << r.learned.text;
    EXPECT_NE(r.learned.text.find("typestar: 2\n"), std::string::npos);
    EXPECT_NE(r.learned.text.find("split_by: \"connect[any.ok] write[any]\""), std::string::npos) << r.learned.text;
    // Deterministic: the same definition and options give the same text.
    EXPECT_EQ(learn_with_refinement(pipe_purpose().build()).learned.text, r.learned.text);
}

TEST(Refinement, AnswersFromBeforeASplitAreReused) {
    const RefinedTarget r = learn_with_refinement(pipe_purpose().build());
    const RefinementReport& rep = r.report;
    std::cout << "PipedOutputStream (C++): alphabet " << rep.initial_alphabet << " -> " << rep.final_alphabet << ", "
              << rep.refinements.size() << " refinements, " << r.learned.spec.typestate.states.size()
              << " states, concrete runs requested " << rep.concrete_requested << ", executed " << rep.concrete_executed
              << ", reused across refinements " << rep.reused_across_refinements << "\n";
    EXPECT_GT(rep.reused_across_refinements, 0u);
    EXPECT_LT(rep.concrete_executed, rep.concrete_requested);
    // Without the memo every request would have run: requested is the cost without memoisation.
    EXPECT_GE(rep.concrete_requested, rep.concrete_executed + rep.reused_across_refinements);
}

TEST(Refinement, UnknownFromThePurpose) {
    // The purpose never flushes after close: that transition is unknown, not refused.
    auto def = pipe_purpose()
                   .restrict_to([](std::span<const StepRecord> history, std::string_view next) {
                       if (next != "flush") return true;
                       for (const auto& s : history)
                           if (s.input == "close") return false;
                       return true;
                   })
                   .build();
    const RefinedTarget r = learn_with_refinement(def);
    const Typestate& t = r.learned.spec.typestate;
    std::size_t purpose = 0;
    for (const auto& st : t.states)
        for (const auto& [c, u] : st.unknown) {
            EXPECT_EQ(t.callins[c], "flush");
            EXPECT_EQ(u.source, Unknown::Source::Purpose);
            EXPECT_EQ(u.reason, "the learning purpose of PipedOutputStream never calls it here");
            ++purpose;
        }
    EXPECT_GE(purpose, 1u) << r.learned.text;
    EXPECT_EQ(r.report.unknown_transitions, purpose);
    EXPECT_NE(r.learned.text.find("{source: purpose, reason: \"the learning purpose of PipedOutputStream never calls it here\"}"),
              std::string::npos)
        << r.learned.text;
}

TEST(Refinement, UnknownFromPartitionsStillDisagreeingAfterTheBudget) {
    RefinementOptions options;
    options.max_refinements = 0;
    const RefinedTarget r = learn_with_refinement(pipe_purpose().build(), options);
    EXPECT_TRUE(r.report.refinements.empty());
    const Typestate& t = r.learned.spec.typestate;
    const auto* u = t.unknown_at(t.initial, static_cast<std::size_t>(
                                                std::find(t.callins.begin(), t.callins.end(), "connect[any]") -
                                                t.callins.begin()));
    ASSERT_NE(u, nullptr) << r.learned.text;
    EXPECT_EQ(u->source, Unknown::Source::Disagreeing);
    EXPECT_EQ(u->reason, "values of connect[any] still answer differently after the refinement budget (0 splits): "
                         "'null' err, 'new' ok");
}

/// A class whose `poll` answers differently each time the same word runs (a shared counter).
struct Flaky {
    std::shared_ptr<std::atomic<int>> calls;
    void poll() {
        if ((*calls)++ % 2 == 1) throw std::runtime_error("busy");
    }
};

TEST(Refinement, RepeatedRunsThatDisagreeAreNondeterminismNeverAnUnknownTransition) {
    auto calls = std::make_shared<std::atomic<int>>(0);
    auto def = LearningPurpose<Flaky>("Flaky")
                   .reset([calls](const std::shared_ptr<CallbackSink>&) { return std::make_shared<Flaky>(Flaky{calls}); })
                   .callin("poll", [](Flaky& f) { f.poll(); })
                   .callin("stop", [](Flaky&) {})
                   .timing({std::chrono::milliseconds(2), std::chrono::milliseconds(0)})
                   .quiet_is_stable()
                   .build();
    RefinementOptions options;
    options.repeats = 2;
    try {
        (void)learn_with_refinement(def, options);
        ADD_FAILURE() << "no error";
    } catch (const NondeterminismError& e) {
        // The concrete word and every answer (the cache's guard, as on every other path).
        EXPECT_EQ(e.inputs().back(), "poll") << e.what();
        ASSERT_GE(e.answers().size(), 2u) << e.what();
        EXPECT_NE(e.answers()[0].outputs.back(), e.answers()[1].outputs.back()) << e.what();
    }
}

TEST(Refinement, TheInProcessDeviceDeclaresItsValuesAsInputsGroupedIntoPartitions) {
    InProcessDevice device(pipe_purpose().build());
    EXPECT_EQ(device.inputs().names(), (std::vector<std::string>{"connect/v0", "connect/v1", "connect/v2", "write/v0",
                                                                 "write/v1", "write/v2", "flush", "close", "wait"}));
    const DeviceDescription d = device.describe();
    ASSERT_EQ(d.parameterised.size(), 2u);
    EXPECT_EQ(d.parameterised[0].callin, "connect");
    EXPECT_EQ(d.parameterised[0].parameters, (std::vector<std::pair<std::string, std::string>>{{"snk", "object"}}));
    ASSERT_EQ(d.parameterised[0].partitions.size(), 1u);
    EXPECT_EQ(d.parameterised[0].partitions[0].name, "any");
    EXPECT_EQ(d.parameterised[0].partitions[0].values,
              (std::vector<DeviceDescription::ValueInput>{{"connect/v0", "null"}, {"connect/v1", "new"}, {"connect/v2", "connected"}}));
    // Each value input runs the callin with its value: null is refused, a new sink connects.
    EXPECT_EQ(device.outputs().name(device.run(word_of({"connect/v0"}, device.inputs())).outputs.back()), "err");
    EXPECT_EQ(device.outputs().name(device.run(word_of({"connect/v1", "write/v2"}, device.inputs())).outputs.back()), "ok");
    EXPECT_EQ(device.outputs().name(device.run(word_of({"connect/v1", "write/v0"}, device.inputs())).outputs.back()), "err");
    // A value in two partitions is a definition error, named.
    auto bad = pipe_purpose().partition("write", "zero", "len == 0", ValueGenerator::fixed({"0"})).build();
    try {
        InProcessDevice broken(bad);
        ADD_FAILURE() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()), "class 'PipedOutputStream': value '0' of callin 'write' is in two partitions");
    }
}

}  // namespace
}  // namespace typestar::targets

namespace typestar::targets {
namespace {

// The committed spec of sqlite3_exec with a parameterised SQL text is what learning with
// refinement gives today (the real SQLite library, B = 2): byte for byte.
TEST(RefinementSqlite, LearnedSpecMatchesTheCommittedOne) {
    const RefinedTarget r = learn_with_refinement(sqlite_exec());
    const std::string committed_path = std::string(TYPESTAR_SOURCE_DIR) + "/specs/targets/sqlite_exec.yaml";
    if (const char* out = std::getenv("TYPESTAR_WRITE_SQLITE_EXEC")) spec::write_file_atomically(out, r.learned.text);
    const spec::Spec committed = spec::load_spec(committed_path);
    EXPECT_EQ(spec::write_spec(committed), r.learned.text);
    EXPECT_TRUE(r.learned.converged);
    std::cout << "sqlite_exec: alphabet " << r.report.initial_alphabet << " -> " << r.report.final_alphabet << ", "
              << r.report.refinements.size() << " refinements, " << r.learned.spec.typestate.states.size()
              << " states, concrete runs requested " << r.report.concrete_requested << ", executed "
              << r.report.concrete_executed << ", reused across refinements " << r.report.reused_across_refinements
              << ", unknown " << r.report.unknown_transitions << "\n";
    for (const auto& rec : r.report.refinements) {
        std::cout << "  split " << rec.callin << "[" << rec.from << "] after '" << rec.split_by << "' into";
        for (const auto& i : rec.into) std::cout << " " << i;
        std::cout << "\n";
    }
}

}  // namespace
}  // namespace typestar::targets
