#include "http_answers.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "data_protocol.hpp"
#include "http_transport.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/data_device.hpp"

namespace typestar::detail {

using json = nlohmann::json;

namespace {

std::string shown(const json& value) { return shown_json(value); }

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

// The parameter types and names of spec format v2 (docs/spec-format-v2.md; src/spec reads the same
// rule, which the device layer cannot include): a declaration the spec could not carry is refused here.
constexpr std::string_view kParameterTypes[] = {"int", "id", "object", "bytes", "string", "bool"};

bool is_parameter_name(std::string_view s) {
    return !s.empty() && !(s[0] >= '0' && s[0] <= '9') && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

bool is_partition_name(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '=' || c == '<' || c == '>' || c == '!' || c == '-';
    });
}

/// The status field `parameters` (device/PROTOCOL.md): parameterised callins whose concrete values
/// are listed in `callins`. Every malformation is a DeviceError naming the field by its JSON path.
std::vector<DeviceDescription::Parameterised> read_parameters(const json& field, const std::vector<std::string>& callins,
                                                              const std::string& who) {
    auto malformed = [&](const std::string& where, const std::string& what) {
        return DeviceError(who + ": malformed status: " + where + " " + what);
    };
    if (!field.is_array()) throw malformed("parameters", "must be an array of parameterised callins");
    auto text = [&](const json& object, const std::string& where, const char* key) {
        const auto it = object.find(key);
        const std::string path = where + "." + key;
        if (it == object.end() || !it->is_string()) throw malformed(path, "must be a string");
        const std::string& value = it->get_ref<const std::string&>();
        if (has_control(value)) throw malformed(path, shown(*it) + " has control characters");
        return value;
    };
    const std::set<std::string> inputs(callins.begin(), callins.end());
    std::set<std::string> callin_names;
    std::map<std::string, std::string> input_owner;  // concrete input -> where it was declared first
    std::vector<DeviceDescription::Parameterised> out;
    for (std::size_t i = 0; i < field.size(); ++i) {
        const json& p = field[i];
        const std::string at = "parameters[" + std::to_string(i) + "]";
        if (!p.is_object()) throw malformed(at, "must be an object");
        DeviceDescription::Parameterised callin;
        callin.callin = text(p, at, "callin");
        if (callin.callin.empty() || callin.callin == kOk || callin.callin == kQuiet || callin.callin == kErr ||
            callin.callin == kWait)
            throw malformed(at + ".callin", shown(json(callin.callin)) + " is not a callin name");
        if (inputs.count(callin.callin) != 0)
            throw malformed(at + ".callin", shown(json(callin.callin)) +
                                                " is also a device input (only its concrete values are inputs)");
        if (!callin_names.insert(callin.callin).second)
            throw malformed(at + ".callin", shown(json(callin.callin)) + " is declared twice");
        const auto sig = p.find("signature");
        if (sig == p.end() || !sig->is_array())
            throw malformed(at + ".signature", "must be an array of [name, type] pairs");
        std::set<std::string> parameter_names;
        for (std::size_t k = 0; k < sig->size(); ++k) {
            const json& pair = (*sig)[k];
            const std::string sat = at + ".signature[" + std::to_string(k) + "]";
            if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
                throw malformed(sat, shown(pair) + " is not a [name, type] pair of strings");
            const std::string& name = pair[0].get_ref<const std::string&>();
            const std::string& type = pair[1].get_ref<const std::string&>();
            if (!is_parameter_name(name))
                throw malformed(sat, "parameter name " + shown(pair[0]) + " is not [A-Za-z_][A-Za-z0-9_]*");
            if (!parameter_names.insert(name).second)
                throw malformed(sat, "parameter name " + shown(pair[0]) + " is used twice");
            if (std::find(std::begin(kParameterTypes), std::end(kParameterTypes), type) == std::end(kParameterTypes))
                throw malformed(sat, "type " + shown(pair[1]) + " is not int, id, object, bytes, string or bool");
            callin.parameters.emplace_back(name, type);
        }
        const auto parts = p.find("partitions");
        if (parts == p.end() || !parts->is_array() || parts->empty())
            throw malformed(at + ".partitions", "must be a non-empty array of partitions");
        std::set<std::string> partition_names;
        for (std::size_t k = 0; k < parts->size(); ++k) {
            const json& q = (*parts)[k];
            const std::string pat = at + ".partitions[" + std::to_string(k) + "]";
            if (!q.is_object()) throw malformed(pat, "must be an object");
            DeviceDescription::Partition partition;
            partition.name = text(q, pat, "name");
            if (!is_partition_name(partition.name))
                throw malformed(pat + ".name", shown(json(partition.name)) + " is not [A-Za-z0-9_.=<>!-]+");
            if (!partition_names.insert(partition.name).second)
                throw malformed(pat + ".name", shown(json(partition.name)) + " is used twice in callin " +
                                                   shown(json(callin.callin)));
            partition.guard = text(q, pat, "guard");
            const auto values = q.find("values");
            if (values == q.end() || !values->is_array() || values->empty())
                throw malformed(pat + ".values", "must be a non-empty array of {input, value}");
            for (std::size_t v = 0; v < values->size(); ++v) {
                const json& val = (*values)[v];
                const std::string vat = pat + ".values[" + std::to_string(v) + "]";
                if (!val.is_object()) throw malformed(vat, "must be an object");
                DeviceDescription::ValueInput value;
                value.input = text(val, vat, "input");
                value.value = text(val, vat, "value");
                if (inputs.count(value.input) == 0)
                    throw malformed(vat + ".input", shown(json(value.input)) + " is not one of callins");
                if (value.input.rfind(callin.callin + "/", 0) != 0 || value.input.size() == callin.callin.size() + 1)
                    throw malformed(vat + ".input", shown(json(value.input)) + " is not named " +
                                                        shown(json(callin.callin + "/label")));
                if (const auto [first, fresh] = input_owner.emplace(value.input, vat); !fresh)
                    throw malformed(vat + ".input", shown(json(value.input)) + " is listed twice (first at " +
                                                        first->second + ")");
                partition.values.push_back(std::move(value));
            }
            callin.partitions.push_back(std::move(partition));
        }
        out.push_back(std::move(callin));
    }
    return out;
}

/// `value.timing` of a `timing violation` (PROTOCOL.md): kind "late" | "queued" | "early", callback
/// (a string, may be empty), delay_ms, tmax_ms, tmin_ms (numbers >= 0), earlier_query (bool) and runs
/// (an integer >= 1; both optional). Ill-formed: nullopt and `what` says so (a DeviceError then).
std::optional<TimingFault> read_timing_fault(const json& value, std::string& what) {
    const auto bad = [&](const std::string& why) {
        what += " (its timing data is ill-formed: " + why + ")";
        return std::nullopt;
    };
    const auto t = value.find("timing");
    if (t == value.end() || !t->is_object()) return bad("value.timing is not an object");
    TimingFault f;
    const auto kind = t->find("kind");
    if (kind == t->end() || !kind->is_string()) return bad("kind is not a string");
    const auto known = timing_kind_from_string(kind->get<std::string>());
    if (!known) return bad("kind " + shown(*kind) + " is not late, queued or early");
    f.kind = *known;
    const auto callback = t->find("callback");
    if (callback != t->end() && !callback->is_null()) {
        if (!callback->is_string() || has_control(callback->get<std::string>())) return bad("callback is not a name");
        f.callback = callback->get<std::string>();
    }
    const std::pair<const char*, double*> numbers[] = {
        {"delay_ms", &f.delay_ms}, {"tmax_ms", &f.tmax_ms}, {"tmin_ms", &f.tmin_ms}};
    for (const auto& [key, into] : numbers) {
        const auto v = t->find(key);
        if (v == t->end() || !v->is_number() || !(v->get<double>() >= 0) || v->get<double>() > 3.6e6)
            return bad(std::string(key) + " is not a number of milliseconds in [0, 3600000]");
        *into = v->get<double>();
    }
    if (const auto e = t->find("earlier_query"); e != t->end()) {
        if (!e->is_boolean()) return bad("earlier_query is not a boolean");
        f.earlier_query = e->get<bool>();
    }
    if (const auto r = t->find("runs"); r != t->end()) {
        if (!r->is_number_unsigned() || r->get<std::uint64_t>() < 1 || r->get<std::uint64_t>() > 1000)
            return bad("runs is not an integer in [1, 1000]");
        f.runs = r->get<std::size_t>();
    }
    return f;
}

/// `value.nondeterminism` of a `nondeterminism` error (PROTOCOL.md): inputs (names) and answers (at
/// least two distinct ones, each {outputs: names, count: integer >= 1}). Ill-formed: nullopt and
/// `what` says so (a DeviceError then).
std::optional<NondeterminismFault> read_nondeterminism_fault(const json& value, std::string& what) {
    const auto bad = [&](const std::string& why) {
        what += " (its nondeterminism data is ill-formed: " + why + ")";
        return std::nullopt;
    };
    const auto names = [](const json& v, std::vector<std::string>& into) {
        if (!v.is_array()) return false;
        for (const auto& n : v) {
            if (!n.is_string() || has_control(n.get<std::string>())) return false;
            into.push_back(n.get<std::string>());
        }
        return true;
    };
    const auto n = value.find("nondeterminism");
    if (n == value.end() || !n->is_object()) return bad("value.nondeterminism is not an object");
    NondeterminismFault f;
    const auto inputs = n->find("inputs");
    if (inputs == n->end() || !names(*inputs, f.inputs)) return bad("inputs is not a list of names");
    const auto answers = n->find("answers");
    if (answers == n->end() || !answers->is_array() || answers->size() < 2 || answers->size() > 1000)
        return bad("answers is not a list of 2 to 1000 answers");
    for (const auto& a : *answers) {
        NondeterminismError::Answer answer;
        const auto outputs = a.is_object() ? a.find("outputs") : a.end();
        if (!a.is_object() || outputs == a.end() || !names(*outputs, answer.outputs))
            return bad("an answer's outputs is not a list of names");
        const auto count = a.find("count");
        if (count == a.end() || !count->is_number_unsigned() || count->get<std::uint64_t>() < 1)
            return bad("an answer's count is not an integer >= 1");
        answer.count = count->get<std::size_t>();
        for (const auto& seen : f.answers)
            if (seen.outputs == answer.outputs) return bad("an answer is listed twice");
        f.answers.push_back(std::move(answer));
    }
    return f;
}

}  // namespace

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
    out.body = parse_json(body);
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
        if (status == 500 && code == kTimingViolation) out.timing = read_timing_fault(*value, what);
        if (status == 500 && code == kNondeterminism) out.nondeterminism = read_nondeterminism_fault(*value, what);
    } else {
        what += " with a body that is not a protocol error";
    }
    out.kind = status == 502 || status == 503 || status == 504 ? JudgedAnswer::Kind::Retryable
                                                                : JudgedAnswer::Kind::Final;
    out.what = std::move(what);
    return out;
}

