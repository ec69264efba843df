#include "typestar/session/session.hpp"

#include "typestar/session/test_plan.hpp"

#include <algorithm>
#include <map>
#include <array>
#include <atomic>
#include <exception>
#include <functional>
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

#include "learning_oracles.hpp"
#include "session_detail.hpp"

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

namespace detail {

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

SuiteConfig suite_config(SuiteMethod method, std::size_t bound, std::size_t extra_states) {
    SuiteConfig c;
    c.method = method;
    c.bound = bound;
    c.extra_states = extra_states;
    return c;
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

}  // namespace detail

namespace {

using detail::assumptions_of;
using detail::declare_outputs;
using detail::device_list;
using detail::kDeclaredDeterministic;
using detail::suite_config;

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


/// `ask_suite_words`: L# asks the plain Algorithm 2 suite's words before each hypothesis
/// (LSharpConfig::explore_suggested); not when the suite is chained (its words are others).
std::unique_ptr<Learner> make_learner(LearnerKind kind, MembershipOracle& oracle, LearnerConfig config,
                                      bool ask_suite_words) {
    switch (kind) {
        case LearnerKind::LStar: return std::make_unique<LStar>(oracle, std::move(config));
        case LearnerKind::LSharp: {
            LSharpConfig lsharp;
            lsharp.seed = std::move(config.seed);
            lsharp.explore_suggested = ask_suite_words;
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

std::string exploration_note(const ExplorationRecord& r, std::size_t per_transition) {
    return "beyond the bound: " + std::to_string(r.searches) + " search(es) of random words from every state (" +
           std::to_string(per_transition) + " per transition), " + std::to_string(r.counterexamples) +
           " counterexample(s) found and learned; the last search ran " + std::to_string(r.words) +
           " word(s) of up to " + std::to_string(r.longest) +
           " inputs and found none (evidence beyond the bound, not a proof)";
}

using detail::all_deterministic;
using detail::deterministic_note;
using detail::flake_note;
using detail::SeedStatesOracle;
using detail::VerifiedEquivalenceOracle;

/// Whether `seed`'s inputs are the oracle's (by name): SeedStatesOracle can use it. (Otherwise the
/// learner refuses the seed with its own error.)
bool seed_fits(const MealyMachine& seed, const MembershipOracle& oracle) {
    std::vector<std::string> a = seed.inputs().names(), b = oracle.inputs().names();
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
}

/// Whether learn_on certifies in chained Algorithm 2 words (EquivalenceOptions::chained): with L#,
/// and where the flake policy does not re-run the decisive words (those are the plain suite's).
bool certifies_chained(const LearnOptions& options, std::span<Device* const> devices) {
    const EquivalenceOptions& eq = options.equivalence;
    return eq.chained && !eq.perfect && eq.method == SuiteMethod::Algorithm2 &&
           options.learner == LearnerKind::LSharp && !(options.flake_check && !all_deterministic(devices));
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

// Over 120 lines: the learning pipeline (learn, certify, read the spec) in one function; not yet split by phase.
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
    stack.listen_for_late_callbacks(options.quiet_check_factor);  // the double-check's longer wait, at the tmax in force

    std::size_t bound = eq.bound;
    std::string bound_note;
    std::optional<ExploringEquivalenceOracle> exploring;  // kept across an auto bound's experiments
    std::optional<VerifiedEquivalenceOracle> verified;  // likewise
    // A device that cannot flake needs no second run of anything (Device::deterministic).
    const bool deterministic = all_deterministic(devices);
    SuiteConfig decisive = suite_config(SuiteMethod::Wp, 0, 0);  // with a perfect oracle
    const bool chained = certifies_chained(options, devices);
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
            suite.chained = chained;
            suite.state_bound = eq.state_bound;
            suite.shortest_first = eq.state_bound.has_value();  // AALpy's m = n order: stop at the first counterexample
            decisive = suite;
            equivalence = std::make_unique<SuiteEquivalenceOracle>(stack.oracle(), suite, run);
        }
        LearnerConfig config = options.lstar;
        if (options.seed) config.seed = options.seed;
        const std::unique_ptr<Learner> learner = make_learner(options.learner, stack.oracle(), std::move(config), !chained);
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
        SuiteConfig next = suite_config(eq.method, bound + 1, eq.extra_states);
        next.chained = chained;
        SuiteEquivalenceOracle probe(stack.oracle(), next);
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

namespace {

/// learn_on, started again over the repaired cache when a late answer is found in it
/// (LateAnswerRemoved: what the learner built on it is dropped; the cache answers the rest), at most
/// kTimingRetries times; one query budget for all attempts.
LearnedSpec learn_over_repairs(OracleStack& stack, const LearnOptions& options) {
    LearnOptions attempt = options;
    const QueryStats before = stack.stats();  // a reused stack's earlier runs (propose) are not this one's
    for (std::size_t restart = 0;; ++restart) {
        try {
            LearnedSpec learned = learn_on(stack, attempt);
            if (restart > 0) learned.stats = stack.stats().since(before);  // every attempt's queries
            return learned;
        } catch (const LateAnswerRemoved& e) {
            if (restart == kTimingRetries) throw;
            attempt.probe.reset();  // the devices keep the timing the first attempt's probe set
            if (options.max_queries) {
                const std::uint64_t spent = stack.stats().since(before).total().queries_executed;
                attempt.max_queries = spent >= *options.max_queries ? 0 : *options.max_queries - spent;
            }
            detail::logger("typestar.session")
                ->warn("{} — the late answer was replaced by the on-time one; learning starts again over the "
                       "cache ({} nodes kept)",
                       e.what(), stack.cache().stats().nodes);
        }
    }
}

/// Whether the device gives `cex`'s answer at the tmax in force (its last answer may have been heard
/// only by the quiescence double-check's longer wait: a callback the spec does not have). Asked of
/// the cache (no run for a word the check ran); on another answer the word runs again past the
/// cache, which judges a late answer it held (LateAnswerRemoved: the cache then
/// holds the on-time one). Throws Error naming the callback when the device answers otherwise at
/// tmax: a spec learned at this tmax would not have it, and learning would find one word answered two
/// ways.
void check_counterexample_at_tmax(OracleStack& stack, const Counterexample& cex) {
    std::optional<Word> fresh;
    std::string why;
    try {
        fresh = stack.oracle().query(cex.inputs);  // from the cache (a check's counterexample is there), or run
        if (*fresh == cex.actual) return;
        fresh = stack.cache().rerun(std::vector<Word>{cex.inputs}).front();
    } catch (const LateAnswerRemoved&) {
        fresh = Word(cex.inputs.size());
        if (!stack.cache().lookup(cex.inputs, *fresh)) fresh.reset();
    } catch (const TimingError& e) {
        why = std::string(" (") + e.what() + ")";
    }
    if (fresh && *fresh == cex.actual) return;
    const Alphabet& outputs = stack.oracle().outputs();
    const std::size_t at = cex.first_difference();
    const std::string heard = at < cex.actual.size() ? outputs.name(cex.actual[at]) : std::string("?");
    const DeviceDescription device = stack.devices().front()->describe();
    const std::string tmax = device.tmax_ms ? std::to_string(static_cast<long long>(*device.tmax_ms)) + " ms" : "tmax";
    std::string answered;
    if (fresh) answered = " answered '" + to_string(*fresh, outputs) + "'";
    throw Error("the counterexample '" + to_string(cex.inputs, stack.oracle().inputs()) + "' answers '" +
                to_string(cex.actual, outputs) + "' only with a longer wait" +
                (cex.purpose.empty() ? std::string() : " (" + cex.purpose + ")") + ": at the tmax in force (" + tmax +
                ") the device" + (fresh ? answered : " broke the timing on every run" + why) + ", so a spec learned at this " +
                "tmax would not have '" + heard + "'. Raise tmax (--tmax MS, TYPESTAR_TMAX) to learn the proposal, " +
                "or run again if the callback was late only while the device warmed up");
}

}  // namespace

LearnedSpec learn_spec(std::span<Device* const> devices, const LearnOptions& options) {
    if (options.seed) declare_outputs(devices, options.seed->outputs());  // a seed's outputs, ids by name
    OracleStack stack(device_list(devices), options.cache);
    LearnedSpec learned = learn_over_repairs(stack, options);
    learned.stats = stack.stats();  // every attempt's queries
    return learned;
}

LearnedSpec propose(const spec::Spec* stored, std::span<Device* const> devices, const LearnOptions& options) {
    if (devices.empty()) throw std::invalid_argument("no device");
    LearnedSpec learned = learn_spec(devices, proposal_options(stored, *devices.front(), options));
    adopt_stored(learned, stored);
    return learned;
}

namespace {

/// Whether a proposal through a failing check's stack certifies in the plain Algorithm 2 suite
/// rather than in chained words (EquivalenceOptions::chained; both prove the same up to B). A check
/// runs the plain suite, one word per transition test, so its cache answers the plain suite of the
/// stored spec — and, the device having changed little, most of the proposal's — while chained words
/// are others and run anew. Decided by counting, before learning: the seed's plain suite words the
/// cache does not answer against its chained words it does not answer (both need no query). A stack
/// that ran little (one transition's test in its own process) keeps the chained words.
bool plain_suite_is_cheaper(OracleStack& stack, const MealyMachine& seed, const LearnOptions& o) {
    const EquivalenceOptions& eq = o.equivalence;
    if (!certifies_chained(o, stack.devices()) || !seed_fits(seed, stack.oracle()))
        return false;  // learn_on would not certify in chained words anyway
    std::size_t plain = 0, chained = 0;
    try {
        const MealyMachine model = over_alphabets(minimize(seed), stack.oracle().inputs(), stack.oracle().outputs());
        SuiteConfig config = suite_config(SuiteMethod::Algorithm2, eq.bound, eq.extra_states);
        config.traits = stack.oracle().traits();
        auto uncached = [&](const SuiteConfig& c) {
            std::size_t n = 0;
            Word out;
            SuiteGenerator words(model, c);
            while (const auto t = words.next()) {
                out.resize(t->inputs.size());
                if (!stack.cache().lookup(t->inputs, out)) ++n;
            }
            return n;
        };
        plain = uncached(config);
        config.chained = true;
        chained = uncached(config);
    } catch (const std::invalid_argument&) {
        return false;  // a seed no suite is made of: the learner reports it with its own error
    }
    detail::logger("typestar.session")
        ->debug("proposal: the check's cache leaves {} plain suite words and {} chained words to run", plain, chained);
    return plain < chained;
}

}  // namespace

LearnedSpec propose(const spec::Spec* stored, Conformance& conformance, const Counterexample* counterexample,
                    const LearnOptions& options) {
    LearnOptions o = proposal_options(stored, *conformance.stack().devices().front(), options);
    if (o.seed && plain_suite_is_cheaper(conformance.stack(), *o.seed, o)) o.equivalence.chained = false;
    if (counterexample != nullptr && o.seed) {
        check_counterexample_at_tmax(conformance.stack(), *counterexample);
        o.counterexample = *counterexample;
    }
    LearnedSpec learned = learn_over_repairs(conformance.stack(), o);
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
