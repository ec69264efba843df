#include "typestar/monitor/monitor_model.hpp"

#include <stdexcept>
#include <utility>

#include "typestar/core/error.hpp"

namespace typestar {

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) {
        if (!out.empty()) out += ", ";
        out += n;
    }
    return out.empty() ? "none" : out;
}

}  // namespace

MonitorModel::MonitorModel(Typestate typestate) : typestate_(std::move(typestate)) {
    // The closure's checks are the definition of a well-formed typestate; reuse them.
    (void)synchronous_closure(typestate_);
    callins_ = Alphabet(typestate_.callins);
    callbacks_ = Alphabet(typestate_.callbacks);
    width_ = typestate_.callins.size() + typestate_.callbacks.size();
    const std::size_t n = typestate_.states.size();

    // The chain of quiet moves from each state: s, quiet_target(s), ... until a state that owes a
    // callback, refuses `wait`, stays put, or repeats.
    auto quiet_chain = [&](StateId s) {
        std::vector<StateId> chain{s};
        std::vector<bool> seen(n, false);
        seen[s] = true;
        for (;;) {
            const auto& st = typestate_.states[chain.back()];
            if (st.callback || st.wait != Typestate::Wait::Quiet || !st.quiet_target) break;
            const StateId t = *st.quiet_target;
            if (seen[t]) break;
            seen[t] = true;
            chain.push_back(t);
        }
        return chain;
    };

    next_.assign(n * width_, kRefused);
    pending_.assign(n, std::nullopt);
    for (StateId s = 0; s < n; ++s) {
        const auto chain = quiet_chain(s);
        for (std::size_t c = 0; c < typestate_.callins.size(); ++c) {
            for (const StateId q : chain) {
                if (const auto& t = typestate_.states[q].callins[c]) {
                    next_[s * width_ + c] = *t;
                    break;
                }
            }
        }
        // Only the last state of a chain can owe a callback (chains stop there).
        if (const auto& edge = typestate_.states[chain.back()].callback) {
            next_[s * width_ + typestate_.callins.size() + edge->callback] = edge->target;
            pending_[s] = static_cast<Symbol>(edge->callback);
        }
    }
    lines_.assign(n * (width_ + 1), 0);
}

std::optional<Event> MonitorModel::find_callin(std::string_view name) const {
    if (const auto id = callins_.find(name)) return Event::callin(*id);
    return std::nullopt;
}

std::optional<Event> MonitorModel::find_callback(std::string_view name) const {
    if (const auto id = callbacks_.find(name)) return Event::callback(*id);
    return std::nullopt;
}

Event MonitorModel::callin(std::string_view name) const {
    if (const auto e = find_callin(name)) return *e;
    throw Error("unknown callin '" + std::string(name) + "': typestate " + typestate_.name +
                " declares callins " + joined(typestate_.callins));
}

Event MonitorModel::callback(std::string_view name) const {
    if (const auto e = find_callback(name)) return *e;
    throw Error("unknown callback '" + std::string(name) + "': typestate " + typestate_.name +
                " declares callbacks " + joined(typestate_.callbacks));
}

std::vector<Event> MonitorModel::enabled(StateId state) const {
    std::vector<Event> out;
    for (Symbol c = 0; c < typestate_.callins.size(); ++c)
        if (step(state, Event::callin(c))) out.push_back(Event::callin(c));
    if (const auto cb = pending(state)) out.push_back(Event::callback(*cb));
    return out;
}

const std::string& MonitorModel::name(Event event) const {
    return event.kind == EventKind::Callin ? typestate_.callins.at(event.symbol)
                                           : typestate_.callbacks.at(event.symbol);
}

std::string MonitorModel::to_string(Event event) const {
    return (event.kind == EventKind::Callin ? ">" : "<") + name(event);
}

std::string MonitorModel::to_string(std::span<const Event> trace) const {
    if (trace.empty()) return "ε";
    std::string out;
    for (const auto& e : trace) {
        if (!out.empty()) out += ' ';
        out += to_string(e);
    }
    return out;
}

std::vector<Event> MonitorModel::parse_trace(std::string_view text) const {
    std::vector<Event> out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\n') ++j;
        const std::string_view token = text.substr(i, j - i);
        i = j;
        if (token == "ε") continue;
        if (token.size() > 1 && token[0] == '>') {
            const auto e = find_callin(token.substr(1));
            if (!e) throw Error("trace token '" + std::string(token) + "': no callin of that name in " + typestate_.name);
            out.push_back(*e);
        } else if (token.size() > 1 && token[0] == '<') {
            const auto e = find_callback(token.substr(1));
            if (!e) throw Error("trace token '" + std::string(token) + "': no callback of that name in " + typestate_.name);
            out.push_back(*e);
        } else {
            throw Error("trace token '" + std::string(token) + "': expected '>callin' or '<callback'");
        }
    }
    return out;
}

bool MonitorModel::accepts(std::span<const Event> trace) const {
    StateId s = initial();
    for (const auto& e : trace) {
        if (e.kind == EventKind::Callin ? e.symbol >= num_callins() : e.symbol >= num_callbacks()) return false;
        const auto t = step(s, e);
        if (!t) return false;
        s = *t;
    }
    return true;
}

int MonitorModel::line_of(StateId state, Event event) const {
    return lines_.at(static_cast<std::size_t>(state) * (width_ + 1) + column(event));
}

int MonitorModel::line_of(StateId state) const {
    return lines_.at(static_cast<std::size_t>(state) * (width_ + 1) + width_);
}

}  // namespace typestar
