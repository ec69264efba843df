// Partition guards (docs/spec-format-v2.md, "Guards"): a partition's `guard:` read as an expression
// of the one guard language (typestar/core/guard.hpp) over the callin's declared parameters, and
// evaluated on the printed argument tuples of its values.
#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "spec_detail.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {
namespace {

std::string trim(std::string_view text) {
    const auto b = text.find_first_not_of(' ');
    if (b == std::string_view::npos) return {};
    const auto e = text.find_last_not_of(' ');
    return std::string(text.substr(b, e - b + 1));
}

/// A decimal integer (`-12`, `7`), the whole text; nullopt otherwise.
std::optional<std::int64_t> decimal(const std::string& text) {
    std::int64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [at, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || at != end || text.empty() || text[0] == '+') return std::nullopt;
    return v;
}

bool comparable(const std::string& type) { return type == "int" || type == "id"; }

/// A callin's parameters, looked up by name: built once per declaration.
struct ParameterIndex {
    explicit ParameterIndex(const std::optional<std::vector<Parameter>>& parameters) : list(parameters) {
        if (!parameters) return;
        for (std::size_t i = 0; i < parameters->size(); ++i) {
            names.push_back((*parameters)[i].name);
            index.emplace((*parameters)[i].name, i);
        }
    }
    const std::optional<std::vector<Parameter>>& list;
    std::vector<std::string_view> names;
    std::map<std::string, std::size_t, std::less<>> index;  // name -> parameter index
};

PartitionGuard read_guard(const std::string& guard, const ParameterIndex& parameters,
                          detail::SuggestionBudget* budget);

}  // namespace

PartitionGuard partition_guard(const std::string& guard, const std::optional<std::vector<Parameter>>& parameters) {
    detail::SuggestionBudget budget;
    return detail::partition_guard(guard, parameters, &budget);
}

std::vector<GuardProblem> partition_guard_problems(const CallinDeclaration& d, std::size_t max_checks) {
    detail::SuggestionBudget budget;
    return detail::partition_guard_problems(d, max_checks, &budget);
}

PartitionGuard detail::partition_guard(const std::string& guard,
                                       const std::optional<std::vector<Parameter>>& parameters,
                                       SuggestionBudget* budget) {
    return read_guard(guard, ParameterIndex(parameters), budget);
}

namespace {

PartitionGuard read_guard(const std::string& guard, const ParameterIndex& at, detail::SuggestionBudget* budget) {
    PartitionGuard out;
    const auto& parameters = at.list;
    if (!parameters) return out;
    const auto names = guard_names(guard);
    if (!names) return out;  // words: not an expression of the language
    const auto& declared = at.names;
    const auto& index = at.index;
    bool words = false;
    for (const auto& name : *names) {
        if (index.count(name) != 0) continue;
        if (const auto near = detail::did_you_mean(name, declared, budget)) {
            out.error = "unknown parameter '" + name + "' (did you mean '" + *near + "'?)";
            return out;
        }
        words = true;  // a name that is no parameter and no near miss of one: a description
    }
    if (words) return out;
    const TermResolver resolve = [&](const std::string& name) -> std::optional<Term> {
        const auto it = index.find(name);
        if (it == index.end()) return std::nullopt;
        return Term{Term::Kind::Param, it->second};
    };
    auto parsed = parse_guard(guard, resolve);
    if (auto* e = std::get_if<GuardSyntaxError>(&parsed)) {  // guard_names parsed it: not expected
        out.error = e->message;
        return out;
    }
    Guard g = std::get<Guard>(std::move(parsed));
    for (const auto& conj : g.disjuncts)
        for (const auto& atom : conj)
            for (const Term* t : {&atom.left, &atom.right}) {
                if (t->kind != Term::Kind::Param) continue;
                const Parameter& p = (*parameters)[t->index];
                if (!comparable(p.type)) {
                    out.error = "parameter '" + p.name + "' of type " + p.type +
                                " in an expression (guards compare int and id parameters; write other guards in words)";
                    return out;
                }
                if (p.type == "id" && atom.op != Op::Eq && atom.op != Op::Ne) {
                    out.error = "'" + std::string(op_text(atom.op)) + "' on parameter '" + p.name +
                                "' of type id (ids compare with == and != only)";
                    return out;
                }
                if (p.type == "id" && t->offset != 0) {
                    out.error = "'+ c' on parameter '" + p.name + "' of type id";
                    return out;
                }
            }
    out.expression = std::move(g);
    return out;
}

}  // namespace

