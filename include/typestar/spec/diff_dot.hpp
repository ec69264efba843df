// A picture of a typestate diff: the old and the new typestate overlaid in one Graphviz DOT graph.
// Design note: the overlay uses the very state pairing diff_specs reports (behaviour-matched, see
// diff.hpp), so the picture and the Markdown table never disagree: a paired state is drawn once,
// and a transition is coloured exactly when diff_specs lists a change for its state and symbol.
#pragma once

#include <string>

#include "typestar/spec/spec.hpp"

namespace typestar::spec {

/// DOT text of `old_spec`'s and `new_spec`'s typestates overlaid, in the style of
/// write_typestate_dot (callins solid and labelled `name()`, callbacks dashed, `quiet` moves
/// dotted, refused callins and `err` left out). Both typestates are drawn in canonical form over
/// the union of their alphabets. Paired states are one node (labelled `old (new: name)` when the
/// new spec calls it otherwise); old states without a partner are red and dashed, new states
/// without one green. Unchanged transitions are black; a transition only the old typestate has is
/// red with its label prefixed `- `, one only the new has green with `+ `; a changed target or
/// callback is both. A `quiet` self-loop is drawn only on a paired state, when it changed (a state
/// only one side has is drawn as write_typestate_dot would, without it). The title names both
/// typestates (and says "same behaviour" when nothing is coloured) and a legend explains the
/// colours. Deterministic: same specs, same bytes. Throws std::invalid_argument if either
/// typestate is malformed (as diff_specs).
[[nodiscard]] std::string write_diff_dot(const Spec& old_spec, const Spec& new_spec);

}  // namespace typestar::spec
