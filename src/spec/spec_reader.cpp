// parse_spec: YAML text -> Spec, collecting every problem as a Diagnostic (docs/spec-format.md).
// yaml-cpp only builds the node tree; every check (including duplicate keys, which yaml-cpp 0.7
// accepts silently) is done here by iterating the nodes, so each message carries its own mark.
// The reader is one class (spec_reader_detail.hpp) in three parts: this file (the document, the top
// level, symbols and states), spec_reader_v2.cpp and spec_reader_sections.cpp.
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include "spec_detail.hpp"
#include "spec_reader_detail.hpp"
#include "typestar/core/error.hpp"
#include "typestar/spec/spec.hpp"
#include "yaml_tree.hpp"

namespace typestar::spec::detail {
namespace {

constexpr std::string_view kTopKeys[] = {"typestar", "name",   "callins", "callbacks",   "initial",
                                         "bounds",   "timing", "states",  "assumptions", "provenance",
                                         "kind",     "outputs", "absorbing", "wait"};
constexpr std::string_view kAnswerKeys[] = {"output", "to"};
constexpr std::string_view kStateKeys[] = {"callins", "callbacks", "quiet", "wait"};
constexpr std::string_view kStateKeysV2[] = {"callins", "callbacks", "quiet", "wait", "unknown"};

/// Whether a bare callin list item is a signature: `name(...)` whose parentheses are empty or hold a
/// parameter list (a `:` or a blank: `flush()`, `write(len: int)`, also a malformed `read(n int)`,
/// which the signature reader then names). Anything else with parentheses is a plain name, as the
/// inputs of protocol models are (`ACK(V,V,0)`, a Mealy machine's input).
bool looks_like_signature(const std::string& text) {
    const auto open = text.find('(');
    const auto close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) return open != std::string::npos;
    const std::string_view inside = std::string_view(text).substr(open + 1, close - open - 1);
    return inside.empty() || inside.find_first_of(": \t") != std::string_view::npos;
}

}  // namespace

/// What a node is, for "found a list" style messages.
std::string kind_of(const Node& node) {
    switch (node.Type()) {
        case YAML::NodeType::Null: return "nothing";
        case YAML::NodeType::Scalar: return "'" + node.Scalar() + "'";
        case YAML::NodeType::Sequence: return "a list";
        case YAML::NodeType::Map: return "a map";
        case YAML::NodeType::Undefined: break;
    }
    return "nothing";
}

std::string quoted_list(std::span<const std::string_view> words, std::string_view last_joiner) {
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) text += (i + 1 == words.size()) ? std::string(last_joiner) : std::string(", ");
        text += words[i];
    }
    return text;
}

std::vector<Entry> Reader::entries(const Node& map, std::string_view what, const std::string& where) {
    std::vector<Entry> result;
    // Key -> index in result. The views point into the node tree's own scalars, which live as long
    // as the document (not into result, whose strings move as it grows).
    std::map<std::string_view, std::size_t> seen;
    const std::vector<Node> children = map.children();
    for (std::size_t k = 0; k + 1 < children.size(); k += 2) {
        const Node& key = children[k];
        const Location at = location_of(key.Mark());
        if (!key.IsScalar() || key.Scalar().empty()) {
            error(at, "expected a name as " + std::string(what) + where + ", found " +
                          (key.IsScalar() ? std::string("an empty string") : kind_of(key)));
            continue;
        }
        if (const auto first = seen.find(key.Scalar()); first != seen.end()) {
            error(at, "duplicate " + std::string(what) + " '" + key.Scalar() + "'" + where +
                          " (first at line " + std::to_string(result[first->second].where.line) + ")");
            continue;
        }
        seen.emplace(key.Scalar(), result.size());
        result.push_back(Entry{key.Scalar(), at, children[k + 1]});
    }
    return result;
}

const Entry* Reader::find(const std::vector<Entry>& entries, std::string_view key) {
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.key == key; });
    return it == entries.end() ? nullptr : &*it;
}

