// A test binary for the end-to-end tests: TYPESTAR_SPEC_TESTS with a spec named by the
// environment (TYPESTAR_SUBJECT_SPEC) and a factory that simulates the spec named by
// TYPESTAR_SUBJECT_MODEL (or throws DeviceError when it is "unreachable", or is an HttpDevice when
// it is an agent's http:// URL; no factory when unset).
#include <cstdlib>
#include <memory>
#include <string>

#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/gtest/gtest.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/model_device.hpp"

namespace {

const char* env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v != nullptr ? v : fallback;
}

typestar::DeviceFactory subject_factory() {
    const std::string model = env_or("TYPESTAR_SUBJECT_MODEL", "");
    if (model.empty()) return {};
    return [model]() -> std::unique_ptr<typestar::Device> {
        if (model == "unreachable") throw typestar::DeviceError("subject: connection refused (simulated)");
        if (model.rfind("http://", 0) == 0) return typestar::make_device(model);  // an agent-backed test
        const auto spec = typestar::spec::load_spec(model);
        return std::make_unique<typestar::ModelDevice>(typestar::synchronous_closure(spec.typestate),
                                                       "subject-model");
    };
}

}  // namespace

TYPESTAR_SPEC_TESTS(env_or("TYPESTAR_SUBJECT_SPEC", "specs/timer.yaml"), subject_factory());
