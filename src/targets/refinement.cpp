// learn_with_refinement: black-box alphabet refinement (PSYCO Algorithm 3) over the session layer.
#include "typestar/targets/refinement.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/inprocess.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::targets {
namespace {

constexpr const char* kUnknownPurpose = "unknown:purpose";
constexpr const char* kUnknownUnresolved = "unknown:unresolved";
constexpr const char* kUnknownDisagreeing = "unknown:disagreeing";

/// Thrown through the learner when a partition was split: learning restarts on the refined
/// alphabet (PSYCO Algorithm 1's REFINED answer). Not a typestar::Error: it is control flow.
struct RefinementRequest final : std::exception {
    [[nodiscard]] const char* what() const noexcept override { return "the alphabet was refined"; }
};

struct AbstractPartition {
    std::string name;
    std::string guard;
    std::vector<std::size_t> values;  // indices into the callin's pool
    std::string split_from;
    std::string split_by;
};

struct ParameterisedCallin {
    std::vector<std::string> pool;  // every concrete value, in generation order
    std::vector<AbstractPartition> partitions;
};

/// One abstract input of the current alphabet.
struct AbstractInput {
    std::string name;
    std::size_t callin = 0;                // index into the definition's callins (unused for wait)
    std::optional<std::size_t> partition;  // for a parameterised callin
    bool wait = false;
};

/// A concrete run's answer, memoised across refinements (PSYCO's shared MemoizedTable).
struct ConcreteAnswer {
    Word outputs;
    std::optional<std::size_t> unresolved_at;  // first step whose answer differed between repeats
    std::string reason;
    std::size_t round = 0;                     // the learn-refine iteration that obtained it
};

/// Output names are symbol names; partition names allow [A-Za-z0-9_.=<>!-] only.
std::string partition_word(const std::string& output) {
    std::string out;
    for (char c : output)
        out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("_.=<>!-").find(c) != std::string_view::npos)
                   ? c
                   : '_';
    return out.empty() ? std::string("x") : out;
}

/// What survives refinements: the definition, the partitions, the concrete device and the memo.
class Refiner {
public:
    Refiner(const ClassDefinition& definition, const RefinementOptions& options)
        : definition_(definition), options_(options) {
        definition_.validate();
        ClassDefinition concrete = definition_;
        concrete.filter = nullptr;  // the purpose is applied to abstract words (unknown, not err)
        param_of_.assign(definition_.callins.size(), std::nullopt);
        for (std::size_t c = 0; c < definition_.callins.size(); ++c) {
            const auto& callin = definition_.callins[c];
            if (!callin.with_value) continue;
            ParameterisedCallin p;
            for (const auto& part : callin.partitions) {
                AbstractPartition a{part.name, part.guard, {}, {}, {}};
                for (auto& v : part.values.generate(options_.seed + c, options_.values_per_partition)) {
                    auto at = std::find(p.pool.begin(), p.pool.end(), v);
                    if (at == p.pool.end()) {
                        a.values.push_back(p.pool.size());
                        p.pool.push_back(std::move(v));
                    } else if (std::find(a.values.begin(), a.values.end(), at - p.pool.begin()) == a.values.end()) {
                        throw std::invalid_argument("value '" + v + "' of callin '" + callin.name +
                                                    "' is in two partitions");
                    }
                }
                if (a.values.empty())
                    throw std::invalid_argument("partition '" + part.name + "' of callin '" + callin.name +
                                                "' generated no value");
                p.partitions.push_back(std::move(a));
            }
            auto& cc = concrete.callins[c];
            cc.with_value = nullptr;
            cc.partitions.clear();
            cc.parameters.clear();
            for (std::size_t k = 0; k < p.pool.size(); ++k)
                cc.variants.push_back({"v" + std::to_string(k),
                                       [run = callin.with_value, value = p.pool[k]](void* instance) { run(instance, value); }});
            param_of_[c] = params_.size();
            params_.push_back(std::move(p));
        }
        InProcessConfig config;
        config.variants = VariantMode::Split;
        concrete_ = std::make_unique<InProcessDevice>(std::move(concrete), config);
        report_.initial_alphabet = alphabet().size() - 1;
    }

    [[nodiscard]] const ClassDefinition& definition() const { return definition_; }
    [[nodiscard]] const RefinementOptions& options() const { return options_; }
    [[nodiscard]] InProcessDevice& concrete() { return *concrete_; }
    RefinementReport& report() { return report_; }
    [[nodiscard]] std::size_t round() const { return round_; }
    void next_round() { ++round_; }
    [[nodiscard]] const std::vector<std::optional<std::size_t>>& param_of() const { return param_of_; }
    [[nodiscard]] std::vector<ParameterisedCallin>& params() { return params_; }

