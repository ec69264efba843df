#include "typestar/session/proposal.hpp"

#include <algorithm>
#include <exception>

#include "typestar/conformance/suite.hpp"
#include "typestar/core/typestate.hpp"
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

/// "adds x, y; lacks z" of `now` against `before`.
std::string alphabet_change(const std::vector<std::string>& before, const std::vector<std::string>& now) {
    const std::string added = minus(sorted(now), before);
    const std::string lacking = minus(sorted(before), now);
    std::string out;
    if (!added.empty()) out += "adds " + added;
    if (!lacking.empty()) out += std::string(out.empty() ? "" : "; ") + "lacks " + lacking;
    return out;
}

/// `n` with thousands separators: 57637 -> "57,637".
std::string grouped(std::size_t n) {
    std::string digits = std::to_string(n);
    for (std::size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, ",");
    return digits;
}

}  // namespace

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

std::vector<std::string> proposal_mismatch(const spec::Spec& stored, const spec::Spec& proposal) {
    std::vector<std::string> out;
    const Typestate& s = stored.typestate;
    const Typestate& p = proposal.typestate;
    if (s.name != p.name) out.push_back("another class: the proposal is '" + p.name + "', the spec '" + s.name + "'");
    if (sorted(s.callins) != sorted(p.callins))
        out.push_back("other callins: the proposal " + alphabet_change(s.callins, p.callins));
    if (sorted(s.callbacks) != sorted(p.callbacks))
        out.push_back("other callbacks: the proposal " + alphabet_change(s.callbacks, p.callbacks));
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
               grouped(*old_size) + " to " + grouped(*new_size) + " words";
    return out;
}

WrittenProposal write_proposal(const std::filesystem::path& spec_path, const spec::Spec* stored,
                               const spec::Spec& proposal, bool update, const ProposalPictures& pictures) {
    WrittenProposal w;
    w.yaml = spec::write_spec(proposal);
    if (update) {
        spec::write_file_atomically(spec_path, w.yaml);
        std::error_code ec;
        for (const auto& f : proposal_files(spec_path)) std::filesystem::remove(f, ec);
        w.file = spec_path;
        w.wrote_spec = true;
        return w;
    }
    w.file = proposed_path(spec_path, "yaml");
    const auto dot = proposed_path(spec_path, "dot");
    spec::write_file_atomically(w.file, w.yaml);
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
    if (stored != nullptr && learned.spec) {
        if (const std::string b = bound_change(*stored, *learned.spec); !b.empty()) out += "Note: " + b + ".\n";
    }
    if (const std::string w = tight_bound_warning(learned); !w.empty()) out += w + "\n";
    if (!learned.assumptions.empty()) out += "The learned spec relies on:\n" + assumptions_block(learned.assumptions);
    return out;
}

}  // namespace typestar
