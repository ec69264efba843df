#include "typestar/spec/diff_dot.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diff_pairing.hpp"

namespace typestar::spec {
namespace {

// Colours of the two sides (Primer's green and red, readable on white and in print).
constexpr std::string_view kAddedColour = "#1a7f37";
constexpr std::string_view kRemovedColour = "#cf222e";

/// `s` as a DOT double-quoted string (a line break as Graphviz's `\n`).
std::string dot_string(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + '"';
}

/// `s` with the characters HTML-like DOT labels treat as markup replaced by entities.
std::string html(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

enum class Line { Callin, Callback, Quiet };

/// One side's transition on one symbol as drawn: target node, label, line style.
struct Edge {
    std::string target;
    std::string label;
    Line line = Line::Callin;
    bool operator==(const Edge&) const = default;
};

std::string old_id(StateId p) { return "o" + std::to_string(p); }

}  // namespace

namespace {

/// Transitions with the same ends, line and colour are drawn as one edge listing their labels.
struct Drawn {
    std::string source;
    Edge edge;
    std::string_view colour;
    std::string sign;
    std::vector<std::string> labels;
};

/// The DOT lines of the drawn edges; sets `coloured` when one is added or removed.
std::string edges_text(const std::vector<Drawn>& drawn, bool& coloured) {
    std::string edges;
    for (const auto& d : drawn) {
        std::string label;
        for (const auto& l : d.labels) label += (label.empty() ? "" : "\n") + d.sign + l;
        edges += "  " + d.source + " -> " + d.edge.target + " [label=" + dot_string(label);
        if (d.edge.line == Line::Callback) edges += " style=dashed";
        if (d.edge.line == Line::Quiet) edges += " style=dotted";
        if (!d.colour.empty()) {
            edges += " color=" + dot_string(d.colour) + " fontcolor=" + dot_string(d.colour) + " penwidth=2";
            coloured = true;
        }
        edges += "];\n";
    }

    return edges;
}

/// The DOT lines of the states: every old state (its new name when it changed, dashed red when it
/// has no partner), then the new states without one (green); sets `coloured` when one is drawn so.
std::string nodes_text(const detail::AlignedTypestates& a, const std::vector<std::optional<StateId>>& partner,
                       const std::function<std::string(StateId)>& new_id, bool& coloured) {
    const Typestate& o = a.old_t;
    const Typestate& n = a.new_t;
    std::string nodes;
    for (StateId p = 0; p < o.states.size(); ++p) {
        std::string label = o.states[p].name;
        if (a.pair[p] && a.paired_name[p] != label) label += "\n(new: " + a.paired_name[p] + ")";
        nodes += "  " + old_id(p) + " [label=" + dot_string(label);
        if (!a.pair[p]) {
            nodes += " color=" + dot_string(kRemovedColour) + " fontcolor=" + dot_string(kRemovedColour) +
                     " style=dashed penwidth=2";
            coloured = true;
        }
        nodes += "];\n";
    }
    for (StateId q = 0; q < n.states.size(); ++q) {
        if (partner[q]) continue;
        nodes += "  " + new_id(q) + " [label=" + dot_string(n.states[q].name) + " color=" + dot_string(kAddedColour) +
                 " fontcolor=" + dot_string(kAddedColour) + " penwidth=2];\n";
        coloured = true;
    }

    return nodes;
}

/// The whole graph: title and legend above the picture, the states, the edges, the arrow to the
/// old initial state `initial`.
std::string diff_dot_text(const Spec& old_spec, const Spec& new_spec, bool coloured, const std::string& nodes,
                          const std::string& edges, StateId initial) {
    const std::string& old_name = old_spec.typestate.name;
    const std::string& new_name = new_spec.typestate.name;
    const std::string title = old_name == new_name ? "<b>" + html(old_name) + "</b>: old vs new"
                                                   : "<b>" + html(old_name) + "</b> (old) vs <b>" + html(new_name) +
                                                         "</b> (new)";
    const std::string added(kAddedColour);
    const std::string removed(kRemovedColour);
    std::string out = "digraph typestate_diff {\n";
    out += "  rankdir=LR;\n";
    out += "  fontname=\"Helvetica,Arial,sans-serif\";\n";
    out += "  node [shape=ellipse fontname=\"Helvetica,Arial,sans-serif\"];\n";
    out += "  edge [fontname=\"Helvetica,Arial,sans-serif\"];\n";
    // Title and legend above the picture.
    out += "  labelloc=t;\n";
    out += "  label=<<table border=\"0\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"4\">";
    out += "<tr><td colspan=\"3\"><font point-size=\"18\">" + title + (coloured ? "" : " (same behaviour)") +
           "</font></td></tr>";
    out += "<tr><td>black: unchanged</td><td><font color=\"" + added + "\">green +: added (only new)</font></td>";
    out += "<td><font color=\"" + removed + "\">red -: removed (only old)</font></td></tr>";
    out += "<tr><td>solid: callin()</td><td>dashed: callback</td><td>dotted: quiet</td></tr></table>>;\n";
    out += "  __start0 [label=\"\" shape=none width=0 height=0];\n";
    out += nodes;
    out += edges;
    out += "  __start0 -> " + old_id(initial) + ";\n}\n";
    return out;
}

}  // namespace

std::string write_diff_dot(const Spec& old_spec, const Spec& new_spec) {
    const detail::AlignedTypestates a = detail::align_typestates(old_spec.typestate, new_spec.typestate);
    const Typestate& o = a.old_t;
    const Typestate& n = a.new_t;

    // A new state is drawn as the first old state paired with it, or as a node of its own.
    std::vector<std::optional<StateId>> partner(n.states.size());
    for (StateId p = 0; p < o.states.size(); ++p)
        if (a.pair[p] && !partner[*a.pair[p]]) partner[*a.pair[p]] = p;
    const auto new_id = [&](StateId q) { return partner[q] ? old_id(*partner[q]) : "n" + std::to_string(q); };
    // Where a new transition into `q` is drawn: to the old transition's target when that target is
    // paired with `q` (the transition is unchanged, as diff_specs judges it), else to q's node.
    const auto new_target = [&](std::optional<StateId> old_target, StateId q) {
        return old_target && a.pair[*old_target] == q ? old_id(*old_target) : new_id(q);
    };

    const auto callin_edge = [&](const Typestate& t, StateId s, std::size_t c) -> std::optional<StateId> {
        return t.states[s].callins[c];
    };
    const auto wait_edge = [&](const Typestate& t, StateId s) -> std::optional<std::pair<StateId, Edge>> {
        const auto& state = t.states[s];
        if (state.callback)
            return std::pair{state.callback->target,
                             Edge{"", t.callbacks.at(state.callback->callback), Line::Callback}};
        if (state.wait == Typestate::Wait::Quiet)
            return std::pair{state.quiet_target.value_or(s), Edge{"", "quiet", Line::Quiet}};
        return std::nullopt;
    };

    std::vector<Drawn> drawn;
    const auto draw = [&](const std::string& source, const Edge& e, std::string_view colour, std::string_view sign) {
        for (auto& d : drawn) {
            if (d.source == source && d.edge.target == e.target && d.edge.line == e.line && d.colour == colour) {
                d.labels.push_back(e.label);
                return;
            }
        }
        drawn.push_back({source, e, colour, std::string(sign), {e.label}});
    };
    const auto compare = [&](const std::string& source, const std::optional<Edge>& before,
                             const std::optional<Edge>& after) {
        if (before == after) {
            const bool quiet_loop = before && before->line == Line::Quiet && before->target == source;
            if (before && !quiet_loop) draw(source, *before, "", "");
            return;
        }
        if (before) draw(source, *before, kRemovedColour, "- ");
        if (after) draw(source, *after, kAddedColour, "+ ");
    };

    // Edges of old states (paired ones against their partner), per callin in name order, then `wait`.
    for (StateId p = 0; p < o.states.size(); ++p) {
        const std::string source = old_id(p);
        const std::optional<StateId> q = a.pair[p];
        for (std::size_t c = 0; c < a.callins.size(); ++c) {
            const auto old_target = callin_edge(o, p, c);
            std::optional<Edge> before, after;
            if (old_target) before = Edge{old_id(*old_target), a.callins[c] + "()", Line::Callin};
            if (q)
                if (const auto new_to = callin_edge(n, *q, c))
                    after = Edge{new_target(old_target, *new_to), a.callins[c] + "()", Line::Callin};
            compare(source, before, after);
        }
        const auto old_wait = wait_edge(o, p);
        // A state only one side has is drawn like write_typestate_dot draws it: no quiet self-loop.
        if (!q && old_wait && old_wait->second.line == Line::Quiet && old_wait->first == p) continue;
        std::optional<Edge> before, after;
        if (old_wait) {
            before = old_wait->second;
            before->target = old_id(old_wait->first);
        }
        if (q) {
            if (auto new_wait = wait_edge(n, *q)) {
                after = new_wait->second;
                after->target = new_target(old_wait ? std::optional(old_wait->first) : std::nullopt, new_wait->first);
            }
        }
        compare(source, before, after);
    }
    // Edges of new states that have no old partner: all added.
    for (StateId q = 0; q < n.states.size(); ++q) {
        if (partner[q]) continue;
        const std::string source = new_id(q);
        for (std::size_t c = 0; c < a.callins.size(); ++c)
            if (const auto to = callin_edge(n, q, c))
                compare(source, std::nullopt, Edge{new_id(*to), a.callins[c] + "()", Line::Callin});
        auto new_wait = wait_edge(n, q);
        if (new_wait && !(new_wait->second.line == Line::Quiet && new_wait->first == q)) {
            new_wait->second.target = new_id(new_wait->first);
            compare(source, std::nullopt, new_wait->second);
        }
    }

    bool coloured = false;
    const std::string edges = edges_text(drawn, coloured);
    const std::string nodes = nodes_text(a, partner, new_id, coloured);
    return diff_dot_text(old_spec, new_spec, coloured, nodes, edges, o.initial);
}

}  // namespace typestar::spec
