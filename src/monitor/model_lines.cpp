// A monitor model with the source lines of a spec file (given as a function: the monitor does
// not depend on the spec library; spec/monitor.hpp is the adapter at the edge).
#include "typestar/monitor/monitor_model.hpp"

#include <utility>

namespace typestar {

MonitorModel::MonitorModel(Typestate typestate, std::string file, const LineOf& line_of)
    : MonitorModel(std::move(typestate)) {
    file_ = std::move(file);
    for (StateId s = 0; s < num_states(); ++s) {
        const std::string& state = typestate_.states[s].name;
        const std::size_t row = static_cast<std::size_t>(s) * (width_ + 1);
        for (Symbol c = 0; c < num_callins(); ++c)
            lines_[row + column(Event::callin(c))] = line_of(state, typestate_.callins[c]);
        for (Symbol c = 0; c < num_callbacks(); ++c)
            lines_[row + column(Event::callback(c))] = line_of(state, typestate_.callbacks[c]);
        lines_[row + width_] = line_of(state, {});
    }
}

}  // namespace typestar
