// parse_spec: YAML text -> Spec, collecting every problem as a Diagnostic (docs/spec-format.md).
// yaml-cpp only builds the node tree; every check (including duplicate keys, which yaml-cpp 0.7
// accepts silently) is done here by iterating the nodes, so each message carries its own mark.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec_detail.hpp"
#include "typestar/core/error.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {
namespace {

constexpr std::string_view kTopKeys[] = {"typestar", "name",   "callins", "callbacks",   "initial",
                                         "bounds",   "timing", "states",  "assumptions", "provenance",
                                         "kind",     "outputs", "absorbing", "wait"};
constexpr std::string_view kAnswerKeys[] = {"output", "to"};
constexpr std::string_view kDeclarationKeys[] = {"role", "partitions"};
constexpr std::string_view kPartitionKeys[] = {"name", "guard", "values", "split_from", "split_by", "not_run", "from_code"};
constexpr std::string_view kUnknownKeys[] = {"source", "reason"};
constexpr std::string_view kTypes[] = {"int", "id", "object", "bytes", "string", "bool"};
constexpr std::string_view kRoles[] = {"client", "environment"};
constexpr std::string_view kSources[] = {"purpose", "unresolved", "disagreeing"};
/// What a file reading version 1 says when it meets a version-2 construct.
constexpr std::string_view kNeedsV2 = " (this file says 'typestar: 1')";

/// True for partition names: [A-Za-z0-9_.=<>!-]+ (docs/spec-format-v2.md).
bool is_partition_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("_.=<>!-").find(c) != std::string_view::npos;
    });
}

