// The v2 `kind: register-automaton` YAML reader and writer, and DOT pictures.
#include "typestar/ra/format.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <fstream>
#include <regex>
#include <sstream>

#include "../spec/spec_detail.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::ra {
namespace {

constexpr std::size_t kMaxTransitions = std::size_t{1} << 20;

bool valid_name(const std::string& s) {
    static const std::regex re("[A-Za-z_][A-Za-z0-9_.-]*");
    return std::regex_match(s, re);
}

std::optional<Value> parse_integer(const std::string& s) {
    if (s.empty()) return std::nullopt;
    std::size_t i = (s[0] == '-') ? 1 : 0;
    if (i == s.size()) return std::nullopt;
    for (std::size_t j = i; j < s.size(); ++j)
        if (!std::isdigit(static_cast<unsigned char>(s[j]))) return std::nullopt;
    try {
        return std::stoll(s);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

/// Completes `types` (one entry per register of each location, nullopt when not known) with the
/// types the assignments imply, to a fixpoint: the reader's inference, which the writer mirrors to
/// know which registers need a written type.
void infer_register_types(const RegisterAutomaton& ra, std::vector<std::vector<std::optional<DataType>>>& types) {
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t li = 0; li < ra.locations.size(); ++li)
            for (const auto& tr : ra.locations[li].transitions)
                for (std::size_t r = 0; r < tr.assign.size(); ++r) {
                    const Term& src = tr.assign[r];
                    std::optional<DataType> ty;
                    if (src.kind == Term::Kind::Param) ty = ra.inputs[tr.input].params[src.index].type;
                    else if (src.kind == Term::Kind::Register) ty = types[li][src.index];
                    else if (src.kind == Term::Kind::Constant) ty = ra.constants[src.index].type;
                    else if (src.kind == Term::Kind::OutputParam) ty = ra.outputs[tr.output].params[src.index].type;
                    if (ty && !types[tr.target][r]) {
                        types[tr.target][r] = ty;
                        changed = true;
                    }
                }
    }
}

/// `name(p: type, q: type)` or `name(p, q)` or `name`.
struct Signature {
    std::string name;
    std::vector<std::pair<std::string, std::string>> params;  // name, type ("" when not given)
};

/// `name + c` or `name - c` (the +c theory's terms), as an output argument or assignment source.
bool is_offset_term(const std::string& text) {
    const auto op = text.find_first_of("+-");
    if (op == std::string::npos || op == 0) return false;
    std::string name = text.substr(0, op), number = text.substr(op + 1);
    auto trim = [](std::string& x) {
        const auto b = x.find_first_not_of(" \t");
        const auto e = x.find_last_not_of(" \t");
        x = b == std::string::npos ? std::string() : x.substr(b, e - b + 1);
    };
    trim(name);
    trim(number);
    return valid_name(name) && !number.empty() &&
           std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<Signature> parse_signature(std::string text, std::string& error) {
    auto trim = [](std::string s) {
        const auto b = s.find_first_not_of(" \t");
        const auto e = s.find_last_not_of(" \t");
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    text = trim(text);
    Signature sig;
    const auto open = text.find('(');
    if (open == std::string::npos) {
        sig.name = text;
    } else {
        if (text.back() != ')') {
            error = "signature '" + text + "' does not end with ')'";
            return std::nullopt;
        }
        sig.name = trim(text.substr(0, open));
        const std::string inner = text.substr(open + 1, text.size() - open - 2);
        if (!trim(inner).empty()) {
            std::stringstream ss(inner);
            std::string part;
            while (std::getline(ss, part, ',')) {
                const auto colon = part.find(':');
                std::string pname = trim(colon == std::string::npos ? part : part.substr(0, colon));
                std::string ptype = colon == std::string::npos ? "" : trim(part.substr(colon + 1));
                // an output's argument may be a literal or a `+c` term (`r + 1`)
                if (!valid_name(pname) && !parse_integer(pname) && !is_offset_term(pname)) {
                    error = "bad parameter name '" + pname + "' in '" + text + "'";
                    return std::nullopt;
                }
                sig.params.emplace_back(pname, ptype);
            }
        }
    }
    if (!valid_name(sig.name)) {
        error = "bad name '" + sig.name + "' (names match [A-Za-z_][A-Za-z0-9_.-]*)";
        return std::nullopt;
    }
    return sig;
}

class Reader {
public:
    explicit Reader(std::string file) : file_(std::move(file)) {}

    void error(const YAML::Mark& mark, std::string message) {
        Diagnostic d{file_, mark.is_null() ? 0 : mark.line + 1, mark.is_null() ? 0 : mark.column + 1,
                     std::move(message)};
        diagnostics_.push_back(std::move(d));
    }
    void error_at(int line, int column, std::string message) {
        diagnostics_.push_back(Diagnostic{file_, line, column, std::move(message)});
    }
    [[nodiscard]] bool failed() const { return !diagnostics_.empty(); }
    [[noreturn]] void raise() {
        std::stable_sort(diagnostics_.begin(), diagnostics_.end(), [](const Diagnostic& a, const Diagnostic& b) {
            return std::tie(a.line, a.column) < std::tie(b.line, b.column);
        });
        spec::detail::throw_spec_error(diagnostics_);
    }

    /// The entries of a map, refusing duplicate and unknown keys.
    std::vector<std::pair<YAML::Node, YAML::Node>> entries(const YAML::Node& map, const std::vector<std::string>& allowed,
                                                           const std::string& what) {
        std::vector<std::pair<YAML::Node, YAML::Node>> out;
        if (!map.IsMap()) {
            if (!map.IsNull()) error(map.Mark(), what + " must be a map");
            return out;
        }
        std::set<std::string> seen;
        for (auto it = map.begin(); it != map.end(); ++it) {
            const YAML::Node key = it->first;
            if (!key.IsScalar()) {
                error(key.Mark(), what + ": keys must be names");
                continue;
            }
            const std::string& k = key.Scalar();
            if (!seen.insert(k).second) {
                error(key.Mark(), what + ": duplicate key '" + k + "'");
                continue;
            }
            if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
                std::string list;
                for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
                error(key.Mark(), what + ": unknown key '" + k + "' (expected one of " + list + ")");
                continue;
            }
            out.emplace_back(key, it->second);
        }
        return out;
    }

    std::optional<DataType> type_of(const std::string& t, const YAML::Mark& mark) {
        if (t == "int") return DataType::Int;
        if (t == "id") return DataType::Id;
        if (t.empty()) error(mark, "parameter without a type (use `name: int` or `name: id`)");
        else error(mark, "type '" + t + "' is not compared by register automata (use int or id)");
        return std::nullopt;
    }

    std::vector<SymbolDecl> declarations(const YAML::Node& node, const std::string& what) {
        std::vector<SymbolDecl> out;
        if (!node.IsDefined() || node.IsNull()) return out;
        if (!node.IsSequence()) {
            error(node.Mark(), what + " must be a list of signatures");
            return out;
        }
        for (const auto& item : node) {
            if (!item.IsScalar()) {
                error(item.Mark(), what + ": a declaration is a signature such as \"offer(p: int)\"");
                continue;
            }
            std::string message;
            auto sig = parse_signature(item.Scalar(), message);
            if (!sig) {
                error(item.Mark(), what + ": " + message);
                continue;
            }
            SymbolDecl decl{sig->name, {}};
            for (const auto& [pname, written] : sig->params) {
                // `p: int data`: how the parameter is treated (docs/spec-format-v2.md, "Guards")
                std::string ptype = written;
                std::optional<Abstraction> abstraction;
                if (const auto space = ptype.find(' '); space != std::string::npos) {
                    const std::string word = ptype.substr(ptype.find_first_not_of(' ', space));
                    ptype.resize(space);
                    abstraction = abstraction_named(word);
                    if (!abstraction) {
                        error(item.Mark(), what + ": unknown treatment '" + word + "' of parameter '" + pname +
                                               "' (expected 'data' or 'partition' after the type)");
                        continue;
                    }
                    if (*abstraction == Abstraction::Partition) {
                        error(item.Mark(), what + ": parameter '" + pname + "' of " + sig->name +
                                               " is abstracted by partitions ('partition'), but a register automaton "
                                               "keeps every parameter as data: write 'data' (or nothing), or write the "
                                               "spec as a typestate (kind: typestate) with partitions");
                        continue;
                    }
                }
                auto type = type_of(ptype, item.Mark());
                decl.params.push_back({pname, type.value_or(DataType::Id), abstraction});
            }
            out.push_back(std::move(decl));
        }
        return out;
    }

private:
    std::string file_;
    std::vector<Diagnostic> diagnostics_;
};

}  // namespace

RaSpec parse_register_spec(const std::string& text, const std::string& file) {
    Reader rd(file);
    if (auto too_big = spec::detail::size_diagnostic(text.size(), file, spec::ReadLimits::from_environment()))
        spec::detail::throw_spec_error({*too_big});
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        rd.error(e.mark, "YAML: " + e.msg);
        rd.raise();
    }
    if (!root.IsMap()) {
        rd.error(root.Mark(), "a register-automaton spec is a YAML map");
        rd.raise();
    }
    RaSpec spec;
    RegisterAutomaton& ra = spec.automaton;
    const auto top = rd.entries(root, {"typestar", "kind", "name", "callins", "callbacks", "returns", "constants",
                                       "increments", "initial", "bounds", "provenance", "locations", "timing", "assumptions"},
                                "spec");
    std::map<std::string, YAML::Node> t;
    for (const auto& [k, v] : top) t[k.Scalar()] = v;
    if (!t.count("typestar")) rd.error(root.Mark(), "missing `typestar: 2`");
    else if (!t["typestar"].IsScalar() || t["typestar"].Scalar() != "2")
        rd.error(t["typestar"].Mark(), "register automata need `typestar: 2`");
    if (!t.count("kind")) {
        rd.error(root.Mark(), "missing `kind: register-automaton` (a file without `kind` is a typestate: use load_spec)");
        rd.raise();
    }
    if (t["kind"].Scalar() == "typestate") {
        rd.error(t["kind"].Mark(), "this file is a typestate: use load_spec");
        rd.raise();
    }
    if (t["kind"].Scalar() != "register-automaton") {
        rd.error(t["kind"].Mark(), "unknown kind '" + t["kind"].Scalar() + "' (typestate | register-automaton)");
        rd.raise();
    }
    for (const char* unsupported : {"timing", "assumptions"})
        if (t.count(unsupported))
            rd.error(t[unsupported].Mark(), std::string("`") + unsupported +
                                                "` is not supported yet for register automata");
    if (t.count("name") && t["name"].IsScalar()) ra.name = t["name"].Scalar();
    else rd.error(root.Mark(), "missing `name`");
    ra.inputs = rd.declarations(t["callins"], "callins");
    auto callbacks = rd.declarations(t["callbacks"], "callbacks");
    ra.outputs = rd.declarations(t["returns"], "returns");
    for (auto& cb : callbacks) {
        cb.callback = true;
        ra.outputs.push_back(cb);
    }
    {
        std::set<std::string> names;
        for (const auto& d : ra.inputs)
            if (!names.insert(d.name).second) rd.error(t["callins"].Mark(), "callin '" + d.name + "' is declared twice");
        names.clear();
        for (const auto& d : ra.outputs)
            if (!names.insert(d.name).second)
                rd.error(t["returns"].Mark(), "output '" + d.name + "' is declared twice");
    }
    if (t.count("constants")) {
        for (const auto& [k, v] : rd.entries(t["constants"], {}, "constants")) {
            Constant c{k.Scalar(), DataType::Int, 0};
            if (!valid_name(c.name)) rd.error(k.Mark(), "bad constant name '" + c.name + "'");
            YAML::Node value = v;
            if (v.IsMap()) {
                std::map<std::string, YAML::Node> cm;
                for (const auto& [ck, cv] : rd.entries(v, {"type", "value"}, "constant " + c.name)) cm[ck.Scalar()] = cv;
                if (cm.count("type")) c.type = rd.type_of(cm["type"].Scalar(), cm["type"].Mark()).value_or(DataType::Int);
                value = cm.count("value") ? cm["value"] : YAML::Node();
            }
            auto n = value.IsScalar() ? parse_integer(value.Scalar()) : std::nullopt;
            if (!n) rd.error(v.Mark(), "constant " + c.name + ": the value must be an integer");
            c.value = n.value_or(0);
            ra.constants.push_back(c);
        }
    }
    if (t.count("increments")) {
        // SL*'s +c theory: `increments: [1]`
        const YAML::Node inc = t["increments"];
        if (!inc.IsSequence()) rd.error(inc.Mark(), "increments: a list of positive integers, e.g. [1]");
        else
            for (const auto& v : inc) {
                auto n = v.IsScalar() ? parse_integer(v.Scalar()) : std::nullopt;
                if (!n || *n < 1 || *n > 1000)
                    rd.error(v.Mark(), "increments: each is an integer from 1 to 1000");
                else if (std::find(ra.increments.begin(), ra.increments.end(), *n) != ra.increments.end())
                    rd.error(v.Mark(), "increments: " + std::to_string(*n) + " is listed twice");
                else ra.increments.push_back(*n);
            }
    }
    if (t.count("bounds")) {
        for (const auto& [k, v] : rd.entries(t["bounds"], {"distinguisher"}, "bounds")) {
            auto n = v.IsScalar() ? parse_integer(v.Scalar()) : std::nullopt;
            if (!n || *n < 0) rd.error(v.Mark(), "bounds: distinguisher must be a non-negative integer");
            else spec.distinguisher = static_cast<std::size_t>(*n);
        }
    }
    if (t.count("provenance")) {
        for (const auto& [k, v] : rd.entries(t["provenance"], {}, "provenance")) {
            if (!v.IsScalar()) rd.error(v.Mark(), "provenance: values are strings");
            else spec.provenance[k.Scalar()] = v.Scalar();
        }
    }
    // Locations: names first, so transitions can name any of them.
    const auto locs = t.count("locations") ? rd.entries(t["locations"], {}, "locations")
                                           : std::vector<std::pair<YAML::Node, YAML::Node>>{};
    if (locs.empty()) rd.error(root.Mark(), "a register automaton needs `locations`");
    std::map<std::string, std::size_t> loc_index;
    std::vector<std::vector<std::pair<std::string, std::optional<DataType>>>> declared_regs;
    for (const auto& [k, v] : locs) {
        Location l;
        l.name = k.Scalar();
        l.line = k.Mark().line + 1;
        if (!valid_name(l.name)) rd.error(k.Mark(), "bad location name '" + l.name + "'");
        loc_index[l.name] = ra.locations.size();
        ra.locations.push_back(l);
        std::vector<std::pair<std::string, std::optional<DataType>>> regs;
        if (v.IsMap() && v["registers"]) {
            const YAML::Node rn = v["registers"];
            if (!rn.IsSequence()) rd.error(rn.Mark(), "registers must be a list of names");
            else
                for (const auto& r : rn) {
                    std::string message;
                    auto sig = r.IsScalar() ? parse_signature(r.Scalar() + "", message) : std::nullopt;
                    // `r1` or `r1: int` (a one-entry map in YAML's flow syntax)
                    if (r.IsMap() && r.size() == 1) {
                        auto it = r.begin();
                        regs.emplace_back(it->first.Scalar(), rd.type_of(it->second.Scalar(), it->second.Mark()));
                        continue;
                    }
                    if (!sig || !sig->params.empty()) {
                        rd.error(r.Mark(), "bad register '" + (r.IsScalar() ? r.Scalar() : std::string("?")) + "'");
                        continue;
                    }
                    regs.emplace_back(sig->name, std::nullopt);
                }
        }
        std::set<std::string> seen;
        for (const auto& [rname, rtype] : regs)
            if (!seen.insert(rname).second) rd.error(v.Mark(), "location " + l.name + ": register '" + rname + "' twice");
        declared_regs.push_back(regs);
    }
    for (std::size_t i = 0; i < ra.locations.size(); ++i)
        for (const auto& [rname, rtype] : declared_regs[i])
            ra.locations[i].registers.push_back({rname, rtype.value_or(DataType::Id)});
    if (t.count("initial")) {
        auto it = loc_index.find(t["initial"].Scalar());
        if (it == loc_index.end()) rd.error(t["initial"].Mark(), "initial location '" + t["initial"].Scalar() + "' is not defined");
        else ra.initial = it->second;
    } else {
        rd.error(root.Mark(), "missing `initial`");
    }
    // Transitions.
    struct PendingAssign {
        std::size_t loc, tr, reg;
        YAML::Mark mark;
    };
    std::size_t total = 0;
    std::vector<std::vector<std::pair<std::size_t, Term>>> assigned_from;  // unused placeholder
    for (std::size_t li = 0; li < locs.size(); ++li) {
        const YAML::Node v = locs[li].second;
        Location& l = ra.locations[li];
        std::map<std::string, YAML::Node> lm;
        for (const auto& [k, val] : rd.entries(v, {"registers", "transitions"}, "location " + l.name)) lm[k.Scalar()] = val;
        if (!lm.count("transitions")) continue;
        const YAML::Node tn = lm["transitions"];
        if (!tn.IsSequence()) {
            rd.error(tn.Mark(), "location " + l.name + ": transitions must be a list");
            continue;
        }
        for (const auto& item : tn) {
            if (++total > kMaxTransitions) {
                rd.error(item.Mark(), "more than 2^20 transitions");
                rd.raise();
            }
            std::map<std::string, YAML::Node> tm;
            for (const auto& [k, val] : rd.entries(item, {"input", "guard", "output", "assign", "to"}, "transition"))
                tm[k.Scalar()] = val;
            Transition tr;
            tr.line = item.Mark().line + 1;
            bool ok = true;
            // input
            std::map<std::string, std::size_t> locals;
            if (!tm.count("input") || !tm["input"].IsScalar()) {
                rd.error(item.Mark(), "transition without `input`");
                continue;
            }
            {
                std::string message;
                auto sig = parse_signature(tm["input"].Scalar(), message);
                if (!sig) {
                    rd.error(tm["input"].Mark(), message);
                    continue;
                }
                auto in = ra.input_index(sig->name);
                if (!in) {
                    rd.error(tm["input"].Mark(), "undeclared callin '" + sig->name + "'");
                    continue;
                }
                tr.input = *in;
                const auto& decl = ra.inputs[*in];
                if (tm["input"].Scalar().find('(') == std::string::npos) {
                    for (std::size_t p = 0; p < decl.params.size(); ++p) locals[decl.params[p].name] = p;
                } else if (sig->params.size() != decl.params.size()) {
                    rd.error(tm["input"].Mark(), "callin " + decl.name + " takes " + std::to_string(decl.params.size()) +
                                                     " parameters, the transition names " +
                                                     std::to_string(sig->params.size()));
                    continue;
                } else {
                    for (std::size_t p = 0; p < sig->params.size(); ++p) {
                        if (!sig->params[p].second.empty())
                            rd.error(tm["input"].Mark(), "a transition names parameters without types: " + decl.name + "(" +
                                                             sig->params[p].first + ")");
                        locals[sig->params[p].first] = p;
                    }
                }
            }
            auto resolve = [&](const std::string& n) -> std::optional<Term> {
                if (auto it = locals.find(n); it != locals.end()) return Term{Term::Kind::Param, it->second};
                for (std::size_t r = 0; r < l.registers.size(); ++r)
                    if (l.registers[r].name == n) return Term{Term::Kind::Register, r};
                for (std::size_t c = 0; c < ra.constants.size(); ++c)
                    if (ra.constants[c].name == n) return Term{Term::Kind::Constant, c};
                if (auto lit = parse_integer(n)) return Term{Term::Kind::Literal, 0, *lit};
                return std::nullopt;
            };
            // a name, a literal or `x + c` (the +c theory), for output arguments and assignments
            auto resolve_term = [&](const std::string& n) -> std::optional<Term> {
                if (!is_offset_term(n)) return resolve(n);
                auto parsed = parse_term(n, resolve);
                if (auto* term = std::get_if<Term>(&parsed)) return *term;
                return std::nullopt;
            };
            if (tm.count("guard")) {
                const YAML::Node g = tm["guard"];
                auto parsed = parse_guard(g.Scalar(), resolve);
                if (auto* e = std::get_if<GuardSyntaxError>(&parsed)) {
                    // the column inside a quoted or plain scalar: the mark is at its first character
                    const int quote = (g.Tag() == "!" ? 1 : 0);
                    rd.error_at(g.Mark().line + 1, g.Mark().column + 1 + quote + e->column - 1,
                                "guard: " + e->message);
                    ok = false;
                } else {
                    tr.guard = std::get<Guard>(parsed);
                }
            }
            // output
            if (!tm.count("output") || !tm["output"].IsScalar()) {
                rd.error(item.Mark(), "transition without `output`");
                continue;
            }
            {
                std::string message;
                auto sig = parse_signature(tm["output"].Scalar(), message);
                if (!sig) {
                    rd.error(tm["output"].Mark(), message);
                    continue;
                }
                auto out = ra.output_index(sig->name);
                if (!out && sig->name == "err" && sig->params.empty()) {
                    ra.outputs.push_back({"err", {}});
                    out = ra.outputs.size() - 1;
                }
                if (!out) {
                    rd.error(tm["output"].Mark(), "undeclared output '" + sig->name + "' (declare it in returns or callbacks)");
                    continue;
                }
                tr.output = *out;
                if (sig->params.size() != ra.outputs[*out].params.size()) {
                    rd.error(tm["output"].Mark(), "output " + sig->name + " takes " +
                                                      std::to_string(ra.outputs[*out].params.size()) + " values");
                    continue;
                }
                for (const auto& [aname, atype] : sig->params) {
                    if (aname == "fresh") {
                        tr.output_args.push_back({true, {}});
                        continue;
                    }
                    auto term = resolve_term(aname);
                    if (!term) {
                        rd.error(tm["output"].Mark(), "output argument '" + aname +
                                                          "' is not a parameter, register, constant, `fresh` or `x + c`");
                        ok = false;
                        continue;
                    }
                    tr.output_args.push_back({false, *term});
                }
            }
            // target and assignments
            if (!tm.count("to") || !tm["to"].IsScalar()) {
                rd.error(item.Mark(), "transition without `to`");
                continue;
            }
            auto target = loc_index.find(tm["to"].Scalar());
            if (target == loc_index.end()) {
                rd.error(tm["to"].Mark(), "unknown location '" + tm["to"].Scalar() + "'");
                continue;
            }
            tr.target = target->second;
            const Location& to = ra.locations[tr.target];
            tr.assign.assign(to.registers.size(), Term{Term::Kind::Literal, 0, 0});
            std::vector<bool> done(to.registers.size(), false);
            if (tm.count("assign")) {
                for (const auto& [k, val] : rd.entries(tm["assign"], {}, "assign")) {
                    std::size_t r = 0;
                    while (r < to.registers.size() && to.registers[r].name != k.Scalar()) ++r;
                    if (r == to.registers.size()) {
                        rd.error(k.Mark(), "location " + to.name + " has no register '" + k.Scalar() + "'");
                        ok = false;
                        continue;
                    }
                    auto term = val.IsScalar() ? resolve_term(val.Scalar()) : std::nullopt;
                    bool ambiguous = false;
                    if (val.IsScalar()) {
                        const auto& od = ra.outputs[tr.output].params;
                        for (std::size_t p = 0; p < od.size(); ++p)
                            if (od[p].name == val.Scalar()) {
                                if (term) {
                                    // never guess between two meanings of one name
                                    rd.error(val.Mark(), "assignment source '" + val.Scalar() +
                                                             "' names both a parameter, register or constant and "
                                                             "the output parameter of " + ra.outputs[tr.output].name +
                                                             " (rename the input's parameter: `input: \"" +
                                                             ra.inputs[tr.input].name + "(x)\"`)");
                                    ambiguous = true;
                                    break;
                                }
                                term = Term{Term::Kind::OutputParam, p};
                            }
                    }
                    if (ambiguous) {
                        ok = false;
                        done[r] = true;  // reported: not also "not assigned"
                        continue;
                    }
                    if (!term) {
                        rd.error(val.Mark(), "assignment source '" + (val.IsScalar() ? val.Scalar() : std::string("?")) +
                                                 "' is not a parameter, register, constant or output parameter");
                        ok = false;
                        continue;
                    }
                    tr.assign[r] = *term;
                    done[r] = true;
                }
            }
            for (std::size_t r = 0; r < done.size(); ++r)
                if (!done[r]) {
                    rd.error(item.Mark(), "register " + to.registers[r].name + " of " + to.name +
                                              " is not assigned (write `" + to.registers[r].name + ": " +
                                              to.registers[r].name + "` to keep it)");
                    ok = false;
                }
            if (ok) l.transitions.push_back(std::move(tr));
        }
    }
    if (rd.failed()) rd.raise();
    // Register types: declared, else inferred from the assignments (a fixpoint).
    std::vector<std::vector<std::optional<DataType>>> types(ra.locations.size());
    for (std::size_t li = 0; li < ra.locations.size(); ++li)
        for (const auto& [n, ty] : declared_regs[li]) types[li].push_back(ty);
    infer_register_types(ra, types);
    for (std::size_t li = 0; li < ra.locations.size(); ++li)
        for (std::size_t r = 0; r < types[li].size(); ++r) {
            if (!types[li][r])
                rd.error_at(ra.locations[li].line, 0, "location " + ra.locations[li].name + ": the type of register " +
                                                          ra.locations[li].registers[r].name +
                                                          " cannot be inferred (write `" +
                                                          ra.locations[li].registers[r].name + ": int` or `: id`)");
            else ra.locations[li].registers[r].type = *types[li][r];
        }
    if (rd.failed()) rd.raise();
    for (const auto& problem : validate(ra)) {
        // name the location's line: the problem text starts with "location <name>"
        int line = 0;
        for (const auto& l : ra.locations)
            if (problem.rfind("location " + l.name + ",", 0) == 0 || problem.rfind("location " + l.name + " ", 0) == 0)
                line = l.line;
        rd.error_at(line, 0, problem);
    }
    if (rd.failed()) rd.raise();
    return spec;
}

