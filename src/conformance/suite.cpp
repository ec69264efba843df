#include "typestar/conformance/suite.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/core/traits.hpp"

namespace typestar {

namespace {

/// All words of length 0..max_length, shortest first.
std::vector<Word> words_up_to(std::size_t k, std::size_t max_length) {
    std::vector<Word> result;
    for (std::size_t n = 0; n <= max_length; ++n) {
        auto words = words_of_length(k, n);
        result.insert(result.end(), words.begin(), words.end());
    }
    return result;
}

Word concat(const Word& a, const Word& b) {
    Word w = a;
    w.insert(w.end(), b.begin(), b.end());
    return w;
}

Word concat(const Word& a, const Word& b, const Word& c) { return concat(concat(a, b), c); }

std::vector<Word> resolve_access(const MealyMachine& model, const SuiteConfig& config) {
    std::vector<Word> access;
    if (config.access.empty()) {
        const auto found = access_sequences(model);
        for (StateId q = 0; q < found.size(); ++q) {
            if (!found[q]) throw std::invalid_argument("state " + model.state_name(q) + " is unreachable");
            access.push_back(*found[q]);
        }
    } else {
        if (config.access.size() != model.num_states())
            throw std::invalid_argument("suite: " + std::to_string(config.access.size()) +
                                        " access sequences for " + std::to_string(model.num_states()) + " states");
        access = config.access;
        for (StateId q = 0; q < access.size(); ++q) {
            for (Symbol a : access[q])
                if (a >= model.num_inputs()) throw std::invalid_argument("suite: access sequence out of range");
            if (model.run(access[q]) != q)
                throw std::invalid_argument("suite: the access sequence of state " + model.state_name(q) +
                                            " does not reach it");
        }
    }
    return access;
}

std::string words_text(const Word& w, const Alphabet& inputs) { return to_string(w, inputs); }

TestSuite make_suite(const MealyMachine& model, SuiteMethod method, std::size_t bound) {
    TestSuite suite;
    suite.inputs = model.inputs();
    suite.outputs = model.outputs();
    suite.method = method;
    suite.bound = bound;
    return suite;
}

void add_case(TestSuite& suite, const MealyMachine& model, Word inputs, std::string purpose) {
    Word expected = model.outputs_of(inputs);
    suite.cases.push_back(TestCase{std::move(inputs), std::move(expected), std::move(purpose)});
}

}  // namespace

const char* method_name(SuiteMethod method) noexcept {
    switch (method) {
        case SuiteMethod::Algorithm2: return "alg2";
        case SuiteMethod::W: return "w";
        case SuiteMethod::Wp: return "wp";
    }
    return "?";
}

std::optional<SuiteMethod> parse_method(std::string_view name) noexcept {
    if (name == "alg2") return SuiteMethod::Algorithm2;
    if (name == "w") return SuiteMethod::W;
    if (name == "wp") return SuiteMethod::Wp;
    return std::nullopt;
}

std::size_t TestSuite::symbols() const noexcept {
    std::size_t n = 0;
    for (const auto& c : cases) n += c.inputs.size();
    return n;
}

std::size_t TestSuite::waits() const {
    const auto wait = inputs.find(kWait);
    if (!wait) return 0;
    std::size_t n = 0;
    for (const auto& c : cases) n += static_cast<std::size_t>(std::count(c.inputs.begin(), c.inputs.end(), *wait));
    return n;
}

void finalize_cases(std::vector<TestCase>& cases, std::optional<Symbol> absorbing) {
    if (absorbing) {
        for (auto& c : cases) {
            const auto it = std::find(c.expected.begin(), c.expected.end(), *absorbing);
            if (it != c.expected.end()) {
                const auto keep = static_cast<std::size_t>(it - c.expected.begin()) + 1;
                c.expected.resize(keep);
                c.inputs.resize(keep);
            }
        }
    }
    std::vector<std::size_t> order(cases.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (cases[a].inputs != cases[b].inputs) return cases[a].inputs < cases[b].inputs;
        return a < b;
    });
    std::vector<std::size_t> keep;
    for (std::size_t r = 0; r < order.size();) {
        // A run of equal words: the first (by original index) stands for all.
        std::size_t end = r + 1;
        while (end < order.size() && cases[order[end]].inputs == cases[order[r]].inputs) ++end;
        const Word& w = cases[order[r]].inputs;
        bool is_prefix = false;
        if (end < order.size()) {
            const Word& next = cases[order[end]].inputs;
            is_prefix = next.size() > w.size() && std::equal(w.begin(), w.end(), next.begin());
        }
        if (!is_prefix) keep.push_back(order[r]);
        r = end;
    }
    std::sort(keep.begin(), keep.end());
    std::vector<TestCase> result;
    result.reserve(keep.size());
    for (std::size_t i : keep) result.push_back(std::move(cases[i]));
    cases = std::move(result);
}

