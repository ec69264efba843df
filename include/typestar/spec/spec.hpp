// Typestate spec files, format version 1 (docs/spec-format.md): the YAML a user keeps in the repo.
// Design note: parsing collects every problem as a Diagnostic and throws one SpecError at the end;
// nothing is printed and nothing half-loaded escapes. Writing is canonical (typestar::canonical
// state order, fixed key order, sorted symbol keys) and atomic (temporary file + rename).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "typestar/core/traits.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar::spec {

/// The format version this build reads and writes.
inline constexpr int kFormatVersion = 1;

/// Bounds for conformance and learning (DroidStar §4.3).
struct Bounds {
    std::size_t distinguisher = 2;        ///< distinguisher bound B
    std::optional<std::size_t> states;    ///< optional state bound
    bool operator==(const Bounds&) const = default;
};

/// Quiescence timing (DroidStar §5.2), in milliseconds.
struct Timing {
    std::optional<double> tmax_ms;  ///< quiescence timeout
    std::optional<double> tmin_ms;  ///< minimum callback delay
    bool operator==(const Timing&) const = default;
};

/// What the behaviour was learned or is checked under, beyond the bound and the timing (DroidStar
/// §4.1): assumptions a device declares. Each defaults to "not assumed"; a verdict or a learned
/// spec names every one it relied on.
struct Assumptions {
    /// A `wait` answered `quiet` leaves the state unchanged (no time-driven moves), so a second
    /// `wait` right after it need not run and quiet self-loops need not be tested (Algorithm 2's
    /// optimisation (a)). A model device of this spec declares it only when this is true and the
    /// typestate itself has no state-changing `quiet` move.
    bool quiet_is_stable = false;
    bool operator==(const Assumptions&) const = default;
};

/// Where a spec came from. Comparisons of specs ignore it.
struct Provenance {
    std::string tool;                             ///< e.g. "typestar 0.1.0"
    std::string device;                           ///< e.g. "model:specs/asynctask.yaml"
    std::string framework;                        ///< framework version the device reported
    std::map<std::string, std::string> stats;     ///< query statistics, name -> value (sorted)
    bool operator==(const Provenance&) const = default;
    [[nodiscard]] bool empty() const { return tool.empty() && device.empty() && framework.empty() && stats.empty(); }
};

/// 1-based line and column in the spec file.
struct Location {
    int line = 0;
    int column = 0;
};

/// Where things were defined in the file, for messages and gtest file:line.
struct SourceMap {
    std::string file;
    std::map<std::string, Location> states;                               ///< state name -> its key
    /// (state, symbol) -> its key; symbol `wait` for a state's `quiet:` or `wait:` key.
    std::map<std::pair<std::string, std::string>, Location> transitions;
    /// The line of (state, symbol), else of the state, else 0.
    [[nodiscard]] int line_of(const std::string& state, const std::string& symbol = {}) const;
};

/// A loaded spec: the typestate plus its metadata.
struct Spec {
    Typestate typestate;
    Bounds bounds;
    Timing timing;
    Assumptions assumptions;
    Provenance provenance;
    SourceMap source;  ///< empty for specs built in memory
};

/// Parses spec text; `file` names it in diagnostics. Throws SpecError with every problem found,
/// in file order (yaml-cpp syntax errors, duplicate keys, unknown keys with a did-you-mean,
/// undeclared symbols, unknown states, two callbacks in one state, ...); never returns a partial spec.
[[nodiscard]] Spec parse_spec(const std::string& text, const std::string& file);
/// Reads and parses a spec file. Throws SpecError (an unreadable file is a diagnostic too).
[[nodiscard]] Spec load_spec(const std::filesystem::path& path);

/// The canonical YAML text of `spec` (its typestate put in canonical form first: unreachable
/// states dropped, equivalent states merged). Byte-for-byte deterministic; parse_spec reads it back
/// to the same canonical typestate, bounds, timing and provenance. Throws typestar::Error when the
/// typestate could not be loaded again (name outside [A-Za-z0-9_.-], empty/reserved/duplicate
/// symbol, empty/duplicate state name or `__err`, an index out of range).
[[nodiscard]] std::string write_spec(const Spec& spec);
/// Writes `text` to `path` atomically: a temporary file in the same directory, fsync, rename.
/// Throws typestar::Error naming the path on failure; the old file is then untouched.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);
/// write_spec + write_file_atomically.
void save_spec(const Spec& spec, const std::filesystem::path& path);

/// What a simulation of `spec` declares about its answers: the closure's traits (`wait`, `err`
/// absorbing), plus `quiet` changing nothing only when the spec declares `quiet_is_stable` and its
/// typestate has no state-changing `quiet` move (a spec with such a move never enables the shortcut).
[[nodiscard]] DeviceTraits declared_traits(const Spec& spec);

/// True when two specs describe the same behaviour (typestates equivalent; names, bounds, timing
/// and provenance ignored).
[[nodiscard]] bool same_behaviour(const Spec& a, const Spec& b);

}  // namespace typestar::spec
