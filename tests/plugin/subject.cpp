// A test binary for the end-to-end tests: TYPESTAR_SPEC_TESTS with a spec named by the
// environment (TYPESTAR_SUBJECT_SPEC) and a factory that simulates the spec named by
// TYPESTAR_SUBJECT_MODEL (or throws DeviceError when it is "unreachable", or is an HttpDevice when
// it is an agent's http:// URL, or breaks the timing of every wait for late:SPEC; no factory when
// unset).
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

/// A model whose every run with a `wait` breaks the timing (TYPESTAR_SUBJECT_MODEL=late:SPEC), as
/// an in-process device on a machine too busy for its tmax.
class AlwaysLate final : public typestar::Device {
public:
    explicit AlwaysLate(const typestar::spec::Spec& spec)
        : model_(typestar::synchronous_closure(spec.typestate), "subject-late") {}
    const typestar::Alphabet& inputs() const override { return model_.inputs(); }
    const typestar::Alphabet& outputs() const override { return model_.outputs(); }
    typestar::DeviceTraits traits() const override { return model_.traits(); }
    std::string name() const override { return "subject-late"; }
    void reset() override { model_.reset(); }
    typestar::Symbol step(typestar::Symbol input) override {
        if (model_.inputs().name(input) == "wait")
            throw typestar::TimingError("subject-late: tmax too small: callback 'tick' arrived 90.0 ms after the start "
                                        "of a `wait` that answered quiet (tmax 30 ms)",
                                        typestar::TimingError::Kind::LateCallback, "tick", 90, 30, 0);
        return model_.step(input);
    }

private:
    typestar::ModelDevice model_;
};

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
        if (model.rfind("late:", 0) == 0) return std::make_unique<AlwaysLate>(typestar::spec::load_spec(model.substr(5)));
        const auto spec = typestar::spec::load_spec(model);
        return std::make_unique<typestar::ModelDevice>(typestar::synchronous_closure(spec.typestate),
                                                       "subject-model");
    };
}

}  // namespace

TYPESTAR_SPEC_TESTS(env_or("TYPESTAR_SUBJECT_SPEC", "specs/timer.yaml"), subject_factory());
