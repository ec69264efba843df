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
    // The kind is the session's: the document's, else (a spec to learn) the registration's device's.
    kind_ = &spec_kind_of(path_, reg_.factories.kind());
    if (!exists) return;  // learned on first run
    file_text_ = read_file(path_);
    try {
        // The session reads the document and its kind; the plan is the kind's.
        Document document = load_document(path_);
        if (document.format == DocumentFormat::MealyDot)
            throw std::invalid_argument("a Mealy machine is not a spec: turn it into one with `typestar import " +
                                        path_.string() + "`");
        kind_ = &kind_of(document);
        const DeviceKind registered = reg_.factories.kind();
        if (registered != DeviceKind::Any && registered != kind_->device_kind())
            throw std::invalid_argument("a " + std::string(kind_->noun()) + ", registered with a " +
                                        device_noun(registered) + " factory");
        tests_ = kind_->test_plan(document);
        document_ = std::move(document);
    } catch (const std::exception&) {
        document_.reset();
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
    if (document_) {
        suite_name_ = unique_suite(typestar::test_identifier(document_->name), used_suites);
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
    return name == suite_name_ || name == path_.stem().string() || (document_ && name == document_->name);
}

namespace {
/// The device options of the settings: --typestar_tmax / TYPESTAR_TMAX (and tmin) over the device's
/// own, whichever made it.
DeviceOptions device_options() {
    const Settings& s = settings();
    DeviceOptions options;
    if (s.tmax_ms) options.timing.tmax = std::chrono::milliseconds(static_cast<long long>(*s.tmax_ms));
    if (s.tmin_ms) options.timing.tmin = std::chrono::milliseconds(static_cast<long long>(*s.tmin_ms));
    options.timing.origin = s.timing_origin;
    return options;
}
}  // namespace

OpenedDevice SpecTests::make_device() const {
    OpenedDevice d = open_or_make_device(settings().device, kind_->device_kind(), reg_.factories, device_options());
    if (!d)
        throw std::invalid_argument("no device: " + path_.string() + " is registered without a " +
                                    device_noun(kind_->device_kind()) + " factory (and no --typestar_device)");
    return d;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

std::size_t SpecTests::bound() const {
    if (settings().bound) return *settings().bound;
    if (document_) return document_bound(*document_, SuiteMethod::Algorithm2);
    return spec::Bounds{}.distinguisher;
}

void SpecTests::record_common() const {
    testing::Test::RecordProperty("typestar_spec", path_.string());
    if (document_) {
        testing::Test::RecordProperty("typestar_spec_hash", gtest::content_hash(file_text_));
        testing::Test::RecordProperty("typestar_states", std::to_string(kind_->size(*document_)));
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
            subject_.device =
                open_or_make_device(settings().device, kind_->device_kind(), reg_.factories, device_options());
            if (!subject_.device)
                unavailable_ = std::string("no device: register the spec with a ") +
                               device_noun(kind_->device_kind()) +
                               " factory, or pass --typestar_device=URL (or set TYPESTAR_DEVICE)";
        } catch (const std::exception&) {
            record_device_error(unavailable_, broken_);
        }
    }
    if (subject_.device) return true;
    report_no_device(path_, broken_, unavailable_, skip_reason_);
    return false;
}

std::string SpecTests::opened_device_name() {
    if (!open()) return {};
    return subject_.device.name();
}

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
            run_ = kind_->test_run(*document_, subject_, options);
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

const DocumentProposal& SpecTests::propose(const TestResult* failure) {
    if (proposal_) return *proposal_;
    // The workflow and its words are the session's (SpecKind::propose: key, lock, reuse, learn,
    // write, diff); the plugin says where in gtest's output they go.
    const Settings& s = settings();
    DocumentProposalRequest request;
    request.spec = path_;
    request.stored = document_ ? &*document_ : nullptr;
    request.stored_bytes = file_text_;
    request.subject = &subject_;
    request.run = run_.get();
    request.failure = failure;
    request.inputs_differ = inputs_differ_;
    request.name = reg_.options.name;
    request.bound = bound();
    request.learner = parse_learner(s.learner).value_or(LearnerKind::LSharp);
    request.mode = s.ci ? ProposalMode::Print : s.update ? ProposalMode::Update : ProposalMode::Write;
    request.update_requested = s.update;
    request.device_url = s.device;
    request.registered_url = reg_.options.device_url;
    request.suite = suite_name_;
    request.requester = current_test();
#if TYPESTAR_HAVE_RENDER
    request.pictures = render::write_proposal_pictures;
#endif
    proposal_ = kind_->propose(request);
    return *proposal_;
}

std::string SpecTests::reproduce(const std::string& test) const {
    std::string url = settings().device;
    if (url.empty()) url = reg_.options.device_url;
    const std::string rerun = gtest::rerun_command(binary_, suite_name_ + "." + test);
    // A factory device that another process can reach is named by its URL (an agent's http://
    // URL, an exec: binary: DeviceDescription::name); any other one this binary serves
    // (--typestar_serve).
    if (url.empty() && subject_.device) {
        const std::string name = subject_.device.describe().name;
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
    const std::string device_name = opened_device_name();
    if (device_name.empty()) {
        if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
        return;
    }
    const DocumentProposal& p = propose();
    if (!p.document) {
        ADD_FAILURE_AT(reg_.file.c_str(), reg_.line) << "typestar: the spec " << path_.string()
                                                     << " does not exist, and learning it from " << device_name
                                                     << " failed: " << p.error;
        return;
    }
    testing::Test::RecordProperty("typestar_learned_states", std::to_string(p.size));
    if (p.wrote_spec) {
        std::cout << "typestar: learned " << path_.string() << " from " << device_name << " with " << p.summary
                  << "Review and commit it.\n";
        return;
    }
    ADD_FAILURE_AT(reg_.file.c_str(), reg_.line)
        << "typestar: the spec " << path_.string() << " does not exist, so it was learned from " << device_name
        << " with " << p.summary << p.report;
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
    if (r.failure == TestFailure::Counterexample || r.failure == TestFailure::Inputs) return report_difference(r);
    ADD_FAILURE_AT(path_.string().c_str(), t.line) << r.message;  // timing, device, non-determinism: no proposal
}

void SpecTests::report_difference(const TestResult& r) {
    const typestar::TransitionTest& t = r.test;
    const std::string at = path_.string();
    if (r.failure == TestFailure::Inputs) {
        inputs_differ_ = true;
        const DocumentProposal& p = propose();
        ADD_FAILURE_AT(at.c_str(), t.line)
            << r.message
            << (p.document ? "Re-learned from the device with " + p.summary + p.report
                           : "Re-learning failed: " + p.error + "\n");
        return;
    }
    std::ostringstream m;
    m << r.message;
    const DocumentProposal& p = propose(&r);
    if (!p.document) {
        m << "Re-learning failed: " << p.error << "\n";
        ADD_FAILURE_AT(at.c_str(), t.line) << m.str();
        return;
    }
    if (p.wrote_spec) {
        // Update mode: the test passes when the written spec explains the device's answer.
        if (kind_->explains(*p.document, r, *run_)) {
            if (!update_announced_) {
                update_announced_ = true;
                std::cout << "typestar: " << p.announcement;
            }
            std::cout << "typestar: " << suite_name_ << "." << t.name << ": the device's answer"
                      << kind_->answer_word(r, *run_) << " is in the updated spec.\n";
            return;
        }
        m << "Re-learned and wrote the spec, but it does not explain this answer (a non-deterministic device?).\n";
    }
    const std::string changes = kind_->changes(p, t);
    if (p.shared()) {  // learned by another test process of this run; its full report is there
        m << "Re-learned by another test process of this run: " << p.size << " " << p.unit << ".\n"
          << p.summary << changes << p.pointer;
    } else if (!report_printed_) {  // the full proposal once per spec: in its first failure
        report_printed_ = true;
        m << "Re-learned with " << p.summary << changes << p.report;
    } else {
        m << p.recap << changes << p.pointer;
    }
    ADD_FAILURE_AT(at.c_str(), t.line) << m.str();
}

}  // namespace typestar::detail
