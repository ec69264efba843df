// Graphviz DOT interchange for Mealy machines (LearnLib / AALpy conventions) and typestate pictures.
// Design note: the reader accepts the DOT subset automata-learning tools write — edges
// `s -> t [label="in/out"]` (split at the first `/`, both halves trimmed), the HTML form
// `label=<in1 | in2<br />out>`, node and graph attributes (ignored), comments, and the initial
// marker `__start0 -> s` — and reports every semantic problem as a Diagnostic in one SpecError.
// Writers are deterministic: same machine, same bytes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "typestar/core/mealy.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {

/// Parses a Mealy machine from DOT `text`; `file` names it in diagnostics.
///
/// Inputs and outputs are interned in order of first appearance, states in order of first
/// appearance (node declaration or edge end) keeping their node ids as names. The initial state is
/// the target of the edge from a node named `__start<digits>` (its label, if any, is ignored); a
/// file without such an edge starts in its first state, silently. Throws SpecError with
/// `file:line:col` diagnostics: a syntax error (parsing stops there), or every semantic problem
/// found — a label that is not `input/output`, non-determinism (one state and input with two
/// different results), incompleteness (one diagnostic per state, listing its missing inputs), two
/// initial markers, an empty graph. Completeness and emptiness are not judged when some label
/// could not be read (their diagnostics would only echo it); a state missing more than 10 inputs
/// lists the first 10 and how many more. Also refused: text over `limits.max_bytes`, more states ×
/// inputs than `limits.max_transitions` (at the node or label that goes over; parsing stops there).
/// Time and memory are O(size · log size); messages never contain raw control characters.
[[nodiscard]] MealyMachine parse_mealy_dot(const std::string& text, const std::string& file,
                                           const ReadLimits& limits = ReadLimits::from_environment());

/// Reads and parses a DOT file. Throws SpecError (line 0) when the file cannot be read, is a
/// directory or a device, or is larger than `limits.max_bytes`; else as parse_mealy_dot.
[[nodiscard]] MealyMachine load_mealy_dot(const std::filesystem::path& path,
                                          const ReadLimits& limits = ReadLimits::from_environment());

/// `typestar import`: parse_mealy_dot, then spec_of_mealy named `name`, with `source.file` set.
/// Every problem is a SpecError diagnostic with file:line:col: a transition that makes the machine
/// no synchronous closure is reported at that edge's label, a kept state named `__err` at its first
/// mention, a problem of the whole machine (no `wait` input) at the `digraph` keyword.
[[nodiscard]] Spec parse_dot_spec(const std::string& text, const std::string& file, std::string name,
                                  const ReadLimits& limits = ReadLimits::from_environment());
/// Reads a DOT file (as load_mealy_dot) and converts it as parse_dot_spec.
[[nodiscard]] Spec load_dot_spec(const std::filesystem::path& path, std::string name,
                                 const ReadLimits& limits = ReadLimits::from_environment());

/// DOT text of `machine`: `digraph <graph_name> {`, the `__start0` marker node, one node per state,
/// then `s -> t [label="in/out"]` per state in id order and per input in id order, then
/// `__start0 -> <initial>`. Labels use the HTML form when an input contains `/`. Deterministic;
/// parse_mealy_dot gives back the same states, state names and inputs (outputs are renumbered in
/// order of first appearance). Throws std::invalid_argument if a state is named like the marker
/// (`__start<digits>`).
[[nodiscard]] std::string write_mealy_dot(const MealyMachine& machine,
                                          std::string_view graph_name = "mealy");

/// A picture of `typestate` in the style of DroidStar's figures: enabled callins as solid edges
/// labelled `name()`, callbacks as dashed edges, `wait` transitions that answer `quiet` and move to
/// another state as dotted edges labelled `quiet`; refused callins, `err` and `quiet` self-loops are
/// left out. States in index order, edges per state in callin order, then the callback or quiet
/// move. Deterministic; draws the typestate as given (pass `canonical(t)` for the canonical picture).
[[nodiscard]] std::string write_typestate_dot(const Typestate& typestate);

/// The spec of the typestate whose synchronous closure is `machine`, in canonical form, named
/// `name`, its distinguisher bound set to the closure's (DroidStar §4.3; at least 1).
/// Throws NotAClosureError (from typestar::typestate_of) saying exactly why it is not a closure, with
/// the state and input concerned when it is one transition, also when a state the typestate keeps
/// is named `__err` (the closure's error sink); the message has no raw control characters.
[[nodiscard]] Spec spec_of_mealy(const MealyMachine& machine, std::string name);

}  // namespace typestar::spec
