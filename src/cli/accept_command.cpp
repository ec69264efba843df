// `typestar accept SPEC [--name NEW=Chosen ...] [--auto]`: replaces a stored spec by its proposal
// (`<spec>.proposed.yaml`, written by the gtest plugin), keeping the stored spec's state names (the
// pairing `typestar diff` uses) and asking only for the names of new states. A register automaton's
// proposal goes through the same checks (another spec, a smaller proposal), the same atomic write
// and the same removal of the proposal files under the proposal lock.
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

bool good_state_name(const std::string& name) {
    if (name.empty() || name.rfind("__", 0) == 0 || is_reserved(name)) return false;
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.' || c == '-';
        if (!ok) return false;
    }
    return true;
}

std::string word_text(const std::vector<std::string>& word) {
    if (word.empty()) return "(the initial state)";
    std::string out;
    for (const auto& s : word) out += (out.empty() ? "" : " ") + s;
    return out;
}

/// Per state, its shortest access word (breadth-first, inputs by name as `typestar diff` orders
/// them: callins and `wait`); empty for unreachable states.
std::vector<std::vector<std::string>> access_words(const Typestate& t) {
    std::vector<std::pair<std::string, std::optional<std::size_t>>> inputs;  // name, callin index (none: wait)
    for (std::size_t c = 0; c < t.callins.size(); ++c) inputs.emplace_back(t.callins[c], c);
    inputs.emplace_back(std::string(kWait), std::nullopt);
    std::sort(inputs.begin(), inputs.end());
    std::vector<std::vector<std::string>> words(t.states.size());
    std::vector<bool> seen(t.states.size(), false);
    std::vector<StateId> queue{t.initial};
    seen[t.initial] = true;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const StateId q = queue[head];
        const auto& st = t.states[q];
        for (const auto& [name, callin] : inputs) {
            std::optional<StateId> next;
            if (callin)
                next = st.callins[*callin];
            else if (st.callback)
                next = st.callback->target;
            else if (st.wait == Typestate::Wait::Quiet)
                next = st.quiet_target.value_or(q);
            if (!next || seen[*next]) continue;
            seen[*next] = true;
            words[*next] = words[q];
            words[*next].push_back(name);
            queue.push_back(*next);
        }
    }
    return words;
}

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

/// The accepted name of every state of `t` (the proposal): the stored name where the pairing of
/// `typestar diff` pairs it, else the one chosen with --name, else (--auto) the generated one. Exits 2
/// listing the new states without a name, or naming a bad or clashing choice.
std::vector<std::string> accepted_names(const AcceptArgs& o, const fs::path& spec_path, const fs::path& proposal_path,
                                        const Typestate& t, const std::optional<spec::Spec>& stored) {
    // Stored names for paired states (the pairing of `typestar diff`); new states are the rest.
    std::vector<std::string> final_names(t.states.size());
    std::map<std::string, StateId> index;
    for (StateId i = 0; i < t.states.size(); ++i) index[t.states[i].name] = i;
    if (stored) {
        for (const auto& pair : spec::pair_states(stored->typestate, t)) {
            const StateId i = index.at(pair.new_state);
            if (final_names[i].empty()) final_names[i] = pair.old_state;  // merged states: the first old name
        }
    }
    const std::vector<std::vector<std::string>> access = access_words(t);

    std::map<std::string, std::string> chosen;
    for (const auto& n : o.names) {
        const auto eq = n.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == n.size()) {
            print_error("--name " + n + ": expected --name NEW=Chosen (a state of the proposal, then its new name)");
            exit_with(kExitBadInput);
        }
        const std::string from = n.substr(0, eq), to = n.substr(eq + 1);
        const auto it = index.find(from);
        if (it == index.end()) {
            print_error("--name " + n + ": the proposal " + proposal_path.string() + " has no state '" + from + "'");
            exit_with(kExitBadInput);
        }
        if (!final_names[it->second].empty()) {
            print_error("--name " + n + ": '" + from + "' is the stored state '" + final_names[it->second] +
                        "' (same behaviour); stored names are kept");
            exit_with(kExitBadInput);
        }
        if (!good_state_name(to)) {
            print_error("--name " + n + ": '" + to + "' is not a state name ([A-Za-z0-9_.-], not starting with __, "
                        "not wait, quiet, ok or err)");
            exit_with(kExitBadInput);
        }
        chosen[from] = to;
    }
    std::vector<std::string> unnamed;
    for (StateId i = 0; i < t.states.size(); ++i) {
        if (!final_names[i].empty()) continue;
        const std::string& generated = t.states[i].name;
        if (const auto c = chosen.find(generated); c != chosen.end())
            final_names[i] = c->second;
        else if (o.keep_generated)
            final_names[i] = generated;
        else
            unnamed.push_back(generated);
    }
    if (!unnamed.empty()) {
        std::string text = "the proposal has " + std::to_string(unnamed.size()) + " new state" +
                           (unnamed.size() == 1 ? "" : "s") + " without a name; name " +
                           (unnamed.size() == 1 ? "it" : "them") + " with --name NEW=Chosen, or keep the generated " +
                           "name" + (unnamed.size() == 1 ? "" : "s") + " with --auto:";
        std::string example = "typestar accept " + spec_path.string();
        for (const auto& u : unnamed) {
            text += "\n  " + u + "  reached by: " + word_text(access[index.at(u)]);
            example += " --name " + u + "=...";
        }
        print_error(text + "\n  e.g. " + example);
        exit_with(kExitBadInput);
    }
    std::map<std::string, std::string> taken;
    for (StateId i = 0; i < t.states.size(); ++i) {
        const auto [it, fresh] = taken.emplace(final_names[i], t.states[i].name);
        if (!fresh) {
            print_error("two states would be named '" + final_names[i] + "' (proposal states '" + it->second +
                        "' and '" + t.states[i].name + "'): choose another name with --name");
            exit_with(kExitBadInput);
        }
    }
    return final_names;
}

