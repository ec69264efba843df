#include "typestar/ra/automaton.hpp"

#include "../spec/spec_detail.hpp"
#include "values.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace typestar::ra {

const char* type_name(DataType type) { return type == DataType::Int ? "int" : "id"; }

std::optional<std::size_t> RegisterAutomaton::input_index(const std::string& n) const {
    for (std::size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i].name == n) return i;
    return std::nullopt;
}
std::optional<std::size_t> RegisterAutomaton::output_index(const std::string& n) const {
    for (std::size_t i = 0; i < outputs.size(); ++i)
        if (outputs[i].name == n) return i;
    return std::nullopt;
}
std::size_t RegisterAutomaton::num_transitions() const {
    std::size_t n = 0;
    for (const auto& l : locations) n += l.transitions.size();
    return n;
}
std::size_t RegisterAutomaton::max_registers() const {
    std::size_t n = 0;
    for (const auto& l : locations) n = std::max(n, l.registers.size());
    return n;
}

std::string format_symbol(const std::vector<SymbolDecl>& decls, const DataSymbol& s) {
    std::string out = s.symbol < decls.size() ? decls[s.symbol].name : "#" + std::to_string(s.symbol);
    if (!s.values.empty()) {
        out += "(";
        for (std::size_t i = 0; i < s.values.size(); ++i) out += (i ? "," : "") + std::to_string(s.values[i]);
        out += ")";
    }
    return out;
}

std::string format_word(const RegisterAutomaton& ra, const DataWord& inputs, const DataWord& outputs) {
    std::string out;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (i) out += ' ';
        out += format_symbol(ra.inputs, inputs[i]);
        if (i < outputs.size()) out += "/" + format_symbol(ra.outputs, outputs[i]);
    }
    return out;
}

namespace {

std::string base_term_text(const RegisterAutomaton& ra, const Location& from, const Transition& t, const Term& term);

}  // namespace

std::string term_text(const RegisterAutomaton& ra, const Location& from, const Transition& t, const Term& term) {
    return typestar::term_text(term, base_term_text(ra, from, t, term));
}

namespace {

std::string base_term_text(const RegisterAutomaton& ra, const Location& from, const Transition& t, const Term& term) {
    switch (term.kind) {
        case Term::Kind::Param:
            if (t.input < ra.inputs.size() && term.index < ra.inputs[t.input].params.size())
                return ra.inputs[t.input].params[term.index].name;
            break;
        case Term::Kind::Register:
            if (term.index < from.registers.size()) return from.registers[term.index].name;
            break;
        case Term::Kind::Constant:
            if (term.index < ra.constants.size()) return ra.constants[term.index].name;
            break;
        case Term::Kind::Literal: return std::to_string(term.literal);
        case Term::Kind::OutputParam:
            if (t.output < ra.outputs.size() && term.index < ra.outputs[t.output].params.size())
                return ra.outputs[t.output].params[term.index].name;
            break;
    }
    return "?" + std::to_string(term.index);
}

}  // namespace

std::string guard_text(const RegisterAutomaton& ra, const Location& from, const Transition& t) {
    return typestar::guard_text(t.guard, [&](const Term& term) { return base_term_text(ra, from, t, term); });
}

std::string output_text(const RegisterAutomaton& ra, const Location& from, const Transition& t) {
    std::string out = t.output < ra.outputs.size() ? ra.outputs[t.output].name : "?";
    if (!t.output_args.empty()) {
        out += "(";
        for (std::size_t i = 0; i < t.output_args.size(); ++i) {
            if (i) out += ", ";
            out += t.output_args[i].fresh ? "fresh" : term_text(ra, from, t, t.output_args[i].term);
        }
        out += ")";
    }
    return out;
}

std::string input_text(const RegisterAutomaton& ra, const Transition& t) {
    if (t.input >= ra.inputs.size()) return "?";
    const auto& decl = ra.inputs[t.input];
    std::string out = decl.name;
    if (!decl.params.empty()) {
        out += "(";
        for (std::size_t i = 0; i < decl.params.size(); ++i) out += (i ? ", " : "") + decl.params[i].name;
        out += ")";
    }
    return out;
}

