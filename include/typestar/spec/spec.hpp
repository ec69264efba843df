// Typestate spec files, format versions 1 and 2 (docs/spec-format.md, docs/spec-format-v2.md):
// the YAML a user keeps in the repo. Version 2 adds callin signatures with partitions (abstract
// inputs `callin[partition]`), unknown transitions and the environment role; `kind:
// register-automaton` files are refused here (they have their own reader).
// Design note: parsing collects every problem as a Diagnostic and throws one SpecError at the end;
// nothing is printed and nothing half-loaded escapes. Writing is canonical (typestar::canonical
// state order, fixed key order, sorted symbol keys) and atomic (temporary file + rename).
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "typestar/core/guard.hpp"
#include "typestar/core/traits.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar::spec {

/// The format version written for specs that use nothing of version 2 (read: 1 and 2).
inline constexpr int kFormatVersion = 1;
/// The newest format version this build reads and writes.
inline constexpr int kLatestFormatVersion = 2;

/// One parameter of a callin signature `name(param: type, ...)` (format v2).
struct Parameter {
    std::string name;
    std::string type;  ///< int, id, object, bytes, string or bool
    /// How the parameter is treated, when the signature says so (`len: int partition`); a typestate
    /// abstracts every parameter by partitions, so only Abstraction::Partition is accepted here
    /// (`data` is refused by name: that is a register automaton's). Written back only when set.
    std::optional<Abstraction> abstraction{};
    bool operator==(const Parameter&) const = default;
};

/// A named partition of a callin's arguments: one abstract input `callin[name]` (format v2, PSYCO).
struct Partition {
    std::string name;                 ///< [A-Za-z0-9_.=<>!-]+
    /// The predicate: an expression of the guard language over the callin's parameters (checked on
    /// the values), or words when it is none (docs/spec-format-v2.md, "Guards"; partition_guard).
    std::string guard;
    /// Concrete argument tuples that ran (learning: on the device, in a live instance; a stored
    /// spec: what its check runs). Sorted, unique; informative, not compared.
    std::vector<std::string> values;
    std::string split_from;           ///< partition it was split off from by refinement; empty if none
    std::string split_by;             ///< the prefix after which its values answered differently
    /// Values the device offered for this partition that never ran (`not_run:`): the guard is wider
    /// than the values tried, and nothing is claimed for these. Sorted, unique; empty when all ran.
    std::vector<std::string> not_run{};
    /// Those of `values` found in the class's code (`from_code:`): constants it compares
    /// against, and their neighbours, collected by comparison tracing. Sorted, unique; informative.
    std::vector<std::string> from_code{};
    bool operator==(const Partition&) const = default;
};

/// A callin declared with more than a bare name (format v2). Callins absent from
/// Spec::declarations are bare v1 names: one input, client role, no parameters.
struct CallinDeclaration {
    std::string name;
    std::optional<std::vector<Parameter>> parameters;  ///< the signature, when one was written
    std::vector<Partition> partitions;                 ///< declaration order; empty: one input `name`
    bool environment = false;                          ///< `role: environment`
    bool operator==(const CallinDeclaration&) const = default;
    /// The abstract inputs this callin stands for: `name[p]` per partition, else `name`.
    [[nodiscard]] std::vector<std::string> inputs() const;
    /// `name(p: t, ...)` when a signature was written, else `name`.
    [[nodiscard]] std::string signature() const;
};

/// What a partition's `guard:` text is (docs/spec-format-v2.md, "Guards").
struct PartitionGuard {
    /// The guard as an expression over the callin's parameters (Term::Kind::Param indexes them);
    /// nullopt when the text is words (does not parse, or names something that is no parameter
    /// and no near miss of one) or is wrong (`error`).
    std::optional<Guard> expression;
    /// Non-empty when the text reads as an expression but cannot be one: an unknown parameter
    /// one or two edits from a declared one (with a did-you-mean), a parameter of a type the
    /// language does not compare (only int and id), or `<`/`>` on an `id`.
    std::string error;
};
/// Reads a partition guard over `parameters` (nullopt: no signature, so the guard is words): an
/// expression when it parses in the guard language and every name is a declared parameter.
[[nodiscard]] PartitionGuard partition_guard(const std::string& guard,
                                             const std::optional<std::vector<Parameter>>& parameters);