/// A register automaton's proposal (checked by check_proposal): its locations keep the proposal's
/// names (register automata have no pairing of locations with the stored spec's), except those
/// chosen with --name.
void accept_register(const AcceptArgs& o, const fs::path& spec_path, const fs::path& proposal_path,
                     ra::RaSpec accepted, const std::string& bound_note) {
    auto& locations = accepted.automaton.locations;
    std::size_t renamed = 0;
    for (const auto& n : o.names) {
        const auto eq = n.find('=');
        const std::string from = eq == std::string::npos ? n : n.substr(0, eq);
        const std::string to = eq == std::string::npos ? std::string() : n.substr(eq + 1);
        const auto it = std::find_if(locations.begin(), locations.end(), [&](const auto& l) { return l.name == from; });
        if (eq == std::string::npos || from.empty() || to.empty()) {
            print_error("--name " + n + ": expected --name NEW=Chosen (a location of the proposal, then its new name)");
            exit_with(kExitBadInput);
        }
        if (it == locations.end()) {
            print_error("--name " + n + ": the proposal " + proposal_path.string() + " has no location '" + from + "'");
            exit_with(kExitBadInput);
        }
        if (!good_state_name(to) ||
            std::any_of(locations.begin(), locations.end(), [&](const auto& l) { return l.name == to; })) {
            print_error("--name " + n + ": '" + to + "' is not a free location name ([A-Za-z0-9_.-], not starting "
                        "with __, not a name the proposal already has)");
            exit_with(kExitBadInput);
        }
        it->name = to;
        ++renamed;
    }
    ra::save_register_spec(accepted, spec_path);  // atomic: the stored spec survives any failure
    std::string what = std::to_string(locations.size()) + " locations (the proposal's names" +
                       (renamed > 0 ? ", " + std::to_string(renamed) + " renamed" : std::string()) +
                       ": register automata have no pairing with the stored names)";
    report_accepted(spec_path, proposal_path, what, bound_note);
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
    const std::string bound_note =
        stored_document ? kind_of(proposal_document).bound_change(*stored_document, proposal_document) : std::string();
    // Naming the accepted states is the kind's own: a register automaton keeps the proposal's.
    if (proposal_document.automaton)
        return accept_register(o, spec_path, proposal_path, *proposal_document.automaton, bound_note);
    const spec::Spec& proposal = *proposal_document.spec;
    std::optional<spec::Spec> stored;
    if (stored_document) stored = stored_document->spec;
    const Typestate& t = proposal.typestate;
    const std::vector<std::string> final_names = accepted_names(o, spec_path, proposal_path, t, stored);

    spec::Spec accepted = proposal;
    std::size_t kept = 0, renamed = 0;
    for (StateId i = 0; i < t.states.size(); ++i) {
        if (stored && stored->typestate.find_state(final_names[i])) ++kept;
        if (final_names[i] != t.states[i].name) ++renamed;
        accepted.typestate.states[i].name = final_names[i];
    }
    if (!spec::same_behaviour(accepted, proposal))  // renaming only: a guard, never expected to fire
        throw typestar::Error("internal error: renaming the proposal's states changed its behaviour; nothing was written");
    spec::save_spec(accepted, spec_path);  // atomic: the stored spec survives any failure
    std::string what = std::to_string(accepted.typestate.states.size()) + " states (" + std::to_string(kept) +
                       " with their stored names, " + std::to_string(accepted.typestate.states.size() - kept) +
                       " new)" + (renamed > 0 ? ", " + std::to_string(renamed) + " renamed" : std::string());
    report_accepted(spec_path, proposal_path, what, bound_note);
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