namespace {

/// One status body's fields, read with the errors every section of it shares.
struct StatusReader {
    const json& s;
    const std::string& who;

    [[nodiscard]] DeviceError malformed(const std::string& what) const {
        return DeviceError(who + ": malformed status: " + what);
    }
    [[nodiscard]] const json* field(const char* key) const {
        const auto it = s.find(key);
        return it == s.end() ? nullptr : &*it;
    }
    [[nodiscard]] std::string text(const char* key, bool required) const {
        const json* v = field(key);
        if (v == nullptr && !required) return std::string();
        if (v == nullptr || !v->is_string()) throw malformed(std::string(key) + " must be a string");
        std::string value = v->get<std::string>();
        if (has_control(value)) throw malformed(std::string(key) + " " + shown(*v) + " has control characters");
        return value;
    }
    [[nodiscard]] std::vector<std::string> names(const char* key) const {
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
    }
    /// An optional boolean field; nullopt when absent.
    [[nodiscard]] std::optional<bool> flag(const char* key) const {
        const json* v = field(key);
        if (v == nullptr) return std::nullopt;
        if (!v->is_boolean()) throw malformed(std::string(key) + " must be true or false");
        return v->get<bool>();
    }
};

/// `timing`: tmax_ms and tmin_ms, integers in [0, an hour], tmin <= tmax.
QuiescenceTiming read_status_timing(const StatusReader& r) {
    const json* timing = r.field("timing");
    if (timing == nullptr || !timing->is_object()) throw r.malformed("timing must be an object");
    auto milliseconds = [&](const char* key) {
        const auto it = timing->find(key);
        if (it == timing->end() || !it->is_number_integer())
            throw r.malformed(std::string("timing.") + key + " must be an integer number of milliseconds");
        const bool in_range = it->is_number_unsigned()
                                  ? it->get<std::uint64_t>() <= static_cast<std::uint64_t>(kMaxTimingMs)
                                  : it->get<std::int64_t>() >= 0 && it->get<std::int64_t>() <= kMaxTimingMs;
        if (!in_range)
            throw DeviceError(r.who + ": timing." + key + " = " + shown(*it) + " ms is outside [0, " +
                              std::to_string(kMaxTimingMs) + "] (at most an hour)");
        return std::chrono::milliseconds(it->get<std::int64_t>());
    };
    QuiescenceTiming t;
    t.tmax = milliseconds("tmax_ms");
    t.tmin = milliseconds("tmin_ms");
    if (t.tmin > t.tmax)
        throw DeviceError(r.who + ": timing.tmin_ms = " + std::to_string(t.tmin.count()) +
                          " is larger than timing.tmax_ms = " + std::to_string(t.tmax.count()));
    return t;
}

/// Optional, additive `environment`: the callins the peer performs, each a callin named once (in
/// the order of `callins`).
std::vector<std::string> read_status_environment(const StatusReader& r, const std::vector<std::string>& callins) {
    std::vector<std::string> environment;
    const json* e = r.field("environment");
    if (e == nullptr) return environment;
    if (!e->is_array()) throw r.malformed("environment must be an array of callin names");
    std::set<std::string, std::less<>> declared;
    for (const auto& n : *e) {
        if (!n.is_string() ||
            std::find(callins.begin(), callins.end(), n.get_ref<const std::string&>()) == callins.end())
            throw r.malformed("environment holds " + shown(n) + ", which is not one of its callins");
        if (!declared.insert(n.get<std::string>()).second) throw r.malformed("environment names " + shown(n) + " twice");
    }
    for (const auto& c : callins)
        if (declared.contains(c)) environment.push_back(c);
    return environment;
}

/// Optional, additive fields of Mealy devices: `wait` (false: no wait input), `absorbing` ([] : err
/// is an output like any other) and `outputs` (named callin outputs, added to the outputs).
void read_status_mealy(const StatusReader& r, StatusAnswer& out) {
    AgentStatus& st = out.status;
    if (const auto w = r.flag("wait")) {
        st.has_wait = *w;
        if (!st.has_wait && !st.callbacks.empty())
            throw r.malformed("wait is false but callbacks are declared (callbacks arrive on wait)");
    }
    if (const json* a = r.field("absorbing"); a != nullptr) {
        if (!a->is_array() || a->size() > 1 || (a->size() == 1 && *a != json::array({"err"})))
            throw r.malformed("absorbing must be [\"err\"] (the default) or [] (err is an output like any other)");
        st.err_absorbing = !a->empty();
    }
    if (r.field("outputs") != nullptr) {
        st.outputs = r.names("outputs");
        out.first_named = static_cast<Symbol>(out.outputs.size());
        for (const auto& o : *st.outputs) {
            if (o == kErr && !st.err_absorbing) continue;  // err is an output already
            if (is_reserved(o) || o.rfind("unknown:", 0) == 0 || out.outputs.contains(o))
                throw r.malformed("outputs holds " + shown(json(o)) + ", which is reserved or named twice");
            out.outputs.intern(o);
        }
    }
    if (!st.has_wait) {
        Alphabet callins_only;
        for (const auto& c : st.callins) callins_only.intern(c);
        out.inputs = std::move(callins_only);
    }
}

}  // namespace

