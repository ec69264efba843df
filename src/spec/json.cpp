#include "typestar/spec/json.hpp"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace typestar::spec {

std::string write_spec_json(const Spec& spec) {
    using nlohmann::json;
    const Typestate t = canonical(spec.typestate);
    const auto state_name = [&](StateId s) -> const std::string& {
        if (s >= t.states.size()) throw std::invalid_argument("typestate state index out of range");
        return t.states[s].name;
    };

    json doc = json::object();
    doc["typestar"] = spec.uses_version2() ? kLatestFormatVersion : kFormatVersion;
    doc["name"] = t.name;
    std::vector<std::string> callins = t.callins;
    std::vector<std::string> callbacks = t.callbacks;
    std::sort(callins.begin(), callins.end());
    std::sort(callbacks.begin(), callbacks.end());
    doc["callins"] = callins;
    doc["callbacks"] = callbacks;
    if (t.is_mealy()) {  // named outputs, err absorption, the wait input (Mealy devices, format v2)
        std::vector<std::string> outputs = t.outputs;
        std::sort(outputs.begin(), outputs.end());
        doc["outputs"] = outputs;
        doc["absorbing"] = t.err_absorbing ? std::vector<std::string>{"err"} : std::vector<std::string>{};
        doc["wait"] = t.has_wait;
    }
    doc["initial"] = state_name(t.initial);

    json bounds = json::object();
    bounds["distinguisher"] = spec.bounds.distinguisher;
    if (spec.bounds.states) bounds["states"] = *spec.bounds.states;
    doc["bounds"] = bounds;
    if (spec.timing.tmax_ms || spec.timing.tmin_ms) {
        json timing = json::object();
        if (spec.timing.tmax_ms) timing["tmax_ms"] = *spec.timing.tmax_ms;
        if (spec.timing.tmin_ms) timing["tmin_ms"] = *spec.timing.tmin_ms;
        doc["timing"] = timing;
    }

    json states = json::object();
    for (StateId id = 0; id < t.states.size(); ++id) {
        const auto& s = t.states[id];
        json state = json::object();
        json state_callins = json::object();
        json state_answers = json::object();
        for (std::size_t c = 0; c < s.callins.size() && c < t.callins.size(); ++c) {
            if (s.callins[c]) state_callins[t.callins[c]] = state_name(*s.callins[c]);
            if (s.callins[c] && t.is_mealy()) state_answers[t.callins[c]] = std::string(t.answer_of(id, c));
        }
        if (t.is_mealy()) state["outputs"] = state_answers;
        json state_callbacks = json::object();
        if (!t.has_wait) {
            // no `wait` input: nothing to say about quiescence
        } else if (s.callback) {
            state_callbacks[t.callbacks.at(s.callback->callback)] = state_name(s.callback->target);
            state["wait"] = "callback";
        } else if (s.wait == Typestate::Wait::Err) {
            state["wait"] = "err";
        } else {
            state["wait"] = "quiet";
            state["quiet"] = state_name(s.quiet_target.value_or(id));
        }
        state["callins"] = state_callins;
        state["callbacks"] = state_callbacks;
        if (!s.unknown.empty()) {  // three-valued (format v2): neither legal nor illegal
            json unknown = json::object();
            for (const auto& [c, u] : s.unknown)
                unknown[t.callins.at(c)] = json{{"source", std::string(to_string(u.source))}, {"reason", u.reason}};
            state["unknown"] = unknown;
        }
        states[s.name] = state;
    }
    doc["states"] = states;
    if (!t.input_info.empty()) {  // guards and roles of abstract inputs (format v2)
        json inputs = json::object();
        for (const auto& [name, info] : t.input_info)
            inputs[name] = json{{"guard", info.guard}, {"role", info.environment ? "environment" : "client"}};
        doc["inputs"] = inputs;
    }

    const Provenance& p = spec.provenance;
    if (!p.empty()) {
        json provenance = json::object();
        if (!p.tool.empty()) provenance["tool"] = p.tool;
        if (!p.device.empty()) provenance["device"] = p.device;
        if (!p.framework.empty()) provenance["framework"] = p.framework;
        if (!p.explored.empty()) provenance["explored"] = p.explored;
        if (!p.timing.empty()) provenance["timing"] = p.timing;
        if (!p.stats.empty()) provenance["stats"] = p.stats;
        doc["provenance"] = provenance;
    }
    return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace typestar::spec
