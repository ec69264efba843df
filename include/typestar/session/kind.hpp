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
// and `typestar check --format json` report, and the proposal workflow after a failing test or for
// a missing spec (propose: key, cross-process lock, reuse, `<spec>.proposed.yaml`, atomic write,
// what changed, in the words a front end prints; explains), and `typestar accept`'s naming of the
// accepted spec (accept). A kind other than the two built in is registered with register_spec_kind.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "typestar/device/factory.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/session/test_run.hpp"

namespace typestar {

/// What a proposal loses of the stored spec (SpecKind::proposal_loss).
struct ProposalLoss {
    std::string text;    ///< the sentence, e.g. "the proposal has 2 states, the stored spec 5: ..."; empty: nothing lost
    bool smaller = false;  ///< fewer states (typestates) or locations (register automata)
    std::string unit;    ///< "states" or "locations", for the refusal's advice
};

/// One request to propose a spec of a kind (SpecKind::propose): what the proposal workflow needs,
/// in terms every kind shares. Plain data; pointers borrowed.
struct DocumentProposalRequest {
    std::filesystem::path spec;        ///< the spec file (resolved); the proposal files sit next to it
    const Document* stored = nullptr; ///< the stored spec when it exists and loads
    std::string stored_bytes;          ///< its file's bytes (the sharing key's spec part)
    Subject* subject = nullptr;        ///< the device as made (required)
    /// The run of the stored spec's tests over `subject`, when one ran: the proposal reuses its
    /// device view and oracle stack.
    SpecTestRun* run = nullptr;
    /// The failing test's result (its counterexample of this kind); null when learning a missing spec.
    const TestResult* failure = nullptr;
    bool inputs_differ = false;        ///< a test found the device's inputs are not the spec's: from scratch
    std::string name;                  ///< the spec's name when there is no stored spec (a registration's)
    std::size_t bound = 2;             ///< the distinguisher bound B to learn at
    /// Raise B from `bound` while the learned machine needs all of it (typestates; a register
    /// automaton is learned at `bound`, and its proposal says so).
    bool auto_bound = false;
    LearnerKind learner = LearnerKind::LSharp;  ///< typestates' learner (register automata: SL*, said so)
    ProposalMode mode = ProposalMode::Write;
    bool update_requested = false;     ///< Print mode although update mode was asked (CI): said so
    std::string device_url;            ///< the URL the device was opened from (empty: a factory); the share key
    std::string registered_url;        ///< the registration's URL of the device (provenance), when known
    /// The proposal's provenance `device` when the front end names it (a runner's "junit in-process
    /// NAME": stable across runs, unlike the loopback URL it was served on); empty: the kind's rule.
    std::string device_label;
    /// How this front end's user reruns in update mode, after "or rerun " (a runner: "in update mode").
    std::string rerun_in_update_mode = "with TYPESTAR_UPDATE=1 (or --typestar_update)";
    std::string suite;                 ///< the front end's name of the spec's tests, for pointers
    std::string requester;             ///< who asks (a gtest `Suite.Name`), recorded for the other processes
    ProposalPictures pictures;         ///< Write mode: the pictures next to a typestate proposal
};

/// What SpecKind::propose did, and what a front end says of it. `document` empty: `error` says why.
struct DocumentProposal {
    std::optional<Document> document;  ///< the proposed spec
    std::string error;
    /// What ran and what the proposal relies on; for a reused proposal what is new ("Note: ...") or nothing.
    std::string summary;
    std::string yaml;                  ///< the proposal's text
    bool wrote_spec = false;           ///< Update mode wrote the spec itself
    std::size_t size = 0;              ///< its states or locations
    std::string unit;                  ///< "states" or "locations"
    /// Reused from another process of this run: "Suite.Name in test process N at WHEN".
    std::string shared_by;
    /// Where it went (or that it is printed) and what changed, in full: the first failure says it.
    std::string report;
    /// What update mode prints once when the written spec explains a test's answer.
    std::string announcement;
    /// What later failures say before `pointer` (typestates: "Re-learned with" and the summary).
    std::string recap;
    /// One line: where the proposal and its full report are, for every later failure.
    std::string pointer;
    /// Typestates: stored -> proposed (changes() marks a test's own transition in it).
    std::optional<spec::SpecDiff> diff;
    std::string diff_error;            ///< typestates: why there is no diff although a spec is stored
    std::string pictures;              ///< typestates, Write mode: the pictures written beside it
    /// Write mode: the `typestar accept SPEC` command that takes this proposal as it is (with
    /// --auto when it has states the stored spec has not, --force when accept would refuse it
    /// otherwise: accept_command); empty in the other modes.
    std::string accept;
    [[nodiscard]] bool shared() const noexcept { return !shared_by.empty(); }
};

/// What SpecKind::accept makes of a proposal: the spec to write and what the accept says of it.
struct AcceptedProposal {
    std::string yaml;  ///< the accepted spec's text, written atomically over the stored spec
    std::string what;  ///< e.g. "5 states (4 with their stored names, 1 new)"
};

/// The names `typestar accept` is given for a proposal's new states or locations.
struct AcceptNames {
    std::filesystem::path spec;      ///< the stored spec's file, for messages
    std::vector<std::string> names;  ///< NEW=Chosen
    bool keep_generated = false;     ///< --auto: keep the generated names of new states
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

