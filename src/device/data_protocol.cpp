#include "data_protocol.hpp"

#include <cstdint>
#include <set>

#include "typestar/core/error.hpp"

namespace typestar::detail {

using json = nlohmann::json;

namespace {

json params_json(const std::vector<ra::Parameter>& params) {
    json out = json::array();
    for (const auto& p : params) out.push_back(json::array({p.name, ra::type_name(p.type)}));
    return out;
}

}  // namespace

json data_signature_json(const ra::RegisterAutomaton& signature) {
    json inputs = json::array(), outputs = json::array(), constants = json::array();
    for (const auto& s : signature.inputs) inputs.push_back({{"name", s.name}, {"parameters", params_json(s.params)}});
    for (const auto& s : signature.outputs)
        outputs.push_back({{"name", s.name}, {"parameters", params_json(s.params)}, {"callback", s.callback}});
    for (const auto& c : signature.constants)
        constants.push_back({{"name", c.name}, {"type", ra::type_name(c.type)}, {"value", c.value}});
    return {{"inputs", inputs}, {"outputs", outputs}, {"constants", constants}};
}

ra::RegisterAutomaton read_data_signature(const json& data, const std::string& name, const std::string& who) {
    auto malformed = [&](const std::string& what) {
        return DeviceError(who + ": malformed status: data." + what);
    };
    if (!data.is_object()) throw DeviceError(who + ": malformed status: data must be an object");
    auto type_of = [&](const json& t, const std::string& where) {
        if (t == "int") return ra::DataType::Int;
        if (t == "id") return ra::DataType::Id;
        throw malformed(where + ": type " + t.dump(-1, ' ', true, json::error_handler_t::replace) +
                        " is not \"int\" or \"id\"");
    };
    auto symbols = [&](const char* key, bool outputs) {
        std::vector<ra::SymbolDecl> list;
        const auto it = data.find(key);
        if (it == data.end() || !it->is_array()) throw malformed(std::string(key) + " must be an array");
        std::set<std::string> seen;
        for (std::size_t i = 0; i < it->size(); ++i) {
            const json& s = (*it)[i];
            const std::string where = std::string(key) + "[" + std::to_string(i) + "]";
            if (!s.is_object() || !s.contains("name") || !s["name"].is_string() || s["name"].get<std::string>().empty())
                throw malformed(where + ": needs a non-empty string name");
            ra::SymbolDecl decl;
            decl.name = s["name"].get<std::string>();
            if (!seen.insert(decl.name).second) throw malformed(where + ": '" + decl.name + "' declared twice");
            if (s.contains("parameters")) {
                if (!s["parameters"].is_array()) throw malformed(where + ".parameters must be an array");
                for (const auto& p : s["parameters"]) {
                    if (!p.is_array() || p.size() != 2 || !p[0].is_string() || p[0].get<std::string>().empty())
                        throw malformed(where + ".parameters: each is [name, type]");
                    decl.params.push_back({p[0].get<std::string>(), type_of(p[1], where)});
                }
            }
            if (outputs && s.contains("callback")) {
                if (!s["callback"].is_boolean()) throw malformed(where + ".callback must be true or false");
                decl.callback = s["callback"].get<bool>();
            }
            list.push_back(std::move(decl));
        }
        return list;
    };
    ra::RegisterAutomaton sig;
    sig.name = name;
    sig.inputs = symbols("inputs", false);
    sig.outputs = symbols("outputs", true);
    if (sig.inputs.empty()) throw malformed("inputs is empty");
    if (sig.outputs.empty()) throw malformed("outputs is empty");
    if (const auto it = data.find("constants"); it != data.end()) {
        if (!it->is_array()) throw malformed("constants must be an array");
        for (const auto& c : *it) {
            if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !c.contains("value") ||
                !c["value"].is_number_integer() || !c.contains("type"))
                throw malformed("constants: each is {\"name\", \"type\", \"value\": integer}");
            sig.constants.push_back({c["name"].get<std::string>(), type_of(c["type"], "constants"),
                                     c["value"].get<ra::Value>()});
        }
    }
    return sig;
}

std::string read_values(const json* values, const ra::SymbolDecl& decl, std::vector<ra::Value>& out) {
    out.clear();
    if (values != nullptr) {
        if (!values->is_array()) return "values must be an array of integers";
        for (const auto& v : *values) {
            if (!v.is_number_integer()) return "values must be an array of integers";
            if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
                return "values must be 64-bit signed integers";
            out.push_back(v.get<ra::Value>());
        }
    }
    if (out.size() != decl.params.size())
        return "'" + decl.name + "' takes " + std::to_string(decl.params.size()) + " values, got " +
               std::to_string(out.size());
    return {};
}

}  // namespace typestar::detail
