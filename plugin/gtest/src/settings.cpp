#include "typestar/gtest/settings.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <tuple>

namespace typestar {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

/// nullopt when `value` is not a boolean word.
std::optional<bool> parse_bool(std::string_view value) {
    const std::string v = lower(value);
    if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
    if (v == "0" || v == "false" || v == "no" || v == "off") return false;
    return std::nullopt;
}

/// An environment variable's truth: set, non-empty, not a false word.
bool env_true(const char* value) {
    if (value == nullptr || *value == '\0') return false;
    const auto b = parse_bool(value);
    return !b || *b;
}

std::optional<std::size_t> parse_size(std::string_view text) {
    std::size_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

}  // namespace

Settings parse_settings(int& argc, char** argv, const std::function<const char*(const char*)>& getenv) {
    const auto env = [&](const char* name) -> const char* { return getenv ? getenv(name) : std::getenv(name); };
    Settings s;
    s.ci = env_true(env("CI"));
    s.update = env_true(env("TYPESTAR_UPDATE"));
    s.require_device = env_true(env("TYPESTAR_REQUIRE_DEVICE"));
    if (const char* d = env("TYPESTAR_DEVICE"); d != nullptr) s.device = d;
    if (const char* b = env("TYPESTAR_BOUND"); b != nullptr && *b != '\0') {
        if (auto v = parse_size(b))
            s.bound = *v;
        else
            s.errors.push_back("TYPESTAR_BOUND=" + std::string(b) + ": not a non-negative integer");
    }

    std::string tmax_origin, tmin_origin;
    for (const auto& [name, target, origin] : {std::tuple{"TYPESTAR_TMAX", &s.tmax_ms, &tmax_origin},
                                               std::tuple{"TYPESTAR_TMIN", &s.tmin_ms, &tmin_origin}}) {
        const char* v = env(name);
        if (v == nullptr || *v == '\0') continue;
        if (auto ms = parse_size(v); ms && *ms <= 3'600'000) {
            *target = *ms;
            *origin = std::string(name) + "=" + v;
        } else {
            s.errors.push_back(std::string(name) + "=" + v + ": not milliseconds from 0 to 3600000");
        }
    }

    if (const char* l = env("TYPESTAR_LEARNER"); l != nullptr && *l != '\0') {
        if (std::string_view(l) == "lstar" || std::string_view(l) == "lsharp")
            s.learner = l;
        else
            s.errors.push_back("TYPESTAR_LEARNER=" + std::string(l) + ": not lstar or lsharp");
    }

    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg.rfind("--typestar_", 0) != 0) {
            argv[kept++] = argv[i];
            continue;
        }
        const auto eq = arg.find('=');
        const std::string_view name = arg.substr(2, eq == std::string_view::npos ? std::string_view::npos : eq - 2);
        const std::optional<std::string_view> value =
            eq == std::string_view::npos ? std::nullopt : std::optional<std::string_view>(arg.substr(eq + 1));
        auto set_bool = [&](bool& target) {
            if (!value) {
                target = true;
            } else if (auto b = parse_bool(*value)) {
                target = *b;
            } else {
                s.errors.push_back(std::string(arg) + ": expected 1, 0, true, false, yes, no, on or off");
            }
        };
        if (name == "typestar_update") {
            set_bool(s.update);
        } else if (name == "typestar_require_device") {
            set_bool(s.require_device);
        } else if (name == "typestar_bound") {
            if (auto v = value ? parse_size(*value) : std::nullopt)
                s.bound = *v;
            else
                s.errors.push_back(std::string(arg) + ": expected --typestar_bound=B, B a non-negative integer");
        } else if (name == "typestar_tmax" || name == "typestar_tmin") {
            const bool is_tmax = name == "typestar_tmax";
            if (auto v = value ? parse_size(*value) : std::nullopt; v && *v <= 3'600'000) {
                (is_tmax ? s.tmax_ms : s.tmin_ms) = *v;
                (is_tmax ? tmax_origin : tmin_origin) = std::string(arg);
            } else {
                s.errors.push_back(std::string(arg) + ": expected --" + std::string(name) + "=MS, milliseconds from 0 to 3600000");
            }
        } else if (name == "typestar_learner") {
            if (value && (*value == "lstar" || *value == "lsharp"))
                s.learner = std::string(*value);
            else
                s.errors.push_back(std::string(arg) + ": expected --typestar_learner=lstar or lsharp");
        } else if (name == "typestar_device") {
            if (value && !value->empty())
                s.device = std::string(*value);
            else
                s.errors.push_back(std::string(arg) + ": expected --typestar_device=URL");
        } else if (name == "typestar_serve") {
            if (value && !value->empty() && value->find(':') != std::string_view::npos)
                s.serve = std::string(*value);
            else
                s.errors.push_back(std::string(arg) + ": expected --typestar_serve=HOST:PORT (e.g. 127.0.0.1:0)");
        } else if (name == "typestar_serve_spec") {
            if (value && !value->empty())
                s.serve_spec = std::string(*value);
            else
                s.errors.push_back(std::string(arg) + ": expected --typestar_serve_spec=NAME");
        } else if (name == "typestar_token_file") {
            if (value && !value->empty())
                s.token_file = std::string(*value);
            else
                s.errors.push_back(std::string(arg) + ": expected --typestar_token_file=PATH");
        } else {
            s.errors.push_back(std::string(arg) +
                               ": unknown flag (known: --typestar_update, --typestar_bound=B, "
                               "--typestar_learner=lstar|lsharp, --typestar_device=URL, --typestar_require_device, "
                               "--typestar_tmax=MS, --typestar_tmin=MS, "
                               "--typestar_serve=HOST:PORT, --typestar_serve_spec=NAME, --typestar_token_file=PATH)");
        }
    }
    s.timing_origin = tmax_origin + (tmax_origin.empty() || tmin_origin.empty() ? "" : " ") + tmin_origin;
    if (kept < argc) argv[kept] = nullptr;
    argc = kept;
    return s;
}

