#include "typestar/device/factory.hpp"

#include <cstdlib>
#include <stdexcept>

#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/agent.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace typestar {

namespace {

std::string token_from_environment() {
    if (const char* t = std::getenv("TYPESTAR_DEVICE_TOKEN"); t != nullptr && *t != '\0') return t;
    if (const char* f = std::getenv("TYPESTAR_DEVICE_TOKEN_FILE"); f != nullptr && *f != '\0')
        return read_token_file(f);
    return {};
}

std::string known_classes() {
    std::string s;
    for (const auto& c : sim::simulated_classes()) s += (s.empty() ? "" : ", ") + c.key;
    return s;
}

}  // namespace

std::unique_ptr<Device> make_device(const std::string& url, const DeviceOptions& options) {
    if (url.rfind("model:", 0) == 0) {
        const std::string path = url.substr(6);
        if (path.empty()) throw std::invalid_argument("device '" + url + "': model:PATH needs a spec file");
        const spec::Spec s = spec::load_spec(path);
        return std::make_unique<ModelDevice>(synchronous_closure(s.typestate), url, spec::declared_traits(s));
    }
    if (url.rfind("inproc:", 0) == 0) {
        const auto entry = sim::find_simulated(url.substr(7));
        if (!entry)
            throw std::invalid_argument("device '" + url + "': no simulated class '" + url.substr(7) + "' (known: " +
                                        known_classes() + ")");
        InProcessConfig config;
        config.variants = options.variants.value_or(entry->variants);
        config.violations = options.violations;
        config.label = url;
        return std::make_unique<InProcessDevice>(entry->make(options.sim), config);
    }
    if (url.rfind("http://", 0) == 0) {
        HttpConfig config = options.http;
        config.url = url;
        if (config.token.empty()) config.token = token_from_environment();
        if (config.token.empty())
            throw DeviceError("device " + url +
                              ": no bearer token (set TYPESTAR_DEVICE_TOKEN or TYPESTAR_DEVICE_TOKEN_FILE)");
        return std::make_unique<HttpDevice>(config);
    }
    throw std::invalid_argument("device '" + url + "': unknown kind (expected model:PATH, inproc:NAME or http://HOST:PORT)");
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
