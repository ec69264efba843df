// The register-automaton tests of the plugin (typestar/gtest/register_automata.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>

#include "serve.hpp"
#include "spec_tests.hpp"
#include "typestar/core/error.hpp"
#include "typestar/gtest/register_automata.hpp"
#include "typestar/gtest/report.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/ra/learner.hpp"
#include "typestar/ra/oracle.hpp"
#include "typestar/ra/suite.hpp"
#include "typestar/session/register_automata.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace detail {
namespace {

/// The tests of one register-automaton spec and their shared state (alive until exit).
class RaSpecTests {
public:
    RaSpecTests(std::filesystem::path path, DataDeviceFactory factory, SpecTestOptions options, std::string file,
                int line)
        : path_(std::move(path)), factory_(std::move(factory)), options_(std::move(options)), file_(std::move(file)),
          line_(line) {}

    void register_tests() {
        std::error_code ec;
        std::string fallback = options_.name.empty() ? path_.stem().string() : options_.name;
        fallback = typestar::test_identifier(fallback);
        if (!std::filesystem::exists(path_, ec)) {
            suite_ = fallback;
            add("learn", file_, line_, [this] { run_learn(); });
            return;
        }
        try {
            spec_ = ra::load_register_spec(path_);
        } catch (const SpecError& e) {
            suite_ = fallback;
            std::string text;
            int line = 0;
            for (const auto& d : e.diagnostics()) text += d.str() + "\n";
            if (!e.diagnostics().empty()) line = e.diagnostics().front().line;
            add("load", path_.string(), line, [this, text, line] {
                ADD_FAILURE_AT(path_.string().c_str(), line) << "typestar: the spec does not load:\n" << text;
            });
            return;
        }
        suite_ = typestar::test_identifier(spec_->automaton.name);
        const ra::RegisterAutomaton& a = spec_->automaton;
        for (std::size_t l = 0; l < a.locations.size(); ++l) {
            const auto& loc = a.locations[l];
            std::map<std::size_t, std::size_t> per_input, seen;
            for (const auto& t : loc.transitions) ++per_input[t.input];
            for (std::size_t k = 0; k < loc.transitions.size(); ++k) {
                const auto& t = loc.transitions[k];
                std::string name = loc.name + "_" + a.inputs[t.input].name;
                if (per_input[t.input] > 1) name += "_" + std::to_string(++seen[t.input]);
                add(typestar::test_identifier(name), path_.string(), t.line ? t.line : loc.line,
                    [this, l, k] { run_transition(l, k); });
            }
        }
    }

    /// What --typestar_serve serves for this registration.
    [[nodiscard]] DataServable servable() const {
        DataServable d;
        d.suite = suite_;
        d.path = path_;
        if (spec_) d.spec_name = spec_->automaton.name;
        d.make = [factory = factory_, where = path_]() -> std::unique_ptr<DataDevice> {
            if (!settings().device.empty()) return make_data_device(settings().device);
            if (!factory)
                throw std::invalid_argument("no device: " + where.string() +
                                            " is registered without a data device factory (and no --typestar_device)");
            auto device = factory();
            if (!device)
                throw std::invalid_argument("the data device factory of " + where.string() + " returned no device");
            return device;
        };
        return d;
    }

private:
    void add(const std::string& test, const std::string& file, int line, std::function<void()> body) {
        testing::RegisterTest(suite_.c_str(), test.c_str(), nullptr, nullptr, file.c_str(), line,
                              [body = std::move(body)]() -> testing::Test* { return new BoundTest(body); });
    }

    std::size_t bound() const { return settings().bound.value_or(spec_ ? spec_->distinguisher : ra::RaLearnConfig{}.equivalence_bound); }

