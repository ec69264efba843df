// Proposals: what a re-learned spec is to the spec it would replace.
// Design note: the gtest plugin writes a proposal when a conformance test fails or a spec is
// missing, and `typestar accept` takes it; both ask this header, so a proposal has one file naming
// rule, one test of whether it explains a counterexample, one test of whether it belongs to the
// stored spec (same class, same alphabet), and one sentence saying how it changes the
// distinguisher bound B and with it the size of the conformance suite every CI run executes.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {

/// `<spec>.proposed.<ext>` next to `spec`: the extension `.yaml`/`.yml` replaced (kept otherwise),
/// e.g. `specs/timer.yaml` -> `specs/timer.proposed.yaml`; `ext` is "yaml", "dot" or "svg".
[[nodiscard]] std::filesystem::path proposed_path(const std::filesystem::path& spec, std::string_view ext);

/// `<spec>.diff.svg`: the picture of the stored spec against its proposal.
[[nodiscard]] std::filesystem::path diff_picture_path(const std::filesystem::path& spec);

/// Every file a proposal of `spec` consists of (the YAML, its DOT, its SVG, the diff picture), in
/// that order; `typestar accept` and update mode remove them once the spec is written.
[[nodiscard]] std::vector<std::filesystem::path> proposal_files(const std::filesystem::path& spec);

/// True when `candidate`'s synchronous closure answers the input word `inputs` (names) with
/// `outputs` (names, one per input): the proposal explains the device's answer. False when it
/// answers otherwise or does not know an input (another alphabet).
[[nodiscard]] bool proposal_explains(const spec::Spec& candidate, const std::vector<std::string>& inputs,
                                     const std::vector<std::string>& outputs);

/// Why `proposal` is not a proposal for `stored`: one sentence per difference of class name,
/// callins or callbacks ("another class: ...", "other callins: adds x; lacks y"). Empty when it is.
[[nodiscard]] std::vector<std::string> proposal_mismatch(const spec::Spec& stored, const spec::Spec& proposal);

/// The number of test words of `spec`'s DroidStar Algorithm 2 suite at `bound` (its synchronous
/// closure, with the assumptions the spec declares), or nullopt when the spec has no closure.
[[nodiscard]] std::optional<std::size_t> suite_size(const spec::Spec& spec, std::size_t bound);

/// When `proposal`'s distinguisher bound differs from `stored`'s: "the distinguisher bound changes
/// from B=3 to B=4: the conformance suite grows from 7,993 to 57,637 words" (suite_size of each at
/// its own bound); empty when both have the same B.
[[nodiscard]] std::string bound_change(const spec::Spec& stored, const spec::Spec& proposal);

/// Pictures of a proposal written next to its YAML (render::write_proposal_pictures where
/// typestar is built with Graphviz): the files written; throws to say why there are none.
using ProposalPictures = std::function<std::vector<std::filesystem::path>(
    const spec::Spec* stored, const spec::Spec& proposal, const std::filesystem::path& proposal_yaml)>;

/// What write_proposal wrote.
struct WrittenProposal {
    std::string yaml;                             ///< the proposal's text, as written
    std::filesystem::path file;                   ///< the spec (update) or `<spec>.proposed.yaml`
    std::string pictures;                         ///< the pictures written, comma-separated, or why none
    bool wrote_spec = false;                      ///< update mode: the spec itself was written
};

/// Writes `proposal` for the spec at `spec_path`, atomically: with `update`, the spec itself (and
/// removes every proposal file of it, proposal_files); else `<spec>.proposed.yaml`, its DOT and the
/// pictures of `pictures` (the DOT only when none is given, or with the reason it failed). Throws
/// std::exception when a file cannot be written.
[[nodiscard]] WrittenProposal write_proposal(const std::filesystem::path& spec_path, const spec::Spec* stored,
                                             const spec::Spec& proposal, bool update,
                                             const ProposalPictures& pictures = {});

/// What a learning run was and what its result relies on, in the words of every message: "L#
/// (seeded with the stored spec), DroidStar Algorithm 2 at B=2 as equivalence oracle: 5 states,
/// 2 callins, 2 callbacks, bound 2." (`how`, e.g. "seeded with the stored spec", in parentheses
/// when given), then one line each: the bound change against `stored` (bound_change), the tight
/// bound warning (tight_bound_warning), and the assumptions block of the learned spec.
[[nodiscard]] std::string learning_summary(const LearnedSpec& learned, std::string_view how,
                                           const spec::Spec* stored = nullptr);

}  // namespace typestar
