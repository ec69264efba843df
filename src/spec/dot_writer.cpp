// Mealy DOT and typestate pictures: write_mealy_dot (read back by dot.cpp as the same machine) and
// write_typestate_dot (a picture for people, not read back).
#include "typestar/spec/dot.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "dot_detail.hpp"
#include "typestar/core/error.hpp"

namespace typestar::spec {
namespace {

using detail::is_id_char;
using detail::is_id_start;
using detail::is_marker;
using detail::lower;

bool is_bare_id(std::string_view s) {
    if (s.empty() || !is_id_start(static_cast<unsigned char>(s.front()))) return false;
    if (!std::all_of(s.begin(), s.end(), [](char c) { return is_id_char(static_cast<unsigned char>(c)); }))
        return false;
    const std::string l = lower(std::string(s));
    return l != "node" && l != "edge" && l != "graph" && l != "digraph" && l != "subgraph" && l != "strict";
}

std::string dot_quoted(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + '"';
}

std::string id(std::string_view s) { return is_bare_id(s) ? std::string(s) : dot_quoted(s); }

/// A quoted label with the separator \x01 (placed by write_typestate_dot between a label's lines)
/// turned into DOT's line break escape.
std::string line_breaks(std::string quoted) {
    std::string out;
    for (char c : quoted) out += c == '\x01' ? std::string("\\n") : std::string(1, c);
    return out;
}

/// `s` for an HTML label: markup characters as entities, and blanks at either end as numeric
/// entities so that the reader's trimming keeps them.
std::string html_escaped(std::string_view s, bool escape_bar) {
    std::string out;
    const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    std::size_t first = 0;
    while (first < s.size() && is_space(s[first])) ++first;
    std::size_t last = s.size();
    while (last > first && is_space(s[last - 1])) --last;
    for (std::size_t k = 0; k < s.size(); ++k) {
        const char c = s[k];
        if (k < first || k >= last) {
            out += "&#" + std::to_string(static_cast<unsigned char>(c)) + ";";
            continue;
        }
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '|': out += escape_bar ? "&#124;" : "|"; break;
            default: out += c;
        }
    }
    return out;
}

/// The label of one transition: "in/out", or the HTML form when the input contains '/' or the
/// halves have blanks at their ends (which the reader trims).
std::string mealy_label(const std::string& input, const std::string& output) {
    const auto blank_ends = [](const std::string& s) {
        return !s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) ||
                              std::isspace(static_cast<unsigned char>(s.back())));
    };
    if (input.find('/') == std::string::npos && !blank_ends(input) && !blank_ends(output))
        return dot_quoted(input + "/" + output);
    return "<" + html_escaped(input, true) + "<br />" + html_escaped(output, false) + ">";
}

}  // namespace

std::string write_mealy_dot(const MealyMachine& machine, std::string_view graph_name) {
    for (StateId s = 0; s < machine.num_states(); ++s)
        if (is_marker(machine.state_name(s)))
            throw std::invalid_argument("state name '" + machine.state_name(s) +
                                        "' is reserved for the DOT initial marker");
    std::string out = "digraph " + id(graph_name.empty() ? "mealy" : graph_name) + " {\n";
    out += "  __start0 [label=\"\" shape=none];\n";
    for (StateId s = 0; s < machine.num_states(); ++s) out += "  " + id(machine.state_name(s)) + ";\n";
    for (StateId s = 0; s < machine.num_states(); ++s) {
        for (Symbol i = 0; i < machine.num_inputs(); ++i) {
            const auto& t = machine.transition(s, i);
            out += "  " + id(machine.state_name(s)) + " -> " + id(machine.state_name(t.target)) + " [label=" +
                   mealy_label(machine.inputs().name(i), machine.outputs().name(t.output)) + "];\n";
        }
    }
    out += "  __start0 -> " + id(machine.state_name(machine.initial())) + ";\n}\n";
    return out;
}

std::string write_typestate_dot(const Typestate& typestate) {
    const auto name_of = [&](StateId s) -> std::string {
        if (s >= typestate.states.size()) throw std::invalid_argument("typestate state index out of range");
        return id(typestate.states[s].name);
    };
    std::string out = "digraph " + id(typestate.name.empty() ? "typestate" : typestate.name) + " {\n";
    out += "  rankdir=LR;\n";
    out += "  node [shape=circle];\n";
    out += "  __start0 [label=\"\" shape=none width=0 height=0];\n";
    for (StateId s = 0; s < typestate.states.size(); ++s) out += "  " + name_of(s) + ";\n";
    for (StateId s = 0; s < typestate.states.size(); ++s) {
        const auto& state = typestate.states[s];
        for (std::size_t c = 0; c < state.callins.size(); ++c) {
            // Format v2: the guard of an abstract input on a second line, the environment role marked.
            const InputInfo& info = typestate.info(typestate.callins.at(c));
            std::string label = (info.environment ? "env: " : "") + typestate.callins.at(c) + "()";
            if (!info.guard.empty()) label += "\x01[" + info.guard + "]";
            if (const auto u = state.unknown.find(c); u != state.unknown.end()) {
                out += "  " + name_of(s) + " -> " + name_of(s) + " [label=" +
                       line_breaks(dot_quoted(label + " ?\x01(unknown: " + std::string(to_string(u->second.source)) + ")")) +
                       " style=dotted color=gray fontcolor=gray];\n";
                continue;
            }
            if (!state.callins[c]) continue;
            if (const auto a = state.answers.find(c); a != state.answers.end())  // a named output (Mealy)
                label += " / " + typestate.outputs.at(a->second);
            out += "  " + name_of(s) + " -> " + name_of(*state.callins[c]) + " [label=" + line_breaks(dot_quoted(label)) + "];\n";
        }
        if (state.callback) {
            out += "  " + name_of(s) + " -> " + name_of(state.callback->target) + " [label=" +
                   dot_quoted(typestate.callbacks.at(state.callback->callback)) + " style=dashed];\n";
        } else if (state.wait == Typestate::Wait::Quiet && state.quiet_target && *state.quiet_target != s) {
            out += "  " + name_of(s) + " -> " + name_of(*state.quiet_target) +
                   " [label=\"quiet\" style=dotted];\n";
        }
    }
    out += "  __start0 -> " + name_of(typestate.initial) + ";\n}\n";
    return out;
}

}  // namespace typestar::spec