void Reader::check_keys(const std::vector<Entry>& entries, std::span<const std::string_view> allowed,
                        const std::string& where, bool list_allowed) {
    for (const Entry& entry : entries) {
        if (std::find(allowed.begin(), allowed.end(), entry.key) != allowed.end()) continue;
        std::string message = "unknown key '" + entry.key + "'" + where;
        if (const auto suggestion = detail::did_you_mean(entry.key, allowed, &suggestions_)) {
            message += " (did you mean '" + *suggestion + "'?)";
        } else if (list_allowed) {
            message += " (expected " + quoted_list(allowed, " or ") + ")";
        }
        error(entry.where, std::move(message));
    }
}

std::optional<int> Reader::read_version(const Entry& entry) {
    const Node& node = entry.value;
    int version = 0;
    if (node.IsScalar()) {
        const std::string& text = node.Scalar();
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
        if (ec == std::errc() && end == text.data() + text.size()) return version;
    }
    error(node.IsNull() ? entry.where : location_of(node.Mark()),
          "format version must be an integer (this typestar reads 1 and 2), found " + kind_of(node));
    return std::nullopt;
}

void Reader::read_name(const Entry& entry, Typestate& typestate) {
    const Node& node = entry.value;
    if (!node.IsScalar() || node.Scalar().empty()) {
        error(node.IsScalar() || node.IsNull() ? entry.where : location_of(node.Mark()),
              "'name' must be a non-empty string, found " +
                  (node.IsScalar() ? std::string("an empty string") : kind_of(node)));
        return;
    }
    if (!detail::is_valid_spec_name(node.Scalar())) {
        error(node, "name '" + node.Scalar() + "' has characters outside [A-Za-z0-9_.-]");
        return;
    }
    typestate.name = node.Scalar();
}

std::vector<std::pair<std::string, Location>> Reader::read_symbols(const Entry& entry, std::string_view kind) {
    std::vector<std::pair<std::string, Location>> symbols;
    std::map<std::string, std::size_t, std::less<>> seen;  // name -> index in symbols
    const Node& node = entry.value;
    if (node.IsNull()) return symbols;  // `callins:` alone is the empty list
    if (!node.IsSequence()) {
        error(node, "'" + entry.key + "' must be a list of " + std::string(kind) + " names, found " + kind_of(node));
        return symbols;
    }
    std::map<std::string, Location, std::less<>> bases;  // declared callin names (v2 declarations)
    for (const Node& item : node.children()) {
        const Location at = location_of(item.Mark());
        const bool declaration = kind == "callin" && version_ >= 2 &&
                                 (item.IsMap() || (item.IsScalar() && looks_like_signature(item.Scalar())));
        if (declaration) {
            std::vector<std::pair<std::string, Location>> inputs;
            auto d = read_declaration(item, inputs);
            if (!d) continue;
            if (const auto same = bases.find(d->name); same != bases.end()) {
                error(at, "duplicate callin '" + d->name + "' (first at line " + std::to_string(same->second.line) + ")");
                continue;
            }
            bases.emplace(d->name, at);
            for (auto& [name, where] : inputs) {
                if (const auto same = seen.find(name); same != seen.end()) {
                    error(where, "duplicate callin '" + name + "' (first at line " +
                                     std::to_string(symbols[same->second].second.line) + ")");
                    continue;
                }
                seen.emplace(name, symbols.size());
                symbols.emplace_back(name, where);
            }
            const bool trivial = !d->parameters && d->partitions.empty() && !d->environment;
            if (!trivial) declarations_.push_back(std::move(*d));
            continue;
        }
        if (!item.IsScalar() || item.Scalar().empty()) {
            error(at.line > 0 ? at : location_of(node.Mark()),
                  std::string(kind) + " names must be non-empty strings, found " +
                      (item.IsScalar() ? std::string("an empty string") : kind_of(item)) + " in '" + entry.key + "'");
            continue;
        }
        const std::string& name = item.Scalar();
        if (is_reserved(name) && !(kind == "output" && name == kErr && err_is_output_)) {
            error(at, "reserved name '" + name + "' used as " + (kind == "output" ? "an " : "a ") + std::string(kind) +
                          (kind == "output" && name == kErr
                               ? " (err is absorbing unless the spec says 'absorbing: []')"
                               : " (wait, quiet, ok and err are reserved)"));
            continue;
        }
        if (const auto same = seen.find(name); same != seen.end()) {
            error(at, "duplicate " + std::string(kind) + " '" + name + "' (first at line " +
                          std::to_string(symbols[same->second].second.line) + ")");
            continue;
        }
        if (kind == "callin") {
            if (const auto same = bases.find(name); same != bases.end()) {
                error(at, "duplicate callin '" + name + "' (first at line " + std::to_string(same->second.line) + ")");
                continue;
            }
            bases.emplace(name, at);
        }
        seen.emplace(name, symbols.size());
        symbols.emplace_back(name, at);
    }
    return symbols;
}

