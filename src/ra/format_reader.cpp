// The v2 `kind: register-automaton` YAML reader: parse_register_spec and load_register_spec, with
// every diagnostic collected (file:line:col) before one SpecError.
#include "typestar/ra/format.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "../spec/spec_detail.hpp"
#include "format_detail.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::ra {

namespace internal {

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

}  // namespace internal

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

namespace {

using Entries = std::vector<std::pair<YAML::Node, YAML::Node>>;
/// A location's registers as written: a name and its type when declared.
using DeclaredRegisters = std::vector<std::pair<std::string, std::optional<DataType>>>;

/// parse_register_spec's phases, in the order their diagnostics are collected: the top-level
/// keys and kind, the signature, the constants, increments, bounds and provenance, the locations
/// and their registers, the initial location, the transitions, then the register types and
/// validate's problems.
class RaSpecParser {
public:
    RaSpecParser(Reader& rd, RaSpec& spec) : rd_(rd), spec_(spec), ra_(spec.automaton) {}

    void parse(const std::string& text) {
        load(text);
        read_top_level();
        read_signature();
        read_constants();
        read_increments();
        read_bounds_and_provenance();
        read_locations();
        read_initial();
        for (std::size_t li = 0; li < locs_.size(); ++li) read_transitions(li);
        if (rd_.failed()) rd_.raise();
        type_registers();
        if (rd_.failed()) rd_.raise();
        report_problems();
        if (rd_.failed()) rd_.raise();
    }

private:
    void load(const std::string& text) {
        try {
            root_ = YAML::Load(text);
        } catch (const YAML::Exception& e) {
            rd_.error(e.mark, "YAML: " + e.msg);
            rd_.raise();
        }
        if (!root_.IsMap()) {
            rd_.error(root_.Mark(), "a register-automaton spec is a YAML map");
            rd_.raise();
        }
    }

    void read_top_level() {
        const auto top = rd_.entries(root_, {"typestar", "kind", "name", "callins", "callbacks", "returns", "constants",
                                             "increments", "initial", "bounds", "provenance", "locations", "timing",
                                             "assumptions"},
                                     "spec");
        for (const auto& [k, v] : top) t_[k.Scalar()] = v;
        if (!t_.count("typestar")) rd_.error(root_.Mark(), "missing `typestar: 2`");
        else if (!t_["typestar"].IsScalar() || t_["typestar"].Scalar() != "2")
            rd_.error(t_["typestar"].Mark(), "register automata need `typestar: 2`");
        if (!t_.count("kind")) {
            rd_.error(root_.Mark(), "missing `kind: register-automaton` (a file without `kind` is a typestate: use load_spec)");
            rd_.raise();
        }
        if (t_["kind"].Scalar() == "typestate") {
            rd_.error(t_["kind"].Mark(), "this file is a typestate: use load_spec");
            rd_.raise();
        }
        if (t_["kind"].Scalar() != "register-automaton") {
            rd_.error(t_["kind"].Mark(), "unknown kind '" + t_["kind"].Scalar() + "' (typestate | register-automaton)");
            rd_.raise();
        }
        for (const char* unsupported : {"timing", "assumptions"})
            if (t_.count(unsupported))
                rd_.error(t_[unsupported].Mark(), std::string("`") + unsupported +
                                                      "` is not supported yet for register automata");
    }

    void read_signature() {
        if (t_.count("name") && t_["name"].IsScalar()) ra_.name = t_["name"].Scalar();
        else rd_.error(root_.Mark(), "missing `name`");
        ra_.inputs = rd_.declarations(t_["callins"], "callins");
        auto callbacks = rd_.declarations(t_["callbacks"], "callbacks");
        ra_.outputs = rd_.declarations(t_["returns"], "returns");
        for (auto& cb : callbacks) {
            cb.callback = true;
            ra_.outputs.push_back(cb);
        }
        std::set<std::string> names;
        for (const auto& d : ra_.inputs)
            if (!names.insert(d.name).second) rd_.error(t_["callins"].Mark(), "callin '" + d.name + "' is declared twice");
        names.clear();
        for (const auto& d : ra_.outputs)
            if (!names.insert(d.name).second)
                rd_.error(t_["returns"].Mark(), "output '" + d.name + "' is declared twice");
    }

