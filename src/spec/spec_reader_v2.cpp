// Version 2 of the spec format read by the one Reader (spec_reader_detail.hpp): callin declarations
// with signatures and partitions, the guards' checks, a state's 'unknown' callins, and the Mealy keys
// (`outputs`, `absorbing`, top-level `wait`) (docs/spec-format-v2.md).
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec_detail.hpp"
#include "spec_reader_detail.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec::detail {
namespace {

constexpr std::string_view kDeclarationKeys[] = {"role", "partitions"};
constexpr std::string_view kPartitionKeys[] = {"name", "guard", "values", "split_from", "split_by", "not_run", "from_code"};
constexpr std::string_view kUnknownKeys[] = {"source", "reason"};
constexpr std::string_view kTypes[] = {"int", "id", "object", "bytes", "string", "bool"};
constexpr std::string_view kRoles[] = {"client", "environment"};
constexpr std::string_view kSources[] = {"purpose", "unresolved", "disagreeing"};

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

}  // namespace

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

}  // namespace typestar::spec::detail
