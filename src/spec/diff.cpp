#include "typestar/spec/diff.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "diff_pairing.hpp"
#include "spec_detail.hpp"
#include "typestar/core/algorithms.hpp"

namespace typestar::spec {
namespace {

std::vector<std::string> sorted_minus(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::set<std::string> out(a.begin(), a.end());
    for (const auto& x : b) out.erase(x);
    return {out.begin(), out.end()};
}

std::vector<std::string> names(const Word& word, const Alphabet& alphabet) { return names_of(word, alphabet); }

/// What `wait` does in `s`, in `t`'s names.
std::string describe_wait(const Typestate& t, StateId id) {
    const auto& s = t.states[id];
    if (s.callback) return s.callback->callback < t.callbacks.size()
                               ? t.callbacks[s.callback->callback] + " -> " + t.states[s.callback->target].name
                               : std::string("?");
    if (s.wait == Typestate::Wait::Err) return "err";
    const StateId target = s.quiet_target.value_or(id);
    return target == id ? "quiet" : "quiet -> " + t.states[target].name;
}

std::string describe_unknown(const Unknown& u) {
    return "unknown (" + std::string(to_string(u.source)) + (u.reason.empty() ? "" : ": " + u.reason) + ")";
}

/// What callin `c` does in state `id` of `t`: "-> S", "CONNACK -> S" (a named output), "err", or unknown.
std::string describe_callin(const Typestate& t, StateId id, std::size_t c) {
    if (const Unknown* u = t.unknown_at(id, c)) return describe_unknown(*u);
    const auto& target = t.states[id].callins[c];
    if (!target) return "err";
    const std::string_view answer = t.answer_of(id, c);
    return (answer == kOk ? std::string() : std::string(answer) + " ") + "-> " + t.states[*target].name;
}

/// Width of `s` in code points (UTF-8 continuation bytes don't count).
std::size_t width(const std::string& s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

/// A table cell: names printed without raw control characters (a name cannot break the table or
/// send a terminal escape), `|` escaped.
std::string cell(const std::string& text) {
    const std::string s = detail::printable(text);
    std::string out;
    for (char c : s) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

std::string join(const std::vector<std::string>& words) {
    if (words.empty()) return "ε";
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

/// A Markdown table with columns padded to equal width.
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> widths(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) widths[c] = std::max<std::size_t>(3, width(header[c]));
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], width(row[c]));
    const auto line = [&](const std::vector<std::string>& row) {
        std::string out = "|";
        for (std::size_t c = 0; c < row.size(); ++c)
            out += " " + row[c] + std::string(widths[c] - width(row[c]), ' ') + " |";
        return out + "\n";
    };
    std::string out = line(header);
    out += "|";
    for (auto w : widths) out += std::string(w + 2, '-') + "|";
    out += "\n";
    for (const auto& row : rows) out += line(row);
    return out;
}

std::string code(const std::string& s) { return "`" + detail::printable(s) + "`"; }

}  // namespace

std::vector<StatePair> pair_states(const Typestate& old_typestate, const Typestate& new_typestate) {
    const detail::AlignedTypestates a = detail::align_typestates(old_typestate, new_typestate);
    std::vector<StatePair> pairs;
    for (StateId p = 0; p < a.old_t.states.size(); ++p)
        if (a.pair[p]) pairs.push_back({a.old_t.states[p].name, a.new_t.states[*a.pair[p]].name});
    return pairs;
}

namespace {

/// The states of `a` that changed: old states merged into one new state, old states without a
/// partner, new states without one (with every transition out of them).
void add_state_changes(const detail::AlignedTypestates& a, SpecDiff& diff) {
    const auto& callins = a.callins;
    const Typestate& old_t = a.old_t;
    const Typestate& new_t = a.new_t;
    const MealyMachine& old_c = a.old_c;
    const MealyMachine& new_c = a.new_c;
    const auto& order = a.order;
    const auto old_states = old_t.states.size();
    const auto new_states = new_t.states.size();
    // Old states paired with one new state: merged there (by the new state's canonical order).
    {
        std::map<StateId, std::vector<StateId>> by_new;
        for (StateId p = 0; p < old_states; ++p)
            if (a.pair[p]) by_new[*a.pair[p]].push_back(p);
        for (const auto& [q, olds] : by_new) {
            if (olds.size() < 2) continue;
            MergedStates m;
            for (const StateId p : olds) m.old_states.push_back(old_t.states[p].name);
            m.new_state = a.paired_name[olds.front()];
            diff.merged_states.push_back(std::move(m));
        }
    }
    const auto& pair = a.pair;
    const auto& new_seen = a.new_seen;
    const auto old_access = access_sequences(old_c, order);
    const auto new_access = access_sequences(new_c, order);
    for (StateId p = 0; p < old_states; ++p)
        if (!pair[p] && old_access[p])
            diff.old_only_states.push_back({old_t.states[p].name, names(*old_access[p], old_c.inputs()), {}, {}});
    // A new state no old state is paired with has no counterpart: it is listed with every
    // transition out of it (a state seen only beside an already paired old state is a split of it).
    std::vector<bool> partnered(new_states, false);
    for (StateId p = 0; p < old_states; ++p)
        if (pair[p]) partnered[*pair[p]] = true;
    for (StateId q = 0; q < new_states; ++q) {
        if (partnered[q] || !new_access[q]) continue;
        UnpairedState state{new_t.states[q].name, names(*new_access[q], new_c.inputs()), {}, {}};
        if (new_seen[q] && a.new_alongside[q]) state.alongside = old_t.states[*a.new_alongside[q]].name;
        for (const Symbol input : order) {
            if (old_c.inputs().find(kWait) == input) {
                state.transitions.push_back({std::string(kWait), describe_wait(new_t, q)});
                continue;
            }
            state.transitions.push_back({callins[input], describe_callin(new_t, q, input)});
        }
        diff.new_only_states.push_back(std::move(state));
    }
}

/// The transitions of each paired state that changed (added, removed, changed), and the unknown
/// transitions that changed.
void add_transition_changes(const detail::AlignedTypestates& a, SpecDiff& diff) {
    const auto& callins = a.callins;
    const Typestate& old_t = a.old_t;
    const Typestate& new_t = a.new_t;
    const MealyMachine& old_c = a.old_c;
    const auto& order = a.order;
    const auto& pair = a.pair;
    const auto& access = a.access;
    const auto old_states = old_t.states.size();
    const std::optional<Symbol> wait = old_c.inputs().find(kWait);
    for (StateId p = 0; p < old_states; ++p) {
        if (!pair[p]) continue;
        const StateId q = *pair[p];
        const auto& os = old_t.states[p];
        const auto& ns = new_t.states[q];
        const auto change = [&](TransitionChange::Kind kind, std::string symbol, std::string before, std::string after) {
            diff.changes.push_back({kind, os.name, a.paired_name[p], std::move(symbol), names(access[p], old_c.inputs()),
                                    std::move(before), std::move(after)});
        };
        const auto same_target = [&](StateId old_target, StateId new_target) {
            return pair[old_target] && *pair[old_target] == new_target;
        };
        for (const Symbol input : order) {
            if (input == wait) {
                const bool old_err = !os.callback && os.wait == Typestate::Wait::Err;
                const bool new_err = !ns.callback && ns.wait == Typestate::Wait::Err;
                const std::string before = describe_wait(old_t, p);
                const std::string after = describe_wait(new_t, q);
                if (old_err && new_err) continue;
                if (old_err) {
                    change(TransitionChange::Kind::Added, std::string(kWait), before, after);
                } else if (new_err) {
                    change(TransitionChange::Kind::Removed, std::string(kWait), before, after);
                } else {
                    bool same = false;
                    if (os.callback && ns.callback) {
                        same = os.callback->callback == ns.callback->callback &&
                               same_target(os.callback->target, ns.callback->target);
                    } else if (!os.callback && !ns.callback) {
                        same = same_target(os.quiet_target.value_or(p), ns.quiet_target.value_or(q));
                    }
                    if (!same) change(TransitionChange::Kind::Changed, std::string(kWait), before, after);
                }
                continue;
            }
            const auto& old_target = os.callins[input];
            const auto& new_target = ns.callins[input];
            const std::string& symbol = callins[input];
            const Unknown* old_unknown = old_t.unknown_at(p, input);
            const Unknown* new_unknown = new_t.unknown_at(q, input);
            const std::string before = describe_callin(old_t, p, input);
            const std::string after = describe_callin(new_t, q, input);
            if (old_unknown || new_unknown) {
                if (!(old_unknown && new_unknown && *old_unknown == *new_unknown))
                    diff.unknown_changes.push_back({TransitionChange::Kind::Changed, os.name, a.paired_name[p], symbol,
                                                    names(access[p], old_c.inputs()), before, after});
                continue;
            }
            if (!old_target && !new_target) continue;
            if (!old_target) {
                change(TransitionChange::Kind::Added, symbol, before, after);
            } else if (!new_target) {
                change(TransitionChange::Kind::Removed, symbol, before, after);
            } else if (!same_target(*old_target, *new_target) || old_t.answer_of(p, input) != new_t.answer_of(q, input)) {
                change(TransitionChange::Kind::Changed, symbol, before, after);
            }
        }
    }
}

}  // namespace

SpecDiff diff_specs(const Spec& old_spec, const Spec& new_spec) {
    const Typestate& o = old_spec.typestate;
    const Typestate& n = new_spec.typestate;
    SpecDiff diff;
    diff.old_name = o.name;
    diff.new_name = n.name;
    diff.callins_added = sorted_minus(n.callins, o.callins);
    diff.callins_removed = sorted_minus(o.callins, n.callins);
    diff.callbacks_added = sorted_minus(n.callbacks, o.callbacks);
    diff.callbacks_removed = sorted_minus(o.callbacks, n.callbacks);

    for (const auto& input : o.callins) {
        if (std::find(n.callins.begin(), n.callins.end(), input) == n.callins.end()) continue;
        const auto text = [&](const InputInfo& info) {
            return info.guard + (info.environment ? "; role: environment" : "");
        };
        if (o.info(input) != n.info(input)) diff.guard_changes.push_back({input, text(o.info(input)), text(n.info(input))});
    }
    std::sort(diff.guard_changes.begin(), diff.guard_changes.end(),
              [](const GuardChange& x, const GuardChange& y) { return x.input < y.input; });

    const detail::AlignedTypestates a = detail::align_typestates(o, n);
    diff.old_state_count = a.old_t.states.size();
    diff.new_state_count = a.new_t.states.size();
    const MealyMachine& old_c = a.old_c;
    const MealyMachine& new_c = a.new_c;

    if (const auto word = separating_word(old_c, new_c)) {
        SeparatingTrace trace;
        trace.inputs = names(*word, old_c.inputs());
        trace.old_outputs = names(old_c.outputs_of(*word), old_c.outputs());
        const Word new_word = word_of(trace.inputs, new_c.inputs());
        trace.new_outputs = names(new_c.outputs_of(new_word), new_c.outputs());
        diff.witness = std::move(trace);
    } else if (!o.has_unknown() && !n.has_unknown()) {
        return diff;  // same behaviour: any state-level difference is only naming
    }

    add_state_changes(a, diff);
    add_transition_changes(a, diff);
    return diff;
}

std::string states_gone(const SpecDiff& diff, std::string_view old_word) {
    std::size_t gone = diff.old_only_states.size();
    std::string parts;
    for (const auto& m : diff.merged_states) {
        gone += m.old_states.size() - 1;
        // The new state keeps one old name (the others merged into it), or goes by another name.
        const bool keeps_a_name =
            std::find(m.old_states.begin(), m.old_states.end(), m.new_state) != m.old_states.end();
        std::string names;
        for (const auto& s : m.old_states)
            if (!keeps_a_name || s != m.new_state) names += (names.empty() ? "" : ", ") + s;
        parts += (parts.empty() ? "" : "; ") + names + " merged into " + m.new_state;
    }
    if (!diff.old_only_states.empty()) {
        std::string names;
        for (const auto& s : diff.old_only_states) names += (names.empty() ? "" : ", ") + s.name;
        parts += (parts.empty() ? "" : "; ") + names + " not reached";
    }
    if (gone == 0) return {};
    return std::to_string(gone) + " of " + std::to_string(diff.old_state_count) + " " + std::string(old_word) +
           " state" + (diff.old_state_count == 1 ? "" : "s") + (gone == 1 ? " is" : " are") + " gone: " + parts;
}

std::string format_diff(const SpecDiff& diff) {
    if (diff.empty()) return "same behaviour\n";
    std::string out = "## Typestate diff: " + code(diff.old_name) + " (old) vs " + code(diff.new_name) + " (new)\n";
    if (const std::string gone = states_gone(diff); !gone.empty())
        out += "\n**" + detail::printable(gone) + "** (the old typestate has " + std::to_string(diff.old_state_count) +
               " states, the new one " + std::to_string(diff.new_state_count) + ").\n";

    if (!diff.callins_added.empty() || !diff.callins_removed.empty() || !diff.callbacks_added.empty() ||
        !diff.callbacks_removed.empty()) {
        out += "\n### Alphabet\n\n";
        const auto list = [&](const char* what, const std::vector<std::string>& symbols) {
            for (const auto& s : symbols) out += std::string("- ") + what + " " + code(s) + "\n";
        };
        list("callin added:", diff.callins_added);
        list("callin removed:", diff.callins_removed);
        list("callback added:", diff.callbacks_added);
        list("callback removed:", diff.callbacks_removed);
    }

    if (!diff.changes.empty()) {
        out += "\n### Transitions\n\n";
        std::vector<std::vector<std::string>> rows;
        for (const auto& c : diff.changes) {
            const std::string kind = c.kind == TransitionChange::Kind::Added     ? "added"
                                     : c.kind == TransitionChange::Kind::Removed ? "removed"
                                                                                 : "changed";
            const std::string state = c.old_state == c.new_state ? c.old_state
                                                                 : c.old_state + " (new: " + c.new_state + ")";
            rows.push_back({cell(state), cell(join(c.access)), cell(c.symbol), kind, cell(c.before), cell(c.after)});
        }
        out += table({"state", "reached by", "symbol", "change", "old", "new"}, rows);
    }

    if (!diff.unknown_changes.empty()) {
        out += "\n### Unknown transitions (legal or err <-> unknown)\n\n";
        std::vector<std::vector<std::string>> rows;
        for (const auto& c : diff.unknown_changes) {
            const std::string state = c.old_state == c.new_state ? c.old_state
                                                                 : c.old_state + " (new: " + c.new_state + ")";
            rows.push_back({cell(state), cell(join(c.access)), cell(c.symbol), cell(c.before), cell(c.after)});
        }
        out += table({"state", "reached by", "input", "old", "new"}, rows);
    }

    if (!diff.guard_changes.empty()) {
        out += "\n### Guards and roles\n\n";
        std::vector<std::vector<std::string>> rows;
        for (const auto& g : diff.guard_changes)
            rows.push_back({cell(g.input), cell(g.before.empty() ? "(none)" : g.before),
                            cell(g.after.empty() ? "(none)" : g.after)});
        out += table({"input", "old guard", "new guard"}, rows);
    }

    if (!diff.old_only_states.empty() || !diff.new_only_states.empty()) {
        out += "\n### States\n\n";
        for (const auto& s : diff.old_only_states)
            out += "- old state " + code(s.name) + " (reached by " + code(join(s.access)) +
                   ") is not reached in the new typestate\n";
        for (const auto& s : diff.new_only_states) {
            out += "- new state " + code(s.name) + " (reached by " + code(join(s.access)) + ")" +
                   (s.alongside.empty() ? " has no counterpart in the old typestate"
                                        : ": a split of old state " + code(s.alongside) +
                                              ", which the same words reach") +
                   "; its transitions:\n";
            for (const auto& t : s.transitions) out += "  - " + code(t.symbol) + ": " + code(t.effect) + "\n";
        }
    }

    if (diff.witness) {
        const auto& w = *diff.witness;
        out += "\n### Shortest separating trace\n\n";
        std::vector<std::vector<std::string>> rows;
        for (std::size_t i = 0; i < w.inputs.size(); ++i) {
            const bool differs = w.old_outputs[i] != w.new_outputs[i];
            rows.push_back({std::to_string(i + 1), cell(w.inputs[i]), cell(w.old_outputs[i]), cell(w.new_outputs[i]),
                            differs ? "<-" : ""});
        }
        out += table({"#", "input", "old output", "new output", ""}, rows);
    } else if (diff.unknown_changes.empty()) {
        out += "\nThe closures have the same behaviour over the shared symbols.\n";
    } else {
        out += "\nThe closures (unknown answered as err) have the same behaviour over the shared symbols.\n";
    }
    return out;
}

}  // namespace typestar::spec
