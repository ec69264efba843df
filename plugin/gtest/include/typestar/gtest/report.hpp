// The text of the plugin's failure messages: reproduce lines, hashes, paths (traces are the
// session layer's format_trace). Pure functions,
// deterministic, so the messages can be golden-tested.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace typestar::gtest {

/// `text` quoted for a POSIX shell when it needs it (anything outside [A-Za-z0-9_./:=@%+-]):
/// single quotes, with `'` written as `'\''`.
[[nodiscard]] std::string shell_quote(std::string_view text);

/// `typestar check SPEC --device URL --bound B`, arguments shell-quoted.
[[nodiscard]] std::string check_command(const std::filesystem::path& spec, std::string_view device_url,
                                        std::size_t bound);

/// `BINARY --gtest_filter=TEST` (shell-quoted): reruns one test of this binary.
[[nodiscard]] std::string rerun_command(std::string_view binary, std::string_view test);

/// The FNV-1a 64-bit hash of `bytes` as `fnv1a64:` and 16 lower-case hex digits. Forwards to
/// typestar::content_hash (typestar/session/proposal.hpp), which the proposal's sharing key uses.
[[nodiscard]] std::string content_hash(std::string_view bytes);

/// `<spec>.proposed.yaml` next to `spec`: the extension `.yaml`/`.yml` replaced (kept otherwise),
/// e.g. `specs/timer.yaml` -> `specs/timer.proposed.yaml`; `ext` is "yaml" or "dot". Forwards to
/// typestar::proposed_path (typestar/session/proposal.hpp), the one rule `typestar accept` uses too;
/// prefer that one (this name stays for one release).
[[nodiscard]] std::filesystem::path proposed_path(const std::filesystem::path& spec, std::string_view ext);

}  // namespace typestar::gtest
