// The proposal workflow of each built-in kind behind SpecKind::propose: the kind's request to its
// workflow (propose_spec, propose_register_spec: key, lock, reuse, learn, write, diff) and what a
// front end says of the result (report, recap, pointer), so the gtest plugin names no kind; and the
// registry of kinds beyond the two built in (register_spec_kind).
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "kind_detail.hpp"
#include "typestar/core/alphabet.hpp"
#include "typestar/device/data_device.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/register_automata.hpp"
#include "typestar/session/test_run.hpp"
#include "typestar/spec/diff.hpp"

namespace typestar::detail {

namespace {

std::string indent(const std::string& text, const std::string& prefix) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out += line.empty() ? "\n" : prefix + line + "\n";
    return out;
}

/// The spec's own update-mode sentence.
const char* const kUpdateMode = "Update mode: wrote ";

/// The advice to rerun in update mode, as the front end of `q` asks for it.
std::string rerun_line(const DocumentProposalRequest& q) {
    return "or rerun " + q.rerun_in_update_mode + ", which writes " + q.spec.filename().string() + " itself.\n";
}

Document proposal_document(const std::filesystem::path& file, DocumentFormat format, std::string name) {
    Document d;
    d.path = file.string();
    d.format = format;
    d.name = std::move(name);
    return d;
}

// ---------------------------------------------------------------------------------------------
// Typestates

/// Where a typestate proposal went and what changed: p.report and p.pointer (p.accept set).
void describe_typestate(const DocumentProposalRequest& q, const SpecProposal& r, DocumentProposal& p) {
    const std::string spec = q.spec.string();
    const auto proposed_yaml = proposed_path(q.spec, "yaml");
    if (r.shared()) {
        if (q.mode == ProposalMode::Print) {
            p.pointer = "CI is set, so nothing was written; the proposed spec (learned once for this spec and change, "
                        "by " + r.shared_by + ") is printed in full in that test's output.\n";
        } else if (q.mode == ProposalMode::Update) {
            p.pointer = "Update mode: " + spec + " was rewritten by " + r.shared_by + ".\n";
        } else {
            std::string pictures;
            for (const auto& f : r.shared_pictures) pictures += (pictures.empty() ? "" : ", ") + f.string();
            p.pointer = "Proposed spec: " + proposed_yaml.string() + " (learned once for this spec and change, by " +
                        r.shared_by + "; its full diff is in that test's output, or run: typestar diff " +
                        shell_quote(spec) + " " + shell_quote(proposed_yaml.string()) + ")\n" +
                        (pictures.empty() ? "" : "  (pictures: " + pictures + ")\n") + "Accept it: " + p.accept + "\n";
        }
        p.report = p.pointer;
        p.announcement = p.report;
        p.recap = "Re-learned with " + p.summary;
        return;
    }
    std::ostringstream o;
    if (q.mode == ProposalMode::Print) {
        o << "CI is set, so nothing was written" << (q.update_requested ? " (TYPESTAR_UPDATE is ignored on CI)" : "")
          << ". The proposed spec:\n"
          << indent(r.yaml, "    ");
    } else if (r.written.wrote_spec) {
        o << kUpdateMode << spec << ".\n";
    } else {
        o << "Proposed spec: " << r.written.file.string() << "\n  (pictures: " << r.written.pictures
          << ")\nReview it, then accept it (" << (q.stored != nullptr ? "keeps the stored state names; " : "")
          << "new states get --name NEW=Name, or --auto keeps the generated names):\n    " << p.accept << "\n"
          << rerun_line(q);
    }
    if (r.diff)
        o << "Stored -> proposed (typestar diff):\n" << indent(spec::format_diff(*r.diff), "    ");
    else if (q.stored != nullptr)
        o << "(no diff: " << r.diff_error << ")\n";
    p.report = o.str();
    p.announcement = p.report;
    p.recap = "Re-learned with " + p.summary;
    p.pointer = q.mode == ProposalMode::Print
                    ? std::string("The proposed spec and its diff are printed in full above (first failing test).\n")
                : q.mode == ProposalMode::Update
                    ? "Update mode: wrote " + spec + ".\n"
                    : "Proposed spec: " + proposed_yaml.string() +
                          " (its diff and pictures are in the first failing test's message above)\nAccept it: " +
                          p.accept + "\n";
}

// ---------------------------------------------------------------------------------------------
// Register automata

/// What `q` asked that a register automaton's learning does not take (SL* learns at the bound
/// given; `typestar learn` refuses both): said in the proposal's report rather than dropped.
std::string options_not_applied(const DocumentProposalRequest& q) {
    std::string out;
    if (q.auto_bound)
        out += "--bound auto raises B for typestates only: this register automaton was learned at B=" +
               std::to_string(q.bound) + ".\n";
    if (q.learner != LearnerKind::LSharp)
        out += "--learner applies to typestates only: a register automaton is learned with SL*.\n";
    return out;
}

/// What a register-automaton proposal says in a failure: what ran, the separating trace, where it went.
std::string register_report(const DocumentProposalRequest& q, const RegisterProposal& r, const DocumentProposal& p) {
    std::ostringstream m;
    const std::string spec = q.spec.string();
    if (r.shared()) {  // the full report is in the output of the test that learned it
        if (q.mode == ProposalMode::Print)
            m << "CI is set, so nothing was written; the proposed spec (learned once for this spec and change, by "
              << r.shared_by << ") is printed in full in that test's output.\n";
        else if (r.wrote_spec)
            m << "Update mode: " << spec << " was rewritten by " << r.shared_by << ".\n";
        else
            m << "Proposed spec: " << r.file.string() << " (learned once for this spec and change, by " << r.shared_by
              << "; its separating data trace is in that test's output)\nAccept it: " << p.accept << "\n";
        return m.str();
    }
    m << options_not_applied(q);
    if (q.stored != nullptr && r.separating.empty()) {
        m << "The proposal agrees with the stored spec on every data word of up to " << r.separating_depth
          << " steps: the difference needs a longer word.\n";
    } else if (q.stored != nullptr) {
        m << "Shortest separating data trace, stored spec vs proposal (the proposal's answers):\n"
          << format_trace(r.separating);
    }
    if (q.mode == ProposalMode::Print) {
        m << "CI is set, so nothing was written; the proposed spec:\n" << r.yaml;
    } else if (r.wrote_spec) {
        m << kUpdateMode << spec << "; review and commit it.\n";
    } else {
        m << "Proposed spec: " << r.file.string();
        if (q.stored != nullptr)
            m << " (compare: typestar diff " << shell_quote(spec) << " " << shell_quote(r.file.string()) << ")";
        m << "\nReview it, then accept it:\n    " << p.accept << "\n" << rerun_line(q);
    }
    return m.str();
}

}  // namespace