bool is_identifier(std::string_view name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

std::string trimmed(std::string_view text) {
    const auto b = text.find_first_not_of(' ');
    if (b == std::string_view::npos) return {};
    const auto e = text.find_last_not_of(' ');
    return std::string(text.substr(b, e - b + 1));
}
constexpr std::string_view kAssumptionKeys[] = {"quiet_is_stable"};
constexpr std::string_view kStateKeys[] = {"callins", "callbacks", "quiet", "wait"};
constexpr std::string_view kStateKeysV2[] = {"callins", "callbacks", "quiet", "wait", "unknown"};
constexpr std::string_view kBoundsKeys[] = {"distinguisher", "states"};
constexpr std::string_view kTimingKeys[] = {"tmax_ms", "tmin_ms"};
constexpr std::string_view kProvenanceKeys[] = {"tool", "device", "framework", "explored", "timing", "stats"};

/// One node of the document, built from the parser's events (DocumentScan). yaml-cpp's own node
/// tree would cost a second parse of the text and a shared_ptr per node; this one is built in the
/// pass that measures aliases. An alias is a pointer to the node it names, as in yaml-cpp.
struct TreeNode {
    YAML::NodeType::value type = YAML::NodeType::Null;
    YAML::Mark mark;
    std::string scalar;
    std::vector<const TreeNode*> items;  // a sequence's items; a map's keys and values, alternating
};

/// A read-only handle with the part of Node's interface the reader uses; a default handle is
/// an undefined node (an empty document).
class Node {
public:
    Node() = default;
    explicit Node(const TreeNode* node) : node_(node) {}
    [[nodiscard]] YAML::NodeType::value Type() const { return node_ ? node_->type : YAML::NodeType::Undefined; }
    [[nodiscard]] bool IsDefined() const { return node_ != nullptr; }
    [[nodiscard]] bool IsNull() const { return Type() == YAML::NodeType::Null; }
    [[nodiscard]] bool IsScalar() const { return Type() == YAML::NodeType::Scalar; }
    [[nodiscard]] bool IsSequence() const { return Type() == YAML::NodeType::Sequence; }
    [[nodiscard]] bool IsMap() const { return Type() == YAML::NodeType::Map; }
    [[nodiscard]] const std::string& Scalar() const {
        static const std::string kEmpty;
        return node_ ? node_->scalar : kEmpty;
    }
    [[nodiscard]] YAML::Mark Mark() const { return node_ ? node_->mark : YAML::Mark::null_mark(); }
    /// A sequence's items, or a map's keys and values alternating.
    [[nodiscard]] std::vector<Node> children() const {
        std::vector<Node> out;
        if (node_ != nullptr) {
            out.reserve(node_->items.size());
            for (const TreeNode* item : node_->items) out.emplace_back(item);
        }
        return out;
    }
    /// Entries of a map, items of a sequence.
    [[nodiscard]] std::size_t size() const {
        if (node_ == nullptr) return 0;
        return IsMap() ? node_->items.size() / 2 : node_->items.size();
    }

private:
    const TreeNode* node_ = nullptr;
};

Location location_of(const YAML::Mark& mark) {
    if (mark.is_null() || mark.line < 0) return {};
    return {mark.line + 1, mark.column + 1};
}

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

/// One key of a map: its text, where it is, and its value.
struct Entry {
    std::string key;
    Location where;
    Node value;
};

class Reader {
public:
    Reader(std::string file, const ReadLimits& limits) : file_(std::move(file)), limits_(limits) {}

    Spec read(const std::string& text);

private:
    void error(Location where, std::string message) {
        diagnostics_.push_back(Diagnostic{file_, where.line, where.column, std::move(message)});
    }
    void error(const Node& at, std::string message) {
        error(location_of(at.Mark()), std::move(message));
    }

    /// The entries of `map` with distinct keys, in file order. Reports non-name keys and
    /// duplicates (`what` names the kind of key, e.g. "key", "state"; `where` the map, e.g.
    /// " in state 'Idle'"). Keys that are not names are dropped.
    std::vector<Entry> entries(const Node& map, std::string_view what, const std::string& where);
    /// Reports keys of `entries` not in `allowed`, with a did-you-mean.
    void check_keys(const std::vector<Entry>& entries, std::span<const std::string_view> allowed,
                    const std::string& where, bool list_allowed);
    static const Entry* find(const std::vector<Entry>& entries, std::string_view key);

    std::optional<int> read_version(const Entry& entry);
    void read_name(const Entry& entry, Typestate& typestate);
    /// Reads a symbol list; `kind` is "callin" or "callback".
    std::vector<std::pair<std::string, Location>> read_symbols(const Entry& entry, std::string_view kind);
    /// Reads one v2 callin declaration (`item` a map of one signature to details, or a signature
    /// scalar); appends its abstract inputs to `symbols`. nullopt (reported) when malformed.
    std::optional<CallinDeclaration> read_declaration(const Node& item, std::vector<std::pair<std::string, Location>>& inputs);
    /// Parses `name(p: type, ...)` or `name`; reports at `at`.
    std::optional<CallinDeclaration> read_signature(const std::string& text, Location at);
    void read_partitions(const Node& node, CallinDeclaration& declaration,
                         std::vector<std::pair<std::string, Location>>& inputs);
    /// Where a partition's parts were written, for the guard checks' messages.
    struct PartitionPlaces {
        Location name;
        Location guard;
        std::map<std::string, Location> values{};  // first place of each listed value
    };
    /// The guards of `declaration`'s partitions that are expressions (docs/spec-format-v2.md,
    /// "Guards"): each well formed, satisfied by every value its partition lists, and satisfied by
    /// no value another partition lists.
    void check_partition_guards(const CallinDeclaration& declaration, const std::vector<PartitionPlaces>& places);
    void read_unknown(const Entry& entry, const std::string& state, Typestate& typestate, SourceMap& source,
                      const std::vector<Entry>& enabled);
    /// "undeclared callin 'x' in state 'S'", with a hint when `x` names a partitioned callin or
    /// a partition that does not exist.
    std::string undeclared_input(const std::string& input, const std::string& state) const;
    void read_bounds(const Entry& entry, Bounds& bounds);
    void read_timing(const Entry& entry, Timing& timing);
    void read_assumptions(const Entry& entry, Assumptions& assumptions);
    void read_provenance(const Entry& entry, Provenance& provenance);
    std::optional<std::size_t> read_count(const Entry& entry, std::string_view what, std::size_t minimum);
    std::optional<double> read_milliseconds(const Entry& entry);
    std::optional<std::string> read_string(const Entry& entry, std::string_view what);

    /// Resolves a target state name; reports and returns nullopt when it is not a state.
    std::optional<StateId> target(const Entry& entry, std::string_view what, const std::string& state);
    void read_state(const Entry& entry, StateId id, Typestate& typestate, SourceMap& source);
    /// Reads the Mealy keys of v2 (`outputs`, `absorbing`, top-level `wait`) into `typestate`.
    void read_mealy_keys(const std::vector<Entry>& top, Typestate& typestate, bool has_callbacks);
    void read_symbol_map(const Entry& entry, const std::string& state, bool callins,
                         Typestate& typestate, SourceMap& source, std::vector<Entry>& enabled);

    /// Throws every diagnostic collected so far, in file order.
    [[noreturn]] void fail();

    std::string file_;
    ReadLimits limits_;
    detail::SuggestionBudget suggestions_;
    std::vector<Diagnostic> diagnostics_;
    // Declared symbols: name -> (index, location) for callins and callbacks.
    std::map<std::string, std::pair<std::size_t, Location>, std::less<>> callins_;
    std::map<std::string, std::pair<std::size_t, Location>, std::less<>> callbacks_;
    /// Named callin outputs (Mealy devices, v2 `outputs:`): name -> index.
    std::map<std::string, std::size_t, std::less<>> outputs_;
    /// `err` may be a named output (v2 `absorbing: []`).
    bool err_is_output_ = false;
    /// v2 `wait: false`: no quiescence input, so no callbacks, `quiet` or `wait` in a state.
    bool no_wait_ = false;
    std::map<std::string, StateId, std::less<>> state_ids_;
    int version_ = kFormatVersion;
    std::vector<CallinDeclaration> declarations_;
    std::vector<std::string_view> state_names_;  // views into the state entries' keys, for did-you-mean
};

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

std::optional<CallinDeclaration> Reader::read_signature(const std::string& text, Location at) {
    CallinDeclaration d;
    const auto open = text.find('(');
    if (open == std::string::npos) {
        d.name = text;
    } else {
        d.name = trimmed(std::string_view(text).substr(0, open));
        if (text.back() != ')') {
            error(at, "malformed callin signature '" + text + "': expected name(param: type, ...)");
            return std::nullopt;
        }
        d.parameters.emplace();
        const std::string inside = text.substr(open + 1, text.size() - open - 2);
        std::set<std::string, std::less<>> names;
        if (!trimmed(inside).empty()) {
            std::size_t start = 0;
            while (start <= inside.size()) {
                const auto comma = std::min(inside.find(',', start), inside.size());
                const std::string part = inside.substr(start, comma - start);
                start = comma + 1;
                const auto colon = part.find(':');
                const std::string pname = trimmed(std::string_view(part).substr(0, std::min(colon, part.size())));
                std::string ptype = colon == std::string::npos ? std::string() : trimmed(std::string_view(part).substr(colon + 1));
                // `len: int partition`: how the parameter is treated (docs/spec-format-v2.md, "Guards")
                std::optional<Abstraction> abstraction;
                if (const auto space = ptype.find(' '); space != std::string::npos && is_identifier(pname)) {
                    const std::string word = trimmed(std::string_view(ptype).substr(space + 1));
                    ptype.resize(space);
                    abstraction = abstraction_named(word);
                    if (!abstraction) {
                        error(at, "unknown treatment '" + word + "' of parameter '" + pname + "' in signature '" + text +
                                      "' (expected 'partition' or 'data' after the type)");
                        return std::nullopt;
                    }
                    if (*abstraction == Abstraction::Data) {
                        error(at, "parameter '" + pname + "' in signature '" + text +
                                      "' is kept as data ('data'), but a typestate abstracts every parameter by its "
                                      "callin's partitions: write 'partition' (or nothing), or write the spec as a "
                                      "register automaton (kind: register-automaton)");
                        return std::nullopt;
                    }
                }
                if (!is_identifier(pname) || colon == std::string::npos) {
                    error(at, "malformed parameter '" + trimmed(part) + "' in signature '" + text +
                                  "': expected name: type");
                    return std::nullopt;
                }
                if (std::find(std::begin(kTypes), std::end(kTypes), ptype) == std::end(kTypes)) {
                    error(at, "unknown type '" + ptype + "' of parameter '" + pname + "' in signature '" + text +
                                  "' (expected " + quoted_list(kTypes, " or ") + ")");
                    return std::nullopt;
                }
                if (!names.insert(pname).second) {
                    error(at, "duplicate parameter '" + pname + "' in signature '" + text + "'");
                    return std::nullopt;
                }
                d.parameters->push_back(Parameter{pname, ptype, abstraction});
                if (comma == inside.size()) break;
            }
        }
    }
    if (d.name.empty() || d.name.find_first_of("()[]") != std::string::npos) {
        error(at, "malformed callin signature '" + text + "': the name must be non-empty, without ( ) [ ]");
        return std::nullopt;
    }
    if (is_reserved(d.name)) {
        error(at, "reserved name '" + d.name + "' used as a callin (wait, quiet, ok and err are reserved)");
        return std::nullopt;
    }
    return d;
}

std::optional<CallinDeclaration> Reader::read_declaration(const Node& item,
                                                          std::vector<std::pair<std::string, Location>>& inputs) {
    const Location at = location_of(item.Mark());
    if (item.IsScalar()) {
        auto d = read_signature(item.Scalar(), at);
        if (d) inputs.emplace_back(d->name, at);
        return d;
    }
    const auto items = entries(item, "callin signature", " in 'callins'");
    if (items.size() != 1) {
        error(at, "a callin declaration is a map of one signature to its details, found " +
                      std::to_string(items.size()) + " entries");
        return std::nullopt;
    }
    const Entry& e = items.front();
    auto d = read_signature(e.key, e.where);
    if (!d) return std::nullopt;
    const std::string where = " in the declaration of callin '" + d->name + "'";
    if (!e.value.IsNull()) {
        if (!e.value.IsMap()) {
            error(e.value, "details of callin '" + d->name + "' must be a map with keys role, partitions, found " +
                               kind_of(e.value));
            return std::nullopt;
        }
        const auto details = entries(e.value, "key", where);
        check_keys(details, kDeclarationKeys, where, true);
        if (const Entry* r = find(details, "role")) {
            const std::string role = r->value.IsScalar() ? r->value.Scalar() : std::string();
            if (std::find(std::begin(kRoles), std::end(kRoles), role) == std::end(kRoles)) {
                error(r->value.IsNull() ? r->where : location_of(r->value.Mark()),
                      "role of callin '" + d->name + "' must be client or environment, found " + kind_of(r->value));
            } else {
                d->environment = role == "environment";
            }
        }
        if (const Entry* p = find(details, "partitions")) read_partitions(p->value, *d, inputs);
    }
    if (d->partitions.empty()) inputs.emplace_back(d->name, e.where);
    return d;
}

void Reader::read_partitions(const Node& node, CallinDeclaration& d,
                             std::vector<std::pair<std::string, Location>>& inputs) {
    if (node.IsNull()) return;
    if (!node.IsSequence()) {
        error(node, "'partitions' of callin '" + d.name + "' must be a list of {name, guard, values}, found " +
                        kind_of(node));
        return;
    }
    std::map<std::string, int, std::less<>> lines;
    std::vector<PartitionPlaces> places;  // one per partition read, in d.partitions' order
    for (const Node& item : node.children()) {
        if (!item.IsMap()) {
            error(item, "a partition of callin '" + d.name + "' must be a map like {name: empty, guard: \"len == 0\"}, found " +
                            kind_of(item));
            continue;
        }
        const std::string where = " in a partition of callin '" + d.name + "'";
        const auto keys = entries(item, "key", where);
        check_keys(keys, kPartitionKeys, where, true);
        Partition p;
        const Entry* name = find(keys, "name");
        if (name == nullptr) {
            error(item, "partition of callin '" + d.name + "' has no 'name'");
            continue;
        }
        // A plain `null`, `true`, `1` are scalars to this reader (the tree keeps their text).
        if (!name->value.IsScalar() || !is_partition_name(name->value.Scalar())) {
            error(name->value.IsNull() ? name->where : location_of(name->value.Mark()),
                  "bad partition name " + kind_of(name->value) + " of callin '" + d.name +
                      "' (expected characters from [A-Za-z0-9_.=<>!-])");
            continue;
        }
        p.name = name->value.Scalar();
        const Location at = location_of(name->value.Mark());
        if (const auto same = lines.find(p.name); same != lines.end()) {
            error(at, "duplicate partition '" + p.name + "' of callin '" + d.name + "' (first at line " +
                          std::to_string(same->second) + ")");
            continue;
        }
        lines.emplace(p.name, at.line);
        PartitionPlaces at_places{at, {}};
        if (const Entry* g = find(keys, "guard")) {
            p.guard = read_string(*g, "partition").value_or("");
            at_places.guard = g->value.IsNull() ? g->where : location_of(g->value.Mark());
        }
        for (const auto& [key, list] : {std::pair{"values", &p.values}, std::pair{"not_run", &p.not_run},
                                          std::pair{"from_code", &p.from_code}}) {
            const Entry* v = find(keys, key);
            if (v == nullptr) continue;
            if (v->value.IsSequence()) {
                for (const Node& value : v->value.children()) {
                    if (value.IsScalar()) {
                        list->push_back(value.Scalar());
                        at_places.values.emplace(value.Scalar(), location_of(value.Mark()));
                    }
                    else error(value, "partition values must be strings, found " + kind_of(value));
                }
                std::sort(list->begin(), list->end());
                list->erase(std::unique(list->begin(), list->end()), list->end());
            } else if (!v->value.IsNull()) {
                error(v->value, "'" + std::string(key) + "' of partition '" + p.name +
                                    "' must be a list of strings, found " + kind_of(v->value));
            }
        }
        if (const Entry* f = find(keys, "split_from")) {
            p.split_from = read_string(*f, "partition").value_or("");
            if (!is_partition_name(p.split_from))
                error(f->value.IsNull() ? f->where : location_of(f->value.Mark()),
                      "'split_from' of partition '" + p.name + "' must be a partition name, found " + kind_of(f->value));
        }
        if (const Entry* b = find(keys, "split_by")) p.split_by = read_string(*b, "partition").value_or("");
        inputs.emplace_back(abstract_input(d.name, p.name), at);
        d.partitions.push_back(std::move(p));
        places.push_back(std::move(at_places));
    }
    check_partition_guards(d, places);
}

void Reader::check_partition_guards(const CallinDeclaration& d, const std::vector<PartitionPlaces>& places) {
    for (const GuardProblem& problem : detail::partition_guard_problems(d, limits_.max_transitions, &suggestions_)) {
        const PartitionPlaces& at = places.at(problem.partition);
        Location where = problem.value ? at.name : at.guard;
        if (problem.value)
            if (const auto it = at.values.find(*problem.value); it != at.values.end()) where = it->second;
        error(where, problem.message);
    }
}

std::string Reader::undeclared_input(const std::string& input, const std::string& state) const {
    std::string message = "undeclared callin '" + input + "' in state '" + state + "'";
    const auto bracket = input.find('[');
    const std::string base = input.substr(0, bracket);
    for (const auto& d : declarations_) {
        if (d.name != base || d.partitions.empty()) continue;
        std::string names;
        for (const auto& p : d.partitions) names += (names.empty() ? "" : ", ") + abstract_input(d.name, p.name);
        if (bracket == std::string::npos) return message + " (callin '" + base + "' has partitions: " + names + ")";
        return "undeclared abstract input '" + input + "' in state '" + state + "' (callin '" + base +
               "' has partitions: " + names + ")";
    }
    return message;
}

void Reader::read_unknown(const Entry& entry, const std::string& state, Typestate& typestate, SourceMap& source,
                          const std::vector<Entry>& enabled) {
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'unknown' of state '" + state + "' must be a map from callin to {source, reason}, found " +
                        kind_of(node));
        return;
    }
    for (const Entry& item : entries(node, "callin", " in 'unknown' of state '" + state + "'")) {
        const auto it = callins_.find(item.key);
        if (it == callins_.end()) {
            error(item.where, callbacks_.contains(item.key) || item.key == kWait
                                  ? "'" + item.key + "' in 'unknown' of state '" + state +
                                        "': only callins can be unknown"
                                  : undeclared_input(item.key, state));
            continue;
        }
        if (const Entry* legal = find(enabled, item.key)) {
            error(item.where, "callin '" + item.key + "' of state '" + state +
                                  "' is both under 'callins' (line " + std::to_string(legal->where.line) +
                                  ") and under 'unknown'");
            continue;
        }
        if (!item.value.IsMap()) {
            error(item.value.IsNull() ? item.where : location_of(item.value.Mark()),
                  "unknown callin '" + item.key + "' of state '" + state +
                      "' must be a map like {source: purpose, reason: \"...\"}, found " + kind_of(item.value));
            continue;
        }
        const std::string where = " of unknown callin '" + item.key + "' in state '" + state + "'";
        const auto keys = entries(item.value, "key", where);
        check_keys(keys, kUnknownKeys, where, true);
        Unknown u;
        const Entry* src = find(keys, "source");
        if (src == nullptr) {
            error(item.value, "missing 'source'" + where + " (expected " + quoted_list(kSources, " or ") + ")");
            continue;
        }
        const auto parsed = src->value.IsScalar() ? parse_unknown_source(src->value.Scalar()) : std::nullopt;
        if (!parsed) {
            error(src->value.IsNull() ? src->where : location_of(src->value.Mark()),
                  "bad source " + kind_of(src->value) + where + " (expected " + quoted_list(kSources, ", ") + ")");
            continue;
        }
        u.source = *parsed;
        if (const Entry* r = find(keys, "reason")) u.reason = read_string(*r, "unknown").value_or("");
        source.transitions[{state, item.key}] = item.where;
        typestate.states[state_ids_.at(state)].unknown[it->second.first] = std::move(u);
    }
}

