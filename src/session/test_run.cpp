// A spec's test plan run on one device, one test at a time (typestar/session/test_run.hpp): the
// typestate run (one Conformance: the cache, batching and quiescence double-check of `typestar
// check`) and the register-automaton run (one data oracle over the device seen through the spec's
// signature). The messages are the gtest plugin's, so every front end prints the same text.
#include "typestar/session/test_run.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "session_detail.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/refinement.hpp"
#include "typestar/session/register_automata.hpp"

namespace typestar {

using detail::kRefusedNotTested;

const char* test_status_name(TestStatus status) noexcept {
    switch (status) {
        case TestStatus::Passed: return "passed";
        case TestStatus::Failed: return "failed";
        case TestStatus::NotTested: return "not_tested";
        case TestStatus::Skipped: return "skipped";
    }
    return "?";
}

std::vector<std::string> SpecTestRun::assumptions() const { return assumptions_; }

void SpecTestRun::note_assumptions(const std::vector<std::string>& assumptions) {
    for (const auto& a : assumptions)
        if (std::find(assumptions_.begin(), assumptions_.end(), a) == assumptions_.end()) assumptions_.push_back(a);
}

std::optional<TestResult> unknown_result(const std::string& spec_path, const TransitionTest& t) {
    if (t.unknown.empty()) return std::nullopt;  // three-valued specs: neither legal nor illegal
    TestResult r;
    r.test = t;
    r.transition = t.state + " " + t.input;
    r.status = TestStatus::NotTested;
    r.reason = "unknown (" + t.unknown + ")";
    r.message = "typestar: " + spec_path + ":" + std::to_string(t.line) + ": state " + t.state + ", input " + t.input +
                " is unknown (" + t.unknown + "): not tested";
    return r;
}

std::string shell_quote(std::string_view text) {
    const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("_./:=@%+-").find(c) != std::string_view::npos;
    });
    if (plain) return std::string(text);
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string check_command(const std::string& spec, std::string_view device_url, std::size_t bound) {
    return "typestar check " + shell_quote(spec) + " --device " + shell_quote(device_url) + " --bound " +
           std::to_string(bound);
}

namespace {

std::string set_difference_text(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::string out;
    for (const auto& x : a)
        if (std::find(b.begin(), b.end(), x) == b.end()) out += (out.empty() ? "" : ", ") + x;
    return out.empty() ? "none" : out;
}

std::string join_words(const std::vector<TestCase>& cases, const Alphabet& inputs) {
    std::string out;
    for (const auto& c : cases) out += (out.empty() ? "" : "; ") + to_string(c.inputs, inputs);
    return out;
}

/// "typestar: Suite.Test: N words passed: bounded evidence, relying on:" and the assumptions.
std::string pass_message(const std::string& suite, const TransitionTest& t, std::size_t words, const char* noun,
                         const std::vector<std::string>& assumptions) {
    return "typestar: " + suite + "." + t.name + ": " + std::to_string(words) + " " + noun + (words == 1 ? "" : "s") +
           " passed: bounded evidence, relying on:\n" + assumptions_block(assumptions, "    ");
}

TimingFailure timing_failure_of(const TimingError& e) {
    return {to_string(e.kind()), e.callback(), e.delay_ms(), e.tmax_ms(), e.tmin_ms(), e.runs(), e.earlier_query()};
}

TestResult failed(const TransitionTest& t, TestFailure why, std::string message) {
    TestResult r;
    r.test = t;
    r.transition = t.state + " " + t.input;
    r.status = TestStatus::Failed;
    r.failure = why;
    r.message = std::move(message);
    return r;
}

/// The common set-up of both runs: bound, suite name, reproduce line.
template <class Run>
void set_up(Run& run, const Document& document, const TestRunOptions& options, std::size_t bound,
            const std::string& device_name, std::string& suite, std::function<std::string(const std::string&)>& repro) {
    run.set_bound(bound);
    const std::string url = options.device_url.empty() ? device_name : options.device_url;
    run.set_reproduce(check_command(document.path, url, bound));
    repro = options.reproduce ? options.reproduce
                              : [line = "Reproduce: " + run.reproduce() + "\n"](const std::string&) { return line; };
    if (!options.suite.empty()) suite = options.suite;
}

// ---- typestates ---------------------------------------------------------------------------------

class TypestateTestRun final : public SpecTestRun {
public:
    TypestateTestRun(const Document& document, Subject& subject, const TestRunOptions& options)
        : path_(document.path), spec_(detail::spec_for_diff(document)) {
        if (!subject.device.typestate)
            throw std::invalid_argument(document.path + " is a typestate, but " + subject.url +
                                        " is a register-automaton (data) device");
        plan_ = plan_transition_tests(spec_);
        Device& given = *subject.device.typestate;
        partitions_ = plan_partitions(given, document.spec ? &*document.spec : nullptr);
        device_ = &partitions_.device(given);
        suite_ = suite_identifier(spec_);
        set_up(*this, document, options,
               options.bound.value_or(document.spec ? document.spec->bounds.distinguisher : spec_.bounds.distinguisher),
               device_->name(), suite_, reproduce_line_);
    }
    void set_bound(std::size_t b) { bound_ = b; }
    void set_reproduce(std::string r) { reproduce_ = std::move(r); }

