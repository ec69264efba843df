// Proposals: what a re-learned spec is to the spec it would replace.
// Design note: the gtest plugin writes a proposal when a conformance test fails or a spec is
// missing, and `typestar accept` takes it; both ask this header, so a proposal has one file naming
// rule, one test of whether it explains a counterexample, one test of whether it belongs to the
// stored spec (same class, same alphabet), and one sentence saying how it changes the
// distinguisher bound B and with it the size of the conformance suite every CI run executes.
// The workflow itself is here too, as one function (propose_spec), split at its phases: the
// sharing key, the cross-process lock, reuse of another test process's proposal, learning (seeded
// with the stored spec through the conformance run's oracle stack, from scratch, or with
// refinement of parameterised callins), writing, and the diff. The gtest plugin calls it and only
// turns its result into gtest messages; `typestar accept` takes the same lock and removes the same
// files (proposal_files).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/session/session.hpp"
#include "typestar/spec/diff.hpp"
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
/// The same for a counterexample of a conformance run against `device` (its inputs and actual
/// answers over the device's alphabets): does the proposal explain the device's answer?
[[nodiscard]] bool proposal_explains(const spec::Spec& candidate, const Counterexample& counterexample,
                                     const Device& device);

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

/// What a proposal loses of the stored spec, from their diff (stored -> proposal): when the proposal
/// has fewer states, "the proposal has 26 states, the stored spec 73: 47 of 73 stored states are
/// gone: B, C merged into A; D not reached"; when it has as many or more but stored states are
/// merged or no longer reached, the states_gone sentence alone; empty when every stored state has
/// a state of its own in the proposal. The failing test's message says it, and `typestar accept`
/// refuses a smaller proposal without --force.
[[nodiscard]] std::string stored_states_lost(const spec::SpecDiff& diff);

/// True when the diff (stored -> proposal) changes the stored spec's transition (`state`, `input`).
[[nodiscard]] bool transition_changed(const spec::SpecDiff& diff, std::string_view state, std::string_view input);

/// What changed from the stored spec to the proposal as a failing test of transition (`state`,
/// `input`) says it: "What changed (stored -> proposed):", one line per changed transition (the
/// stored spec's names) with this test's own marked "<- this test's transition", the callins,
/// callbacks and states added or gone, and, when its own did not change, "This test's transition
/// (S, i) did not change: its words pass through a transition that did." Every front end prints it.
[[nodiscard]] std::string change_summary(const spec::SpecDiff& diff, std::string_view state, std::string_view input);

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

/// The FNV-1a 64-bit hash of `bytes` as `fnv1a64:` and 16 lower-case hex digits (what the
/// sharing key and the gtest properties record of a spec file's bytes).
[[nodiscard]] std::string content_hash(std::string_view bytes);

/// How a proposal is delivered.
enum class ProposalMode {
    Write,   ///< `<spec>.proposed.yaml` (+ DOT, pictures) next to the spec: review, then `typestar accept`
    Update,  ///< the spec itself, atomically (update mode); its proposal files are removed
    Print,   ///< nothing is written (CI): the caller prints the YAML
};

/// One request to re-learn a spec's device and propose the result. Plain data; pointers borrowed.
struct ProposalRequest {
    std::filesystem::path spec;           ///< the spec file (resolved); the proposal files sit next to it
    const spec::Spec* stored = nullptr;   ///< the stored spec when it exists and loads
    std::string stored_bytes;             ///< its file's bytes (the sharing key's spec part)
    Device* device = nullptr;             ///< the device the tests ran against (required)
    /// The conformance run's oracle stack when the device's inputs are the stored spec's: learning
    /// is then seeded with the stored spec and reuses every answer of the run. Null: from scratch
    /// (no stored spec, or the device's inputs are not the spec's).
    Conformance* conformance = nullptr;
    const Counterexample* counterexample = nullptr;  ///< the failing word (over the device's alphabets)
    /// The spec's name when there is no stored spec (a registration's name); empty: the device's
    /// class name, else the file's stem. Sanitised (spec::sanitize_name).
    std::string name;
    std::size_t bound = 2;                ///< the distinguisher bound B to learn at (at least 1 is used)
    /// Raise B from `bound` while the learned machine needs all of it (EquivalenceOptions::auto_bound,
    /// `learn --bound auto`): a runner's `bound: 'auto'`.
    bool auto_bound = false;
    LearnerKind learner = LearnerKind::LSharp;
    ProposalMode mode = ProposalMode::Write;
    /// What pins the device's behaviour besides the spec, the bound, the learner and the tool
    /// (proposal_device_key); non-empty with a stored spec, a conformance run and a counterexample:
    /// the proposal is shared by the processes of one test run (learned once under a cross-process
    /// lock, reused when it explains the requester's counterexample and its files are in place).
    std::string share_key;
    std::string requester;                ///< who asks (a gtest `Suite.Name`), recorded for the others
    /// Recorded as the learned spec's provenance `device` (empty: the device's name). A runner
    /// serving its device on a loopback port names it here, so the same answers give the same bytes.
    std::string device_label;
    ProposalPictures pictures;            ///< Write mode: the pictures next to the proposal
};

/// What propose_spec did. `spec` empty: `error` says why (learning or writing failed).
struct SpecProposal {
    std::optional<spec::Spec> spec;
    std::string error;
    std::string yaml;                     ///< the proposal's text (Print mode: to be printed)
    /// What ran and what the proposal relies on (learning_summary); for a reused proposal only the
    /// bound change ("Note: ...") or nothing.
    std::string summary;
    std::optional<spec::SpecDiff> diff;   ///< stored -> proposed, when there is a stored spec
    std::string diff_error;               ///< why there is no diff although there is a stored spec
    WrittenProposal written;              ///< the files (Write and Update modes)
    /// Reused from another process of this run: "Suite.Name in test process N at WHEN".
    std::string shared_by;
    /// A reused proposal's pictures that exist (Write mode).
    std::vector<std::filesystem::path> shared_pictures;
    [[nodiscard]] bool shared() const noexcept { return !shared_by.empty(); }
};

/// The device part of the sharing key, or empty when the device's behaviour is not pinned by what
/// the key records: a factory device or a simulation in the test binary (its bytes), a `model:`
/// file (its bytes), an `inproc:` class; never an `http://` agent (it can change behind the same
/// URL). `url` is the --typestar_device URL (empty: the registration's factory). The key also
/// records the device's description, this process's environment and working directory.
[[nodiscard]] std::string proposal_device_key(const std::string& url, const Device& device);

/// The proposal workflow, once for every front end: key, lock and reuse (when shared), learn,
/// write (by `mode`), diff. Never throws for a device or a file: failures are in `error`.
[[nodiscard]] SpecProposal propose_spec(const ProposalRequest& request);

/// Removes every proposal file of `spec` (proposal_files) under the sharing lock, so it never
/// races a test process writing one; returns the file names removed. `typestar accept` calls it
/// after writing the spec.
std::vector<std::string> remove_proposal_files(const std::filesystem::path& spec);

}  // namespace typestar
