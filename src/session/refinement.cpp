// learn_with_refinement: black-box alphabet refinement (PSYCO Algorithm 3) over any Device: the
// learning loop (learn_spec on the abstract alphabet, again after each split), the refined spec it
// writes, what the format says of a device's partitions (callins_of, the guards of a split) and the
// partitions a check runs. The abstraction it learns through — the Refiner and the abstract device
// — is the learners' (typestar/learn/abstraction.hpp).
#include "typestar/session/refinement.hpp"

#include "refinement_detail.hpp"
#include "typestar/learn/abstraction.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "typestar/core/guard.hpp"
#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/sul/stack.hpp"

#include <spdlog/spdlog.h>

namespace typestar {
namespace detail {

/// The guards of a split, in the guard language (docs/spec-format-v2.md, "Guards"), when they are
/// cheap to say and sound on the values: a callin with one `int` parameter whose values are
/// integers, split from a partition whose guard is empty or an expression. One group {c} whose
/// neighbours c-1 and c+1 answered with the other group (a value from the code and its neighbours)
/// is `v == c` / `v != c`; groups that are runs of the sorted values are cut at ordered boundaries
/// (`v < b`, `v >= b && v < b'`, `v >= b'`), b the least value of the run above; else equalities
/// (the largest group: `v != x && ...`). Each is conjoined with the parent's guard and checked on
/// every value of the split (its own group only) and on `others`, the values of the callin's other
/// partitions (none); nullopt, so the guard stays in words, otherwise.
std::optional<std::vector<std::string>> split_guards(const std::string& parent,
                                                     const std::vector<std::pair<std::string, std::string>>& parameters,
                                                     const std::vector<std::string>& pool_values,
                                                     const std::vector<std::vector<std::size_t>>& groups,
                                                     const std::vector<std::size_t>& others) {
    constexpr std::size_t kMaxAtoms = 16;  // a longer guard says less than the words and the values
    if (parameters.size() != 1 || parameters[0].second != "int" || groups.size() < 2) return std::nullopt;
    const std::vector<spec::Parameter> params{{parameters[0].first, "int"}};
    Guard base;  // true
    if (!parent.empty()) {
        auto g = spec::partition_guard(parent, params);
        if (!g.expression) return std::nullopt;
        base = std::move(*g.expression);
    }
    std::vector<std::pair<std::int64_t, std::size_t>> sorted;  // (value, group)
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (std::size_t v : groups[g]) {
            const std::string& text = pool_values[v];
            std::int64_t x = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
            if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
            sorted.emplace_back(x, g);
        }
    std::sort(sorted.begin(), sorted.end());
    const auto to_int = [](const std::string& text) {  // read above: an integer
        std::int64_t x = 0;
        std::from_chars(text.data(), text.data() + text.size(), x);
        return x;
    };
    const auto has = [&](std::size_t group, std::int64_t x) {
        return std::any_of(sorted.begin(), sorted.end(), [&](const auto& e) { return e.first == x && e.second == group; });
    };
    const Term v{Term::Kind::Param, 0};
    const auto lit = [](std::int64_t x) { return Term{Term::Kind::Literal, 0, x}; };
    std::vector<Guard> own(groups.size());
    // (a) one value and both its neighbours in the other group
    std::optional<std::size_t> single;
    if (groups.size() == 2)
        for (std::size_t g = 0; g < 2; ++g) {
            if (groups[g].size() != 1) continue;
            const std::int64_t c = to_int(pool_values[groups[g][0]]);
            if (c > INT64_MIN && c < INT64_MAX && has(1 - g, c - 1) && has(1 - g, c + 1)) single = g;
        }
    // (b) runs of the sorted values, one per group
    std::vector<std::size_t> run_groups;
    for (const auto& e : sorted)
        if (run_groups.empty() || run_groups.back() != e.second) run_groups.push_back(e.second);
    const bool runs = std::set<std::size_t>(run_groups.begin(), run_groups.end()).size() == run_groups.size();
    if (single) {
        own[*single] = Guard{{{Atom{v, Op::Eq, lit(to_int(pool_values[groups[*single][0]]))}}}};
        own[1 - *single] = Guard{{{Atom{v, Op::Ne, lit(to_int(pool_values[groups[*single][0]]))}}}};
    } else if (runs) {
        for (std::size_t r = 0; r < run_groups.size(); ++r) {
            std::vector<Atom> conj;
            const auto low = std::find_if(sorted.begin(), sorted.end(), [&](const auto& e) { return e.second == run_groups[r]; });
            if (r > 0) conj.push_back(Atom{v, Op::Ge, lit(low->first)});
            if (r + 1 < run_groups.size()) {
                const auto next = std::find_if(sorted.begin(), sorted.end(),
                                               [&](const auto& e) { return e.second == run_groups[r + 1]; });
                conj.push_back(Atom{v, Op::Lt, lit(next->first)});
            }
            own[run_groups[r]] = Guard{{conj}};
        }
    } else {
        std::size_t largest = 0;
        for (std::size_t g = 1; g < groups.size(); ++g)
            if (groups[g].size() > groups[largest].size()) largest = g;
        own[largest] = Guard{{{}}};
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (g == largest) continue;
            own[g].disjuncts.clear();
            for (std::size_t x : groups[g]) {
                const Term c = lit(to_int(pool_values[x]));
                own[g].disjuncts.push_back({Atom{v, Op::Eq, c}});
                own[largest].disjuncts.front().push_back(Atom{v, Op::Ne, c});
            }
        }
    }
    std::vector<std::string> out;
    const auto name = [&](const Term&) { return parameters[0].first; };
    for (std::size_t g = 0; g < groups.size(); ++g) {
        Guard both;  // base && own[g], in disjunctive normal form
        both.disjuncts.clear();
        std::size_t atoms = 0;
        for (const auto& b : base.disjuncts)
            for (const auto& o : own[g].disjuncts) {
                std::vector<Atom> conj = b;
                conj.insert(conj.end(), o.begin(), o.end());
                atoms += conj.size();
                both.disjuncts.push_back(std::move(conj));
            }
        if (atoms > kMaxAtoms) return std::nullopt;
        for (std::size_t h = 0; h <= groups.size(); ++h)
            for (std::size_t x : h < groups.size() ? groups[h] : others) {
                const auto holds = spec::guard_holds(both, params, pool_values[x]);
                if (!std::holds_alternative<bool>(holds) || std::get<bool>(holds) != (h == g)) return std::nullopt;
            }
        out.push_back(guard_text(both, name));
    }
    return out;
}

/// The callins of `device` in input order: a parameterised callin (describe().parameterised) stands
/// where its first value input is; every other input but `wait` is a plain callin.
std::vector<CallinEntry> callins_of(const Device& device, const DeviceDescription& d) {
    const Alphabet& in = device.inputs();
    std::map<std::string, std::size_t> param_of_input;  // device input -> index into d.parameterised
    for (std::size_t p = 0; p < d.parameterised.size(); ++p)
        for (const auto& part : d.parameterised[p].partitions)
            for (const auto& v : part.values) {
                if (!in.contains(v.input))
                    throw std::invalid_argument(device.name() + ": value input '" + v.input + "' of callin '" +
                                                d.parameterised[p].callin + "' is not one of the device's inputs");
                const auto [at, fresh] = param_of_input.emplace(v.input, p);
                if (!fresh && at->second != p)
                    throw std::invalid_argument(device.name() + ": input '" + v.input + "' is a value of two callins");
            }
    std::vector<CallinEntry> out;
    std::vector<bool> placed(d.parameterised.size(), false);
    for (Symbol s = 0; s < in.size(); ++s) {
        const std::string& name = in.name(s);
        if (name == kWait) continue;
        const auto it = param_of_input.find(name);
        if (it == param_of_input.end()) {
            CallinEntry c;
            c.name = name;
            c.plain = s;
            out.push_back(std::move(c));
            continue;
        }
        if (placed[it->second]) continue;
        placed[it->second] = true;
        const auto& p = d.parameterised[it->second];
        CallinEntry c;
        c.name = p.callin;
        c.parameters = p.parameters;
        for (const auto& part : p.partitions) {
            AbstractPartition a{part.name, part.guard, {}, {}, {}};
            for (const auto& v : part.values) {
                const auto at = std::find(c.pool_values.begin(), c.pool_values.end(), v.value);
                std::size_t index = 0;
                if (at == c.pool_values.end()) {
                    index = c.pool_values.size();
                    c.pool_values.push_back(v.value);
                    c.pool_inputs.push_back(in.at(v.input));
                } else {
                    index = static_cast<std::size_t>(at - c.pool_values.begin());
                    if (c.pool_inputs[index] != in.at(v.input))
                        throw std::invalid_argument(device.name() + ": value '" + v.value + "' of callin '" + p.callin +
                                                    "' is two inputs");
                }
                if (v.from_code) c.from_code.insert(index);
                if (std::find(a.values.begin(), a.values.end(), index) != a.values.end()) continue;
                for (const auto& other : c.partitions)
                    if (std::find(other.values.begin(), other.values.end(), index) != other.values.end())
                        throw std::invalid_argument(device.name() + ": value '" + v.value + "' of callin '" +
                                                    p.callin + "' is in two partitions");
                a.values.push_back(index);
            }
            if (a.values.empty())
                throw std::invalid_argument(device.name() + ": partition '" + part.name + "' of callin '" + p.callin +
                                            "' has no value");
            c.partitions.push_back(std::move(a));
        }
        // The declared guards that are expressions hold on their values, and only there (the check
        // the spec reader applies): refused now, not when the learned spec is written.
        spec::CallinDeclaration declared{c.name, std::vector<spec::Parameter>{}, {}};
        for (const auto& [pname, ptype] : c.parameters) declared.parameters->push_back({pname, ptype});
        for (const auto& part : c.partitions) {
            spec::Partition sp{part.name, part.guard, {}, {}, {}};
            for (std::size_t v : part.values) sp.values.push_back(c.pool_values[v]);
            declared.partitions.push_back(std::move(sp));
        }
        const auto problems = spec::partition_guard_problems(declared, spec::ReadLimits::from_environment().max_transitions);
        if (!problems.empty()) throw std::invalid_argument(device.name() + ": " + problems.front().message);
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace detail

namespace {

using detail::AbstractDevice;
using detail::callins_of;
using detail::kUnknownDisagreeing;
using detail::kUnknownPurpose;
using detail::kUnknownUnresolved;
using detail::Refiner;

/// Access words of the typestate's states over its legal transitions (callins, then `wait`).
std::vector<std::optional<std::vector<std::string>>> access_words(const Typestate& t) {
    std::vector<std::optional<std::vector<std::string>>> access(t.states.size());
    std::deque<StateId> queue{t.initial};
    access[t.initial].emplace();
    while (!queue.empty()) {
        const StateId s = queue.front();
        queue.pop_front();
        const auto visit = [&](StateId to, const std::string& input) {
            if (access[to]) return;
            access[to] = *access[s];
            access[to]->push_back(input);
            queue.push_back(to);
        };
        for (std::size_t c = 0; c < t.callins.size(); ++c)
            if (t.states[s].callins[c]) visit(*t.states[s].callins[c], t.callins[c]);
        if (t.states[s].callback) visit(t.states[s].callback->target, std::string(kWait));
        else if (t.states[s].quiet_target) visit(*t.states[s].quiet_target, std::string(kWait));
    }
    return access;
}

}  // namespace


bool is_parameterised(const Device& device) { return !device.describe().parameterised.empty(); }

RefinedSpec learn_with_refinement(Device& device, const LearnOptions& learn_options, const RefinementOptions& options) {
    const DeviceDescription description = device.describe();
    Refiner refiner(device, callins_of(device, description), options, false, std::nullopt, detail::split_guards);
    double seconds = 0;
    for (;; refiner.apply_verdict()) {
        AbstractDevice abstract(refiner);
        Device* devices[] = {&abstract};
        LearnOptions learn = learn_options;
        learn.seed.reset();            // the alphabet changes between iterations
        learn.counterexample.reset();
        // The flake policy runs below on the concrete device (recheck_cover); the abstract device
        // answers err once a refinement is pending, which a re-run would read as non-determinism.
        learn.flake_check = false;
        // Not yet searched beyond the bound: its random words run abstract inputs with values that
        // refinement has not split yet, and a disagreement there is a NondeterminismError, not a
        // split. The refined spec is then established by the bound alone (no provenance.explored).
        learn.equivalence.explore_words_per_transition = 0;
        // Nor in chained words, for the same reason: a chained word goes on through transitions
        // whose values refinement has not split, so a value-dependent answer there reads as
        // non-determinism (seen on java.security.Signature); the plain suite's words it checks.
        learn.equivalence.chained = false;
        if (learn.name.empty()) learn.name = description.class_name;
        if (learn.device_label.empty()) learn.device_label = description.name;
        LearnedSpec learned = learn_spec(devices, learn);
        seconds += learned.seconds;
        if (refiner.refining()) continue;  // a split or a late unknown: learn again on the new alphabet
        // The three-valued typestate of the learned machine, with each unknown's reason.
        const MealyMachine& m = learned.machine;
        const std::string name = spec::sanitize_name(learn.name);
        std::map<Symbol, Unknown> unknown_outputs;
        unknown_outputs[m.outputs().at(kUnknownPurpose)] = Unknown{Unknown::Source::Purpose, ""};
        unknown_outputs[m.outputs().at(kUnknownUnresolved)] = Unknown{Unknown::Source::Unresolved, ""};
        unknown_outputs[m.outputs().at(kUnknownDisagreeing)] = Unknown{Unknown::Source::Disagreeing, ""};
        Typestate t = typestate_of(m, name, unknown_outputs);
        const auto access = access_words(t);
        for (StateId s = 0; s < t.states.size(); ++s)
            for (auto& [c, u] : t.states[s].unknown) {
                if (!access[s]) continue;
                std::vector<std::string> names = *access[s];
                names.push_back(t.callins[c]);
                const Word w = word_of(names, abstract.inputs());
                (void)abstract.answer(w);
                if (const Unknown* why = abstract.reason(w)) u.reason = why->reason;
            }
        // No answer of the result is believed on one run: its transition cover, again past the cache.
        abstract.recheck_cover(m, learned.access_sequences);
        if (refiner.refining()) continue;
        // Declarations: signatures, the final partitions with the values that ran, the environment role.
        std::vector<spec::CallinDeclaration> declarations;
        for (std::size_t c = 0; c < refiner.callins().size(); ++c) {
            const auto& callin = refiner.callins()[c];
            spec::CallinDeclaration d;
            d.name = callin.name;
            for (const auto& e : description.environment) {
                if (e == callin.name) d.environment = true;
                for (Symbol s : callin.pool_inputs)
                    if (device.inputs().name(s) == e) d.environment = true;
            }
            if (callin.parameterised()) {
                d.parameters.emplace();
                for (const auto& [pname, ptype] : callin.parameters) d.parameters->push_back({pname, ptype});
                const std::set<std::size_t> ran = refiner.values_run(c);
                for (const auto& part : callin.partitions) {
                    spec::Partition sp{part.name, part.guard, {}, part.split_from, part.split_by};
                    for (std::size_t v : part.values) {
                        (ran.count(v) != 0 ? sp.values : sp.not_run).push_back(callin.pool_values[v]);
                        if (ran.count(v) != 0 && callin.from_code.count(v) != 0) sp.from_code.push_back(callin.pool_values[v]);
                    }
                    d.partitions.push_back(std::move(sp));
                }
            }
            if (d.parameters || d.environment) declarations.push_back(std::move(d));
        }
        // The spec as a value, in the form the reader gives it (write_spec reads it back to check).
        spec::Spec s;
        if (learned.spec) {
            s = *learned.spec;  // bounds, timing, assumptions, provenance as learn_spec fills them
        } else {
            s.bounds.distinguisher = std::max(learned.bound, learn.equivalence.bound);
            s.timing.tmax_ms = description.tmax_ms;
            if (description.tmin_ms && *description.tmin_ms > 0) s.timing.tmin_ms = description.tmin_ms;
            s.assumptions.quiet_is_stable = abstract.traits().quiet.has_value();
            s.provenance.tool = tool_version();
            s.provenance.device = learn.device_label;
            s.provenance.framework = description.framework;
        }
        s.declarations = spec::normalised_declarations(std::move(declarations));
        t.input_info = spec::input_info_of(s.declarations);
        s.typestate = canonical(t);
        s.source = {};
        RefinedSpec out{std::move(learned), spec::write_spec(s), {}};
        out.learned.spec = std::move(s);
        out.learned.not_a_closure.clear();
        out.learned.seconds = seconds;
        RefinementReport& r = refiner.report();
        r.final_alphabet = refiner.alphabet().size() - 1;
        r.learning_rounds = refiner.round() + 1;
        r.concrete_executed = refiner.executed();
        r.unknown_transitions = 0;
        for (const auto& st : out.learned.spec->typestate.states) r.unknown_transitions += st.unknown.size();
        r.values_from_code = values_from_code(device);
        out.report = r;
        return out;
    }
}

std::string values_sampled(const std::vector<spec::CallinDeclaration>& declarations) {
    std::string out;
    for (const auto& d : spec::normalised_declarations(declarations))
        for (const auto& p : d.partitions) {
            std::string line = spec::abstract_input(d.name, p.name) + ": ";
            for (std::size_t i = 0; i < p.values.size(); ++i) line += (i ? ", " : "") + p.values[i];
            if (p.values.empty()) line += "none";
            if (!p.from_code.empty()) {
                line += " (from the code: ";
                for (std::size_t i = 0; i < p.from_code.size(); ++i) line += (i ? ", " : "") + p.from_code[i];
                line += ")";
            }
            if (!p.not_run.empty()) {
                line += " (offered, never run: ";
                for (std::size_t i = 0; i < p.not_run.size(); ++i) line += (i ? ", " : "") + p.not_run[i];
                line += "; the guard is wider than the values run)";
            }
            out += (out.empty() ? "values sampled: " : "; ") + line;
        }
    return out;
}

std::string values_from_code(const Device& device) {
    const std::string status = device.describe().values_from_code;
    return "values from the code: " +
           (status.empty() ? std::string("not collected (") + device.name() +
                                 " does not report the values its code compares against; values are sampled only)"
                           : status);
}

PartitionPlan plan_partitions(Device& concrete, const spec::Spec* spec) {
    PartitionPlan plan;
    const bool has_partitions =
        spec != nullptr && std::any_of(spec->declarations.begin(), spec->declarations.end(),
                                       [](const spec::CallinDeclaration& d) { return !d.partitions.empty(); });
    // A device over abstract inputs already (a model of the spec) runs as it is; the alphabet check
    // of the caller names any mismatch.
    if (!is_parameterised(concrete)) return plan;
    if (has_partitions)
        plan.partitioned = std::make_unique<PartitionedDevice>(concrete, spec->declarations, &spec->typestate);
    else
        plan.refine = true;
    return plan;
}

}  // namespace typestar