Value offset_window(const RegisterAutomaton& ra) {
    Value m = max_offset(ra);
    for (Value c : ra.increments) m = std::max(m, c < 0 ? -c : c);
    return 2 * m;
}

namespace {

/// Calls `visit` with every term of `t`: the guard's operands, the outputs (not `fresh`), the assignments.
void for_each_term(const Transition& t, const std::function<void(const Term&)>& visit) {
    for (const auto& conj : t.guard.disjuncts)
        for (const auto& a : conj) {
            visit(a.left);
            visit(a.right);
        }
    for (const auto& arg : t.output_args)
        if (!arg.fresh) visit(arg.term);
    for (const auto& term : t.assign) visit(term);
}

}  // namespace

Value max_offset(const RegisterAutomaton& ra) {
    Value m = 0;
    auto see = [&](const Term& t) {
        if (t.kind != Term::Kind::Literal && t.offset != 0)
            m = std::max(m, t.offset == std::numeric_limits<Value>::min() ? std::numeric_limits<Value>::max()
                                                                          : (t.offset < 0 ? -t.offset : t.offset));
    };
    for (const auto& l : ra.locations)
        for (const auto& t : l.transitions) for_each_term(t, see);
    return m;
}

// ---- evaluation and simulation ----

namespace internal {

Value base_value(const RegisterAutomaton& ra, const Term& t, const std::vector<Value>& params,
                 const std::vector<Value>& registers, const std::vector<Value>& outputs) {
    switch (t.kind) {
        case Term::Kind::Param: return params.at(t.index);
        case Term::Kind::Register: return registers.at(t.index);
        case Term::Kind::Constant: return ra.constants.at(t.index).value;
        case Term::Kind::Literal: return t.literal;
        case Term::Kind::OutputParam: return outputs.at(t.index);
    }
    return 0;
}

Value term_value(const RegisterAutomaton& ra, const Term& t, const std::vector<Value>& params,
                 const std::vector<Value>& registers, const std::vector<Value>& outputs) {
    return typestar::term_value(t, base_value(ra, t, params, registers, outputs));
}

}  // namespace internal

using internal::base_value;
using internal::term_value;

bool evaluate(const RegisterAutomaton& ra, const Guard& guard, const std::vector<Value>& params,
              const std::vector<Value>& registers) {
    return evaluate_guard(guard, [&](const Term& t) { return base_value(ra, t, params, registers, {}); });
}

RaSimulator::RaSimulator(const RegisterAutomaton& ra) : ra_(&ra) { reset(); }

void RaSimulator::reset() {
    location_ = ra_->initial;
    registers_.assign(ra_->locations.at(location_).registers.size(), 0);
    max_seen_.reset();
    for (const auto& c : ra_->constants) max_seen_ = std::max(max_seen_.value_or(c.value), c.value);
}