RaSpec load_register_spec(const std::filesystem::path& path) {
    return parse_register_spec(
        spec::detail::read_input_file(path, spec::ReadLimits::from_environment(), "register-automaton spec"),
        path.string());
}

namespace {

/// `s` double-quoted, with YAML's escapes for quotes, backslashes and control characters.
std::string quoted(const std::string& s) {
    std::string out = spec::detail::yaml_scalar(s);
    return out.front() == '"' ? out : "\"" + out + "\"";
}

std::string signature_text(const SymbolDecl& d, bool with_types) {
    std::string s = d.name;
    if (d.params.empty()) return s;
    s += "(";
    for (std::size_t i = 0; i < d.params.size(); ++i) {
        s += (i ? ", " : "") + d.params[i].name;
        if (with_types) s += std::string(": ") + type_name(d.params[i].type);
        if (with_types && d.params[i].abstraction) s += std::string(" ") + abstraction_name(*d.params[i].abstraction);
    }
    return s + ")";
}

std::string scalar(const std::string& s) {
    static const std::regex plain("[A-Za-z_][A-Za-z0-9_.-]*");
    return std::regex_match(s, plain) && s != "true" && s != "false" && s != "null" && s != "yes" && s != "no"
               ? s
               : quoted(s);
}

/// Locations in breadth-first order from the initial one, then the unreachable ones in file order.
std::vector<std::size_t> location_order(const RegisterAutomaton& ra) {
    std::vector<std::size_t> order{ra.initial};
    std::vector<bool> seen(ra.locations.size(), false);
    seen[ra.initial] = true;
    for (std::size_t head = 0; head < order.size(); ++head) {
        auto trs = ra.locations[order[head]].transitions;
        std::stable_sort(trs.begin(), trs.end(), [](const auto& a, const auto& b) { return a.input < b.input; });
        for (const auto& t : trs)
            if (!seen[t.target]) {
                seen[t.target] = true;
                order.push_back(t.target);
            }
    }
    for (std::size_t i = 0; i < ra.locations.size(); ++i)
        if (!seen[i]) order.push_back(i);
    return order;
}

/// The input's parameters as transition `t` of `from` names them: the declared names, except that
/// the reader refuses an assignment source naming both an input and an output parameter (RALib
/// names them alike: keygen's `IPut(p1)` answers `OPut(p1)`), so where the assignments read an
/// output parameter, or an input parameter named like one, a clashing input parameter gets `_`
/// appended until it hides nothing (validate keeps parameters apart from registers and constants).
std::vector<Parameter> unambiguous_input_params(const RegisterAutomaton& ra, const Location& from,
                                                const Transition& t) {
    std::vector<Parameter> params = ra.inputs.at(t.input).params;
    if (t.output >= ra.outputs.size()) return params;  // an invalid automaton (DOT draws those too)
    std::set<std::string> out_names;
    for (const auto& op : ra.outputs[t.output].params) out_names.insert(op.name);
    bool assign_names_output = false;
    for (const auto& term : t.assign)
        if (term.kind == Term::Kind::OutputParam ||
            (term.kind == Term::Kind::Param && term.index < params.size() && out_names.count(params[term.index].name)))
            assign_names_output = true;
    if (!assign_names_output) return params;
    std::set<std::string> taken = out_names;
    for (const auto& reg : from.registers) taken.insert(reg.name);
    for (const auto& c : ra.constants) taken.insert(c.name);
    for (const auto& p : params) taken.insert(p.name);
    for (auto& p : params)
        if (out_names.count(p.name)) {
            std::string fresh_name = p.name;
            do fresh_name += "_";
            while (taken.count(fresh_name));
            taken.insert(fresh_name);
            p.name = fresh_name;
        }
    return params;
}

}  // namespace

