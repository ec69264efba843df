// Internal to the session (propose_spec, proposal.hpp): one proposal per spec shared by the test
// processes of one ctest run.
// Design note: CTest runs every test in its own process, and each failing transition test would
// re-learn the same proposal. The first failing process takes an exclusive flock on a lock file in
// the temporary directory (named after the spec's absolute path), learns, writes the proposal files
// and a record {key, proposed YAML, pid}; the others wait on the lock and reuse the record when its
// key is theirs — the spec file's bytes, the device's description, the test binary's bytes, the
// environment and working directory, the bound, the learner and the tool version — and the
// proposal explains their own counterexample.
// Anything else (another key, a proposal that does not explain the failing word, a proposal file
// that is gone or edited) recomputes. Records are advisory: losing one only costs a re-learn.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace typestar::detail {

/// The record shared through the temporary directory.
struct SharedProposal {
    std::string key;   ///< what the proposal was computed from (see shared_proposal_key)
    long pid = 0;      ///< the process that computed it
    std::string test;  ///< the gtest test (Suite.Name) whose failure computed it, one line
    std::string when;  ///< when, "YYYY-MM-DD HH:MM:SS UTC", one line
    std::string yaml;  ///< the proposed spec, as written
    bool operator==(const SharedProposal&) const = default;
};

/// The key of a proposal: one line per input, in a fixed order. `binary` is the test binary's
/// content hash (empty when unknown).
[[nodiscard]] std::string shared_proposal_key(const std::string& spec_bytes, const std::string& device,
                                              const std::string& binary, std::size_t bound,
                                              const std::string& learner, const std::string& tool);

/// The lock and record paths for `spec` (absolute) in `dir` (default: the temporary directory):
/// `typestar-proposal-<hash of the path>.lock` and `.record`.
[[nodiscard]] std::filesystem::path shared_lock_path(const std::filesystem::path& spec,
                                                     const std::filesystem::path& dir = {});
[[nodiscard]] std::filesystem::path shared_record_path(const std::filesystem::path& spec,
                                                       const std::filesystem::path& dir = {});

/// The record at `path`; nullopt when missing or malformed (never throws).
[[nodiscard]] std::optional<SharedProposal> read_shared_proposal(const std::filesystem::path& path);
/// Writes the record atomically (temporary file + rename). Throws typestar::Error on failure.
void write_shared_proposal(const std::filesystem::path& path, const SharedProposal& record);

/// An exclusive flock(2) on `path` (created 0600 if missing), held until destruction. When the file
/// cannot be opened or locked, holds nothing (held() false): sharing is then skipped, never wrong.
class ProposalLock {
public:
    explicit ProposalLock(const std::filesystem::path& path);
    ~ProposalLock();
    ProposalLock(const ProposalLock&) = delete;
    ProposalLock& operator=(const ProposalLock&) = delete;
    [[nodiscard]] bool held() const noexcept { return fd_ >= 0; }

private:
    int fd_ = -1;
};

/// The content hash of this process's environment, sorted, without variables that cannot change a
/// device (GTEST_*, SPDLOG_LEVEL, and the shell's _, PWD, OLDPWD, SHLVL): a factory may read the
/// environment, so another environment is another device.
[[nodiscard]] std::string environment_hash();

/// Now as "YYYY-MM-DD HH:MM:SS UTC".
[[nodiscard]] std::string utc_now();

/// The content hash of this process's executable (/proc/self/exe); empty when unreadable.
[[nodiscard]] std::string executable_hash();

}  // namespace typestar::detail