    /// The size of `document`: its states (typestates) or locations (register automata).
    [[nodiscard]] virtual std::size_t size(const Document& document) const = 0;
    /// The devices a spec of this kind is tested on (a front end opens a URL as this).
    [[nodiscard]] virtual DeviceKind device_kind() const noexcept = 0;
    /// The proposal workflow of this kind (propose_spec, propose_register_spec): key, cross-process
    /// lock and reuse (with a stored spec and a failure), learn, write by mode, what changed; the
    /// front end's texts (report, recap, pointer) composed here. Never throws for a device or a file.
    [[nodiscard]] virtual DocumentProposal propose(const DocumentProposalRequest& request) const = 0;
    /// True when `proposal` (of this kind) answers the failing word of `failure` as the device did.
    [[nodiscard]] virtual bool explains(const Document& proposal, const TestResult& failure,
                                        SpecTestRun& run) const = 0;
    /// The failing word of `failure` as a front end names it after "the device's answer", e.g. " on
    /// open close", or empty when the kind has no short name for it.
    [[nodiscard]] virtual std::string answer_word(const TestResult& failure, SpecTestRun& run) const = 0;
    /// What changed from the stored spec to `proposal` seen from planned test `test` (its own
    /// transition marked), or empty when the proposal's report says it all.
    [[nodiscard]] virtual std::string changes(const DocumentProposal& proposal, const TransitionTest& test) const = 0;
    /// `proposal` (of this kind, already checked against `stored` with proposal_mismatch and
    /// proposal_loss) as the spec `typestar accept` writes, its new states or locations named by
    /// `names`. Throws std::invalid_argument naming the proposal file for a bad or missing name.
    [[nodiscard]] virtual AcceptedProposal accept(const Document* stored, const Document& proposal,
                                                  const AcceptNames& names) const = 0;
};

/// Makes `kind` the kind of documents and subjects whose kind() is kind.id() (an id other than the
/// two built in; `kind` must outlive every use). Replaces an earlier registration of that id.
void register_spec_kind(const SpecKind& kind);
/// The kind of the spec at `spec`: its document's kind when the file exists (document_format),
/// else the kind whose devices are `device` (Data: register automata; else typestates).
[[nodiscard]] const SpecKind& spec_kind_of(const std::filesystem::path& spec, DeviceKind device);
/// The proposal workflow for `request`: kind_of(*request.stored) when there is a stored spec, else
/// kind_of(*request.subject).propose.
[[nodiscard]] DocumentProposal propose_document(const DocumentProposalRequest& request);

/// The kind `id` names.
[[nodiscard]] const SpecKind& spec_kind(DocumentKind id) noexcept;
/// The kind of `document`: the one place the session reads it.
[[nodiscard]] const SpecKind& kind_of(const Document& document) noexcept;
/// The kind of spec `subject`'s device is learned as and checked against.
[[nodiscard]] const SpecKind& kind_of(const Subject& subject) noexcept;

}  // namespace typestar
