#include "typestar/core/typestate.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"

namespace typestar {

std::string abstract_input(std::string_view callin, std::string_view partition) {
    return std::string(callin) + "[" + std::string(partition) + "]";
}

bool is_reserved(std::string_view name) {
    return name == kWait || name == kQuiet || name == kOk || name == kErr;
}

std::string_view to_string(Unknown::Source source) noexcept {
    switch (source) {
        case Unknown::Source::Purpose: return "purpose";
        case Unknown::Source::Unresolved: return "unresolved";
        case Unknown::Source::Disagreeing: return "disagreeing";
    }
    return "purpose";
}

std::optional<Unknown::Source> parse_unknown_source(std::string_view name) noexcept {
    for (auto s : {Unknown::Source::Purpose, Unknown::Source::Unresolved, Unknown::Source::Disagreeing})
        if (to_string(s) == name) return s;
    return std::nullopt;
}

bool Typestate::has_unknown() const {
    return std::any_of(states.begin(), states.end(), [](const State& s) { return !s.unknown.empty(); });
}

const Unknown* Typestate::unknown_at(StateId state, std::size_t callin) const {
    if (state >= states.size()) return nullptr;
    const auto it = states[state].unknown.find(callin);
    return it == states[state].unknown.end() ? nullptr : &it->second;
}

const InputInfo& Typestate::info(std::string_view input) const {
    static const InputInfo kDefault;
    const auto it = input_info.find(input);
    return it == input_info.end() ? kDefault : it->second;
}

std::optional<UnknownStep> first_unknown(const Typestate& t, std::span<const std::string> inputs) {
    if (t.initial >= t.states.size()) return std::nullopt;
    StateId s = t.initial;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const Typestate::State& st = t.states[s];
        if (inputs[k] == kWait) {
            if (st.callback) s = st.callback->target;
            else if (st.wait == Typestate::Wait::Err) return std::nullopt;
            else s = st.quiet_target.value_or(s);
            continue;
        }
        const auto it = std::find(t.callins.begin(), t.callins.end(), inputs[k]);
        if (it == t.callins.end()) return std::nullopt;
        const auto c = static_cast<std::size_t>(it - t.callins.begin());
        if (const auto u = st.unknown.find(c); u != st.unknown.end()) return UnknownStep{k, st.name, u->second};
        if (c >= st.callins.size() || !st.callins[c]) return std::nullopt;
        s = *st.callins[c];
    }
    return std::nullopt;
}

std::string_view Typestate::answer_of(StateId state, std::size_t callin) const {
    if (state < states.size())
        if (const auto it = states[state].answers.find(callin); it != states[state].answers.end() && it->second < outputs.size())
            return outputs[it->second];
    return kOk;
}

std::optional<StateId> Typestate::find_state(std::string_view state_name) const {
    for (std::size_t s = 0; s < states.size(); ++s)
        if (states[s].name == state_name) return static_cast<StateId>(s);
    return std::nullopt;
}

