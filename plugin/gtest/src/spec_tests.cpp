#include "spec_tests.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <utility>

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/gtest/report.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/kind.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/refinement.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/log/logging.hpp"
#if TYPESTAR_HAVE_RENDER
#include "typestar/render/pictures.hpp"
#endif

namespace typestar::detail {

std::unique_ptr<Device> device_from_url(const std::string& url) { return make_device(url); }

std::filesystem::path resolve_spec_path(const std::filesystem::path& spec, const std::string& file) {
    if (spec.is_absolute()) return spec.lexically_normal();
    const std::filesystem::path source(file);
    if (source.is_absolute()) return (source.parent_path() / spec).lexically_normal();
    return spec.lexically_normal();
}

namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string unique_suite(std::string base, std::set<std::string>& used) {
    std::string name = base;
    for (int n = 2; used.count(name) != 0; ++n) name = base + "_" + std::to_string(n);
    used.insert(name);
    return name;
}

std::string indent(const std::string& text, const std::string& prefix) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out += line.empty() ? "\n" : prefix + line + "\n";
    return out;
}

}  // namespace

std::string SpecTests::current_test() {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    return info == nullptr ? std::string() : std::string(info->test_suite_name()) + "." + info->name();
}

SpecTests::SpecTests(Registration registration, std::string binary)
    : reg_(std::move(registration)), binary_(std::move(binary)) {
    path_ = resolve_spec_path(reg_.spec, reg_.file);
    std::error_code ec;
    const bool exists = std::filesystem::exists(path_, ec);
    // The kind: registered with a data device factory; without a factory (the device comes from
    // --typestar_device), what the document is (the session's document_format).
    ra_kind_ = reg_.register_automaton ||
               (!reg_.factory && exists && (document_format(path_) == DocumentFormat::RegisterAutomatonYaml ||
                                            document_format(path_) == DocumentFormat::RalibXml));
    if (!exists) return;  // learned on first run
    file_text_ = read_file(path_);
    try {
        // The session reads the document and its kind; the plan is the kind's.
        Document document = load_document(path_);
        if (!document.spec && !document.automaton)
            throw std::invalid_argument("a Mealy machine is not a spec: turn it into one with `typestar import " +
                                        path_.string() + "`");
        if (ra_kind_ != (document.kind() == DocumentKind::RegisterAutomaton))
            throw std::invalid_argument(ra_kind_ ? "registered with a data device factory, but not a register automaton"
                                                 : "a register automaton, registered with a typestate device factory");
        tests_ = kind_of(document).test_plan(document);
        spec_ = document.spec;
        if (document.automaton) ra_spec_ = *document.automaton;
        document_ = std::move(document);
    } catch (const std::exception&) {
        spec_.reset();
        ra_spec_.reset();
        tests_.clear();
        record_load_error();
    }
}

void SpecTests::record_load_error() {
    try {
        throw;
    } catch (const SpecError& e) {
        for (const auto& d : e.diagnostics()) load_error_ += d.str() + "\n";
        if (!e.diagnostics().empty()) load_line_ = e.diagnostics().front().line;
    } catch (const std::exception& e) {
        load_error_ = path_.string() + ": " + e.what() + "\n";
    }
}

void SpecTests::register_tests(std::set<std::string>& used_suites) {
    const std::string fallback = typestar::test_identifier(fallback_name());
    auto add = [&](const std::string& test, const std::string& file, int line, std::function<void()> body) {
        testing::RegisterTest(suite_name_.c_str(), test.c_str(), nullptr, nullptr, file.c_str(), line,
                              [body = std::move(body)]() -> testing::Test* { return new BoundTest(body); });
    };
    if (spec_ || ra_spec_) {
        suite_name_ = unique_suite(spec_ ? typestar::suite_identifier(*spec_) : typestar::suite_identifier(ra_spec_->automaton),
                                   used_suites);
        for (std::size_t i = 0; i < tests_.size(); ++i)
            add(tests_[i].name, path_.string(), tests_[i].line, [this, i] { run_transition(i); });
    } else if (!load_error_.empty()) {
        suite_name_ = unique_suite(fallback, used_suites);
        add("load", path_.string(), load_line_, [this] { run_load(); });
    } else {
        suite_name_ = unique_suite(fallback, used_suites);
        add("learn", reg_.file, reg_.line, [this] { run_learn(); });
    }
}

