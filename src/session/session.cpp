#include "typestar/session/session.hpp"

#include "typestar/session/test_plan.hpp"

#include <algorithm>
#include <map>
#include <array>
#include <atomic>
#include <exception>
#include <functional>
#include <thread>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>

#include "typestar/conformance/runner.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/translate.hpp"
#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/log/logging.hpp"

#include <spdlog/spdlog.h>

namespace typestar {

std::string tool_version() { return std::string("typestar ") + TYPESTAR_VERSION; }

const char* learner_name(LearnerKind kind) noexcept {
    switch (kind) {
        case LearnerKind::LStar: return "lstar";
        case LearnerKind::LSharp: return "lsharp";
    }
    return "?";
}

std::optional<LearnerKind> parse_learner(std::string_view name) noexcept {
    if (name == "lstar") return LearnerKind::LStar;
    if (name == "lsharp") return LearnerKind::LSharp;
    return std::nullopt;
}

const char* verdict_name(Verdict verdict) noexcept {
    switch (verdict) {
        case Verdict::Pass: return "pass";
        case Verdict::Fail: return "fail";
        case Verdict::Inconclusive: return "inconclusive";
    }
    return "?";
}

namespace {

std::vector<Device*> device_list(std::span<Device* const> devices) {
    if (devices.empty()) throw std::invalid_argument("no device");
    return {devices.begin(), devices.end()};
}

/// Declares `outputs` to every device whose outputs grow as answered (a Mealy device: named outputs
/// learned when first answered), so that the model's output ids and the devices' agree by name.
void declare_outputs(std::span<Device* const> devices, const Alphabet& outputs) {
    for (Device* d : devices)
        if (d != nullptr) (void)d->declare_outputs(outputs.names());
}

/// spec_of_mealy, three-valued when the device answered `unknown:<source>` (a PartitionedDevice not
/// trying a stored spec's unknown transitions): those answers become unknown transitions (reasons
/// are filled in by adopt_stored). `err` is absorbing exactly when the device declares it (`traits`):
/// a Mealy device's `err` is otherwise an output like any other. Throws NotAClosureError like
/// spec_of_mealy.
spec::Spec spec_of_learned(const MealyMachine& machine, const std::string& name, const DeviceTraits& traits) {
    std::map<Symbol, Unknown> unknown;
    for (Symbol o = 0; o < machine.outputs().size(); ++o) {
        const std::string& n = machine.outputs().name(o);
        if (n.rfind("unknown:", 0) != 0) continue;
        if (const auto source = parse_unknown_source(std::string_view(n).substr(8))) unknown[o] = Unknown{*source, ""};
    }
    ClosureReading reading;
    reading.err_absorbing = traits.absorbing && *traits.absorbing < machine.outputs().size() &&
                            machine.outputs().name(*traits.absorbing) == kErr;
    spec::Spec s;
    s.typestate = canonical(typestate_of(machine, name, unknown, reading));
    const auto bound = distinguisher_bound(minimize(synchronous_closure(s.typestate)));
    s.bounds.distinguisher = std::max<std::size_t>(1, bound.value_or(1));
    return s;
}

SuiteConfig suite_config(SuiteMethod method, std::size_t bound, std::size_t extra_states) {
    SuiteConfig c;
    c.method = method;
    c.bound = bound;
    c.extra_states = extra_states;
    return c;
}

std::unique_ptr<Learner> make_learner(LearnerKind kind, MembershipOracle& oracle, LearnerConfig config) {
    switch (kind) {
        case LearnerKind::LStar: return std::make_unique<LStar>(oracle, std::move(config));
        case LearnerKind::LSharp: {
            LSharpConfig lsharp;
            lsharp.seed = std::move(config.seed);
            return std::make_unique<LSharp>(oracle, std::move(lsharp));
        }
    }
    throw std::invalid_argument("unknown learner");
}

/// Renames the states of `learned` after `stored`'s where pair_states pairs them; the others keep
/// their learned names (made unique).
void adopt_state_names(Typestate& learned, const Typestate& stored) {
    std::map<std::string, std::string> rename;  // learned name -> stored name
    std::set<std::string> used;
    for (const auto& [old_state, new_state] : spec::pair_states(stored, learned))
        if (old_state != kErrorSinkName && !rename.count(new_state) && used.insert(old_state).second)
            rename.emplace(new_state, old_state);
    for (auto& state : learned.states) {
        if (const auto it = rename.find(state.name); it != rename.end()) {
            state.name = it->second;
        } else {
            std::string name = state.name;
            while (used.count(name) != 0) name += "_new";
            used.insert(name);
            state.name = name;
        }
    }
}

/// How tmax was obtained when overridden, and the largest delay the device observed: "<note>; the
/// largest delay observed was X ms; " (each part when known), else "".
std::string observed_delay(const DeviceDescription& device) {
    std::string out = device.timing_note.empty() ? "" : device.timing_note + "; ";
    if (!device.max_delay_ms) return out;
    char text[64];
    std::snprintf(text, sizeof text, "the largest delay observed was %.1f ms; ", *device.max_delay_ms);
    return out + text;
}

/// The assumption of a device that declares every run of a word answers alike (Device::deterministic):
/// learning then re-runs nothing to rule out a flake; learn and check name it alike.
constexpr std::string_view kDeclaredDeterministic =
    "every run of a word answers alike (declared by the device: a model or a simulation), so no answer was re-run "
    "to rule out a flake";

std::vector<std::string> assumptions_of(SuiteMethod method, std::size_t bound, const DeviceTraits& traits,
                                        const DeviceDescription& device, double quiet_check_factor) {
    std::vector<std::string> out;
    if (method == SuiteMethod::Algorithm2)
        out.push_back("the device's states are told apart by words of length <= " + std::to_string(bound) +
                      " (distinguisher bound B=" + std::to_string(bound) + ")");
    else
        out.push_back("the device has at most " + std::to_string(bound) + " more states than the spec");
    if (traits.absorbing) out.push_back("err is absorbing: nothing after a refused callin is run");
    if (traits.quiet)
        out.push_back("a wait answered quiet changes nothing (declared by the device): quiet self-loops are not tested");
    if (device.tmax_ms && traits.wait)  // a device without `wait` (a Mealy device) has no quiescence to assume
        out.push_back("every callback arrives within tmax=" + std::to_string(static_cast<long long>(*device.tmax_ms)) +
                      " ms (quiescence; " + observed_delay(device) +
                      (quiet_check_factor > 0 ? "every way into a quiet state double-checked with a wait of " +
                                                    std::to_string(quiet_check_factor).substr(0, 3) + " x tmax)"
                                              : "not double-checked)"));
    return out;
}

}  // namespace

void recheck_waits(const MealyMachine& machine, const std::vector<Word>& access, OracleStack& stack,
                   std::size_t times, std::span<const char> ran_once) {
    const auto wait = machine.inputs().find(kWait);
    if (!wait || times == 0) return;
    // One batch of every re-run (over the pool), checked against the cache like any answer.
    std::vector<Word> words;
    std::vector<std::pair<std::size_t, std::size_t>> runs_of;  // per state: first run, how many
    for (StateId q = 0; q < machine.num_states() && q < access.size(); ++q) {
        const std::size_t n = q < ran_once.size() && ran_once[q] ? times - 1 : times;
        if (n == 0) continue;
        Word word = access[q];
        word.push_back(*wait);
        runs_of.emplace_back(words.size(), n);
        for (std::size_t r = 0; r < n; ++r) words.push_back(word);
    }
    const std::vector<Word> runs = stack.cache().rerun(words);
    for (const auto& [first, n] : runs_of) {
        const Word& word = words[first];
        const Word expected = machine.outputs_of(word);
        std::vector<NondeterminismError::Answer> answers{{names_of(expected, machine.outputs()), 1}};
        bool differs = false;
        for (std::size_t r = 0; r < n; ++r) {
            const Word& got = runs[first + r];
            std::vector<std::string> names = names_of(got, stack.oracle().outputs());
            differs = differs || names != answers.front().outputs;
            bool counted = false;
            for (auto& a : answers)
                if (a.outputs == names) {
                    ++a.count;
                    counted = true;
                }
            if (!counted) answers.push_back({std::move(names), 1});
        }
        if (differs) throw NondeterminismError(names_of(word, machine.inputs()), std::move(answers));
    }
}

std::size_t confirm_quiescence(const MealyMachine& machine, const std::vector<Word>& access, Device& device,
                               double factor, const std::vector<char>* only) {
    Device* const one[] = {&device};
    return confirm_quiescence(machine, access, std::span<Device* const>(one), factor, only);
}

namespace {

/// A callback the machine has on no transition, heard by a quiescence double-check after `word`.
struct NewCallback {
    Word word;             ///< the word before the double-checking wait, over the machine's inputs
    std::string callback;  ///< its name
};

bool has_output(const MealyMachine& machine, const std::string& name) {
    const auto o = machine.outputs().find(name);
    if (!o) return false;
    for (StateId q = 0; q < machine.num_states(); ++q)
        for (Symbol i = 0; i < machine.num_inputs(); ++i)
            if (machine.output(q, i) == *o) return true;
    return false;
}

/// confirm_quiescence; with `found` (checking a spec), a callback the machine never outputs is a
/// protocol difference, never "raise tmax": written to `found`, and the count so far is returned.
std::size_t confirm_quiescence_impl(const MealyMachine& machine, const std::vector<Word>& access,
                                    std::span<Device* const> devices, double factor, const std::vector<char>* only,
                                    std::optional<NewCallback>* found);

}  // namespace

std::size_t confirm_quiescence(const MealyMachine& machine, const std::vector<Word>& access,
                               std::span<Device* const> devices, double factor, const std::vector<char>* only) {
    return confirm_quiescence_impl(machine, access, devices, factor, only, nullptr);
}

namespace {

std::size_t confirm_quiescence_impl(const MealyMachine& machine, const std::vector<Word>& access,
                                    std::span<Device* const> devices, double factor, const std::vector<char>* only,
                                    std::optional<NewCallback>* found) {
    if (devices.empty()) throw std::invalid_argument("no device");
    const DeviceDescription description = devices.front()->describe();
    if (factor <= 0 || !description.tmax_ms) return 0;
    const auto wait = machine.inputs().find(kWait);
    const auto quiet = machine.outputs().find(kQuiet);
    if (!wait || !quiet) return 0;
    const auto err = machine.outputs().find(kErr);
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(*description.tmax_ms * factor));
    // Every way into a quiet state (the one rule, quiescence_words, that the runners also run),
    // restricted to the states in `only` when given.
    std::vector<Word> words;
    for (auto& w : quiescence_words(machine, access))
        if (only == nullptr || (w.state < only->size() && (*only)[w.state])) words.push_back(std::move(w.word));
    // A batch over the devices (each used by one thread), words taken in order; the verdict is read
    // in word order, so the first late callback named is the same as with one device.
    std::vector<std::optional<std::string>> answers(words.size());  // by name: each device's own outputs
    std::vector<std::exception_ptr> errors(words.size());
    std::vector<char> ran(words.size(), 0);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    const auto work = [&](Device& device) {
        for (std::size_t k; !stop && (k = next++) < words.size();) {
            try {
                if (const auto answer = device.confirm_wait(words[k], timeout))
                    answers[k] = device.outputs().name(*answer);
                if (!answers[k] || (*answers[k] != kQuiet && *answers[k] != kErr)) stop = true;
            } catch (...) {
                errors[k] = std::current_exception();
                stop = true;
            }
            ran[k] = 1;
        }
    };
    if (devices.size() == 1 || words.size() < 2) {
        work(*devices.front());
    } else {
        std::vector<std::thread> threads;
        for (std::size_t d = 1; d < devices.size() && d < words.size(); ++d) threads.emplace_back(work, std::ref(*devices[d]));
        work(*devices.front());
        for (auto& t : threads) t.join();
    }
    std::size_t confirmed = 0;
    for (std::size_t k = 0; k < words.size() && ran[k]; ++k) {
        const Word& word = words[k];
        if (errors[k]) std::rethrow_exception(errors[k]);
        const auto& answer = answers[k];
        if (!answer) return confirmed;  // no real time behind this device
        const std::string& got = *answer;
        if (found != nullptr && got != kQuiet && got != kErr && !has_output(machine, got)) {
            // Checking a spec: no tmax makes the device conform, the spec never has this callback.
            *found = NewCallback{word, got};
            return confirmed;
        }
        if (got != kQuiet && got != kErr) {
            throw DeviceError("tmax too small: after '" + to_string(word, machine.inputs()) + "', a wait of tmax=" +
                              std::to_string(static_cast<long long>(*description.tmax_ms)) +
                              " ms was answered quiet, but callback '" + got + "' arrived within " +
                              std::to_string(timeout.count()) + " ms (device " + description.name +
                              "); raise tmax so that every callback arrives within it");
        }
        ++confirmed;
    }
    return confirmed;
}

}  // namespace