    void read_constants() {
        if (!t_.count("constants")) return;
        for (const auto& [k, v] : rd_.entries(t_["constants"], {}, "constants")) {
            Constant c{k.Scalar(), DataType::Int, 0};
            if (!valid_name(c.name)) rd_.error(k.Mark(), "bad constant name '" + c.name + "'");
            YAML::Node value = v;
            if (v.IsMap()) {
                std::map<std::string, YAML::Node> cm;
                for (const auto& [ck, cv] : rd_.entries(v, {"type", "value"}, "constant " + c.name)) cm[ck.Scalar()] = cv;
                if (cm.count("type")) c.type = rd_.type_of(cm["type"].Scalar(), cm["type"].Mark()).value_or(DataType::Int);
                value = cm.count("value") ? cm["value"] : YAML::Node();
            }
            auto n = value.IsScalar() ? parse_integer(value.Scalar()) : std::nullopt;
            if (!n) rd_.error(v.Mark(), "constant " + c.name + ": the value must be an integer");
            c.value = n.value_or(0);
            ra_.constants.push_back(c);
        }
    }

    void read_increments() {
        if (!t_.count("increments")) return;
        // SL*'s +c theory: `increments: [1]`
        const YAML::Node inc = t_["increments"];
        if (!inc.IsSequence()) {
            rd_.error(inc.Mark(), "increments: a list of positive integers, e.g. [1]");
            return;
        }
        for (const auto& v : inc) {
            auto n = v.IsScalar() ? parse_integer(v.Scalar()) : std::nullopt;
            if (!n || *n < 1 || *n > 1000)
                rd_.error(v.Mark(), "increments: each is an integer from 1 to 1000");
            else if (std::find(ra_.increments.begin(), ra_.increments.end(), *n) != ra_.increments.end())
                rd_.error(v.Mark(), "increments: " + std::to_string(*n) + " is listed twice");
            else ra_.increments.push_back(*n);
        }
    }

    void read_bounds_and_provenance() {
        if (t_.count("bounds")) {
            for (const auto& [k, v] : rd_.entries(t_["bounds"], {"distinguisher"}, "bounds")) {
                auto n = v.IsScalar() ? parse_integer(v.Scalar()) : std::nullopt;
                if (!n || *n < 0) rd_.error(v.Mark(), "bounds: distinguisher must be a non-negative integer");
                else spec_.distinguisher = static_cast<std::size_t>(*n);
            }
        }
        if (t_.count("provenance")) {
            for (const auto& [k, v] : rd_.entries(t_["provenance"], {}, "provenance")) {
                if (!v.IsScalar()) rd_.error(v.Mark(), "provenance: values are strings");
                else spec_.provenance[k.Scalar()] = v.Scalar();
            }
        }
    }

    /// Locations: names first, so transitions can name any of them.
    void read_locations() {
        locs_ = t_.count("locations") ? rd_.entries(t_["locations"], {}, "locations") : Entries{};
        if (locs_.empty()) rd_.error(root_.Mark(), "a register automaton needs `locations`");
        for (const auto& [k, v] : locs_) {
            Location l;
            l.name = k.Scalar();
            l.line = k.Mark().line + 1;
            if (!valid_name(l.name)) rd_.error(k.Mark(), "bad location name '" + l.name + "'");
            loc_index_[l.name] = ra_.locations.size();
            ra_.locations.push_back(l);
            const DeclaredRegisters regs = v.IsMap() && v["registers"] ? registers_of(v["registers"]) : DeclaredRegisters{};
            std::set<std::string> seen;
            for (const auto& [rname, rtype] : regs)
                if (!seen.insert(rname).second) rd_.error(v.Mark(), "location " + l.name + ": register '" + rname + "' twice");
            declared_regs_.push_back(regs);
        }
        for (std::size_t i = 0; i < ra_.locations.size(); ++i)
            for (const auto& [rname, rtype] : declared_regs_[i])
                ra_.locations[i].registers.push_back({rname, rtype.value_or(DataType::Id)});
    }

