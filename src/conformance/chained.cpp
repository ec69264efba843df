// Algorithm 2's checks in chained words (SuiteConfig::chained). The argument that the suite still
// proves equivalence up to the distinguisher bound B is in docs/conformance-chained.md; the test
// tests/conformance/chained_test.cpp checks it on every suite it generates (an independent proof
// checker) and against every one-transition mutant with distinguisher bound B.
#include "chained.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

namespace typestar::detail {

namespace {

constexpr std::size_t kNoRank = std::numeric_limits<std::size_t>::max();

struct Plan {
    const MealyMachine& model;
    const std::vector<Word>& access;
    std::size_t bound;
    std::optional<Symbol> absorbing;
    std::optional<Symbol> wait, quiet;
    std::size_t k;
    std::size_t suffixes;            ///< k^B
    std::vector<std::size_t> rank;   ///< per transition q·k+i: its rank, or kNoRank (not checked)
    std::vector<std::uint8_t> covered;  ///< per (rank, suffix index)
    std::vector<std::size_t> missing;   ///< per rank: suffixes not covered yet

    [[nodiscard]] bool err(StateId q, Symbol i) const { return absorbing && model.output(q, i) == *absorbing; }

    /// The suffix index of word[from, from + B) (base k), and whether the model's outputs along
    /// word[0, from + B) stop at an absorbing output inside it (then every completion is covered).
    [[nodiscard]] std::size_t index(const Word& w, std::size_t from, std::size_t len) const {
        std::size_t x = 0;
        for (std::size_t j = 0; j < bound; ++j) x = x * k + (j < len ? w[from + j] : 0);
        return x;
    }

