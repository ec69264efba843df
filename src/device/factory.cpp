// The one opening of device URLs (typestar/device/factory.hpp): every front end (CLI, plugin,
// benches) and every kind (typestate, data) goes through open_device.
#include "typestar/device/factory.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "exec_device.hpp"
#include "http_answers.hpp"
#include "http_transport.hpp"
#include "../spec/spec_detail.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/http_data_device.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar {

namespace {

std::string known_classes() {
    std::string s;
    for (const auto& c : sim::simulated_classes()) s += (s.empty() ? "" : ", ") + c.key;
    return s;
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

bool is_mealy_dot_file(const std::string& path) { return spec::detail::is_dot_path(path); }

OpenedDevice typestate(std::unique_ptr<Device> device) { return OpenedDevice{std::move(device), nullptr}; }
OpenedDevice data(std::unique_ptr<DataDevice> device) { return OpenedDevice{nullptr, std::move(device)}; }

}  // namespace

namespace {

OpenedDevice open_untimed(const std::string& url, const DeviceOptions& options, DeviceKind kind) {
    if (starts_with(url, "model:")) {
        const std::string path = url.substr(6);
        if (path.empty())
            throw std::invalid_argument("device '" + url + "': model:PATH needs a " +
                                        (kind == DeviceKind::Data ? "register-automaton file" : "spec file"));
        if (kind == DeviceKind::Data || (kind == DeviceKind::Any && is_register_automaton_file(path))) {
            std::vector<std::string> assumptions;  // a RALib type read as another
            ra::RegisterAutomaton automaton = load_register_automaton(path, &assumptions);
            return data(std::make_unique<ModelDataDevice>(std::move(automaton), url, std::move(assumptions)));
        }
        if (is_mealy_dot_file(path))  // a Mealy machine declares no traits: the closure's defaults
            return typestate(std::make_unique<ModelDevice>(spec::load_mealy_dot(path), url));
        const spec::Spec s = spec::load_spec(path);
        return typestate(std::make_unique<ModelDevice>(synchronous_closure(s.typestate), url, spec::declared_traits(s)));
    }
    if (starts_with(url, "http://")) {
        HttpConfig config = options.http;
        config.url = url;
        if (config.token.empty()) config.token = find_token();
        if (config.token.empty()) throw DeviceError("device " + url + ": " + missing_token_message());
        if (kind == DeviceKind::Typestate) return typestate(std::make_unique<HttpDevice>(config));
        if (kind == DeviceKind::Data) return data(std::make_unique<HttpDataDevice>(config));
        // One status request decides the kind.
        std::uint64_t requests = 0;
        detail::HttpTransport transport(config, requests, nullptr);
        detail::StatusAnswer status = detail::fetch_status(transport, config);
        if (status.data) return data(std::make_unique<HttpDataDevice>(config, std::move(status)));
        return typestate(std::make_unique<HttpDevice>(config, std::move(status)));
    }
    const char* known = kind == DeviceKind::Data ? "model:PATH.yaml, model:PATH.xml, http://HOST:PORT or exec:BINARY[#SPEC]"
                                                 : "model:PATH, inproc:NAME, http://HOST:PORT or exec:BINARY[#SPEC]";
    if (kind != DeviceKind::Data && starts_with(url, "inproc:")) {
        const auto entry = sim::find_simulated(url.substr(7));
        if (!entry)
            throw std::invalid_argument("device '" + url + "': no simulated class '" + url.substr(7) + "' (known: " +
                                        known_classes() + ")");
        InProcessConfig config;
        config.variants = options.variants.value_or(entry->variants);
        config.violations = options.violations;
        config.label = url;
        return typestate(std::make_unique<InProcessDevice>(entry->make(options.sim), config));
    }
    if (starts_with(url, "exec:")) return detail::launch_exec(url, options.http, kind);
    throw std::invalid_argument(std::string(kind == DeviceKind::Data ? "data device '" : "device '") + url +
                                "': unknown kind (expected " + known + ")");
}

}  // namespace

OpenedDevice open_device(const std::string& url, const DeviceOptions& options, DeviceKind kind) {
    OpenedDevice opened = open_untimed(url, options, kind);
    // The user's tmax / tmin over the device's own, for every typestate kind.
    if (opened.typestate && !options.timing.empty() && !opened.typestate->override_timing(options.timing))
        throw std::invalid_argument("device '" + url + "': " + options.timing.origin + ": the device has no timing to set");
    return opened;
}

DeviceDescription OpenedDevice::describe() const { return typestate ? typestate->describe() : data->describe(); }

std::string OpenedDevice::name() const { return typestate ? typestate->name() : data->name(); }

DeviceKind DeviceFactories::kind() const noexcept {
    return data ? DeviceKind::Data : typestate ? DeviceKind::Typestate : DeviceKind::Any;
}

const char* device_noun(DeviceKind kind) noexcept { return kind == DeviceKind::Data ? "data device" : "device"; }

OpenedDevice open_or_make_device(const std::string& url, DeviceKind kind, const DeviceFactories& factories,
                                 const DeviceOptions& options) {
    if (!url.empty()) return open_device(url, options, kind);
    OpenedDevice made;
    if (kind == DeviceKind::Data) {
        if (!factories.data) return made;
        if (!(made.data = factories.data())) throw std::invalid_argument("the data device factory returned no device");
        return made;
    }
    if (!factories.typestate) return made;
    if (!(made.typestate = factories.typestate()))
        throw std::invalid_argument("the device factory returned no device");
    if (!options.timing.empty() && !made.typestate->override_timing(options.timing))
        throw std::invalid_argument(made.typestate->name() + ": " + options.timing.origin +
                                    ": the device has no timing to set");
    return made;
}

std::unique_ptr<Device> make_device(const std::string& url, const DeviceOptions& options) {
    return std::move(open_device(url, options, DeviceKind::Typestate).typestate);
}

std::unique_ptr<DataDevice> make_data_device(const std::string& url) {
    return std::move(open_device(url, {}, DeviceKind::Data).data);
}

std::vector<std::unique_ptr<Device>> make_devices(const std::vector<std::string>& urls, std::size_t per_url,
                                                  const DeviceOptions& options) {
    if (urls.empty()) throw std::invalid_argument("no device URL");
    if (per_url == 0) throw std::invalid_argument("per_url must be at least 1");
    std::vector<std::unique_ptr<Device>> devices;
    for (const auto& url : urls)
        for (std::size_t i = 0; i < per_url; ++i) devices.push_back(make_device(url, options));
    return devices;
}

}  // namespace typestar
