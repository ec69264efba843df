// Learning and conformance subcommands (owned by the learning helper; empty until then).
#include "commands.hpp"

namespace typestar::cli {

void register_learning_commands(CLI::App& /*app*/) {}

}  // namespace typestar::cli
