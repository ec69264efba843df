// `--device exec:BINARY[#SPEC]`: a gtest binary linked with typestar's plugin, started as a /v1
// agent of its registered device (BINARY --typestar_serve=127.0.0.1:0 --typestar_token_file=F
// [--typestar_serve_spec=SPEC]), driven over HTTP (a typestate or a data device, as its status
// says) and stopped when the device is destroyed.
// Private to src/device: opened through open_device / make_device (typestar/device/factory.hpp).
#pragma once

#include <memory>
#include <string>

#include "typestar/device/connection.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/sul/device.hpp"

namespace typestar::detail {

/// Starts the binary of `url` (`exec:BINARY[#SPEC]`; BINARY is run as given: a path, not looked up
/// in PATH unless it has no slash) with a fresh random token in a 0600 file, waits up to 60 s for
/// its `typestar: ready` line, asks the agent's status which kind it serves, and returns an
/// HttpDevice (a typestate spec's binary) or an HttpDataDevice (a register automaton's) over it,
/// wrapped so that destroying it stops the process (SIGTERM, then SIGKILL after 5 s). name() is
/// `url`. Throws DeviceError when the binary cannot start, exits or says nothing within the time,
/// serves no device, or serves the other kind than `kind` asks; the message carries the binary's
/// own error line. `http` configures the HTTP device over it (its url and token are the agent's).
[[nodiscard]] OpenedDevice launch_exec(const std::string& url, const HttpConfig& http = {},
                                       DeviceKind kind = DeviceKind::Any);

}  // namespace typestar::detail