    DeclaredRegisters registers_of(const YAML::Node& rn) {
        DeclaredRegisters regs;
        if (!rn.IsSequence()) {
            rd_.error(rn.Mark(), "registers must be a list of names");
            return regs;
        }
        for (const auto& r : rn) {
            std::string message;
            auto sig = r.IsScalar() ? parse_signature(r.Scalar() + "", message) : std::nullopt;
            // `r1` or `r1: int` (a one-entry map in YAML's flow syntax)
            if (r.IsMap() && r.size() == 1) {
                auto it = r.begin();
                regs.emplace_back(it->first.Scalar(), rd_.type_of(it->second.Scalar(), it->second.Mark()));
                continue;
            }
            if (!sig || !sig->params.empty()) {
                rd_.error(r.Mark(), "bad register '" + (r.IsScalar() ? r.Scalar() : std::string("?")) + "'");
                continue;
            }
            regs.emplace_back(sig->name, std::nullopt);
        }
        return regs;
    }

    void read_initial() {
        if (t_.count("initial")) {
            auto it = loc_index_.find(t_["initial"].Scalar());
            if (it == loc_index_.end())
                rd_.error(t_["initial"].Mark(), "initial location '" + t_["initial"].Scalar() + "' is not defined");
            else ra_.initial = it->second;
        } else {
            rd_.error(root_.Mark(), "missing `initial`");
        }
    }

    void read_transitions(std::size_t li) {
        const YAML::Node v = locs_[li].second;
        Location& l = ra_.locations[li];
        std::map<std::string, YAML::Node> lm;
        for (const auto& [k, val] : rd_.entries(v, {"registers", "transitions"}, "location " + l.name)) lm[k.Scalar()] = val;
        if (!lm.count("transitions")) return;
        const YAML::Node tn = lm["transitions"];
        if (!tn.IsSequence()) {
            rd_.error(tn.Mark(), "location " + l.name + ": transitions must be a list");
            return;
        }
        for (const auto& item : tn) {
            if (++total_transitions_ > kMaxTransitions) {
                rd_.error(item.Mark(), "more than 2^20 transitions");
                rd_.raise();
            }
            if (auto tr = read_transition(item, l)) l.transitions.push_back(std::move(*tr));
        }
    }

    /// One transition of location `l`; nullopt (with the diagnostics) when it is wrong.
    std::optional<Transition> read_transition(const YAML::Node& item, const Location& l) {
        std::map<std::string, YAML::Node> tm;
        for (const auto& [k, val] : rd_.entries(item, {"input", "guard", "output", "assign", "to"}, "transition"))
            tm[k.Scalar()] = val;
        Transition tr;
        tr.line = item.Mark().line + 1;
        bool ok = true;
        if (!tm.count("input") || !tm["input"].IsScalar()) {
            rd_.error(item.Mark(), "transition without `input`");
            return std::nullopt;
        }
        std::map<std::string, std::size_t> locals;  // the input's parameter names
        if (!read_input(tm["input"], tr, locals)) return std::nullopt;
        auto resolve = [&](const std::string& n) -> std::optional<Term> {
            if (auto it = locals.find(n); it != locals.end()) return Term{Term::Kind::Param, it->second};
            for (std::size_t r = 0; r < l.registers.size(); ++r)
                if (l.registers[r].name == n) return Term{Term::Kind::Register, r};
            for (std::size_t c = 0; c < ra_.constants.size(); ++c)
                if (ra_.constants[c].name == n) return Term{Term::Kind::Constant, c};
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
                rd_.error_at(g.Mark().line + 1, g.Mark().column + 1 + quote + e->column - 1, "guard: " + e->message);
                ok = false;
            } else {
                tr.guard = std::get<Guard>(parsed);
            }
        }
        if (!tm.count("output") || !tm["output"].IsScalar()) {
            rd_.error(item.Mark(), "transition without `output`");
            return std::nullopt;
        }
        const auto output_ok = read_output(tm["output"], tr, resolve_term);
        if (!output_ok) return std::nullopt;
        ok = *output_ok && ok;
        if (!tm.count("to") || !tm["to"].IsScalar()) {
            rd_.error(item.Mark(), "transition without `to`");
            return std::nullopt;
        }
        auto target = loc_index_.find(tm["to"].Scalar());
        if (target == loc_index_.end()) {
            rd_.error(tm["to"].Mark(), "unknown location '" + tm["to"].Scalar() + "'");
            return std::nullopt;
        }
        tr.target = target->second;
        const YAML::Node assign = tm.count("assign") ? tm["assign"] : YAML::Node();
        ok = read_assignments(item, tm.count("assign") ? &assign : nullptr, tr, resolve_term) && ok;
        if (!ok) return std::nullopt;
        return tr;
    }

