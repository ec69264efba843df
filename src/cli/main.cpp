// `typestar`: the command-line tool. Sets up CLI11 and the stderr logger, registers the
// subcommands (commands.hpp) and maps every failure to an exit status: 0 ok, 1 a finding,
// 2 bad usage or bad input.
#include <exception>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "typestar/core/error.hpp"

namespace typestar::cli {

std::string version_string() { return std::string("typestar ") + TYPESTAR_VERSION; }

namespace {

/// Loggers named typestar.* log to stderr; level `warn` unless SPDLOG_LEVEL says otherwise
/// (e.g. SPDLOG_LEVEL=info or SPDLOG_LEVEL=typestar.learn=debug).
void set_up_logging() {
    // typestar::detail::logger (sul/logging.hpp) gives every typestar.* logger this one's sinks.
    spdlog::set_default_logger(
        std::make_shared<spdlog::logger>("typestar", std::make_shared<spdlog::sinks::stderr_sink_mt>()));
    spdlog::set_pattern("[%n] %l: %v");
    spdlog::set_level(spdlog::level::warn);
    spdlog::cfg::load_env_levels();
}

}  // namespace
}  // namespace typestar::cli

int main(int argc, char** argv) {
    using namespace typestar::cli;
    set_up_logging();

    CLI::App app("typestar: learn, check and compare callback typestates (DroidStar-style specs).", "typestar");
    app.set_version_flag("--version", version_string());
    app.require_subcommand(1);
    app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
        std::string text = "typestar: error: " + std::string(e.what()) + "\n";
        if (failed != nullptr) text += "Run with --help for more information.\n";
        return text;
    });
    register_spec_commands(app);
    register_learning_commands(app);

    try {
        app.parse(argc, argv);
    } catch (const CLI::RuntimeError& e) {  // a subcommand's exit_with(code)
        return e.get_exit_code();
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == kExitOk ? kExitOk : kExitBadInput;  // --help / --version, or bad usage
    } catch (const typestar::SpecError& e) {
        for (const auto& d : e.diagnostics()) std::cerr << d.str() << '\n';
        return kExitBadInput;
    } catch (const std::exception& e) {
        print_error(e.what());
        return kExitBadInput;
    }
    return kExitOk;
}