    /// The current abstract alphabet: callins in declared order (partitions in order), then `wait`.
    [[nodiscard]] std::vector<AbstractInput> alphabet() const {
        std::vector<AbstractInput> out;
        for (std::size_t c = 0; c < definition_.callins.size(); ++c) {
            const auto& name = definition_.callins[c].name;
            if (!param_of_[c]) {
                out.push_back({name, c, std::nullopt, false});
                continue;
            }
            const auto& parts = params_[*param_of_[c]].partitions;
            for (std::size_t p = 0; p < parts.size(); ++p) out.push_back({spec::abstract_input(name, parts[p].name), c, p, false});
        }
        out.push_back({std::string(kWait), 0, std::nullopt, true});
        return out;
    }

    /// The concrete input running callin `c` with pool value `value` (plain callins: its only input).
    [[nodiscard]] Symbol concrete_symbol(std::size_t c, std::optional<std::size_t> value) const {
        const auto& name = definition_.callins[c].name;
        if (!param_of_[c] || params_[*param_of_[c]].pool.size() < 2) return concrete_->inputs().at(name);
        return concrete_->inputs().at(name + "/v" + std::to_string(*value));
    }

    /// Runs `word` (concrete) through the memo; `repeats` executions on a miss.
    ConcreteAnswer run_concrete(const Word& word) {
        ++report_.concrete_requested;
        if (const auto it = memo_.find(word); it != memo_.end()) {
            if (it->second.round < round_) ++report_.reused_across_refinements;
            return it->second;
        }
        ConcreteAnswer answer;
        answer.round = round_;
        std::vector<Word> runs;
        for (std::size_t r = 0; r < std::max<std::size_t>(1, options_.repeats); ++r) {
            runs.push_back(concrete_->run(word).outputs);
            ++report_.concrete_executed;
        }
        answer.outputs = runs.front();
        for (std::size_t i = 0; i < word.size() && !answer.unresolved_at; ++i) {
            std::map<std::string, std::size_t> seen;
            for (const auto& r : runs) ++seen[concrete_->outputs().name(r[i])];
            if (seen.size() < 2) continue;
            answer.unresolved_at = i;
            answer.reason = std::to_string(runs.size()) + " runs disagreed:";
            for (const auto& [out, n] : seen) answer.reason += " " + out + " x" + std::to_string(n);
        }
        memo_.emplace(word, answer);
        return answer;
    }

private:
    ClassDefinition definition_;
    RefinementOptions options_;
    std::vector<std::optional<std::size_t>> param_of_;
    std::vector<ParameterisedCallin> params_;
    std::unique_ptr<InProcessDevice> concrete_;
    std::map<Word, ConcreteAnswer> memo_;
    std::size_t round_ = 0;
    RefinementReport report_;
};

/// The abstract device of one learn-refine iteration: inputs are the current alphabet's abstract
/// inputs and `wait`; outputs the class's plus the three unknown answers, after which everything
/// answers `err` (absorbing).
class AbstractDevice final : public Device {
public:
    explicit AbstractDevice(Refiner& refiner) : refiner_(refiner), alphabet_(refiner.alphabet()) {
        std::vector<std::string> in;
        for (const auto& a : alphabet_) in.push_back(a.name);
        inputs_ = Alphabet(in);
        std::vector<std::string> out = refiner.concrete().outputs().names();
        out.insert(out.end(), {kUnknownPurpose, kUnknownUnresolved, kUnknownDisagreeing});
        outputs_ = Alphabet(out);
        err_ = outputs_.at(kErr);
        traits_ = closure_traits(inputs_, outputs_, refiner.definition().quiet_is_stable);
        std::size_t max_values = 1;
        for (const auto& p : refiner.params())
            for (const auto& part : p.partitions) max_values = std::max(max_values, part.values.size());
        instantiations_ = std::max<std::size_t>(1, std::min(refiner.options().instantiations, max_values));
    }