namespace {

/// Learning's first phase (LearnOptions::probe): when asked, or when the first device has `wait`,
/// declares no tmax and runs in real time, probe it (probe_timing: one path drives the device) and
/// replace every device's tmax / tmin by the proposal, with an origin that carries the figures (the
/// devices' timing notes, hence the assumptions and provenance `timing`, name it). nullopt: the
/// devices keep their timing.
std::optional<TimingProbe> probe_first(const std::vector<Device*>& devices, const LearnOptions& options) {
    Device& first = *devices.front();
    if (!first.inputs().contains(kWait)) {
        if (options.probe)
            throw std::invalid_argument(first.name() + " has no wait input: there is no callback timing to probe");
        return std::nullopt;
    }
    const DeviceDescription declared = first.describe();
    if (!options.probe && (declared.tmax_ms || first.deterministic())) return std::nullopt;
    const TimingProbeOptions probe_options = options.probe.value_or(TimingProbeOptions{});
    const auto log = detail::logger("typestar.session");
    log->info("timing probe of {} ({}): depth {}, {} run(s) per callin, window {} ms", first.name(),
              options.probe ? "asked for" : "the device declares no tmax", probe_options.depth, probe_options.repeats,
              probe_options.window.count());
    TimingProbe probe = probe_timing(first, probe_options);
    char figures[160];
    if (probe.largest_ms)
        std::snprintf(figures, sizeof figures, "callback delays %.1f to %.1f ms over %zu runs, tmax = %.3g x %.1f ms",
                      *probe.smallest_ms, *probe.largest_ms, probe.runs, probe_options.margin, *probe.largest_ms);
    else
        std::snprintf(figures, sizeof figures, "no callback within the %lld ms window in %zu runs: tmax keeps the window",
                      static_cast<long long>(probe_options.window.count()), probe.runs);
    TimingOverride measured;
    measured.tmax = std::chrono::milliseconds(probe.proposed_tmax_ms);
    measured.tmin = std::chrono::milliseconds(probe.proposed_tmin_ms);
    measured.origin = std::string("the timing probe, learning's first phase (") +
                      (options.probe ? "--probe" : "the device declares no tmax") + "; " + figures + ")";
    for (Device* d : devices) (void)d->override_timing(measured);
    log->info("timing probe: tmax {} ms, tmin {} ms ({})", probe.proposed_tmax_ms, probe.proposed_tmin_ms, figures);
    return probe;
}

/// The flake policy (docs/spec-format.md, "Rare flakes"): a hypothesis the inner oracle finds no
/// counterexample to is judged once more on fresh answers. The decisive words are the equivalence
/// suite the hypothesis passed — Algorithm 2 at B, or W/Wp with their extra states (with a perfect
/// oracle, the Wp-method suite for no extra state) — each cut after an expected absorbing output
/// (the device stops there) and reduced to the maximal ones; they run once more past the cache as one
/// batch (CacheOracle::rerun: over the pool; an answer the cache contradicts is NondeterminismError
/// naming the word). So every answer the verdict relies on, including the ones that made two
/// observations one state, was seen in two independent runs that agreed; a word the cache did not
/// hold runs twice. A fresh answer that refutes the hypothesis is its counterexample. A word re-run
/// once (or a prefix of one) is never re-run for a later hypothesis.
class VerifiedEquivalenceOracle final : public EquivalenceOracle {
public:
    VerifiedEquivalenceOracle(EquivalenceOracle& inner, OracleStack& stack, SuiteConfig decisive)
        : inner_(&inner), stack_(stack), decisive_(std::move(decisive)) {}
    void set_inner(EquivalenceOracle& inner, SuiteConfig decisive) {
        inner_ = &inner;
        decisive_ = std::move(decisive);
    }

