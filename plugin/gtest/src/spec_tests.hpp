// Internal: the tests of one registered spec, and the state they share in one process. One class
// for both kinds: a typestate spec (spec_tests.cpp) and a register automaton (ra_tests.cpp), each
// with its test plan (session/test_plan.hpp); registration, settings, devices' errors and the gtest
// messages are shared.
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
#include "typestar/session/test_plan.hpp"
#include "typestar/spec/diff.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/session/proposal.hpp"
#include "typestar/session/register_automata.hpp"
#include "typestar/session/session.hpp"

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

/// The device named by `url`. The one place the plugin turns a URL into a device (today
/// typestar::make_device of device/factory.hpp). Throws like make_device.
[[nodiscard]] std::unique_ptr<Device> device_from_url(const std::string& url);

/// argv[0] of the test binary (after initialize; "test-binary" before).
[[nodiscard]] const std::string& test_binary();

/// One register_spec_tests call.
struct Registration {
    std::filesystem::path spec;  ///< as given
    DeviceFactory factory;
    SpecTestOptions options;
    std::string file;  ///< the registering source file
    int line = 0;
    DataDeviceFactory data_factory;    ///< a register-automaton spec's device
    bool register_automaton = false;   ///< registered with a DataDeviceFactory
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
    /// A fresh device as the tests get it (--typestar_device's URL, else the factory). Throws
    /// DeviceError / std::exception like the factory, std::invalid_argument when there is none.
    [[nodiscard]] std::unique_ptr<Device> make_device() const;
    /// True for a register-automaton spec (registered with a data device factory, or without a
    /// factory when its file is one).
    [[nodiscard]] bool register_automaton() const noexcept { return ra_kind_; }
    /// A fresh data device (register automata), like make_device.
    [[nodiscard]] std::unique_ptr<DataDevice> make_data_device() const;

private:
    /// The session's proposal (propose_spec) and how this plugin reports it.
    struct Proposal {
        SpecProposal result;
        std::string report;   ///< where it went (or why nowhere), and the diff
        std::string pointer;  ///< one line: where the proposal is (for every later failure)
    };

    /// Called inside a catch handler while loading the spec: records its diagnostics (SpecError)
    /// or message as load_error_ (the `load` test fails with it).
    void record_load_error();
    void run_load() const;
    void run_learn();
    void run_transition(std::size_t index);
    // The register-automaton kind (ra_tests.cpp).
    void load_register_spec();
    void run_register_learn();
    void run_register_transition(std::size_t index);
    /// The data oracle over the adapted device, made on first use; nullptr after failing the test
    /// or with skip_reason_ set; also nullptr (with data_device_ set) when there is no spec yet.
    ra::DataOracle* data_oracle();
    /// The register-automaton proposal, once per process (propose_register_spec: shared with the
    /// other test processes of the run when `counterexample` is given).
    const RegisterProposal& propose_register(const ra::RaCounterexample* counterexample = nullptr);
    /// What the register-automaton proposal says in a failure: what ran, the separating trace,
    /// where it went.
    [[nodiscard]] std::string register_proposal_report(const RegisterProposal& p) const;

    /// Records the properties every test of this spec carries.
    void record_common() const;
    /// False after failing the test (bad settings).
    [[nodiscard]] bool settings_ok() const;
    /// The device, creating it on first use; nullptr after failing the test, or with skip_reason_ set
    /// when the test is to skip (the caller skips: GTEST_SKIP returns from the function it is in).
    Device* device();
    /// Builds the suite and the per-test words once (needs the device's inputs).
    void prepare();
    /// The proposal, once per process: the session's workflow (propose_spec: shared with the
    /// other test processes of the run, learned from scratch or seeded with the stored spec).
    const Proposal& propose(const Counterexample* counterexample = nullptr);
    /// Fills p.report and p.pointer from p.result (a proposal was made).
    void describe_proposal(Proposal& p) const;
    /// "typestar accept SPEC" (with --force for a proposal over other inputs), and a line break.
    [[nodiscard]] std::string accept_command() const;
    [[nodiscard]] std::size_t bound() const;
    [[nodiscard]] std::string reproduce(const std::string& test) const;
    /// What `factory` makes (a `what`: "device", "data device"); std::invalid_argument when there is
    /// no factory or it returns none.
    template <class D>
    [[nodiscard]] std::unique_ptr<D> made_by(const std::function<std::unique_ptr<D>()>& factory,
                                             const std::string& what) const {
        if (!factory)
            throw std::invalid_argument("no device: " + path_.string() + " is registered without a " + what +
                                        " factory (and no --typestar_device)");
        auto d = factory();
        if (!d) throw std::invalid_argument("the " + what + " factory of " + path_.string() + " returned no device");
        return d;
    }
    /// `Suite.Name` of the running gtest test, or empty.
    [[nodiscard]] static std::string current_test();
    /// The name of the spec a missing file gets (the registration's, else the file's stem).
    [[nodiscard]] std::string fallback_name() const;

    Registration reg_;
    std::string binary_;
    std::filesystem::path path_;
    std::string suite_name_;
    std::string file_text_;  // the spec file's bytes (for its hash)
    std::optional<spec::Spec> spec_;
    std::string load_error_;  // non-empty: the spec exists but does not load
    int load_line_ = 0;
    std::vector<typestar::TransitionTest> tests_;
    bool ra_kind_ = false;
    std::optional<ra::RaSpec> ra_spec_;  // the register automaton (ra_kind_)

    // Built lazily, in test bodies.
    bool device_tried_ = false;
    /// The device made or reached; when the spec has partitions and the device declares parameterised
    /// callins, device_ is a PartitionedDevice over it (declared first: destroyed after device_).
    std::unique_ptr<Device> concrete_device_;
    std::unique_ptr<Device> device_;
    std::string unavailable_;  // DeviceError while making the device: skip or fail
    std::string broken_;       // any other error: fail
    std::string skip_reason_;  // set by device() when the test is to skip
    bool prepared_ = false;
    std::string prepare_error_;
    std::optional<Conformance> conformance_;  // the one oracle stack of this spec's tests
    std::optional<TransitionWords> words_;     // over the device's inputs
    std::string alphabet_mismatch_;
    std::optional<Proposal> proposal_;
    bool update_announced_ = false;
    bool report_printed_ = false;  // the full proposal report went into one failure message already

    // The register-automaton kind, built lazily.
    std::unique_ptr<DataDevice> data_device_;
    std::unique_ptr<DataDevice> adapted_;  // data_device_ seen through the spec's signature
    std::optional<ra::DataOracle> data_oracle_;
    std::optional<RegisterProposal> ra_proposal_;
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