StatusAnswer read_status_answer(const json& s, const std::string& who) {
    const StatusReader r{s, who};
    if (!s.is_object()) throw r.malformed("not a JSON object");
    StatusAnswer out;
    AgentStatus& st = out.status;
    st.protocol = r.text("protocol", true);
    if (st.protocol != kProtocol)
        throw DeviceError(who + ": speaks " + shown(json(st.protocol)) + ", this client speaks '" + kProtocol + "'");
    st.name = r.text("name", true);
    st.framework = r.text("framework", false);
    // A data device (register automaton): its typed signature is what the client uses.
    if (const json* d = r.field("data"); d != nullptr) {
        out.data = read_data_signature(*d, st.name, who);
        return out;
    }
    st.callins = r.names("callins");
    st.callbacks = r.names("callbacks");
    st.timing = read_status_timing(r);
    // Absent means false: a quiet wait may change the state unless the agent says otherwise.
    st.quiet_is_stable = r.flag("quiet_is_stable").value_or(false);
    // Optional, additive: /v1/run takes `timeout_ms` (absent: it waits with the agent's tmax).
    if (const auto t = r.flag("run_timeout")) st.run_timeout = *t;
    if (const json* p = r.field("parameters"); p != nullptr) st.parameters = read_parameters(*p, st.callins, who);
    for (const auto& c : st.callins) out.inputs.intern(c);
    out.inputs.intern(kWait);
    out.outputs.intern(kOk);
    out.outputs.intern(kQuiet);
    out.outputs.intern(kErr);
    for (const auto& c : st.callbacks) out.outputs.intern(c);
    if (out.inputs.size() != st.callins.size() + 1 || out.outputs.size() != st.callbacks.size() + 3)
        throw DeviceError(who + ": duplicate or reserved symbol names in its status");
    // Optional, additive: a learning purpose may leave inputs unexplored (answers with outside_purpose).
    if (const auto p = r.flag("outside_purpose")) {
        st.outside_purpose = *p;
        if (st.outside_purpose && out.outputs.contains(kOutsidePurpose))
            throw DeviceError(who + ": callback '" + std::string(kOutsidePurpose) +
                              "' is reserved for answers outside the learning purpose");
        if (st.outside_purpose) out.outputs.intern(kOutsidePurpose);
    }
    st.environment = read_status_environment(r, st.callins);
    read_status_mealy(r, out);
    out.traits = closure_traits(out.inputs, out.outputs, st.quiet_is_stable);
    out.traits.absorbing = st.err_absorbing ? out.outputs.find(kErr) : std::nullopt;
    return out;
}

