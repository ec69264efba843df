// The session layer: learn_spec, propose, check_spec and the one trace renderer.
#include "typestar/session/session.hpp"

#include <gtest/gtest.h>

#include "support/reference_machines.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar {
namespace {

spec::Spec bundled(const std::string& file) {
    return spec::load_spec(std::string(TYPESTAR_SOURCE_DIR) + "/specs/" + file);
}

TEST(FormatTrace, IsAlignedAndMarksTheFirstDifferenceOnly) {
    const std::string text = format_trace({{"Idle", "start", "ok", "ok"},
                                           {"Running", "start", "err", "ok"},
                                           {"__err", "wait", "err", "onFired"}},
                                          2);
    EXPECT_EQ(text,
              "  step  state    input  expected  actual\n"
              "  1     Idle     start  ok        ok\n"
              "  2     Running  start  err       ok       <- differs\n"
              "  3     __err    wait   err       onFired\n");
}

TEST(CheckSpec, UnknownTransitionsAreNotTestedAndAreNamedInTheAssumptions) {
    // The truth enables one callin the spec refuses in the initial state (a self-loop there).
    const spec::Spec stored = bundled("mediaplayer.yaml");
    spec::Spec truth = stored;
    Typestate& t = truth.typestate;
    std::size_t c = 0;
    while (t.states[t.initial].callins[c]) ++c;
    t.states[t.initial].callins[c] = t.initial;
    ModelDevice device(synchronous_closure(t), "model:truth");
    Device* devices[] = {&device};
    // Two-valued spec: the device enables a refused callin: a counterexample.
    EXPECT_EQ(check_spec(stored, devices).verdict, Verdict::Fail);
    // The same transition unknown: skipped, and the check passes, naming what it skipped.
    spec::Spec three = stored;
    three.typestate.states[three.typestate.initial].unknown[c] = Unknown{Unknown::Source::Purpose, "never tried"};
    const CheckReport report = check_spec(three, devices);
    EXPECT_EQ(report.verdict, Verdict::Pass);
    ASSERT_FALSE(report.assumptions.empty());
    EXPECT_NE(report.assumptions.back().find("1 unknown transition(s) of the spec were not tested"), std::string::npos)
        << report.assumptions.back();
    EXPECT_NE(report.assumptions.back().find("input " + t.callins[c] + ": unknown (purpose: never tried)"),
              std::string::npos)
        << report.assumptions.back();
    // Every word was cut before the unknown step: none runs the unknown callin in the initial state.
    ModelDevice probe(synchronous_closure(t), "model:probe");
    Conformance conformance(synchronous_closure(three.typestate), {&probe});
    TestSuite suite = conformance.suite(CheckOptions{});
    const std::size_t before = suite.cases.size();
    EXPECT_EQ(cut_at_unknown(suite, three.typestate).size(), 1u);
    EXPECT_LE(suite.cases.size(), before);
    for (const auto& tc : suite.cases) {
        const auto names = names_of(tc.inputs, suite.inputs);
        EXPECT_FALSE(first_unknown(three.typestate, names).has_value());
    }
}

TEST(LearnSpec, LearnsTheBundledSpecWithProvenanceBuiltOnce) {
    const spec::Spec truth = bundled("asynctask.yaml");
    ModelDevice device(synchronous_closure(truth.typestate), "model:asynctask");
    Device* devices[] = {&device};
    LearnOptions options;
    options.name = "AsyncTask";
    const LearnedSpec learned = learn_spec(devices, options);
    ASSERT_TRUE(learned.spec.has_value()) << learned.not_a_closure;
    EXPECT_TRUE(spec::same_behaviour(*learned.spec, truth));
    EXPECT_TRUE(learned.converged);
    EXPECT_EQ(learned.learner, "L#");  // the default learner
    EXPECT_EQ(learned.spec->typestate.name, "AsyncTask");
    EXPECT_EQ(learned.spec->provenance.tool, tool_version());
    EXPECT_EQ(learned.spec->provenance.device, "model:asynctask");
    EXPECT_TRUE(learned.spec->provenance.stats.empty());  // counts are in `stats`, not in the spec
    EXPECT_GT(learned.stats.total().queries_executed, 0u);
    EXPECT_EQ(learned.stats.equivalence_rounds, learned.rounds);
}

TEST(LearnSpec, APoolGivesTheSameSpecAndStatistics) {
    const MealyMachine truth = testing_support::combination_lock();
    ModelDevice a(truth), b(truth), c(truth);
    Device* one[] = {&a};
    Device* three[] = {&a, &b, &c};
    LearnOptions options;
    options.equivalence.bound = 3;
    options.equivalence.batch_size = 32;
    const LearnedSpec x = learn_spec(one, options);
    const LearnedSpec y = learn_spec(three, options);
    EXPECT_FALSE(separating_word(x.machine, truth).has_value());
    EXPECT_FALSE(separating_word(y.machine, truth).has_value());
    EXPECT_EQ(x.stats, y.stats);
}

TEST(CheckSpec, PassNamesItsAssumptionsAndFailGivesATraceWithStates) {
    const spec::Spec spec = bundled("mediaplayer.yaml");
    ModelDevice same(synchronous_closure(spec.typestate));
    Device* devices[] = {&same};
    const CheckReport pass = check_spec(spec, devices);
    EXPECT_EQ(pass.verdict, Verdict::Pass);
    ASSERT_FALSE(pass.assumptions.empty());
    EXPECT_NE(pass.assumptions.front().find("B=2"), std::string::npos);
    EXPECT_NE(evidence_note(pass).find("bounded evidence"), std::string::npos);

    // A device that refuses `start` everywhere.
    MealyMachine closure = synchronous_closure(spec.typestate);
    std::vector<Transition> table(closure.table().begin(), closure.table().end());
    const Symbol start = closure.inputs().at("start");
    const Symbol err = closure.outputs().at("err");
    StateId sink = 0;
    for (StateId s = 0; s < closure.num_states(); ++s)
        if (closure.state_name(s) == kErrorSinkName) sink = s;
    for (StateId s = 0; s < closure.num_states(); ++s) table[s * closure.num_inputs() + start] = {sink, err};
    ModelDevice broken(MealyMachine(closure.inputs(), closure.outputs(), closure.initial(), table));
    Device* broken_devices[] = {&broken};
    const CheckReport fail = check_spec(spec, broken_devices);
    ASSERT_EQ(fail.verdict, Verdict::Fail);
    ASSERT_TRUE(fail.counterexample.has_value());
    ASSERT_EQ(fail.trace.size(), fail.counterexample->inputs.size());
    EXPECT_EQ(fail.trace.back().input, "start");
    EXPECT_EQ(fail.trace.back().actual, "err");
    EXPECT_EQ(fail.trace.front().state, "Idle");
}

TEST(Propose, KeepsTheStoredStateNamesAndTiming) {
    spec::Spec stored = bundled("asynctask.yaml");
    stored.timing.tmax_ms = 123;
    ModelDevice device(synchronous_closure(stored.typestate));
    Device* devices[] = {&device};
    const LearnedSpec proposal = propose(&stored, devices);
    ASSERT_TRUE(proposal.spec.has_value());
    EXPECT_TRUE(spec::same_behaviour(*proposal.spec, stored));
    std::set<std::string> stored_names, proposed_names;
    for (const auto& s : canonical(stored.typestate).states) stored_names.insert(s.name);
    for (const auto& s : proposal.spec->typestate.states) proposed_names.insert(s.name);
    EXPECT_EQ(proposed_names, stored_names);
    EXPECT_EQ(proposal.spec->timing.tmax_ms, 123);
    // The right seed costs one round: its states are rebuilt on the device (the suite's words) and
    // the first hypothesis is the stored spec.
    EXPECT_EQ(proposal.rounds, 1u);
}

// ---- proposals keep what is stored (issue 34 item 2) ---------------------------------------------

/// A lock: `b` works only after three `a`s (A -> B -> C -> D); telling A from B takes `a a b`, so the
/// spec records B=3. `c_at_a`: the device also takes `c` in A (a change the stored spec lacks).
spec::Spec lock_spec(bool c_at_a) {
    return spec::parse_spec(std::string("typestar: 1\nname: Lock\ncallins: [a, b, c]\ncallbacks: []\ninitial: A\n"
                                        "bounds: {distinguisher: 3}\nstates:\n  A:\n    callins: ") +
                                (c_at_a ? "{a: B, c: A}" : "{a: B}") +
                                "\n  B:\n    callins: {a: C}\n  C:\n    callins: {a: D}\n  D:\n    callins: {a: D, b: D}\n",
                            "lock.yaml");
}

TEST(Propose, LearnsAtLeastAtTheStoredSpecsBoundWhateverIsAsked) {
    const spec::Spec stored = lock_spec(false);
    ASSERT_EQ(stored.bounds.distinguisher, 3u);
    const spec::Spec truth = lock_spec(true);
    for (const LearnerKind learner : {LearnerKind::LSharp, LearnerKind::LStar}) {
        ModelDevice device(synchronous_closure(truth.typestate));
        Device* devices[] = {&device};
        LearnOptions options;
        options.learner = learner;
        options.equivalence.bound = 2;  // what a front end asks by default
        const LearnedSpec proposal = propose(&stored, devices, options);
        EXPECT_EQ(proposal.bound, 3u) << learner_name(learner);  // what ran: the stored spec's B
        ASSERT_TRUE(proposal.spec.has_value());
        EXPECT_EQ(proposal.spec->bounds.distinguisher, 3u);
        EXPECT_TRUE(spec::same_behaviour(*proposal.spec, truth)) << spec::write_spec(*proposal.spec);
        EXPECT_NE(proposal.assumptions.front().find("(distinguisher bound B=3)"), std::string::npos)
            << proposal.assumptions.front();
        // A higher request stays higher.
        options.equivalence.bound = 4;
        EXPECT_EQ(propose(&stored, devices, options).bound, 4u);
    }
}

TEST(LearnSpec, ASeedsStatesSurviveWhereTheDeviceStillTellsThemApart) {
    // Learning at B=1 cannot tell A, B and C apart (that takes `a a b`), but the seed's own words
    // do: a hypothesis merging them is refuted by them, so every state of the device's lock is kept.
    const spec::Spec truth = lock_spec(true);
    for (const LearnerKind learner : {LearnerKind::LSharp, LearnerKind::LStar}) {
        ModelDevice device(synchronous_closure(truth.typestate));
        Device* devices[] = {&device};
        LearnOptions options;
        options.learner = learner;
        options.equivalence.bound = 1;
        options.seed = seed_of(lock_spec(false).typestate);
        const LearnedSpec learned = learn_spec(devices, options);
        ASSERT_TRUE(learned.spec.has_value());
        EXPECT_TRUE(spec::same_behaviour(*learned.spec, truth))
            << learner_name(learner) << ":\n" << spec::write_spec(*learned.spec);
        EXPECT_NE(learned.seed_note.find("The seed's states: "), std::string::npos) << learned.seed_note;
        // Without the seed, B=1 merges them: the seed's words are what kept them.
        options.seed.reset();
        const LearnedSpec plain = learn_spec(devices, options);
        EXPECT_LT(plain.machine.num_states(), learned.machine.num_states()) << learner_name(learner);
        EXPECT_EQ(plain.seed_note, "");
    }
}

// ---- bounds are decisions a person sees (issue 24 item 5) -----------------------------------------

/// --budget N is a hard cap on executed queries, counted from the learning run's first query: a
/// reused stack's earlier queries do not count, and not one query beyond N runs.
TEST(LearnBudget, IsAHardCapCountedFromTheFirstQuery) {
    const spec::Spec mp = bundled("mediaplayer.yaml");
    ModelDevice device(synchronous_closure(mp.typestate), "model:mediaplayer");
    Conformance conformance(synchronous_closure(mp.typestate), {&device});
    const std::uint64_t before = conformance.stack().stats().total().queries_executed;
    LearnOptions options;
    options.max_queries = 100;
    try {
        (void)propose(nullptr, conformance, nullptr, options);
        ADD_FAILURE() << "learned MediaPlayer within 100 queries";
    } catch (const QueryBudgetError& e) {
        EXPECT_EQ(e.budget(), 100u);
        EXPECT_NE(std::string(e.what()).find("the query budget of 100 executed queries ran out before a result"),
                  std::string::npos);
    }
    EXPECT_EQ(conformance.stack().stats().total().queries_executed - before, 100u);
    // The cap ends with the run: the same stack answers again.
    EXPECT_FALSE(conformance.stack().counter().budget().has_value());
    // Counted from the first query: a stack that already executed queries gets N more.
    (void)conformance.run(conformance.suite({}));
    const std::uint64_t ran = conformance.stack().stats().total().queries_executed;
    ASSERT_GT(ran, 100u);
    options.max_queries = 1'000'000;
    EXPECT_NO_THROW((void)propose(&mp, conformance, nullptr, options));
}

/// --bound auto stops at the smallest B (from the start bound up) after which Algorithm 2 at B+1
/// finds no counterexample, and says what it tried; it never stores B+1.
TEST(LearnAutoBound, StopsAtTheSmallestBoundAfterWhichTheNextFindsNothing) {
    const spec::Spec task = bundled("asynctask.yaml");
    ModelDevice device(synchronous_closure(task.typestate), "model:asynctask");
    Device* devices[] = {&device};
    LearnOptions options;
    options.equivalence.auto_bound = true;
    const LearnedSpec learned = learn_spec(devices, options);
    ASSERT_TRUE(learned.spec);
    EXPECT_TRUE(spec::same_behaviour(*learned.spec, task));
    EXPECT_EQ(learned.bound, 2u) << learned.bound_note;
    EXPECT_EQ(learned.spec->bounds.distinguisher, 2u);
    EXPECT_NE(learned.bound_note.find("Algorithm 2 at B=3 ran "), std::string::npos) << learned.bound_note;
    EXPECT_NE(learned.bound_note.find("stopped at B=2, the smallest B tried after which B+1 finds nothing"),
              std::string::npos)
        << learned.bound_note;
    // Started below what the machine needs: each raise names the counterexample B+1 found.
    options.equivalence.bound = 1;
    const LearnedSpec raised = learn_spec(devices, options);
    EXPECT_TRUE(spec::same_behaviour(*raised.spec, task));
    EXPECT_LE(raised.bound, 2u) << raised.bound_note;
}

/// Every learned spec carries the one assumptions block a check of it prints.
TEST(LearnSpec, NamesTheAssumptionsOfTheLearnedSpec) {
    const spec::Spec task = bundled("asynctask.yaml");
    ModelDevice device(synchronous_closure(task.typestate), "model:asynctask", spec::declared_traits(task));
    Device* devices[] = {&device};
    const LearnedSpec learned = learn_spec(devices);
    const CheckReport check = check_spec(*learned.spec, devices);
    ASSERT_FALSE(learned.assumptions.empty());
    EXPECT_EQ(learned.assumptions, check.assumptions);
    EXPECT_EQ(assumptions_block({"a", "b"}, "  "), "  - a\n  - b\n");
}

}  // namespace
}  // namespace typestar
