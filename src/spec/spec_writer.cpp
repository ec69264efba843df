// write_spec: Spec -> canonical YAML text (docs/spec-format.md). A small hand-written emitter:
// the layout is fixed (key order, block maps for states, flow lists/maps for short fixed parts),
// so the output is byte-for-byte deterministic and independent of yaml-cpp's emitter defaults.
#include <algorithm>
#include <array>
#include <charconv>
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
        if (!ok) fail("state '" + s.name + "' has a symbol or target index out of range");
    }
    if (provenance.stats.contains("")) fail("a provenance statistic has an empty name");
}

}  // namespace

std::string write_spec(const Spec& spec) {
    check_writable(spec.typestate, spec.provenance);
    const Typestate t = canonical(spec.typestate);

    std::string out;
    out += "typestar: " + std::to_string(kFormatVersion) + "\n";
    out += "name: " + yaml_scalar(t.name) + "\n";
    out += "callins: " + flow_list(t.callins) + "\n";
    out += "callbacks: " + flow_list(t.callbacks) + "\n";
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
    std::sort(callin_order.begin(), callin_order.end(),
              [&](std::size_t a, std::size_t b) { return t.callins[a] < t.callins[b]; });

    out += "states:\n";
    for (std::size_t id = 0; id < t.states.size(); ++id) {
        const Typestate::State& s = t.states[id];
        std::string body;
        bool any_callin = false;
        for (const std::size_t c : callin_order) {
            if (!s.callins[c]) continue;
            if (!any_callin) body += "    callins:\n";
            any_callin = true;
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
        out += map_entry(2, yaml_scalar(s.name), {}, body);
    }

    const Provenance& p = spec.provenance;
    if (!p.empty()) {
        out += "provenance:\n";
        if (!p.tool.empty()) out += "  tool: " + yaml_scalar(p.tool) + "\n";
        if (!p.device.empty()) out += "  device: " + yaml_scalar(p.device) + "\n";
        if (!p.framework.empty()) out += "  framework: " + yaml_scalar(p.framework) + "\n";
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
    if (back.typestate != t || back.bounds != spec.bounds || back.timing != spec.timing ||
        back.provenance != spec.provenance) {
        throw Error("cannot write spec: the text would load as a different spec (a typestar bug; please report it)");
    }
    return out;
}

}  // namespace typestar::spec