std::optional<StateId> Reader::target(const Entry& entry, std::string_view what, const std::string& state) {
    const Node& node = entry.value;
    if (node.IsNull() || (node.IsScalar() && node.Scalar().empty())) {
        error(entry.where, std::string(what) + " in state '" + state + "' has no target state");
        return std::nullopt;
    }
    if (!node.IsScalar()) {
        error(node, "target of " + std::string(what) + " in state '" + state + "' must be a state name, found " +
                        kind_of(node));
        return std::nullopt;
    }
    const auto it = state_ids_.find(node.Scalar());
    if (it != state_ids_.end()) return it->second;
    std::string message = "unknown target state '" + node.Scalar() + "' of " + std::string(what) + " in state '" +
                          state + "'";
    if (const auto suggestion = detail::did_you_mean(node.Scalar(), state_names_, &suggestions_)) {
        message += " (did you mean '" + *suggestion + "'?)";
    }
    error(node, std::move(message));
    return std::nullopt;
}

void Reader::read_symbol_map(const Entry& entry, const std::string& state, bool callins, Typestate& typestate,
                             SourceMap& source, std::vector<Entry>& enabled) {
    const std::string_view kind = callins ? "callin" : "callback";
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'" + entry.key + "' of state '" + state + "' must be a map from " + std::string(kind) +
                        " to target state, found " + kind_of(node));
        return;
    }
    const auto& declared = callins ? callins_ : callbacks_;
    const auto& other = callins ? callbacks_ : callins_;
    for (const Entry& item : entries(node, kind, " in state '" + state + "'")) {
        const auto it = declared.find(item.key);
        if (it == declared.end()) {
            if (is_reserved(item.key)) {
                error(item.where, "reserved name '" + item.key + "' used as a " + std::string(kind) + " in state '" +
                                      state + "'");
            } else if (other.contains(item.key)) {
                error(item.where, std::string(callins ? "callback" : "callin") + " '" + item.key +
                                      "' listed under '" + entry.key + "' in state '" + state + "'");
            } else if (callins) {
                error(item.where, undeclared_input(item.key, state));
            } else {
                error(item.where, "undeclared " + std::string(kind) + " '" + item.key + "' in state '" + state + "'");
            }
            continue;
        }
        std::optional<std::size_t> answer;  // a named output (Mealy devices, v2)
        std::optional<StateId> to;
        if (callins && item.value.IsMap() && version_ >= 2) {
            const auto parts = entries(item.value, "key", " of callin '" + item.key + "' in state '" + state + "'");
            check_keys(parts, kAnswerKeys, " of callin '" + item.key + "' in state '" + state + "'", true);
            if (const Entry* o = find(parts, "output")) {
                const std::string name = o->value.IsScalar() ? o->value.Scalar() : std::string();
                if (const auto k = outputs_.find(name); k != outputs_.end()) {
                    answer = k->second;
                } else if (name != kOk) {
                    error(o->value.IsNull() ? o->where : location_of(o->value.Mark()),
                          "undeclared output '" + name + "' of callin '" + item.key + "' in state '" + state +
                              "' (declare it in the top-level 'outputs' list)");
                }
            }
            if (const Entry* t = find(parts, "to")) to = target(*t, std::string(kind) + " '" + item.key + "'", state);
            else error(item.where, "callin '" + item.key + "' in state '" + state + "' has no target state ('to')");
        } else {
            to = target(item, std::string(kind) + " '" + item.key + "'", state);
        }
        enabled.push_back(item);
        source.transitions[{state, item.key}] = item.where;
        if (!to) continue;
        auto& def = typestate.states[state_ids_.at(state)];
        if (callins) {
            def.callins[it->second.first] = *to;
            if (answer) def.answers[it->second.first] = *answer;
        } else if (!def.callback) {
            def.callback = Typestate::CallbackEdge{it->second.first, *to};
        }
    }
}