    TestResult run(std::size_t index) override;

    [[nodiscard]] std::vector<std::string> assumptions() const override {
        // What every pass relies on, as the device describes itself now (its largest observed delay
        // grows from test to test), then what single tests added (transitions their purpose left out).
        std::vector<std::string> out = latest_;
        for (const auto& a : assumptions_)
            if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
        if (!untested_.empty()) {  // one line for the run, not one per test that met some of them
            std::string all;
            for (const auto& [state, input] : untested_) all += (all.empty() ? "" : "; ") + ("state " + state + ", input " + input);
            out.push_back(std::to_string(untested_.size()) + std::string(kRefusedNotTested) + all);
        }
        std::string unknown;  // as check_spec names them (cut_at_unknown)
        std::size_t count = 0;
        for (const auto& t : plan_)
            if (!t.unknown.empty()) {
                unknown += (unknown.empty() ? "" : "; ") + ("state " + t.state + ", input " + t.input + ": unknown (" +
                                                            t.unknown + ")");
                ++count;
            }
        if (count != 0)
            out.push_back(std::to_string(count) + " unknown transition(s) of the spec were not tested (three-valued spec): " +
                          unknown);
        if (partitions_.partitioned)
            if (std::string sampled = values_sampled(partitions_.partitioned->declarations_run()); !sampled.empty())
                out.push_back(std::move(sampled));
        return out;
    }
    [[nodiscard]] TestRunTiming timing() const override {
        const DeviceDescription d = device_->describe();
        TestRunTiming t{d.tmax_ms, spec_.timing.tmax_ms, d.max_delay_ms, d.timing_note};
        if (t.tmax_ms && t.spec_tmax_ms && *t.tmax_ms != *t.spec_tmax_ms)
            t.note += std::string(t.note.empty() ? "" : "; ") + "the tests ran with tmax " + number(*t.tmax_ms) +
                      " ms, the spec declares " + number(*t.spec_tmax_ms) + " ms";
        return t;
    }
    [[nodiscard]] QueryStats stats() const override { return conformance_ ? conformance_->stack().stats() : QueryStats{}; }
    [[nodiscard]] std::string device_name() const override { return device_->name(); }
    [[nodiscard]] Device* device() noexcept override { return device_; }
    [[nodiscard]] Conformance* conformance() noexcept override { return conformance_ ? &*conformance_ : nullptr; }

private:
    static std::string number(double ms) {
        std::ostringstream o;
        o << ms;
        return o.str();
    }
    void prepare();
    TestResult run_words(const TransitionTest& t);
    /// Records a pass's assumptions: those of every verdict (Conformance::run's, with the device's
    /// description of now) in latest_, the rest (this test's own) in assumptions_.
    void note_pass(const std::vector<std::string>& assumptions);
    std::string failure_message(const TransitionTest& t, const TestSuite& run, const CheckReport& report) const;

