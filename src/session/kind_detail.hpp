// Internal to the session: the proposal and accept operations of the two built-in kinds
// (SpecKind::propose, explains, answer_word, changes, accept), defined in kind_proposal.cpp and
// accept.cpp and called by the kinds of document.cpp.
#pragma once

#include <string>

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
[[nodiscard]] AcceptedProposal accept_register(const Document& proposal, const AcceptNames& names);

/// The kind registered with register_spec_kind for `id`, or null.
[[nodiscard]] const SpecKind* registered_kind(DocumentKind id) noexcept;

/// "typestar accept SPEC" (with --force when `force`), shell-quoted, and a line break.
[[nodiscard]] std::string accept_line(const std::filesystem::path& spec, bool force);

}  // namespace typestar::detail
