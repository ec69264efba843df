// JSON export of a spec, for tools that would rather not parse YAML.
// Design note: the document mirrors the YAML spec (docs/spec-format.md) but spells every state out
// (explicit `wait`, `quiet` even for self-loops); object keys are sorted and states keyed by name,
// so the text is stable. Export only: typestar never reads this JSON back.
#pragma once

#include <string>

#include "typestar/spec/spec.hpp"

namespace typestar::spec {

/// The JSON text of `spec` (typestate put in canonical form first), indented by 2, keys sorted,
/// ending in a newline:
/// `{"bounds": {"distinguisher": B[, "states": N]}, "callbacks": [...], "callins": [...],
///   "initial": S, "name": N, "provenance": {...}?, "states": {S: {"callbacks": {cb: T},
///   "callins": {c: T}, "quiet": T?, "wait": "callback"|"quiet"|"err"}}, "timing": {...}?,
///   "typestar": 1}`. `quiet` is present exactly when `wait` is "quiet". Deterministic.
/// Throws std::invalid_argument if the typestate is malformed.
[[nodiscard]] std::string write_spec_json(const Spec& spec);

}  // namespace typestar::spec