    std::string path_;
    spec::Spec spec_;
    PartitionPlan partitions_;  // declared before device_: it may own the device the tests run on
    Device* device_ = nullptr;
    std::string suite_;
    std::function<std::string(const std::string&)> reproduce_line_;
    bool prepared_ = false;
    std::string prepare_error_;
    std::string inputs_mismatch_;
    std::optional<Conformance> conformance_;
    std::optional<TransitionWords> words_;
    std::vector<std::string> latest_;  // the assumptions of every verdict, as of the latest pass
    std::set<std::pair<std::string, std::string>> untested_;  // refused transitions the purpose left out
};

void TypestateTestRun::note_pass(const std::vector<std::string>& assumptions) {
    std::vector<std::string> every = detail::assumptions_of(SuiteMethod::Algorithm2, bound_,
                                                            conformance_->stack().oracle().traits(),
                                                            device_->describe(), CheckOptions{}.quiet_check_factor);
    if (device_->deterministic()) every.emplace_back(detail::kDeclaredDeterministic);
    std::vector<std::string> own;
    for (const auto& a : assumptions)
        if (std::find(every.begin(), every.end(), a) == every.end() && a.find(kRefusedNotTested) == std::string::npos)
            own.push_back(a);  // the refused transitions left out are merged into one line (untested_)
    latest_ = std::move(every);
    note_assumptions(own);
}

void TypestateTestRun::prepare() {
    if (prepared_) return;
    prepared_ = true;
    MealyMachine model = test_model(spec_);
    std::vector<std::string> spec_inputs = model.inputs().names();
    std::vector<std::string> device_inputs = device_->inputs().names();
    std::vector<std::string> a = spec_inputs, b = device_inputs;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) {
        inputs_mismatch_ = "the device's inputs are not the spec's: the device adds " +
                           set_difference_text(device_inputs, spec_inputs) + "; it lacks " +
                           set_difference_text(spec_inputs, device_inputs);
        return;
    }
    try {
        conformance_.emplace(model, std::vector<Device*>{device_});
        words_ = plan_transition_words(spec_, *conformance_, bound_);
    } catch (const std::exception& e) {
        prepare_error_ = e.what();
    }
}

TestResult TypestateTestRun::run(std::size_t index) {
    const TransitionTest& t = plan_.at(index);
    if (auto untested = unknown_result(path_, t)) return std::move(*untested);
    prepare();
    if (!prepare_error_.empty())
        return failed(t, TestFailure::Plan, "typestar: cannot generate the suite of " + path_ + ": " + prepare_error_);
    if (!inputs_mismatch_.empty())
        return failed(t, TestFailure::Inputs, "typestar: " + suite_ + "." + t.name + ": " + inputs_mismatch_ +
                                                  " (device " + device_->name() + ").\n");
    return run_words(t);
}

