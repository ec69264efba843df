// Internal helpers shared by the spec reader and writer (not installed).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/core/printable.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec::detail {

/// Bounds the work of did-you-mean suggestions over one file: each candidate compared costs one
/// unit, and once `budget` units are spent no more suggestions are made (the diagnostics stay,
/// without a suggestion), so a file of many typos against many names stays linear-time.
class SuggestionBudget {
public:
    explicit SuggestionBudget(std::size_t budget = 20'000'000) : left_(budget) {}
    /// Takes `units`; false (taking nothing) when fewer are left.
    bool take(std::size_t units) {
        if (units > left_) return false;
        left_ -= units;
        return true;
    }

private:
    std::size_t left_;
};

/// The closest of `candidates` to `word` by edit distance, if at most 2 (ties: the first listed).
/// Candidates whose length differs by more than 2 are skipped without computing anything, and the
/// distance is computed in a band of width 5, so one call costs O(candidates + matches · |word|).
/// With a budget: nothing (nullopt) when the budget cannot pay for `candidates.size()` units.
[[nodiscard]] std::optional<std::string> did_you_mean(std::string_view word,
                                                      std::span<const std::string_view> candidates,
                                                      SuggestionBudget* budget = nullptr);

/// spec::partition_guard with the file's suggestion budget (the reader's): a near miss found only
/// while the budget lasts.
[[nodiscard]] PartitionGuard partition_guard(const std::string& guard,
                                             const std::optional<std::vector<Parameter>>& parameters,
                                             SuggestionBudget* budget);
/// spec::partition_guard_problems with the file's suggestion budget.
[[nodiscard]] std::vector<GuardProblem> partition_guard_problems(const CallinDeclaration& declaration,
                                                                 std::size_t max_checks, SuggestionBudget* budget);

/// True for non-empty names made of [A-Za-z0-9_.-] (the spec's `name`).
[[nodiscard]] bool is_valid_spec_name(std::string_view name);

/// `text` as a YAML scalar: plain when that reads back as the same string in any YAML 1.1/1.2
/// reader, double-quoted (with escapes) otherwise. `allow_number` leaves digit strings plain.
[[nodiscard]] std::string yaml_scalar(std::string_view text, bool allow_number = false);

/// typestar::printable (core/printable.hpp): one escaping for every diagnostic.
using typestar::printable;

/// `diagnostics` with printable() file names and messages, so no name read from a file can start a
/// line of its own (a forged `other.yaml:1:1:`) or send a terminal escape.
[[nodiscard]] std::vector<Diagnostic> printable(std::vector<Diagnostic> diagnostics);

/// Throws SpecError with printable() diagnostics.
[[noreturn]] void throw_spec_error(std::vector<Diagnostic> diagnostics);

/// Reads an input file whole, for load_spec and load_mealy_dot. Throws SpecError (line 0, naming
/// the file) for: a file that cannot be opened or read, a directory ("is a directory"), a device or
/// socket ("is not a regular file"), and more than `limits.max_bytes` bytes (counted while reading,
/// so pipes are bounded too). `what` names the kind of file in messages ("spec file", "DOT file").
[[nodiscard]] std::string read_input_file(const std::filesystem::path& path, const ReadLimits& limits,
                                          std::string_view what);

/// The diagnostic for a text over `limits.max_bytes`, or nullopt.
[[nodiscard]] std::optional<Diagnostic> size_diagnostic(std::size_t size, const std::string& file,
                                                        const ReadLimits& limits);

/// The limit set by environment variable `name`, if set: a positive integer, optionally followed
/// by K, M or G (times 1024, 1024², 1024³). Throws typestar::Error naming the variable when its
/// value is anything else. Every `TYPESTAR_MAX_*` knob is read through this one function.
[[nodiscard]] std::optional<std::size_t> limit_from_environment(const char* name);

/// The extension of `path` in lower case (".dot"): how every front end tells a file's format.
[[nodiscard]] inline std::string lower_extension(const std::filesystem::path& path) {
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

/// True for a DOT file (.dot or .gv, any case).
[[nodiscard]] inline bool is_dot_path(const std::filesystem::path& path) {
    const std::string ext = lower_extension(path);
    return ext == ".dot" || ext == ".gv";
}

}  // namespace typestar::spec::detail
