// What the register-automaton reader (format_reader.cpp) and writer (format.cpp) share. Private to
// src/ra.
#pragma once

#include <optional>
#include <vector>

#include "typestar/ra/automaton.hpp"

namespace typestar::ra::internal {

/// Completes `types` (one entry per register of each location, nullopt when not known) with the
/// types the assignments imply, to a fixpoint: the reader's inference, which the writer mirrors to
/// know which registers need a written type.
void infer_register_types(const RegisterAutomaton& ra, std::vector<std::vector<std::optional<DataType>>>& types);

}  // namespace typestar::ra::internal
