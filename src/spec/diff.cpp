#include "typestar/spec/diff.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "spec_detail.hpp"
#include "typestar/core/algorithms.hpp"

namespace typestar::spec {
namespace {

std::vector<std::string> sorted_union(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::set<std::string> all(a.begin(), a.end());
    all.insert(b.begin(), b.end());
    return {all.begin(), all.end()};
}

std::vector<std::string> sorted_minus(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::set<std::string> out(a.begin(), a.end());
    for (const auto& x : b) out.erase(x);
    return {out.begin(), out.end()};
}

/// `t` over the given callins and callbacks (supersets of its own); new callins are refused
/// everywhere.
Typestate extended(const Typestate& t, const std::vector<std::string>& callins,
                   const std::vector<std::string>& callbacks) {
    const auto index_in = [](const std::vector<std::string>& names, const std::string& name) {
        return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
    };
    Typestate out;
    out.name = t.name;
    out.callins = callins;
    out.callbacks = callbacks;
    out.initial = t.initial;
    for (const auto& s : t.states) {
        Typestate::State state;
        state.name = s.name;
        state.callins.assign(callins.size(), std::nullopt);
        if (s.callins.size() != t.callins.size())
            throw std::invalid_argument("typestate state '" + s.name + "' does not list every callin");
        for (std::size_t c = 0; c < s.callins.size(); ++c) state.callins[index_in(callins, t.callins[c])] = s.callins[c];
        if (s.callback) {
            if (s.callback->callback >= t.callbacks.size())
                throw std::invalid_argument("typestate callback index out of range");
            state.callback = Typestate::CallbackEdge{index_in(callbacks, t.callbacks[s.callback->callback]),
                                                     s.callback->target};
        }
        state.wait = s.wait;
        state.quiet_target = s.quiet_target;
        out.states.push_back(std::move(state));
    }
    return out;
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

    const auto callins = sorted_union(o.callins, n.callins);
    const auto callbacks = sorted_union(o.callbacks, n.callbacks);
    const Typestate new_ext = extended(n, callins, callbacks);
    const Typestate old_t = canonical(extended(o, callins, callbacks));
    const Typestate new_t = canonical(new_ext);
    const MealyMachine old_c = synchronous_closure(old_t);
    const MealyMachine new_c = synchronous_closure(new_t);

    if (const auto word = separating_word(old_c, new_c)) {
        SeparatingTrace trace;
        trace.inputs = names(*word, old_c.inputs());
        trace.old_outputs = names(old_c.outputs_of(*word), old_c.outputs());
        const Word new_word = word_of(trace.inputs, new_c.inputs());
        trace.new_outputs = names(new_c.outputs_of(new_word), new_c.outputs());
        diff.witness = std::move(trace);
    } else {
        return diff;  // same behaviour: any state-level difference is only naming
    }

    // Both closures have the inputs callins (sorted union) then `wait`, in the same order.
    const auto order = old_c.inputs().sorted_ids();
    const auto old_states = old_t.states.size();
    const auto new_states = new_t.states.size();

    // Lockstep breadth-first walk over pairs of live states (neither side in its error sink). Each
    // old state is paired with the new state at the first pair it appears in, so its access word is
    // the shortest one both typestates accept; a removed callin thus does not unpair the states
    // behind it that stay reachable some other way.
    std::vector<std::optional<StateId>> pair(old_states);
    std::vector<Word> access(old_states);
    std::vector<bool> new_seen(new_states, false);
    {
        std::set<std::pair<StateId, StateId>> visited{{old_c.initial(), new_c.initial()}};
        std::vector<std::pair<std::pair<StateId, StateId>, Word>> queue{{{old_c.initial(), new_c.initial()}, {}}};
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const auto [states, word] = queue[head];
            const auto [p, q] = states;
            new_seen[q] = true;
            if (!pair[p]) {
                pair[p] = q;
                access[p] = word;
            }
            for (const Symbol input : order) {
                const std::pair<StateId, StateId> next{old_c.successor(p, input), new_c.successor(q, input)};
                if (next.first >= old_states || next.second >= new_states) continue;  // an error sink
                if (!visited.insert(next).second) continue;
                Word longer = word;
                longer.push_back(input);
                queue.emplace_back(next, std::move(longer));
            }
        }
    }
    const auto old_access = access_sequences(old_c, order);
    const auto new_access = access_sequences(new_c, order);
    for (StateId p = 0; p < old_states; ++p)
        if (!pair[p] && old_access[p])
            diff.old_only_states.push_back({old_t.states[p].name, names(*old_access[p], old_c.inputs())});
    for (StateId q = 0; q < new_states; ++q)
        if (!new_seen[q] && new_access[q])
            diff.new_only_states.push_back({new_t.states[q].name, names(*new_access[q], new_c.inputs())});

    // Which canonical new state each state name of the new spec stands for, so that a paired state
    // keeps its old name when the new spec has a state of that name with that behaviour.
    std::map<std::string, StateId> new_class_of;
    {
        const MealyMachine ext_c = synchronous_closure(new_ext);
        const auto ext_access = access_sequences(ext_c, order);
        for (StateId s = 0; s < new_ext.states.size(); ++s)
            if (ext_access[s]) new_class_of.emplace(new_ext.states[s].name, new_c.run(*ext_access[s]));
    }
    const auto new_name = [&](StateId p, StateId q) {
        const std::string& old_name = old_t.states[p].name;
        const auto it = new_class_of.find(old_name);
        return it != new_class_of.end() && it->second == q ? old_name : new_t.states[q].name;
    };

    const Symbol wait = old_c.inputs().at(kWait);
    for (StateId p = 0; p < old_states; ++p) {
        if (!pair[p]) continue;
        const StateId q = *pair[p];
        const auto& os = old_t.states[p];
        const auto& ns = new_t.states[q];
        const auto change = [&](TransitionChange::Kind kind, std::string symbol, std::string before, std::string after) {
            diff.changes.push_back({kind, os.name, new_name(p, q), std::move(symbol), names(access[p], old_c.inputs()),
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
            if (!old_target && !new_target) continue;
            const std::string before = old_target ? "-> " + old_t.states[*old_target].name : "err";
            const std::string after = new_target ? "-> " + new_t.states[*new_target].name : "err";
            if (!old_target) {
                change(TransitionChange::Kind::Added, symbol, before, after);
            } else if (!new_target) {
                change(TransitionChange::Kind::Removed, symbol, before, after);
            } else if (!same_target(*old_target, *new_target)) {
                change(TransitionChange::Kind::Changed, symbol, before, after);
            }
        }
    }
    return diff;
}

std::string format_diff(const SpecDiff& diff) {
    if (diff.empty()) return "same behaviour\n";
    std::string out = "## Typestate diff: " + code(diff.old_name) + " (old) vs " + code(diff.new_name) + " (new)\n";

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

    if (!diff.old_only_states.empty() || !diff.new_only_states.empty()) {
        out += "\n### States\n\n";
        for (const auto& s : diff.old_only_states)
            out += "- old state " + code(s.name) + " (reached by " + code(join(s.access)) +
                   ") is not reached in the new typestate\n";
        for (const auto& s : diff.new_only_states)
            out += "- new state " + code(s.name) + " (reached by " + code(join(s.access)) +
                   ") has no counterpart in the old typestate\n";
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
    } else {
        out += "\nThe closures have the same behaviour over the shared symbols.\n";
    }
    return out;
}

}  // namespace typestar::spec