std::optional<std::size_t> Reader::read_count(const Entry& entry, std::string_view what, std::size_t minimum) {
    const Node& node = entry.value;
    const std::string expectation = minimum == 0 ? "a non-negative integer" : "a positive integer";
    if (node.IsScalar()) {
        const std::string& text = node.Scalar();
        std::size_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (digits && ec == std::errc::result_out_of_range) {
            error(node, std::string(what) + " is too large: '" + text + "'");
            return std::nullopt;
        }
        if (digits && ec == std::errc() && end == text.data() + text.size() && value >= minimum) return value;
    }
    error(node.IsNull() ? entry.where : location_of(node.Mark()),
          std::string(what) + " must be " + expectation + ", found " + kind_of(node));
    return std::nullopt;
}

std::optional<double> Reader::read_milliseconds(const Entry& entry) {
    const Node& node = entry.value;
    if (node.IsScalar()) {
        const std::string& text = node.Scalar();
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(value) && value >= 0) {
            return value == 0 ? 0.0 : value;  // "-0" is 0 (and written as 0)
        }
    }
    error(node.IsNull() ? entry.where : location_of(node.Mark()),
          "timing '" + entry.key + "' must be a non-negative number of milliseconds, found " + kind_of(node));
    return std::nullopt;
}

std::optional<std::string> Reader::read_string(const Entry& entry, std::string_view what) {
    const Node& node = entry.value;
    if (node.IsScalar()) return node.Scalar();
    if (node.IsNull()) return std::string();
    error(node, std::string(what) + " '" + entry.key + "' must be a string, found " + kind_of(node));
    return std::nullopt;
}

