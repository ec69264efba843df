// `typestar accept`'s naming of an accepted proposal, per kind (SpecKind::accept): a typestate keeps
// the stored spec's state names (the pairing `typestar diff` uses) and asks only for the names of
// new states; a register automaton keeps the stored spec's location names where the product of both
// automata pairs the locations (ra::pair_locations), the proposal's elsewhere, and those chosen with
// --name.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kind_detail.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::detail {
namespace {

[[noreturn]] void refuse(const std::string& message) { throw std::invalid_argument(message); }

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

/// The accepted name of every state of `t` (the proposal): the stored name where the pairing of
/// `typestar diff` pairs it, else the one chosen with --name, else (--auto) the generated one. Throws
/// std::invalid_argument listing the new states without a name, or naming a bad or clashing choice.
std::vector<std::string> accepted_names(const AcceptNames& o, const std::string& proposal_path, const Typestate& t,
                                        const spec::Spec* stored) {
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
            refuse("--name " + n + ": expected --name NEW=Chosen (a state of the proposal, then its new name)");
        }
        const std::string from = n.substr(0, eq), to = n.substr(eq + 1);
        const auto it = index.find(from);
        if (it == index.end()) {
            refuse("--name " + n + ": the proposal " + proposal_path + " has no state '" + from + "'");
        }
        if (!final_names[it->second].empty()) {
            refuse("--name " + n + ": '" + from + "' is the stored state '" + final_names[it->second] +
                        "' (same behaviour); stored names are kept");
        }
        if (!good_state_name(to)) {
            refuse("--name " + n + ": '" + to + "' is not a state name ([A-Za-z0-9_.-], not starting with __, "
                        "not wait, quiet, ok or err)");
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
        std::string example = "typestar accept " + o.spec.string();
        for (const auto& u : unnamed) {
            text += "\n  " + u + "  reached by: " + word_text(access[index.at(u)]);
            example += " --name " + u + "=...";
        }
        refuse(text + "\n  e.g. " + example);
    }
    std::map<std::string, std::string> taken;
    for (StateId i = 0; i < t.states.size(); ++i) {
        const auto [it, fresh] = taken.emplace(final_names[i], t.states[i].name);
        if (!fresh) {
            refuse("two states would be named '" + final_names[i] + "' (proposal states '" + it->second +
                        "' and '" + t.states[i].name + "'): choose another name with --name");
        }
    }
    return final_names;
}

}  // namespace

AcceptedProposal accept_typestate(const Document* stored_document, const Document& proposal_document,
                                  const AcceptNames& o) {
    const spec::Spec* stored = stored_document != nullptr && stored_document->spec ? &*stored_document->spec : nullptr;
    const spec::Spec& proposal = *proposal_document.spec;
    const Typestate& t = proposal.typestate;
    const std::vector<std::string> final_names = accepted_names(o, proposal_document.path, t, stored);

    spec::Spec accepted = proposal;
    std::size_t kept = 0, renamed = 0;
    for (StateId i = 0; i < t.states.size(); ++i) {
        if (stored && stored->typestate.find_state(final_names[i])) ++kept;
        if (final_names[i] != t.states[i].name) ++renamed;
        accepted.typestate.states[i].name = final_names[i];
    }
    if (!spec::same_behaviour(accepted, proposal))  // renaming only: a guard, never expected to fire
        throw typestar::Error("internal error: renaming the proposal's states changed its behaviour; nothing was written");
    std::string what = std::to_string(accepted.typestate.states.size()) + " states (" + std::to_string(kept) +
                       " with their stored names, " + std::to_string(accepted.typestate.states.size() - kept) +
                       " new)" + (renamed > 0 ? ", " + std::to_string(renamed) + " renamed" : std::string());
    return {spec::write_spec(accepted), std::move(what)};
}

std::vector<bool> name_locations_like(const ra::RaSpec& stored, ra::RaSpec& proposal) {
    auto& locations = proposal.automaton.locations;
    std::vector<bool> kept(locations.size(), false);
    std::vector<std::optional<std::size_t>> pairs;
    try {
        pairs = ra::pair_locations(stored.automaton, proposal.automaton);
    } catch (const typestar::Error&) {
        return kept;  // a product past the RA limits: the proposal's names
    }
    // The stored name of each paired location, each stored name given once (to the proposal's first
    // location paired with it: a stored location the proposal split keeps its name on one of them).
    std::vector<std::string> names(locations.size());
    std::vector<bool> used(stored.automaton.locations.size(), false);
    for (std::size_t p = 0; p < locations.size(); ++p)
        if (pairs[p] && !used[*pairs[p]]) {
            used[*pairs[p]] = true;
            names[p] = stored.automaton.locations[*pairs[p]].name;
            kept[p] = true;
        }
    std::set<std::string> taken;
    for (std::size_t p = 0; p < locations.size(); ++p)
        if (kept[p]) taken.insert(names[p]);
    for (std::size_t p = 0; p < locations.size(); ++p) {
        if (kept[p]) continue;
        names[p] = locations[p].name;
        for (std::size_t n = locations.size(); taken.count(names[p]) > 0; ++n) names[p] = "l" + std::to_string(n);
        taken.insert(names[p]);
    }
    for (std::size_t p = 0; p < locations.size(); ++p) locations[p].name = names[p];
    return kept;
}

AcceptedProposal accept_register(const Document* stored_document, const Document& proposal, const AcceptNames& o) {
    ra::RaSpec accepted = *proposal.automaton;
    auto& locations = accepted.automaton.locations;
    std::vector<std::string> given;  // the proposal file's names, which --name refers to
    for (const auto& l : locations) given.push_back(l.name);
    const ra::RaSpec* stored =
        stored_document != nullptr && stored_document->automaton ? &*stored_document->automaton : nullptr;
    const std::vector<bool> kept = stored ? name_locations_like(*stored, accepted) : std::vector<bool>(locations.size());
    std::size_t renamed = 0;
    for (const auto& n : o.names) {
        const auto eq = n.find('=');
        const std::string from = eq == std::string::npos ? n : n.substr(0, eq);
        const std::string to = eq == std::string::npos ? std::string() : n.substr(eq + 1);
        if (eq == std::string::npos || from.empty() || to.empty())
            refuse("--name " + n + ": expected --name NEW=Chosen (a location of the proposal, then its new name)");
        const auto it = std::find(given.begin(), given.end(), from);
        if (it == given.end())
            refuse("--name " + n + ": the proposal " + proposal.path + " has no location '" + from + "'");
        const std::size_t i = static_cast<std::size_t>(it - given.begin());
        if (kept[i])
            refuse("--name " + n + ": '" + from + "' is the stored location '" + locations[i].name +
                   "' (same behaviour); stored names are kept");
        if (!good_state_name(to) ||
            std::any_of(locations.begin(), locations.end(), [&](const auto& l) { return l.name == to; }))
            refuse("--name " + n + ": '" + to + "' is not a free location name ([A-Za-z0-9_.-], not starting "
                   "with __, not a name the proposal already has)");
        locations[i].name = to;
        ++renamed;
    }
    std::size_t with_stored = 0;
    for (const bool k : kept) with_stored += k ? 1 : 0;
    std::string what = std::to_string(locations.size()) + " locations (";
    what += stored ? std::to_string(with_stored) + " with their stored names, " +
                         std::to_string(locations.size() - with_stored) + " new"
                   : std::string("the proposal's names");
    what += (renamed > 0 ? ", " + std::to_string(renamed) + " renamed" : std::string()) + ")";
    return {ra::write_register_spec(accepted), std::move(what)};
}

}  // namespace typestar::detail