MealyMachine synchronous_closure(const Typestate& ts) {
    if (ts.states.empty()) throw std::invalid_argument("typestate '" + ts.name + "' has no states");
    if (ts.initial >= ts.states.size()) throw std::invalid_argument("initial state out of range");
    for (const auto& c : ts.callins)
        if (is_reserved(c)) throw std::invalid_argument("reserved name '" + c + "' used as a callin");
    for (const auto& c : ts.callbacks)
        if (is_reserved(c)) throw std::invalid_argument("reserved name '" + c + "' used as a callback");
    for (const auto& o : ts.outputs)
        if (is_reserved(o) && !(o == kErr && !ts.err_absorbing))
            throw std::invalid_argument("reserved name '" + o + "' used as a named output" +
                                        (o == kErr ? " (err is absorbing: a callin answering it is refused)" : ""));
    if (!ts.has_wait && !ts.callbacks.empty())
        throw std::invalid_argument("typestate '" + ts.name + "' has callbacks but no 'wait' input");

    std::vector<std::string> in_names = ts.callins;
    if (ts.has_wait) in_names.emplace_back(kWait);
    std::vector<std::string> out_names{std::string(kOk), std::string(kQuiet), std::string(kErr)};
    out_names.insert(out_names.end(), ts.callbacks.begin(), ts.callbacks.end());
    std::vector<Symbol> named(ts.outputs.size());
    for (std::size_t o = 0; o < ts.outputs.size(); ++o) {
        const auto it = std::find(out_names.begin(), out_names.end(), ts.outputs[o]);
        named[o] = static_cast<Symbol>(it - out_names.begin());
        if (it == out_names.end()) out_names.push_back(ts.outputs[o]);
    }
    Alphabet inputs(in_names);   // throws on duplicates
    Alphabet outputs(out_names);
    const Symbol ok = 0, quiet = 1, err = 2;
    const auto wait = static_cast<Symbol>(ts.callins.size());

    const auto n = static_cast<StateId>(ts.states.size());
    const StateId sink = n;  // used only if some transition errs
    bool needs_sink = false;
    const std::size_t k = inputs.size();
    std::vector<Transition> table(static_cast<std::size_t>(n + 1) * k);
    auto check_target = [&](StateId t) {
        if (t >= n) throw std::invalid_argument("transition target out of range in '" + ts.name + "'");
        return t;
    };
    for (StateId s = 0; s < n; ++s) {
        const auto& st = ts.states[s];
        if (st.callins.size() != ts.callins.size())
            throw std::invalid_argument("state '" + st.name + "' has the wrong number of callin entries");
        for (std::size_t c = 0; c < ts.callins.size(); ++c) {
            auto& slot = table[s * k + c];
            if (st.callins[c]) {
                Symbol out = ok;
                if (const auto a = st.answers.find(c); a != st.answers.end()) {
                    if (a->second >= named.size())
                        throw std::invalid_argument("named output out of range in state '" + st.name + "'");
                    out = named[a->second];
                }
                slot = {check_target(*st.callins[c]), out};
            } else {
                if (!ts.err_absorbing && !st.unknown.contains(c))
                    throw std::invalid_argument("state '" + st.name + "' refuses callin '" + ts.callins[c] +
                                                "' but err is not absorbing: give its answer and target");
                slot = {sink, err};
                needs_sink = true;
            }
        }
        if (!ts.has_wait) continue;
        auto& w = table[s * k + wait];
        if (st.callback) {
            if (st.callback->callback >= ts.callbacks.size())
                throw std::invalid_argument("callback out of range in state '" + st.name + "'");
            w = {check_target(st.callback->target), static_cast<Symbol>(3 + st.callback->callback)};
        } else if (st.wait == Typestate::Wait::Err) {
            w = {sink, err};
            needs_sink = true;
        } else {
            w = {st.quiet_target ? check_target(*st.quiet_target) : s, quiet};
        }
    }
    std::vector<std::string> names;
    for (const auto& st : ts.states) names.push_back(st.name);
    if (needs_sink) {
        for (std::size_t i = 0; i < k; ++i) table[sink * k + i] = {sink, err};
        names.emplace_back(kErrorSinkName);
    } else {
        table.resize(n * k);
    }
    return MealyMachine(std::move(inputs), std::move(outputs), ts.initial, std::move(table), std::move(names));
}

