#include "typestar/session/proposal.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "grouped.hpp"
#include "proposal_flow.hpp"
#include "typestar/conformance/suite.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/session/refinement.hpp"
#include "typestar/spec/dot.hpp"

namespace typestar {
namespace {

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

/// The names of `a` not in `b`, comma-separated.
std::string minus(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::string out;
    for (const auto& x : a)
        if (std::find(b.begin(), b.end(), x) == b.end()) out += (out.empty() ? "" : ", ") + x;
    return out;
}

/// The path the sharing lock and record are named after: `spec` absolute and normal, so a relative
/// and an absolute name of one file share.
std::filesystem::path share_name(const std::filesystem::path& spec) {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(spec, ec);
    return (ec ? spec : absolute).lexically_normal();
}

std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The typestate kind's part of sharing: the request in the kind-neutral terms.
detail::ShareRequest share_request(const ProposalRequest& r) {
    detail::ShareRequest s;
    s.spec = r.spec;
    s.stored_bytes = r.stored_bytes;
    s.device_key = r.share_key;
    s.bound = r.bound;
    s.auto_bound = r.auto_bound;
    s.learner = learner_name(r.learner);
    s.mode = r.mode;
    s.requester = r.requester;
    s.has_failure = r.stored != nullptr && r.counterexample != nullptr && r.conformance != nullptr;
    return s;
}

/// The proposal another process left (sharing.reusable()), if it explains `r.counterexample`.
std::optional<SpecProposal> reuse_shared(const ProposalRequest& r, const detail::ProposalSharing& sharing) {
    const auto record = sharing.reusable();
    if (!record) return std::nullopt;
    const auto proposed_yaml = proposed_path(r.spec, "yaml");
    SpecProposal p;
    try {
        p.spec = spec::parse_spec(record->yaml, proposed_yaml.string());
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (!proposal_explains(*p.spec, *r.counterexample, *r.device)) {
        detail::logger("typestar.session")
            ->info("the proposal of test process {} does not explain this counterexample: re-learning", record->pid);
        return std::nullopt;
    }
    try {
        p.diff = spec::diff_specs(*r.stored, *p.spec);
    } catch (const std::exception& e) {
        p.diff_error = e.what();
    }
    p.shared_by = detail::ProposalSharing::shared_by(*record);
    if (const std::string b = bound_change(*r.stored, *p.spec); !b.empty()) p.summary = "Note: " + b + ".\n";
    p.yaml = record->yaml;
    p.written.yaml = record->yaml;
    p.written.wrote_spec = r.mode == ProposalMode::Update;
    p.written.file = r.mode == ProposalMode::Update ? r.spec : proposed_yaml;
    if (r.mode == ProposalMode::Write) {
        for (const auto& f : {proposed_path(r.spec, "svg"), diff_picture_path(r.spec)}) {
            std::error_code ec;
            if (std::filesystem::exists(f, ec)) p.shared_pictures.push_back(f);
        }
    }
    return p;
}

/// The learning phase: seeded with the stored spec through the conformance run's oracle stack,
/// with refinement of the device's parameterised callins, or from scratch.
void learn(const ProposalRequest& r, SpecProposal& p) {
    Device& device = *r.device;
    const std::size_t b = std::max<std::size_t>(1, r.bound);
    // The stored spec's name; else the request's; else the device's class name (learn_spec), else
    // the file's stem.
    const std::string name = r.stored                               ? r.stored->typestate.name
                             : !r.name.empty()                      ? spec::sanitize_name(r.name, "spec")
                             : !device.describe().class_name.empty() ? std::string()
                                                                     : spec::sanitize_name(r.spec.stem().string(), "spec");
    const bool seeded = r.stored != nullptr && r.conformance != nullptr;
    try {
        LearnOptions options;
        options.name = name;
        options.equivalence.bound = b;
        options.equivalence.auto_bound = r.auto_bound;
        options.learner = r.learner;
        options.device_label = r.device_label;
        detail::logger("typestar.session")
            ->info("{} {} from {} ({}, bound {})", r.stored ? "re-learning" : "learning",
                   name.empty() ? device.describe().class_name : name, device.name(),
                   seeded ? "seeded with the stored spec" : "no spec yet", b);
        // A device with parameterised callins and no spec partitions to keep: refine its own.
        const bool refine = !seeded && plan_partitions(device, nullptr).refine;
        Device* devices[] = {&device};
        // Seeded with the stored spec and driven by the failing word, through the conformance
        // run's oracle stack (every answer it executed is reused). The proposal is the device's
        // behaviour up to the bound in canonical form, so it is the same whichever test failed first.
        LearnedSpec learned = refine   ? learn_with_refinement(device, options).learned
                              : seeded ? propose(r.stored, *r.conformance, r.counterexample, options)
                                       : propose(nullptr, devices, options);
        if (!learned.spec) throw Error("the learned machine is not a synchronous closure: " + learned.not_a_closure);
        const std::string how = seeded     ? "seeded with the stored spec"
                                : r.stored ? "from scratch: the device's inputs are not the spec's"
                                           : "from scratch: no spec yet";
        p.summary = learning_summary(learned, refine ? how + ", refining parameterised callins" : how, r.stored);
        p.spec = std::move(*learned.spec);
    } catch (const PartitionError& e) {
        p.error = std::string("the spec's partitions do not describe the device (learn it again with refinement: "
                              "typestar learn --device URL): ") + e.what();
    } catch (const NondeterminismError& e) {
        p.error = std::string("the device is not deterministic: ") + e.what();
    } catch (const std::exception& e) {
        p.error = e.what();
    }
}

/// The writing phase (by mode) and the diff against the stored spec. False (with p.error) when the
/// files cannot be written.
bool write_and_diff(const ProposalRequest& r, SpecProposal& p) {
    if (r.mode == ProposalMode::Print) {
        p.yaml = spec::write_spec(*p.spec);
    } else {
        try {
            p.written = write_proposal(r.spec, r.stored, *p.spec, r.mode == ProposalMode::Update, r.pictures);
            p.yaml = p.written.yaml;
        } catch (const std::exception& e) {
            p.error = std::string("could not write the learned spec: ") + e.what();
            p.spec.reset();
            return false;
        }
    }
    if (r.stored) {
        try {
            p.diff = spec::diff_specs(*r.stored, *p.spec);
        } catch (const std::exception& e) {
            p.diff_error = e.what();
        }
    }
    return true;
}

}  // namespace

std::string content_hash(std::string_view bytes) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "fnv1a64:";
    for (int shift = 60; shift >= 0; shift -= 4) out += kHex[(h >> shift) & 0xF];
    return out;
}

std::string proposal_device_key(const std::string& url, const Device& device) {
    return detail::proposal_device_key(url, device.describe());
}

std::string detail::proposal_device_key(const std::string& url, const DeviceDescription& who) {
    const bool is_model = url.rfind("model:", 0) == 0;
    if (!url.empty() && !is_model && url.rfind("inproc:", 0) != 0) return {};  // an agent: not pinned
    std::ostringstream text;
    text << (url.empty() ? "factory " + who.name : "url " + url) << " | class " << who.class_name << " | framework "
         << who.framework << " | tmax " << (who.tmax_ms ? std::to_string(*who.tmax_ms) : "-") << " | tmin "
         << (who.tmin_ms ? std::to_string(*who.tmin_ms) : "-");
    if (is_model) text << " | model " << content_hash(read_bytes(url.substr(6)));
    std::error_code cwd_error;
    text << " | env " << detail::environment_hash() << " | cwd " << std::filesystem::current_path(cwd_error).string();
    return text.str();
}

SpecProposal propose_spec(const ProposalRequest& r) {
    if (r.device == nullptr) {
        SpecProposal none;
        none.error = "no device to learn from";
        return none;
    }
    // Key and lock: one proposal per spec and change across the processes of a test run; reuse
    // another process's when it explains this counterexample.
    const detail::ProposalSharing sharing(share_request(r));
    if (auto reused = reuse_shared(r, sharing)) return std::move(*reused);
    // Learn, write, diff, share.
    SpecProposal p;
    learn(r, p);
    if (!p.spec || !write_and_diff(r, p)) return p;
    sharing.share(p.yaml);
    return p;
}

std::vector<std::string> remove_proposal_files(const std::filesystem::path& spec) {
    const detail::ProposalLock lock(detail::shared_lock_path(share_name(spec)));
    std::vector<std::string> removed;
    std::error_code ec;
    for (const auto& f : proposal_files(spec))
        if (std::filesystem::remove(f, ec)) removed.push_back(f.filename().string());
    return removed;
}

std::filesystem::path proposed_path(const std::filesystem::path& spec, std::string_view ext) {
    std::filesystem::path p = spec;
    const auto e = spec.extension();
    if (e == ".yaml" || e == ".yml") p.replace_extension();
    p += ".proposed.";
    p += std::string(ext);
    return p;
}

std::filesystem::path diff_picture_path(const std::filesystem::path& spec) {
    std::filesystem::path p = spec;
    return p.replace_extension(".diff.svg");
}

std::vector<std::filesystem::path> proposal_files(const std::filesystem::path& spec) {
    return {proposed_path(spec, "yaml"), proposed_path(spec, "dot"), proposed_path(spec, "svg"),
            diff_picture_path(spec)};
}

bool proposal_explains(const spec::Spec& candidate, const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs) {
    try {
        const MealyMachine m = synchronous_closure(candidate.typestate);
        Word w;
        for (const auto& i : inputs) {
            const auto s = m.inputs().find(i);
            if (!s) return false;  // another alphabet: not this device's proposal
            w.push_back(*s);
        }
        const Word predicted = m.outputs_of(w);
        for (std::size_t k = 0; k < w.size(); ++k)
            if (k >= outputs.size() || m.outputs().name(predicted[k]) != outputs[k]) return false;
        return true;
    } catch (const std::exception&) {
        return false;  // no closure
    }
}

bool proposal_explains(const spec::Spec& candidate, const Counterexample& counterexample, const Device& device) {
    return proposal_explains(candidate, names_of(counterexample.inputs, device.inputs()),
                             names_of(counterexample.actual, device.outputs()));
}

std::vector<std::string> proposal_mismatch(const spec::Spec& stored, const spec::Spec& proposal) {
    std::vector<std::string> out;
    const Typestate& s = stored.typestate;
    const Typestate& p = proposal.typestate;
    if (s.name != p.name) out.push_back("another class: the proposal is '" + p.name + "', the spec '" + s.name + "'");
    if (sorted(s.callins) != sorted(p.callins))
        out.push_back("other callins: the proposal " + detail::alphabet_change(s.callins, p.callins));
    if (sorted(s.callbacks) != sorted(p.callbacks))
        out.push_back("other callbacks: the proposal " + detail::alphabet_change(s.callbacks, p.callbacks));
    return out;
}

std::optional<std::size_t> suite_size(const spec::Spec& spec, std::size_t bound) {
    try {
        SuiteConfig config;
        config.method = SuiteMethod::Algorithm2;
        config.bound = bound;
        config.traits = spec::declared_traits(spec);
        SuiteGenerator generator(synchronous_closure(spec.typestate), config);
        std::size_t n = 0;
        while (generator.next()) ++n;
        return n;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

bool transition_changed(const spec::SpecDiff& diff, std::string_view state, std::string_view input) {
    return std::any_of(diff.changes.begin(), diff.changes.end(),
                       [&](const spec::TransitionChange& c) { return c.old_state == state && c.symbol == input; });
}

std::string change_summary(const spec::SpecDiff& d, std::string_view state, std::string_view input) {
    std::ostringstream o;
    o << "What changed (stored -> proposed):\n";
    if (const std::string lost = stored_states_lost(d); !lost.empty())
        o << "    " << lost << " (review this before accepting the proposal)\n";
    for (const auto& c : d.changes) {
        const bool here = c.old_state == state && c.symbol == input;
        o << "    " << c.old_state << " " << c.symbol << ": " << c.before << "  =>  " << c.after
          << (here ? "   <- this test's transition" : "") << "\n";
    }
    auto list = [&](const char* what, const std::vector<std::string>& names) {
        if (names.empty()) return;
        o << "    " << what << ":";
        for (const auto& n : names) o << ' ' << n;
        o << "\n";
    };
    list("callins added", d.callins_added);
    list("callins removed", d.callins_removed);
    list("callbacks added", d.callbacks_added);
    list("callbacks removed", d.callbacks_removed);
    for (const auto& st : d.old_only_states) o << "    state " << st.name << " is no longer reached\n";
    for (const auto& st : d.new_only_states) o << "    new state " << st.name << "\n";
    if (d.empty()) o << "    nothing up to the bound (the proposal has the stored behaviour)\n";
    if (!transition_changed(d, state, input) && !d.changes.empty())
        o << "This test's transition (" << state << ", " << input
          << ") did not change: its words pass through a transition that did.\n";
    return o.str();
}

std::string stored_states_lost(const spec::SpecDiff& diff) {
    const std::string gone = spec::states_gone(diff, "stored");
    if (diff.new_state_count >= diff.old_state_count || gone.empty()) return gone;
    return "the proposal has " + std::to_string(diff.new_state_count) + " states, the stored spec " +
           std::to_string(diff.old_state_count) + ": " + gone;
}

std::string bound_change(const spec::Spec& stored, const spec::Spec& proposal) {
    const std::size_t before = stored.bounds.distinguisher;
    const std::size_t after = proposal.bounds.distinguisher;
    if (before == after) return {};
    std::string out = "the distinguisher bound changes from B=" + std::to_string(before) + " to B=" +
                      std::to_string(after);
    const auto old_size = suite_size(stored, before);
    const auto new_size = suite_size(proposal, after);
    if (old_size && new_size)
        out += ": the conformance suite " + std::string(*new_size >= *old_size ? "grows" : "shrinks") + " from " +
               detail::grouped(*old_size) + " to " + detail::grouped(*new_size) + " words";
    return out;
}

WrittenProposal write_proposal(const std::filesystem::path& spec_path, const spec::Spec* stored,
                               const spec::Spec& proposal, bool update, const ProposalPictures& pictures) {
    WrittenProposal w = detail::write_proposal_text(spec_path, spec::write_spec(proposal), update);
    if (update) return w;
    const auto dot = proposed_path(spec_path, "dot");
    spec::write_file_atomically(dot, spec::write_typestate_dot(proposal.typestate));
    w.pictures = dot.string();
    if (pictures) {
        try {
            std::string written;
            for (const auto& picture : pictures(stored, proposal, w.file))
                written += (written.empty() ? "" : ", ") + picture.string();
            w.pictures = written.empty() ? w.pictures : written;
        } catch (const std::exception& e) {
            w.pictures = dot.string() + "; no SVG: " + e.what();
        }
    }
    return w;
}

std::string learning_summary(const LearnedSpec& learned, std::string_view how, const spec::Spec* stored) {
    std::string out = learned.learner;
    if (!how.empty()) out += " (" + std::string(how) + ")";
    if (learned.bound > 0)
        out += ", DroidStar Algorithm 2 at B=" + std::to_string(learned.bound) + " as equivalence oracle";
    if (learned.spec) {
        const Typestate& t = learned.spec->typestate;
        out += ": " + std::to_string(t.states.size()) + " states, " + std::to_string(t.callins.size()) + " callins, " +
               std::to_string(t.callbacks.size()) + " callbacks, bound " +
               std::to_string(learned.spec->bounds.distinguisher);
    }
    out += ".\n";
    if (!learned.bound_note.empty()) out += "The bound was raised automatically: " + learned.bound_note + ".\n";
    if (stored != nullptr && learned.spec) {
        if (const std::string b = bound_change(*stored, *learned.spec); !b.empty()) out += "Note: " + b + ".\n";
    }
    if (const std::string w = tight_bound_warning(learned); !w.empty()) out += w + "\n";
    if (!learned.seed_note.empty()) out += learned.seed_note + ".\n";
    if (!learned.assumptions.empty()) out += "The learned spec relies on:\n" + assumptions_block(learned.assumptions);
    if (!learned.exploration_note.empty()) out += "Searched " + learned.exploration_note + ".\n";
    return out;
}

}  // namespace typestar

namespace typestar::detail {

ProposalSharing::ProposalSharing(ShareRequest request) : request_(std::move(request)) {
    if (request_.device_key.empty() || !request_.has_failure) return;  // not pinned, or nothing to explain
    const ShareRequest& r = request_;
    key_ = shared_proposal_key(r.stored_bytes, r.device_key, executable_hash(), std::max<std::size_t>(1, r.bound),
                               r.learner, tool_version()) +
           (r.auto_bound ? "bound auto\n" : "") + "mode " + (r.mode == ProposalMode::Print ? "ci" : r.mode == ProposalMode::Update ? "update" : "proposal") +
           "\n";
    lock_.emplace(shared_lock_path(share_name(r.spec)));  // waits while another process learns
}

std::optional<SharedProposal> ProposalSharing::reusable() const {
    if (!lock_ || !lock_->held()) return std::nullopt;
    auto record = read_shared_proposal(shared_record_path(share_name(request_.spec)));
    if (!record || record->key != key_) return std::nullopt;
    // Its files must still be the proposal (not removed, accepted or edited), unless none is written.
    if (request_.mode != ProposalMode::Print &&
        read_bytes(request_.mode == ProposalMode::Update ? request_.spec : proposed_path(request_.spec, "yaml")) !=
            record->yaml)
        return std::nullopt;
    return record;
}

std::string ProposalSharing::shared_by(const SharedProposal& record) {
    // Usually an earlier process of this ctest run; possibly of an earlier run with the same inputs.
    return (record.test.empty() ? std::string("a test") : record.test) + " in test process " +
           std::to_string(record.pid) + (record.when.empty() ? "" : " at " + record.when);
}

void ProposalSharing::share(const std::string& yaml) const {
    if (!lock_ || !lock_->held()) return;
    try {
        write_shared_proposal(shared_record_path(share_name(request_.spec)),
                              SharedProposal{key_, static_cast<long>(::getpid()), request_.requester, utc_now(), yaml});
    } catch (const std::exception& e) {
        logger("typestar.session")->warn("could not share the proposal with other test processes: {}", e.what());
    }
}

WrittenProposal write_proposal_text(const std::filesystem::path& spec_path, const std::string& yaml, bool update) {
    WrittenProposal w;
    w.yaml = yaml;
    if (update) {
        spec::write_file_atomically(spec_path, w.yaml);
        std::error_code ec;
        for (const auto& f : proposal_files(spec_path)) std::filesystem::remove(f, ec);
        w.file = spec_path;
        w.wrote_spec = true;
        return w;
    }
    w.file = proposed_path(spec_path, "yaml");
    spec::write_file_atomically(w.file, w.yaml);
    return w;
}

std::string alphabet_change(const std::vector<std::string>& before, const std::vector<std::string>& now) {
    const std::string added = minus(sorted(now), before);
    const std::string lacking = minus(sorted(before), now);
    std::string out;
    if (!added.empty()) out += "adds " + added;
    if (!lacking.empty()) out += std::string(out.empty() ? "" : "; ") + "lacks " + lacking;
    return out;
}

}  // namespace typestar::detail
