// `typestar accept SPEC [--name NEW=Chosen ...] [--auto]`: replaces a stored spec by its proposal
// (`<spec>.proposed.yaml`, written by the gtest plugin). One path for every kind: the same checks
// (another spec, a smaller proposal), the kind's naming of the accepted spec (SpecKind::accept: a
// typestate keeps the stored state names and asks only for the names of new states; a register
// automaton keeps the proposal's location names), the same atomic write and the same removal of
// the proposal files under the proposal lock.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/kind.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/register_automata.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::cli {
namespace {

namespace fs = std::filesystem;

struct AcceptArgs {
    std::string spec;
    std::vector<std::string> names;
    bool keep_generated = false;
    bool force = false;
};

/// Exits 2 when `proposal_path` does not exist.
void require_proposal(const fs::path& proposal_path) {
    std::error_code ec;
    if (!fs::exists(proposal_path, ec)) {
        print_error("no proposal to accept: " + proposal_path.string() +
                    " does not exist (the gtest plugin writes it when a conformance test fails or a spec is missing)");
        exit_with(kExitBadInput);
    }
}

/// Exits 2 (unless --force: a warning) when `mismatch` says the proposal belongs to another spec.
void check_mismatch(const AcceptArgs& o, const fs::path& spec_path, const fs::path& proposal_path,
                    const std::vector<std::string>& mismatch) {
    if (mismatch.empty()) return;
    std::string text = proposal_path.string() + " is not a proposal for " + spec_path.string() + ":";
    for (const auto& m : mismatch) text += "\n  " + m;
    if (!o.force) {
        print_error(text + "\nnothing was written; if the class really changed (an upgrade that renamed it "
                           "or changed its callins or callbacks), accept it with --force");
        exit_with(kExitBadInput);
    }
    std::cerr << "typestar: warning: --force: " << text << "\n";
}

/// The last line of an accept: what was written, the bound change, the proposal files removed
/// (under the proposal lock, so no test process writing one races it).
void report_accepted(const fs::path& spec_path, const fs::path& proposal_path, const std::string& what,
                     const std::string& bound_note) {
    const std::vector<std::string> removed = remove_proposal_files(spec_path);
    std::cout << "accepted " << proposal_path.string() << " as " << spec_path.string() << ": " << what;
    if (!bound_note.empty()) std::cout << "; " << bound_note;
    std::cout << "; removed";
    for (const auto& r : removed) std::cout << ' ' << r;
    std::cout << '\n';
}

/// The checks of every kind, asked of the proposal's kind (SpecKind): exits 2 when the stored spec
/// is of another kind, or (without --force) when the proposal belongs to another spec (another
/// class or alphabet) or is smaller than the stored spec; warns when it loses stored states.
void check_proposal(const AcceptArgs& o, const fs::path& spec_path, const fs::path& proposal_path,
                    const Document& stored, const Document& proposal) {
    const SpecKind& kind = kind_of(proposal);
    if (kind_of(stored).id() != kind.id()) {
        print_error(proposal_path.string() + " is a " + std::string(kind.noun()) + ", but " + spec_path.string() +
                    " is a " + std::string(kind_of(stored).noun()) + ": nothing was written");
        exit_with(kExitBadInput);
    }
    const std::vector<std::string> mismatch = kind.proposal_mismatch(stored, proposal);
    check_mismatch(o, spec_path, proposal_path, mismatch);
    if (!mismatch.empty()) return;
    // A proposal that loses stored states is flagged before it replaces the spec; a smaller
    // one is refused unless told (the re-learn may have stopped short of what the spec knew).
    const ProposalLoss loss = kind.proposal_loss(stored, proposal);
    if (loss.text.empty()) return;
    if (loss.smaller && !o.force) {
        print_error(proposal_path.string() + " is smaller than " + spec_path.string() + ": " + loss.text +
                    "\nnothing was written; review the change (typestar diff " + spec_path.string() + " " +
                    proposal_path.string() + "), re-learn at a higher bound if the device still has those " +
                    loss.unit + ", or accept it with --force if it really lost them");
        exit_with(kExitBadInput);
    }
    std::cerr << "typestar: warning: " << (o.force ? "--force: " : "") << loss.text << "\n";
}

void run_accept(const AcceptArgs& o) {
    const fs::path spec_path = o.spec;
    const fs::path proposal_path = proposed_path(spec_path, "yaml");
    require_proposal(proposal_path);
    const Document proposal_document = load_document(proposal_path);  // SpecError: main prints the diagnostics
    std::optional<Document> stored_document;
    std::error_code ec;
    if (fs::exists(spec_path, ec)) stored_document = load_document(spec_path);
    if (stored_document && !stored_document->spec && !stored_document->automaton) {
        print_error(spec_path.string() + " is a Mealy machine, not a spec: nothing was written (import it first: "
                    "typestar import " + spec_path.string() + ")");
        exit_with(kExitBadInput);
    }
    if (stored_document) check_proposal(o, spec_path, proposal_path, *stored_document, proposal_document);
    const SpecKind& kind = kind_of(proposal_document);
    const std::string bound_note =
        stored_document ? kind.bound_change(*stored_document, proposal_document) : std::string();
    // Naming the accepted states is the kind's own (a register automaton keeps the proposal's).
    const AcceptedProposal accepted =
        kind.accept(stored_document ? &*stored_document : nullptr, proposal_document, {spec_path, o.names, o.keep_generated});
    spec::write_file_atomically(spec_path, accepted.yaml);  // the stored spec survives any failure
    report_accepted(spec_path, proposal_path, accepted.what, bound_note);
}

}  // namespace

void register_accept_command(CLI::App& app) {
    auto o = std::make_shared<AcceptArgs>();
    auto* cmd = app.add_subcommand(
        "accept",
        "Replace a spec by its proposal (<spec>.proposed.yaml), atomically, keeping the stored state names; new "
        "states need --name or --auto. Removes the proposal files.");
    cmd->add_option("spec", o->spec, "the stored spec (.yaml); its proposal is <spec>.proposed.yaml")->required();
    cmd->add_option("--name", o->names, "NEW=Chosen: the name of a new state of the proposal (repeatable)");
    cmd->add_flag("--auto", o->keep_generated, "keep the generated names (s0, s1, ...) of new states");
    cmd->add_flag("--force", o->force,
                  "accept a proposal for another class name or alphabet (refused otherwise: a proposal of another "
                  "spec), or one with fewer states than the stored spec (refused otherwise: stored states gone)");
    cmd->callback([o] { run_accept(*o); });
}

}  // namespace typestar::cli