    [[nodiscard]] const Alphabet& inputs() const override { return inputs_; }
    [[nodiscard]] const Alphabet& outputs() const override { return outputs_; }
    [[nodiscard]] DeviceTraits traits() const override { return traits_; }
    [[nodiscard]] std::string name() const override { return refiner_.concrete().name() + " (abstract)"; }
    [[nodiscard]] DeviceDescription describe() const override {
        DeviceDescription d = refiner_.concrete().describe();
        d.name = name();
        return d;
    }
    void check_timing() override { refiner_.concrete().check_timing(); }
    void reset() override { current_.clear(); }
    Symbol step(Symbol input) override {
        current_.push_back(input);
        return answer(current_).back();
    }
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override {
        RunResult r;
        r.outputs = answer(Word(inputs.begin(), inputs.end()));
        r.steps = inputs.size();
        for (Symbol i : inputs) r.waits += alphabet_[i].wait ? 1 : 0;
        return r;
    }
    [[nodiscard]] std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                     std::chrono::milliseconds timeout) override {
        const Word p(prefix.begin(), prefix.end());
        const Word a = answer(p);
        if (std::any_of(a.begin(), a.end(), [&](Symbol o) { return o >= refiner_.concrete().outputs().size(); }))
            return err_;  // after an unknown answer everything answers err
        return refiner_.concrete().confirm_wait(instantiate(p, 0), timeout);
    }

    /// The abstract answer of `word` (memoised for this iteration).
    Word answer(const Word& word) {
        if (word.empty()) return {};
        if (const auto it = answers_.find(word); it != answers_.end()) return it->second;
        Word prefix(word.begin(), word.end() - 1);
        Word result = answer(prefix);
        const auto finish = [&](Symbol output, std::optional<Unknown> why = std::nullopt) {
            result.push_back(output);
            if (why) reasons_[word] = std::move(*why);
            answers_[word] = result;
            return result;
        };
        if (!result.empty() && (result.back() == err_ || is_unknown(result.back()))) return finish(err_);
        const AbstractInput& last = alphabet_[word.back()];
        if (const auto& filter = refiner_.definition().filter; filter && !last.wait) {
            std::vector<StepRecord> history;
            for (std::size_t i = 0; i < prefix.size(); ++i)
                history.push_back({inputs_.name(prefix[i]), outputs_.name(result[i])});
            if (!filter(history, last.name))
                return finish(outputs_.at(kUnknownPurpose),
                              Unknown{Unknown::Source::Purpose,
                                      "the learning purpose of " + refiner_.definition().name + " never calls it here"});
        }
        std::vector<Word> concrete(instantiations_);
        std::vector<ConcreteAnswer> answers;
        for (std::size_t j = 0; j < instantiations_; ++j) {
            concrete[j] = instantiate(word, j);
            answers.push_back(refiner_.run_concrete(concrete[j]));
            if (answers.back().unresolved_at)
                return finish(outputs_.at(kUnknownUnresolved),
                              Unknown{Unknown::Source::Unresolved, answers.back().reason});
        }
        bool agree = true;
        for (const auto& a : answers) agree = agree && a.outputs == answers.front().outputs;
        if (agree) return finish(answers.front().outputs.back());
        // Same concrete prefix for every instantiation's prefix (same picks, memoised): only the
        // last step can differ. Find the partition whose values alone make the difference.
        auto why = refine_or_explain(word, concrete.front());
        if (alphabet_[word.back()].wait)
            throw Error("the callback after " + text(word) + " depends on argument values that no single "
                        "partition explains (" + why.reason + "): it cannot be recorded as an unknown callin");
        return finish(outputs_.at(kUnknownDisagreeing), std::move(why));
    }

    /// Why `word` (abstract) was answered unknown, if it was.
    [[nodiscard]] const Unknown* reason(const Word& word) const {
        const auto it = reasons_.find(word);
        return it == reasons_.end() ? nullptr : &it->second;
    }