    std::optional<Counterexample> find_counterexample(const MealyMachine& hypothesis,
                                                      std::span<const Word> access) override {
        if (auto cex = inner_->find_counterexample(hypothesis, access)) return cex;
        const auto phase = stack_.counter().enter(Phase::Verification);
        SuiteConfig config = decisive_;
        if (!access.empty()) config.access.assign(access.begin(), access.end());  // the inner's suite
        if (!config.traits) config.traits = stack_.oracle().traits();
        config.shortest_first = false;
        const TestSuite suite = generate_suite(hypothesis, config);
        // Cut after an expected absorbing output (or a learning purpose's denial): nothing after it runs.
        const auto absorbing = config.traits->absorbing;
        const auto outside = absorbing ? stack_.oracle().outputs().find(kOutsidePurpose) : std::nullopt;
        std::vector<Word> cut;
        cut.reserve(suite.cases.size());
        for (const TestCase& c : suite.cases) {
            Word w = c.inputs;
            for (std::size_t k = 0; absorbing && k < w.size() && k < c.expected.size(); ++k)
                if (c.expected[k] == *absorbing || (outside && c.expected[k] == *outside)) {
                    w.resize(k + 1);
                    break;
                }
            if (!w.empty()) cut.push_back(std::move(w));
        }
        std::sort(cut.begin(), cut.end());
        // The maximal words not re-run before (a prefix of a word sorts right before it or one of its kind).
        std::vector<Word> words;
        for (std::size_t k = 0; k < cut.size(); ++k) {
            const Word& w = cut[k];
            if (k + 1 < cut.size() && is_prefix(w, cut[k + 1])) continue;
            if (ran(w)) continue;
            answers_ += w.size() - (words.empty() ? 0 : common_prefix(words.back(), w));
            words.push_back(w);
        }
        // A word the cache does not hold yet runs twice: its answer, too, is seen two times.
        std::vector<Word> batch;
        batch.reserve(words.size());
        Word scratch;
        for (const Word& w : words) {
            batch.push_back(w);
            scratch.resize(w.size());
            if (!stack_.cache().lookup(w, scratch)) batch.push_back(w);
        }
        ++rounds_;
        words_rerun_ += words.size();
        const std::vector<Word> answers = stack_.cache().rerun(batch);
        std::optional<Counterexample> found;
        for (std::size_t k = 0; k < batch.size(); ++k) {
            if (k > 0 && batch[k] == batch[k - 1]) continue;
            const Word expected = hypothesis.outputs_of(batch[k]);
            if (answers[k] != expected) {
                if (!found) found = Counterexample{batch[k], expected, answers[k], "flake policy: a decisive word run again", {}};
                continue;
            }
            confirmed_.insert(batch[k]);
        }
        return found;
    }
    std::size_t suggested_suffix_length() const override { return inner_->suggested_suffix_length(); }

    /// Verification rounds run (hypotheses checked past the cache), words re-run in all, and the
    /// answers (distinct prefixes of those words) each seen in two runs.
    std::size_t rounds() const noexcept { return rounds_; }
    std::size_t words_rerun() const noexcept { return words_rerun_; }
    std::size_t answers() const noexcept { return answers_; }
    /// Whether `word` is a prefix of a word re-run past the cache that agreed with its hypothesis.
    bool ran(const Word& word) const {
        const auto it = confirmed_.lower_bound(word);
        return it != confirmed_.end() && is_prefix(word, *it);
    }

private:
    static bool is_prefix(const Word& a, const Word& b) {
        return b.size() >= a.size() && std::equal(a.begin(), a.end(), b.begin());
    }
    static std::size_t common_prefix(const Word& a, const Word& b) {
        std::size_t n = 0;
        while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
        return n;
    }

