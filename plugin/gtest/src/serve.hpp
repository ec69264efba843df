// Internal: --typestar_serve, the test binary as a /v1 agent of its registered devices.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "typestar/device/data_device.hpp"

#include "spec_tests.hpp"
#include "typestar/gtest/settings.hpp"

namespace typestar::detail {

/// A register-automaton registration as --typestar_serve sees it (plugin/gtest/src/ra_tests.cpp).
struct DataServable {
    std::string suite;                 ///< its gtest test-suite name
    std::filesystem::path path;        ///< the spec file
    std::string spec_name;             ///< the automaton's name (empty when the spec does not load)
    std::function<std::unique_ptr<DataDevice>()> make;  ///< --typestar_device's data device, else the factory
};
/// Every register-automaton registration so far, in registration order.
[[nodiscard]] std::vector<DataServable> data_servables();

/// Serves the devices of `specs` and of the register-automaton registrations (data_servables) (those selected by Settings::serve_spec) as typestar::Agent
/// instances on Settings::serve, one per spec, prints their URLs and `typestar: ready` on stdout,
/// and blocks until SIGTERM, SIGINT or SIGHUP. Returns the exit status: 0 after a signal, 2 when
/// nothing could be served (bad address, no token, no such spec, a factory that throws); the
/// reason goes to stderr.
[[nodiscard]] int serve_devices(const std::vector<SpecTests*>& specs, const Settings& settings);

}  // namespace typestar::detail
