#include "typestar/learn/lstar.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"
#include "typestar/learn/observation_table.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/core/translate.hpp"

namespace typestar {

namespace {

Word suffix_from(const Word& w, std::size_t j) { return Word(w.begin() + static_cast<std::ptrdiff_t>(j), w.end()); }

}  // namespace

class LStar::Impl {
public:
    Impl(MembershipOracle& oracle, LearnerConfig config)
        : oracle_(oracle), config_(std::move(config)), log_(detail::logger("typestar.learn")) {}

    void start();
    void refine(const Counterexample& cex);
    // Closes the table and builds the hypothesis and its access sequences.
    void build();

    std::size_t suggested_ = 1;
    std::optional<MealyMachine> hypothesis_;
    std::vector<Word> access_;
    std::unique_ptr<ObservationTable> table_;

private:
    void close();
    // α(j) of Rivest–Schapire: does access(q_j)·w[j:] answer what the hypothesis predicts for w[j:]?
    bool alpha(const Word& w, const std::vector<StateId>& q, const MealyMachine& h,
               const std::vector<Word>& access, std::size_t j, bool free_only, bool& known);
    // A fresh table with every suffix found so far (cells come back from the cache).
    void new_table();
    // Seeded learning: marks the seed's transitions that `rows` (around a counterexample's break
    // point) run through as refuted, from each row's last transition back; returns how many new.
    std::size_t refute(const std::vector<Word>& rows);

