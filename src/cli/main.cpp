// `typestar`: the command-line tool. Sets up CLI11 and the stderr logger, registers the
// subcommands (commands.hpp) and maps every failure to an exit status: 0 ok, 1 a finding,
// 2 bad usage or bad input.
#include <exception>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "typestar/core/error.hpp"
#include "typestar/log/logging.hpp"

namespace typestar::cli {

std::string version_string() { return std::string("typestar ") + TYPESTAR_VERSION; }

}  // namespace typestar::cli

int main(int argc, char** argv) {
    using namespace typestar::cli;
    typestar::log_to_stderr();

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
    register_accept_command(app);

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
