// Checking a device against a model: the Conformance run (DroidStar Algorithm 2 or W/Wp through
// one oracle stack, then the timing self-checks, a late callback told from a protocol difference,
// the quiescence double-check, the assumptions and the named trace) and check_spec around it.
#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "session_detail.hpp"
#include "typestar/conformance/runner.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/translate.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/session/session.hpp"

namespace typestar {

using detail::all_deterministic;
using detail::assumptions_of;
using detail::confirm_quiescence_impl;
using detail::declare_outputs;
using detail::device_list;
using detail::has_output;
using detail::kDeclaredDeterministic;
using detail::NewCallback;
using detail::suite_config;

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

namespace {

// The steps of Conformance::run, in the order it takes them.

/// A callback the spec does not have, heard by the quiescence double-check (a wait of factor x
/// tmax into every quiet state of `expected`, or those marked in `only`): a protocol difference
/// with its trace, never "raise tmax" (no tmax makes the device conform). The word's other answers
/// are the device's (through the cache); the last is the callback the longer wait heard.
std::optional<Counterexample> heard_new_callback(const MealyMachine& expected, OracleStack& stack, double factor,
                                                 const std::vector<char>* only) {
    const auto wait = expected.inputs().find(kWait);
    if (!wait || factor <= 0) return std::nullopt;
    const auto all = access_sequences(expected);
    std::vector<Word> access(expected.num_states());
    for (StateId q = 0; q < expected.num_states(); ++q) access[q] = all[q].value_or(Word{});
    std::optional<NewCallback> found;
    (void)confirm_quiescence_impl(expected, access, std::span<Device* const>(stack.devices()), factor, only, &found);
    if (!found) return std::nullopt;
    const auto phase = stack.counter().enter(Phase::Verification);
    Counterexample cex;
    cex.inputs = found->word;
    cex.inputs.push_back(*wait);
    cex.expected = expected.outputs_of(cex.inputs);
    // The word at the tmax in force, past the cache and checked against it (a cached late `quiet`
    // is judged there: LateAnswerRemoved runs the suite again over the repaired cache): when it
    // hears the callback too, that is the counterexample, the device's answer as learning a proposal
    // sees it. Otherwise the callback comes only later than tmax: the longer wait's answer.
    std::optional<Word> fresh;
    try {
        fresh = stack.cache().rerun(std::vector<Word>{cex.inputs}).front();
    } catch (const LateAnswerRemoved&) {
        throw;  // the cache held a late quiet: the suite runs again over the repaired cache
    } catch (const TimingError&) {
        // late on every run at tmax (the callback is the one found): the longer wait's answer below
    }
    if (fresh && stack.oracle().outputs().name(fresh->back()) == found->callback) {
        cex.actual = *fresh;
    } else {
        cex.actual = stack.oracle().query(found->word);
        cex.actual.push_back(*stack.oracle().outputs().find(found->callback));
    }
    cex.purpose = "callback '" + found->callback + "', which the spec does not have, heard by a wait of " +
                  std::to_string(factor).substr(0, 3) + " x tmax";
    return cex;
}

/// A difference where the device answered `quiet` and the spec has a callback can be that
/// callback, late on a busy machine, after its answer was given. A difference that repeats is a
/// difference: the word runs again past the cache (after a pause of tmax, then 2 tmax). A run that
/// answers the spec's callback contradicts the cache's `quiet`, which the cache judges with its
/// longer wait: a late callback (LateAnswerRemoved: Conformance::run runs the suite again over the
/// repaired cache) or non-determinism. `quiet` on every run: listen once more with the
/// double-check's longer wait; heard, throws TimingError (a timing failure that repeats, never a
/// pass, never a protocol difference); not heard, returns, and the difference stands.
void recheck_late_callback(OracleStack& stack, double factor, const TestSuite& suite, const Counterexample& cex) {
    const std::size_t at = cex.first_difference();
    const Alphabet& outputs = stack.oracle().outputs();
    const auto wait = stack.oracle().inputs().find(kWait);
    const auto quiet = outputs.find(kQuiet);
    const DeviceDescription device = stack.devices().front()->describe();
    if (!(at < cex.inputs.size() && wait && quiet && cex.inputs[at] == *wait && cex.actual[at] == *quiet &&
          factor > 0 && device.tmax_ms))
        return;
    const std::string expected = suite.outputs.name(cex.expected[at]);
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(*device.tmax_ms * factor));
    const Word prefix(cex.inputs.begin(), cex.inputs.begin() + static_cast<std::ptrdiff_t>(at));
    const auto phase = stack.counter().enter(Phase::Verification);
    const std::vector<Word> again{Word(cex.inputs.begin(), cex.inputs.begin() + static_cast<std::ptrdiff_t>(at) + 1)};
    for (std::size_t r = 0; r < kTimingRetries; ++r) {
        std::this_thread::sleep_for(timing_retry_pause(*device.tmax_ms, r));
        (void)stack.cache().rerun(again);  // agreed with the cache's quiet, or threw
    }
    const auto heard = confirm_wait_with_timing_retries(*stack.devices().front(), prefix, timeout);
    if (heard && outputs.name(*heard) == expected)
        throw TimingError(device.name + ": tmax too small: after '" + to_string(prefix, stack.oracle().inputs()) +
                              "', a wait answered quiet on each of " + std::to_string(kTimingRetries + 1) +
                              " runs where the spec has '" + expected + "', and a wait of " +
                              std::to_string(timeout.count()) +
                              " ms heard it: a late callback, not a protocol difference (tmax " +
                              std::to_string(static_cast<long long>(*device.tmax_ms)) +
                              " ms; if the machine was not just busy, raise tmax: --tmax MS, TYPESTAR_TMAX)",
                          TimingError::Kind::LateCallback, expected, static_cast<double>(timeout.count()),
                          *device.tmax_ms, device.tmin_ms.value_or(0), false, kTimingRetries + 1);
}

/// The states the suite's words wait in expecting quiet and `confirmed` (per state of `expected`)
/// does not mark yet, marked now, as a mask over the states; empty when there is none.
std::vector<char> quiet_states_to_confirm(const MealyMachine& expected, const TestSuite& suite,
                                          std::vector<char>& confirmed) {
    const auto wait = expected.inputs().find(kWait);
    const auto quiet = expected.outputs().find(kQuiet);
    if (!wait || !quiet) return {};
    if (confirmed.empty()) confirmed.assign(expected.num_states(), 0);
    std::vector<char> chosen;
    for (const TestCase& c : suite.cases) {
        StateId q = expected.initial();
        for (const Symbol a : c.inputs) {
            if (a == *wait && expected.output(q, a) == *quiet && !confirmed[q]) {
                confirmed[q] = 1;
                if (chosen.empty()) chosen.assign(expected.num_states(), 0);
                chosen[q] = 1;
            }
            q = expected.successor(q, a);
        }
    }
    return chosen;
}

/// The transitions the spec says err that the device's purpose kept from running
/// (`outside_purpose`: the cut words), named in report.not_tested and as an assumption.
void name_untested(const MealyMachine& expected, const Alphabet& inputs, const std::vector<Word>& outside_purpose,
                   CheckReport& report) {
    if (outside_purpose.empty()) return;
    std::set<std::pair<std::string, std::string>> untested;
    for (const Word& w : outside_purpose) {
        StateId q = expected.initial();
        for (std::size_t k = 0; k + 1 < w.size(); ++k) q = expected.successor(q, w[k]);
        untested.emplace(expected.state_name(q), inputs.name(w.back()));
    }
    std::string all;
    for (const auto& [state, input] : untested) {
        all += (all.empty() ? "" : "; ") + ("state " + state + ", input " + input);
        report.not_tested.push_back(TransitionRef{state, input});
    }
    report.assumptions.push_back(std::to_string(untested.size()) + std::string(detail::kRefusedNotTested) + all);
}

/// `cex` by name, step by step, with the spec's state before each step.
std::vector<TraceStep> named_trace(const MealyMachine& expected, OracleStack& stack, const TestSuite& suite,
                                   const Counterexample& cex) {
    std::vector<TraceStep> trace;
    const Alphabet& inputs = stack.oracle().inputs();
    const Alphabet& outputs = stack.oracle().outputs();
    StateId s = expected.initial();
    for (std::size_t k = 0; k < cex.inputs.size(); ++k) {
        trace.push_back(TraceStep{expected.state_name(s), inputs.name(cex.inputs[k]),
                                  suite.outputs.name(cex.expected[k]), outputs.name(cex.actual[k])});
        s = expected.successor(s, cex.inputs[k]);
    }
    return trace;
}

}  // namespace