std::string write_register_spec(const RaSpec& spec) {
    const RegisterAutomaton& ra = spec.automaton;
    check_valid(ra);
    std::ostringstream os;
    os << "typestar: 2\nkind: register-automaton\nname: " << scalar(ra.name) << "\n";
    auto list = [&](const char* key, bool callbacks) {
        os << key << ": [";
        bool first = true;
        for (const auto& d : ra.outputs) {
            if (d.callback != callbacks) continue;
            os << (first ? "" : ", ") << scalar(signature_text(d, true));
            first = false;
        }
        os << "]\n";
    };
    os << "callins: [";
    for (std::size_t i = 0; i < ra.inputs.size(); ++i) os << (i ? ", " : "") << scalar(signature_text(ra.inputs[i], true));
    os << "]\n";
    list("callbacks", true);
    list("returns", false);
    os << "constants: {";
    for (std::size_t i = 0; i < ra.constants.size(); ++i) {
        const auto& c = ra.constants[i];
        os << (i ? ", " : "") << scalar(c.name) << ": ";
        if (c.type == DataType::Int) os << c.value;
        else os << "{type: id, value: " << c.value << "}";
    }
    os << "}\n";
    if (!ra.increments.empty()) {
        os << "increments: [";
        for (std::size_t i = 0; i < ra.increments.size(); ++i) os << (i ? ", " : "") << ra.increments[i];
        os << "]\n";
    }
    os << "bounds: {distinguisher: " << spec.distinguisher << "}\n";
    if (!spec.provenance.empty()) {
        os << "provenance:\n";
        for (const auto& [k, v] : spec.provenance) os << "  " << scalar(k) << ": " << quoted(v) << "\n";
    }
    const auto order = location_order(ra);
    std::vector<std::vector<std::optional<DataType>>> inferred(ra.locations.size());
    for (std::size_t li = 0; li < ra.locations.size(); ++li) inferred[li].resize(ra.locations[li].registers.size());
    infer_register_types(ra, inferred);
    // the symbols and constants only: transitions name the input's parameters through this copy
    RegisterAutomaton names_view;
    names_view.inputs = ra.inputs;
    names_view.outputs = ra.outputs;
    names_view.constants = ra.constants;
    os << "initial: " << scalar(ra.locations[ra.initial].name) << "\nlocations:\n";
    for (std::size_t li : order) {
        const Location& l = ra.locations[li];
        os << "  " << scalar(l.name) << ":\n    registers: [";
        for (std::size_t r = 0; r < l.registers.size(); ++r) {
            // a plain name when the reader infers the type from the assignments, else `{r: type}`
            const bool inferable = inferred[li][r] == l.registers[r].type;
            os << (r ? ", " : "");
            if (inferable) os << scalar(l.registers[r].name);
            else os << "{" << scalar(l.registers[r].name) << ": " << type_name(l.registers[r].type) << "}";
        }
        os << "]\n    transitions:\n";
        auto trs = l.transitions;
        std::stable_sort(trs.begin(), trs.end(), [](const auto& a, const auto& b) { return a.input < b.input; });
        if (trs.empty()) os.seekp(-1, std::ios_base::cur), os << " []\n";
        for (const auto& t : trs) {
            names_view.inputs.at(t.input).params = unambiguous_input_params(ra, l, t);
            os << "      - {input: " << scalar(input_text(names_view, t));
            if (!t.guard.is_true()) os << ", guard: " << quoted(guard_text(names_view, l, t));
            os << ", output: " << scalar(output_text(names_view, l, t));
            const Location& to = ra.locations[t.target];
            if (!t.assign.empty()) {
                os << ", assign: {";
                for (std::size_t r = 0; r < t.assign.size(); ++r)
                    os << (r ? ", " : "") << scalar(to.registers[r].name) << ": "
                       << scalar(term_text(names_view, l, t, t.assign[r]));
                os << "}";
            }
            os << ", to: " << scalar(to.name) << "}\n";
        }
    }
    const std::string text = os.str();
    RaSpec back;
    try {
        back = parse_register_spec(text, "<written>");
    } catch (const SpecError& e) {
        throw Error("write_register_spec: the written text does not read back: " +
                    spec::detail::printable(e.diagnostics().front().str()));
    }
    RegisterAutomaton expected = ra;
    // the reader orders nothing: compare after putting both in the written order
    auto reorder = [&](const RegisterAutomaton& a, const std::vector<std::size_t>& ord) {
        RegisterAutomaton b = a;
        std::vector<std::size_t> pos(a.locations.size());
        for (std::size_t i = 0; i < ord.size(); ++i) pos[ord[i]] = i;
        for (std::size_t i = 0; i < ord.size(); ++i) {
            b.locations[i] = a.locations[ord[i]];
            for (auto& t : b.locations[i].transitions) t.target = pos[t.target];
            std::stable_sort(b.locations[i].transitions.begin(), b.locations[i].transitions.end(),
                             [](const auto& x, const auto& y) { return x.input < y.input; });
        }
        b.initial = pos[a.initial];
        // outputs: the writer lists callbacks before returns
        return b;
    };
    expected = reorder(ra, order);
    for (auto& l : expected.locations)  // a guard with a true disjunct is written (and read) as `true`
        for (auto& t : l.transitions)
            if (t.guard.is_true()) t.guard = Guard{};
    std::vector<SymbolDecl> outs;
    for (bool cb : {false, true})
        for (const auto& d : expected.outputs)
            if (d.callback == cb) outs.push_back(d);
    // remap output indices to the reader's order (returns first, then callbacks)
    std::vector<std::size_t> out_pos(expected.outputs.size());
    for (std::size_t i = 0; i < expected.outputs.size(); ++i)
        out_pos[i] = static_cast<std::size_t>(
            std::find(outs.begin(), outs.end(), expected.outputs[i]) - outs.begin());
    expected.outputs = outs;
    for (auto& l : expected.locations)
        for (auto& t : l.transitions) t.output = out_pos[t.output];
    if (!(back.automaton == expected))
        throw Error("write_register_spec: the written text of '" + spec::detail::printable(ra.name) +
                    "' would read back differently");
    return text;
}

