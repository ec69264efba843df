// The plugin's settings: command-line flags with environment fallbacks, as a plain value.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace typestar {

/// What the typestar flags and environment say. A flag wins over its environment variable.
struct Settings {
    /// --typestar_update / TYPESTAR_UPDATE: write the spec itself (a learned or re-learned one)
    /// instead of `<spec>.proposed.yaml`; the test then passes. Refused on CI.
    bool update = false;
    /// --typestar_bound=B / TYPESTAR_BOUND: distinguisher bound B of the suites and of learning;
    /// default: the spec's `bounds.distinguisher` (2 when learning a missing spec).
    std::optional<std::size_t> bound;
    /// --typestar_learner=lstar|lsharp / TYPESTAR_LEARNER: the learner of a missing spec and of
    /// proposals (default lsharp).
    std::string learner = "lsharp";
    /// --typestar_device=URL / TYPESTAR_DEVICE: the device of every registered spec (`model:PATH`,
    /// `inproc:NAME`, `http://HOST:PORT`), over any registered factory. Empty: the factory.
    std::string device;
    /// --typestar_require_device / TYPESTAR_REQUIRE_DEVICE: an unreachable device fails the tests
    /// (default: they skip, except on CI).
    bool require_device = false;
    /// --typestar_serve=HOST:PORT: instead of running tests, serve the registered devices as /v1
    /// agents on HOST:PORT (port 0: an ephemeral port; with several registrations served, each
    /// agent gets an ephemeral port whatever PORT says), print one line
    /// `typestar: serving <Suite> at http://HOST:PORT (spec <path>)` per device, then
    /// `typestar: ready`, and stop on SIGTERM, SIGINT or SIGHUP. Empty: run tests.
    std::string serve;
    /// --typestar_serve_spec=NAME: serve only this registration (its gtest suite name, its spec's
    /// name, or its spec file's stem). Empty: every registration.
    std::string serve_spec;
    /// --typestar_token_file=F: the agents' bearer token, read from F (mode 0600 or stricter).
    /// Empty: TYPESTAR_DEVICE_TOKEN, else TYPESTAR_DEVICE_TOKEN_FILE; serving refuses to start
    /// without a token.
    std::string token_file;
    /// --typestar_tmax=MS / TYPESTAR_TMAX, --typestar_tmin=MS / TYPESTAR_TMIN: the device's tmax /
    /// tmin overridden (Device::override_timing), for a registered factory's device and a
    /// --typestar_device URL alike; the spec learned and every assumptions block record it.
    std::optional<std::size_t> tmax_ms;
    std::optional<std::size_t> tmin_ms;
    /// Which flags or variables set them, e.g. "--typestar_tmax=300" (for messages).
    std::string timing_origin;
    /// The environment variable CI is set (the rule insta and Vitest follow): nothing is ever
    /// written, a missing spec fails, an unreachable device fails.
    bool ci = false;
    /// Problems with flag or environment values, e.g. "--typestar_bound=x: not a number". When
    /// not empty, every typestar test fails with these messages.
    std::vector<std::string> errors;
};

/// Reads the environment through `getenv` (default std::getenv), then the `--typestar_*` flags of
/// argv[1..argc), which it removes from argv (argc shrinks; argv[argc] stays null when it was).
/// Boolean flags accept `--typestar_update`, `--typestar_update=1|0|true|false|yes|no|on|off`;
/// a boolean variable counts as set when its value is non-empty and not `0`, `false`, `no` or
/// `off` (case-insensitive). A bad value or an unknown `--typestar_` flag becomes an entry of
/// Settings::errors; nothing is printed and nothing throws.
[[nodiscard]] Settings parse_settings(int& argc, char** argv,
                                      const std::function<const char*(const char*)>& getenv = {});

/// The lines of --help text describing the typestar flags (gtest prints its own --help).
[[nodiscard]] std::string settings_help();

}  // namespace typestar
