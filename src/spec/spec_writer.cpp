// write_spec: Spec -> canonical YAML text (docs/spec-format.md). A small hand-written emitter:
// the layout is fixed (key order, block maps for states, flow lists/maps for short fixed parts),
// so the output is byte-for-byte deterministic and independent of yaml-cpp's emitter defaults.
#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "spec_detail.hpp"
#include "typestar/core/error.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {
namespace {

using detail::yaml_scalar;

std::string number(double value) {
    std::array<char, 64> buffer{};
    const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return ec == std::errc() ? std::string(buffer.data(), end) : std::string("0");
}

/// YAML limits an implicit (`key: value`) key to 1024 characters; longer keys are written in the
/// explicit form `? key` / `: value`, which every YAML 1.1/1.2 reader accepts. Bytes are counted
/// (never fewer than characters), with a margin.
constexpr std::size_t kMaxImplicitKey = 1000;

/// One block-map entry at `indent` spaces: `key: value`, or `key:` followed by `block` (lines
/// already indented deeper) when `value` is empty; `{}` for an empty value and block.
std::string map_entry(std::size_t indent, const std::string& key, const std::string& value,
                      const std::string& block = {}) {
    const std::string pad(indent, ' ');
    const std::string rest = !value.empty() ? " " + value + "\n" : block.empty() ? " {}\n" : "\n" + block;
    if (key.size() <= kMaxImplicitKey) return pad + key + ":" + rest;
    return pad + "? " + key + "\n" + pad + ":" + rest;
}

std::string flow_list(std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    std::string out = "[";
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += ", ";
        out += yaml_scalar(names[i]);
    }
    return out + "]";
}

/// Throws typestar::Error unless `typestate` can be written as a spec that loads again.
void check_writable(const Typestate& t, const Provenance& provenance) {
    const auto fail = [](const std::string& why) { throw Error("cannot write spec: " + detail::printable(why)); };
    if (!detail::is_valid_spec_name(t.name)) {
        fail("typestate name '" + t.name + "' is empty or has characters outside [A-Za-z0-9_.-]");
    }
    std::set<std::string> symbols;
    for (const auto* list : {&t.callins, &t.callbacks}) {
        for (const std::string& s : *list) {
            if (s.empty() || is_reserved(s)) fail("symbol '" + s + "' is empty or reserved");
            if (!symbols.insert(s).second) fail("symbol '" + s + "' is declared twice");
        }
    }
    std::set<std::string> outputs;
    for (const std::string& o : t.outputs) {
        if (o.empty() || (is_reserved(o) && !(o == kErr && !t.err_absorbing))) fail("output '" + o + "' is empty or reserved");
        if (!outputs.insert(o).second) fail("output '" + o + "' is declared twice");
    }
    if (!t.has_wait && !t.callbacks.empty()) fail("callbacks without the input 'wait'");
    if (t.states.empty() || t.initial >= t.states.size()) fail("no initial state");
    std::set<std::string> states;
    for (const auto& s : t.states) {
        if (s.name.empty() || s.name == kErrorSinkName) fail("state name '" + s.name + "' is empty or reserved");
        if (!states.insert(s.name).second) fail("state name '" + s.name + "' is used twice");
        const auto in_range = [&](StateId target) { return target < t.states.size(); };
        bool ok = s.callins.size() == t.callins.size();
        for (const auto& target : s.callins) ok = ok && (!target || in_range(*target));
        ok = ok && (!s.callback || (s.callback->callback < t.callbacks.size() && in_range(s.callback->target)));
        ok = ok && (!s.quiet_target || in_range(*s.quiet_target));
        for (const auto& [c, o] : s.answers) ok = ok && c < t.callins.size() && o < t.outputs.size() && s.callins[c];
        if (!ok) fail("state '" + s.name + "' has a symbol or target index out of range");
    }
    if (provenance.stats.contains("")) fail("a provenance statistic has an empty name");
}


/// Canonical input order of version 2: (callin, partition declaration order); bare names by name.
struct InputKey {
    std::string callin;
    std::size_t partition = 0;
    auto operator<=>(const InputKey&) const = default;
};

