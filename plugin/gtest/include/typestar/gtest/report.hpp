// The text of the plugin's failure messages: traces, reproduce lines, hashes. Pure functions,
// deterministic, so the messages can be golden-tested.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace typestar::gtest {

/// One row of a trace: the spec's state before the step, the input, the expected and the actual
/// output.
struct TraceStep {
    std::string state;
    std::string input;
    std::string expected;
    std::string actual;
};

/// An aligned table with the header `step  state  input  expected  actual`, one row per step
/// (numbered from 1), columns padded to their widest cell plus two spaces, `  <- differs` after the
/// first row whose expected and actual outputs differ; every line indented by `indent` spaces and
/// ending in a newline. Widths count bytes (names are ASCII in practice).
[[nodiscard]] std::string format_trace(const std::vector<TraceStep>& steps, std::size_t indent = 4);

/// `text` quoted for a POSIX shell when it needs it (anything outside [A-Za-z0-9_./:=@%+-]):
/// single quotes, with `'` written as `'\''`.
[[nodiscard]] std::string shell_quote(std::string_view text);

/// `typestar check SPEC --device URL --bound B`, arguments shell-quoted.
[[nodiscard]] std::string check_command(const std::filesystem::path& spec, std::string_view device_url,
                                        std::size_t bound);

/// `BINARY --gtest_filter=TEST` (shell-quoted): reruns one test of this binary.
[[nodiscard]] std::string rerun_command(std::string_view binary, std::string_view test);

/// The FNV-1a 64-bit hash of `bytes` as `fnv1a64:` and 16 lower-case hex digits.
[[nodiscard]] std::string content_hash(std::string_view bytes);

/// `<spec>.proposed.yaml` next to `spec`: the extension `.yaml`/`.yml` replaced (kept otherwise),
/// e.g. `specs/timer.yaml` -> `specs/timer.proposed.yaml`; `ext` is "yaml" or "dot".
[[nodiscard]] std::filesystem::path proposed_path(const std::filesystem::path& spec, std::string_view ext);

}  // namespace typestar::gtest
