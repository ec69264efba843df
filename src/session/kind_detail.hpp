// Internal to the session: the proposal and accept operations of the two built-in kinds
// (SpecKind::propose, explains, answer_word, changes, accept), defined in kind_proposal.cpp and
// accept.cpp and called by the kinds of document.cpp.
#pragma once

#include <string>
#include <vector>

#include "typestar/ra/format.hpp"
#include "typestar/session/kind.hpp"

namespace typestar::detail {

[[nodiscard]] DocumentProposal propose_typestate(const DocumentProposalRequest& request);
[[nodiscard]] bool typestate_explains(const Document& proposal, const TestResult& failure, SpecTestRun& run);
[[nodiscard]] std::string typestate_answer_word(const TestResult& failure, SpecTestRun& run);
[[nodiscard]] std::string typestate_changes(const DocumentProposal& proposal, const TransitionTest& test);
[[nodiscard]] AcceptedProposal accept_typestate(const Document* stored, const Document& proposal,
                                                const AcceptNames& names);

[[nodiscard]] DocumentProposal propose_register(const DocumentProposalRequest& request);
[[nodiscard]] bool register_explains(const Document& proposal, const TestResult& failure);
[[nodiscard]] AcceptedProposal accept_register(const Document* stored, const Document& proposal,
                                               const AcceptNames& names);
/// Gives the locations of `proposal` that ra::pair_locations pairs with a location of `stored` that
/// location's name (each stored name once, in the pairing's order); the others keep their names, or
/// (a name now taken) get the first free `l<N>`. Returns, per location, whether it has a stored name.
/// A product too large to pair (past the RA limits) leaves every name as it is.
std::vector<bool> name_locations_like(const ra::RaSpec& stored, ra::RaSpec& proposal);

/// The kind registered with register_spec_kind for `id`, or null.
[[nodiscard]] const SpecKind* registered_kind(DocumentKind id) noexcept;

/// The `typestar accept SPEC` command (shell-quoted, no line break) that takes `proposal` as it is:
/// with --force when accept refuses it otherwise (inputs that differ, another class or alphabet,
/// fewer states or locations: the kind's proposal_mismatch and proposal_loss), with --auto when the
/// kind's naming (SpecKind::accept) needs names for new states. `stored` null: a first run.
[[nodiscard]] std::string accept_command(const std::filesystem::path& spec, const Document* stored,
                                         const Document& proposal, bool inputs_differ);

}  // namespace typestar::detail
