// The typestar.* logger family. Library code never prints by default.
#pragma once

#include <memory>
#include <string>

namespace spdlog {
class logger;
}

namespace typestar::detail {

/// The logger `name` (e.g. "typestar.learn"), created on first use. It writes to the sinks of
/// spdlog's default logger when that logger's name starts with "typestar" (the CLI and the gtest
/// main install one), else to a null sink; its level comes from spdlog's registry (so
/// `spdlog::cfg::load_env_levels()` applies). Thread-safe.
[[nodiscard]] std::shared_ptr<spdlog::logger> logger(const std::string& name);

}  // namespace typestar::detail

namespace typestar {

/// For programs (the CLI, the provided gtest main): every typestar.* logger writes to stderr as
/// "[name] level: message", at level `info` (phases and one line per learning round) unless SPDLOG_LEVEL says otherwise (e.g.
/// SPDLOG_LEVEL=info, or SPDLOG_LEVEL=typestar.learn=debug). Libraries never call this.
void log_to_stderr();

}  // namespace typestar

namespace typestar::detail {

}  // namespace typestar::detail
