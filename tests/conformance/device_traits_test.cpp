// The suite an equivalence oracle runs rests on the *device's* declared traits, never on what the
// hypothesis suggests: a device that does not declare its err absorbing gets every word after an
// err checked (the soundness rule "nothing assumed that the device did not declare").
#include <gtest/gtest.h>

#include "typestar/conformance/runner.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/sul/model_device.hpp"
#include "typestar/sul/stack.hpp"

namespace typestar {
namespace {

/// Idle --start--> Running --stop / wait:done--> Idle, start refused in Running, stop in Idle.
Typestate toy() {
    Typestate t;
    t.name = "Toy";
    t.callins = {"start", "stop"};
    t.callbacks = {"done"};
    t.states = {Typestate::State{"Idle", {StateId{1}, std::nullopt}, std::nullopt, Typestate::Wait::Quiet, std::nullopt},
                Typestate::State{"Running", {std::nullopt, StateId{0}}, Typestate::CallbackEdge{0, 0},
                                 Typestate::Wait::Quiet, std::nullopt}};
    return t;
}

TEST(SuiteEquivalenceOracle, UsesTheDevicesTraitsNotTheHypothesis) {
    // The hypothesis is the toy's closure (err absorbing). The device refuses `stop` in Idle with
    // err but stays in Idle, so its err is not absorbing and its inferred traits say so. The suite
    // must then check what follows the err: `stop start start` answers err ok err, not err err err.
    const MealyMachine hypothesis = synchronous_closure(toy());
    std::vector<Transition> table(hypothesis.table().begin(), hypothesis.table().end());
    const Symbol stop = hypothesis.inputs().at("stop");
    const StateId idle = 0;
    table[idle * hypothesis.num_inputs() + stop].target = idle;
    const MealyMachine device_model(hypothesis.inputs(), hypothesis.outputs(), hypothesis.initial(), table);
    ModelDevice device(device_model, "model", infer_traits(device_model));  // declares what holds
    ASSERT_FALSE(device.traits().absorbing.has_value());
    OracleStack stack(device);
    SuiteConfig config;
    config.bound = 1;
    SuiteEquivalenceOracle oracle(stack.oracle(), config);
    const auto cex = oracle.find_counterexample(hypothesis, {});
    ASSERT_TRUE(cex.has_value());
    EXPECT_EQ(to_string(cex->inputs, hypothesis.inputs()), "stop start start");
    EXPECT_EQ(to_string(cex->actual, hypothesis.outputs()), "err ok err");
    // The suite it ran is the one generated with the device's traits, not the hypothesis's.
    SuiteConfig with_device = config;
    with_device.traits = device.traits();
    const TestSuite device_suite = generate_suite(hypothesis, with_device);
    ASSERT_TRUE(cex->test_case.has_value());
    ASSERT_LT(*cex->test_case, device_suite.cases.size());
    EXPECT_EQ(device_suite.cases[*cex->test_case].inputs, cex->inputs);
    EXPECT_EQ(oracle.last_suite_size(), *cex->test_case + 1);  // streamed, batch 1: nothing ran after it
    const TestSuite hypothesis_suite = generate_suite(hypothesis, config);
    for (const TestCase& c : hypothesis_suite.cases) EXPECT_NE(c.inputs, cex->inputs);  // err-truncated there
}

}  // namespace
}  // namespace typestar
