// The edge between spec files and client-side monitors: a loaded spec as a MonitorModel whose
// violations name the spec's file and lines. (The monitor itself depends on core only.)
#pragma once

#include <memory>

#include "typestar/monitor/monitor.hpp"
#include "typestar/monitor/monitor_model.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec {

/// `spec`'s typestate compiled for monitoring, with its file and every (state, symbol)'s line.
/// Throws std::invalid_argument like MonitorModel.
[[nodiscard]] std::shared_ptr<const MonitorModel> monitor_model_of(const Spec& spec);

/// A monitor of `spec` (violations name its file and lines).
[[nodiscard]] std::shared_ptr<Monitor> monitor_of(const Spec& spec, MonitorOptions options = {});

}  // namespace typestar::spec
