// Values from the class's code (issue 28, "guards from the class, not only from samples"): the
// MagicRegister's get() refuses after set(7); a sampler of 0..99 misses 7. Built twice: with
// comparison tracing on the class's translation unit (tracecmp_tests) and without (tracecmp_off_tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "magic_register.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/device/trace_cmp.hpp"
#include "typestar/session/refinement.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

using test::magic_register_purpose;

std::vector<std::string> pool_of(const Device& device) {
    std::vector<std::string> out;
    const DeviceDescription description = device.describe();  // a range-for over a member of a temporary reads freed memory
    for (const auto& part : description.parameterised.at(0).partitions)
        for (const auto& v : part.values) out.push_back(v.value);
    return out;
}

bool contains(const std::vector<std::string>& values, const std::string& v) {
    return std::find(values.begin(), values.end(), v) != values.end();
}

/// Checks `learned` against the class's true behaviour: every value of 0..99 runs, each in the
/// partition that lists it, a value the spec does not list in the partition that lists "6" (the
/// spec's claim: the values it did not run behave like those it ran beside them). True: it passes.
bool true_behaviour_passes(const spec::Spec& learned) {
    ClassDefinition all = magic_register_purpose();
    std::vector<std::string> every;
    for (int v = 0; v <= 99; ++v) every.push_back(std::to_string(v));
    all.callins.at(0).partitions.at(0).values = ValueGenerator::fixed(every);
    InProcessConfig config;
    config.values_from_code = false;
    InProcessDevice device(std::move(all), config);
    spec::Spec claim = learned;
    auto& declaration = *std::find_if(claim.declarations.begin(), claim.declarations.end(),
                                      [](const spec::CallinDeclaration& d) { return d.name == "set"; });
    auto& parts = declaration.partitions;
    auto beside = std::find_if(parts.begin(), parts.end(), [](const spec::Partition& p) { return contains(p.values, "6"); });
    if (beside == parts.end() && parts.size() == 1) beside = parts.begin();  // one partition: it claims every value
    EXPECT_NE(beside, parts.end());
    if (beside == parts.end()) return false;
    for (const auto& v : every)
        if (std::none_of(parts.begin(), parts.end(), [&](const spec::Partition& p) { return contains(p.values, v); }))
            beside->values.push_back(v);
    PartitionedDevice partitioned(device, claim.declarations);
    Device* devices[] = {&partitioned};
    try {
        return check_spec(claim, devices).verdict == Verdict::Pass;
    } catch (const PartitionError& e) {
        return false;  // values of one partition answered differently: the claim is wrong
    }
}

[[maybe_unused]] const spec::Partition* partition_with(const spec::Spec& s, const std::string& value) {
    for (const auto& d : s.declarations)
        if (d.name == "set")
            for (const auto& p : d.partitions)
                if (contains(p.values, value)) return &p;
    return nullptr;
}

#if TYPESTAR_TEST_TRACE_CMP

TEST(ValuesFromTheCode, WithSamplingOnlyTheMagicValueIsMissedAndTheSpecIsWrong) {
    InProcessConfig config;
    config.values_from_code = false;  // what refinement did before issue 28
    InProcessDevice device(magic_register_purpose(), config);
    EXPECT_FALSE(contains(pool_of(device), "7"));  // the sampler misses it (else this test shows nothing)
    EXPECT_FALSE(contains(pool_of(device), "6"));
    const RefinedSpec r = learn_with_refinement(device);
    EXPECT_TRUE(r.report.refinements.empty()) << r.text;  // set[any] learned as total
    EXPECT_FALSE(true_behaviour_passes(*r.learned.spec));
    EXPECT_EQ(device.describe().values_from_code, "not collected (InProcessConfig::values_from_code is off)");
}

TEST(ValuesFromTheCode, ComparisonTracingFindsTheMagicValueAndTheSpecSplitsAtIt) {
    ASSERT_TRUE(trace_cmp::linked());
    InProcessDevice device(magic_register_purpose());
    const DeviceDescription d = device.describe();
    EXPECT_EQ(d.values_from_code.rfind("trace-cmp: ", 0), 0u) << d.values_from_code;
    std::vector<std::string> from_code;
    for (const auto& part : d.parameterised.at(0).partitions)
        for (const auto& v : part.values)
            if (v.from_code) from_code.push_back(v.value);
    // 7 from get()'s `value_ == 7`, 0 and 99 from set()'s range check: c-1, c, c+1 inside 0..99.
    EXPECT_TRUE(contains(from_code, "6") && contains(from_code, "7") && contains(from_code, "8")) << d.values_from_code;
    EXPECT_TRUE(contains(from_code, "1") && contains(from_code, "98"));
    EXPECT_FALSE(contains(from_code, "-1") || contains(from_code, "100"));  // clipped to the domain

    const RefinedSpec r = learn_with_refinement(device);
    ASSERT_EQ(r.report.refinements.size(), 1u) << r.text;
    const spec::Partition* magic = partition_with(*r.learned.spec, "7");
    ASSERT_NE(magic, nullptr) << r.text;
    EXPECT_EQ(magic->values, std::vector<std::string>{"7"}) << r.text;
    EXPECT_EQ(magic->split_from, "any");
    const spec::Partition* rest = partition_with(*r.learned.spec, "6");
    ASSERT_NE(rest, nullptr);
    EXPECT_NE(rest, magic);
    EXPECT_TRUE(contains(rest->values, "8"));
    // The split is said in the guard language (docs/spec-format-v2.md, "Guards"): the value from the
    // code, within the purpose's guard; the reader checked both on their values.
    EXPECT_EQ(magic->guard, "v >= 0 && v <= 99 && v == 7");
    EXPECT_EQ(rest->guard, "v >= 0 && v <= 99 && v != 7");
    EXPECT_TRUE(true_behaviour_passes(*r.learned.spec)) << r.text;
}

TEST(ValuesFromTheCode, TheSameDeviceGivesTheSameSpecByteForByte) {
    InProcessDevice a(magic_register_purpose());
    InProcessDevice b(magic_register_purpose());
    EXPECT_EQ(a.describe(), b.describe());
    EXPECT_EQ(learn_with_refinement(a).text, learn_with_refinement(b).text);
}

#else

TEST(ValuesFromTheCodeNotCollected, WithoutTheCollectorTheDeviceSaysSoAndSamplesOnly) {
    EXPECT_FALSE(trace_cmp::linked());
    InProcessDevice device(magic_register_purpose());
    EXPECT_EQ(device.describe().values_from_code.rfind("not collected (", 0), 0u) << device.describe().values_from_code;
    EXPECT_FALSE(contains(pool_of(device), "7"));
    const RefinedSpec r = learn_with_refinement(device);
    EXPECT_TRUE(r.report.refinements.empty()) << r.text;
    EXPECT_FALSE(true_behaviour_passes(*r.learned.spec));
}

#endif

}  // namespace
}  // namespace typestar
