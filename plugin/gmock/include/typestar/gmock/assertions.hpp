// gtest assertions over monitor and explorer results (the thin adapter: results stay values in the
// monitor library; only this turns them into testing::AssertionResult with the trace).
// Design note: messages are the results' own deterministic texts, plus the line to paste to replay.
#pragma once

#include <gtest/gtest.h>

#include "typestar/monitor/explorer.hpp"
#include "typestar/monitor/monitor.hpp"

namespace typestar {

/// Success when `monitor` recorded no violation; otherwise a failure with every violation message.
/// Use as EXPECT_TRUE(typestar::no_violations(monitor)).
[[nodiscard]] ::testing::AssertionResult no_violations(const Monitor& monitor);

/// Success when no explored interleaving failed; the message (success or failure) says how many
/// interleavings were covered up to which bound, and for each kept failure its seed, schedule,
/// violation and replay call. Use as EXPECT_TRUE(typestar::every_interleaving_passes(result)).
[[nodiscard]] ::testing::AssertionResult every_interleaving_passes(const ExploreResult& result);

}  // namespace typestar
