// Internal: --typestar_serve, the test binary as a /v1 agent of its registered devices.
#pragma once

#include <vector>

#include "spec_tests.hpp"
#include "typestar/gtest/settings.hpp"

namespace typestar::detail {

/// Serves the devices of `specs` (a spec tested on data devices: its data device as a /v1
/// data agent) selected by Settings::serve_spec as typestar::Agent
/// instances on Settings::serve, one per spec, prints their URLs and `typestar: ready` on stdout,
/// and blocks until SIGTERM, SIGINT or SIGHUP. Returns the exit status: 0 after a signal, 2 when
/// nothing could be served (bad address, no token, no such spec, a factory that throws); the
/// reason goes to stderr.
[[nodiscard]] int serve_devices(const std::vector<SpecTests*>& specs, const Settings& settings);

}  // namespace typestar::detail