    /// The adapted device and its oracle, made on first use; nullptr after failing or with
    /// skip_reason_ set.
    ra::DataOracle* oracle() {
        if (!tried_) {
            tried_ = true;
            try {
                if (!settings().device.empty()) {
                    device_ = make_data_device(settings().device);
                    url_ = settings().device;
                } else if (factory_) {
                    device_ = factory_();
                    if (!device_) broken_ = "the device factory returned no device";
                } else {
                    unavailable_ = "no device: register the spec with a data device factory, or pass "
                                   "--typestar_device=URL (or set TYPESTAR_DEVICE)";
                }
                if (device_ && spec_) {
                    adapted_ = adapt_to_signature(spec_->automaton, *device_);
                    oracle_.emplace(*adapted_, spec_->automaton);
                }
            } catch (const std::exception&) {
                record_device_error(unavailable_, broken_);
            }
        }
        if (oracle_) return &*oracle_;
        if (!spec_ && device_) return nullptr;  // learning a missing spec: the caller uses device_
        report_no_device(path_, broken_, unavailable_, skip_reason_);
        return nullptr;
    }

    std::string reproduce(const std::string& test) const {
        std::string url = url_.empty() ? options_.device_url : url_;
        std::string out;
        if (!url.empty()) out += "Reproduce: " + gtest::check_command(path_, url, bound()) + "\n       or: ";
        else out += "Reproduce: ";
        return out + gtest::rerun_command(test_binary(), suite_ + "." + test) + "\n";
    }

    /// Re-learns the device once per process and writes the proposal (not on CI).
    const std::string& propose() {
        if (proposal_) return *proposal_;
        std::ostringstream m;
        try {
            ra::RaLearnConfig config;
            config.equivalence_bound = bound();
            const ra::RaLearnResult learned =
                ra::learn_register_automaton(*adapted_, signature_of(spec_->automaton), config);
            if (!learned.converged) {
                m << "Re-learning (" << learned.learner << ", from scratch) did not converge: " << learned.failure << "\n";
            } else {
                const ra::RegisterAutomaton& h = learned.hypothesis;
                m << "Re-learned (" << learned.learner << ", from scratch): " << h.locations.size() << " locations, "
                  << h.max_registers() << " registers at most, " << h.num_transitions() << " transitions ("
                  << learned.stats.total().queries_executed << " concrete queries; no counterexample from "
                  << learned.equivalence << ").\n";
                if (const auto sep = ra::separating_word(spec_->automaton, h, 6)) {
                    m << "Shortest separating data trace, stored spec vs proposal (the proposal's answers):\n"
                      << format_trace(trace_of(spec_->automaton, *sep));
                } else {
                    m << "The proposal agrees with the stored spec on every data word of up to 6 steps: the "
                         "difference needs a longer word.\n";
                }
                ra::RaSpec proposed{h, bound(), {}};
                proposed.provenance["learner"] = learned.learner + "-style tree queries (typestar ra), re-learned by the gtest plugin";
                proposed.provenance["equivalence"] = learned.equivalence;
                if (!url_.empty() || !options_.device_url.empty())
                    proposed.provenance["device"] = url_.empty() ? options_.device_url : url_;
                proposed_ = h;
                if (settings().ci) {
                    m << "CI is set, so nothing was written; the proposed spec:\n" << ra::write_register_spec(proposed);
                } else if (settings().update) {
                    ra::save_register_spec(proposed, path_);
                    wrote_spec_ = true;
                    m << "--typestar_update: wrote the re-learned spec to " << path_.string() << "; review and commit it.\n";
                } else {
                    const auto where = gtest::proposed_path(path_, "yaml");
                    ra::save_register_spec(proposed, where);
                    m << "Proposed spec: " << where.string() << " (compare: typestar diff "
                      << gtest::shell_quote(path_.string()) << " " << gtest::shell_quote(where.string()) << ")\n";
                }
            }
        } catch (const std::exception& e) {
            m << "Re-learning failed: " << e.what() << "\n";
        }
        proposal_ = m.str();
        return *proposal_;
    }