namespace {

/// States from which only `err` can ever be output (the greatest fixpoint), in O(n·k): a state is
/// not a sink iff it reaches a transition answering something else, found backwards from those.
std::vector<bool> err_sinks(const MealyMachine& m, std::optional<Symbol> err) {
    const std::size_t n = m.num_states(), k = m.num_inputs();
    std::vector<bool> sink(n, err.has_value());
    if (!err) return sink;
    std::vector<std::uint32_t> start(n + 1, 0);  // predecessors by target, compressed rows
    for (StateId s = 0; s < n; ++s)
        for (Symbol i = 0; i < k; ++i) ++start[m.successor(s, i) + 1];
    for (std::size_t x = 1; x <= n; ++x) start[x] += start[x - 1];
    std::vector<StateId> pred(n * k);
    std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
    for (StateId s = 0; s < n; ++s)
        for (Symbol i = 0; i < k; ++i) pred[fill[m.successor(s, i)]++] = s;
    std::vector<StateId> queue;
    for (StateId s = 0; s < n; ++s)
        for (Symbol i = 0; i < k && sink[s]; ++i)
            if (m.output(s, i) != *err) {
                sink[s] = false;
                queue.push_back(s);
            }
    for (std::size_t head = 0; head < queue.size(); ++head)
        for (std::uint32_t z = start[queue[head]]; z < start[queue[head] + 1]; ++z)
            if (sink[pred[z]]) {
                sink[pred[z]] = false;
                queue.push_back(pred[z]);
            }
    return sink;
}

/// typestate_of, where the outputs in `unknown_outputs` (never reserved names) answer a callin with
/// an unknown transition (canonical() uses this to minimise three-valued typestates).
Typestate typestate_of_impl(const MealyMachine& m, std::string name,
                            const std::map<Symbol, Unknown>& unknown_outputs, const ClosureReading& reading);

}  // namespace

Typestate typestate_of(const MealyMachine& m, std::string name) { return typestate_of_impl(m, std::move(name), {}, {}); }

Typestate typestate_of(const MealyMachine& m, std::string name, const std::map<Symbol, Unknown>& unknown_outputs) {
    return typestate_of_impl(m, std::move(name), unknown_outputs, {});
}

Typestate typestate_of(const MealyMachine& m, std::string name, const std::map<Symbol, Unknown>& unknown_outputs,
                       const ClosureReading& reading) {
    return typestate_of_impl(m, std::move(name), unknown_outputs, reading);
}