void Reader::read_bounds(const Entry& entry, Bounds& bounds) {
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'bounds' must be a map like {distinguisher: 2, states: 10}, found " + kind_of(node));
        return;
    }
    const auto items = entries(node, "key", " in 'bounds'");
    check_keys(items, kBoundsKeys, " in 'bounds'", true);
    if (const Entry* e = find(items, "distinguisher")) {
        if (auto v = read_count(*e, "bound 'distinguisher'", 0)) bounds.distinguisher = *v;
    }
    if (const Entry* e = find(items, "states")) {
        if (auto v = read_count(*e, "bound 'states'", 1)) bounds.states = *v;
    }
    // DroidStar Theorem 4.3: a state bound k implies the distinguisher bound k - 1.
    if (bounds.states && find(items, "distinguisher") == nullptr)
        bounds.distinguisher = std::max<std::size_t>(1, *bounds.states - 1);
}

void Reader::read_timing(const Entry& entry, Timing& timing) {
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'timing' must be a map like {tmax_ms: 100, tmin_ms: 5}, found " + kind_of(node));
        return;
    }
    const auto items = entries(node, "key", " in 'timing'");
    check_keys(items, kTimingKeys, " in 'timing'", true);
    const Entry* tmax = find(items, "tmax_ms");
    const Entry* tmin = find(items, "tmin_ms");
    if (tmax != nullptr) timing.tmax_ms = read_milliseconds(*tmax);
    if (tmin != nullptr) timing.tmin_ms = read_milliseconds(*tmin);
    if (timing.tmax_ms && timing.tmin_ms && *timing.tmin_ms > *timing.tmax_ms) {
        error(tmin->value, "timing 'tmin_ms' (" + tmin->value.Scalar() + ") exceeds 'tmax_ms' (" +
                               tmax->value.Scalar() + ")");
    }
}

