// initialize(), the registration queue, and the settings in force.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "serve.hpp"
#include "spec_tests.hpp"
#include "typestar/gtest/gtest.hpp"
#include "typestar/gtest/register_automata.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

namespace {

struct Registry {
    std::mutex mutex;
    bool initialized = false;
    std::optional<Settings> settings;
    std::string binary = "test-binary";
    std::vector<detail::Registration> queued;
    std::vector<std::unique_ptr<detail::SpecTests>> specs;  // alive until exit: tests point into them
    std::set<std::string> suites;
};

Registry& registry() {
    static Registry r;  // never destroyed before the tests that use it ran
    return r;
}

void register_now(Registry& r, detail::Registration registration) {
    r.specs.push_back(std::make_unique<detail::SpecTests>(std::move(registration), r.binary));
    r.specs.back()->register_tests(r.suites);
}


}  // namespace

const Settings& settings() {
    Registry& r = registry();
    if (!r.settings) {
        int argc = 0;
        r.settings = parse_settings(argc, nullptr);
    }
    return *r.settings;
}

void register_spec_tests(const std::filesystem::path& spec, DeviceFactory factory, SpecTestOptions options,
                         std::source_location where) {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    detail::Registration registration{spec, {std::move(factory), {}}, std::move(options), where.file_name(),
                                      static_cast<int>(where.line())};
    if (r.initialized)
        register_now(r, std::move(registration));
    else
        r.queued.push_back(std::move(registration));
}

void register_spec_tests(const std::filesystem::path& spec, DataDeviceFactory factory, SpecTestOptions options,
                         std::source_location where) {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    detail::Registration registration{spec, {{}, std::move(factory)}, std::move(options), where.file_name(),
                                      static_cast<int>(where.line())};
    if (r.initialized)
        register_now(r, std::move(registration));
    else
        r.queued.push_back(std::move(registration));
}

bool detail::queue_spec_tests(const char* spec, DeviceFactory factory, SpecTestOptions options,
                              std::source_location where) {
    register_spec_tests(spec, std::move(factory), std::move(options), where);
    return true;
}

bool detail::queue_spec_tests(const char* spec, DataDeviceFactory factory, SpecTestOptions options,
                              std::source_location where) {
    register_spec_tests(spec, std::move(factory), std::move(options), where);
    return true;
}

// Deprecated names (typestar/gtest/register_automata.hpp), for one release.
void register_register_automaton_tests(const std::filesystem::path& spec, DataDeviceFactory factory,
                                       SpecTestOptions options, std::source_location where) {
    register_spec_tests(spec, std::move(factory), std::move(options), where);
}

bool detail::queue_register_automaton_tests(const char* spec, DataDeviceFactory factory, SpecTestOptions options,
                                            std::source_location where) {
    register_spec_tests(spec, std::move(factory), std::move(options), where);
    return true;
}

void initialize(int& argc, char** argv, const InitOptions& options) {
    Registry& r = registry();
    {
        const std::lock_guard<std::mutex> lock(r.mutex);
        if (r.initialized) return;
    }
    Settings s = parse_settings(argc, argv);
    if (argc > 0 && argv != nullptr && argv[0] != nullptr) r.binary = argv[0];
    bool help = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        help = help || a == "--help" || a == "-h" || a == "-?" || a == "/?" || a == "--gtest_help";
    }
    testing::InitGoogleTest(&argc, argv);
    if (help) std::printf("\n%s", settings_help().c_str());
    if (options.logging) typestar::log_to_stderr();

    std::vector<detail::SpecTests*> specs;
    {
        const std::lock_guard<std::mutex> lock(r.mutex);
        r.settings = std::move(s);
        r.initialized = true;
        auto queued = std::move(r.queued);
        r.queued.clear();
        for (auto& registration : queued) register_now(r, std::move(registration));
        for (auto& spec : r.specs) specs.push_back(spec.get());
    }
    if (!r.settings->serve.empty() && !help) {
        // The test binary as a /v1 agent (`typestar learn|check --device exec:BINARY#SPEC`): no test runs.
        if (!r.settings->errors.empty()) {
            for (const auto& e : r.settings->errors) std::fprintf(stderr, "typestar: %s\n", e.c_str());
            std::exit(2);
        }
        std::exit(detail::serve_devices(specs, *r.settings));
    }
}

const std::string& detail::test_binary() { return registry().binary; }

}  // namespace typestar
