// The abstract device of one learn-refine iteration of alphabet refinement (PSYCO): abstract
// inputs run as concrete values, unknown answers, the split of a partition whose values answer
// differently (its guards in the format's language handed in: SplitGuards).
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

#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/sul/stack.hpp"

#include <spdlog/spdlog.h>

namespace typestar {

PartitionError::PartitionError(std::vector<std::string> inputs, std::vector<std::string> first,
                               std::vector<std::string> second, std::string detail)
    : NondeterminismError(std::move(inputs), std::move(first), std::move(second)), detail_(std::move(detail)) {
    message_ = std::string(NondeterminismError::what()) + ": " + detail_;
}

namespace detail {

/// Output names are symbol names; partition names allow [A-Za-z0-9_.=<>!-] only.
std::string partition_word(const std::string& output) {
    std::string out;
    for (char c : output)
        out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("_.=<>!-").find(c) != std::string_view::npos)
                   ? c
                   : '_';
    return out.empty() ? std::string("x") : out;
}


AbstractDevice::AbstractDevice(Refiner& refiner) : refiner_(refiner), alphabet_(refiner.alphabet()) {
    std::vector<std::string> in;
    for (const auto& a : alphabet_) in.push_back(a.name);
    inputs_ = Alphabet(in);
    std::vector<std::string> out = refiner.concrete().outputs().names();
    if (!refiner.fixed() || (refiner.stored() && refiner.stored()->has_unknown()))
        for (const char* u : {kUnknownPurpose, kUnknownUnresolved, kUnknownDisagreeing})
            if (std::find(out.begin(), out.end(), u) == out.end()) out.emplace_back(u);  // a purpose's own
    outputs_ = Alphabet(out);
    err_ = outputs_.at(kErr);
    for (const char* u : {kUnknownPurpose, kUnknownUnresolved, kUnknownDisagreeing})
        if (const auto s = outputs_.find(u)) unknown_.insert(*s);
    const DeviceTraits concrete = refiner.concrete().traits();
    traits_ = closure_traits(inputs_, outputs_, concrete.quiet.has_value());
    std::size_t max_values = 1;
    for (const auto& c : refiner.callins())
        for (const auto& part : c.partitions) max_values = std::max(max_values, part.values.size());
    instantiations_ = refiner.fixed() ? max_values
                                      : std::max<std::size_t>(1, std::min(refiner.options().instantiations, max_values));
    // Values from the class's code run besides the sampled ones (the constants its guards compare
    // against are where partitions split): instantiation base_ + k gives each partition with
    // such values its k-th.
    base_ = instantiations_;
    if (!refiner.fixed())
        for (const auto& c : refiner.callins())
            for (const auto& part : c.partitions)
                instantiations_ = std::max(instantiations_, base_ + code_values(c, part).size());
}

DeviceDescription AbstractDevice::describe() const {
    DeviceDescription d = refiner_.concrete().describe();
    if (!refiner_.fixed()) d.name = name();  // fixed partitions: the spec's provenance names the device
    d.parameterised.clear();  // its inputs are the abstract ones
    return d;
}

RunResult AbstractDevice::run(std::span<const Symbol> inputs) {
    RunResult r;
    r.outputs = answer(Word(inputs.begin(), inputs.end()));
    r.steps = inputs.size();
    for (Symbol i : inputs) r.waits += alphabet_[i].wait ? 1 : 0;
    return r;
}

std::optional<Symbol> AbstractDevice::confirm_wait(std::span<const Symbol> prefix,
                                                   std::chrono::milliseconds timeout) {
    if (refiner_.refining()) return std::nullopt;  // this iteration's result is discarded
    const Word p(prefix.begin(), prefix.end());
    const Word a = answer(p);
    if (std::any_of(a.begin(), a.end(), [&](Symbol o) { return unknown_.count(o) != 0; }))
        return err_;  // after an unknown answer everything answers err
    // Every instantiation of the prefix: the quiet wait must hold for each declared value.
    std::optional<Symbol> first;
    for (std::size_t j = 0; j < instantiations_; ++j) {
        const auto got = confirm_wait_with_timing_retries(refiner_.concrete(), instantiate(p, j), timeout);
        if (!got) return std::nullopt;
        const Symbol s = abstract_output(*got);
        if (!first) first = s;
        if (s != *first) return s;  // a different answer than quiet: the caller reports it
    }
    return first;
}

Word AbstractDevice::answer(const Word& word) {
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
    if (!result.empty() && (result.back() == err_ || unknown_.count(result.back()) != 0)) return finish(err_);
    // A refinement verdict is pending: this iteration ends without the device (answers it gave stay
    // as they were; everything new is `err`, absorbing, so the learner finishes on what it knows).
    if (refiner_.refining()) return finish(err_);
    const AbstractInput& last = alphabet_[word.back()];
    if (refiner_.fixed() && refiner_.stored() && !last.wait) {
        const std::vector<std::string> n = names(word);
        if (const auto u = first_unknown(*refiner_.stored(), n); u && u->index + 1 == n.size()) {
            const char* output = u->unknown.source == Unknown::Source::Purpose      ? kUnknownPurpose
                                 : u->unknown.source == Unknown::Source::Unresolved ? kUnknownUnresolved
                                                                                    : kUnknownDisagreeing;
            return finish(outputs_.at(output), u->unknown);
        }
    }
    if (!refiner_.fixed()) {
        if (const auto& purpose = refiner_.options().purpose; purpose && !last.wait) {
            std::vector<AbstractStep> history;
            for (std::size_t i = 0; i < prefix.size(); ++i)
                history.push_back({inputs_.name(prefix[i]), outputs_.name(result[i])});
            if (!purpose(history, last.name))
                return finish(outputs_.at(kUnknownPurpose),
                              Unknown{Unknown::Source::Purpose,
                                      "the learning purpose of " + refiner_.options().purpose_name +
                                          " never calls it here"});
        }
        if (const auto it = refiner_.late_unknowns().find(names(word)); it != refiner_.late_unknowns().end())
            return finish(outputs_.at(kUnknownDisagreeing), it->second);
    }
    std::vector<Word> concrete(instantiations_);
    std::vector<Word> answers;
    for (std::size_t j = 0; j < instantiations_; ++j) {
        concrete[j] = instantiate(word, j);
        answers.push_back(refiner_.run_concrete(concrete[j]));
    }
    bool agree = true;
    for (const auto& a : answers) agree = agree && a == answers.front();
    if (agree) return finish(abstract_output(answers.front().back()));
    // Values answer differently: first make sure each answer is the device's, not a flake (a
    // different answer on a re-run is NondeterminismError, never value dependence).
    refiner_.confirm(concrete);
    if (refiner_.fixed()) {
        std::size_t j = 1;
        while (answers[j] == answers.front()) ++j;
        throw PartitionError(names(word), output_names(answers.front()), output_names(answers[j]),
                             "instantiations " + concrete_text(concrete.front()) + " and " + concrete_text(concrete[j]) +
                                 " of the spec's partitions answer differently: the partitions do not describe the device");
    }
    // Same concrete prefix for every instantiation's prefix (same picks, one cache): only the
    // last step can differ. Find the partition whose values alone make the difference.
    auto explained = refine_or_explain(word, concrete.front());
    if (!explained) return finish(err_);  // a split: the verdict is with the refinement loop
    auto [why, position] = std::move(*explained);
    if (last.wait) {
        // The callback depends on argument values no partition explains (PSYCO: the symbolic
        // executor's unknown): the callin whose values make the difference is unknown, and learning
        // restarts with it (its answer `ok` was already given to the learner).
        if (!position)
            throw Error("the callback after " + text(word) + " depends on argument values that no single "
                        "partition explains (" + why.reason + ") and no parameterised callin precedes it");
        const Word at(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(*position + 1));
        why.reason = "the callback after " + text(word) + " depends on the values of " + inputs_.name(word[*position]) +
                     ": " + why.reason;
        refiner_.give(LateUnknown{names(at), std::move(why)});
        return finish(err_);
    }
    return finish(outputs_.at(kUnknownDisagreeing), std::move(why));
}

void AbstractDevice::recheck_cover(const MealyMachine& machine, const std::vector<Word>& access) {
    std::vector<Word> words;
    for (const Word& u : access)
        for (Symbol i = 0; i < machine.num_inputs(); ++i) {
            Word w = u;
            w.push_back(i);
            const Word a = answer(w);
            if (refiner_.refining()) return;
            bool live = true;
            for (std::size_t k = 0; k < a.size(); ++k)
                live = live && unknown_.count(a[k]) == 0 && (a[k] != err_ || k + 1 == a.size());
            if (!live) continue;
            for (std::size_t j = 0; j < instantiations_; ++j) words.push_back(instantiate(w, j));
        }
    refiner_.confirm(words);
}

std::vector<std::size_t> AbstractDevice::code_values(const CallinEntry& c, const AbstractPartition& part) {
    std::vector<std::size_t> out;
    for (std::size_t v : part.values)
        if (c.from_code.count(v) != 0) out.push_back(v);
    return out;
}

Word AbstractDevice::instantiate(const Word& word, std::size_t j) const {
    Word out;
    for (std::size_t i = 0; i < word.size(); ++i) {
        const AbstractInput& a = alphabet_[word[i]];
        if (a.wait) {
            out.push_back(refiner_.concrete().inputs().at(kWait));
            continue;
        }
        std::optional<std::size_t> value;
        if (a.partition) {
            const auto& callin = refiner_.callins()[a.callin];
            const auto& values = callin.partitions[*a.partition].values;
            const auto code = j < base_ ? std::vector<std::size_t>{} : code_values(callin, callin.partitions[*a.partition]);
            value = code.empty() ? values[(j + i) % values.size()] : code[(j - base_) % code.size()];
        }
        out.push_back(refiner_.concrete_symbol(a.callin, value));
    }
    return out;
}

std::optional<std::pair<Unknown, std::optional<std::size_t>>> AbstractDevice::refine_or_explain(const Word& word, const Word& base) {
    const std::size_t n = word.size();
    const auto& out_names = refiner_.concrete().outputs();
    std::optional<std::size_t> last_partitioned;
    for (std::size_t q = n; q-- > 0;) {
        const AbstractInput& a = alphabet_[word[q]];
        if (!a.partition) continue;
        if (!last_partitioned) last_partitioned = q;
        auto& callin = refiner_.callins()[a.callin];
        const AbstractPartition part = callin.partitions[*a.partition];
        if (part.values.size() < 2) continue;
        std::vector<Word> keys;                       // answers from q on, in order of first appearance
        std::vector<std::vector<std::size_t>> groups;
        std::vector<Word> ran;
        for (std::size_t v : part.values) {
            Word c = base;
            c[q] = refiner_.concrete_symbol(a.callin, v);
            const Word r = refiner_.run_concrete(c);
            ran.push_back(std::move(c));
            const Word key(r.begin() + static_cast<std::ptrdiff_t>(q), r.end());
            const auto at = std::find(keys.begin(), keys.end(), key);
            if (at == keys.end()) {
                keys.push_back(key);
                groups.push_back({v});
            } else {
                groups[static_cast<std::size_t>(at - keys.begin())].push_back(v);
            }
        }
        if (groups.size() < 2) continue;
        refiner_.confirm(ran);  // every answer the split would rest on, re-run past the cache
        std::size_t d = 0;  // first position (from q) where the groups' answers differ
        while (std::all_of(keys.begin(), keys.end(), [&](const Word& k) { return k[d] == keys.front()[d]; })) ++d;
        const std::string split_by = text(word, q + d + 1);
        std::string example;
        for (std::size_t g = 0; g < groups.size(); ++g)
            example += (g ? ", " : "") + std::string("'") + callin.pool_values[groups[g].front()] + "' " +
                       out_names.name(keys[g][d]);
        if (refiner_.report().refinements.size() >= refiner_.options().max_refinements)
            return std::pair{Unknown{Unknown::Source::Disagreeing,
                            "values of " + inputs_.name(word[q]) + " still answer differently after the refinement budget (" +
                                std::to_string(refiner_.options().max_refinements) + " splits): " + example},
                    q};
        // Split: one partition per answer, named after it, in order of first appearance.
        std::vector<AbstractPartition> into;
        std::set<std::string> used;
        for (const auto& p : callin.partitions) used.insert(p.name);
        used.erase(part.name);
        RefinementRecord record{callin.name, part.name, {}, split_by};
        std::vector<std::size_t> others;
        for (std::size_t o = 0; o < callin.partitions.size(); ++o)
            if (o != *a.partition)
                others.insert(others.end(), callin.partitions[o].values.begin(), callin.partitions[o].values.end());
        const auto expressions = refiner_.split_guards(part.guard, callin.parameters, callin.pool_values, groups, others);
        for (std::size_t g = 0; g < groups.size(); ++g) {
            const std::string answer = out_names.name(keys[g][d]);
            // Named after the answer that tells the groups apart: its own (`any.ok`), or a later
            // one when the difference shows only further on (`any.then-err`).
            const std::string stem = part.name + (d == 0 ? "." : ".then-") + partition_word(answer);
            std::string name = stem;
            for (int k = 2; used.count(name); ++k) name = stem + "-" + std::to_string(k);
            used.insert(name);
            // The guard: an expression of the language when split_guards finds one (what the
            // values answered stays in the name and split_by), else the parent's words and the answer.
            AbstractPartition np{name,
                                 expressions ? (*expressions)[g]
                                             : (part.guard.empty() ? std::string() : part.guard + "; ") +
                                                   "answers " + answer + " at the end of " + split_by,
                                 groups[g], part.name, split_by};
            record.into.push_back(name);
            into.push_back(std::move(np));
        }
        refiner_.give(Split{a.callin, *a.partition, std::move(into), std::move(record)});
        return std::nullopt;
    }
    return std::pair{Unknown{Unknown::Source::Disagreeing,
                    "instantiations of " + text(word) + " answer differently, and no single partition's values explain it"},
            last_partitioned};
}

}  // namespace detail

}  // namespace typestar
