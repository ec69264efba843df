// The register-automaton kind of SpecTests (spec_tests.hpp): its plan is plan_register_tests, its
// tests run the generalised Algorithm 2 words of their transition (run_register_test) through one
// data oracle per spec, and its proposal is propose_register_spec; the session does each, this
// file reports it.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include "spec_tests.hpp"
#include "typestar/core/error.hpp"
#include "typestar/gtest/report.hpp"
#include "typestar/ra/format.hpp"

namespace typestar::detail {

void SpecTests::load_register_spec() {
    try {
        ra_spec_ = ra::parse_register_spec(file_text_, path_.string());
        tests_ = plan_register_tests(ra_spec_->automaton);
    } catch (const std::exception&) {
        ra_spec_.reset();
        record_load_error();
    }
}

std::unique_ptr<DataDevice> SpecTests::make_data_device() const {
    if (!settings().device.empty()) return typestar::make_data_device(settings().device);
    return made_by(reg_.data_factory, "data device");
}

ra::DataOracle* SpecTests::data_oracle() {
    if (!device_tried_) {
        device_tried_ = true;
        try {
            if (!settings().device.empty()) {
                data_device_ = typestar::make_data_device(settings().device);
            } else if (reg_.data_factory) {
                data_device_ = reg_.data_factory();
                if (!data_device_) broken_ = "the device factory returned no device";
            } else {
                unavailable_ = "no device: register the spec with a data device factory, or pass "
                               "--typestar_device=URL (or set TYPESTAR_DEVICE)";
            }
            if (data_device_ && ra_spec_) {
                adapted_ = adapt_to_signature(ra_spec_->automaton, *data_device_);
                data_oracle_.emplace(*adapted_, ra_spec_->automaton);
            }
        } catch (const std::exception&) {
            record_device_error(unavailable_, broken_);
        }
    }
    if (data_oracle_) return &*data_oracle_;
    if (!ra_spec_ && data_device_) return nullptr;  // learning a missing spec: the caller uses data_device_
    report_no_device(path_, broken_, unavailable_, skip_reason_);
    return nullptr;
}

const RegisterProposal& SpecTests::propose_register(const ra::RaCounterexample* counterexample) {
    if (ra_proposal_) return *ra_proposal_;
    // The workflow is the session's (propose_register_spec: key, lock, reuse, learn, write, as
    // propose_spec for typestates); the plugin only says where the result went.
    const Settings& s = settings();
    RegisterProposalRequest request;
    request.spec = path_;
    request.stored = ra_spec_ ? &*ra_spec_ : nullptr;
    request.device = ra_spec_ ? adapted_.get() : data_device_.get();
    request.signature = ra_spec_ ? signature_of(ra_spec_->automaton) : data_device_->signature();
    request.bound = bound();
    request.mode = s.ci ? ProposalMode::Print : s.update ? ProposalMode::Update : ProposalMode::Write;
    const std::string url = s.device.empty() ? reg_.options.device_url : s.device;
    request.device_label = ra_spec_ ? url : data_device_->name();
    request.learned_by = ra_spec_ ? "re-learned by the gtest plugin" : "learned by the gtest plugin";
    request.stored_bytes = file_text_;
    request.counterexample = counterexample;
    if (request.device != nullptr) request.share_key = proposal_device_key(s.device, *data_device_);
    request.requester = current_test();
    ra_proposal_ = propose_register_spec(request);
    return *ra_proposal_;
}

std::string SpecTests::register_proposal_report(const RegisterProposal& p) const {
    std::ostringstream m;
    if (p.shared()) {  // the full report is in the output of the test that learned it
        if (settings().ci)
            m << "CI is set, so nothing was written; the proposed spec (learned once for this spec and change, by "
              << p.shared_by << ") is printed in full in that test's output.\n";
        else if (p.wrote_spec)
            m << "Update mode: " << path_.string() << " was rewritten by " << p.shared_by << ".\n";
        else
            m << "Proposed spec: " << p.file.string() << " (learned once for this spec and change, by " << p.shared_by
              << "; its separating data trace is in that test's output)\nAccept it: " << accept_command();
        return m.str();
    }
    if (ra_spec_ && p.separating.empty()) {
        m << "The proposal agrees with the stored spec on every data word of up to " << p.separating_depth
          << " steps: the difference needs a longer word.\n";
    } else if (ra_spec_) {
        m << "Shortest separating data trace, stored spec vs proposal (the proposal's answers):\n"
          << format_trace(p.separating);
    }
    if (settings().ci) {
        m << "CI is set, so nothing was written; the proposed spec:\n" << p.yaml;
    } else if (p.wrote_spec) {
        m << "Update mode (TYPESTAR_UPDATE / --typestar_update): wrote " << path_.string()
          << "; review and commit it.\n";
    } else {
        m << "Proposed spec: " << p.file.string() << " (compare: typestar diff " << gtest::shell_quote(path_.string())
          << " " << gtest::shell_quote(p.file.string()) << ")\nReview it, then accept it:\n    " << accept_command()
          << "or rerun with TYPESTAR_UPDATE=1 (or --typestar_update), which writes " << path_.filename().string()
          << " itself.\n";
    }
    return m.str();
}

void SpecTests::run_register_learn() {
    (void)data_oracle();
    if (!data_device_) {
        if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
        return;
    }
    const RegisterProposal& p = propose_register();
    if (!p.spec) {
        ADD_FAILURE_AT(reg_.file.c_str(), reg_.line) << "typestar: the spec " << path_.string()
                                                     << " does not exist, and learning it from "
                                                     << data_device_->name() << " failed: " << p.error;
        return;
    }
    testing::Test::RecordProperty("typestar_learned_states", std::to_string(p.spec->automaton.locations.size()));
    if (p.wrote_spec) {
        std::cout << "typestar: learned " << path_.string() << " from " << data_device_->name() << " with "
                  << p.summary << "Review and commit it.\n";
        return;
    }
    ADD_FAILURE_AT(reg_.file.c_str(), reg_.line)
        << "typestar: the spec " << path_.string() << " does not exist, so it was learned from "
        << data_device_->name() << " with " << p.summary << register_proposal_report(p);
}

void SpecTests::run_register_transition(std::size_t index) {
    const TransitionTest& test = tests_[index];
    const ra::RegisterAutomaton& a = ra_spec_->automaton;
    const auto& loc = a.locations[test.location];
    const auto& t = loc.transitions[test.transition];
    const std::string what = "location " + loc.name + ", " + ra::input_text(a, t) + " | " +
                             ra::guard_text(a, loc, t) + " / " + ra::output_text(a, loc, t) + " -> " +
                             a.locations[t.target].name;
    const std::string at = path_.string();
    testing::Test::RecordProperty("typestar_transition", what);
    ra::DataOracle* o = data_oracle();
    if (o == nullptr) {
        if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
        return;
    }
    CheckOptions options;
    options.bound = bound();
    CheckReport report;
    ra::RaCounterexample cex;
    try {
        report = run_register_test(a, *o, test, options, &cex);
    } catch (const NondeterminismError& e) {
        ADD_FAILURE_AT(at.c_str(), test.line) << "typestar: the device " << adapted_->name()
                                              << " answered one data word in two ways (not deterministic): "
                                              << e.what();
        return;
    } catch (const std::exception& e) {
        ADD_FAILURE_AT(at.c_str(), test.line) << "typestar: device " << adapted_->name() << " failed: " << e.what();
        return;
    }
    testing::Test::RecordProperty("typestar_words", std::to_string(report.tests));
    if (report.verdict == Verdict::Inconclusive) {
        if (report.tests == 0) GTEST_SKIP() << "typestar: " << at << ":" << test.line << ": " << what << ": " << report.reason;
        ADD_FAILURE_AT(at.c_str(), test.line) << "typestar: " << report.reason;
        return;
    }
    if (report.verdict == Verdict::Pass) {  // bounded evidence, under the assumptions it names
        std::string relies;
        for (const auto& why : report.assumptions) relies += (relies.empty() ? "" : "; ") + why;
        testing::Test::RecordProperty("typestar_assumptions", relies);
        std::cout << "typestar: " << suite_name_ << "." << test.name << ": " << report.tests << " data word"
                  << (report.tests == 1 ? "" : "s") << " passed: bounded evidence, relying on:\n"
                  << assumptions_block(report.assumptions, "    ");
        return;
    }
    std::ostringstream m;
    m << "typestar: " << suite_name_ << "." << test.name << ": the device does not conform to the register automaton.\n"
      << "  spec:   " << at << ":" << test.line << " (" << what << ")\n"
      << "  device: " << adapted_->name() << "\n"
      << "  data trace (" << report.trace.size() << " steps; " << report.reason << "):\n"
      << format_trace(report.trace, 4) << "\n"
      << "Passing is bounded evidence: the words of this transition from every explored (location, register "
         "order type) state, one per data class, followed by up to B="
      << report.bound << " steps.\n"
      << reproduce(test.name) << "\n";
    const RegisterProposal& p = propose_register(&cex);
    if (!p.spec) {
        m << "Re-learning failed: " << p.error << "\n";
        ADD_FAILURE_AT(at.c_str(), test.line) << m.str();
        return;
    }
    if (p.wrote_spec) {  // update mode: pass when the written spec explains the answer
        if (proposal_explains(p.spec->automaton, cex)) {
            if (!update_announced_) {
                update_announced_ = true;
                std::cout << "typestar: Re-learned with " << p.summary << register_proposal_report(p);
            }
            std::cout << "typestar: " << suite_name_ << "." << test.name
                      << ": the device's answer is in the updated spec.\n";
            return;
        }
        m << "Re-learned and wrote the spec, but it does not explain this answer (a non-deterministic device?).\n";
    }
    if (p.shared()) {  // learned by another test process of this run; its report is there
        m << "Re-learned by another test process of this run: " << p.spec->automaton.locations.size()
          << " locations.\n" << register_proposal_report(p);
    } else if (!report_printed_) {  // the whole proposal once per spec; later failures point at it
        report_printed_ = true;
        m << "Re-learned with " << p.summary << register_proposal_report(p);
    } else {
        m << "The re-learned proposal and its separating data trace are in the first failure of " << suite_name_
          << ".\n";
    }
    ADD_FAILURE_AT(at.c_str(), test.line) << m.str();
}

}  // namespace typestar::detail