    EquivalenceOracle* inner_;
    OracleStack& stack_;
    SuiteConfig decisive_;
    std::set<Word> confirmed_;
    std::size_t rounds_ = 0, words_rerun_ = 0, answers_ = 0;
};

/// What the decisive suite covers, for the flake note: the machines the guarantee is about.
std::string decisive_scope(const SuiteConfig& decisive) {
    switch (decisive.method) {
        case SuiteMethod::Algorithm2:
            return "the Algorithm 2 suite at B=" + std::to_string(decisive.bound) +
                   ", for every machine whose states are told apart by words of length <= " +
                   std::to_string(decisive.bound);
        case SuiteMethod::W:
        case SuiteMethod::Wp: {
            const std::string name = decisive.method == SuiteMethod::W ? "W" : "Wp";
            if (decisive.state_bound)
                return "the " + name + "-method suite for at most " + std::to_string(*decisive.state_bound) +
                       " states, for every machine with at most " + std::to_string(*decisive.state_bound) + " states";
            return "the " + name + "-method suite for " + std::to_string(decisive.extra_states) +
                   " extra state(s), for every machine with at most " + std::to_string(decisive.extra_states) +
                   " more state(s) than the result";
        }
    }
    return "?";
}

std::string flake_note(const VerifiedEquivalenceOracle& verified, const SuiteConfig& decisive) {
    if (verified.rounds() == 0) return "";
    const double answers = static_cast<double>(verified.answers());
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.3g%%", std::min(100.0, answers * 0.01));
    return "flake policy: the " + std::to_string(verified.words_rerun()) +
           " decisive word(s) of the result (" + decisive_scope(decisive) +
           ") were run again past the cache and agreed with the first run, so each of their " +
           std::to_string(verified.answers()) +
           " answers was seen in two independent runs; a wrong result needs the same wrong answer twice: if a "
           "run answers wrongly with probability p, the chance of a wrong result within that bound is at most " +
           std::to_string(verified.answers()) + "·p² (p=1%: " + percent + ")";
}

/// The flake note of a run whose devices all declare themselves deterministic (Device::deterministic).
std::string deterministic_note(const std::vector<Device*>& devices) {
    return "flake policy: not run: the device " + devices.front()->name() +
           (devices.size() > 1 ? " (and every other of the pool)" : "") +
           " declares itself deterministic (every run of a word answers alike, e.g. a model or a simulation), so no "
           "answer was re-run past the cache";
}

std::string exploration_note(const ExplorationRecord& r, std::size_t per_transition) {
    return "beyond the bound: " + std::to_string(r.searches) + " search(es) of random words from every state (" +
           std::to_string(per_transition) + " per transition), " + std::to_string(r.counterexamples) +
           " counterexample(s) found and learned; the last search ran " + std::to_string(r.words) +
           " word(s) of up to " + std::to_string(r.longest) +
           " inputs and found none (evidence beyond the bound, not a proof)";
}

/// What a seed's states are worth (LearnOptions::seed, e.g. the stored spec a proposal re-learns):
/// a hypothesis the inner oracle finds no counterexample to is checked against the seed's own
/// distinctions. Every two seed states whose access words (in the seed) reach one hypothesis state
/// are run with the seed's shortest word telling them apart, access(p)·w and access(q)·w, through
/// the stack (the cache answers what ran before); an answer the hypothesis does not predict is its
/// counterexample. So a seed state merges with another only when the device no longer tells them
/// apart by the words that told them apart in the seed.
class SeedStatesOracle final : public EquivalenceOracle {
public:
    SeedStatesOracle(EquivalenceOracle& inner, MembershipOracle& oracle, const MealyMachine& seed)
        : inner_(&inner), oracle_(oracle), seed_(minimize(over_alphabets(seed, oracle.inputs(), oracle.outputs()))) {
        for (auto& a : access_sequences(seed_)) access_.push_back(std::move(a));
    }
    void set_inner(EquivalenceOracle& inner) noexcept { inner_ = &inner; }

    std::optional<Counterexample> find_counterexample(const MealyMachine& hypothesis,
                                                      std::span<const Word> access) override {
        if (auto cex = inner_->find_counterexample(hypothesis, access)) return cex;
        // Seed states by the hypothesis state their access word reaches.
        std::map<StateId, std::vector<StateId>> merged;
        for (StateId s = 0; s < seed_.num_states(); ++s)
            if (access_[s]) merged[hypothesis.run(*access_[s])].push_back(s);
        std::vector<Word> words;
        std::vector<std::string> purposes;
        for (const auto& [h, states] : merged) {
            for (std::size_t i = 0; i < states.size(); ++i)
                for (std::size_t j = i + 1; j < states.size(); ++j) {
                    const auto w = separating(states[i], states[j]);
                    if (!w) continue;
                    for (const StateId s : {states[i], states[j]}) {
                        Word word = *access_[s];
                        word.insert(word.end(), w->begin(), w->end());
                        words.push_back(std::move(word));
                        purposes.push_back("the seed's states " + seed_.state_name(states[i]) + " and " +
                                           seed_.state_name(states[j]) + " (one state of the hypothesis), told apart by '" +
                                           to_string(*w, seed_.inputs()) + "' in the seed");
                    }
                }
        }
        if (words.empty()) return std::nullopt;
        ++rounds_;
        words_run_ += words.size();
        std::vector<Word> answers(words.size());
        std::vector<Query> batch;
        for (std::size_t k = 0; k < words.size(); ++k) {
            answers[k].resize(words[k].size());
            batch.push_back(Query{{}, words[k], answers[k]});
        }
        oracle_.query_all(batch);
        for (std::size_t k = 0; k < words.size(); ++k) {
            const Word expected = hypothesis.outputs_of(words[k]);
            bool same = true;
            for (std::size_t n = 0; n < expected.size() && same; ++n)
                same = hypothesis.outputs().name(expected[n]) == oracle_.outputs().name(answers[k][n]);
            if (!same) return Counterexample{words[k], expected, answers[k], purposes[k], {}};
        }
        return std::nullopt;
    }
    std::size_t suggested_suffix_length() const override { return inner_->suggested_suffix_length(); }

    /// The checks that ran and the words they ran.
    std::size_t rounds() const noexcept { return rounds_; }
    std::size_t words_run() const noexcept { return words_run_; }

private:
    std::optional<Word> separating(StateId p, StateId q) {
        const auto key = std::make_pair(std::min(p, q), std::max(p, q));
        auto it = separating_.find(key);
        if (it == separating_.end()) it = separating_.emplace(key, separating_word(seed_, p, q)).first;
        return it->second;
    }

