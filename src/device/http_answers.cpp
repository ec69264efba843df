#include "http_answers.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar::detail {

using json = nlohmann::json;

namespace {

/// At most `max` bytes of `text`, cut at a UTF-8 character boundary, "…" appended when cut.
std::string clip(std::string text, std::size_t max = 200) {
    if (text.size() <= max) return text;
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
    return text + "...";
}

std::string shown(const json& value) { return clip(value.dump(-1, ' ', true, json::error_handler_t::replace)); }

bool has_control(std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
}

bool is_unreserved(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}

}  // namespace

std::string shown_json(const json& value) { return shown(value); }

std::string answer_cap_message(std::size_t max_bytes) {
    return "answer over the " + std::to_string(max_bytes) + "-byte cap (HttpConfig::max_answer_bytes)";
}

JudgedAnswer judge_answer(long status, std::string_view body, std::size_t max_bytes) {
    JudgedAnswer out;
    out.status = status;
    if (body.size() > max_bytes) {
        out.kind = JudgedAnswer::Kind::Final;
        out.what = "HTTP " + std::to_string(status) + ": " + answer_cap_message(max_bytes);
        return out;
    }
    out.body = json::parse(body, nullptr, false);
    if (status >= 200 && status < 300) {
        if (out.body.is_discarded() || !out.body.is_object()) {
            out.kind = JudgedAnswer::Kind::Retryable;
            out.what = "garbage answer (HTTP " + std::to_string(status) + ", not a JSON object)";
            return out;
        }
        out.kind = JudgedAnswer::Kind::Accepted;
        return out;
    }
    std::string what = "HTTP " + std::to_string(status);
    const json& b = out.body;
    const auto value = b.is_object() ? b.find("value") : b.end();
    if (b.is_object() && value != b.end() && value->is_object()) {
        const auto error = value->find("error");
        const auto message = value->find("message");
        const std::string code = error != value->end() && error->is_string() ? error->get<std::string>() : "?";
        const std::string text = message != value->end() && message->is_string() ? message->get<std::string>() : "";
        // The agent's own words, escaped only where they could forge a line or a terminal code.
        auto plain = [](const std::string& s) {
            const std::string quoted = shown(json(s));
            return has_control(s) || quoted.size() != s.size() + 2 ? quoted : s;
        };
        what += " " + plain(code) + ": " + plain(text);
    } else {
        what += " with a body that is not a protocol error";
    }
    out.kind = status == 502 || status == 503 || status == 504 ? JudgedAnswer::Kind::Retryable
                                                                : JudgedAnswer::Kind::Final;
    out.what = std::move(what);
    return out;
}

StatusAnswer read_status_answer(const json& s, const std::string& who) {
    auto malformed = [&](const std::string& what) { return DeviceError(who + ": malformed status: " + what); };
    if (!s.is_object()) throw malformed("not a JSON object");
    auto field = [&](const char* key) -> const json* {
        const auto it = s.find(key);
        return it == s.end() ? nullptr : &*it;
    };
    auto text = [&](const char* key, bool required) {
        const json* v = field(key);
        if (v == nullptr && !required) return std::string();
        if (v == nullptr || !v->is_string()) throw malformed(std::string(key) + " must be a string");
        std::string value = v->get<std::string>();
        if (has_control(value)) throw malformed(std::string(key) + " " + shown(*v) + " has control characters");
        return value;
    };
    StatusAnswer out;
    AgentStatus& st = out.status;
    st.protocol = text("protocol", true);
    if (st.protocol != kProtocol)
        throw DeviceError(who + ": speaks " + shown(json(st.protocol)) + ", this client speaks '" + kProtocol + "'");
    st.name = text("name", true);
    st.framework = text("framework", false);
    auto names = [&](const char* key) {
        const json* v = field(key);
        if (v == nullptr || !v->is_array()) throw malformed(std::string(key) + " must be an array of names");
        std::vector<std::string> list;
        for (const auto& n : *v) {
            if (!n.is_string() || n.get_ref<const std::string&>().empty() || has_control(n.get_ref<const std::string&>()))
                throw malformed(std::string(key) + " holds " + shown(n) +
                                ", not a name (a non-empty string without control characters)");
            list.push_back(n.get<std::string>());
        }
        return list;
    };
    st.callins = names("callins");
    st.callbacks = names("callbacks");
    const json* timing = field("timing");
    if (timing == nullptr || !timing->is_object()) throw malformed("timing must be an object");
    auto milliseconds = [&](const char* key) {
        const auto it = timing->find(key);
        if (it == timing->end() || !it->is_number_integer())
            throw malformed(std::string("timing.") + key + " must be an integer number of milliseconds");
        const bool in_range = it->is_number_unsigned()
                                  ? it->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxTimingMs)
                                  : it->get<std::int64_t>() >= 0 && it->get<std::int64_t>() <= kMaxTimingMs;
        if (!in_range)
            throw DeviceError(who + ": timing." + key + " = " + shown(*it) + " ms is outside [0, " +
                              std::to_string(kMaxTimingMs) + "] (at most an hour)");
        return std::chrono::milliseconds(it->get<std::int64_t>());
    };
    st.timing.tmax = milliseconds("tmax_ms");
    st.timing.tmin = milliseconds("tmin_ms");
    if (st.timing.tmin > st.timing.tmax)
        throw DeviceError(who + ": timing.tmin_ms = " + std::to_string(st.timing.tmin.count()) +
                          " is larger than timing.tmax_ms = " + std::to_string(st.timing.tmax.count()));
    // Absent means false: a quiet wait may change the state unless the agent says otherwise.
    if (const json* q = field("quiet_is_stable"); q != nullptr) {
        if (!q->is_boolean()) throw malformed("quiet_is_stable must be true or false");
        st.quiet_is_stable = q->get<bool>();
    } else {
        st.quiet_is_stable = false;
    }
    for (const auto& c : st.callins) out.inputs.intern(c);
    out.inputs.intern(kWait);
    out.outputs.intern(kOk);
    out.outputs.intern(kQuiet);
    out.outputs.intern(kErr);
    for (const auto& c : st.callbacks) out.outputs.intern(c);
    if (out.inputs.size() != st.callins.size() + 1 || out.outputs.size() != st.callbacks.size() + 3)
        throw DeviceError(who + ": duplicate or reserved symbol names in its status");
    // Optional, additive: the callins the peer performs. Each must be a callin, named once.
    if (const json* e = field("environment"); e != nullptr) {
        if (!e->is_array()) throw malformed("environment must be an array of callin names");
        std::set<std::string, std::less<>> declared;
        for (const auto& n : *e) {
            if (!n.is_string() || std::find(st.callins.begin(), st.callins.end(), n.get_ref<const std::string&>()) ==
                                      st.callins.end())
                throw malformed("environment holds " + shown(n) + ", which is not one of its callins");
            if (!declared.insert(n.get<std::string>()).second)
                throw malformed("environment names " + shown(n) + " twice");
        }
        for (const auto& c : st.callins)
            if (declared.contains(c)) st.environment.push_back(c);
    }
    out.traits = closure_traits(out.inputs, out.outputs, st.quiet_is_stable);
    return out;
}