    /// The transition's input and the names of its parameters; false when the transition is skipped.
    bool read_input(const YAML::Node& node, Transition& tr, std::map<std::string, std::size_t>& locals) {
        std::string message;
        auto sig = parse_signature(node.Scalar(), message);
        if (!sig) {
            rd_.error(node.Mark(), message);
            return false;
        }
        auto in = ra_.input_index(sig->name);
        if (!in) {
            rd_.error(node.Mark(), "undeclared callin '" + sig->name + "'");
            return false;
        }
        tr.input = *in;
        const auto& decl = ra_.inputs[*in];
        if (node.Scalar().find('(') == std::string::npos) {
            for (std::size_t p = 0; p < decl.params.size(); ++p) locals[decl.params[p].name] = p;
        } else if (sig->params.size() != decl.params.size()) {
            rd_.error(node.Mark(), "callin " + decl.name + " takes " + std::to_string(decl.params.size()) +
                                       " parameters, the transition names " + std::to_string(sig->params.size()));
            return false;
        } else {
            for (std::size_t p = 0; p < sig->params.size(); ++p) {
                if (!sig->params[p].second.empty())
                    rd_.error(node.Mark(), "a transition names parameters without types: " + decl.name + "(" +
                                               sig->params[p].first + ")");
                locals[sig->params[p].first] = p;
            }
        }
        return true;
    }

    /// The transition's output and its arguments: nullopt when the transition is skipped, false
    /// when an argument is wrong (reported; the transition is dropped after its other checks).
    template <class ResolveTerm>
    std::optional<bool> read_output(const YAML::Node& node, Transition& tr, const ResolveTerm& resolve_term) {
        std::string message;
        auto sig = parse_signature(node.Scalar(), message);
        if (!sig) {
            rd_.error(node.Mark(), message);
            return std::nullopt;
        }
        auto out = ra_.output_index(sig->name);
        if (!out && sig->name == "err" && sig->params.empty()) {
            ra_.outputs.push_back({"err", {}});
            out = ra_.outputs.size() - 1;
        }
        if (!out) {
            rd_.error(node.Mark(), "undeclared output '" + sig->name + "' (declare it in returns or callbacks)");
            return std::nullopt;
        }
        tr.output = *out;
        if (sig->params.size() != ra_.outputs[*out].params.size()) {
            rd_.error(node.Mark(), "output " + sig->name + " takes " + std::to_string(ra_.outputs[*out].params.size()) +
                                       " values");
            return std::nullopt;
        }
        bool ok = true;
        for (const auto& [aname, atype] : sig->params) {
            if (aname == "fresh") {
                tr.output_args.push_back({true, {}});
                continue;
            }
            auto term = resolve_term(aname);
            if (!term) {
                rd_.error(node.Mark(), "output argument '" + aname +
                                           "' is not a parameter, register, constant, `fresh` or `x + c`");
                ok = false;
                continue;
            }
            tr.output_args.push_back({false, *term});
        }
        return ok;
    }