/// Throws typestar::Error unless the declarations and the typestate's inputs match exactly.
std::map<std::string, InputKey> check_declarations(const Typestate& t, const std::vector<CallinDeclaration>& decls) {
    const auto fail = [](const std::string& why) { throw Error("cannot write spec: " + detail::printable(why)); };
    std::map<std::string, InputKey> keys;
    std::set<std::string> bases;
    for (const auto& d : decls) {
        if (!bases.insert(d.name).second) fail("callin '" + d.name + "' is declared twice");
        if (d.name.empty() || d.name.find_first_of("()[]") != std::string::npos || is_reserved(d.name))
            fail("callin name '" + d.name + "' is empty, reserved or has ( ) [ ]");
        std::size_t k = 0;
        for (const auto& input : d.inputs()) keys.emplace(input, InputKey{d.name, k++});
    }
    std::set<std::string> callins(t.callins.begin(), t.callins.end());
    for (const auto& c : t.callins) {
        if (keys.contains(c)) continue;
        if (bases.contains(c)) fail("callin '" + c + "' has partitions, so it is not an input itself");
        if (!decls.empty() || t.has_unknown()) {
            if (c.find_first_of("()") != std::string::npos)
                fail("callin '" + c + "' has ( or ), which version 2 reads as a signature");
            if (const auto b = c.find('['); b != std::string::npos && bases.contains(c.substr(0, b)))
                fail("input '" + c + "' is not a declared partition of callin '" + c.substr(0, b) + "'");
        }
        keys.emplace(c, InputKey{c, 0});
    }
    for (const auto& [input, key] : keys)
        if (!callins.contains(input)) fail("declared input '" + input + "' is not a callin of the typestate");
    if (t.input_info != input_info_of(decls))
        fail("the typestate's input guards and roles differ from its callin declarations");
    return keys;
}

std::string partition_line(const Partition& p) {
    std::string out = "{name: " + yaml_scalar(p.name);
    if (!p.guard.empty()) out += ", guard: " + yaml_scalar(p.guard);
    if (!p.values.empty()) out += ", values: " + flow_list(p.values);
    if (!p.split_from.empty()) out += ", split_from: " + yaml_scalar(p.split_from);
    if (!p.split_by.empty()) out += ", split_by: " + yaml_scalar(p.split_by);
    if (!p.not_run.empty()) out += ", not_run: " + flow_list(p.not_run);
    if (!p.from_code.empty()) out += ", from_code: " + flow_list(p.from_code);
    return out + "}";
}

/// The version-2 `callins:` block: every callin by name, declared ones with their details.
std::string callins_block(const Typestate& t, const std::vector<CallinDeclaration>& decls,
                          const std::map<std::string, InputKey>& keys) {
    std::map<std::string, const CallinDeclaration*> by_name;
    for (const auto& d : decls) by_name.emplace(d.name, &d);
    for (const auto& [input, key] : keys) by_name.emplace(key.callin, nullptr);
    if (by_name.empty()) return "callins: []\n";
    std::string out = "callins:\n";
    for (const auto& [name, d] : by_name) {
        if (d == nullptr) {
            out += "  - " + yaml_scalar(name) + "\n";
            continue;
        }
        const std::string sig = yaml_scalar(d->signature());
        if (d->partitions.empty()) {
            out += d->environment ? "  - " + sig + ": {role: environment}\n" : "  - " + sig + "\n";
            continue;
        }
        out += "  - " + sig + ":\n";
        if (d->environment) out += "      role: environment\n";
        out += "      partitions:\n";
        for (const auto& p : d->partitions) out += "        - " + partition_line(p) + "\n";
    }
    (void)t;
    return out;
}

}  // namespace