std::optional<Symbol> callin_output(const std::string& name, Alphabet& outputs, std::optional<Symbol> first_named) {
    if (name == kOk || name == kErr) return outputs.find(name);
    if (!first_named) return std::nullopt;
    if (const auto known = outputs.find(name)) return *known >= *first_named ? known : std::nullopt;
    if (name.empty() || name.size() > 256 || has_control(name) || is_reserved(name) || name.rfind("unknown:", 0) == 0)
        return std::nullopt;
    return outputs.intern(name);
}

std::string read_session_answer(const json& body, const MessageContext& context) {
    const auto it = body.is_object() ? body.find("session") : body.end();
    if (!body.is_object() || it == body.end() || !it->is_string())
        throw DeviceError(context.str() + ": no session id in the answer");
    const auto& id = it->get_ref<const std::string&>();
    if (id.empty() || id.size() > 128 || !std::all_of(id.begin(), id.end(), is_unreserved))
        throw DeviceError(context.str() + ": session id " + shown(*it) +
                          " is not 1 to 128 characters of [A-Za-z0-9._~-]");
    return id;
}

Symbol read_step_answer(const json& body, std::uint64_t seq, bool is_wait, Alphabet& outputs,
                        std::optional<Symbol> first_named, const MessageContext& context) {
    std::optional<Symbol> output;
    bool seq_fits = false;
    bool named = false;  // a Mealy device's named callin output
    if (body.is_object()) {
        const auto o = body.find("output");
        if (o != body.end() && o->is_string()) {
            const auto& name = o->get_ref<const std::string&>();
            output = outputs.find(name);
            if (!is_wait && (!output || (first_named && *output >= *first_named))) {
                output = callin_output(name, outputs, first_named);
                named = output.has_value();
            }
        }
        const auto s = body.find("seq");
        seq_fits = s != body.end() && s->is_number_unsigned() && s->get<std::uint64_t>() == seq;
    }
    const auto ok = outputs.find(kOk);
    const auto err = outputs.find(kErr);
    const auto outside = outputs.find(kOutsidePurpose);
    bool fits = output && output != outside &&
                (is_wait ? output != ok && output != err && !(first_named && *output >= *first_named)
                         : output == ok || output == err || named);
    // `"outside_purpose": true` marks an `err` of a callin its learning purpose denied (the agent's
    // status declares outside_purpose): not the class's answer.
    if (const auto p = body.is_object() ? body.find("outside_purpose") : body.end(); p != body.end()) {
        if (!p->is_boolean() || (p->get<bool>() && (is_wait || output != err || !outside))) fits = false;
        else if (p->get<bool>()) output = outside;
    }
    if (!fits || !seq_fits)
        throw DeviceError(context.str() + ": answer " + shown(body) + " does not fit the protocol");
    return *output;
}

