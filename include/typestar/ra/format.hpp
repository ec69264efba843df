// Register-automaton files: the v2 `kind: register-automaton` YAML format (docs/spec-format-v2.md,
// "Locations"), RALib's XML format (import), and DOT pictures. Design note: as for typestates,
// reading collects every problem as a Diagnostic (file:line:col) and throws one SpecError; writing
// is canonical and atomic, and a written file always reads back equal.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "typestar/ra/automaton.hpp"

namespace typestar::ra {

/// A register-automaton spec: the automaton and the header fields it shares with typestates.
struct RaSpec {
    RegisterAutomaton automaton;
    std::size_t distinguisher = 2;                  ///< `bounds: {distinguisher: B}`: the suite's bound
    std::map<std::string, std::string> provenance;  ///< `provenance:` (flat string map; ignored by ==)
    bool operator==(const RaSpec& o) const { return automaton == o.automaton && distinguisher == o.distinguisher; }
};

/// Parses `kind: register-automaton` text (`typestar: 2` required); `file` names it in diagnostics.
/// Throws SpecError with every problem found, in file order: YAML syntax, unknown or duplicate
/// keys, a `kind: typestate` file (`… is a typestate: use load_spec`), undeclared inputs/outputs,
/// bad signatures and types, unknown names in guards, outputs and assignments (with the column in
/// the guard), arity, registers whose type cannot be inferred, and the validate() problems
/// (overlapping or missing guards) at the line of the location. Never returns a partial spec.
[[nodiscard]] RaSpec parse_register_spec(const std::string& text, const std::string& file);
/// Reads and parses a file; throws SpecError (line 0) when it cannot be read, is a directory or a
/// device, or is larger than spec::ReadLimits::from_environment().max_bytes. Diagnostics never carry
/// raw control characters (names read from the file are escaped).
[[nodiscard]] RaSpec load_register_spec(const std::filesystem::path& path);
/// The canonical YAML text: locations in breadth-first order from the initial one (unreachable
/// ones kept, after), transitions sorted stably by input, fixed key order. Byte-for-byte
/// deterministic; read back before it is returned, and an automaton that would not read back equal
/// is a typestar::Error, never a file.
[[nodiscard]] std::string write_register_spec(const RaSpec& spec);
/// write_register_spec + an atomic write (spec::write_file_atomically); the old file survives any
/// failure.
void save_register_spec(const RaSpec& spec, const std::filesystem::path& path);

/// Options for importing RALib's XML models.
struct RalibImportOptions {
    /// RALib type names read as ordered `int` (RALib's inequality theory); every other type is
    /// read as an `id` (equality theory), as in RALib's benchmark configurations.
    std::set<std::string> ordered_types{"double", "DOUBLE"};
    /// RALib's simulator takes the first transition (in file order) whose guard holds. When true,
    /// each guard is conjoined with the negation of the earlier guards of the same location and
    /// input, so overlapping guards in a model (keygen.xml has `key1!=p && key1!=p`) import as that
    /// deterministic machine; when false (the default) overlaps are refused. Conjunctions no
    /// values satisfy are dropped at every step; a guard that would still need more than
    /// RaLimits::max_guard_disjuncts conjunctions is refused (TYPESTAR_MAX_GUARD_DISJUNCTS).
    bool first_match = false;
    /// When set, receives one sentence per RALib type read as another, naming the file (e.g. DOUBLE
    /// read as `int`: integers with order, so no value between two integers is ever tried). An
    /// assumption the caller states with every verdict (ModelDataDevice::assumptions), never silent.
    std::vector<std::string>* assumptions = nullptr;
};

/// Imports a RALib register-automaton XML file (alternating input and output locations) as a
/// Mealy-style register automaton: each input transition followed by an output transition becomes
/// one transition, guards conjoined (the output's guard read after the input's assignments),
/// assignments composed, `__fresh__` as a fresh output. Global variables become the registers of
/// each location that are live there (read before written on some path). Throws SpecError with
/// file:line for malformed XML, unknown symbols, locations or names, a location with both input
/// and output transitions, an output location without output transitions, or a global read before
/// it is ever assigned (RALib's initial values are not supported); then validates the result.
[[nodiscard]] RegisterAutomaton import_ralib_xml(const std::string& text, const std::string& file,
                                                 const RalibImportOptions& options = {});
/// Reads and imports a file (SpecError at line 0 when it cannot be read or is larger than
/// spec::ReadLimits::from_environment().max_bytes).
[[nodiscard]] RegisterAutomaton load_ralib_xml(const std::filesystem::path& path,
                                               const RalibImportOptions& options = {});

/// A Graphviz DOT picture: locations with their registers, edges labelled
/// `input | guard / output` and the assignments that change a register. Deterministic.
[[nodiscard]] std::string write_register_dot(const RegisterAutomaton& ra);

}  // namespace typestar::ra
