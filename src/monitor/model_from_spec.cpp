// The only part of the monitor that needs the spec library (kept apart so that the
// ThreadSanitizer test can build the monitor from core alone).
#include "typestar/monitor/monitor.hpp"
#include "typestar/monitor/monitor_model.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {

MonitorModel::MonitorModel(Typestate typestate, const spec::SourceMap& source)
    : MonitorModel(std::move(typestate)) {
    file_ = source.file;
    for (StateId s = 0; s < num_states(); ++s) {
        const std::string& state = typestate_.states[s].name;
        const std::size_t row = static_cast<std::size_t>(s) * (width_ + 1);
        for (Symbol c = 0; c < num_callins(); ++c)
            lines_[row + column(Event::callin(c))] = source.line_of(state, typestate_.callins[c]);
        for (Symbol c = 0; c < num_callbacks(); ++c)
            lines_[row + column(Event::callback(c))] = source.line_of(state, typestate_.callbacks[c]);
        lines_[row + width_] = source.line_of(state);
    }
}

MonitorModel::MonitorModel(const spec::Spec& spec) : MonitorModel(spec.typestate, spec.source) {}

Monitor::Monitor(const spec::Spec& spec, MonitorOptions options)
    : Monitor(std::make_shared<const MonitorModel>(spec), std::move(options)) {}

}  // namespace typestar