private:
    [[nodiscard]] bool is_unknown(Symbol o) const { return o >= refiner_.concrete().outputs().size(); }

    [[nodiscard]] std::string text(const Word& word, std::size_t end = static_cast<std::size_t>(-1)) const {
        std::string out;
        for (std::size_t i = 0; i < word.size() && i < end; ++i) out += (out.empty() ? "" : " ") + inputs_.name(word[i]);
        return out;
    }

    /// Instantiation `j` of `word`: position i of partition values L takes L[(j + i) mod |L|].
    [[nodiscard]] Word instantiate(const Word& word, std::size_t j) const {
        Word out;
        for (std::size_t i = 0; i < word.size(); ++i) {
            const AbstractInput& a = alphabet_[word[i]];
            if (a.wait) {
                out.push_back(refiner_.concrete().inputs().at(kWait));
                continue;
            }
            std::optional<std::size_t> value;
            if (a.partition) {
                const auto& values = refiner_.params()[*refiner_.param_of()[a.callin]].partitions[*a.partition].values;
                value = values[(j + i) % values.size()];
            }
            out.push_back(refiner_.concrete_symbol(a.callin, value));
        }
        return out;
    }

    /// Varies the value of one partitioned position q of `base` (the first instantiation), last
    /// position first, keeping every other value. When the values answer differently there, splits
    /// the partition by the answers (throws RefinementRequest) or, over budget, explains; when no
    /// single position explains the difference, explains that.
    Unknown refine_or_explain(const Word& word, const Word& base) {
        const std::size_t n = word.size();
        const auto& out_names = refiner_.concrete().outputs();
        for (std::size_t q = n; q-- > 0;) {
            const AbstractInput& a = alphabet_[word[q]];
            if (!a.partition) continue;
            auto& callin = refiner_.params()[*refiner_.param_of()[a.callin]];
            const AbstractPartition part = callin.partitions[*a.partition];
            if (part.values.size() < 2) continue;
            std::vector<Word> keys;                       // answers from q on, in order of first appearance
            std::vector<std::vector<std::size_t>> groups;
            for (std::size_t v : part.values) {
                Word c = base;
                c[q] = refiner_.concrete_symbol(a.callin, v);
                const ConcreteAnswer r = refiner_.run_concrete(c);
                if (r.unresolved_at) return Unknown{Unknown::Source::Unresolved, r.reason};
                const Word key(r.outputs.begin() + static_cast<std::ptrdiff_t>(q), r.outputs.end());
                const auto at = std::find(keys.begin(), keys.end(), key);
                if (at == keys.end()) {
                    keys.push_back(key);
                    groups.push_back({v});
                } else {
                    groups[static_cast<std::size_t>(at - keys.begin())].push_back(v);
                }
            }
            if (groups.size() < 2) continue;
            std::size_t d = 0;  // first position (from q) where the groups' answers differ
            while (std::all_of(keys.begin(), keys.end(), [&](const Word& k) { return k[d] == keys.front()[d]; })) ++d;
            const std::string split_by = text(word, q + d + 1);
            std::string example;
            for (std::size_t g = 0; g < groups.size(); ++g)
                example += (g ? ", " : "") + std::string("'") + callin.pool[groups[g].front()] + "' " + out_names.name(keys[g][d]);
            if (refiner_.report().refinements.size() >= refiner_.options().max_refinements)
                return Unknown{Unknown::Source::Disagreeing,
                               "values of " + inputs_.name(word[q]) + " still answer differently after the refinement budget (" +
                                   std::to_string(refiner_.options().max_refinements) + " splits): " + example};
            // Split: one partition per answer, named after it, in order of first appearance.
            std::vector<AbstractPartition> into;
            std::set<std::string> used;
            for (const auto& p : callin.partitions) used.insert(p.name);
            used.erase(part.name);
            RefinementRecord record{refiner_.definition().callins[a.callin].name, part.name, {}, split_by};
            for (std::size_t g = 0; g < groups.size(); ++g) {
                const std::string answer = out_names.name(keys[g][d]);
                // Named after the answer that tells the groups apart: its own (`any.ok`), or a later
                // one when the difference shows only further on (`any.then-err`).
                const std::string stem = part.name + (d == 0 ? "." : ".then-") + partition_word(answer);
                std::string name = stem;
                for (int k = 2; used.count(name); ++k) name = stem + "-" + std::to_string(k);
                used.insert(name);
                AbstractPartition np{name,
                                     (part.guard.empty() ? std::string() : part.guard + "; ") + "answers " + answer +
                                         " at the end of " + split_by,
                                     groups[g], part.name, split_by};
                record.into.push_back(name);
                into.push_back(std::move(np));
            }
            auto& parts = callin.partitions;
            const auto at = parts.begin() + static_cast<std::ptrdiff_t>(*a.partition);
            const auto pos = parts.erase(at);
            parts.insert(pos, into.begin(), into.end());
            refiner_.report().refinements.push_back(std::move(record));
            throw RefinementRequest();
        }
        return Unknown{Unknown::Source::Disagreeing,
                       "instantiations of " + text(word) + " answer differently, and no single partition's values explain it"};
    }

    Refiner& refiner_;
    std::vector<AbstractInput> alphabet_;
    Alphabet inputs_;
    Alphabet outputs_;
    Symbol err_ = 0;
    DeviceTraits traits_;
    std::size_t instantiations_ = 1;
    Word current_;
    std::map<Word, Word> answers_;
    std::map<Word, Unknown> reasons_;
};

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