    /// The target's registers from `assign` (null when the transition has none); false when one is
    /// wrong or not assigned (reported).
    template <class ResolveTerm>
    bool read_assignments(const YAML::Node& item, const YAML::Node* assign, Transition& tr, const ResolveTerm& resolve_term) {
        const Location& to = ra_.locations[tr.target];
        tr.assign.assign(to.registers.size(), Term{Term::Kind::Literal, 0, 0});
        std::vector<bool> done(to.registers.size(), false);
        bool ok = true;
        if (assign) {
            for (const auto& [k, val] : rd_.entries(*assign, {}, "assign")) {
                std::size_t r = 0;
                while (r < to.registers.size() && to.registers[r].name != k.Scalar()) ++r;
                if (r == to.registers.size()) {
                    rd_.error(k.Mark(), "location " + to.name + " has no register '" + k.Scalar() + "'");
                    ok = false;
                    continue;
                }
                auto term = val.IsScalar() ? resolve_term(val.Scalar()) : std::nullopt;
                bool ambiguous = false;
                if (val.IsScalar()) {
                    const auto& od = ra_.outputs[tr.output].params;
                    for (std::size_t p = 0; p < od.size(); ++p)
                        if (od[p].name == val.Scalar()) {
                            if (term) {
                                // never guess between two meanings of one name
                                rd_.error(val.Mark(), "assignment source '" + val.Scalar() +
                                                          "' names both a parameter, register or constant and "
                                                          "the output parameter of " + ra_.outputs[tr.output].name +
                                                          " (rename the input's parameter: `input: \"" +
                                                          ra_.inputs[tr.input].name + "(x)\"`)");
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
                    rd_.error(val.Mark(), "assignment source '" + (val.IsScalar() ? val.Scalar() : std::string("?")) +
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
                rd_.error(item.Mark(), "register " + to.registers[r].name + " of " + to.name +
                                           " is not assigned (write `" + to.registers[r].name + ": " +
                                           to.registers[r].name + "` to keep it)");
                ok = false;
            }
        return ok;
    }

    /// Register types: declared, else inferred from the assignments (a fixpoint).
    void type_registers() {
        std::vector<std::vector<std::optional<DataType>>> types(ra_.locations.size());
        for (std::size_t li = 0; li < ra_.locations.size(); ++li)
            for (const auto& [n, ty] : declared_regs_[li]) types[li].push_back(ty);
        internal::infer_register_types(ra_, types);
        for (std::size_t li = 0; li < ra_.locations.size(); ++li)
            for (std::size_t r = 0; r < types[li].size(); ++r) {
                const auto& loc = ra_.locations[li];
                if (!types[li][r])
                    rd_.error_at(loc.line, 0, "location " + loc.name + ": the type of register " + loc.registers[r].name +
                                                  " cannot be inferred (write `" + loc.registers[r].name +
                                                  ": int` or `: id`)");
                else ra_.locations[li].registers[r].type = *types[li][r];
            }
    }

    void report_problems() {
        for (const auto& problem : validate(ra_)) {
            // name the location's line: the problem text starts with "location <name>"
            int line = 0;
            for (const auto& l : ra_.locations)
                if (problem.rfind("location " + l.name + ",", 0) == 0 || problem.rfind("location " + l.name + " ", 0) == 0)
                    line = l.line;
            rd_.error_at(line, 0, problem);
        }
    }

    Reader& rd_;
    RaSpec& spec_;
    RegisterAutomaton& ra_;
    YAML::Node root_;
    std::map<std::string, YAML::Node> t_;  // the top-level keys
    Entries locs_;
    std::map<std::string, std::size_t> loc_index_;
    std::vector<DeclaredRegisters> declared_regs_;
    std::size_t total_transitions_ = 0;
};

}  // namespace

RaSpec parse_register_spec(const std::string& text, const std::string& file) {
    Reader rd(file);
    if (auto too_big = spec::detail::size_diagnostic(text.size(), file, spec::ReadLimits::from_environment()))
        spec::detail::throw_spec_error({*too_big});
    RaSpec spec;
    RaSpecParser(rd, spec).parse(text);
    return spec;
}

RaSpec load_register_spec(const std::filesystem::path& path) {
    return parse_register_spec(
        spec::detail::read_input_file(path, spec::ReadLimits::from_environment(), "register-automaton spec"),
        path.string());
}

}  // namespace typestar::ra