    /// The spec does not exist: learn it from the device (never on CI), write `<spec>.proposed.yaml`
    /// and fail, or with --typestar_update write the spec itself and pass.
    void run_learn() {
        testing::Test::RecordProperty("typestar_spec", path_.string());
        if (!settings().errors.empty()) {
            ADD_FAILURE() << "typestar: bad settings, nothing was run";
            return;
        }
        const auto proposed_yaml = gtest::proposed_path(path_, "yaml");
        if (settings().ci) {
            ADD_FAILURE_AT(file_.c_str(), line_)
                << "typestar: the register-automaton spec " << path_.string()
                << " does not exist.\nCI is set, so typestar neither learns nor writes it here. Learn it locally "
                   "(this test without CI writes "
                << proposed_yaml.filename().string() << ", or the spec itself with TYPESTAR_UPDATE=1), then commit it.";
            return;
        }
        (void)oracle();
        if (!device_) {
            if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
            return;
        }
        ra::RaLearnResult learned;
        ra::RaLearnConfig config;
        config.equivalence_bound = bound();
        try {
            learned = ra::learn_register_automaton(*device_, device_->signature(), config);
        } catch (const std::exception& e) {
            ADD_FAILURE_AT(file_.c_str(), line_) << "typestar: learning " << path_.string() << " from "
                                                 << device_->name() << " failed: " << e.what();
            return;
        }
        if (!learned.converged) {
            ADD_FAILURE_AT(file_.c_str(), line_) << "typestar: learning " << path_.string() << " from "
                                                 << device_->name() << " did not converge: " << learned.failure;
            return;
        }
        const ra::RegisterAutomaton& h = learned.hypothesis;
        ra::RaSpec spec{h, bound(), {}};
        spec.provenance["learner"] = learned.learner + "-style tree queries (typestar ra), learned by the gtest plugin";
        spec.provenance["equivalence"] = learned.equivalence;
        spec.provenance["device"] = device_->name();
        const std::string summary = std::to_string(h.locations.size()) + " locations, " +
                                    std::to_string(h.max_registers()) + " registers at most, " +
                                    std::to_string(h.num_transitions()) + " transitions";
        if (settings().update) {
            ra::save_register_spec(spec, path_);
            std::cout << "typestar: learned " << path_.string() << " from " << device_->name() << " (" << summary
                      << "); review and commit it.\n";
            return;
        }
        ra::save_register_spec(spec, proposed_yaml);
        ADD_FAILURE_AT(file_.c_str(), line_)
            << "typestar: the register-automaton spec " << path_.string() << " does not exist, so it was learned from "
            << device_->name() << " (" << learned.learner << "-style tree queries; no counterexample from "
            << learned.equivalence << ": bounded evidence for B=" << bound() << "): "
            << summary << ".\nProposed spec: " << proposed_yaml.string() << " (review it and rename it to "
            << path_.filename().string() << ", or rerun with --typestar_update)\n";
    }