std::string accept_command(const std::filesystem::path& spec, const Document* stored, const Document& proposal,
                           bool inputs_differ) {
    // The checks and the naming of `typestar accept` itself, asked of the proposal's kind: the
    // command printed is one that works.
    const SpecKind& kind = kind_of(proposal);
    bool force = inputs_differ;  // a proposal over other inputs is for another alphabet
    if (stored != nullptr && kind_of(*stored).id() == kind.id()) {
        const bool mismatch = !kind.proposal_mismatch(*stored, proposal).empty();
        force = force || mismatch || kind.proposal_loss(*stored, proposal).smaller;
    }
    bool needs_names = false;
    try {
        (void)kind.accept(stored, proposal, AcceptNames{spec, {}, false});
    } catch (const std::invalid_argument&) {  // new states without a name
        needs_names = true;
    } catch (const std::exception&) {  // anything else: accept itself says what is wrong
    }
    return "typestar accept " + shell_quote(spec.string()) + (needs_names ? " --auto" : "") + (force ? " --force" : "");
}

DocumentProposal propose_typestate(const DocumentProposalRequest& q) {
    DocumentProposal p;
    p.unit = "states";
    ProposalRequest request;
    request.spec = q.spec;
    request.stored = q.stored != nullptr && q.stored->spec ? &*q.stored->spec : nullptr;
    request.stored_bytes = q.stored_bytes;
    // The device as the tests ran it (with the spec's partitions) and their oracle stack, whose
    // answers the proposal reuses; learning a missing spec: the device as made.
    Device* tested = q.run != nullptr && q.run->device() != nullptr ? q.run->device()
                     : q.subject != nullptr                          ? q.subject->device.typestate.get()
                                                                     : nullptr;
    if (tested == nullptr) {
        p.error = "no device to learn from";
        return p;
    }
    request.device = tested;
    request.conformance = request.stored && !q.inputs_differ && q.run ? q.run->conformance() : nullptr;
    request.counterexample = q.failure != nullptr && q.failure->counterexample ? &*q.failure->counterexample : nullptr;
    request.name = q.name;
    request.bound = q.bound;
    request.auto_bound = q.auto_bound;
    request.learner = q.learner;
    request.mode = q.mode;
    request.share_key = typestar::proposal_device_key(q.device_url, *tested);
    request.requester = q.requester;
    request.pictures = q.pictures;
    request.device_label = q.device_label;
    const SpecProposal r = propose_spec(request);
    p.error = r.error;
    p.summary = r.summary;
    p.yaml = r.yaml;
    p.wrote_spec = r.written.wrote_spec;
    p.shared_by = r.shared_by;
    p.diff = r.diff;
    p.diff_error = r.diff_error;
    if (!r.spec) return p;
    p.size = r.spec->typestate.states.size();
    p.document = proposal_document(r.written.file.empty() ? proposed_path(q.spec, "yaml") : r.written.file,
                                   DocumentFormat::TypestateYaml, r.spec->typestate.name);
    p.document->spec = *r.spec;
    if (q.mode == ProposalMode::Write && !r.written.wrote_spec) {
        p.pictures = r.written.pictures;
        p.accept = accept_command(q.spec, q.stored, *p.document, q.inputs_differ);
    }
    describe_typestate(q, r, p);
    return p;
}

