// The in-process description of a class under learning: DroidStar's LearningPurpose (§2.1, §5.1).
// A ClassDefinition says how to get a fresh instance with its listeners registered (the reset
// snippet), which callins exist (each a named snippet, possibly with variants), which callbacks the
// listeners report (several raw callbacks may be merged into one symbol, §5.3), the timing
// assumptions tmin/tmax (§5.2), and an optional learning-purpose filter that restricts the explored
// words (§2.3, §5.3). LearningPurpose<T> is the typed builder; InProcessDevice runs it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "typestar/device/connection.hpp"

namespace typestar {

namespace detail {
struct Epoch;
}

/// Where listener code reports callbacks. Thread-safe: `emit` may be called from any thread, at any
/// time, also after the query that created the instance has ended (the call is then recorded as a
/// late callback and never reaches another query). Obtained from the reset snippet's argument.
class CallbackSink {
public:
    explicit CallbackSink(std::shared_ptr<detail::Epoch> epoch) : epoch_(std::move(epoch)) {}

    /// Reports the callback `name` (a declared callback, or a source merged into one). An
    /// undeclared name is recorded as a harness error, thrown by the device as DeviceError at its
    /// next step; `emit` itself never throws.
    void emit(std::string_view name) noexcept;
    /// Reports a broken harness, e.g. an adapter whose handler did not run when it had to
    /// ("settle timed out"): recorded as a harness error and thrown by the device as DeviceError
    /// at its next step, so the answer of the step in progress is never used. Never throws.
    void fail(std::string_view message) noexcept;
    /// Reports that this run broke a timing assumption of the adapter that the untimed model rests
    /// on, e.g. a timer that expired with no `wait` since it was set because the learner was
    /// descheduled between two callins: a timing violation of the run (re-run, then a TimingError),
    /// never an answer. Ignored once the query has ended (during its teardown or later): its
    /// answer was given before the assumption broke. Never throws.
    void timing_assumption_broken(std::string_view message) noexcept;
    /// Whether a `wait` step of the current query was running at `t` (the model's time passes only
    /// inside a `wait`): an adapter with a timer of its own asks it for the timer's deadline to tell
    /// the model's time from a busy machine's.
    [[nodiscard]] bool waited_at(std::chrono::steady_clock::time_point t) const noexcept;

private:
    std::shared_ptr<detail::Epoch> epoch_;
};

/// One executed step of the current query, as the learning-purpose filter sees it.
struct StepRecord {
    std::string input;   ///< a callin name or `wait`
    std::string output;  ///< `ok`, `err`, `quiet` or a callback symbol
};

/// A learning purpose (DroidStar §5.3): true when `next` (a callin or `wait`) may be explored after
/// `history`. A denied callin is answered `unknown:purpose` (kOutsidePurpose) without running
/// anything, and the query ends there: the learned typestate is the class restricted to the
/// purpose, and the spec records each denied callin as an unknown transition with source `purpose`
/// ("not explored by this purpose"), apart from `err` (refused by the class). Suites do not test
/// those transitions and name them; the Monitor reports a call into one as unverified, never as a
/// violation. A denied `wait` still answers `err` (a spec has no unknown `wait`).
using QueryFilter = std::function<bool(std::span<const StepRecord> history, std::string_view next)>;

/// The filter "at most `limit` pending requests" (DroidStar §5.3, SpellCheckerSession): an input in
/// `requests` that was answered `ok` opens a request, an output in `responses` closes one; a
/// request while `limit` are open is denied.
[[nodiscard]] QueryFilter at_most_pending(std::vector<std::string> requests,
                                            std::vector<std::string> responses, std::size_t limit = 1);

/// Concrete argument values for one partition of a parameterised callin (PSYCO §3: each partition
/// is an abstract input; the values exercise it). Values are printed strings (the snippet parses
/// them); a generator is deterministic for a given seed.
struct ValueGenerator {
    /// At most `count` values for `seed` (fixed representatives ignore both and give all).
    std::function<std::vector<std::string>(std::uint64_t seed, std::size_t count)> generate;
    std::string description;  ///< e.g. "fixed 3", "range [-5, 5]", "sampler"
    /// The declared integer domain [lo, hi] (range() sets it): values from the class's code
    /// (typestar/device/trace_cmp.hpp) join a partition only inside it. Empty: none join.
    std::optional<std::pair<long long, long long>> domain{};

