// Register automata on the command line (src/cli/ra_commands.cpp): learn and check with data
// devices. Private to the CLI.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace typestar::cli {

/// True when `url` is a data device: `model:` with a register-automaton file, or an http:// agent
/// whose status declares `data` (contacts it; DeviceError when it cannot be reached).
[[nodiscard]] bool is_data_device_url(const std::string& url);

/// `learn` for a data device.
struct RaLearnArgs {
    std::string device;
    std::size_t bound = 2;         ///< distinguisher bound B: the equivalence oracle's and the written spec's
    std::size_t budget = 0;        ///< most concrete queries executed (0: none)
    std::string out;
    bool out_is_dot = false;
    std::string stats;
};
/// Learns, writes the spec (stdout, --out .yaml, or a DOT picture for --out .dot), exit 1 when
/// learning did not converge (nothing written).
void run_ra_learn(const RaLearnArgs& args);

/// `check` of a register-automaton spec (YAML or RALib XML) against a data device: exit 0 when the
/// suite passes, 1 with the data trace of a counterexample, 2 for bad input.
void run_ra_check(const std::string& spec, const std::string& url, std::optional<std::size_t> bound);

}  // namespace typestar::cli