    void run_transition(std::size_t l, std::size_t k) {
        const ra::RegisterAutomaton& a = spec_->automaton;
        const auto& loc = a.locations[l];
        const auto& t = loc.transitions[k];
        const std::string what = "location " + loc.name + ", " + ra::input_text(a, t) + " | " + ra::guard_text(a, loc, t) +
                                 " / " + ra::output_text(a, loc, t) + " -> " + a.locations[t.target].name;
        const std::string at = path_.string();
        const int line = t.line ? t.line : loc.line;
        const std::string test = testing::UnitTest::GetInstance()->current_test_info()->name();
        testing::Test::RecordProperty("typestar_spec", at);
        testing::Test::RecordProperty("typestar_transition", what);
        testing::Test::RecordProperty("typestar_bound", std::to_string(bound()));
        if (!settings().errors.empty()) {
            std::string text;
            for (const auto& e : settings().errors) text += "  " + e + "\n";
            ADD_FAILURE() << "typestar: bad settings, nothing was run:\n" << text << settings_help();
            return;
        }
        ra::DataOracle* o = oracle();
        if (o == nullptr) {
            if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
            return;
        }
        ra::RaSuiteResult result;
        try {
            result = ra::check_register_transition(a, *o, l, k, {bound(), 10000});
        } catch (const NondeterminismError& e) {
            ADD_FAILURE_AT(at.c_str(), line) << "typestar: the device " << adapted_->name()
                                             << " answered one data word in two ways (not deterministic): " << e.what();
            return;
        } catch (const std::exception& e) {
            ADD_FAILURE_AT(at.c_str(), line) << "typestar: device " << adapted_->name() << " failed: " << e.what();
            return;
        }
        testing::Test::RecordProperty("typestar_words", std::to_string(result.words));
        if (!result.counterexample) {
            if (result.words == 0)
                GTEST_SKIP() << "typestar: " << at << ":" << line << ": " << what
                             << ": no explored data class takes this transition (from " << result.states
                             << " (location, register order type) states): not exercised";
            if (result.truncated)
                ADD_FAILURE_AT(at.c_str(), line) << "typestar: the exploration was truncated at 10000 states: only "
                                                    "part of the spec was tested (no difference found in that part)";
            return;  // bounded evidence
        }
        const ra::RaCounterexample& cex = *result.counterexample;
        std::ostringstream m;
        m << "typestar: " << suite_ << "." << test << ": the device does not conform to the register automaton.\n"
          << "  spec:   " << at << ":" << line << " (" << what << ")\n"
          << "  device: " << adapted_->name() << "\n"
          << "  data trace (" << cex.inputs.size() << " steps; " << cex.reason << "):\n"
          << format_trace(trace_of(a, cex), 4) << "\n"
          << "Passing is bounded evidence: the words of this transition from every explored (location, register "
             "order type) state, one per data class, followed by up to B="
          << bound() << " steps.\n"
          << reproduce(test) << "\n";
        const std::string& proposal = propose();
        if (wrote_spec_ && proposed_) {  // update mode: pass when the written spec explains the answer
            ra::LockstepCheck updated(*proposed_);
            bool explained = true;
            for (std::size_t i = 0; i < cex.inputs.size() && explained; ++i)
                explained = updated.step(cex.inputs[i], cex.outputs[i]).empty();
            if (explained) {
                if (!proposal_printed_) {
                    proposal_printed_ = true;
                    std::cout << "typestar: " << proposal;
                }
                std::cout << "typestar: " << suite_ << "." << test << ": the device's answer is in the updated spec.\n";
                return;
            }
            m << "Re-learned and wrote the spec, but it does not explain this answer (a non-deterministic device?).\n";
        }
        if (!proposal_printed_) {  // the whole proposal once per spec; later failures point at it
            proposal_printed_ = true;
            m << proposal;
        } else {
            m << "The re-learned proposal and its separating data trace are in the first failure of " << suite_ << ".\n";
        }
        ADD_FAILURE_AT(at.c_str(), line) << m.str();
    }

    std::filesystem::path path_;
    DataDeviceFactory factory_;
    SpecTestOptions options_;
    std::string file_;
    int line_ = 0;
    std::string suite_;
    std::optional<ra::RaSpec> spec_;

    bool tried_ = false;
    std::unique_ptr<DataDevice> device_;
    std::unique_ptr<DataDevice> adapted_;
    std::optional<ra::DataOracle> oracle_;
    std::string url_;
    std::string unavailable_, broken_, skip_reason_;
    std::optional<std::string> proposal_;
    std::optional<ra::RegisterAutomaton> proposed_;
    bool wrote_spec_ = false;
    bool proposal_printed_ = false;
};

std::vector<std::unique_ptr<RaSpecTests>>& ra_registry() {
    static std::vector<std::unique_ptr<RaSpecTests>> r;  // alive until exit: tests point into them
    return r;
}

}  // namespace

std::vector<DataServable> data_servables() {
    std::vector<DataServable> out;
    for (const auto& r : ra_registry()) out.push_back(r->servable());
    return out;
}

bool queue_register_automaton_tests(const char* spec, DataDeviceFactory factory, SpecTestOptions options,
                                    std::source_location where) {
    register_register_automaton_tests(spec, std::move(factory), std::move(options), where);
    return true;
}

}  // namespace detail

void register_register_automaton_tests(const std::filesystem::path& spec, DataDeviceFactory factory,
                                       SpecTestOptions options, std::source_location where) {
    static std::mutex mutex;
    const std::lock_guard<std::mutex> lock(mutex);
    auto& r = detail::ra_registry();
    r.push_back(std::make_unique<detail::RaSpecTests>(detail::resolve_spec_path(spec, where.file_name()),
                                                      std::move(factory), std::move(options), where.file_name(),
                                                      static_cast<int>(where.line())));
    r.back()->register_tests();
}

}  // namespace typestar