void Reader::read_assumptions(const Entry& entry, Assumptions& assumptions) {
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'assumptions' must be a map like {quiet_is_stable: true}, found " + kind_of(node));
        return;
    }
    const auto items = entries(node, "key", " in 'assumptions'");
    check_keys(items, kAssumptionKeys, " in 'assumptions'", true);
    if (const Entry* e = find(items, "quiet_is_stable")) {
        const std::string text = e->value.IsScalar() ? e->value.Scalar() : std::string();
        if (e->value.IsScalar() && (text == "true" || text == "false"))
            assumptions.quiet_is_stable = text == "true";
        else
            error(e->value, "assumption 'quiet_is_stable' must be true or false, found " +
                                (e->value.IsScalar() ? "'" + text + "'" : kind_of(e->value)));
    }
}

void Reader::read_provenance(const Entry& entry, Provenance& provenance) {
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'provenance' must be a map with keys tool, device, framework, explored, timing, stats, found " + kind_of(node));
        return;
    }
    const auto items = entries(node, "key", " in 'provenance'");
    check_keys(items, kProvenanceKeys, " in 'provenance'", true);
    if (const Entry* e = find(items, "tool")) provenance.tool = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "device")) provenance.device = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "framework")) provenance.framework = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "explored")) provenance.explored = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "timing")) provenance.timing = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "stats")) {
        if (e->value.IsNull()) return;
        if (!e->value.IsMap()) {
            error(e->value, "provenance 'stats' must be a map from name to value, found " + kind_of(e->value));
            return;
        }
        for (const Entry& stat : entries(e->value, "statistic", " in provenance 'stats'")) {
            if (auto v = read_string(stat, "statistic")) provenance.stats[stat.key] = *v;
        }
    }
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

