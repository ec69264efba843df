#include "typestar/log/logging.hpp"

#include <mutex>
#include <string_view>

#include <spdlog/cfg/env.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace typestar::detail {

std::shared_ptr<spdlog::logger> logger(const std::string& name) {
    static std::mutex mutex;
    const std::lock_guard<std::mutex> lock(mutex);
    if (auto existing = spdlog::get(name)) return existing;
    std::shared_ptr<spdlog::logger> created;
    const auto fallback = spdlog::default_logger();
    if (fallback && std::string_view(fallback->name()).substr(0, 8) == "typestar") {
        created = std::make_shared<spdlog::logger>(name, fallback->sinks().begin(), fallback->sinks().end());
    } else {
        created = std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::null_sink_mt>());
    }
    spdlog::initialize_logger(created);
    return created;
}

}  // namespace typestar::detail

namespace typestar {

void log_to_stderr() {
    // detail::logger gives every typestar.* logger the sinks of this default logger.
    spdlog::set_default_logger(
        std::make_shared<spdlog::logger>("typestar", std::make_shared<spdlog::sinks::stderr_sink_mt>()));
    spdlog::set_pattern("[%n] %l: %v");
    spdlog::set_level(spdlog::level::info);  // one progress line per learning round
    spdlog::cfg::load_env_levels();
}

}  // namespace typestar