TestSuite algorithm2_suite(const MealyMachine& model, const SuiteConfig& config) {
    const auto access = resolve_access(model, config);
    const DeviceTraits traits = config.traits ? *config.traits : closure_traits(model.inputs(), model.outputs());
    const std::size_t k = model.num_inputs();
    const auto suffixes = words_of_length(k, config.bound);
    const Alphabet& in = model.inputs();
    TestSuite suite = make_suite(model, SuiteMethod::Algorithm2, config.bound);
    for (StateId q = 0; q < model.num_states(); ++q) {
        for (Symbol i = 0; i < k; ++i) {
            const auto& t = model.transition(q, i);
            Word base = access[q];
            base.push_back(i);
            const std::string where = "state " + model.state_name(q) + ", input " + in.name(i);
            const bool err = traits.absorbing && t.output == *traits.absorbing;
            const bool quiet_loop = traits.wait && traits.quiet && i == *traits.wait && t.output == *traits.quiet &&
                                    t.target == q;
            const bool tree = access[t.target] == base;
            if (err || quiet_loop || tree) {
                add_case(suite, model, base, where);
                continue;
            }
            for (const Word& s : suffixes) {
                add_case(suite, model, concat(base, s),
                         s.empty() ? where : where + ", then suffix " + words_text(s, in));
            }
            for (const Word& s : suffixes) {
                add_case(suite, model, concat(access[t.target], s),
                         "state " + model.state_name(t.target) + " (target of " + where + ")" +
                             (s.empty() ? std::string() : ", suffix " + words_text(s, in)));
            }
        }
    }
    finalize_cases(suite.cases, traits.absorbing);
    return suite;
}

TestSuite w_method_suite(const MealyMachine& model, const SuiteConfig& config) {
    const auto access = resolve_access(model, config);
    const DeviceTraits traits = config.traits ? *config.traits : closure_traits(model.inputs(), model.outputs());
    const std::size_t k = model.num_inputs();
    auto w_set = characterizing_set(model);
    if (w_set.empty()) w_set.push_back(Word{});
    const auto middles = words_up_to(k, extra_states_for(model, config));
    const Alphabet& in = model.inputs();
    TestSuite suite = make_suite(model, SuiteMethod::W, extra_states_for(model, config));
    std::vector<Word> cover;
    for (StateId q = 0; q < model.num_states(); ++q) {
        cover.push_back(access[q]);
        for (Symbol i = 0; i < k; ++i) cover.push_back(concat(access[q], Word{i}));
    }
    for (const Word& p : cover)
        for (const Word& m : middles)
            for (const Word& w : w_set)
                add_case(suite, model, concat(p, m, w),
                         "W-method: state " + model.state_name(model.run(p)) + " via " + words_text(p, in) +
                             ", middle " + words_text(m, in) + ", distinguishing " + words_text(w, in));
    finalize_cases(suite.cases, traits.absorbing);
    return suite;
}

TestSuite wp_method_suite(const MealyMachine& model, const SuiteConfig& config) {
    const auto access = resolve_access(model, config);
    const DeviceTraits traits = config.traits ? *config.traits : closure_traits(model.inputs(), model.outputs());
    const std::size_t n = model.num_states();
    const std::size_t k = model.num_inputs();
    auto w_set = characterizing_set(model);
    const auto classes = equivalence_classes(model);
    const auto middles = words_up_to(k, extra_states_for(model, config));
    const Alphabet& in = model.inputs();
    // Identification set of each state: the first word of W telling it from each other class.
    std::vector<std::vector<Word>> local(n);
    for (StateId q = 0; q < n; ++q) {
        std::vector<char> used(w_set.size(), 0);
        for (StateId r = 0; r < n; ++r) {
            if (classes[r] == classes[q]) continue;
            bool told = false;
            for (std::size_t j = 0; j < w_set.size() && !told; ++j)
                if (used[j] && model.outputs_of(w_set[j], q) != model.outputs_of(w_set[j], r)) told = true;
            for (std::size_t j = 0; j < w_set.size() && !told; ++j)
                if (model.outputs_of(w_set[j], q) != model.outputs_of(w_set[j], r)) {
                    used[j] = 1;
                    told = true;
                }
        }
        for (std::size_t j = 0; j < w_set.size(); ++j)
            if (used[j]) local[q].push_back(w_set[j]);
        if (local[q].empty()) local[q].push_back(Word{});
    }
    if (w_set.empty()) w_set.push_back(Word{});
    TestSuite suite = make_suite(model, SuiteMethod::Wp, extra_states_for(model, config));
    for (StateId q = 0; q < n; ++q)
        for (const Word& m : middles)
            for (const Word& w : w_set)
                add_case(suite, model, concat(access[q], m, w),
                         "Wp-method: state " + model.state_name(q) + ", middle " + words_text(m, in) +
                             ", distinguishing " + words_text(w, in));
    for (StateId q = 0; q < n; ++q)
        for (Symbol i = 0; i < k; ++i) {
            const Word p = concat(access[q], Word{i});
            if (access[model.successor(q, i)] == p) continue;  // in the state cover
            for (const Word& m : middles) {
                const StateId r = model.run(concat(p, m));
                for (const Word& w : local[r])
                    add_case(suite, model, concat(p, m, w),
                             "Wp-method: state " + model.state_name(q) + ", input " + in.name(i) + ", middle " +
                                 words_text(m, in) + ", identifying " + model.state_name(r) + " by " +
                                 words_text(w, in));
            }
        }
    finalize_cases(suite.cases, traits.absorbing);
    return suite;
}

std::size_t extra_states_for(const MealyMachine& model, const SuiteConfig& config) noexcept {
    std::size_t k = config.extra_states;
    if (config.state_bound && *config.state_bound > model.num_states())
        k = std::max(k, *config.state_bound - model.num_states());
    return k;
}

TestSuite generate_suite(const MealyMachine& model, const SuiteConfig& config) {
    switch (config.method) {
        case SuiteMethod::Algorithm2: return algorithm2_suite(model, config);
        case SuiteMethod::W: return w_method_suite(model, config);
        case SuiteMethod::Wp: return wp_method_suite(model, config);
    }
    throw std::invalid_argument("unknown suite method");
}

}  // namespace typestar
