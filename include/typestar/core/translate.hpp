// Moving a machine between alphabets that name the same symbols with other ids.
#pragma once

#include "typestar/core/alphabet.hpp"
#include "typestar/core/mealy.hpp"

namespace typestar {

/// `machine` over a device's alphabets, matched by name: `inputs` must hold exactly the machine's
/// input names (any order; throws std::invalid_argument naming the first mismatch); the result's
/// outputs are a copy of `outputs` with the machine's output names it lacks appended. States and
/// their names are kept.
[[nodiscard]] MealyMachine over_alphabets(const MealyMachine& machine, const Alphabet& inputs,
                                          const Alphabet& outputs);

}  // namespace typestar