std::string settings_help() {
    return "Typestar flags (environment fallback in parentheses):\n"
           "  --typestar_update           write learned specs instead of <spec>.proposed.yaml (TYPESTAR_UPDATE)\n"
           "  --typestar_bound=B          distinguisher bound of suites and learning (TYPESTAR_BOUND)\n"
           "  --typestar_learner=L        lsharp (default) or lstar, for missing specs and proposals "
           "(TYPESTAR_LEARNER)\n"
           "  --typestar_device=URL       device for every spec: model:PATH, inproc:NAME, http://HOST:PORT "
           "(TYPESTAR_DEVICE)\n"
           "  --typestar_require_device   fail, not skip, when the device cannot be reached "
           "(TYPESTAR_REQUIRE_DEVICE)\n"
           "  --typestar_tmax=MS          the device's tmax over its own, recorded in specs and assumptions "
           "(TYPESTAR_TMAX)\n"
           "  --typestar_tmin=MS          the device's tmin over its own (TYPESTAR_TMIN)\n"
           "  --typestar_serve=HOST:PORT  run no test: serve the registered devices as /v1 agents (port 0: any), "
           "for\n"
           "                              `typestar learn|check --device exec:BINARY#SPEC`\n"
           "  --typestar_serve_spec=NAME  serve only this spec (gtest suite name, spec name or file stem)\n"
           "  --typestar_token_file=PATH  the agents' bearer token (mode 0600; else TYPESTAR_DEVICE_TOKEN[_FILE])\n"
           "  CI set (to anything but empty, 0, false, no or off): never write; a missing spec or an unreachable\n"
           "  device fails.\n"
           "  SPDLOG_LEVEL=info|debug|trace shows typestar's log (e.g. SPDLOG_LEVEL=typestar.learn=debug).\n";
}

}  // namespace typestar