void Reader::read_state(const Entry& entry, StateId id, Typestate& typestate, SourceMap& source) {
    const std::string& state = entry.key;
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "state '" + state + "' must be a map with keys callins, callbacks, quiet, wait, found " +
                        kind_of(node));
        return;
    }
    const std::string where = " in state '" + state + "'";
    const auto items = entries(node, "key", where);
    if (version_ >= 2) {
        check_keys(items, kStateKeysV2, where, true);
    } else {
        std::vector<Entry> others;
        for (const Entry& e : items) {
            if (e.key == "unknown") error(e.where, "'unknown' in state '" + state + "' needs 'typestar: 2'" + std::string(kNeedsV2));
            else others.push_back(e);
        }
        check_keys(others, kStateKeys, where, true);
    }

    std::vector<Entry> enabled_callins;
    std::vector<Entry> enabled_callbacks;
    if (const Entry* e = find(items, "callins")) read_symbol_map(*e, state, true, typestate, source, enabled_callins);
    if (const Entry* e = find(items, "unknown"); e != nullptr && version_ >= 2)
        read_unknown(*e, state, typestate, source, enabled_callins);
    if (const Entry* e = find(items, "callbacks")) {
        read_symbol_map(*e, state, false, typestate, source, enabled_callbacks);
        if (enabled_callbacks.size() >= 2) {
            std::string names;
            for (std::size_t i = 0; i < enabled_callbacks.size(); ++i) {
                if (i > 0) names += (i + 1 == enabled_callbacks.size()) ? " and " : ", ";
                names += "'" + enabled_callbacks[i].key + "'";
            }
            const std::string count =
                enabled_callbacks.size() == 2 ? std::string("two") : std::to_string(enabled_callbacks.size());
            error(enabled_callbacks[1].where, "non-determinism (DroidStar Assumption 3): state '" + state +
                                                  "' enables " + count + " callbacks " + names);
        }
    }
    const bool has_callback = !enabled_callbacks.empty();
    auto& def = typestate.states[id];
    if (no_wait_) {
        for (const std::string_view key : {"callbacks", "quiet", "wait"})
            if (const Entry* e = find(items, key))
                error(e->where, "'" + std::string(key) + "' in state '" + state +
                                    "': the spec says 'wait: false' (no callbacks, no quiescence input)");
    }

    const Entry* quiet = find(items, "quiet");
    const Entry* wait = find(items, "wait");
    bool wait_err = false;
    if (wait != nullptr) {
        const Node& value = wait->value;
        if (value.IsScalar() && (value.Scalar() == kErr || value.Scalar() == kQuiet)) {
            wait_err = value.Scalar() == kErr;
            source.transitions[{state, std::string(kWait)}] = wait->where;
            if (has_callback) {
                error(wait->where, "state '" + state + "' has a callback, which 'wait' delivers; 'wait: " +
                                       value.Scalar() + "' is not allowed there");
            } else if (wait_err) {
                def.wait = Typestate::Wait::Err;
            }
        } else {
            error(value.IsNull() ? wait->where : location_of(value.Mark()),
                  "'wait' of state '" + state + "' must be 'err' or 'quiet', found " + kind_of(value));
        }
    }
    if (quiet != nullptr) {
        const auto to = target(*quiet, "'quiet'", state);
        source.transitions[{state, std::string(kWait)}] = quiet->where;
        if (has_callback) {
            error(quiet->where, "state '" + state + "' has a callback, which 'wait' delivers; 'quiet' is not allowed there");
        } else if (wait_err) {
            error(wait->where.line > quiet->where.line ? wait->where : quiet->where,
                  "state '" + state + "' has both 'quiet' and 'wait: err'");
        } else if (to && *to != id) {
            def.quiet_target = *to;
        }
    }
}