void save_register_spec(const RaSpec& spec, const std::filesystem::path& path) {
    spec::write_file_atomically(path, write_register_spec(spec));
}

std::string write_register_dot(const RegisterAutomaton& ra) {
    std::ostringstream os;
    auto esc = [](const std::string& s) {
        std::string out;
        for (char c : s) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        return out;
    };
    os << "digraph \"" << esc(ra.name) << "\" {\n  rankdir=LR;\n  node [shape=circle];\n  __start [shape=point];\n";
    const auto order = location_order(ra);
    for (std::size_t li : order) {
        const Location& l = ra.locations[li];
        std::string label = l.name;
        if (!l.registers.empty()) {
            label += "\\n[";
            for (std::size_t r = 0; r < l.registers.size(); ++r) label += (r ? "," : "") + esc(l.registers[r].name);
            label += "]";
        }
        os << "  \"" << esc(l.name) << "\" [label=\"" << label << "\"];\n";
    }
    os << "  __start -> \"" << esc(ra.locations[ra.initial].name) << "\";\n";
    RegisterAutomaton names_view;  // the symbols and constants, with the names the YAML writer uses
    names_view.inputs = ra.inputs;
    names_view.outputs = ra.outputs;
    names_view.constants = ra.constants;
    for (std::size_t li : order) {
        const Location& l = ra.locations[li];
        auto trs = l.transitions;
        std::stable_sort(trs.begin(), trs.end(), [](const auto& a, const auto& b) { return a.input < b.input; });
        for (const auto& t : trs) {
            if (t.input < ra.inputs.size()) names_view.inputs[t.input].params = unambiguous_input_params(ra, l, t);
            std::string label = input_text(names_view, t);
            if (!t.guard.is_true()) label += " | " + guard_text(names_view, l, t);
            label += " / " + output_text(names_view, l, t);
            const Location& to = ra.locations[t.target];
            std::string assigns;
            for (std::size_t r = 0; r < t.assign.size(); ++r) {
                const std::string src = term_text(names_view, l, t, t.assign[r]);
                if (src == to.registers[r].name && t.assign[r].kind == Term::Kind::Register) continue;
                assigns += (assigns.empty() ? "" : ", ") + to.registers[r].name + ":=" + src;
            }
            std::string text = esc(label);
            if (!assigns.empty()) text += "\\n" + esc(assigns);
            os << "  \"" << esc(l.name) << "\" -> \"" << esc(to.name) << "\" [label=\"" << text << "\"];\n";
        }
    }
    os << "}\n";
    return os.str();
}

}  // namespace typestar::ra
