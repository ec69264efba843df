// `--tmax MS` / `--tmin MS` of typestar learn and check (issue 37): the device runs with them, the
// learned spec's `timing:` records them, and the assumptions name how tmax was set and the largest
// callback delay observed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_support.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {
namespace {

using testing_support::kAsyncTask;
using testing_support::Result;

class CliTiming : public testing_support::CliTest {
protected:
    CliTiming() : CliTest("typestar_cli_timing_test_") {}
    Result run(const std::vector<std::string>& args) const { return run_cli(args, ""); }
};

TEST_F(CliTiming, TmaxOverInprocIsRecordedInTheSpecAndNamedWithTheObservedDelay) {
    const Result learned = run({"learn", "--device", "inproc:asynctask", "--tmax", "300", "--out", "a.yaml"});
    ASSERT_EQ(learned.status, 0) << learned.err;
    const Spec s = load_spec(dir_ / "a.yaml");
    ASSERT_TRUE(s.timing.tmax_ms.has_value());
    EXPECT_EQ(*s.timing.tmax_ms, 300.0);
    EXPECT_NE(learned.err.find("every callback arrives within tmax=300 ms (quiescence; tmax 300 ms set by --tmax 300 "
                               "(the device's own: tmax 40 ms, tmin 2 ms); the largest delay observed was "),
              std::string::npos)
        << learned.err;
}

TEST_F(CliTiming, TmaxOverAModelIsRecordedOnly) {
    const Result checked = run({"check", kAsyncTask, "--device", "model:" + kAsyncTask, "--tmax", "250", "--tmin", "3"});
    ASSERT_EQ(checked.status, 0) << checked.err;
    EXPECT_NE(checked.out.find("every callback arrives within tmax=250 ms (quiescence; tmax 250 ms, tmin 3 ms set by "
                               "--tmax 250 --tmin 3; a simulation has no real time: recorded only; "),
              std::string::npos)
        << checked.out;
}

TEST_F(CliTiming, TminAboveTmaxIsBadInput) {
    const Result r = run({"learn", "--device", "inproc:asynctask", "--tmax", "10", "--tmin", "20"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("tmin 20 ms is larger than tmax 10 ms (--tmax 10 --tmin 20)"), std::string::npos) << r.err;
    const Result negative = run({"check", kAsyncTask, "--device", "inproc:asynctask", "--tmax", "-1"});
    EXPECT_EQ(negative.status, 2);
    EXPECT_NE(negative.err.find("--tmax takes milliseconds from 0 to 3600000, found -1"), std::string::npos)
        << negative.err;
}

TEST_F(CliTiming, LearnWithProbeMeasuresFirstAndRecordsHowTheTimingWasObtained) {
    const Result learned = run({"learn", "--device", "inproc:asynctask", "--probe", "--out", "a.yaml"});
    ASSERT_EQ(learned.status, 0) << learned.err;
    EXPECT_NE(learned.err.find("timing probe of "), std::string::npos) << learned.err;  // its table
    const Spec s = load_spec(dir_ / "a.yaml");
    ASSERT_TRUE(s.timing.tmax_ms.has_value());
    EXPECT_NE(s.provenance.timing.find(" ms set by the timing probe, learning's first phase (--probe; callback delays "),
              std::string::npos)
        << s.provenance.timing;
    EXPECT_NE(s.provenance.timing.find("(the device's own: tmax 40 ms, tmin 2 ms)"), std::string::npos)
        << s.provenance.timing;
    EXPECT_NE(learned.err.find("(quiescence; tmax " + std::to_string(static_cast<long long>(*s.timing.tmax_ms)) +
                               " ms, tmin 0 ms set by the timing probe"),
              std::string::npos)
        << learned.err;
    const Result both = run({"learn", "--device", "inproc:asynctask", "--probe", "--tmax", "300"});
    EXPECT_EQ(both.status, 2);
    EXPECT_NE(both.err.find("--probe measures tmax and tmin; --tmax/--tmin set them"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace typestar::spec