std::vector<CallinDeclaration> normalised_declarations(std::vector<CallinDeclaration> declarations) {
    std::sort(declarations.begin(), declarations.end(),
              [](const CallinDeclaration& a, const CallinDeclaration& b) { return a.name < b.name; });
    const auto sorted_unique = [](std::vector<std::string>& v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    for (auto& d : declarations)
        for (auto& p : d.partitions) {
            sorted_unique(p.values);
            sorted_unique(p.not_run);
            sorted_unique(p.from_code);
        }
    return declarations;
}

std::string write_spec(const Spec& spec) {
    check_writable(spec.typestate, spec.provenance);
    const std::vector<CallinDeclaration> decls = normalised_declarations(spec.declarations);
    const auto keys = check_declarations(spec.typestate, decls);
    const Typestate t = canonical(spec.typestate);
    const bool v2 = spec.uses_version2();

    std::string out;
    out += "typestar: " + std::to_string(v2 ? kLatestFormatVersion : kFormatVersion) + "\n";
    if (v2) out += "kind: typestate\n";
    out += "name: " + yaml_scalar(t.name) + "\n";
    out += v2 ? callins_block(t, decls, keys) : "callins: " + flow_list(t.callins) + "\n";
    out += "callbacks: " + flow_list(t.callbacks) + "\n";
    if (!t.outputs.empty()) out += "outputs: " + flow_list(t.outputs) + "\n";
    if (!t.err_absorbing) out += "absorbing: []\n";
    if (!t.has_wait) out += "wait: false\n";
    out += "initial: " + yaml_scalar(t.states[t.initial].name) + "\n";
    out += "bounds: {distinguisher: " + std::to_string(spec.bounds.distinguisher);
    if (spec.bounds.states) out += ", states: " + std::to_string(*spec.bounds.states);
    out += "}\n";
    if (spec.timing.tmax_ms || spec.timing.tmin_ms) {
        std::vector<std::string> parts;
        if (spec.timing.tmax_ms) parts.push_back("tmax_ms: " + number(*spec.timing.tmax_ms));
        if (spec.timing.tmin_ms) parts.push_back("tmin_ms: " + number(*spec.timing.tmin_ms));
        out += "timing: {" + parts.front() + (parts.size() > 1 ? ", " + parts.back() : std::string()) + "}\n";
    }
    if (spec.assumptions.quiet_is_stable) out += "assumptions: {quiet_is_stable: true}\n";

    // Symbols by name: canonical() sorts them already; sorting again keeps the writer self-contained.
    std::vector<std::size_t> callin_order(t.callins.size());
    for (std::size_t i = 0; i < callin_order.size(); ++i) callin_order[i] = i;
    std::sort(callin_order.begin(), callin_order.end(), [&](std::size_t a, std::size_t b) {
        return v2 ? keys.at(t.callins[a]) < keys.at(t.callins[b]) : t.callins[a] < t.callins[b];
    });

    out += "states:\n";
    for (std::size_t id = 0; id < t.states.size(); ++id) {
        const Typestate::State& s = t.states[id];
        std::string body;
        bool any_callin = false;
        for (const std::size_t c : callin_order) {
            if (!s.callins[c]) continue;
            if (!any_callin) body += "    callins:\n";
            any_callin = true;
            if (const auto a = s.answers.find(c); a != s.answers.end())
                body += map_entry(6, yaml_scalar(t.callins[c]), "{output: " + yaml_scalar(t.outputs[a->second]) +
                                                                      ", to: " + yaml_scalar(t.states[*s.callins[c]].name) + "}");
            else
                body += map_entry(6, yaml_scalar(t.callins[c]), yaml_scalar(t.states[*s.callins[c]].name));
        }
        if (s.callback) {
            body += "    callbacks:\n" + map_entry(6, yaml_scalar(t.callbacks[s.callback->callback]),
                                                  yaml_scalar(t.states[s.callback->target].name));
        } else if (s.wait == Typestate::Wait::Err) {
            body += "    wait: err\n";
        } else if (s.quiet_target && *s.quiet_target != id) {
            body += "    quiet: " + yaml_scalar(t.states[*s.quiet_target].name) + "\n";
        }
        if (!s.unknown.empty()) {
            body += "    unknown:\n";
            for (const std::size_t c : callin_order) {
                const auto u = s.unknown.find(c);
                if (u == s.unknown.end()) continue;
                std::string value = "{source: " + std::string(to_string(u->second.source));
                if (!u->second.reason.empty()) value += ", reason: " + yaml_scalar(u->second.reason);
                body += map_entry(6, yaml_scalar(t.callins[c]), value + "}");
            }
        }
        out += map_entry(2, yaml_scalar(s.name), {}, body);
    }

    const Provenance& p = spec.provenance;
    if (!p.empty()) {
        out += "provenance:\n";
        if (!p.tool.empty()) out += "  tool: " + yaml_scalar(p.tool) + "\n";
        if (!p.device.empty()) out += "  device: " + yaml_scalar(p.device) + "\n";
        if (!p.framework.empty()) out += "  framework: " + yaml_scalar(p.framework) + "\n";
        if (!p.explored.empty()) out += "  explored: " + yaml_scalar(p.explored) + "\n";
        if (!p.timing.empty()) out += "  timing: " + yaml_scalar(p.timing) + "\n";
        if (!p.stats.empty()) {
            out += "  stats:\n";
            for (const auto& [key, value] : p.stats) {
                out += map_entry(4, yaml_scalar(key), yaml_scalar(value, true));
            }
        }
    }

    // Read back what was written (linear time, so at most doubling the cost): a spec typestar
    // writes loads again, to the same typestate and metadata, or writing fails here; never a file
    // that does not validate.
    Spec back;
    try {
        back = parse_spec(out, "(spec being written)");
    } catch (const SpecError& e) {
        throw Error("cannot write spec: the text would not load again: " + e.diagnostics().front().message);
    }
    if (back.typestate != t || back.declarations != decls || back.bounds != spec.bounds || back.timing != spec.timing ||
        back.provenance != spec.provenance) {
        throw Error("cannot write spec: the text would load as a different spec (a typestar bug; please report it)");
    }
    return out;
}

}  // namespace typestar::spec
