// Subcommands of the `typestar` command-line tool, registered on one CLI11 app by main.cpp.
// Design note: a subcommand's callback does its work and returns for exit status 0; for another
// status it calls exit_with(code), which throws CLI::RuntimeError that main turns into the status.
// Exit statuses everywhere: 0 ok, 1 a finding (e.g. a difference), 2 bad usage or bad input.
#pragma once

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "../spec/spec_detail.hpp"

namespace typestar::cli {

/// Exit statuses of the tool.
enum ExitCode : int {
    kExitOk = 0,        ///< success
    kExitFinding = 1,   ///< the command ran and found something (a difference, a counterexample)
    kExitBadInput = 2,  ///< bad usage, unreadable or invalid input
};

/// The version string `--version` prints, e.g. "typestar 0.1.0".
[[nodiscard]] std::string version_string();

/// Prints `typestar: error: <message>` to stderr.
inline void print_error(const std::string& message) { std::cerr << "typestar: error: " << message << '\n'; }

/// Ends the running subcommand with exit status `code` (nothing more is printed).
[[noreturn]] inline void exit_with(int code) { throw CLI::RuntimeError(code); }

/// The extension of `path`, lower case (".dot"), for choosing what to write.
[[nodiscard]] inline std::string lower_extension(const std::string& path) {
    return spec::detail::lower_extension(path);
}

/// True for an output path that asks for DOT (.dot, .gv).
[[nodiscard]] inline bool is_dot_file(const std::string& path) { return spec::detail::is_dot_path(path); }

/// Adds `validate`, `export`, `import` and `diff` (src/cli/spec_commands.cpp).
void register_spec_commands(CLI::App& app);

/// Adds `accept` (src/cli/accept_command.cpp).
void register_accept_command(CLI::App& app);

/// Adds the learning and conformance subcommands (src/cli/learning_commands.cpp).
void register_learning_commands(CLI::App& app);

}  // namespace typestar::cli