TestResult TypestateTestRun::run_words(const TransitionTest& t) {
    const MealyMachine& model = conformance_->expected();
    const TestSuite run = words_->of(model, t);
    const std::string name = suite_ + "." + t.name;
    const std::string d = device_->name();
    auto failure = [&](TestFailure why, std::string text) {
        TestResult r = failed(t, why, std::move(text));
        r.words = run.cases.size();
        r.words_text = join_words(run.cases, model.inputs());
        return r;
    };
    CheckReport report;
    try {
        report = conformance_->run(run);
    } catch (const PartitionError& e) {
        return failure(TestFailure::Partition, "typestar: " + name + ": values of one partition of the spec answer "
                                                   "differently on the device " + d +
                                                   " (the partition does not describe it):\n  " + e.what());
    } catch (const NondeterminismError& e) {
        std::string first, second, word;
        for (const auto& o : e.first_outputs()) first += o + " ";
        for (const auto& o : e.second_outputs()) second += o + " ";
        for (const auto& i : e.inputs()) word += i + " ";
        // A device's own account of it (variants of a callin that differ, and what to do) beside the answers.
        const std::string said = e.what();
        const std::string own = said.rfind("non-determinism: ", 0) == 0 ? "" : "\n  the device says: " + said;
        return failure(TestFailure::Nondeterminism, "typestar: the device " + d +
                                                        " answered one word in two ways (not deterministic):\n  word:   " +
                                                        word + "\n  first:  " + first + "\n  second: " + second + own);
    } catch (const TimingError& e) {  // the timing broke on every run: not a protocol difference
        TestResult r = failure(TestFailure::Timing, "typestar: " + name + ": a timing failure of the device " + d +
                                                        ", not a protocol difference (no spec is proposed):\n  " +
                                                        e.what());
        r.timing = timing_failure_of(e);
        return r;
    } catch (const std::exception& e) {
        return failure(TestFailure::Device, "typestar: device " + d + " failed: " + e.what());
    }
    TestResult r;
    r.test = t;
    r.transition = t.state + " " + t.input;
    r.words = run.cases.size();
    r.words_text = join_words(run.cases, model.inputs());
    if (!report.counterexample &&
        std::find(report.not_tested.begin(), report.not_tested.end(), TransitionRef{t.state, t.input}) !=
            report.not_tested.end()) {
        // This test's own transition could not run: skipped with the reason, never passed.
        r.status = TestStatus::Skipped;
        r.reason = "the device's learning purpose does not explore it (unknown:purpose)";
        r.message = "typestar: " + path_ + ":" + std::to_string(t.line) + ": state " + t.state + ", input " + t.input +
                    ": the spec says err, but the device's learning purpose does not explore it (it answered "
                    "unknown:purpose): not tested; re-learn the spec to record it as unknown";
        return r;
    }
    if (!report.counterexample) {  // bounded evidence under the assumptions it names
        r.assumptions = report.assumptions;
        for (const auto& nt : report.not_tested) untested_.emplace(nt.state, nt.input);
        note_pass(report.assumptions);
        r.message = pass_message(suite_, t, run.cases.size(), "word", report.assumptions);
        return r;
    }
    r.status = TestStatus::Failed;
    r.failure = TestFailure::Counterexample;
    r.counterexample = report.counterexample;
    r.trace = report.trace;
    r.message = failure_message(t, run, report);
    return r;
}

std::string TypestateTestRun::failure_message(const TransitionTest& t, const TestSuite& run,
                                              const CheckReport& report) const {
    const Counterexample& cex = *report.counterexample;
    std::ostringstream m;
    m << "typestar: " << suite_ << "." << t.name << ": the device does not conform to the spec.\n"
      << "  spec:   " << path_ << ":" << t.line << " (state " << t.state << ", input " << t.input << ")\n"
      << "  device: " << device_->name() << "\n"
      << "  " << detail::where_found(cex, run.cases.size(), "word", "this test's")
      << to_string(cex.inputs, device_->inputs()) << "  (" << cex.purpose << ")\n\n"
      << format_trace(report.trace, 4) << "\n";
    if (const std::string note = unpredicted_answer_note(report); !note.empty()) m << "  " << note << "\n\n";
    m << "Passing is " << evidence_note(report).substr(std::string("This is ").size()) << reproduce_line_(t.name)
      << "\n";
    return m.str();
}

// ---- register automata --------------------------------------------------------------------------

class RegisterTestRun final : public SpecTestRun {
public:
    RegisterTestRun(const Document& document, Subject& subject, const TestRunOptions& options)
        : path_(document.path), automaton_(document.automaton->automaton), extra_(document.assumptions) {
        if (!subject.device.data)
            throw std::invalid_argument(document.path + " is a register automaton, but " + subject.url +
                                        " is not a register-automaton device");
        try {
            adapted_ = adapt_to_signature(automaton_, *subject.device.data);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(document.path + " and " + subject.url + ": " + e.what());
        }
        for (auto& a : extra_) a += " (the spec)";
        for (const auto& a : subject.device.data->assumptions()) extra_.push_back(a + " (the device)");
        oracle_.emplace(*adapted_, automaton_);
        plan_ = plan_register_tests(automaton_);
        suite_ = suite_identifier(automaton_);
        set_up(*this, document, options, options.bound.value_or(document.automaton->distinguisher), adapted_->name(),
               suite_, reproduce_line_);
    }
    void set_bound(std::size_t b) { bound_ = b; }
    void set_reproduce(std::string r) { reproduce_ = std::move(r); }

    TestResult run(std::size_t index) override;