/// Whether `guard` (from partition_guard over `parameters`) holds on `value`, a printed argument
/// tuple: the whole text for a one-parameter callin, else one comma-separated field per parameter;
/// a field a guard reads must be a decimal integer. Returns the message when `value` cannot be read
/// so (nothing is guessed).
[[nodiscard]] std::variant<bool, std::string> guard_holds(const Guard& guard, const std::vector<Parameter>& parameters,
                                                          const std::string& value);

/// One problem of a callin's partition guards (docs/spec-format-v2.md, "Guards").
struct GuardProblem {
    std::size_t partition = 0;         ///< index into CallinDeclaration::partitions
    std::optional<std::string> value;  ///< the value concerned; nullopt: the guard itself; "": the whole callin
    std::string message;               ///< names the partition, the callin's signature and the value
};
/// Every problem of `declaration`'s partition guards, in partition and value order: a guard that
/// reads as an expression but is wrong (partition_guard's error), a value (of `values`, `not_run`,
/// `from_code`) that does not satisfy its own partition's expression, satisfies another
/// partition's, or cannot be read for one (guard_holds). One problem (value "") instead when the
/// disjointness checks (expression guards x listed values) would pass `max_checks`. The one check
/// the reader, the writer and refinement (a device's declared partitions) apply.
[[nodiscard]] std::vector<GuardProblem> partition_guard_problems(const CallinDeclaration& declaration,
                                                                 std::size_t max_checks);

/// `declarations` in the form the reader gives them back: sorted by name, each partition's
/// `values` and `not_run` sorted and unique (a Spec built in memory equals its written-and-read copy).
[[nodiscard]] std::vector<CallinDeclaration> normalised_declarations(std::vector<CallinDeclaration> declarations);

/// The abstract input `callin[partition]` (typestar/core/typestate.hpp).
using typestar::abstract_input;
/// Typestate::input_info derived from `declarations` (guards, environment role).
[[nodiscard]] std::map<std::string, InputInfo, std::less<>> input_info_of(
    const std::vector<CallinDeclaration>& declarations);

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
    /// What learning explored beyond the distinguisher bound (the search of random words from
    /// every state), in words, e.g. "search of 10 random words per transition: the last ran 180 words of
    /// up to 19 inputs, seed 20260101"; empty when nothing was (a hand-written spec, or the search
    /// off). The bound itself is `bounds.distinguisher`: what was established; this is evidence.
    std::string explored;
    /// How the timing in `timing:` was obtained when it is not the device's declared one, in words:
    /// an option ("tmax 300 ms set by --tmax 300 (the device's own: tmax 40 ms, tmin 2 ms)") or the
    /// probe of learning's first phase with its figures. Empty: the device's own (or a hand-written spec).
    std::string timing;
    bool operator==(const Provenance&) const = default;
    [[nodiscard]] bool empty() const {
        return tool.empty() && device.empty() && framework.empty() && stats.empty() && explored.empty() &&
               timing.empty();
    }
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
    /// Callins declared with a signature, partitions or a role (format v2), sorted by name. Their
    /// abstract inputs are Typestate::callins; typestate.input_info must equal input_info_of(this).
    std::vector<CallinDeclaration> declarations{};

    /// True when the spec needs format version 2 (declarations, unknown transitions).
    [[nodiscard]] bool uses_version2() const;
};