    /// These representatives, all of them, in this order.
    [[nodiscard]] static ValueGenerator fixed(std::vector<std::string> values);
    /// Integers of [lo, hi]: both ends, then seeded draws from inside, up to `count` distinct ones.
    [[nodiscard]] static ValueGenerator range(long long lo, long long hi);
    /// `count` draws of `draw` from a generator seeded with the seed (duplicates dropped).
    [[nodiscard]] static ValueGenerator sampler(std::function<std::string(std::uint64_t& state)> draw,
                                                std::string description = "sampler");
};

/// The type-erased definition a device runs. Build it with LearningPurpose<T>.
struct ClassDefinition {
    /// One snippet of a callin; throwing any exception means the callin was refused (`err`).
    struct Variant {
        std::string label;                   ///< e.g. "goodURL"; empty for a callin without variants
        std::function<void(void*)> snippet;  ///< gets the instance made by `reset`
        /// A Mealy device's callin (LearningPurpose::callin_answering): returns the output it answers
        /// (`ok` for "" or "ok"; a name not declared in `outputs` is learned when first returned).
        /// When set, it runs instead of `snippet`.
        std::function<std::string(void*)> answer{};
    };
    /// A named partition of a parameterised callin's arguments: the abstract input `name[partition]`.
    struct Partition {
        std::string name;        ///< [A-Za-z0-9_.=<>!-]+
        std::string guard;       ///< the predicate in words, for the spec
        ValueGenerator values;   ///< its concrete arguments
    };
    /// A callin: one input symbol with one or more snippets (variants, DroidStar §2.1), or a
    /// parameterised callin (`parameters` non-empty): `with_value` runs it with one printed argument
    /// tuple, and each partition is an abstract input (learned with learn_with_refinement).
    struct Callin {
        std::string name;
        std::vector<Variant> variants;
        std::vector<std::pair<std::string, std::string>> parameters{};  ///< (name, type) in order
        std::vector<Partition> partitions{};
        std::function<void(void*, const std::string&)> with_value{};
        bool environment = false;  ///< performed by the peer (spec `role: environment`)
    };
    /// A callback output symbol and the raw callback names listeners emit for it (the symbol's own
    /// name when `sources` is empty). Several sources merge environment non-determinism (§5.3).
    struct Callback {
        std::string name;
        std::vector<std::string> sources;
    };

    std::string name;       ///< the class, e.g. "MediaPlayer"
    std::string framework;  ///< framework version reported in specs' provenance, e.g. "sim-1"
    /// Returns a fresh instance with its listeners registered on the sink (DroidStar's reset snippet).
    std::function<std::shared_ptr<void>(const std::shared_ptr<CallbackSink>&)> reset;
    /// Optional tear-down of an instance after its query (e.g. release()). Must not throw.
    std::function<void(void*)> teardown;
    std::vector<Callin> callins;
    std::vector<Callback> callbacks;
    QuiescenceTiming timing;
    /// Whether a `wait` answered `quiet` leaves the state unchanged (DroidStar's wait/quiet
    /// self-loop optimization, §4.1). An assumption: false (nothing skipped, quiet self-loops
    /// tested) unless declared, because a class's state may change silently with time
    /// (SpeechRecognizer's Cancelling -quiet-> Finished, an expiring lease).
    bool quiet_is_stable = false;
    /// Whether every run of a word answers alike by construction (a simulation written for tests,
    /// src/device/simulated): Device::deterministic(), so learning runs no flake-policy
    /// verification. False for a real class (its code, threads and I/O may answer wrongly now and then).
    bool deterministic = false;
    /// Optional learning purpose; empty explores every word.
    QueryFilter filter;
    /// Mealy devices (device/PROTOCOL.md, "Mealy devices"): named callin outputs declared up front
    /// (others are learned when a callin_answering snippet first returns them), whether the device
    /// has the `wait` input (false only without callbacks), and whether `err` is absorbing.
    std::vector<std::string> outputs{};
    bool has_wait = true;
    bool err_absorbing = true;

