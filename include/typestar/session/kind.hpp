// The kinds of spec behind one interface.
// Design note: the session knows each kind of spec — typestates (with the Mealy machines they
// generalise) and register automata — through SpecKind, as LearnLib's Experiment<A> knows each
// automaton kind through its learner and oracle: one object per kind answers what a document of it
// says of itself (summary, export, bound), compares two of them (diff, proposal_mismatch), plans its
// tests, learns a device of it and checks one against it; `typestar accept` asks it whether a
// proposal belongs to the stored spec and what it loses. kind_of(document) is the one place that
// reads which kind a document is; the document functions of typestar/session/document.hpp are
// one-line calls through it, and a third kind is one more implementation, not a branch in each.
// It also runs a document's tests one at a time (test_run), which the gtest plugin's test bodies
// and `typestar check --format json` report. Not yet behind it: the proposal workflow's learning
// step (propose_spec / propose_register_spec share its key, lock, reuse and writing,
// typestar/session/proposal.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/session/document.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/session/test_run.hpp"

namespace typestar {

/// What a proposal loses of the stored spec (SpecKind::proposal_loss).
struct ProposalLoss {
    std::string text;    ///< the sentence, e.g. "the proposal has 2 states, the stored spec 5: ..."; empty: nothing lost
    bool smaller = false;  ///< fewer states (typestates) or locations (register automata)
    std::string unit;    ///< "states" or "locations", for the refusal's advice
};

/// One kind of spec. Implementations are stateless singletons (kind_of); every member takes
/// documents of its own kind and throws std::invalid_argument, naming the file, for one it cannot
/// use (e.g. a Mealy DOT file where a spec is needed).
class SpecKind {
public:
    virtual ~SpecKind() = default;

    /// Which kind this is.
    [[nodiscard]] virtual DocumentKind id() const noexcept = 0;
    /// "typestate" or "register automaton", for messages.
    [[nodiscard]] virtual std::string_view noun() const noexcept = 0;

    /// What `typestar validate` says of a valid document (document_summary).
    [[nodiscard]] virtual std::string summary(const Document& document) const = 0;
    /// `document` as `format` (export_document).
    [[nodiscard]] virtual std::string export_text(const Document& document, ExportFormat format) const = 0;
    /// The bound a check of `document` runs by default (document_bound).
    [[nodiscard]] virtual std::size_t default_bound(const Document& document, SuiteMethod method) const = 0;

    /// The behaviour of two documents of this kind compared (diff_documents, after it checked the kinds).
    [[nodiscard]] virtual DocumentDiff diff(const Document& old_document, const Document& new_document,
                                            std::size_t depth, bool picture) const = 0;
    /// Why `proposal` is not a proposal for `stored` (another class, another alphabet or signature),
    /// one sentence each; empty when it is (proposal_mismatch of either kind).
    [[nodiscard]] virtual std::vector<std::string> proposal_mismatch(const Document& stored,
                                                                     const Document& proposal) const = 0;
    /// What `proposal` loses of `stored` (same class and alphabet): for typestates the stored states
    /// that are merged or no longer reached (stored_states_lost), for register automata fewer
    /// locations; `smaller` when it has fewer states or locations, which `typestar accept` refuses
    /// without --force.
    [[nodiscard]] virtual ProposalLoss proposal_loss(const Document& stored, const Document& proposal) const = 0;
    /// When `proposal`'s distinguisher bound differs from `stored`'s: "the distinguisher bound
    /// changes from B=2 to B=3" (typestates add the suite sizes, bound_change); else empty.
    [[nodiscard]] virtual std::string bound_change(const Document& stored, const Document& proposal) const = 0;
    /// The spec's tests, one per transition, in file order (plan_transition_tests, plan_register_tests).
    [[nodiscard]] virtual std::vector<TransitionTest> test_plan(const Document& document) const = 0;

    /// Checks `subject` against `document` (check_document).
    [[nodiscard]] virtual DocumentCheck check(const Document& document, Subject& subject, SuiteMethod method,
                                              std::optional<std::size_t> bound) const = 0;
    /// The tests of `document` (its test_plan) over `subject`'s device, run one at a time through
    /// one oracle stack (typestar/session/test_run.hpp). Throws std::invalid_argument for a device
    /// of the other kind or another signature (register automata).
    [[nodiscard]] virtual std::unique_ptr<SpecTestRun> test_run(const Document& document, Subject& subject,
                                                                const TestRunOptions& options) const = 0;
    /// Learns `subject`, a device of this kind (learn_document).
    [[nodiscard]] virtual LearnedDocument learn(Subject& subject, const LearnRequest& request) const = 0;
};

/// The kind `id` names.
[[nodiscard]] const SpecKind& spec_kind(DocumentKind id) noexcept;
/// The kind of `document`: the one place the session reads it.
[[nodiscard]] const SpecKind& kind_of(const Document& document) noexcept;
/// The kind of spec `subject`'s device is learned as and checked against.
[[nodiscard]] const SpecKind& kind_of(const Subject& subject) noexcept;

}  // namespace typestar
