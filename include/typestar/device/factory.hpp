// Devices by URL, for the command line and the gtest plugin (`--device URL`): the one opening.
//   model:PATH          a spec file's synchronous closure or a Mealy DOT file, simulated (ModelDevice); a register-
//                       automaton file (`kind: register-automaton` YAML, RALib XML) is a data device
//                       (ModelDataDevice)
//   inproc:NAME         a simulated Android class of the registry (typestar/device/simulated.hpp)
//   http://HOST:PORT    a /v1 agent: HttpDevice, or HttpDataDevice when its /v1/status declares
//                       `data` (one status request decides); token from the options or find_token
//                       (TYPESTAR_DEVICE_TOKEN, else the 0600 file named by TYPESTAR_DEVICE_TOKEN_FILE)
//   exec:BINARY[#SPEC]  a gtest binary linked with typestar's plugin, started as the agent of its
//                       registered device (--typestar_serve) and stopped with the device
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "typestar/device/data_device.hpp"
#include "typestar/device/http_device.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/device/simulated.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

/// Options of make_device. Plain data with defaults.
struct DeviceOptions {
    /// inproc: the simulation's delays, timing and seed.
    sim::SimOptions sim;
    /// inproc: overrides the registry's variant mode.
    std::optional<VariantMode> variants;
    /// Every kind: tmax / tmin over the device's own (Device::override_timing: inproc runs with
    /// it; http and exec send it with every wait; model: recorded, a simulation has no real time).
    TimingOverride timing;
    /// inproc: what a timing violation does.
    TimingViolationPolicy violations = TimingViolationPolicy::Error;
    /// http: timeouts, retries, token (url is taken from the device URL). An empty token is read
    /// from the environment.
    HttpConfig http;
};

/// Which kind of device an opening accepts.
enum class DeviceKind {
    Any,        ///< whatever the URL serves
    Typestate,  ///< a Device (callins, callbacks, quiescence)
    Data,       ///< a DataDevice (register automaton)
};

/// What open_device made: exactly one of the two is set (open_or_make_device: none when there is
/// no device to make).
struct OpenedDevice {
    std::unique_ptr<Device> typestate;
    std::unique_ptr<DataDevice> data;
    /// Whether a device is open.
    explicit operator bool() const noexcept { return typestate || data; }
    /// The open device's description (name, class, framework). Precondition: a device is open.
    [[nodiscard]] DeviceDescription describe() const;
    /// The open device's name. Precondition: a device is open.
    [[nodiscard]] std::string name() const;
};

/// The device factories a front end registered a spec with (a gtest registration): at most one set.
struct DeviceFactories {
    std::function<std::unique_ptr<Device>()> typestate;
    std::function<std::unique_ptr<DataDevice>()> data;
    /// The kind of device they make: Typestate or Data, or Any when neither is set.
    [[nodiscard]] DeviceKind kind() const noexcept;
};

/// How messages name a device of `kind` (and its factory): "data device", else "device".
[[nodiscard]] const char* device_noun(DeviceKind kind) noexcept;

/// The one opening of a device URL (see the header comment): a typestate device or a data device,
/// as the URL (a model file's kind, an agent's status) says; `kind` refuses the other one. Throws
/// std::invalid_argument for an unknown scheme or class name (listing the known ones), SpecError
/// for a bad model file, DeviceError for an unreachable agent, a missing token, or a device of the
/// refused kind.
[[nodiscard]] OpenedDevice open_device(const std::string& url, const DeviceOptions& options = {},
                                       DeviceKind kind = DeviceKind::Any);

/// A front end's device of `kind`: `url`'s when it is not empty (open_device), else one made by the
/// factory of `kind` in `factories` (a typestate device gets `options.timing` as open_device gives
/// it). Empty when there is no URL and no such factory. Throws like open_device, and
/// std::invalid_argument when the factory returns no device.
[[nodiscard]] OpenedDevice open_or_make_device(const std::string& url, DeviceKind kind,
                                               const DeviceFactories& factories, const DeviceOptions& options = {});

/// The typestate device named by `url`: open_device(url, options, DeviceKind::Typestate). Throws std::invalid_argument for an unknown
/// scheme or class name (listing the known ones), SpecError for a bad spec file, DeviceError for an
/// unreachable agent or a missing token.
[[nodiscard]] std::unique_ptr<Device> make_device(const std::string& url, const DeviceOptions& options = {});

/// `per_url` devices for each URL of `urls`, in order (e.g. 4 in-process instances, or 2
/// connections to each of 3 agents), for one OracleStack over a pool. Throws like make_device, and
/// std::invalid_argument for no URL or per_url 0.
[[nodiscard]] std::vector<std::unique_ptr<Device>> make_devices(const std::vector<std::string>& urls,
                                                                std::size_t per_url = 1,
                                                                const DeviceOptions& options = {});

}  // namespace typestar