Node Reader::read_document(const std::string& text, DocumentScan& documents) {
    Node root;
    try {
        // Count documents (at most two) before building nodes. yaml-cpp 0.7's LoadAll loops forever,
        // allocating, on a stray top-level ',' (yaml-cpp issue #1040, fixed upstream by PR #1319):
        // a document starting where the previous one started is that bug, reported as malformed.
        std::istringstream stream(text);
        YAML::Parser parser(stream);
        while (documents.starts.size() < 2 && parser.HandleNextDocument(documents)) {
            const auto& starts = documents.starts;
            if (starts.size() == 2 && starts[0].pos == starts[1].pos) {
                const auto pos = static_cast<std::size_t>(starts[1].pos);
                error(location_of(starts[1]), "malformed YAML: unexpected '" +
                                                  (pos < text.size() ? text.substr(pos, 1) : std::string()) + "'");
                fail();
            }
        }
        if (documents.starts.size() > 1) {
            error(location_of(documents.starts[1]), "expected one YAML document, found a second one");
        }
        root = Node(documents.root);
    } catch (const AliasProblem& e) {
        diagnostics_.clear();
        error(location_of(e.mark), e.message);
        fail();
    } catch (const YAML::DeepRecursion& e) {
        error(location_of(e.mark), "malformed YAML: nested too deeply (" + std::to_string(e.depth()) + " levels)");
        fail();
    } catch (const YAML::Exception& e) {
        diagnostics_.clear();
        error(location_of(e.mark), "malformed YAML: " + e.msg);
        fail();
    }
    if (!root.IsDefined() || root.IsNull()) {  // no document, or an empty one
        error(Location{1, 1}, "empty spec: expected a map with keys typestar, name, callins, callbacks, initial, states");
        fail();
    }
    if (!root.IsMap()) {
        error(root, "expected a map of spec keys at the top level, found " + kind_of(root));
        fail();
    }
    return root;
}

void Reader::read_header(const std::vector<Entry>& top, const Node& root) {
    // An unsupported version makes every other key meaningless: report it alone.
    if (const Entry* e = find(top, "typestar")) {
        if (const auto version = read_version(*e); version && (*version < 1 || *version > kLatestFormatVersion)) {
            diagnostics_.clear();
            error(e->value, "unsupported format version " + std::to_string(*version) + " (this typestar reads 1 and 2)");
            fail();
        } else if (version) {
            version_ = *version;
        }
    }
    // A register automaton has its own reader: say so alone (its keys mean nothing here).
    if (const Entry* e = find(top, "kind")) {
        const std::string kind = e->value.IsScalar() ? e->value.Scalar() : std::string();
        if (kind == "register-automaton") {
            diagnostics_.clear();
            error(e->value, "this spec is a register automaton (kind: register-automaton): use load_register_spec "
                            "(typestar/ra), not load_spec, to read it");
            fail();
        }
        if (kind != "typestate") {
            error(e->value.IsNull() ? e->where : location_of(e->value.Mark()),
                  "'kind' must be typestate or register-automaton, found " + kind_of(e->value));
        } else if (version_ < 2) {
            error(e->where, "'kind' needs 'typestar: 2'" + std::string(kNeedsV2));
        }
    }
    check_keys(top, kTopKeys, " at the top level", false);
    for (const std::string_view key : {"typestar", "name", "callins", "callbacks", "initial", "states"}) {
        if (find(top, key) == nullptr) {
            std::string message = "missing required key '" + std::string(key) + "'";
            if (key == "typestar") message += " (the format version; this typestar reads 1 and 2)";
            error(root, std::move(message));
        }
    }
}

