// Internal: the words of Algorithm 2's chained form (SuiteConfig::chained).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/core/traits.hpp"

namespace typestar::detail {

/// The input words of Algorithm 2 at bound B >= 1 for `model`, chained: every check "state q,
/// input i, suffix s" (|s| = B) of a transition the plain suite checks (not absorbing, not a
/// declared quiet self-loop, not an access-tree transition) is made at a position of some word
/// that is preceded, after the word's access word, only by access-tree transitions, declared quiet
/// self-loops and checked transitions of a lower rank (their order of generation); and every
/// access(q)·s is a prefix of some word. Each word with the state whose access word it starts with. Err-truncated, not deduplicated. Empty when B == 0 or
/// there would be more than `max_checks` checks (the caller then uses the plain suite). `prior`:
/// words already run (SuiteConfig::prior), listed first; their checks count.
[[nodiscard]] std::vector<std::pair<StateId, Word>> chained_words(const MealyMachine& model, const std::vector<Word>& access,
                                              std::size_t bound, const DeviceTraits& traits,
                                              std::size_t max_checks, const std::vector<Word>& prior = {});

}  // namespace typestar::detail