CheckReport Conformance::run(const TestSuite& suite, std::size_t batch_size) {
    const QueryStats before = stack_.stats();
    for (std::size_t restart = 0;; ++restart) {
        try {
            CheckReport report = run_once(suite, batch_size);
            report.stats = stack_.stats().since(before);
            return report;
        } catch (const LateAnswerRemoved& e) {
            if (restart == kTimingRetries) throw;
            detail::logger("typestar.session")
                ->warn("{} — the late answer was replaced by the on-time one; the suite runs again over the cache",
                       e.what());
        }
    }
}

CheckReport Conformance::run_once(const TestSuite& suite, std::size_t batch_size) {
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
    // The suite.
    {
        const auto phase = stack_.counter().enter(Phase::Equivalence);  // a conformance run is a test phase
        try {
            report.counterexample = run_suite(suite, stack_.oracle(), run);
        } catch (const TimingError& e) {
            // Late on every run, but a callback the spec does not have: find where it comes.
            if (has_output(expected_, e.callback()) || !stack_.oracle().outputs().contains(e.callback())) throw;
            report.counterexample = heard_new_callback(expected_, stack_, quiet_check_factor_, nullptr);
            if (!report.counterexample) throw;
        }
    }
    // The devices' timing self-checks: a late callback voids a pass.
    for (Device* d : stack_.devices()) d->check_timing();
    // A difference that is a late callback is a timing failure; a pass relies on its quiet waits,
    // double-checked once per state for this object.
    if (report.counterexample) {
        recheck_late_callback(stack_, quiet_check_factor_, suite, *report.counterexample);
    } else if (quiet_check_factor_ > 0) {
        const std::vector<char> chosen = quiet_states_to_confirm(expected_, suite, confirmed_);
        if (!chosen.empty()) report.counterexample = heard_new_callback(expected_, stack_, quiet_check_factor_, &chosen);
    }
    // The verdict, what it relies on, and the difference by name.
    report.verdict = report.counterexample ? Verdict::Fail : Verdict::Pass;
    report.assumptions = assumptions_of(suite.method, suite.bound, stack_.oracle().traits(),
                                        stack_.devices().front()->describe(), quiet_check_factor_);
    if (all_deterministic(stack_.devices())) report.assumptions.push_back(std::string(kDeclaredDeterministic));
    name_untested(expected_, stack_.oracle().inputs(), outside_purpose, report);
    report.stats = stack_.stats().since(before);
    if (report.counterexample) report.trace = named_trace(expected_, stack_, suite, *report.counterexample);
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

}  // namespace typestar
