// The v2 `kind: register-automaton` YAML writer (checked by reading it back) and DOT pictures.
#include "typestar/ra/format.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <fstream>
#include <regex>
#include <sstream>

#include "../spec/spec_detail.hpp"
#include "format_detail.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::ra {

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

/// Throws typestar::Error unless `text`, written from `ra` with its locations in `order`, reads
/// back as `ra` (in the written order, with the reader's order of outputs).
void check_reads_back(const RegisterAutomaton& ra, const std::vector<std::size_t>& order, const std::string& text) {
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
    internal::infer_register_types(ra, inferred);
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
    check_reads_back(ra, order, text);
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
