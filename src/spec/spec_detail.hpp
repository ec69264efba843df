// Internal helpers shared by the spec reader and writer (not installed).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace typestar::spec::detail {

/// The closest of `candidates` to `word` by edit distance, if at most 2 (ties: the first listed).
[[nodiscard]] std::optional<std::string> did_you_mean(std::string_view word,
                                                      std::span<const std::string_view> candidates);

/// True for non-empty names made of [A-Za-z0-9_.-] (the spec's `name`).
[[nodiscard]] bool is_valid_spec_name(std::string_view name);

/// `text` as a YAML scalar: plain when that reads back as the same string in any YAML 1.1/1.2
/// reader, double-quoted (with escapes) otherwise. `allow_number` leaves digit strings plain.
[[nodiscard]] std::string yaml_scalar(std::string_view text, bool allow_number = false);

}  // namespace typestar::spec::detail