    [[nodiscard]] std::vector<std::string> assumptions() const override {
        std::vector<std::string> out = assumptions_;
        if (!out.empty()) out.insert(out.end(), extra_.begin(), extra_.end());
        return out;
    }
    [[nodiscard]] TestRunTiming timing() const override { return {}; }  // data devices answer without callbacks
    [[nodiscard]] QueryStats stats() const override { return oracle_->stats(); }
    [[nodiscard]] std::string device_name() const override { return adapted_->name(); }
    [[nodiscard]] DataDevice* data_device() noexcept override { return adapted_.get(); }

private:
    std::string path_;
    ra::RegisterAutomaton automaton_;  // the oracle keeps a pointer to it
    std::vector<std::string> extra_;   // what reading the spec and the device assumed
    std::unique_ptr<DataDevice> adapted_;
    std::optional<ra::DataOracle> oracle_;
    std::string suite_;
    std::function<std::string(const std::string&)> reproduce_line_;
};

TestResult RegisterTestRun::run(std::size_t index) {
    const TransitionTest& test = plan_.at(index);
    const ra::RegisterAutomaton& a = automaton_;
    const auto& loc = a.locations[test.location];
    const auto& t = loc.transitions[test.transition];
    const std::string what = "location " + loc.name + ", " + ra::input_text(a, t) + " | " + ra::guard_text(a, loc, t) +
                             " / " + ra::output_text(a, loc, t) + " -> " + a.locations[t.target].name;
    CheckOptions options;
    options.bound = bound_;
    CheckReport report;
    ra::RaCounterexample cex;
    auto fail = [&](TestFailure why, std::string message) {
        TestResult r = failed(test, why, std::move(message));
        r.transition = what;
        return r;
    };
    try {
        report = run_register_test(a, *oracle_, test, options, &cex);
    } catch (const NondeterminismError& e) {
        return fail(TestFailure::Nondeterminism, "typestar: the device " + adapted_->name() +
                                                             " answered one data word in two ways (not deterministic): " +
                                                             e.what());
    } catch (const TimingError& e) {
        TestResult r = fail(TestFailure::Timing, "typestar: device " + adapted_->name() + " failed: " + e.what());
        r.timing = timing_failure_of(e);
        return r;
    } catch (const std::exception& e) {
        return fail(TestFailure::Device, "typestar: device " + adapted_->name() + " failed: " + e.what());
    }
    TestResult r;
    r.test = test;
    r.transition = what;
    r.words = report.tests;
    if (report.verdict == Verdict::Inconclusive) {
        if (report.tests == 0) {
            r.status = TestStatus::NotTested;
            r.reason = report.reason;
            r.message = "typestar: " + path_ + ":" + std::to_string(test.line) + ": " + what + ": " + report.reason;
            return r;
        }
        r.status = TestStatus::Failed;
        r.failure = TestFailure::Plan;
        r.message = "typestar: " + report.reason;
        return r;
    }
    if (report.verdict == Verdict::Pass) {
        r.assumptions = report.assumptions;
        note_assumptions(report.assumptions);
        r.message = pass_message(suite_, test, report.tests, "data word", report.assumptions);
        return r;
    }
    std::ostringstream m;
    m << "typestar: " << suite_ << "." << test.name << ": the device does not conform to the register automaton.\n"
      << "  spec:   " << path_ << ":" << test.line << " (" << what << ")\n"
      << "  device: " << adapted_->name() << "\n"
      << "  data trace (" << report.trace.size() << " steps; " << report.reason << "):\n"
      << format_trace(report.trace, 4) << "\n"
      << "Passing is bounded evidence: the words of this transition from every explored (location, register "
         "order type) state, one per data class, followed by up to B="
      << report.bound << " steps.\n"
      << reproduce_line_(test.name) << "\n";
    r.status = TestStatus::Failed;
    r.failure = TestFailure::Counterexample;
    r.data_counterexample = cex;
    r.trace = report.trace;
    r.message = m.str();
    return r;
}

}  // namespace

std::unique_ptr<SpecTestRun> detail::typestate_test_run(const Document& document, Subject& subject,
                                                        const TestRunOptions& options) {
    return std::make_unique<TypestateTestRun>(document, subject, options);
}

std::unique_ptr<SpecTestRun> detail::register_test_run(const Document& document, Subject& subject,
                                                       const TestRunOptions& options) {
    return std::make_unique<RegisterTestRun>(document, subject, options);
}

}  // namespace typestar