    MembershipOracle& oracle_;
    LearnerConfig config_;
    std::shared_ptr<spdlog::logger> log_;
    std::vector<Word> suffixes_;  // E, in the order added
    std::optional<Symbol> pad_;
    // Seeded learning: cells the cache does not know are predicted by the seed while `predicting_`.
    std::optional<MealyMachine> seed_;
    std::size_t seed_device_outputs_ = 0;  // size of the device's output alphabet when translated
    bool predicting_ = false;
    std::vector<char> refuted_;  // per seed (state, input): never predict through it
    ObservationTable::Predictor predictor_;
};

void LStar::Impl::new_table() {
    table_ = std::make_unique<ObservationTable>(oracle_.inputs().size());
    for (const Word& e : suffixes_) table_->add_suffix(e);
}

std::size_t LStar::Impl::refute(const std::vector<Word>& rows) {
    const std::size_t k = oracle_.inputs().size();
    for (const Word& row : rows) {
        // The last transition of the row's seed path that is still trusted.
        std::vector<std::size_t> path;
        StateId state = seed_->initial();
        for (const Symbol a : row) {
            path.push_back(state * k + a);
            state = seed_->successor(state, a);
        }
        for (std::size_t i = path.size(); i-- > 0;) {
            if (!refuted_[path[i]]) {
                refuted_[path[i]] = 1;
                return 1;
            }
        }
    }
    return 0;
}

void LStar::Impl::close() {
    const ObservationTable::Predictor* predictor = predicting_ ? &predictor_ : nullptr;
    table_->fill(oracle_, pad_, predictor);
    for (auto open = table_->unclosed(); !open.empty(); open = table_->unclosed()) {
        for (auto row : open) table_->promote(row);
        table_->fill(oracle_, pad_, predictor);
    }
}

bool LStar::Impl::alpha(const Word& w, const std::vector<StateId>& q, const MealyMachine& h,
                    const std::vector<Word>& access, std::size_t j, bool free_only, bool& known) {
    Word word = access[q[j]];
    const std::size_t offset = word.size();
    word.insert(word.end(), w.begin() + static_cast<std::ptrdiff_t>(j), w.end());
    Word outputs(word.size());
    if (!oracle_.lookup(word, outputs)) {
        if (free_only) {
            known = false;
            return false;
        }
        outputs = oracle_.query(word);
    }
    known = true;
    const Word expected = h.outputs_of(suffix_from(w, j), q[j]);
    return std::equal(expected.begin(), expected.end(), outputs.begin() + static_cast<std::ptrdiff_t>(offset));
}

void LStar::Impl::refine(const Counterexample& cex) {
    const MealyMachine& h = *hypothesis_;
    const std::vector<Word>& access = access_;
    const Word& w = cex.inputs;
    const std::size_t m = w.size();
    std::vector<Word> new_suffixes;
    std::vector<Word> break_rows;  // rows around the break point (for seeded learning)
    std::vector<StateId> q(m + 1);
    q[0] = h.initial();
    for (std::size_t j = 0; j < m; ++j) q[j + 1] = h.successor(q[j], w[j]);
    if (config_.counterexamples == CexStrategy::AllSuffixes) {
        for (std::size_t j = 0; j + 1 < m; ++j) new_suffixes.push_back(suffix_from(w, j));
        if (predicting_) break_rows.push_back(w);
    } else {
        bool known = false;
        std::size_t lo = 0;
        if (config_.counterexamples == CexStrategy::ShortestSuffix) {
            for (std::size_t j = m; j-- > 1;) {
                if (!alpha(w, q, h, access, j, false, known)) {
                    lo = j;
                    break;
                }
            }
        } else {
            // Known values of α: α(0) is false (w is a counterexample), α(m) true (nothing left).
            // Decompositions the cache already knows cost nothing: evaluate them first, then search
            // the narrowest known false/true gap with real queries.
            std::map<std::size_t, bool> values{{0, false}, {m, true}};
            for (std::size_t j = 1; j < m; ++j) {
                const bool value = alpha(w, q, h, access, j, true, known);
                if (known) values[j] = value;
            }
            std::size_t best_lo = 0, best_hi = m;
            for (auto it = values.begin(), next = std::next(it); next != values.end(); ++it, ++next) {
                if (!it->second && next->second && next->first - it->first < best_hi - best_lo) {
                    best_lo = it->first;
                    best_hi = next->first;
                }
            }
            while (best_hi - best_lo > 1) {
                const std::size_t mid = best_lo + (best_hi - best_lo) / 2;
                if (alpha(w, q, h, access, mid, false, known)) best_hi = mid;
                else best_lo = mid;
            }
            lo = best_lo;
        }
        if (lo + 1 < m) new_suffixes.push_back(suffix_from(w, lo + 1));
        if (predicting_ && lo < m) {
            break_rows.push_back(access[q[lo]]);
            break_rows.back().push_back(w[lo]);
            break_rows.push_back(access[q[lo + 1]]);
            break_rows.push_back(w);
        }
    }

    const std::size_t refuted = predicting_ ? refute(break_rows) : 0;
    bool added = false;
    for (const Word& e : new_suffixes) {
        if (std::find(suffixes_.begin(), suffixes_.end(), e) != suffixes_.end()) continue;
        suffixes_.push_back(e);
        added = true;
        if (!predicting_) table_->add_suffix(e);
    }
    if (predicting_) {
        if (!added && refuted == 0) {
            log_->info("seed predictions stop helping; asking every cell from now on");
            predicting_ = false;
        }
        new_table();  // real cells may change rows of SQ: start over, the cache answers
        return;
    }
    if (!added)
        throw Error("counterexample of length " + std::to_string(m) +
                    " does not refine the observation table (the device answers inconsistently?)");
}

void LStar::Impl::start() {
    const Alphabet& inputs = oracle_.inputs();
    const std::size_t k = inputs.size();
    if (config_.pad_queries) {
        const auto wait = oracle_.traits().wait;
        for (Symbol a = 0; a < k && !pad_; ++a)
            if (!wait || a != *wait) pad_ = a;
    }
    for (Symbol a = 0; a < k; ++a) suffixes_.push_back(Word{a});
    const std::size_t initial = config_.initial_suffix_length != 0 ? config_.initial_suffix_length
                                                                    : std::max<std::size_t>(1, suggested_);
    for (std::size_t length = 2; length <= initial; ++length)
        for (Word& e : words_of_length(k, length)) suffixes_.push_back(std::move(e));

    if (config_.seed) {
        seed_device_outputs_ = oracle_.outputs().size();
        seed_ = over_alphabets(minimize(*config_.seed), inputs, oracle_.outputs());
        for (Word& e : separating_suffixes(*seed_))
            if (std::find(suffixes_.begin(), suffixes_.end(), e) == suffixes_.end()) suffixes_.push_back(std::move(e));
        predicting_ = true;
        refuted_.assign(seed_->num_states() * k, 0);
        predictor_ = [this, k](std::span<const Symbol> access, std::span<const Symbol> suffix, std::span<Symbol> answer) {
            // The seed's guess, unless the word runs through a transition a counterexample refuted.
            StateId state = seed_->initial();
            for (const Symbol a : access) {
                if (refuted_[state * k + a]) return false;
                state = seed_->successor(state, a);
            }
            for (std::size_t i = 0; i < suffix.size(); ++i) {
                if (refuted_[state * k + suffix[i]]) return false;
                const auto& t = seed_->transition(state, suffix[i]);
                answer[i] = t.output;
                state = t.target;
            }
            return true;
        };
        log_->info("seeded with a {}-state machine; {} suffixes", seed_->num_states(), suffixes_.size());
    }
    new_table();
    build();
}

void LStar::Impl::build() {
    if (predicting_ && oracle_.outputs().size() != seed_device_outputs_) {
        predicting_ = false;  // the device's outputs grew: the seed's extra output ids may clash
        new_table();
    }
    close();
    const Alphabet outputs = predicting_ ? seed_->outputs() : oracle_.outputs();
    hypothesis_ = table_->hypothesis(oracle_.inputs(), outputs);
    access_ = table_->access_sequences();
}

LStar::LStar(MembershipOracle& oracle, LearnerConfig config) : impl_(std::make_unique<Impl>(oracle, std::move(config))) {}
LStar::~LStar() = default;

void LStar::prepare_for(std::size_t suggested_suffix_length) { impl_->suggested_ = suggested_suffix_length; }
void LStar::start() { impl_->start(); }

bool LStar::refine(const Counterexample& cex) {
    impl_->refine(cex);  // throws when a counterexample adds nothing (outside seeded prediction)
    impl_->build();
    return true;
}

MealyMachine LStar::hypothesis() const {
    if (!impl_->hypothesis_) throw std::logic_error("LStar::hypothesis() before start()");
    return *impl_->hypothesis_;
}
std::vector<Word> LStar::access_sequences() const { return impl_->access_; }
std::vector<Word> LStar::suffixes() const { return impl_->table_ ? impl_->table_->suffixes() : std::vector<Word>{}; }

std::string LStar::progress() const {
    return std::to_string(impl_->table_ ? impl_->table_->suffixes().size() : 0) + " suffixes";
}

MealyMachine seed_of(const Typestate& typestate) { return synchronous_closure(typestate); }

std::vector<Word> separating_suffixes(const MealyMachine& machine) {
    return characterizing_set(machine, words_of_length(machine.num_inputs(), 1));
}

}  // namespace typestar