void Reader::read_mealy_keys(const std::vector<Entry>& top, Typestate& typestate, bool has_callbacks) {
    auto needs_v2 = [&](const Entry& e) {
        if (version_ >= 2) return false;
        error(e.where, "'" + e.key + "' needs 'typestar: 2'" + std::string(kNeedsV2));
        return true;
    };
    if (const Entry* e = find(top, "absorbing"); e != nullptr && !needs_v2(*e)) {
        const Node& node = e->value;
        bool good = node.IsSequence() && node.size() <= 1;
        if (good && node.size() == 1) good = node.children()[0].IsScalar() && node.children()[0].Scalar() == kErr;
        if (!good) error(node.IsNull() ? e->where : location_of(node.Mark()),
                         "'absorbing' must be [err] (the default) or [] (err is an output like any other), found " +
                             kind_of(node));
        else if (node.size() == 0) err_is_output_ = true;
        typestate.err_absorbing = !err_is_output_;
    }
    if (const Entry* e = find(top, "wait"); e != nullptr && !needs_v2(*e)) {
        const Node& node = e->value;
        if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "false")) {
            no_wait_ = node.Scalar() == "false";
            typestate.has_wait = !no_wait_;
            if (no_wait_ && has_callbacks)
                error(e->where, "'wait: false' (no quiescence input) with callbacks declared: callbacks need 'wait'");
        } else {
            error(node.IsNull() ? e->where : location_of(node.Mark()),
                  "top-level 'wait' must be true or false, found " + kind_of(node));
        }
    }
    if (const Entry* e = find(top, "outputs"); e != nullptr && !needs_v2(*e)) {
        for (auto& [name, at] : read_symbols(*e, "output")) {
            outputs_.emplace(name, typestate.outputs.size());
            typestate.outputs.push_back(name);
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

/// Thrown by DocumentScan for aliases the reader refuses; becomes one diagnostic.
struct AliasProblem {
    YAML::Mark mark;
    std::string message;
};

/// One pass over the parser's events before any node is built: records where documents start,
/// and measures each document with every alias expanded (yaml-cpp shares an aliased node, but the
/// reader walks it once per alias, and messages quote its scalars). Over `limit` units (a node
/// counts 1, a scalar 1 plus its length) it throws AliasProblem, as it does for an alias inside the
/// node it names, so reading stays linear in the text.
class DocumentScan : public YAML::EventHandler {
public:
    explicit DocumentScan(std::size_t limit) : limit_(limit) {}

    std::vector<YAML::Mark> starts;
    /// The first document's root (null before any document, or for an empty one).
    const TreeNode* root = nullptr;

    void OnDocumentStart(const YAML::Mark& mark) override {
        starts.push_back(mark);
        sizes_.clear();
        nodes_by_anchor_.clear();
        open_.clear();
        parents_.clear();
        expanded_ = 0;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        leaf(mark, anchor, 1, make(YAML::NodeType::Null, mark, {}));
    }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        const auto it = sizes_.find(anchor);
        if (it == sizes_.end()) throw AliasProblem{mark, "alias inside the node it refers to (a recursive alias)"};
        add(mark, it->second);
        attach(building() ? nodes_by_anchor_.at(anchor) : nullptr);
    }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  const std::string& value) override {
        leaf(mark, anchor, 1 + value.size(), make(YAML::NodeType::Scalar, mark, value));
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(mark, anchor, make(YAML::NodeType::Sequence, mark, {}));
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(mark, anchor, make(YAML::NodeType::Map, mark, {}));
    }
    void OnMapEnd() override { close(); }

private:
    void add(const YAML::Mark& mark, std::size_t units) {
        expanded_ += units;
        if (expanded_ > limit_) {
            throw AliasProblem{mark, "YAML aliases expand the document beyond " + std::to_string(limit_) +
                                         " units (4 times its size plus 1 MiB): refused as an alias bomb; "
                                         "write the repeated parts out or use fewer aliases"};
        }
    }
    /// Nodes are kept for the first document only; later ones are only measured.
    [[nodiscard]] bool building() const { return starts.size() == 1; }
    TreeNode* make(YAML::NodeType::value type, const YAML::Mark& mark, const std::string& scalar) {
        if (!building()) return nullptr;
        TreeNode& node = arena_.emplace_back();
        node.type = type;
        node.mark = mark;
        node.scalar = scalar;
        return &node;
    }
    /// Adds `node` to the open collection, or makes it the root.
    void attach(const TreeNode* node) {
        if (!building()) return;
        if (parents_.empty()) {
            if (root == nullptr) root = node;
        } else {
            parents_.back()->items.push_back(node);
        }
    }
    void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, std::size_t units, TreeNode* node) {
        add(mark, units);
        if (anchor != YAML::NullAnchor) {
            sizes_[anchor] = units;
            nodes_by_anchor_[anchor] = node;
        }
        attach(node);
    }
    void open(const YAML::Mark& mark, YAML::anchor_t anchor, TreeNode* node) {
        add(mark, 1);
        attach(node);
        open_.emplace_back(anchor, expanded_ - 1);
        parents_.push_back(node);
        if (anchor != YAML::NullAnchor) nodes_by_anchor_[anchor] = node;
    }
    void close() {
        if (open_.empty()) return;
        const auto [anchor, start] = open_.back();
        open_.pop_back();
        parents_.pop_back();
        if (anchor != YAML::NullAnchor) sizes_[anchor] = expanded_ - start;
    }

    std::size_t limit_;
    std::size_t expanded_ = 0;
    std::map<YAML::anchor_t, std::size_t> sizes_;                  // closed anchors -> expanded size
    std::map<YAML::anchor_t, const TreeNode*> nodes_by_anchor_;    // anchors -> their node (first document)
    std::vector<std::pair<YAML::anchor_t, std::size_t>> open_;     // open collections: anchor, start
    std::vector<TreeNode*> parents_;                               // open collections' nodes
    std::deque<TreeNode> arena_;                                   // stable addresses
};

