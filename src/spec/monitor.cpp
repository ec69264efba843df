#include "typestar/spec/monitor.hpp"

#include <utility>

namespace typestar::spec {

std::shared_ptr<const MonitorModel> monitor_model_of(const Spec& spec) {
    const SourceMap& source = spec.source;
    return std::make_shared<const MonitorModel>(
        spec.typestate, source.file,
        [&source](const std::string& state, const std::string& symbol) { return source.line_of(state, symbol); });
}

std::shared_ptr<Monitor> monitor_of(const Spec& spec, MonitorOptions options) {
    return std::make_shared<Monitor>(monitor_model_of(spec), std::move(options));
}

}  // namespace typestar::spec