DataSymbol RaSimulator::step(const DataSymbol& input) {
    if (input.symbol >= ra_->inputs.size()) throw Error("register automaton: unknown input #" + std::to_string(input.symbol));
    if (input.values.size() != ra_->inputs[input.symbol].params.size())
        throw Error("register automaton: input " + ra_->inputs[input.symbol].name + " takes " +
                    std::to_string(ra_->inputs[input.symbol].params.size()) + " values, got " +
                    std::to_string(input.values.size()));
    for (Value v : input.values) max_seen_ = std::max(max_seen_.value_or(v), v);
    const Location& loc = ra_->locations.at(location_);
    for (std::size_t ti = 0; ti < loc.transitions.size(); ++ti) {
        const Transition& t = loc.transitions[ti];
        if (t.input != input.symbol || !evaluate(*ra_, t.guard, input.values, registers_)) continue;
        DataSymbol out{t.output, {}};
        for (const auto& arg : t.output_args) {
            if (arg.fresh) {
                const Value v = internal::fresh_after(max_seen_);
                max_seen_ = v;
                out.values.push_back(v);
            } else {
                // a `+c` output may pass every value seen: a later fresh value stays new
                out.values.push_back(term_value(*ra_, arg.term, input.values, registers_));
                max_seen_ = std::max(max_seen_.value_or(out.values.back()), out.values.back());
            }
        }
        std::vector<Value> next;
        next.reserve(t.assign.size());
        for (const auto& a : t.assign) {
            next.push_back(term_value(*ra_, a, input.values, registers_, out.values));
            max_seen_ = std::max(max_seen_.value_or(next.back()), next.back());
        }
        registers_ = std::move(next);
        location_ = t.target;
        last_transition_ = ti;
        return out;
    }
    throw Error("register automaton '" + ra_->name + "': no guard of " + ra_->inputs[input.symbol].name +
                " holds in location " + loc.name);
}

DataWord RaSimulator::run(const DataWord& inputs) {
    reset();
    DataWord out;
    out.reserve(inputs.size());
    for (const auto& in : inputs) out.push_back(step(in));
    return out;
}

std::vector<Value> value_classes(DataType type, std::vector<Value> known) {
    std::sort(known.begin(), known.end());
    known.erase(std::unique(known.begin(), known.end()), known.end());
    std::vector<Value> out = known;
    constexpr Value kGap = Value{1} << 20;
    if (known.empty()) {
        out.push_back(type == DataType::Int ? 0 : 0);
        return out;
    }
    if (type == DataType::Id) {
        out.push_back(internal::unused_id(std::set<Value>(known.begin(), known.end())));
    } else {
        // The classes below the smallest and above the largest exist only where int64 has values;
        // midpoints without overflow (std::midpoint rounds towards the smaller, as a + (b - a) / 2).
        if (known.front() > internal::kMinValue) out.push_back(internal::plus_clamped(known.front(), -kGap));
        if (known.back() < internal::kMaxValue) out.push_back(internal::plus_clamped(known.back(), kGap));
        for (std::size_t i = 0; i + 1 < known.size(); ++i)
            if (known[i] + 1 < known[i + 1]) out.push_back(std::midpoint(known[i], known[i + 1]));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// ---- validation ----

namespace {

std::optional<DataType> term_type(const RegisterAutomaton& ra, const Location& from, const Transition& t,
                                  const Term& term) {
    switch (term.kind) {
        case Term::Kind::Param: return ra.inputs.at(t.input).params.at(term.index).type;
        case Term::Kind::Register: return from.registers.at(term.index).type;
        case Term::Kind::Constant: return ra.constants.at(term.index).type;
        case Term::Kind::Literal: return std::nullopt;  // fits either type
        case Term::Kind::OutputParam: return ra.outputs.at(t.output).params.at(term.index).type;
    }
    return std::nullopt;
}

bool term_in_range(const RegisterAutomaton& ra, const Location& from, const Transition& t, const Term& term,
                   bool allow_output) {
    switch (term.kind) {
        case Term::Kind::Param: return term.index < ra.inputs[t.input].params.size();
        case Term::Kind::Register: return term.index < from.registers.size();
        case Term::Kind::Constant: return term.index < ra.constants.size();
        case Term::Kind::Literal: return true;
        case Term::Kind::OutputParam: return allow_output && term.index < ra.outputs[t.output].params.size();
    }
    return false;
}

}  // namespace

namespace {

bool name_of(const std::string& s, bool dash) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(), [&](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || (dash && c == '-');
    });
}

}  // namespace

bool is_symbol_name(const std::string& name) { return name_of(name, true); }
bool is_data_name(const std::string& name) { return name_of(name, false) && name != "true" && name != "fresh"; }

