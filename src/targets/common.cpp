// The registry of the real targets.
#include <utility>

#include "typestar/targets/targets.hpp"

namespace typestar::targets {

const std::vector<RealTarget>& real_targets() {
    static const std::vector<RealTarget> targets{
        {"sqlite", "specs/targets/sqlite.yaml", [] { return sqlite(); }},
        {"steady_timer", "specs/targets/steady_timer.yaml", [] { return steady_timer(); }},
        {"tcp_socket", "specs/targets/tcp_socket.yaml", [] { return tcp_socket(); }},
    };
    return targets;
}

std::optional<RealTarget> find_target(std::string_view key) {
    for (const auto& t : real_targets())
        if (t.key == key) return t;
    return std::nullopt;
}

std::unique_ptr<InProcessDevice> make_target_device(ClassDefinition definition) {
    InProcessConfig config;
    config.variants = VariantMode::First;
    config.violations = TimingViolationPolicy::Error;
    return std::make_unique<InProcessDevice>(std::move(definition), config);
}

}  // namespace typestar::targets