    /// Marks the suffixes of transition rank r that start with w[from, from + len) (len < B: the
    /// word ended at an absorbing output, so every completion is answered).
    void mark(std::size_t r, const Word& w, std::size_t from, std::size_t len) {
        std::size_t span = 1;
        for (std::size_t j = len; j < bound; ++j) span *= k;
        const std::size_t first = index(w, from, len);
        for (std::size_t x = first; x < first + span; ++x) {
            std::uint8_t& c = covered[r * suffixes + x];
            if (c == 0) {
                c = 1;
                --missing[r];
            }
        }
    }
};

/// The rank of transition (q, i) if the suite must check it (neither an absorbing output, nor a
/// declared quiet self-loop, nor an access-tree transition), else kNoRank.
std::size_t checked_rank(const Plan& p, StateId q, Symbol i) { return p.rank[q * p.k + i]; }

}  // namespace

// Over 120 lines: the chained construction of Algorithm 2 in one pass over its plan; not yet split by phase.
std::vector<std::pair<StateId, Word>> chained_words(const MealyMachine& model, const std::vector<Word>& access, std::size_t bound,
                                const DeviceTraits& traits, std::size_t max_checks,
                                const std::vector<Word>& prior) {
    const std::size_t k = model.num_inputs();
    if (bound == 0 || k == 0) return {};
    std::size_t suffixes = 1;
    for (std::size_t j = 0; j < bound; ++j) {
        if (suffixes > max_checks / k) return {};
        suffixes *= k;
    }
    Plan p{model, access, bound, traits.absorbing, traits.wait, traits.quiet, k, suffixes, {}, {}, {}};
    p.rank.assign(model.num_states() * k, kNoRank);
    std::size_t checked = 0;
    for (StateId q = 0; q < model.num_states(); ++q)
        for (Symbol i = 0; i < k; ++i) {
            const StateId t = model.successor(q, i);
            const bool quiet_loop = traits.wait && traits.quiet && i == *traits.wait &&
                                    model.output(q, i) == *traits.quiet && t == q;
            Word base = access[q];
            base.push_back(i);
            if (p.err(q, i) || quiet_loop || access[t] == base) continue;
            p.rank[q * k + i] = checked++;
        }
    if (checked > max_checks / suffixes) return {};
    p.covered.assign(checked * suffixes, 0);
    p.missing.assign(checked, suffixes);

    std::vector<std::pair<StateId, Word>> words;
    // Extends `w`, which starts with access[q] and has every triple position before `next` judged,
    // greedily: each new input completes the check at position w.size() - B; stops when no input
    // completes an uncovered check that is valid (every checked transition before it has a lower
    // rank, so the proof's induction on rank can use them).
    const auto extend = [&](Word& w, std::size_t start, bool grow = true) {
        // maxr: the highest rank of a checked transition at positions [start, w.size() - B).
        std::size_t maxr = 0;
        bool any = false;
        // States along the word, from `start`.
        std::vector<StateId> states;
        StateId s = model.run(Word(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(start)));
        states.push_back(s);
        for (std::size_t j = start; j < w.size(); ++j) {
            if (p.err(s, w[j])) return;  // ended at an absorbing output: nothing follows
            s = model.successor(s, w[j]);
            states.push_back(s);
        }
        const auto rank_at = [&](std::size_t j) { return checked_rank(p, states[j - start], w[j]); };
        const auto valid = [&](std::size_t r) { return r != kNoRank && (!any || r > maxr); };
        for (std::size_t j = start; j + bound < w.size(); ++j) {  // already-complete positions
            const std::size_t r = rank_at(j);
            if (valid(r)) p.mark(r, w, j + 1, bound);
            if (r != kNoRank) {
                maxr = any ? std::max(maxr, r) : r;
                any = true;
            }
        }
        if (!grow) return;
        const std::size_t max_len = w.size() + 16 * (bound + 1) + 64;
        while (w.size() < max_len) {
            const std::size_t j = w.size() - bound;  // the position the next input completes
            const std::size_t r = rank_at(j);
            if (!valid(r)) return;
            std::size_t maxr_after = any ? std::max(maxr, r) : r;
            // The transitions at positions j+1 .. w.size()-1 are fixed: their ranks bound the next.
            for (std::size_t m = j + 1; m < w.size(); ++m)
                if (const std::size_t rm = rank_at(m); rm != kNoRank) maxr_after = std::max(maxr_after, rm);
            const StateId last = states.back();
            std::optional<Symbol> best;
            std::size_t best_score = kNoRank;
            const std::size_t base = p.index(w, j + 1, bound - 1);  // w[j+1..] · 0
            for (Symbol x = 0; x < k; ++x) {
                const std::size_t idx = base + x;
                if (p.covered[r * suffixes + idx] != 0) continue;
                // Prefer continuing: the transition x starts must be free or of a rank above the
                // chain's, and the closer above the better (the chain stays long).
                std::size_t score;
                if (p.err(last, x)) score = kNoRank - 1;  // ends the word
                else if (const std::size_t rx = checked_rank(p, last, x); rx == kNoRank) score = 0;
                else if (rx > maxr_after && p.missing[rx] > 0) score = 1 + (rx - maxr_after);
                else score = kNoRank - 2;  // the chain ends after this check
                if (!best || score < best_score) {
                    best = x;
                    best_score = score;
                }
            }
            if (!best) return;
            w.push_back(*best);
            p.mark(r, w, j + 1, bound);
            maxr = any ? std::max(maxr, r) : r;
            any = true;
            if (p.err(last, *best)) return;
            states.push_back(model.successor(last, *best));
        }
    };
    // access(q)·s already a prefix of a word, per (state, suffix index).
    std::vector<std::uint8_t> traced(model.num_states() * suffixes, 0);
    const auto trace = [&](const Word& w) {
        for (StateId q = 0; q < model.num_states(); ++q) {
            const Word& a = access[q];
            if (a.size() >= w.size() || !std::equal(a.begin(), a.end(), w.begin())) continue;
            StateId s = q;
            std::size_t len = 0;
            for (std::size_t j = a.size(); j < w.size() && len < bound; ++j, ++len) {
                if (p.err(s, w[j])) {
                    ++len;
                    break;
                }
                s = model.successor(s, w[j]);
            }
            if (len < bound && a.size() + len < w.size()) continue;  // cannot happen: err ends words
            if (len < bound && !(len > 0 && p.err(model.run(Word(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(a.size() + len - 1))), w[a.size() + len - 1])))
                continue;  // shorter than B without an absorbing end: not a whole trace word
            std::size_t span = 1;
            for (std::size_t j = len; j < bound; ++j) span *= k;
            const std::size_t first = p.index(w, a.size(), len);
            for (std::size_t x = first; x < first + span; ++x) traced[q * suffixes + x] = 1;
        }
    };
    // Words run before (SuiteConfig::prior; the cache answers them): first, as they are. Which
    // checks they make is a least fixpoint (a check counts when every checked transition before it
    // in its word is proven by the others); the transitions they prove take the lowest ranks, in
    // the order they were proven, so the induction on rank holds for old and new words alike.
    if (!prior.empty()) {
        std::vector<Word> old;
        std::vector<std::vector<StateId>> starts;  // the states whose access word each starts with
        for (const Word& w0 : prior) {
            Word w = w0;
            StateId s = model.initial();
            for (std::size_t j = 0; j < w.size(); ++j) {
                if (p.err(s, w[j])) {
                    w.resize(j + 1);
                    break;
                }
                s = model.successor(s, w[j]);
            }
            std::vector<StateId> from;
            for (StateId q = 0; q < model.num_states(); ++q)
                if (access[q].size() < w.size() && std::equal(access[q].begin(), access[q].end(), w.begin()))
                    from.push_back(q);
            trace(w);
            std::optional<StateId> longest;
            for (StateId q : from)
                if (!longest || access[q].size() > access[*longest].size()) longest = q;
            words.emplace_back(longest.value_or(model.initial()), w);
            if (!from.empty()) {
                old.push_back(std::move(w));
                starts.push_back(std::move(from));
            }
        }
        const std::size_t n = model.num_states() * k;
        std::vector<std::uint8_t> made(n * suffixes, 0);
        std::vector<std::size_t> left(n, suffixes);
        std::vector<std::uint8_t> proven(n, 0);
        std::vector<std::size_t> order;  // transitions in the order the old words prove them
        for (bool changed = true; changed;) {
            changed = false;
            for (std::size_t wi = 0; wi < old.size(); ++wi)
                for (StateId from : starts[wi]) {
                    const Word& w = old[wi];
                    StateId q = from;
                    for (std::size_t j = access[from].size(); j < w.size(); ++j) {
                        const std::size_t t = q * k + w[j];
                        const bool checked_here = p.rank[t] != kNoRank;
                        const std::size_t after = w.size() - j - 1;
                        const bool ends = p.err(q, w[j]) || (after > 0 && after < bound && j + 1 + after == w.size() &&
                                                             p.err(model.run(Word(w.begin(), w.end() - 1)), w.back()));
                        if (checked_here && !proven[t] && (after >= bound || ends)) {
                            const std::size_t len = std::min(after, bound);
                            std::size_t span = 1;
                            for (std::size_t x = len; x < bound; ++x) span *= k;
                            const std::size_t first = p.index(w, j + 1, len);
                            for (std::size_t x = first; x < first + span; ++x)
                                if (made[t * suffixes + x] == 0) {
                                    made[t * suffixes + x] = 1;
                                    --left[t];
                                }
                        }
                        if ((checked_here && !proven[t]) || p.err(q, w[j])) break;
                        q = model.successor(q, w[j]);
                    }
                }
            for (std::size_t t = 0; t < n; ++t)
                if (p.rank[t] != kNoRank && !proven[t] && left[t] == 0) {
                    proven[t] = 1;
                    order.push_back(t);
                    changed = true;
                }
        }
        // New ranks: proven first (in proof order), then the rest in state and input order.
        std::vector<std::size_t> rest;
        for (std::size_t t = 0; t < n; ++t)
            if (p.rank[t] != kNoRank && !proven[t]) rest.push_back(t);
        std::size_t r = 0;
        for (std::size_t t : order) p.rank[t] = r++;
        for (std::size_t t : rest) p.rank[t] = r++;
        // Checks of unproven transitions were made after proven ones only: they count too.
        for (std::size_t t = 0; t < n; ++t) {
            if (p.rank[t] == kNoRank) continue;
            const std::size_t rt = p.rank[t];
            for (std::size_t x = 0; x < suffixes; ++x)
                if (made[t * suffixes + x] != 0 && p.covered[rt * suffixes + x] == 0) {
                    p.covered[rt * suffixes + x] = 1;
                    --p.missing[rt];
                }
        }
    }
    // Every state's B-trace from its access word (the proof compares each transition's target
    // with it), then every check not yet covered, lowest rank first, each starting a chain.
    for (StateId q = 0; q < model.num_states(); ++q) {
        const std::size_t start = access[q].size();
        Word suffix(bound, 0);
        for (bool more = true; more;) {
            Word w = access[q];
            w.insert(w.end(), suffix.begin(), suffix.end());
            // Err-truncated (an absorbing output ends the word).
            StateId s = q;
            for (std::size_t j = start; j < w.size(); ++j) {
                if (p.err(s, w[j])) {
                    w.resize(j + 1);
                    break;
                }
                s = model.successor(s, w[j]);
            }
            if (traced[q * suffixes + p.index(suffix, 0, bound)] == 0) {
                extend(w, start);
                trace(w);
                words.emplace_back(q, std::move(w));
            }
            more = false;
            for (std::size_t j = bound; j-- > 0;) {
                if (++suffix[j] < k) {
                    more = true;
                    break;
                }
                suffix[j] = 0;
            }
        }
    }
    std::vector<std::size_t> by_rank(checked);
    for (std::size_t t = 0; t < p.rank.size(); ++t)
        if (p.rank[t] != kNoRank) by_rank[p.rank[t]] = t;
    for (const std::size_t t : by_rank) {
        const StateId q = static_cast<StateId>(t / k);
        const Symbol i = static_cast<Symbol>(t % k);
        {
            const std::size_t r = p.rank[t];
            for (std::size_t x = 0; x < suffixes && p.missing[r] > 0; ++x) {
                if (p.covered[r * suffixes + x] != 0) continue;
                Word w = access[q];
                w.push_back(i);
                Word suffix(bound);
                for (std::size_t j = bound, v = x; j-- > 0; v /= k) suffix[j] = static_cast<Symbol>(v % k);
                StateId s = model.successor(q, i);
                bool ended = false;
                for (Symbol a : suffix) {
                    w.push_back(a);
                    if (p.err(s, a)) {
                        ended = true;
                        break;
                    }
                    s = model.successor(s, a);
                }
                if (ended) {
                    p.mark(r, w, access[q].size() + 1, w.size() - access[q].size() - 1);
                } else {
                    extend(w, access[q].size());
                }
                trace(w);
                words.emplace_back(q, std::move(w));
            }
        }
    }
    return words;
}

}  // namespace typestar::detail