Symbol read_step_answer(const json& body, std::uint64_t seq, bool is_wait, const Alphabet& outputs,
                        const MessageContext& context) {
    Alphabet fixed = outputs;  // nothing is added without first_named
    return read_step_answer(body, seq, is_wait, fixed, std::nullopt, context);
}

std::optional<RunResult> read_run_answer(const json& b, std::span<const Symbol> word, const DeviceTraits& traits,
                                         const Alphabet& outputs) {
    Alphabet fixed = outputs;  // nothing is added without first_named
    return read_run_answer(b, word, traits, fixed, std::nullopt);
}

std::optional<RunResult> read_run_answer(const json& b, std::span<const Symbol> word, const DeviceTraits& traits,
                                         Alphabet& outputs, std::optional<Symbol> first_named) {
    if (!b.is_object()) return std::nullopt;
    const auto outs = b.find("outputs");
    const auto steps = b.find("steps");
    const auto waits = b.find("waits");
    if (outs == b.end() || !outs->is_array() || outs->size() != word.size() || steps == b.end() ||
        !steps->is_number_unsigned() || waits == b.end() || !waits->is_number_unsigned())
        return std::nullopt;
    const auto ok = outputs.find(kOk);
    const auto err = outputs.find(kErr);
    // `"outside_purpose": K`: input K is a callin the learning purpose denied (answered `err`, the
    // run ends there): its output is kOutsidePurpose. Only when the status declares outside_purpose.
    const auto outside = outputs.find(kOutsidePurpose);
    std::optional<std::size_t> outside_at;
    if (const auto p = b.find("outside_purpose"); p != b.end()) {
        if (!p->is_number_unsigned() || !outside || p->get<std::uint64_t>() >= word.size() ||
            (traits.wait && word[static_cast<std::size_t>(p->get<std::uint64_t>())] == *traits.wait))
            return std::nullopt;
        outside_at = static_cast<std::size_t>(p->get<std::uint64_t>());
    }
    RunResult run;
    std::size_t word_waits = 0;
    bool absorbed = false;   // an absorbing output was answered: the rest must be the same
    bool quiescent = false;  // the previous input was a wait answered quiet (when quiet is stable)
    for (std::size_t i = 0; i < word.size(); ++i) {
        const json& o = (*outs)[i];
        const bool is_wait = traits.wait && word[i] == *traits.wait;
        auto id = o.is_string() ? outputs.find(o.get_ref<const std::string&>()) : std::nullopt;
        bool named = false;  // a Mealy device's named callin output
        if (o.is_string() && !is_wait && (!id || (first_named && *id >= *first_named))) {
            id = callin_output(o.get_ref<const std::string&>(), outputs, first_named);
            named = id.has_value();
        }
        if (!id || id == outside) return std::nullopt;
        if (is_wait) ++word_waits;
        if (absorbed) {
            if (id != traits.absorbing) return std::nullopt;
        } else if (is_wait ? id == ok || id == err || (first_named && *id >= *first_named)
                           : id != ok && id != err && !named) {
            return std::nullopt;
        } else if (is_wait && quiescent && id != traits.quiet) {
            return std::nullopt;
        }
        absorbed = absorbed || (traits.absorbing && id == traits.absorbing);
        quiescent = is_wait && traits.quiet && id == traits.quiet;
        run.outputs.push_back(*id);
    }
    if (outside_at) {
        // The denied input answered err and, err being absorbing, so did everything after it.
        if (run.outputs[*outside_at] != err || (*outside_at > 0 && run.outputs[*outside_at - 1] == err))
            return std::nullopt;
        run.outputs[*outside_at] = *outside;
    }
    const auto n_steps = steps->get<std::uint64_t>();
    const auto n_waits = waits->get<std::uint64_t>();
    if (n_steps > word.size() || n_waits > n_steps || n_waits > word_waits) return std::nullopt;
    run.steps = static_cast<std::size_t>(n_steps);
    run.waits = static_cast<std::size_t>(n_waits);
    return run;
}