std::string read_session_answer(const json& body, const std::string& context) {
    const auto it = body.is_object() ? body.find("session") : body.end();
    if (!body.is_object() || it == body.end() || !it->is_string())
        throw DeviceError(context + ": no session id in the answer");
    const auto& id = it->get_ref<const std::string&>();
    if (id.empty() || id.size() > 128 || !std::all_of(id.begin(), id.end(), is_unreserved))
        throw DeviceError(context + ": session id " + shown(*it) +
                          " is not 1 to 128 characters of [A-Za-z0-9._~-]");
    return id;
}

Symbol read_step_answer(const json& body, std::uint64_t seq, bool is_wait, const Alphabet& outputs,
                        const std::string& context) {
    std::optional<Symbol> output;
    bool seq_fits = false;
    if (body.is_object()) {
        const auto o = body.find("output");
        if (o != body.end() && o->is_string()) output = outputs.find(o->get_ref<const std::string&>());
        const auto s = body.find("seq");
        seq_fits = s != body.end() && s->is_number_unsigned() && s->get<std::uint64_t>() == seq;
    }
    const auto ok = outputs.find(kOk);
    const auto err = outputs.find(kErr);
    const bool fits = output && (is_wait ? output != ok && output != err : output == ok || output == err);
    if (!fits || !seq_fits) throw DeviceError(context + ": answer " + shown(body) + " does not fit the protocol");
    return *output;
}

std::optional<RunResult> read_run_answer(const json& b, std::span<const Symbol> word, const DeviceTraits& traits,
                                         const Alphabet& outputs) {
    if (!b.is_object()) return std::nullopt;
    const auto outs = b.find("outputs");
    const auto steps = b.find("steps");
    const auto waits = b.find("waits");
    if (outs == b.end() || !outs->is_array() || outs->size() != word.size() || steps == b.end() ||
        !steps->is_number_unsigned() || waits == b.end() || !waits->is_number_unsigned())
        return std::nullopt;
    const auto ok = outputs.find(kOk);
    const auto err = outputs.find(kErr);
    RunResult run;
    std::size_t word_waits = 0;
    bool absorbed = false;   // an absorbing output was answered: the rest must be the same
    bool quiescent = false;  // the previous input was a wait answered quiet (when quiet is stable)
    for (std::size_t i = 0; i < word.size(); ++i) {
        const json& o = (*outs)[i];
        const auto id = o.is_string() ? outputs.find(o.get_ref<const std::string&>()) : std::nullopt;
        if (!id) return std::nullopt;
        const bool is_wait = traits.wait && word[i] == *traits.wait;
        if (is_wait) ++word_waits;
        if (absorbed) {
            if (id != traits.absorbing) return std::nullopt;
        } else if (is_wait ? id == ok || id == err : id != ok && id != err) {
            return std::nullopt;
        } else if (is_wait && quiescent && id != traits.quiet) {
            return std::nullopt;
        }
        absorbed = absorbed || (traits.absorbing && id == traits.absorbing);
        quiescent = is_wait && traits.quiet && id == traits.quiet;
        run.outputs.push_back(*id);
    }
    const auto n_steps = steps->get<std::uint64_t>();
    const auto n_waits = waits->get<std::uint64_t>();
    if (n_steps > word.size() || n_waits > n_steps || n_waits > word_waits) return std::nullopt;
    run.steps = static_cast<std::size_t>(n_steps);
    run.waits = static_cast<std::size_t>(n_waits);
    return run;
}

std::chrono::milliseconds request_budget(std::chrono::milliseconds base, std::chrono::milliseconds per_wait,
                                         std::size_t waits) {
    constexpr std::chrono::milliseconds kLimit = std::chrono::hours(24);
    base = std::clamp(base, std::chrono::milliseconds(0), kLimit);
    per_wait = std::clamp(per_wait, std::chrono::milliseconds(0), kLimit);
    if (per_wait.count() == 0 || waits == 0) return base;
    const auto room = static_cast<std::uint64_t>((kLimit - base).count() / per_wait.count());
    if (waits > room) return kLimit;
    return base + per_wait * static_cast<std::int64_t>(waits);
}

}  // namespace typestar::detail