std::string SpecTests::fallback_name() const {
    return spec::sanitize_name(reg_.options.name.empty() ? path_.stem().string() : reg_.options.name, "spec");
}

bool SpecTests::answers_to(const std::string& name) const {
    return name == suite_name_ || name == path_.stem().string() || (spec_ && name == spec_->typestate.name) ||
           (ra_spec_ && name == ra_spec_->automaton.name);
}

namespace {
/// --typestar_tmax / TYPESTAR_TMAX (and tmin) over the device's own, whichever made it.
void apply_timing_settings(Device& d) {
    const Settings& s = settings();
    TimingOverride timing;
    if (s.tmax_ms) timing.tmax = std::chrono::milliseconds(static_cast<long long>(*s.tmax_ms));
    if (s.tmin_ms) timing.tmin = std::chrono::milliseconds(static_cast<long long>(*s.tmin_ms));
    timing.origin = s.timing_origin;
    if (!timing.empty() && !d.override_timing(timing))
        throw std::invalid_argument(d.name() + ": " + timing.origin + ": the device has no timing to set");
}
}  // namespace

std::unique_ptr<Device> SpecTests::make_device() const {
    std::unique_ptr<Device> d = !settings().device.empty() ? device_from_url(settings().device)
                                                           : made_by(reg_.factory, "device");
    apply_timing_settings(*d);
    return d;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

std::size_t SpecTests::bound() const {
    if (settings().bound) return *settings().bound;
    if (spec_) return spec_->bounds.distinguisher;
    if (ra_spec_) return ra_spec_->distinguisher;
    return spec::Bounds{}.distinguisher;
}

void SpecTests::record_common() const {
    testing::Test::RecordProperty("typestar_spec", path_.string());
    if (spec_) {
        testing::Test::RecordProperty("typestar_spec_hash", gtest::content_hash(file_text_));
        testing::Test::RecordProperty("typestar_states", std::to_string(spec_->typestate.states.size()));
    } else if (ra_spec_) {
        testing::Test::RecordProperty("typestar_spec_hash", gtest::content_hash(file_text_));
        testing::Test::RecordProperty("typestar_states", std::to_string(ra_spec_->automaton.locations.size()));
    }
    testing::Test::RecordProperty("typestar_bound", std::to_string(bound()));
}

bool SpecTests::settings_ok() const {
    if (settings().errors.empty()) return true;
    std::string text;
    for (const auto& e : settings().errors) text += "  " + e + "\n";
    ADD_FAILURE() << "typestar: bad settings, nothing was run:\n" << text << settings_help();
    return false;
}

bool SpecTests::open() {
    if (!device_tried_) {
        device_tried_ = true;
        subject_.url = settings().device.empty() ? reg_.options.device_url : settings().device;
        try {
            if (ra_kind_) {
                if (!settings().device.empty())
                    subject_.device.data = typestar::make_data_device(settings().device);
                else if (reg_.data_factory && !(subject_.device.data = reg_.data_factory()))
                    broken_ = "the device factory returned no device";
            } else {
                if (!settings().device.empty())
                    subject_.device.typestate = device_from_url(settings().device);
                else if (reg_.factory && !(subject_.device.typestate = reg_.factory()))
                    broken_ = "the device factory returned no device";
                if (subject_.device.typestate) apply_timing_settings(*subject_.device.typestate);
            }
            if (!subject_.device.typestate && !subject_.device.data && broken_.empty())
                unavailable_ = std::string("no device: register the spec with a ") + (ra_kind_ ? "data " : "") +
                               "device factory, or pass --typestar_device=URL (or set TYPESTAR_DEVICE)";
        } catch (const std::exception&) {
            record_device_error(unavailable_, broken_);
        }
    }
    if (subject_.device.typestate || subject_.device.data) return true;
    report_no_device(path_, broken_, unavailable_, skip_reason_);
    return false;
}

Device* SpecTests::device() { return open() ? subject_.device.typestate.get() : nullptr; }

DataDevice* SpecTests::data_device() { return open() ? subject_.device.data.get() : nullptr; }

SpecTestRun* SpecTests::test_run() {
    if (run_) return run_.get();
    if (!document_ || !open()) return nullptr;
    if (broken_.empty()) {
        try {
            // One run per spec: the partition plan, the oracle stack and its cache are the session's.
            TestRunOptions options;
            options.bound = bound();
            options.suite = suite_name_;
            options.device_url = subject_.url;
            options.reproduce = [this](const std::string& test) { return reproduce(test); };
            run_ = kind_of(*document_).test_run(*document_, subject_, options);
        } catch (const std::exception&) {  // e.g. a data device of another signature
            record_device_error(unavailable_, broken_);
            if (broken_.empty()) std::swap(broken_, unavailable_);
        }
    }
    if (run_) return run_.get();
    report_no_device(path_, broken_, unavailable_, skip_reason_);
    return nullptr;
}

void record_device_error(std::string& unavailable, std::string& broken) {
    try {
        throw;
    } catch (const DeviceError& e) {
        unavailable = e.what();
    } catch (const SpecError& e) {
        broken = "the device's model does not load:";
        for (const auto& d : e.diagnostics()) broken += "\n  " + d.str();
    } catch (const std::exception& e) {
        broken = e.what();
    }
}

void report_no_device(const std::filesystem::path& path, const std::string& broken, const std::string& unavailable,
                      std::string& skip_reason) {
    if (!broken.empty()) {
        ADD_FAILURE() << "typestar: cannot make the device for " << path.string() << ": " << broken;
        return;
    }
    const Settings& s = settings();
    if (s.ci || s.require_device) {
        ADD_FAILURE() << "typestar: cannot reach the device for " << path.string() << ": " << unavailable
                      << "\n(" << (s.ci ? "CI is set" : "--typestar_require_device / TYPESTAR_REQUIRE_DEVICE")
                      << ": an unreachable device fails instead of skipping)";
        return;
    }
    skip_reason = "typestar: cannot reach the device for " + path.string() + ": " + unavailable +
                  " (skipped; on CI or with --typestar_require_device this fails)";
}

std::string SpecTests::accept_command() const {
    // A proposal over other inputs is for another alphabet: accept refuses it unless told.
    return "typestar accept " + gtest::shell_quote(path_.string()) + (inputs_differ_ ? " --force" : "") +
           "\n";
}

const SpecTests::Proposal& SpecTests::propose(const Counterexample* counterexample) {
    if (proposal_) return *proposal_;
    // The workflow is the session's (propose_spec: key, lock, reuse, learn, write, diff); the
    // plugin only says where the result went.
    const Settings& s = settings();
    ProposalRequest request;
    request.spec = path_;
    request.stored = spec_ ? &*spec_ : nullptr;
    request.stored_bytes = file_text_;
    // The device as the tests ran it (with the spec's partitions) and their oracle stack, whose
    // answers the proposal reuses; learning a missing spec: the device as made.
    Device* tested = run_ ? run_->device() : subject_.device.typestate.get();
    request.device = tested;
    request.conformance = spec_ && !inputs_differ_ && run_ ? run_->conformance() : nullptr;
    request.counterexample = counterexample;
    request.name = reg_.options.name;
    request.bound = bound();
    request.learner = parse_learner(s.learner).value_or(LearnerKind::LSharp);
    request.mode = s.ci ? ProposalMode::Print : s.update ? ProposalMode::Update : ProposalMode::Write;
    request.share_key = proposal_device_key(s.device, *tested);
    request.requester = current_test();
#if TYPESTAR_HAVE_RENDER
    request.pictures = render::write_proposal_pictures;
#endif
    proposal_.emplace();
    Proposal& p = *proposal_;
    p.result = propose_spec(request);
    if (p.result.spec) describe_proposal(p);
    return p;
}

void SpecTests::describe_proposal(Proposal& p) const {
    const Settings& s = settings();
    const SpecProposal& r = p.result;
    if (r.shared()) {
        if (s.ci) {
            p.pointer = "CI is set, so nothing was written; the proposed spec (learned once for this spec and change, "
                        "by " + r.shared_by + ") is printed in full in that test's output.\n";
        } else if (s.update) {
            p.pointer = "Update mode: " + path_.string() + " was rewritten by " + r.shared_by + ".\n";
        } else {
            std::string pictures;
            for (const auto& f : r.shared_pictures) pictures += (pictures.empty() ? "" : ", ") + f.string();
            const auto proposed_yaml = proposed_path(path_, "yaml");
            p.pointer = "Proposed spec: " + proposed_yaml.string() + " (learned once for this spec and change, by " +
                        r.shared_by + "; its full diff is in that test's output, or run: typestar diff " +
                        gtest::shell_quote(path_.string()) + " " + gtest::shell_quote(proposed_yaml.string()) + ")\n" +
                        (pictures.empty() ? "" : "  (pictures: " + pictures + ")\n") + "Accept it: " + accept_command();
        }
        p.report = p.pointer;
        return;
    }
    std::ostringstream o;
    if (s.ci) {
        o << "CI is set, so nothing was written" << (s.update ? " (TYPESTAR_UPDATE is ignored on CI)" : "")
          << ". The proposed spec:\n"
          << indent(r.yaml, "    ");
    } else if (r.written.wrote_spec) {
        o << "Update mode (TYPESTAR_UPDATE / --typestar_update): wrote " << path_.string() << ".\n";
    } else {
        o << "Proposed spec: " << r.written.file.string() << "\n  (pictures: " << r.written.pictures
          << ")\nReview it, then accept it (keeps the stored state names; new states get --name NEW=Name, "
             "or --auto):\n    "
          << accept_command() << "or rerun with TYPESTAR_UPDATE=1 (or --typestar_update), which writes "
          << path_.filename().string() << " itself.\n";
    }
    if (r.diff)
        o << "Stored -> proposed (typestar diff):\n" << indent(spec::format_diff(*r.diff), "    ");
    else if (spec_)
        o << "(no diff: " << r.diff_error << ")\n";
    p.report = o.str();
    p.pointer = s.ci        ? std::string("The proposed spec and its diff are printed in full above (first failing test).\n")
                : s.update ? "Update mode: wrote " + path_.string() + ".\n"
                           : "Proposed spec: " + proposed_path(path_, "yaml").string() +
                                 " (its diff and pictures are in the first failing test's message above)\n";
}

std::string SpecTests::reproduce(const std::string& test) const {
    std::string url = settings().device;
    if (url.empty()) url = reg_.options.device_url;
    const std::string rerun = gtest::rerun_command(binary_, suite_name_ + "." + test);
    // A factory device that another process can reach is named by its URL (an agent's http://
    // URL, an exec: binary: DeviceDescription::name); any other one this binary serves
    // (--typestar_serve).
    if (url.empty() && (subject_.device.typestate || subject_.device.data)) {
        const std::string name = subject_.device.typestate ? subject_.device.typestate->describe().name
                                                           : subject_.device.data->describe().name;
        if (name.rfind("http://", 0) == 0 || name.rfind("exec:", 0) == 0) url = name;
    }
    if (url.empty()) url = "exec:" + binary_ + "#" + suite_name_;
    return "Reproduce: " + gtest::check_command(path_, url, bound()) + "\n       or: " + rerun + "\n";
}

// ---------------------------------------------------------------------------------------------
// Test bodies

void SpecTests::run_load() const {
    testing::Test::RecordProperty("typestar_spec", path_.string());
    ADD_FAILURE_AT(path_.string().c_str(), load_line_)
        << "typestar: the spec " << path_.string() << " does not load; no conformance test ran:\n"
        << load_error_;
}

void SpecTests::run_learn() {
    record_common();
    if (!settings_ok()) return;
    const Settings& s = settings();
    const auto proposed_yaml = gtest::proposed_path(path_, "yaml");
    if (s.ci) {
        ADD_FAILURE_AT(reg_.file.c_str(), reg_.line)
            << "typestar: the spec " << path_.string() << " does not exist.\n"
            << "CI is set, so typestar neither learns nor writes it here. Learn it locally (run this test "
               "without CI set: it writes "
            << proposed_yaml.filename().string()
            << " for review, or the spec itself with TYPESTAR_UPDATE=1), then commit " << path_.filename().string()
            << ".";
        return;
    }
    if (ra_kind_) return run_register_learn();
    Device* d = device();
    if (d == nullptr) {
        if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
        return;
    }
    const Proposal& p = propose();
    if (!p.result.spec) {
        ADD_FAILURE_AT(reg_.file.c_str(), reg_.line) << "typestar: the spec " << path_.string()
                                                     << " does not exist, and learning it from " << d->name()
                                                     << " failed: " << p.result.error;
        return;
    }
    testing::Test::RecordProperty("typestar_learned_states", std::to_string(p.result.spec->typestate.states.size()));
    if (p.result.written.wrote_spec) {
        std::cout << "typestar: learned " << path_.string() << " from " << d->name() << " with " << p.result.summary
                  << "Review and commit it.\n";
        return;
    }
    ADD_FAILURE_AT(reg_.file.c_str(), reg_.line)
        << "typestar: the spec " << path_.string() << " does not exist, so it was learned from " << d->name()
        << " with " << p.result.summary << p.report;
}

void SpecTests::run_transition(std::size_t index) {
    const typestar::TransitionTest& t = tests_[index];
    record_common();
    if (!settings_ok()) return;
    std::optional<TestResult> untested = unknown_result(path_.string(), t);  // known without a device
    if (!untested) {
        SpecTestRun* run = test_run();
        if (run == nullptr) {
            if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
            return;
        }
    }
    const TestResult r = untested ? std::move(*untested) : run_->run(index);
    testing::Test::RecordProperty("typestar_transition", r.transition);
    testing::Test::RecordProperty("typestar_words", r.words_text.empty() ? std::to_string(r.words) : r.words_text);
    switch (r.status) {
        case TestStatus::NotTested:  // unknown in the spec, or no data class takes it: never passed
        case TestStatus::Skipped: GTEST_SKIP() << r.message;
        case TestStatus::Passed: {  // bounded evidence, under the assumptions it names
            std::string relies;
            for (const auto& a : r.assumptions) relies += (relies.empty() ? "" : "; ") + a;
            testing::Test::RecordProperty("typestar_assumptions", relies);
            std::cout << r.message;
            return;
        }
        case TestStatus::Failed: break;
    }
    if (r.failure == TestFailure::Counterexample || r.failure == TestFailure::Inputs) {
        if (ra_kind_) return report_register_difference(r);
        return report_difference(r);
    }
    ADD_FAILURE_AT(path_.string().c_str(), t.line) << r.message;  // timing, device, non-determinism: no proposal
}

void SpecTests::report_difference(const TestResult& r) {
    const typestar::TransitionTest& t = r.test;
    const std::string at = path_.string();
    Device* d = run_->device();
    if (r.failure == TestFailure::Inputs) {
        inputs_differ_ = true;
        const Proposal& p = propose();
        ADD_FAILURE_AT(at.c_str(), t.line)
            << r.message
            << (p.result.spec ? "Re-learned from the device with " + p.result.summary + p.report
                              : "Re-learning failed: " + p.result.error + "\n");
        return;
    }
    const Counterexample& cex = *r.counterexample;
    std::ostringstream m;
    m << r.message;
    const Proposal& p = propose(&cex);
    if (!p.result.spec) {
        m << "Re-learning failed: " << p.result.error << "\n";
        ADD_FAILURE_AT(at.c_str(), t.line) << m.str();
        return;
    }
    if (p.result.written.wrote_spec) {
        // Update mode: the test passes when the written spec explains the device's answer.
        if (proposal_explains(*p.result.spec, cex, *d)) {
            if (!update_announced_) {
                update_announced_ = true;
                std::cout << "typestar: " << p.report;
            }
            std::cout << "typestar: " << suite_name_ << "." << t.name << ": the device's answer on "
                      << to_string(cex.inputs, d->inputs()) << " is in the updated spec.\n";
            return;
        }
        m << "Re-learned and wrote the spec, but it does not explain this answer (a non-deterministic device?).\n";
    }
    if (p.result.shared())
        m << "Re-learned by another test process of this run: " << p.result.spec->typestate.states.size() << " states.\n"
          << p.result.summary;
    else
        m << "Re-learned with " << p.result.summary;
    if (p.result.diff) m << change_summary(*p.result.diff, t.state, t.input);
    // The full proposal and diff once per spec: in the process that learned it, in its first failure.
    if (!p.result.shared() && !report_printed_) {
        report_printed_ = true;
        m << p.report;
    } else {
        m << p.pointer;
    }
    ADD_FAILURE_AT(at.c_str(), t.line) << m.str();
}

}  // namespace typestar::detail