Spec Reader::read(const std::string& text) {
    Spec spec;
    spec.source.file = file_;
    Node root;
    // The first document's nodes; outlives every Node handle the reader makes (Reader::read only).
    DocumentScan documents(4 * text.size() + (std::size_t{1} << 20));
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

    const auto top = entries(root, "top-level key", "");
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
    if (const Entry* e = find(top, "bounds")) read_bounds(*e, spec.bounds);
    if (const Entry* e = find(top, "timing")) read_timing(*e, spec.timing);
    if (const Entry* e = find(top, "assumptions")) read_assumptions(*e, spec.assumptions);

    const Entry* states = find(top, "states");
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
    for (const Entry& e : state_entries) state_names_.push_back(e.key);  // state_entries is final now
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
    for (std::size_t i = 0; i < state_entries.size(); ++i) {
        read_state(state_entries[i], static_cast<StateId>(i), typestate, spec.source);
    }
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

    if (const Entry* e = find(top, "initial")) {
        const Node& node = e->value;
        if (!node.IsScalar() || node.Scalar().empty()) {
            error(node.IsNull() || node.IsScalar() ? e->where : location_of(node.Mark()),
                  "'initial' must be a state name, found " +
                      (node.IsScalar() ? std::string("an empty string") : kind_of(node)));
        } else if (const auto it = state_ids_.find(node.Scalar()); it != state_ids_.end()) {
            typestate.initial = it->second;
        } else if (!state_entries.empty()) {
            std::string message = "initial state '" + node.Scalar() + "' is not defined in 'states'";
            if (const auto suggestion = detail::did_you_mean(node.Scalar(), state_names_, &suggestions_)) {
                message += " (did you mean '" + *suggestion + "'?)";
            }
            error(node, std::move(message));
        }
    }
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

}  // namespace

Spec parse_spec(const std::string& text, const std::string& file, const ReadLimits& limits) {
    if (auto d = detail::size_diagnostic(text.size(), file, limits)) detail::throw_spec_error({*d});
    try {
        return Reader(file, limits).read(text);
    } catch (const SpecError&) {
        throw;
    } catch (const YAML::Exception& e) {
        // yaml-cpp failing after parsing (should not happen: we never convert nodes).
        detail::throw_spec_error({Diagnostic{file, location_of(e.mark).line, location_of(e.mark).column,
                                             "malformed YAML: " + e.msg}});
    }
}

}  // namespace typestar::spec
