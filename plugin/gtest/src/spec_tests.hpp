// Internal: the tests of one registered spec, and the state they share in one process. One class
// for every kind, which it never names: the session says which kind a spec is (the document, else
// the registration's device), plans and runs each test (SpecKind::test_run, session/test_run.hpp)
// and proposes a spec after a difference or for a missing one (SpecKind::propose); this reports
// the results as gtest tests.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <source_location>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "typestar/gtest/gtest.hpp"
#include "typestar/session/document.hpp"
#include "typestar/session/kind.hpp"
#include "typestar/session/session.hpp"
#include "typestar/session/test_plan.hpp"
#include "typestar/session/test_run.hpp"

namespace typestar::detail {

/// The gtest fixture of every typestar test: runs a body
/// bound at registration.
class BoundTest : public testing::Test {
public:
    explicit BoundTest(std::function<void()> body) : body_(std::move(body)) {}
    void TestBody() override { body_(); }

private:
    std::function<void()> body_;
};

/// argv[0] of the test binary (after initialize; "test-binary" before).
[[nodiscard]] const std::string& test_binary();

/// One register_spec_tests call.
struct Registration {
    std::filesystem::path spec;  ///< as given
    /// The factory it was registered with (none: the device comes from --typestar_device).
    DeviceFactories factories;
    SpecTestOptions options;
    std::string file;  ///< the registering source file
    int line = 0;
};

/// `spec` resolved against the directory of `file` when relative (see register_spec_tests).
[[nodiscard]] std::filesystem::path resolve_spec_path(const std::filesystem::path& spec, const std::string& file);

/// The tests of one spec and their shared, lazily built state: the device, one oracle stack, the
/// suite, and at most one learned proposal per process.
class SpecTests {
public:
    SpecTests(Registration registration, std::string binary);
    SpecTests(const SpecTests&) = delete;
    SpecTests& operator=(const SpecTests&) = delete;

    /// Registers this spec's tests with gtest under a suite name not in `used_suites` (adding it).
    void register_tests(std::set<std::string>& used_suites);

    /// The gtest test suite name (after register_tests).
    [[nodiscard]] const std::string& suite_name() const noexcept { return suite_name_; }
    /// The spec file, resolved.
    [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
    /// True when `name` is the suite name, the loaded spec's name or the spec file's stem.
    [[nodiscard]] bool answers_to(const std::string& name) const;
    /// A fresh device of the spec's kind as the tests get it (--typestar_device's URL, else the
    /// factory). Throws DeviceError / std::exception like the factory, std::invalid_argument when
    /// there is none.
    [[nodiscard]] OpenedDevice make_device() const;
    /// The devices this spec is tested on (its kind's, SpecKind::device_kind).
    [[nodiscard]] DeviceKind device_kind() const noexcept { return kind_->device_kind(); }

private:
    /// Called inside a catch handler while loading the spec: records its diagnostics (SpecError)
    /// or message as load_error_ (the `load` test fails with it).
    void record_load_error();
    void run_load() const;
    void run_learn();
    /// One planned test, either kind: the session runs it (SpecTestRun), this reports the result.
    void run_transition(std::size_t index);
    /// A failed test whose device answered otherwise than the spec (or has other inputs): the
    /// failure with the kind's proposal (SpecKind::propose).
    void report_difference(const TestResult& result);

    /// Records the properties every test of this spec carries.
    void record_common() const;
    /// False after failing the test (bad settings).
    [[nodiscard]] bool settings_ok() const;
    /// Opens the device of this spec's kind into subject_ on first use; false after failing the
    /// test, or with skip_reason_ set when the test is to skip (the caller skips: GTEST_SKIP
    /// returns from the function it is in).
    bool open();
    /// The device's name once opened (learning a missing spec); empty like open() returning false.
    std::string opened_device_name();
    /// The session's run of this spec's tests over subject_, made on first use (SpecKind::test_run);
    /// nullptr like open(), or after failing the test when the run cannot be made (another signature).
    SpecTestRun* test_run();
    /// The proposal, once per process: the session's workflow (SpecKind::propose: shared with
    /// the other test processes of the run when `failure` is given).
    const DocumentProposal& propose(const TestResult* failure = nullptr);
    [[nodiscard]] std::size_t bound() const;
    [[nodiscard]] std::string reproduce(const std::string& test) const;
    /// `Suite.Name` of the running gtest test, or empty.
    [[nodiscard]] static std::string current_test();
    /// The name of the spec a missing file gets (the registration's, else the file's stem).
    [[nodiscard]] std::string fallback_name() const;

    Registration reg_;
    std::string binary_;
    std::filesystem::path path_;
    std::string suite_name_;
    std::string file_text_;  // the spec file's bytes (for its hash)
    const SpecKind* kind_ = nullptr;  // the session's: the document's kind, else the registration device's
    std::string load_error_;  // non-empty: the spec exists but does not load
    int load_line_ = 0;
    std::vector<typestar::TransitionTest> tests_;
    std::optional<Document> document_;  // the loaded spec

    // Built lazily, in test bodies.
    bool device_tried_ = false;
    Subject subject_;          // the device made or reached (of the kind's device_kind)
    std::string unavailable_;  // DeviceError while making the device: skip or fail
    std::string broken_;       // any other error: fail
    std::string skip_reason_;  // set by open() when the test is to skip
    std::unique_ptr<SpecTestRun> run_;  // the session's run of the tests (declared after subject_)
    bool inputs_differ_ = false;        // a test found the device's inputs are not the spec's
    std::optional<DocumentProposal> proposal_;
    bool update_announced_ = false;
    bool report_printed_ = false;  // the full proposal report went into one failure message already
};

/// Called inside a catch handler while making a device: records the exception being handled, a
/// DeviceError in `unavailable` (skip or fail), a SpecError (with its diagnostics) or any other
/// std::exception in `broken` (fail). Rethrows anything that is not a std::exception.
void record_device_error(std::string& unavailable, std::string& broken);

/// After the device for the spec at `path` could not be made: a test failure when the model is
/// `broken` (non-empty), or when it is `unavailable` on CI or with --typestar_require_device;
/// otherwise `skip_reason` says why the test skips.
void report_no_device(const std::filesystem::path& path, const std::string& broken, const std::string& unavailable,
                      std::string& skip_reason);

}  // namespace typestar::detail