std::string json_text(const std::string& name) { return dump_json(json(name)); }

std::string callin_body(std::uint64_t seq, std::string_view name_json) {
    std::string body;
    body.reserve(name_json.size() + 40);
    body.append(R"({"callin":)").append(name_json).append(R"(,"seq":)").append(std::to_string(seq)).append("}");
    return body;
}

std::string wait_body(std::uint64_t seq, std::chrono::milliseconds timeout) {
    std::string body;
    body.reserve(64);
    body.append(R"({"seq":)").append(std::to_string(seq)).append(R"(,"timeout_ms":)");
    body.append(std::to_string(timeout.count())).append("}");
    return body;
}

std::string run_body(std::span<const Symbol> word, std::span<const std::string> names_json,
                     std::optional<std::chrono::milliseconds> timeout) {
    std::string body;
    body.reserve(16 + 8 * word.size());
    body += R"({"inputs":[)";
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (i > 0) body += ',';
        body += names_json[word[i]];
    }
    body += ']';
    if (timeout) body.append(R"(,"timeout_ms":)").append(std::to_string(timeout->count()));
    body += '}';
    return body;
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

StatusAnswer fetch_status(HttpTransport& transport, const HttpConfig& config) {
    const json body = transport.request({"GET", "/v1/status", "", config.request_timeout, config.retries,
                                         "device " + config.url + ": status"});
    return read_status_answer(body, "device " + config.url);
}

}  // namespace typestar::detail

namespace typestar {

namespace {

detail::StatusAnswer read_status_text(const std::string& text, const std::string& who) {
    nlohmann::json body;
    try {
        body = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw DeviceError(who + ": malformed status: not JSON (" + e.what() + ")");
    }
    return detail::read_status_answer(body, who);
}

}  // namespace

AgentStatus read_agent_status(const std::string& text, const std::string& who) {
    return read_status_text(text, who).status;
}

std::optional<ra::RegisterAutomaton> read_agent_data_signature(const std::string& text, const std::string& who) {
    return read_status_text(text, who).data;
}

}  // namespace typestar