/// Resource limits for reading specs and DOT files, so that hostile or mistaken input fails early
/// with a clear message instead of exhausting memory or time (docs/spec-format.md, "Limits").
struct ReadLimits {
    /// Largest input accepted, in bytes. Environment: TYPESTAR_MAX_INPUT_BYTES. Default 64 MiB.
    std::size_t max_bytes = std::size_t{64} << 20;
    /// Largest transition table a file may declare: states × (callins + 1) for a spec, states ×
    /// inputs for DOT. Environment: TYPESTAR_MAX_TRANSITIONS. Default 2^24 (16,777,216).
    std::size_t max_transitions = std::size_t{1} << 24;

    /// The defaults, each replaced by its environment variable when that is set: a positive integer,
    /// optionally followed by K, M or G (times 1024, 1024², 1024³). Throws typestar::Error naming the
    /// variable when its value is anything else.
    [[nodiscard]] static ReadLimits from_environment();
};

/// Parses spec text; `file` names it in diagnostics. Throws SpecError with every problem found,
/// in file order (yaml-cpp syntax errors, duplicate keys, unknown keys with a did-you-mean,
/// undeclared symbols, unknown states, two callbacks in one state, ...); never returns a partial spec.
/// Also refused, with one diagnostic: text over `limits.max_bytes`, YAML aliases that expand the
/// document to more than 4 times its size plus 1 MiB (an alias bomb) or into itself, and more
/// declared transitions than `limits.max_transitions`. Time and memory are O(size · log size).
/// Messages never contain raw control characters (see detail::printable).
[[nodiscard]] Spec parse_spec(const std::string& text, const std::string& file,
                              const ReadLimits& limits = ReadLimits::from_environment());
/// Reads and parses a spec file. Throws SpecError (line 0) when the file cannot be read, is a
/// directory or a device, or is larger than `limits.max_bytes`; else as parse_spec.
[[nodiscard]] Spec load_spec(const std::filesystem::path& path,
                             const ReadLimits& limits = ReadLimits::from_environment());

/// The canonical YAML text of `spec` (its typestate put in canonical form first: unreachable
/// states dropped, equivalent states merged). Byte-for-byte deterministic; parse_spec reads it back
/// to the same canonical typestate, bounds, timing and provenance (keys over 1000 bytes are written
/// in YAML's explicit `? key` form). Throws typestar::Error when the typestate could not be loaded
/// again (name outside [A-Za-z0-9_.-], empty/reserved/duplicate symbol, empty/duplicate state name
/// or `__err`, an index out of range, non-finite or negative timing); the text is read back before
/// it is returned, so a spec that would not load (with ReadLimits::from_environment()) or would load
/// differently is an error here, never a file.
[[nodiscard]] std::string write_spec(const Spec& spec);
/// Writes `text` to `path` atomically: a temporary file `.<name>.typestar-tmp-XXXXXX` in the same
/// directory, fsync, rename. When `path` is a symbolic link, the file it points to is replaced
/// (the link stays). Temporaries of the same target left behind by a killed writer and older than
/// 10 minutes are removed first. Throws typestar::Error naming the path on failure; the old file is
/// then untouched.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);
/// write_spec + write_file_atomically.
void save_spec(const Spec& spec, const std::filesystem::path& path);

/// What a simulation of `spec` declares about its answers: the closure's traits (`wait`, `err`
/// absorbing), plus `quiet` changing nothing only when the spec declares `quiet_is_stable` and its
/// typestate has no state-changing `quiet` move (a spec with such a move never enables the shortcut).
[[nodiscard]] DeviceTraits declared_traits(const Spec& spec);

/// `text` as a spec name, the one rule for names made from free text (a file's stem, a class
/// name, a registration): every character outside [A-Za-z0-9_.-] becomes `_`; `fallback` when
/// `text` is empty.
[[nodiscard]] std::string sanitize_name(std::string_view text, std::string_view fallback = "learned");

/// True when two specs describe the same behaviour (typestates equivalent; names, bounds, timing
/// and provenance ignored).
[[nodiscard]] bool same_behaviour(const Spec& a, const Spec& b);

}  // namespace typestar::spec