RefinedTarget learn_with_refinement(const ClassDefinition& definition, const RefinementOptions& options) {
    Refiner refiner(definition, options);
    double seconds = 0;
    for (;;) {
        AbstractDevice device(refiner);
        Device* devices[] = {&device};
        LearnOptions learn;
        learn.name = definition.name;
        learn.equivalence.bound = options.bound;
        learn.device_label = "inproc:" + definition.name + " (alphabet refinement)";
        std::optional<LearnedSpec> attempt;
        try {
            attempt.emplace(learn_spec(devices, learn));
        } catch (const RefinementRequest&) {
            refiner.next_round();
            continue;
        }
        LearnedSpec& learned = *attempt;
        seconds += learned.seconds;
        // The three-valued typestate of the learned machine, with each unknown's reason.
        const MealyMachine& m = learned.machine;
        std::map<Symbol, Unknown> unknown_outputs;
        unknown_outputs[m.outputs().at(kUnknownPurpose)] = Unknown{Unknown::Source::Purpose, ""};
        unknown_outputs[m.outputs().at(kUnknownUnresolved)] = Unknown{Unknown::Source::Unresolved, ""};
        unknown_outputs[m.outputs().at(kUnknownDisagreeing)] = Unknown{Unknown::Source::Disagreeing, ""};
        Typestate t = typestate_of(m, definition.name, unknown_outputs);
        const auto access = access_words(t);
        std::size_t unknowns = 0;
        for (StateId s = 0; s < t.states.size(); ++s)
            for (auto& [c, u] : t.states[s].unknown) {
                ++unknowns;
                if (!access[s]) continue;
                std::vector<std::string> names = *access[s];
                names.push_back(t.callins[c]);
                const Word w = word_of(names, device.inputs());
                (void)device.answer(w);
                if (const Unknown* why = device.reason(w)) u.reason = why->reason;
            }
        // Declarations: signatures, the final partitions with their values, the environment role.
        std::vector<spec::CallinDeclaration> declarations;
        for (std::size_t c = 0; c < definition.callins.size(); ++c) {
            const auto& callin = definition.callins[c];
            spec::CallinDeclaration d;
            d.name = callin.name;
            d.environment = callin.environment;
            if (refiner.param_of()[c]) {
                d.parameters.emplace();
                for (const auto& [pname, ptype] : callin.parameters) d.parameters->push_back({pname, ptype});
                const auto& p = refiner.params()[*refiner.param_of()[c]];
                for (const auto& part : p.partitions) {
                    spec::Partition sp{part.name, part.guard, {}, part.split_from, part.split_by};
                    for (std::size_t v : part.values) sp.values.push_back(p.pool[v]);
                    d.partitions.push_back(std::move(sp));
                }
            }
            if (d.parameters || d.environment) declarations.push_back(std::move(d));
        }
        t.input_info = spec::input_info_of(declarations);
        spec::Spec s;
        if (learned.spec) {
            s = *learned.spec;  // bounds, timing, assumptions, provenance as learn_spec fills them
        } else {
            s.bounds.distinguisher = options.bound;
            s.timing.tmax_ms = static_cast<double>(definition.timing.tmax.count());
            if (definition.timing.tmin.count() > 0) s.timing.tmin_ms = static_cast<double>(definition.timing.tmin.count());
            s.assumptions.quiet_is_stable = definition.quiet_is_stable;
            s.provenance.tool = tool_version();
            s.provenance.device = learn.device_label;
            s.provenance.framework = definition.framework;
        }
        s.typestate = canonical(t);
        s.declarations = std::move(declarations);
        RefinedTarget out;
        out.learned.text = spec::write_spec(s);
        out.learned.spec = spec::parse_spec(out.learned.text, "(learned)");
        out.learned.spec.source = {};
        out.learned.stats = learned.stats;
        out.learned.rounds = learned.rounds;
        out.learned.converged = learned.converged;
        out.learned.seconds = seconds;
        out.learned.contradictions = learned.cache.contradictions;
        RefinementReport& r = refiner.report();
        r.final_alphabet = refiner.alphabet().size() - 1;
        r.learning_rounds = refiner.round() + 1;
        r.unknown_transitions = 0;
        for (const auto& st : out.learned.spec.typestate.states) r.unknown_transitions += st.unknown.size();
        (void)unknowns;
        out.report = r;
        return out;
    }
}

}  // namespace typestar::targets