void Reader::read_alphabet(const std::vector<Entry>& top, Spec& spec) {
    Typestate& typestate = spec.typestate;
    if (const Entry* e = find(top, "name")) read_name(*e, typestate);
    std::vector<std::pair<std::string, Location>> callins;
    std::vector<std::pair<std::string, Location>> callbacks;
    if (const Entry* e = find(top, "callins")) callins = read_symbols(*e, "callin");
    if (const Entry* e = find(top, "callbacks")) callbacks = read_symbols(*e, "callback");
    read_mealy_keys(top, typestate, !callbacks.empty());
    // Version 2: inputs are indexed by name (the canonical order); the file's order of callins and
    // partitions is kept in the declarations. Version 1 keeps the file's order, as it always did.
    if (version_ >= 2)
        std::stable_sort(callins.begin(), callins.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [name, at] : callins) {
        callins_.emplace(name, std::pair{typestate.callins.size(), at});
        typestate.callins.push_back(name);
    }
    for (const auto& [name, at] : callbacks) {
        if (const auto it = callins_.find(name); it != callins_.end()) {
            error(at, "'" + name + "' is declared both as a callin (line " + std::to_string(it->second.second.line) +
                          ") and as a callback");
            continue;
        }
        callbacks_.emplace(name, std::pair{typestate.callbacks.size(), at});
        typestate.callbacks.push_back(name);
    }
    std::sort(declarations_.begin(), declarations_.end(),
              [](const CallinDeclaration& a, const CallinDeclaration& b) { return a.name < b.name; });
    spec.declarations = declarations_;
    typestate.input_info = input_info_of(declarations_);
}

std::vector<Entry> Reader::read_state_names(const Entry* states) {
    std::vector<Entry> state_entries;
    if (states != nullptr) {
        const Node& node = states->value;
        if (node.IsMap()) {
            for (Entry& e : entries(node, "state", "")) {
                if (e.key == kErrorSinkName) {
                    error(e.where, "state name '" + e.key + "' is reserved for the error sink");
                    continue;
                }
                state_ids_.emplace(e.key, static_cast<StateId>(state_entries.size()));
                state_entries.push_back(std::move(e));
            }
        } else if (!node.IsNull()) {
            error(node, "'states' must be a map from state name to definition, found " + kind_of(node));
        }
        if (node.IsNull() || (node.IsMap() && node.size() == 0)) {
            error(node.IsNull() ? states->where : location_of(node.Mark()),
                  "'states' defines no state (at least one is required)");
        }
    }
    return state_entries;
}

void Reader::make_states(const Entry* states, const std::vector<Entry>& state_entries, Spec& spec) {
    Typestate& typestate = spec.typestate;
    // The table every state gets: refuse a declared size that would exhaust memory, before allocating.
    if (const std::size_t columns = typestate.callins.size() + 1;
        !state_entries.empty() && state_entries.size() > limits_.max_transitions / columns) {
        error(states->where, "the spec declares " + std::to_string(state_entries.size()) + " states and " +
                                 std::to_string(typestate.callins.size()) + " callins: " +
                                 std::to_string(state_entries.size()) + " x " + std::to_string(columns) +
                                 " transitions exceed the limit of " + std::to_string(limits_.max_transitions) +
                                 " (set TYPESTAR_MAX_TRANSITIONS to allow more)");
        fail();
    }
    typestate.states.resize(state_entries.size());
    for (std::size_t i = 0; i < state_entries.size(); ++i) {
        auto& def = typestate.states[i];
        def.name = state_entries[i].key;
        def.callins.assign(typestate.callins.size(), std::nullopt);
        spec.source.states[def.name] = state_entries[i].where;
    }
}

