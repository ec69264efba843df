// Internal to the session: the kind-neutral phases of the proposal workflow, written once and used
// by propose_spec (typestates, proposal.cpp) and propose_register_spec (register automata,
// register_automata.cpp): the sharing key, the cross-process lock, the record another test process
// left (reused only while its files are in place), sharing one's own, writing by mode, and the
// sentences that say why a proposal belongs to another spec. A kind brings only what is its own:
// reading the record's YAML, whether it explains the failing word, learning, its diff.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "shared_proposal.hpp"
#include "typestar/session/proposal.hpp"

namespace typestar::ra {
struct RegisterAutomaton;
}

namespace typestar::detail {

/// What the sharing of one proposal depends on, for every kind.
struct ShareRequest {
    std::filesystem::path spec;   ///< the spec file; the lock and record are named after it
    std::string stored_bytes;     ///< the stored spec file's bytes
    std::string device_key;       ///< proposal_device_key (empty: not pinned, nothing is shared)
    std::size_t bound = 2;
    bool auto_bound = false;  ///< B raised while the learned machine needs it (a distinct key)
    std::string learner;          ///< the learner's name
    ProposalMode mode = ProposalMode::Write;
    std::string requester;        ///< who asks (a gtest `Suite.Name`)
    /// True when there is a stored spec and a failing word the proposal must explain: sharing
    /// applies only then (a missing spec is learned by one test, never by many).
    bool has_failure = false;
};

/// The key, the lock and the record of one proposal (see shared_proposal.hpp). Constructed before
/// learning: when sharing applies it takes the lock (waiting while another process learns).
class ProposalSharing {
public:
    explicit ProposalSharing(ShareRequest request);
    /// The record another process left for this key whose files are still the proposal (the
    /// proposal file, or the spec itself in update mode, holds its YAML; Print mode writes none):
    /// the caller reuses it when its kind says it explains the failing word. nullopt otherwise.
    [[nodiscard]] std::optional<SharedProposal> reusable() const;
    /// "Suite.Name in test process N at WHEN" of a reused record.
    [[nodiscard]] static std::string shared_by(const SharedProposal& record);
    /// Records `yaml` as this key's proposal for the other processes (a warning when it cannot).
    void share(const std::string& yaml) const;

private:
    ShareRequest request_;
    std::string key_;
    std::optional<ProposalLock> lock_;
};

/// Writes a proposal's text for the spec at `spec_path`, atomically: with `update`, the spec itself
/// (and removes every proposal file of it); else `<spec>.proposed.yaml`. The caller adds what its
/// kind draws (DOT, pictures). Throws std::exception when a file cannot be written.
[[nodiscard]] WrittenProposal write_proposal_text(const std::filesystem::path& spec_path, const std::string& yaml,
                                                  bool update);

/// The device part of a sharing key from who the device says it is (proposal_device_key of either
/// kind): empty when `url` names an agent, whose behaviour can change behind the same URL.
[[nodiscard]] std::string proposal_device_key(const std::string& url, const DeviceDescription& who);

/// "adds x, y; lacks z" of `now` against `before` (names, any order).
[[nodiscard]] std::string alphabet_change(const std::vector<std::string>& before, const std::vector<std::string>& now);

/// The signature of `a` as sorted text lines ("input offer(int)", "output out(int)"), for comparing
/// two register automata.
[[nodiscard]] std::vector<std::string> signature_lines(const ra::RegisterAutomaton& a);

}  // namespace typestar::detail