    /// Throws std::invalid_argument naming the problem: no name or reset snippet, an empty or
    /// reserved or duplicate symbol, a callin without snippet, duplicate variant labels, a callback
    /// source used twice, tmin > tmax.
    void validate() const;
};

/// Typed builder of a ClassDefinition for instances of `T`:
///
///     auto def = LearningPurpose<Player>("MediaPlayer")
///         .reset([](const auto& sink) { auto p = std::make_shared<Player>(); p->on_prepared =
///                    [sink] { sink->emit("onPrepared"); }; return p; })
///         .callin("prepareAsync", [](Player& p) { p.prepare_async(); })
///         .variant("setDataSource", "goodURL", [](Player& p) { p.set_data_source(good); })
///         .variant("setDataSource", "badURL", [](Player& p) { p.set_data_source(bad); })
///         .callback("onPrepared")
///         .timing({std::chrono::milliseconds(100), std::chrono::milliseconds(5)})
///         .build();
template <class T>
class LearningPurpose {
public:
    /// Starts a purpose for the class `name`.
    explicit LearningPurpose(std::string name) { def_.name = std::move(name); }

    /// The framework version reported by the device (default empty).
    LearningPurpose& framework(std::string version) {
        def_.framework = std::move(version);
        return *this;
    }
    /// The reset snippet: a fresh instance with listeners registered on the sink.
    LearningPurpose& reset(std::function<std::shared_ptr<T>(const std::shared_ptr<CallbackSink>&)> snippet) {
        def_.reset = [snippet = std::move(snippet)](const std::shared_ptr<CallbackSink>& sink) {
            return std::static_pointer_cast<void>(snippet(sink));
        };
        return *this;
    }
    /// A tear-down snippet run after each query (must not throw).
    LearningPurpose& teardown(std::function<void(T&)> snippet) {
        def_.teardown = [snippet = std::move(snippet)](void* p) { snippet(*static_cast<T*>(p)); };
        return *this;
    }
    /// A callin with one snippet. Throws std::invalid_argument if `symbol` already exists.
    LearningPurpose& callin(const std::string& symbol, std::function<void(T&)> snippet) {
        if (find(symbol) != nullptr) throw std::invalid_argument("callin '" + symbol + "' declared twice");
        def_.callins.push_back({symbol, {{"", wrap(std::move(snippet))}}});
        return *this;
    }
    /// One more variant snippet of callin `symbol` (created on first use), labelled `label`.
    LearningPurpose& variant(const std::string& symbol, std::string label, std::function<void(T&)> snippet) {
        ClassDefinition::Callin* c = find(symbol);
        if (c == nullptr) {
            def_.callins.push_back({symbol, {}});
            c = &def_.callins.back();
        }
        c->variants.push_back({std::move(label), wrap(std::move(snippet))});
        return *this;
    }
    /// A parameterised callin `symbol(param: type, ...)` (types: int, id, object, bytes, string,
    /// bool); `snippet` gets one printed argument tuple. Give it partitions with partition(); one
    /// without any gets the partition `any` of `values` when given. Throws std::invalid_argument if
    /// `symbol` already exists.
    LearningPurpose& callin_with(const std::string& symbol, std::vector<std::pair<std::string, std::string>> parameters,
                                 std::function<void(T&, const std::string&)> snippet) {
        if (find(symbol) != nullptr) throw std::invalid_argument("callin '" + symbol + "' declared twice");
        ClassDefinition::Callin c;
        c.name = symbol;
        c.parameters = std::move(parameters);
        c.with_value = [snippet = std::move(snippet)](void* p, const std::string& v) { snippet(*static_cast<T*>(p), v); };
        def_.callins.push_back(std::move(c));
        return *this;
    }
    /// A partition of the parameterised callin `symbol` (declared with callin_with): the abstract
    /// input `symbol[name]`, its guard in words and its value generator. Throws std::invalid_argument
    /// when `symbol` is not a parameterised callin.
    LearningPurpose& partition(const std::string& symbol, std::string name, std::string guard, ValueGenerator values) {
        ClassDefinition::Callin* c = find(symbol);
        if (c == nullptr || !c->with_value)
            throw std::invalid_argument("partition of '" + symbol + "', which is not a parameterised callin");
        c->partitions.push_back({std::move(name), std::move(guard), std::move(values)});
        return *this;
    }
    /// Marks callin `symbol` as performed by the peer (spec `role: environment`): still an input the
    /// learner drives; the device lists it in DeviceDescription::environment (and an agent in
    /// /v1/status), and learned specs record the role. Throws std::invalid_argument for no such callin.
    LearningPurpose& environment(const std::string& symbol) {
        ClassDefinition::Callin* c = find(symbol);
        if (c == nullptr) throw std::invalid_argument("environment: no callin '" + symbol + "'");
        c->environment = true;
        return *this;
    }
    /// A callback symbol emitted under its own name.
    LearningPurpose& callback(std::string symbol) {
        def_.callbacks.push_back({std::move(symbol), {}});
        return *this;
    }
    /// A callback symbol standing for several raw callbacks (DroidStar §5.3, merged outputs).
    LearningPurpose& merged_callback(std::string symbol, std::vector<std::string> sources) {
        def_.callbacks.push_back({std::move(symbol), std::move(sources)});
        return *this;
    }
    /// The timing assumptions.
    LearningPurpose& timing(QuiescenceTiming t) {
        def_.timing = t;
        return *this;
    }
    /// Declares that `wait` answering `quiet` may change the state (the default; see ClassDefinition).
    LearningPurpose& quiet_changes_state() {
        def_.quiet_is_stable = false;
        return *this;
    }
    /// Declares that `wait` answering `quiet` never changes the state (no time-driven moves): fewer
    /// queries, and an assumption every learned spec and verdict then records and names.
    LearningPurpose& quiet_is_stable() {
        def_.quiet_is_stable = true;
        return *this;
    }
    /// A callin of a Mealy device: `snippet` returns the output it answers ("" or "ok": `ok`; any
    /// other name, e.g. "CONNACK", is that output, learned when first returned; throwing: `err`).
    LearningPurpose& callin_answering(const std::string& symbol, std::function<std::string(T&)> snippet) {
        if (find(symbol) != nullptr) throw std::invalid_argument("callin '" + symbol + "' declared twice");
        ClassDefinition::Variant v{"", [](void*) {}};
        v.answer = [snippet = std::move(snippet)](void* p) { return snippet(*static_cast<T*>(p)); };
        def_.callins.push_back({symbol, {std::move(v)}});
        return *this;
    }
    /// Declares named callin outputs up front (Mealy devices; others are learned when answered).
    LearningPurpose& outputs(std::vector<std::string> names) {
        def_.outputs.insert(def_.outputs.end(), names.begin(), names.end());
        return *this;
    }
    /// No `wait` input: a device without callbacks (a protocol implementation answering at once).
    LearningPurpose& no_wait() {
        def_.has_wait = false;
        return *this;
    }
    /// `err` is an output like any other: a query goes on after a callin throws.
    LearningPurpose& err_not_absorbing() {
        def_.err_absorbing = false;
        return *this;
    }
    /// Declares that every run of a word answers alike (a simulation; see ClassDefinition): learning
    /// then skips the flake policy's re-runs, and says so. Never for a real class.
    LearningPurpose& deterministic() {
        def_.deterministic = true;
        return *this;
    }
    /// Restricts the explored words (see QueryFilter).
    LearningPurpose& restrict_to(QueryFilter filter) {
        def_.filter = std::move(filter);
        return *this;
    }
    /// The validated definition. Throws std::invalid_argument (ClassDefinition::validate).
    [[nodiscard]] ClassDefinition build() const {
        def_.validate();
        return def_;
    }

private:
    static std::function<void(void*)> wrap(std::function<void(T&)> snippet) {
        return [snippet = std::move(snippet)](void* p) { snippet(*static_cast<T*>(p)); };
    }
    ClassDefinition::Callin* find(const std::string& symbol) {
        for (auto& c : def_.callins)
            if (c.name == symbol) return &c;
        return nullptr;
    }

    ClassDefinition def_;
};

}  // namespace typestar