    EquivalenceOracle* inner_;
    MembershipOracle& oracle_;
    MealyMachine seed_;
    std::vector<std::optional<Word>> access_;
    std::map<std::pair<StateId, StateId>, std::optional<Word>> separating_;
    std::size_t rounds_ = 0, words_run_ = 0;
};

/// Whether `seed`'s inputs are the oracle's (by name): SeedStatesOracle can use it. (Otherwise the
/// learner refuses the seed with its own error.)
bool seed_fits(const MealyMachine& seed, const MembershipOracle& oracle) {
    std::vector<std::string> a = seed.inputs().names(), b = oracle.inputs().names();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
}

/// Records the device's environment inputs as `role: environment` declarations (format v2); a spec
/// without any stays version 1. Throws DeviceError for an environment input the spec does not have.
void declare_environment(spec::Spec& s, const DeviceDescription& device) {
    if (device.environment.empty()) return;
    for (const auto& name : device.environment) {
        if (std::find(s.typestate.callins.begin(), s.typestate.callins.end(), name) == s.typestate.callins.end())
            throw DeviceError(device.name + ": environment input '" + name + "' is not one of its callins");
        spec::CallinDeclaration d;
        d.name = name;
        d.environment = true;
        s.declarations.push_back(std::move(d));
    }
    std::sort(s.declarations.begin(), s.declarations.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    s.typestate.input_info = spec::input_info_of(s.declarations);
}

LearnedSpec learn_on(OracleStack& stack, const LearnOptions& options) {
    const std::vector<Device*>& devices = stack.devices();
    const EquivalenceOptions& eq = options.equivalence;
    const QueryStats before = stack.stats();  // a reused stack (propose) counts its earlier runs too
    struct BudgetScope {  // the hard cap counts from this run's first query, and ends with it
        QueryCounter& counter;
        std::optional<std::uint64_t> previous;
        ~BudgetScope() { counter.set_budget(previous); }
    } budget_scope{stack.counter(), stack.counter().budget()};
    stack.counter().set_budget(options.max_queries);
    const bool alg2 = !eq.perfect && eq.method == SuiteMethod::Algorithm2;
    ExperimentConfig experiment;
    experiment.max_rounds = options.max_rounds;
    experiment.on_round = options.on_round;
    experiment.counterexample = options.counterexample;
    const auto log = detail::logger("typestar.session");
    std::optional<TimingProbe> timing_probe = probe_first(devices, options);

    std::size_t bound = eq.bound;
    std::string bound_note;
    std::optional<ExploringEquivalenceOracle> exploring;  // kept across an auto bound's experiments
    std::optional<VerifiedEquivalenceOracle> verified;  // likewise
    // A device that cannot flake needs no second run of anything (Device::deterministic).
    const bool deterministic = std::all_of(devices.begin(), devices.end(), [](const Device* d) { return d->deterministic(); });
    SuiteConfig decisive = suite_config(SuiteMethod::Wp, 0, 0);  // with a perfect oracle
    std::optional<SeedStatesOracle> seed_states;         // a seed's states survive where the device tells them apart
    std::string tried;          // --bound auto: every B learned at, and what B+1 found
    bool next_checked = false;  // --bound auto: Algorithm 2 at B+1 found nothing
    std::optional<LearnResult> result;
    std::string learner_name;
    const auto start = std::chrono::steady_clock::now();
    while (true) {
        std::unique_ptr<EquivalenceOracle> equivalence;
        if (eq.perfect) {
            equivalence = std::make_unique<PerfectOracle>(*eq.perfect);
        } else {
            RunConfig run;
            run.batch_size = eq.batch_size;
            SuiteConfig suite = suite_config(eq.method, bound, eq.extra_states);
            suite.state_bound = eq.state_bound;
            suite.shortest_first = eq.state_bound.has_value();  // AALpy's m = n order: stop at the first counterexample
            decisive = suite;
            equivalence = std::make_unique<SuiteEquivalenceOracle>(stack.oracle(), suite, run);
        }
        LearnerConfig config = options.lstar;
        if (options.seed) config.seed = options.seed;
        const std::unique_ptr<Learner> learner = make_learner(options.learner, stack.oracle(), std::move(config));
        learner_name = learner->name();
        EquivalenceOracle* judge = equivalence.get();
        if (options.seed && !eq.perfect && seed_fits(*options.seed, stack.oracle())) {
            if (!seed_states) seed_states.emplace(*judge, stack.oracle(), *options.seed);
            else seed_states->set_inner(*judge);
            judge = &*seed_states;
        }
        if (!eq.perfect && eq.explore_words_per_transition > 0) {
            if (!exploring) {
                ExplorationConfig search;
                search.words_per_transition = eq.explore_words_per_transition;
                search.seed = eq.explore_seed;
                RunConfig run;
                run.batch_size = eq.batch_size;
                exploring.emplace(*judge, stack.oracle(), std::move(search), run);
            } else {
                exploring->set_inner(*judge);
            }
            judge = &*exploring;
        }
        // The decisive words are the bounded suite's (what the result is established by); the
        // search beyond the bound is evidence, not re-run.
        if (options.flake_check && !deterministic) {
            if (!verified) verified.emplace(*judge, stack, decisive);
            else verified->set_inner(*judge, decisive);
            judge = &*verified;
        }
        result = run_experiment(*learner, *judge, stack.counter(), experiment);
        if (!eq.auto_bound || !alg2 || !result->converged) break;
        // --bound auto: check the machine learned at B with Algorithm 2 at B+1 (through the cache);
        // a counterexample raises B, none ends the search at B.
        const MealyMachine minimal = minimize(result->hypothesis);
        // Algorithm 2 at B+1 asks at most |Q|·|Σ|^(B+2) words (Theorem 4.4); the cache already knows many.
        const double estimate = static_cast<double>(minimal.num_states()) *
                                std::pow(static_cast<double>(minimal.num_inputs()), static_cast<double>(bound + 2));
        const std::uint64_t spent = stack.stats().since(before).total().queries_executed;
        const std::string learned_at = "B=" + std::to_string(bound) + ": " + std::to_string(minimal.num_states()) +
                                       " states";
        if (bound + 1 > eq.max_bound || static_cast<double>(spent) + estimate > static_cast<double>(eq.budget)) {
            bound_note = tried + learned_at + "; stopped at B=" + std::to_string(bound) + " by the " +
                         (bound + 1 > eq.max_bound ? "maximum bound " + std::to_string(eq.max_bound)
                                                   : "query budget of " + std::to_string(eq.budget)) +
                         ": B=" + std::to_string(bound + 1) + " was not checked (it would cost up to about " +
                         std::to_string(static_cast<std::uint64_t>(estimate)) + " more queries; " +
                         std::to_string(spent) + " executed so far)";
            break;
        }
        // The bound raised while the hypothesis needs it: a machine whose own states need words longer
        // than B is not even told apart by Algorithm 2 at B; learn again at B+1 (the cache keeps
        // every answer) before asking what B+1 finds.
        if (const std::size_t own = distinguisher_bound(minimal).value_or(0); own > bound) {
            log->info("the {}-state machine learned at B={} needs words of length {} to tell its states apart: B={}",
                      minimal.num_states(), bound, own, bound + 1);
            tried += learned_at + ", whose own distinguisher bound is " + std::to_string(own) + " > B; ";
            ++bound;
            continue;
        }
        SuiteEquivalenceOracle probe(stack.oracle(), suite_config(eq.method, bound + 1, eq.extra_states));
        std::optional<Counterexample> found;
        {
            const auto phase = stack.counter().enter(Phase::Equivalence);
            found = probe.find_counterexample(minimal, {});
        }
        if (!found) {
            bound_note = tried + learned_at + "; Algorithm 2 at B=" + std::to_string(bound + 1) + " ran " +
                         std::to_string(probe.last_suite_size()) +
                         " words against it and found no counterexample: stopped at B=" + std::to_string(bound) +
                         ", the smallest B tried after which B+1 finds nothing";
            next_checked = true;
            break;
        }
        log->info("Algorithm 2 at B={} found a counterexample of length {} to the {}-state machine learned at B={}",
                  bound + 1, found->inputs.size(), minimal.num_states(), bound);
        tried += learned_at + "; Algorithm 2 at B=" + std::to_string(bound + 1) + " found the counterexample '" +
                 to_string(found->inputs, minimal.inputs()) + "'; ";
        ++bound;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (Device* d : stack.devices()) d->check_timing();  // a late callback voids the result

    const DeviceDescription device = devices.front()->describe();
    LearnedSpec out{minimize(result->hypothesis), {}, std::nullopt, {}, result->rounds, result->converged,
                    result->stats, stack.cache().stats(), seconds, learner_name, 0, 0, false, {}, {}, {}, {}, {}, {}, {}};
    out.timing_probe = std::move(timing_probe);
    out.stats = stack.stats().since(before);  // every experiment of an auto bound, nothing earlier
    if (alg2) {
        out.bound = bound;
        out.machine_bound = distinguisher_bound(out.machine).value_or(0);
        out.bound_tight = out.machine_bound >= bound && !next_checked;  // B+1 checked: the evidence a tight B lacks
        out.bound_note = bound_note;
    }
    out.access_sequences.clear();
    for (auto& a : access_sequences(out.machine)) out.access_sequences.push_back(a.value_or(Word{}));
    {
        const auto phase = stack.counter().enter(Phase::Verification);
        // Not twice for two reasons: a state whose access(q)·wait starts a word the flake check
        // re-ran has had one of its re-runs.
        std::vector<char> ran_once(out.machine.num_states(), 0);
        const auto wait = out.machine.inputs().find(kWait);
        for (StateId q = 0; verified && wait && q < out.machine.num_states(); ++q) {
            Word word = out.access_sequences[q];
            word.push_back(*wait);
            ran_once[q] = verified->ran(word) ? 1 : 0;
        }
        if (!deterministic) recheck_waits(out.machine, out.access_sequences, stack, options.wait_rechecks, ran_once);
        confirm_quiescence(out.machine, out.access_sequences, std::span<Device* const>(devices),
                           options.quiet_check_factor);
        out.stats = stack.stats().since(before);
    }
    if (verified) out.flake_note = flake_note(*verified, decisive);
    else if (options.flake_check && deterministic) out.flake_note = deterministic_note(devices);
    if (exploring) {
        out.explored = exploring->record();
        out.exploration_note = exploration_note(out.explored, eq.explore_words_per_transition);
    }
    if (seed_states)
        out.seed_note = std::string("The seed's states: ") +
                        (seed_states->rounds() == 0
                             ? std::string("no hypothesis merged two of them")
                             : "where a hypothesis merged two, the seed's own word telling them apart ran after each "
                               "one's access word (" + std::to_string(seed_states->words_run()) + " words in " +
                                   std::to_string(seed_states->rounds()) +
                                   (seed_states->rounds() == 1 ? " check" : " checks") +
                                   "), so they merge only where the device no longer tells them apart by it");
    if (!eq.perfect) {
        out.assumptions = assumptions_of(eq.method, alg2 ? bound : eq.extra_states, stack.oracle().traits(), device,
                                         options.quiet_check_factor);
        // Trust first: skipping the flake policy's re-runs rests on the device's own declaration.
        if (options.flake_check && deterministic) out.assumptions.push_back(std::string(kDeclaredDeterministic));
    }
    const std::string name = spec::sanitize_name(!options.name.empty() ? options.name : device.class_name);
    try {
        spec::Spec s = spec_of_learned(out.machine, name, stack.oracle().traits());
        const std::string purpose_of = device.class_name.empty() ? device.name : device.class_name;
        for (auto& state : s.typestate.states)
            for (auto& [c, u] : state.unknown)
                if (u.source == Unknown::Source::Purpose && u.reason.empty())
                    u.reason = "not explored by the learning purpose of " + purpose_of;
        if (alg2) s.bounds.distinguisher = std::max(s.bounds.distinguisher, bound);
        if (out.machine.inputs().contains(kWait)) {  // a device without `wait` has no quiescence timing
            s.timing.tmax_ms = device.tmax_ms;
            s.timing.tmin_ms = device.tmin_ms;
            s.provenance.timing = device.timing_note;  // how, when not the device's own (an option, the probe)
        }
        s.assumptions.quiet_is_stable = stack.oracle().traits().quiet.has_value();
        s.provenance.tool = tool_version();
        s.provenance.device = options.device_label.empty() ? device.name : options.device_label;
        s.provenance.framework = device.framework;
        if (exploring && exploring->record().searches > 0)
            s.provenance.explored = "search of " + std::to_string(eq.explore_words_per_transition) +
                                    " random words per transition: the last ran " + std::to_string(exploring->record().words) +
                                    " words of up to " + std::to_string(exploring->record().longest) + " inputs, seed " +
                                    std::to_string(eq.explore_seed);
        declare_environment(s, device);
        // Trust first: what the learning purpose kept from being explored is named with the assumptions.
        std::vector<std::string> unexplored;
        for (const auto& state : s.typestate.states)
            for (const auto& [c, u] : state.unknown)
                if (u.source == Unknown::Source::Purpose)
                    unexplored.push_back("state " + state.name + ", input " + s.typestate.callins[c]);
        if (!unexplored.empty()) {
            std::string all;
            for (const auto& u : unexplored) all += (all.empty() ? "" : "; ") + u;
            out.assumptions.push_back(std::to_string(unexplored.size()) +
                                      " callin(s) outside the learning purpose were not explored (unknown, source "
                                      "purpose; the class may accept or refuse them): " + all);
        }
        out.spec = std::move(s);
    } catch (const NotAClosureError& e) {
        out.not_a_closure = e.what();
    }
    return out;
}

LearnOptions proposal_options(const spec::Spec* stored, const Device& device, const LearnOptions& options) {
    LearnOptions o = options;
    if (stored != nullptr && o.name.empty()) o.name = stored->typestate.name;
    // At least the stored spec's strength, in every front end: its distinguisher bound (Algorithm
    // 2), its state bound (W/Wp). A lower request would pass its own check and drop stored states.
    if (stored != nullptr) {
        o.equivalence.bound = std::max(o.equivalence.bound, stored->bounds.distinguisher);
        if (stored->bounds.states && o.equivalence.method != SuiteMethod::Algorithm2)
            o.equivalence.state_bound = std::max(o.equivalence.state_bound.value_or(0), *stored->bounds.states);
    }
    bool same_inputs = false;
    if (stored != nullptr) {
        std::vector<std::string> spec_inputs = stored->typestate.callins;
        if (stored->typestate.has_wait) spec_inputs.emplace_back(kWait);
        std::vector<std::string> device_inputs = device.inputs().names();
        std::sort(spec_inputs.begin(), spec_inputs.end());
        std::sort(device_inputs.begin(), device_inputs.end());
        same_inputs = spec_inputs == device_inputs;
    }
    if (same_inputs && !o.seed) o.seed = seed_of(stored->typestate);
    return o;
}

/// A stored v2 spec's declarations (signatures, partitions with split_from/split_by, roles) carried
/// into a proposal over the same abstract inputs, and the reasons of unknown transitions the device
/// did not try because the stored spec has them unknown (PartitionedDevice with the stored typestate).
void carry_declarations(spec::Spec& learned, const spec::Spec& stored) {
    Typestate& t = learned.typestate;
    const auto& stored_inputs = stored.typestate.callins;
    const bool same_inputs = std::all_of(t.callins.begin(), t.callins.end(), [&](const std::string& c) {
        return std::find(stored_inputs.begin(), stored_inputs.end(), c) != stored_inputs.end();
    });
    if (!same_inputs) return;  // another alphabet: the stored declarations do not describe it
    if (!stored.declarations.empty()) {
        learned.declarations = stored.declarations;
        t.input_info = spec::input_info_of(learned.declarations);
    }
    if (!t.has_unknown()) return;
    // Access words of the learned states (breadth-first over legal transitions, callins then wait).
    std::vector<std::optional<std::vector<std::string>>> access(t.states.size());
    std::vector<StateId> queue{t.initial};
    access[t.initial].emplace();
    for (std::size_t k = 0; k < queue.size(); ++k) {
        const StateId q = queue[k];
        const auto visit = [&](StateId to, const std::string& input) {
            if (access[to]) return;
            access[to] = *access[q];
            access[to]->push_back(input);
            queue.push_back(to);
        };
        for (std::size_t c = 0; c < t.callins.size(); ++c)
            if (t.states[q].callins[c]) visit(*t.states[q].callins[c], t.callins[c]);
        if (t.states[q].callback) visit(t.states[q].callback->target, std::string(kWait));
        else if (t.states[q].quiet_target) visit(*t.states[q].quiet_target, std::string(kWait));
    }
    for (StateId q = 0; q < t.states.size(); ++q)
        for (auto& [c, u] : t.states[q].unknown) {
            // A purpose's reason in the stored spec (perhaps written by hand) is kept over the
            // generic one learning gives, so re-learning does not churn it.
            if (!access[q] || (!u.reason.empty() && u.source != Unknown::Source::Purpose)) continue;
            std::vector<std::string> word = *access[q];
            word.push_back(t.callins[c]);
            if (const auto step = first_unknown(stored.typestate, word);
                step && step->unknown.source == u.source && !step->unknown.reason.empty())
                u.reason = step->unknown.reason;
        }
}

void adopt_stored(LearnedSpec& learned, const spec::Spec* stored) {
    if (stored == nullptr || !learned.spec) return;
    carry_declarations(*learned.spec, *stored);
    adopt_state_names(learned.spec->typestate, stored->typestate);
    if (!learned.spec->timing.tmax_ms && !learned.spec->timing.tmin_ms) learned.spec->timing = stored->timing;
}

}  // namespace

LearnedSpec learn_spec(std::span<Device* const> devices, const LearnOptions& options) {
    if (options.seed) declare_outputs(devices, options.seed->outputs());  // a seed's outputs, ids by name
    OracleStack stack(device_list(devices), options.cache);
    return learn_on(stack, options);
}

LearnedSpec propose(const spec::Spec* stored, std::span<Device* const> devices, const LearnOptions& options) {
    if (devices.empty()) throw std::invalid_argument("no device");
    LearnedSpec learned = learn_spec(devices, proposal_options(stored, *devices.front(), options));
    adopt_stored(learned, stored);
    return learned;
}

LearnedSpec propose(const spec::Spec* stored, Conformance& conformance, const Counterexample* counterexample,
                    const LearnOptions& options) {
    LearnOptions o = proposal_options(stored, *conformance.stack().devices().front(), options);
    if (counterexample != nullptr && o.seed) o.counterexample = *counterexample;
    LearnedSpec learned = learn_on(conformance.stack(), o);
    adopt_stored(learned, stored);
    return learned;
}

std::string format_trace(const std::vector<TraceStep>& steps, std::size_t indent) {
    const std::array<std::string, 5> header = {"step", "state", "input", "expected", "actual"};
    std::vector<std::array<std::string, 5>> rows;
    rows.push_back(header);
    for (std::size_t i = 0; i < steps.size(); ++i)
        rows.push_back({std::to_string(i + 1), steps[i].state, steps[i].input, steps[i].expected, steps[i].actual});
    std::array<std::size_t, 5> width{};
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    bool marked = false;
    std::string out;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::string line(indent, ' ');
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
            line += rows[r][c];
            if (c + 1 < rows[r].size()) line += std::string(width[c] - rows[r][c].size() + 2, ' ');
        }
        if (r > 0 && !marked && steps[r - 1].expected != steps[r - 1].actual) {
            line += std::string(width[4] - rows[r][4].size(), ' ') + "  <- differs";
            marked = true;
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

Conformance::Conformance(const MealyMachine& model, std::vector<Device*> devices, CacheConfig cache)
    : expected_([&] {
          if (devices.empty() || devices.front() == nullptr) throw std::invalid_argument("no device");
          declare_outputs(devices, model.outputs());
          return over_alphabets(model, devices.front()->inputs(), devices.front()->outputs());
      }()),
      stack_(std::move(devices), cache) {}

TestSuite Conformance::suite(const CheckOptions& options) const {
    SuiteConfig config = suite_config(options.method, options.bound, options.bound);
    config.traits = stack_.devices().front()->traits();  // what the device declares, never the model
    return generate_suite(expected_, config);
}

CheckReport Conformance::run(const TestSuite& suite, std::size_t batch_size) {
    const QueryStats before = stack_.stats();
    RunConfig run;
    run.batch_size = batch_size;
    // An answer the spec does not predict is a difference: `unknown:purpose` where the spec expects
    // ok or a callback means the device is not where the spec says (its purpose denied the callin
    // there). Where the spec says err (specs learned before purposes answered unknown:purpose
    // recorded a denial so), the runner leaves it untested and it is named, never passed silently.
    std::vector<Word> outside_purpose;  // cases cut short where the spec says err and the purpose denied
    run.outside_purpose = &outside_purpose;
    CheckReport report;
    report.method = suite.method;
    report.bound = suite.bound;
    report.tests = suite.cases.size();
    report.tests_symbols = suite.symbols();
    report.tests_waits = suite.waits();
    // A callback the spec does not have, heard by the quiescence double-check (a wait of factor x
    // tmax into every quiet state, or those marked in `only`): a protocol difference with its trace,
    // never "raise tmax" (no tmax makes the device conform). The word's other answers are the
    // device's (through the cache); the last is the callback the longer wait heard.
    const auto new_callback = [&](const std::vector<char>* only) -> std::optional<Counterexample> {
        const auto wait = expected_.inputs().find(kWait);
        if (!wait || quiet_check_factor_ <= 0) return std::nullopt;
        const auto all = access_sequences(expected_);
        std::vector<Word> access(expected_.num_states());
        for (StateId q = 0; q < expected_.num_states(); ++q) access[q] = all[q].value_or(Word{});
        std::optional<NewCallback> found;
        (void)confirm_quiescence_impl(expected_, access, std::span<Device* const>(stack_.devices()),
                                      quiet_check_factor_, only, &found);
        if (!found) return std::nullopt;
        const auto phase = stack_.counter().enter(Phase::Verification);
        Counterexample cex;
        cex.inputs = found->word;
        cex.actual = stack_.oracle().query(found->word);
        cex.inputs.push_back(*wait);
        cex.expected = expected_.outputs_of(cex.inputs);
        cex.actual.push_back(*stack_.oracle().outputs().find(found->callback));
        cex.purpose = "callback '" + found->callback + "', which the spec does not have, heard by a wait of " +
                      std::to_string(quiet_check_factor_).substr(0, 3) + " x tmax";
        return cex;
    };
    {
        const auto phase = stack_.counter().enter(Phase::Equivalence);  // a conformance run is a test phase
        try {
            report.counterexample = run_suite(suite, stack_.oracle(), run);
        } catch (const TimingError& e) {
            // Late on every run, but a callback the spec does not have: find where it comes.
            if (has_output(expected_, e.callback()) || !stack_.oracle().outputs().contains(e.callback())) throw;
            report.counterexample = new_callback(nullptr);
            if (!report.counterexample) throw;
        }
    }
    for (Device* d : stack_.devices()) d->check_timing();  // a late callback voids a pass
    if (report.counterexample) {
        // A difference where the device answered `quiet` and the spec has a callback can be that
        // callback, late on a busy machine, after its answer was given: listen again with the
        // double-check's longer wait. Heard: a timing failure, not a protocol difference (never a
        // pass either); not heard: the difference stands.
        const Counterexample& cex = *report.counterexample;
        const std::size_t at = cex.first_difference();
        const Alphabet& outputs = stack_.oracle().outputs();
        const auto wait = stack_.oracle().inputs().find(kWait);
        const auto quiet = outputs.find(kQuiet);
        const DeviceDescription device = stack_.devices().front()->describe();
        if (at < cex.inputs.size() && wait && quiet && cex.inputs[at] == *wait && cex.actual[at] == *quiet &&
            quiet_check_factor_ > 0 && device.tmax_ms) {
            const std::string expected = suite.outputs.name(cex.expected[at]);
            const auto timeout = std::chrono::milliseconds(static_cast<long long>(*device.tmax_ms * quiet_check_factor_));
            const Word prefix(cex.inputs.begin(), cex.inputs.begin() + static_cast<std::ptrdiff_t>(at));
            const auto phase = stack_.counter().enter(Phase::Verification);
            const auto heard = stack_.devices().front()->confirm_wait(prefix, timeout);
            if (heard && outputs.name(*heard) == expected)
                throw TimingError(device.name + ": tmax too small for one run: after '" +
                                      to_string(prefix, stack_.oracle().inputs()) + "', a wait answered quiet where the spec has '" +
                                      expected + "', and a wait of " + std::to_string(timeout.count()) +
                                      " ms heard it: a late callback, not a protocol difference (tmax " +
                                      std::to_string(static_cast<long long>(*device.tmax_ms)) +
                                      " ms; if the machine was not just busy, raise tmax: --tmax MS, TYPESTAR_TMAX)",
                                  TimingError::Kind::LateCallback, expected, static_cast<double>(timeout.count()),
                                  *device.tmax_ms, device.tmin_ms.value_or(0), true);
        }
    }
    if (!report.counterexample) {
        // Double-check the quiet waits this verdict relies on: every state the suite's words pass
        // through with a `wait` expected quiet, once per state for this object.
        const auto wait = expected_.inputs().find(kWait);
        const auto quiet = expected_.outputs().find(kQuiet);
        if (wait && quiet && quiet_check_factor_ > 0) {
            if (confirmed_.empty()) confirmed_.assign(expected_.num_states(), 0);
            std::vector<StateId> states;
            for (const TestCase& c : suite.cases) {
                StateId q = expected_.initial();
                for (const Symbol a : c.inputs) {
                    if (a == *wait && expected_.output(q, a) == *quiet && !confirmed_[q]) {
                        confirmed_[q] = 1;
                        states.push_back(q);
                    }
                    q = expected_.successor(q, a);
                }
            }
            if (!states.empty()) {
                std::vector<char> chosen(expected_.num_states(), 0);
                for (const StateId q : states) chosen[q] = 1;
                report.counterexample = new_callback(&chosen);
            }
        }
    }
    report.verdict = report.counterexample ? Verdict::Fail : Verdict::Pass;
    report.assumptions = assumptions_of(suite.method, suite.bound, stack_.oracle().traits(),
                                        stack_.devices().front()->describe(), quiet_check_factor_);
    const auto& devices = stack_.devices();
    if (std::all_of(devices.begin(), devices.end(), [](const Device* d) { return d->deterministic(); }))
        report.assumptions.push_back(std::string(kDeclaredDeterministic));
    if (!outside_purpose.empty()) {
        std::set<std::pair<std::string, std::string>> untested;
        for (const Word& w : outside_purpose) {
            StateId q = expected_.initial();
            for (std::size_t k = 0; k + 1 < w.size(); ++k) q = expected_.successor(q, w[k]);
            untested.emplace(expected_.state_name(q), stack_.oracle().inputs().name(w.back()));
        }
        std::string all;
        for (const auto& [state, input] : untested) {
            all += (all.empty() ? "" : "; ") + ("state " + state + ", input " + input);
            report.not_tested.push_back(TransitionRef{state, input});
        }
        report.assumptions.push_back(std::to_string(untested.size()) +
                                     " transition(s) the spec says are refused (err) were not tested: the device's "
                                     "learning purpose does not explore them (it answered unknown:purpose; re-learn "
                                     "the spec to record them as unknown): " + all);
    }
    report.stats = stack_.stats().since(before);
    if (report.counterexample) {
        const Counterexample& cex = *report.counterexample;
        const Alphabet& inputs = stack_.oracle().inputs();
        const Alphabet& outputs = stack_.oracle().outputs();
        StateId s = expected_.initial();
        for (std::size_t k = 0; k < cex.inputs.size(); ++k) {
            report.trace.push_back(TraceStep{expected_.state_name(s), inputs.name(cex.inputs[k]),
                                             suite.outputs.name(cex.expected[k]), outputs.name(cex.actual[k])});
            s = expected_.successor(s, cex.inputs[k]);
        }
    }
    return report;
}

CheckReport check_spec(const MealyMachine& model, std::span<Device* const> devices, const CheckOptions& options) {
    Conformance conformance(model, device_list(devices), options.cache);
    conformance.set_quiet_check_factor(options.quiet_check_factor);
    return conformance.run(conformance.suite(options), options.batch_size);
}

std::vector<std::string> cut_at_unknown(TestSuite& suite, const Typestate& typestate) {
    std::set<std::string> met;
    if (!typestate.has_unknown()) return {};
    std::vector<TestCase> kept;
    for (TestCase& c : suite.cases) {
        const std::vector<std::string> names = names_of(c.inputs, suite.inputs);
        if (const auto step = first_unknown(typestate, names)) {
            met.insert("state " + step->state + ", input " + names[step->index] + ": unknown (" +
                       std::string(to_string(step->unknown.source)) +
                       (step->unknown.reason.empty() ? "" : ": " + step->unknown.reason) + ")");
            c.inputs.resize(step->index);
            c.expected.resize(step->index);
            c.purpose += " (cut before an unknown transition)";
        }
        if (!c.inputs.empty()) kept.push_back(std::move(c));
    }
    suite.cases = std::move(kept);
    return {met.begin(), met.end()};
}

CheckReport check_spec(const spec::Spec& spec, std::span<Device* const> devices, const CheckOptions& options) {
    if (!spec.typestate.has_unknown()) return check_spec(synchronous_closure(spec.typestate), devices, options);
    Conformance conformance(synchronous_closure(spec.typestate), device_list(devices), options.cache);
    conformance.set_quiet_check_factor(options.quiet_check_factor);
    TestSuite suite = conformance.suite(options);
    const auto skipped = cut_at_unknown(suite, spec.typestate);
    CheckReport report = conformance.run(suite, options.batch_size);
    if (!skipped.empty())
        report.assumptions.push_back(std::to_string(skipped.size()) +
                                     " unknown transition(s) of the spec were not tested (three-valued spec): " +
                                     [&] {
                                         std::string all;
                                         for (const auto& s : skipped) all += (all.empty() ? "" : "; ") + s;
                                         return all;
                                     }());
    return report;
}

std::string assumptions_block(const std::vector<std::string>& assumptions, std::string_view indent) {
    std::string out;
    for (const auto& a : assumptions) out += std::string(indent) + "- " + a + "\n";
    return out;
}

std::string unpredicted_answer_note(const CheckReport& report) {
    for (std::size_t k = 0; k < report.trace.size(); ++k) {
        const TraceStep& step = report.trace[k];
        if (step.expected == step.actual) continue;
        if (step.actual.rfind("unknown:", 0) != 0) return {};
        return "step " + std::to_string(k + 1) + ": the device answered " + step.actual + " to " + step.input +
               " where the spec expects " + step.expected + " (in state " + step.state +
               "): the device would not try it, so it is not in the state the spec says there; an answer the spec "
               "does not predict is a difference, not an untested transition.";
    }
    return {};
}

std::string evidence_note(const CheckReport& report) {
    return "This is bounded evidence, not a proof. It relies on:\n" + assumptions_block(report.assumptions);
}

std::string tight_bound_warning(const LearnedSpec& learned) {
    if (!learned.bound_tight) return {};
    const std::string b = std::to_string(learned.bound);
    return "warning: the bound is tight: the learned machine needs words of length B=" + b +
           " to tell its states apart, so states that need longer words are likely missed. Re-run with --bound " +
           std::to_string(learned.bound + 1) + " (or --bound auto; --typestar_bound=" + std::to_string(learned.bound + 1) +
           " in the gtest plugin).";
}

}  // namespace typestar
