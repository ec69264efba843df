// Membership oracles: the one path from a learner or a test runner to a device.
// Design note: an oracle answers batches of queries (so a pool of devices can run a batch in
// parallel, and a cache can run only the maximal words of a batch). Caches, counters and guards are
// decorators around another oracle, composed at the call site; DeviceOracle at the bottom is the
// only one that touches a device:
//
//     ModelDevice device(machine);
//     QueryCounter counter;
//     DeviceOracle executed(device, &counter);   // counts executed queries, symbols, waits
//     CacheOracle cache(executed);               // prefix tree + non-determinism guard
//     CountingOracle asked(cache, &counter);     // counts queries asked
//
// (OracleStack in sul/stack.hpp is exactly this composition, over one device or several.)
#pragma once

#include <cstddef>
#include <span>

#include "typestar/core/alphabet.hpp"
#include "typestar/sul/device.hpp"
#include "typestar/sul/stats.hpp"

namespace typestar {

class CacheOracle;

/// One membership query of a batch: run `prefix·suffix` from a fresh instance and write the
/// outputs of the `suffix` part to `answer` (caller-owned storage of exactly `suffix.size()`).
/// The spans must stay valid during the call.
struct Query {
    std::span<const Symbol> prefix;
    std::span<const Symbol> suffix;
    std::span<Symbol> answer;
    /// The last `optional_tail` inputs of `suffix` are a look-ahead: an oracle that knows the
    /// rest without running anything (a cache) may answer just the rest, leaving the tail's answer
    /// slots unspecified; whatever runs, runs the whole word. Oracles may ignore this (default 0).
    std::size_t optional_tail = 0;
};

/// Answers membership queries: the outputs of a device on an input word from its initial state.
class MembershipOracle {
public:
    virtual ~MembershipOracle() = default;

    /// The device's inputs.
    [[nodiscard]] virtual const Alphabet& inputs() const = 0;
    /// The device's outputs seen or declared so far (may grow; ids are stable).
    [[nodiscard]] virtual const Alphabet& outputs() const = 0;
    /// What may be assumed about answers (the device's traits, as far as this oracle uses them).
    [[nodiscard]] virtual DeviceTraits traits() const = 0;

    /// Answers every query of `batch`, in any order. Throws DeviceError, NondeterminismError.
    virtual void query_all(std::span<const Query> batch) = 0;

    /// Writes the outputs of `word` to `out` (same size) if this oracle knows them without running
    /// anything (a cache); returns false otherwise (the default). Never counts as a query.
    virtual bool lookup(std::span<const Symbol> word, std::span<Symbol> out);

    /// How many queries of a batch the oracle runs at once (a pool of devices: their number).
    /// Decorators forward it; a cache sends independent words in waves of this width. Default 1.
    [[nodiscard]] virtual std::size_t parallelism() const { return 1; }

    /// The prefix tree of every answer seen, if this oracle is (or forwards to) a cache: the
    /// observation tree of tree-based learners (L#), read through CacheOracle's view (and added to
    /// only through CacheOracle::insert, checked like a device answer). Decorators forward it;
    /// default none. Added for L# (h-lsharp).
    [[nodiscard]] virtual CacheOracle* prefix_tree() { return nullptr; }

    /// The outputs of `word`, one per input: a batch of one.
    [[nodiscard]] Word query(std::span<const Symbol> word);

    /// Whether query_adaptive runs as one query from a fresh instance (the device below runs
    /// adaptively, Device::runs_adaptively, and every oracle between forwards it). Default false.
    [[nodiscard]] virtual bool adaptive() const { return false; }
    /// One adaptive membership query: `prefix`, then the inputs `next` chooses from the outputs
    /// after the prefix (NextInput), until it answers nullopt. Returns the chosen inputs and writes
    /// the outputs of prefix and chosen inputs to `outputs` (resized). When adaptive(), one query
    /// (one reset); otherwise (this default) one query per chosen input, each the whole word so far:
    /// the same answers, at a reset each. Throws as query_all.
    virtual Word query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs);
};

namespace detail {
/// One adaptive query on `device` (run_adaptive_with_timing_retries), counted as executed into
/// `counter` if given: what DeviceOracle and ParallelOracle run for query_adaptive.
Word adaptive_query_on(Device& device, QueryCounter* counter, std::span<const Symbol> prefix, const NextInput& next,
                       Word& outputs);
}  // namespace detail

/// The oracle at the bottom over one device: every query is one DeviceSession (Device::run).
/// Counts queries, symbols and waits executed into `counter` (if given) under its current phase.
class DeviceOracle final : public MembershipOracle {
public:
    explicit DeviceOracle(Device& device, QueryCounter* counter = nullptr);

    [[nodiscard]] const Alphabet& inputs() const override { return device_.inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return device_.outputs(); }
    [[nodiscard]] DeviceTraits traits() const override { return device_.traits(); }
    /// Runs the queries one after the other. Throws DeviceError from the device.
    void query_all(std::span<const Query> batch) override;
    /// The device's Device::runs_adaptively().
    [[nodiscard]] bool adaptive() const override { return device_.runs_adaptively(); }
    /// One DeviceSession (run_adaptive_with_timing_retries) when adaptive(), else the default.
    Word query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs) override;

    [[nodiscard]] Device& device() noexcept { return device_; }

private:
    Device& device_;
    QueryCounter* counter_;
    Word buffer_;
};

/// Counts the queries asked through it into `counter` (under its current phase) and forwards them.
class CountingOracle final : public MembershipOracle {
public:
    CountingOracle(MembershipOracle& inner, QueryCounter* counter);

    [[nodiscard]] const Alphabet& inputs() const override { return inner_.inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return inner_.outputs(); }
    [[nodiscard]] DeviceTraits traits() const override { return inner_.traits(); }
    [[nodiscard]] std::size_t parallelism() const override { return inner_.parallelism(); }
    void query_all(std::span<const Query> batch) override;
    /// Forwarded.
    [[nodiscard]] bool adaptive() const override { return inner_.adaptive(); }
    /// Counted as one query asked, and forwarded.
    Word query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs) override;
    /// Forwarded; not counted.
    bool lookup(std::span<const Symbol> word, std::span<Symbol> out) override {
        return inner_.lookup(word, out);
    }
    /// Forwarded.
    [[nodiscard]] CacheOracle* prefix_tree() override { return inner_.prefix_tree(); }

private:
    MembershipOracle& inner_;
    QueryCounter* counter_;
};

}  // namespace typestar