void Reader::check_answers_given(const std::vector<Entry>& state_entries, const Typestate& typestate) {
    // `absorbing: []`: err is an output like any other, so no callin is refused by leaving it out.
    for (std::size_t i = 0; i < state_entries.size() && err_is_output_; ++i) {
        const auto& def = typestate.states[i];
        std::vector<std::string> missing;
        for (std::size_t c = 0; c < typestate.callins.size(); ++c)
            if (!def.callins[c] && !def.unknown.contains(c)) missing.push_back(typestate.callins[c]);
        if (missing.empty()) continue;
        std::string names;
        for (std::size_t k = 0; k < missing.size() && k < 10; ++k) names += (k ? ", " : "") + missing[k];
        if (missing.size() > 10) names += " and " + std::to_string(missing.size() - 10) + " more";
        error(state_entries[i].where, "state '" + def.name + "' does not give the answer of " + names +
                                          " (the spec says 'absorbing: []', so err is an output like any other and "
                                          "every callin needs {output: ..., to: ...})");
    }
}

void Reader::read_initial(const Entry& entry, bool has_states, Typestate& typestate) {
    const Node& node = entry.value;
    if (!node.IsScalar() || node.Scalar().empty()) {
        error(node.IsNull() || node.IsScalar() ? entry.where : location_of(node.Mark()),
              "'initial' must be a state name, found " +
                  (node.IsScalar() ? std::string("an empty string") : kind_of(node)));
    } else if (const auto it = state_ids_.find(node.Scalar()); it != state_ids_.end()) {
        typestate.initial = it->second;
    } else if (has_states) {
        std::string message = "initial state '" + node.Scalar() + "' is not defined in 'states'";
        if (const auto suggestion = detail::did_you_mean(node.Scalar(), state_names_, &suggestions_)) {
            message += " (did you mean '" + *suggestion + "'?)";
        }
        error(node, std::move(message));
    }
}

Spec Reader::read(const std::string& text) {
    Spec spec;
    spec.source.file = file_;
    // The first document's nodes; outlives every Node handle the reader makes (Reader::read only).
    DocumentScan documents(4 * text.size() + (std::size_t{1} << 20));
    const Node root = read_document(text, documents);

    const auto top = entries(root, "top-level key", "");
    read_header(top, root);
    read_alphabet(top, spec);
    if (const Entry* e = find(top, "bounds")) read_bounds(*e, spec.bounds);
    if (const Entry* e = find(top, "timing")) read_timing(*e, spec.timing);
    if (const Entry* e = find(top, "assumptions")) read_assumptions(*e, spec.assumptions);

    const Entry* states = find(top, "states");
    const std::vector<Entry> state_entries = read_state_names(states);
    for (const Entry& e : state_entries) state_names_.push_back(e.key);  // state_entries is final now
    make_states(states, state_entries, spec);
    for (std::size_t i = 0; i < state_entries.size(); ++i) {
        read_state(state_entries[i], static_cast<StateId>(i), spec.typestate, spec.source);
    }
    check_answers_given(state_entries, spec.typestate);
    if (const Entry* e = find(top, "initial")) read_initial(*e, !state_entries.empty(), spec.typestate);
    if (const Entry* e = find(top, "provenance")) read_provenance(*e, spec.provenance);

    if (!diagnostics_.empty()) fail();
    return spec;
}

void Reader::fail() {
    std::stable_sort(diagnostics_.begin(), diagnostics_.end(), [](const Diagnostic& a, const Diagnostic& b) {
        return std::pair{a.line, a.column} < std::pair{b.line, b.column};
    });
    detail::throw_spec_error(std::move(diagnostics_));
}

}  // namespace typestar::spec::detail

namespace typestar::spec {

Spec parse_spec(const std::string& text, const std::string& file, const ReadLimits& limits) {
    if (auto d = detail::size_diagnostic(text.size(), file, limits)) detail::throw_spec_error({*d});
    try {
        return detail::Reader(file, limits).read(text);
    } catch (const SpecError&) {
        throw;
    } catch (const YAML::Exception& e) {
        // yaml-cpp failing after parsing (should not happen: we never convert nodes).
        detail::throw_spec_error({Diagnostic{file, detail::location_of(e.mark).line, detail::location_of(e.mark).column,
                                             "malformed YAML: " + e.msg}});
    }
}

}  // namespace typestar::spec
