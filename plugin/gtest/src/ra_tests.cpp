// The register-automaton kind of SpecTests (spec_tests.hpp): learning a missing spec and the
// proposal after a difference (propose_register_spec). Its tests are planned and run by the
// session (SpecKind::test_run), as a typestate's are.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include "spec_tests.hpp"
#include "typestar/core/error.hpp"
#include "typestar/gtest/report.hpp"
#include "typestar/ra/format.hpp"

namespace typestar::detail {

std::unique_ptr<DataDevice> SpecTests::make_data_device() const {
    if (!settings().device.empty()) return typestar::make_data_device(settings().device);
    return made_by(reg_.data_factory, "data device");
}

const RegisterProposal& SpecTests::propose_register(const ra::RaCounterexample* counterexample) {
    if (ra_proposal_) return *ra_proposal_;
    // The workflow is the session's (propose_register_spec: key, lock, reuse, learn, write, as
    // propose_spec for typestates); the plugin only says where the result went.
    const Settings& s = settings();
    RegisterProposalRequest request;
    request.spec = path_;
    request.stored = ra_spec_ ? &*ra_spec_ : nullptr;
    // The device as the tests ran it (seen through the spec's signature); learning a missing spec:
    // the device as made.
    DataDevice* made = subject_.device.data.get();
    request.device = ra_spec_ && run_ ? run_->data_device() : made;
    request.signature = ra_spec_ ? signature_of(ra_spec_->automaton) : made->signature();
    request.bound = bound();
    request.mode = s.ci ? ProposalMode::Print : s.update ? ProposalMode::Update : ProposalMode::Write;
    const std::string url = s.device.empty() ? reg_.options.device_url : s.device;
    request.device_label = ra_spec_ ? url : made->name();
    request.learned_by = ra_spec_ ? "re-learned by the gtest plugin" : "learned by the gtest plugin";
    request.stored_bytes = file_text_;
    request.counterexample = counterexample;
    if (request.device != nullptr) request.share_key = proposal_device_key(s.device, *made);
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
    DataDevice* device = data_device();
    if (device == nullptr) {
        if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
        return;
    }
    const RegisterProposal& p = propose_register();
    if (!p.spec) {
        ADD_FAILURE_AT(reg_.file.c_str(), reg_.line) << "typestar: the spec " << path_.string()
                                                     << " does not exist, and learning it from " << device->name()
                                                     << " failed: " << p.error;
        return;
    }
    testing::Test::RecordProperty("typestar_learned_states", std::to_string(p.spec->automaton.locations.size()));
    if (p.wrote_spec) {
        std::cout << "typestar: learned " << path_.string() << " from " << device->name() << " with " << p.summary
                  << "Review and commit it.\n";
        return;
    }
    ADD_FAILURE_AT(reg_.file.c_str(), reg_.line)
        << "typestar: the spec " << path_.string() << " does not exist, so it was learned from " << device->name()
        << " with " << p.summary << register_proposal_report(p);
}

void SpecTests::report_register_difference(const TestResult& r) {
    const TransitionTest& test = r.test;
    const std::string at = path_.string();
    std::ostringstream m;
    m << r.message;
    const RegisterProposal& p = propose_register(&*r.data_counterexample);
    if (!p.spec) {
        m << "Re-learning failed: " << p.error << "\n";
        ADD_FAILURE_AT(at.c_str(), test.line) << m.str();
        return;
    }
    if (p.wrote_spec) {  // update mode: pass when the written spec explains the answer
        if (proposal_explains(p.spec->automaton, *r.data_counterexample)) {
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