namespace {

// Over 120 lines: reads a Mealy machine's closure into a typestate in one pass; not yet split.
Typestate typestate_of_impl(const MealyMachine& m, std::string name, const std::map<Symbol, Unknown>& unknown_outputs,
                            const ClosureReading& reading) {
    auto fail = [](const std::string& why) { throw NotAClosureError("not a synchronous closure: " + why); };
    const auto wait = m.inputs().find(kWait);
    for (const auto& in : m.inputs().names())
        if (in != kWait && is_reserved(in)) fail("reserved name '" + in + "' is used as an input");
    if (m.outputs().contains(kWait)) fail("'wait' is used as an output");
    const bool err_absorbing = reading.err_absorbing.value_or(wait.has_value());
    const auto ok = m.outputs().find(kOk);
    const auto quiet = m.outputs().find(kQuiet);
    const auto err = err_absorbing ? m.outputs().find(kErr) : std::nullopt;
    const auto sink = err_sinks(m, err);

    Typestate ts;
    ts.name = std::move(name);
    ts.has_wait = wait.has_value();
    ts.err_absorbing = err_absorbing;
    std::vector<Symbol> callin_ids;
    for (Symbol i = 0; i < m.num_inputs(); ++i) {
        if (wait && i == *wait) continue;
        callin_ids.push_back(i);
        ts.callins.push_back(m.inputs().name(i));
    }
    // Named outputs: the declared ones, then every other output a callin answers (besides ok, an
    // absorbing err and unknown answers), in output order. Callbacks: the declared ones, then (with
    // `wait`) every other output that is not reserved and not only a named output.
    const std::size_t no = m.outputs().size();
    std::vector<bool> answered_by_callin(no, false), answered_by_wait(no, false);
    for (StateId s = 0; s < m.num_states(); ++s) {
        for (Symbol i : callin_ids) answered_by_callin[m.output(s, i)] = true;
        if (wait) answered_by_wait[m.output(s, *wait)] = true;
    }
    auto named_candidate = [&](Symbol o) {
        const auto& n = m.outputs().name(o);
        if (unknown_outputs.contains(o) || n == kOk || (err && o == *err)) return false;
        return n == kErr || !is_reserved(n);
    };
    std::vector<std::optional<std::size_t>> named_index(no), callback_index(no);
    for (const auto& d : reading.outputs) {
        if (const auto o = m.outputs().find(d); o && named_candidate(*o) && !named_index[*o]) {
            named_index[*o] = ts.outputs.size();
            ts.outputs.push_back(d);
        }
    }
    for (Symbol o = 0; o < no; ++o)
        if (answered_by_callin[o] && named_candidate(o) && !named_index[o]) {
            named_index[o] = ts.outputs.size();
            ts.outputs.push_back(m.outputs().name(o));
        }
    if (wait) {
        for (const auto& d : reading.callbacks)
            if (const auto o = m.outputs().find(d); o && !is_reserved(d) && !unknown_outputs.contains(*o) && !callback_index[*o]) {
                callback_index[*o] = ts.callbacks.size();
                ts.callbacks.push_back(d);
            }
        for (Symbol o = 0; o < no; ++o) {
            if (is_reserved(m.outputs().name(o)) || unknown_outputs.contains(o) || callback_index[o]) continue;
            if (named_index[o] && !answered_by_wait[o]) continue;
            callback_index[o] = ts.callbacks.size();
            ts.callbacks.push_back(m.outputs().name(o));
        }
    }
    // Keep every state that is not an err sink, plus sinks entered without err (or initial).
    std::vector<bool> keep(m.num_states());
    for (StateId s = 0; s < m.num_states(); ++s) keep[s] = !sink[s] || s == m.initial();
    for (StateId s = 0; s < m.num_states(); ++s)
        for (Symbol i = 0; i < m.num_inputs(); ++i) {
            const auto& t = m.transition(s, i);
            if (!(err && t.output == *err) && !unknown_outputs.contains(t.output)) keep[t.target] = true;
        }
    constexpr StateId kDropped = static_cast<StateId>(-1);
    std::vector<StateId> index(m.num_states(), kDropped);
    for (StateId s = 0; s < m.num_states(); ++s) {
        if (!keep[s]) continue;
        index[s] = static_cast<StateId>(ts.states.size());
        ts.states.push_back(Typestate::State{m.state_name(s), {}, {}, Typestate::Wait::Quiet, {}});
    }
    ts.initial = index[m.initial()];
    for (StateId s = 0; s < m.num_states(); ++s) {
        if (!keep[s]) continue;
        auto& st = ts.states[index[s]];
        auto where = [&](Symbol i) { return "state " + m.state_name(s) + ", input '" + m.inputs().name(i) + "'"; };
        auto fail_at = [&](Symbol i, const std::string& why) {  // names the transition for locating it
            throw NotAClosureError("not a synchronous closure: " + why, m.state_name(s), m.inputs().name(i));
        };
        auto check_err = [&](Symbol i, const Transition& t) {
            if (!sink[t.target])
                fail_at(i, where(i) + " answers err but leads to state " + m.state_name(t.target) +
                     ", which answers something other than err: err must be absorbing");
        };
        for (Symbol i : callin_ids) {
            const auto& t = m.transition(s, i);
            if (err && t.output == *err) {
                check_err(i, t);
                st.callins.emplace_back(std::nullopt);
            } else if (ok && t.output == *ok) {
                st.callins.emplace_back(index[t.target]);
            } else if (const auto u = unknown_outputs.find(t.output); u != unknown_outputs.end()) {
                st.unknown.emplace(st.callins.size(), u->second);
                st.callins.emplace_back(std::nullopt);
            } else if (named_index[t.output]) {
                st.answers.emplace(st.callins.size(), *named_index[t.output]);
                st.callins.emplace_back(index[t.target]);
            } else {
                fail_at(i, where(i) + " answers '" + m.outputs().name(t.output) +
                               "': a callin answers ok, err or a named output, never '" + m.outputs().name(t.output) + "'");
            }
        }
        if (!wait) continue;
        const auto& t = m.transition(s, *wait);
        if (err && t.output == *err) {
            check_err(*wait, t);
            st.wait = Typestate::Wait::Err;
        } else if (quiet && t.output == *quiet) {
            if (t.target != s) st.quiet_target = index[t.target];
        } else if (callback_index[t.output]) {
            st.callback = Typestate::CallbackEdge{*callback_index[t.output], index[t.target]};
        } else {
            fail_at(*wait, where(*wait) + " answers '" + m.outputs().name(t.output) + "': wait answers a callback, quiet or err");
        }
    }
    return ts;
}

/// `ts` with callins and callbacks sorted by name (remapping every index).
Typestate with_sorted_symbols(const Typestate& ts) {
    auto sorted_perm = [](const std::vector<std::string>& names) {
        std::vector<std::size_t> perm(names.size());
        std::iota(perm.begin(), perm.end(), 0);
        std::stable_sort(perm.begin(), perm.end(), [&](auto a, auto b) { return names[a] < names[b]; });
        return perm;  // perm[new] = old
    };
    const auto cin = sorted_perm(ts.callins);
    const auto cb = sorted_perm(ts.callbacks);
    const auto on = sorted_perm(ts.outputs);
    std::vector<std::size_t> cb_new(cb.size()), on_new(on.size());
    for (std::size_t n = 0; n < cb.size(); ++n) cb_new[cb[n]] = n;
    for (std::size_t n = 0; n < on.size(); ++n) on_new[on[n]] = n;
    Typestate out = ts;
    for (std::size_t n = 0; n < cin.size(); ++n) out.callins[n] = ts.callins[cin[n]];
    for (std::size_t n = 0; n < cb.size(); ++n) out.callbacks[n] = ts.callbacks[cb[n]];
    for (std::size_t n = 0; n < on.size(); ++n) out.outputs[n] = ts.outputs[on[n]];
    for (std::size_t s = 0; s < ts.states.size(); ++s) {
        for (std::size_t n = 0; n < cin.size(); ++n) out.states[s].callins[n] = ts.states[s].callins[cin[n]];
        if (ts.states[s].callback) out.states[s].callback->callback = cb_new[ts.states[s].callback->callback];
        out.states[s].unknown.clear();
        out.states[s].answers.clear();
        for (std::size_t n = 0; n < cin.size(); ++n) {
            if (const auto u = ts.states[s].unknown.find(cin[n]); u != ts.states[s].unknown.end())
                out.states[s].unknown.emplace(n, u->second);
            if (const auto a = ts.states[s].answers.find(cin[n]); a != ts.states[s].answers.end() && a->second < on_new.size())
                out.states[s].answers.emplace(n, on_new[a->second]);
        }
    }
    return out;
}

/// The unknown answers of `ts`, sorted by (source, reason): one output each, in that order.
std::vector<Unknown> distinct_unknowns(const Typestate& ts) {
    std::vector<Unknown> all;
    for (const auto& st : ts.states)
        for (const auto& [c, u] : st.unknown) all.push_back(u);
    const auto less = [](const Unknown& a, const Unknown& b) {
        return std::pair{a.source, a.reason} < std::pair{b.source, b.reason};
    };
    std::sort(all.begin(), all.end(), less);
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

/// Output names for unknown answers: a control character keeps them apart from every symbol.
std::string unknown_output_name(std::size_t k) { return "\x01unknown" + std::to_string(k); }

/// `closure` (of `ts`) with every unknown transition answering its own output (one per distinct
/// Unknown) as a self-loop, so minimisation treats "unknown with reason R" as an answer of its own.
MealyMachine with_unknown_outputs(const Typestate& ts, const MealyMachine& closure) {
    if (!ts.has_unknown()) return closure;
    const auto kinds = distinct_unknowns(ts);
    std::vector<std::string> outs = closure.outputs().names();
    const auto first = static_cast<Symbol>(outs.size());
    for (std::size_t k = 0; k < kinds.size(); ++k) outs.push_back(unknown_output_name(k));
    std::vector<Transition> table(closure.table().begin(), closure.table().end());
    const std::size_t width = closure.num_inputs();
    for (StateId s = 0; s < ts.states.size(); ++s)
        for (const auto& [c, u] : ts.states[s].unknown) {
            const auto k = static_cast<Symbol>(std::find(kinds.begin(), kinds.end(), u) - kinds.begin());
            table[s * width + c] = {s, static_cast<Symbol>(first + k)};
        }
    std::vector<std::string> names;
    for (StateId s = 0; s < closure.num_states(); ++s) names.push_back(closure.state_name(s));
    return MealyMachine(closure.inputs(), Alphabet(outs), closure.initial(), std::move(table), std::move(names));
}

/// The Unknown an output of with_unknown_outputs stands for (`kinds` = distinct_unknowns), or nullptr.
const Unknown* unknown_of_output(const std::vector<Unknown>& kinds, const MealyMachine& closure, Symbol output) {
    for (std::size_t k = 0; k < kinds.size(); ++k)
        if (closure.outputs().name(output) == unknown_output_name(k)) return &kinds[k];
    return nullptr;
}

}  // namespace

Typestate canonical(const Typestate& typestate) {
    const Typestate sorted = with_sorted_symbols(typestate);
    const MealyMachine closure = with_unknown_outputs(sorted, synchronous_closure(sorted));
    std::vector<Symbol> order(closure.num_inputs());  // callins (already sorted by name), then wait
    std::iota(order.begin(), order.end(), Symbol{0});
    const MealyMachine minimal = minimize(closure, order);
    // Name each minimal state after the first user state (breadth-first) it stands for; the
    // closure's error sink lends its name only when no user state is equivalent to it.
    std::vector<std::string> names(minimal.num_states());
    std::vector<bool> seen(closure.num_states(), false);
    std::vector<std::pair<StateId, StateId>> queue{{closure.initial(), minimal.initial()}};
    seen[closure.initial()] = true;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const auto [c, m] = queue[head];
        const std::string name = closure.state_name(c);
        if (names[m].empty() || (names[m] == kErrorSinkName && name != kErrorSinkName)) names[m] = name;
        for (Symbol i : order) {
            const StateId nc = closure.successor(c, i);
            if (seen[nc]) continue;
            seen[nc] = true;
            queue.emplace_back(nc, minimal.successor(m, i));
        }
    }
    std::vector<Transition> table(minimal.table().begin(), minimal.table().end());
    const MealyMachine named(minimal.inputs(), minimal.outputs(), minimal.initial(), std::move(table), names);
    std::map<Symbol, Unknown> unknown_outputs;
    const auto kinds = distinct_unknowns(sorted);
    for (Symbol o = 0; o < closure.outputs().size(); ++o)
        if (const auto* u = unknown_of_output(kinds, closure, o)) unknown_outputs.emplace(o, *u);
    ClosureReading reading;
    reading.err_absorbing = sorted.err_absorbing;
    reading.callbacks = sorted.callbacks;
    reading.outputs = sorted.outputs;
    Typestate out = typestate_of_impl(named, sorted.name, unknown_outputs, reading);
    out.input_info = typestate.input_info;
    std::set<std::string> used;
    for (const auto& st : out.states) used.insert(st.name);
    for (auto& st : out.states) {  // a kept sink that only the closure named
        if (st.name != kErrorSinkName) continue;
        std::string fresh = "Error";
        for (int n = 2; used.count(fresh); ++n) fresh = "Error" + std::to_string(n);
        st.name = fresh;
        used.insert(fresh);
    }
    return out;
}

}  // namespace typestar