namespace {

constexpr Value kMaxOffset = 1000;  // keeps explorations small and every sum far from overflow

std::string where(const RegisterAutomaton& ra, const Location& l, const Transition& t) {
    std::string s = "location " + l.name + ", " + (t.input < ra.inputs.size() ? ra.inputs[t.input].name : "?");
    if (t.line) s += " (line " + std::to_string(t.line) + ")";
    return s;
}

/// The checks of the declarations: the initial location, the increments, and every name (written
/// and read back by the v2 format, declared once). Appends to `problems`.
void validate_declarations(const RegisterAutomaton& ra, std::vector<std::string>& problems) {
    if (ra.initial >= ra.locations.size())
        problems.push_back("the initial location is out of range");
    else if (!ra.locations[ra.initial].registers.empty())
        problems.push_back("the initial location " + ra.locations[ra.initial].name +
                           " has registers, but registers have no initial values");
    for (Value c : ra.increments)
        if (c < 1 || c > kMaxOffset)
            problems.push_back("increment " + std::to_string(c) + " is not from 1 to " + std::to_string(kMaxOffset));
    std::set<std::string> names;
    for (const auto& l : ra.locations)
        if (!names.insert(l.name).second) problems.push_back("location " + l.name + " is defined twice");
    // Names the v2 format can write and read back: symbols and locations are names, data names are
    // read inside guards too (no '-') and are not the words `true` and `fresh`.
    auto check_name = [&](const std::string& what, const std::string& name, bool data) {
        if (is_data_name(name) || (!data && is_symbol_name(name))) return;
        problems.push_back(what + " '" + name + "' is not a name the spec format can write (" +
                           (data ? "[A-Za-z_][A-Za-z0-9_.]*, not `true` or `fresh`" : "[A-Za-z_][A-Za-z0-9_.-]*") + ")");
    };
    for (const auto* decls : {&ra.inputs, &ra.outputs})
        for (const auto& d : *decls) {
            check_name(decls == &ra.inputs ? "callin" : "output", d.name, false);
            std::set<std::string> params;
            for (const auto& p : d.params) {
                check_name("parameter of " + d.name, p.name, true);
                if (!params.insert(p.name).second)
                    problems.push_back(d.name + " has two parameters named '" + p.name + "'");
            }
        }
    auto check_unique = [&](const std::string& what, std::set<std::string>& seen, const std::string& name) {
        if (!seen.insert(name).second) problems.push_back(what + " '" + name + "' is declared twice");
    };
    std::set<std::string> inputs, outputs, constants;
    for (const auto& d : ra.inputs) check_unique("callin", inputs, d.name);
    for (const auto& d : ra.outputs) check_unique("output", outputs, d.name);
    for (const auto& c : ra.constants) {
        check_name("constant", c.name, true);
        check_unique("constant", constants, c.name);
    }
    for (const auto& l : ra.locations) {
        check_name("location", l.name, false);
        std::set<std::string> registers;
        for (const auto& r : l.registers) {
            check_name("register of location " + l.name, r.name, true);
            check_unique("register of location " + l.name, registers, r.name);
        }
    }
}

/// The checks of the terms of transition `t` (in range) of `l`: offsets (the +c theory), the types
/// of guards, outputs and assignments. Appends to `problems`; false when one is out of range or an
/// offset too wide to explore.
bool validate_terms(const RegisterAutomaton& ra, const Location& l, const Transition& t,
                    std::vector<std::string>& problems) {
    bool structural_ok = true;
    const Location& to = ra.locations[t.target];
    // the +c theory: offsets on int operands only, small enough that no run overflows
    auto check_offset = [&](const Term& term) {
        if (term.offset == 0) return;
        if (term.kind == Term::Kind::Literal) {
            problems.push_back(where(ra, l, t) + ": the literal " + std::to_string(term.literal) +
                               " carries an offset (write the sum)");
            return;
        }
        if (term.offset > kMaxOffset || term.offset < -kMaxOffset) {
            problems.push_back(where(ra, l, t) + ": the offset of " + term_text(ra, l, t, term) +
                               " is beyond +-" + std::to_string(kMaxOffset) + " (the +c theory's limit)");
            structural_ok = false;  // never explored: the windows would be that wide
            return;
        }
        if (!term_in_range(ra, l, t, term, true)) return;  // reported below
        if (auto ty = term_type(ra, l, t, term); ty && *ty == DataType::Id)
            problems.push_back(where(ra, l, t) + ": " + term_text(ra, l, t, term) +
                               " adds to an id value (ids have only == and !=; `+ c` needs int)");
    };
    for_each_term(t, check_offset);
    for (const auto& conj : t.guard.disjuncts) {
        for (const auto& a : conj) {
            if (!term_in_range(ra, l, t, a.left, false) || !term_in_range(ra, l, t, a.right, false)) {
                problems.push_back(where(ra, l, t) + ": guard names an operand out of range");
                structural_ok = false;
                continue;
            }
            auto lt = term_type(ra, l, t, a.left), rt = term_type(ra, l, t, a.right);
            if (lt && rt && *lt != *rt)
                problems.push_back(where(ra, l, t) + ": guard compares " + term_text(ra, l, t, a.left) + " (" +
                                   type_name(*lt) + ") with " + term_text(ra, l, t, a.right) + " (" +
                                   type_name(*rt) + ")");
            const bool is_id = (lt && *lt == DataType::Id) || (rt && *rt == DataType::Id);
            if (is_id && a.op != Op::Eq && a.op != Op::Ne)
                problems.push_back(where(ra, l, t) + ": guard compares id values with " + op_text(a.op) +
                                   " (ids have only == and !=)");
        }
    }
    for (std::size_t i = 0; i < t.output_args.size() && i < ra.outputs[t.output].params.size(); ++i) {
        const auto& arg = t.output_args[i];
        if (arg.fresh) continue;
        if (!term_in_range(ra, l, t, arg.term, false)) {
            problems.push_back(where(ra, l, t) + ": output argument out of range");
            structural_ok = false;
            continue;
        }
        auto ty = term_type(ra, l, t, arg.term);
        if (ty && *ty != ra.outputs[t.output].params[i].type)
            problems.push_back(where(ra, l, t) + ": output argument " + term_text(ra, l, t, arg.term) + " is " +
                               type_name(*ty) + ", the output's parameter is " +
                               type_name(ra.outputs[t.output].params[i].type));
    }
    for (std::size_t r = 0; r < t.assign.size(); ++r) {
        if (!term_in_range(ra, l, t, t.assign[r], true)) {
            problems.push_back(where(ra, l, t) + ": assignment to " + to.registers[r].name + " out of range");
            structural_ok = false;
            continue;
        }
        auto ty = term_type(ra, l, t, t.assign[r]);
        if (ty && *ty != to.registers[r].type)
            problems.push_back(where(ra, l, t) + ": register " + to.registers[r].name + " of " + to.name + " is " +
                               type_name(to.registers[r].type) + ", assigned " +
                               term_text(ra, l, t, t.assign[r]) + " of type " + type_name(*ty));
    }
    return structural_ok;
}

/// The checks of transition `t` of `l`: its symbols and target in range, its namespace, its
/// output's and target's arity, its guard, then its terms. Appends to `problems`; false when the
/// automaton cannot be explored because of it.
bool validate_transition(const RegisterAutomaton& ra, const Location& l, const Transition& t,
                         std::vector<std::string>& problems) {
    if (t.input >= ra.inputs.size() || t.output >= ra.outputs.size() || t.target >= ra.locations.size()) {
        problems.push_back(where(ra, l, t) + ": input, output or target out of range");
        return false;
    }
    bool structural_ok = true;
    const Location& to = ra.locations[t.target];
    // one namespace per transition in files: parameters, the source's registers, constants
    for (const auto& p : ra.inputs[t.input].params) {
        for (const auto& r : l.registers)
            if (r.name == p.name)
                problems.push_back(where(ra, l, t) + ": '" + p.name + "' is both a parameter and a register");
        for (const auto& c : ra.constants)
            if (c.name == p.name)
                problems.push_back(where(ra, l, t) + ": '" + p.name + "' is both a parameter and a constant");
    }
    if (t.output_args.size() != ra.outputs[t.output].params.size()) {
        problems.push_back(where(ra, l, t) + ": output " + ra.outputs[t.output].name + " takes " +
                           std::to_string(ra.outputs[t.output].params.size()) + " values, the transition gives " +
                           std::to_string(t.output_args.size()));
        structural_ok = false;
    }
    if (t.assign.size() != to.registers.size()) {
        problems.push_back(where(ra, l, t) + ": location " + to.name + " has " + std::to_string(to.registers.size()) +
                           " registers, the transition assigns " + std::to_string(t.assign.size()) +
                           " (every register of the target must be assigned)");
        return false;
    }
    if (t.guard.disjuncts.empty())
        problems.push_back(where(ra, l, t) + ": the guard is `false` (no disjunct): the transition is never taken");
    return validate_terms(ra, l, t, problems) && structural_ok;
}

/// Determinism and completeness on every reachable data class: explores the locations with the
/// order type of their register values, enumerates the classes of the parameters relative to
/// registers, constants and literals, and counts the guards that hold in each. Appends to `problems`.
void validate_classes(const RegisterAutomaton& ra, const RaLimits& limits, std::vector<std::string>& problems) {
    std::set<std::tuple<std::size_t, std::size_t, std::string>> reported;
    const ClassVisitor report = [&](std::size_t loc, const std::vector<Value>& regs, std::size_t in,
                            const std::vector<Value>& params, const std::vector<std::size_t>& holding) {
        if (holding.size() == 1) return;
        const Location& l = ra.locations[loc];
        auto key = std::make_tuple(loc, in, std::string(holding.empty() ? "gap" : "overlap"));
        if (!reported.insert(key).second) return;
        std::ostringstream os;
        os << "location " << l.name << ", " << ra.inputs[in].name << ": ";
        os << (holding.empty() ? "no guard holds" : "guards overlap") << " when ";
        bool first = true;
        for (std::size_t r = 0; r < regs.size(); ++r) {
            os << (first ? "" : ", ") << l.registers[r].name << " = " << regs[r];
            first = false;
        }
        for (std::size_t p = 0; p < params.size(); ++p) {
            os << (first ? "" : ", ") << ra.inputs[in].params[p].name << " = " << params[p];
            first = false;
        }
        if (first) os << "it is called";
        if (holding.size() > 1) {
            os << " (lines";
            for (auto ti : holding) os << " " << l.transitions[ti].line;
            os << ")";
        }
        problems.push_back(os.str());
    };
    try {
        explore_classes(ra, report, limits);
    } catch (const Error& e) {
        problems.push_back(e.what());  // a limit passed: refused, never a partial verdict
    }
}

}  // namespace

std::vector<std::string> validate(const RegisterAutomaton& ra, const RaLimits& limits) {
    std::vector<std::string> problems;
    if (ra.locations.empty()) {
        problems.push_back("the register automaton has no locations");
        return problems;
    }
    validate_declarations(ra, problems);
    bool structural_ok = problems.empty();  // (increments out of range too: never explored)
    for (const auto& l : ra.locations)
        for (const auto& t : l.transitions)
            if (!validate_transition(ra, l, t, problems)) structural_ok = false;
    if (!structural_ok) return problems;
    validate_classes(ra, limits, problems);
    return problems;
}

std::vector<std::string> validate(const RegisterAutomaton& ra) { return validate(ra, RaLimits::from_environment()); }

void check_valid(const RegisterAutomaton& ra) {
    auto problems = validate(ra);
    if (problems.empty()) return;
    std::string msg = "invalid register automaton '" + spec::detail::printable(ra.name) + "':";
    for (const auto& p : problems) msg += "\n  " + spec::detail::printable(p);
    throw Error(msg);
}

}  // namespace typestar::ra