std::variant<bool, std::string> guard_holds(const Guard& guard, const std::vector<Parameter>& parameters,
                                            const std::string& value) {
    const bool reads_parameters = std::any_of(guard.disjuncts.begin(), guard.disjuncts.end(), [](const auto& conj) {
        return std::any_of(conj.begin(), conj.end(), [](const Atom& a) {
            return a.left.kind == Term::Kind::Param || a.right.kind == Term::Kind::Param;
        });
    });
    if (!reads_parameters)  // `true`, `1 < 2`: no argument to read
        return evaluate_guard(guard, [](const Term& t) -> std::int64_t { return t.literal; });
    std::vector<std::string> fields;
    if (parameters.size() == 1) {
        fields.push_back(trim(value));
    } else {
        std::size_t start = 0;
        while (true) {
            const auto comma = value.find(',', start);
            fields.push_back(trim(std::string_view(value).substr(start, comma == std::string::npos ? std::string::npos
                                                                                                   : comma - start)));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        if (fields.size() != parameters.size())
            return "it has " + std::to_string(fields.size()) + " comma-separated fields for " +
                   std::to_string(parameters.size()) + " parameters";
    }
    std::vector<std::int64_t> values(parameters.size(), 0);
    for (const auto& conj : guard.disjuncts)
        for (const auto& atom : conj)
            for (const Term* t : {&atom.left, &atom.right}) {
                if (t->kind != Term::Kind::Param) continue;
                const auto v = t->index < fields.size() ? decimal(fields[t->index]) : std::nullopt;
                if (!v)
                    return "'" + (t->index < fields.size() ? fields[t->index] : std::string()) +
                           "' is not an integer for parameter '" + parameters.at(t->index).name + "'";
                values[t->index] = *v;
            }
    return evaluate_guard(guard, [&](const Term& t) -> std::int64_t {
        return t.kind == Term::Kind::Literal ? t.literal : values.at(t.index);
    });
}

std::vector<GuardProblem> detail::partition_guard_problems(const CallinDeclaration& d, std::size_t max_checks,
                                                           SuggestionBudget* budget) {
    std::vector<GuardProblem> out;
    if (d.partitions.empty()) return out;
    // The callin as messages name it: its signature, shortened when it is long (a hostile file).
    const std::string sig = d.signature().size() <= 200 ? d.signature()
                                                         : d.name + "(… " + std::to_string(d.parameters ? d.parameters->size() : 0) +
                                                               " parameters)";
    const ParameterIndex parameters(d.parameters);
    std::vector<std::optional<Guard>> guards;
    for (std::size_t k = 0; k < d.partitions.size(); ++k) {
        const Partition& p = d.partitions[k];
        PartitionGuard g = read_guard(p.guard, parameters, budget);
        if (!g.error.empty())
            out.push_back({k, std::nullopt,
                           "guard \"" + p.guard + "\" of partition '" + p.name + "' of " + sig + ": " + g.error});
        guards.push_back(std::move(g.expression));
    }
    // Disjointness costs (expression guards) x (values): bounded by the caller.
    const auto checked = static_cast<std::size_t>(
        std::count_if(guards.begin(), guards.end(), [](const auto& g) { return g.has_value(); }));
    std::size_t listed = 0;
    for (const Partition& p : d.partitions) listed += p.values.size() + p.not_run.size() + p.from_code.size();
    if (checked == 0) return out;  // every guard is words: nothing to evaluate
    if (listed > max_checks / checked) {
        out.push_back({0, std::string(),
                       "the partitions of " + sig + " list " + std::to_string(listed) + " values against " +
                           std::to_string(checked) +
                           " guards that are expressions: more checks than TYPESTAR_MAX_TRANSITIONS (" +
                           std::to_string(max_checks) + ") allows"});
        return out;
    }
    for (std::size_t k = 0; k < d.partitions.size(); ++k) {
        const Partition& p = d.partitions[k];
        // Every value the partition lists (values, not_run, from_code), each once, in sorted order.
        std::set<std::string> listed_values(p.values.begin(), p.values.end());
        listed_values.insert(p.not_run.begin(), p.not_run.end());
        listed_values.insert(p.from_code.begin(), p.from_code.end());
        for (const std::string& v : listed_values) {
            const auto ours = [&] { return "value '" + v + "' of partition '" + p.name + "' of " + sig; };
            for (std::size_t o = 0; o < d.partitions.size(); ++o) {
                if (!guards[o]) continue;
                const auto holds = guard_holds(*guards[o], *d.parameters, v);
                const auto theirs = [&] {
                    return "partition '" + d.partitions[o].name + "' (guard \"" + d.partitions[o].guard + "\")";
                };
                if (const auto* why = std::get_if<std::string>(&holds)) {
                    out.push_back({k, v, ours() + " cannot be checked against the guard of " + theirs() + ": " + *why});
                    break;  // one message per value: the others' guards cannot read it either
                }
                if (o == k && !std::get<bool>(holds))
                    out.push_back({k, v, ours() + " does not satisfy its guard \"" + p.guard + "\""});
                else if (o != k && std::get<bool>(holds))
                    out.push_back({k, v, ours() + " satisfies the guard of " + theirs() +
                                             " too: the partitions of a callin must be disjoint"});
            }
        }
    }
    return out;
}

}  // namespace typestar::spec
