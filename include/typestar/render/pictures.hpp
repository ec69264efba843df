// The pictures written next to a proposed spec: the proposed typestate and its diff with the
// stored spec, as SVG (see svg.hpp).
#pragma once

#include <filesystem>
#include <vector>

#include "typestar/spec/spec.hpp"

namespace typestar::render {

/// Writes SVG pictures next to the proposal `proposed_yaml` (`<spec>.proposed.yaml`, or any
/// `<name>.yaml`): `<spec>.proposed.svg`, the typestate of `proposed` as given
/// (spec::write_typestate_dot), and, when `stored` is not null, `<spec>.diff.svg`, the stored and
/// the proposed typestate overlaid (spec::write_diff_dot). With no stored spec a `<spec>.diff.svg`
/// left from an earlier proposal is removed, so no stale diff sits next to the proposal. Each file
/// is written atomically (spec::write_file_atomically). Returns the paths written, in that order.
/// Throws typestar::Error if a picture cannot be rendered (then nothing is written) or written (a
/// picture written before stays; the one that failed keeps its old content), or if the path has
/// no spec name; std::invalid_argument for a malformed typestate. Not for CI runs that must leave
/// the tree untouched: the caller decides whether to write.
std::vector<std::filesystem::path> write_proposal_pictures(const spec::Spec* stored, const spec::Spec& proposed,
                                                           const std::filesystem::path& proposed_yaml);

}  // namespace typestar::render