bool typestate_explains(const Document& proposal, const TestResult& failure, SpecTestRun& run) {
    if (!proposal.spec || !failure.counterexample || run.device() == nullptr) return false;
    return proposal_explains(*proposal.spec, *failure.counterexample, *run.device());
}

std::string typestate_answer_word(const TestResult& failure, SpecTestRun& run) {
    if (!failure.counterexample || run.device() == nullptr) return {};
    return " on " + to_string(failure.counterexample->inputs, run.device()->inputs());
}

std::string typestate_changes(const DocumentProposal& proposal, const TransitionTest& t) {
    // One line per changed transition (the stored spec's state names), the test's own marked; or
    // why the test fails although its own transition did not change.
    return proposal.diff ? change_summary(*proposal.diff, t.state, t.input) : std::string();
}

DocumentProposal propose_register(const DocumentProposalRequest& q) {
    DocumentProposal p;
    p.unit = "locations";
    const ra::RaSpec* stored = q.stored != nullptr && q.stored->automaton ? &*q.stored->automaton : nullptr;
    DataDevice* made = q.subject != nullptr ? q.subject->device.data.get() : nullptr;
    if (made == nullptr) {
        p.error = "no device to learn from";
        return p;
    }
    RegisterProposalRequest request;
    request.spec = q.spec;
    request.stored = stored;
    // The device as the tests ran it (seen through the spec's signature); learning a missing spec:
    // the device as made.
    request.device = stored && q.run != nullptr ? q.run->data_device() : made;
    request.signature = stored ? signature_of(stored->automaton) : made->signature();
    request.bound = q.bound;
    request.mode = q.mode;
    request.device_label = !q.device_label.empty() ? q.device_label
                           : stored                ? (q.device_url.empty() ? q.registered_url : q.device_url)
                                                   : made->name();
    request.learned_by = stored ? "re-learned after a failing test" : "";  // any front end: plugin, CLI, runner
    request.stored_bytes = q.stored_bytes;
    request.counterexample =
        q.failure != nullptr && q.failure->data_counterexample ? &*q.failure->data_counterexample : nullptr;
    if (request.device != nullptr) request.share_key = typestar::proposal_device_key(q.device_url, *made);
    request.requester = q.requester;
    const RegisterProposal r = propose_register_spec(request);
    p.error = r.error;
    p.summary = r.summary;
    p.yaml = r.yaml;
    p.wrote_spec = r.wrote_spec;
    p.shared_by = r.shared_by;
    if (!r.spec) return p;
    p.size = r.spec->automaton.locations.size();
    p.document = proposal_document(r.file.empty() ? proposed_path(q.spec, "yaml") : r.file,
                                   DocumentFormat::RegisterAutomatonYaml, r.spec->automaton.name);
    p.document->automaton = *r.spec;
    if (q.mode == ProposalMode::Write && !r.wrote_spec)
        p.accept = accept_command(q.spec, q.stored, *p.document, q.inputs_differ);
    p.report = register_report(q, r, p);
    p.announcement = "Re-learned with " + p.summary + p.report;
    // The whole proposal once per spec (its separating trace with it); later failures point at it.
    p.pointer = r.shared() ? p.report
                           : "The re-learned proposal and its separating data trace are in the first failure of " +
                                 q.suite + ".\n" + (p.accept.empty() ? "" : "Accept it: " + p.accept + "\n");
    return p;
}

bool register_explains(const Document& proposal, const TestResult& failure) {
    if (!proposal.automaton || !failure.data_counterexample) return false;
    return proposal_explains(proposal.automaton->automaton, *failure.data_counterexample);
}

namespace {

/// The kinds registered with register_spec_kind, by id.
struct KindRegistry {
    std::mutex mutex;
    std::map<DocumentKind, const SpecKind*> kinds;
};

KindRegistry& kind_registry() {
    static KindRegistry r;
    return r;
}

}  // namespace

const SpecKind* registered_kind(DocumentKind id) noexcept {
    KindRegistry& r = kind_registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.kinds.find(id);
    return it == r.kinds.end() ? nullptr : it->second;
}

}  // namespace typestar::detail

namespace typestar {

void register_spec_kind(const SpecKind& kind) {
    detail::KindRegistry& r = detail::kind_registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    r.kinds[kind.id()] = &kind;
}

const SpecKind& spec_kind_of(const std::filesystem::path& spec, DeviceKind device) {
    std::error_code ec;
    if (std::filesystem::exists(spec, ec)) {
        const DocumentFormat format = document_format(spec);
        return spec_kind(format == DocumentFormat::RegisterAutomatonYaml || format == DocumentFormat::RalibXml
                             ? DocumentKind::RegisterAutomaton
                             : DocumentKind::Typestate);
    }
    return spec_kind(device == DeviceKind::Data ? DocumentKind::RegisterAutomaton : DocumentKind::Typestate);
}

DocumentProposal propose_document(const DocumentProposalRequest& request) {
    if (request.stored != nullptr) return kind_of(*request.stored).propose(request);
    if (request.subject == nullptr) {
        DocumentProposal none;
        none.error = "no device to learn from";
        return none;
    }
    return kind_of(*request.subject).propose(request);
}

}  // namespace typestar
