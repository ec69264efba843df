#include "typestar/sul/cache.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <thread>
#include <utility>

#include "typestar/core/error.hpp"
#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/sul/device.hpp"

#include <spdlog/spdlog.h>

namespace typestar {

namespace {

constexpr std::size_t npos = static_cast<std::size_t>(-1);

DeviceTraits used_traits(DeviceTraits t, const CacheConfig& config) {
    if (!config.use_absorbing) t.absorbing.reset();
    if (!config.use_quiet || !t.wait) t.quiet.reset();
    return t;
}

}  // namespace

CacheOracle::CacheOracle(MembershipOracle& inner, CacheConfig config)
    : inner_(inner),
      config_(config),
      traits_(used_traits(inner.traits(), config)),
      // A learning purpose's denial ends a run like the absorbing output (typestar/core/outside_purpose.hpp).
      outside_purpose_(traits_.absorbing ? inner.outputs().find(kOutsidePurpose) : std::nullopt),
      width_(inner.inputs().size()) {
    nodes_.push_back(Node{});                 // the root
    children_.assign(width_, kNone);           // a dummy block, so that no real block starts at 0
}

std::size_t CacheOracle::walk(Cursor& from, std::span<const Symbol> word, std::span<Symbol> out) const {
    const bool write = !out.empty();
    if (from.absorbed) {
        if (write) std::fill(out.begin(), out.end(), *traits_.absorbing);
        return word.size();
    }
    const bool has_absorbing = traits_.absorbing.has_value();
    const Symbol absorbing = has_absorbing ? *traits_.absorbing : 0;
    std::uint32_t node = from.node;
    for (std::size_t i = 0; i < word.size(); ++i) {
        const std::uint32_t c = child(node, word[i]);
        if (c == kNone) {
            from.node = node;
            return i;
        }
        if (c == kQuietLoop) {
            if (write) out[i] = *traits_.quiet;
            continue;
        }
        const Symbol output = nodes_[c].output;
        if (write) out[i] = output;
        node = c;
        if (has_absorbing && (output == absorbing || output == outside_purpose_)) {
            if (write) std::fill(out.begin() + static_cast<std::ptrdiff_t>(i) + 1, out.end(), absorbing);
            from.node = node;
            from.absorbed = true;
            return word.size();
        }
    }
    from.node = node;
    return word.size();
}

bool CacheOracle::normalize(std::span<const Symbol> word, Word& executed) const {
    executed.clear();
    const bool has_absorbing = traits_.absorbing.has_value();
    std::uint32_t node = 0;
    std::size_t i = 0;
    for (; i < word.size(); ++i) {
        const std::uint32_t c = child(node, word[i]);
        if (c == kNone) break;
        if (c == kQuietLoop) continue;  // a known quiet wait: leave it out
        executed.push_back(word[i]);
        node = c;
        if (has_absorbing && ends_run(nodes_[c].output)) return false;
    }
    if (i == word.size()) return false;
    executed.insert(executed.end(), word.begin() + static_cast<std::ptrdiff_t>(i), word.end());
    return true;
}

std::size_t CacheOracle::try_insert(std::span<const Symbol> word, std::span<const Symbol> outputs) {
    // First check the whole answer against the tree, then add it: a contradicting answer adds nothing.
    const bool has_absorbing = traits_.absorbing.has_value();
    const bool has_quiet = traits_.quiet.has_value();
    {
        std::uint32_t node = 0;
        for (std::size_t i = 0; i < word.size(); ++i) {
            if (has_absorbing && node != 0 && ends_run(nodes_[node].output)) {
                for (std::size_t j = i; j < word.size(); ++j)
                    if (outputs[j] != *traits_.absorbing) return j;
                break;
            }
            const std::uint32_t c = child(node, word[i]);
            if (c == kNone) break;
            if (c == kQuietLoop) {
                if (outputs[i] != *traits_.quiet) return i;
                continue;
            }
            if (nodes_[c].output != outputs[i]) return i;
            node = c;
        }
    }
    std::uint32_t node = 0;
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (has_absorbing && node != 0 && ends_run(nodes_[node].output)) break;
        const Symbol input = word[i];
        std::uint32_t c = child(node, input);
        if (c == kQuietLoop) continue;
        if (c == kNone) {
            if (nodes_[node].children == kNone) {
                nodes_[node].children = static_cast<std::uint32_t>(children_.size());
                children_.resize(children_.size() + width_, kNone);
            }
            const std::size_t slot = nodes_[node].children + input;
            if (has_quiet && input == *traits_.wait && outputs[i] == *traits_.quiet) {
                children_[slot] = kQuietLoop;
                continue;
            }
            c = static_cast<std::uint32_t>(nodes_.size());
            nodes_.push_back(Node{outputs[i], kNone});
            children_[slot] = c;
        }
        node = c;
    }
    stats_.nodes = nodes_.size();
    return npos;
}

void CacheOracle::throw_nondeterminism(std::span<const Symbol> word, std::span<const Symbol> answer,
                                       std::size_t at) const {
    const std::size_t n = std::min(word.size(), at + 1);
    Word known(word.size());
    walk(word, known);
    std::vector<std::string> in, first, second;
    for (std::size_t i = 0; i < n; ++i) {
        in.push_back(inputs().name(word[i]));
        first.push_back(outputs().name(known[i]));
        second.push_back(outputs().name(answer[i]));
    }
    throw NondeterminismError(std::move(in), std::move(first), std::move(second));
}

bool CacheOracle::rerun_past_late_callback(const Query& query, std::size_t at) {
    // The quiet output by name: traits_.quiet is set only where quiet is declared stable.
    const auto quiet_output = outputs().find(kQuiet);
    if (!late_ || !traits_.wait || !quiet_output) return false;
    const std::span<const Symbol> word = query.suffix;
    if (at >= word.size()) return false;
    Word known(word.size());
    walk(word, known);
    const Symbol quiet = *quiet_output;
    const Symbol cached = known[at], fresh = query.answer[at];
    // Which of the two answers a late callback explains, by the kind of step (class comment):
    //  - at a `wait`: `quiet` against a callback; the listen must hear that callback;
    //  - at a callin: the purpose's denial (`unknown:purpose`) against an answer, the drained
    //    rule's race; the listen must hear a callback still on its way after the prefix, so the
    //    callin that ran did so before the callback was counted.
    const bool at_wait = word[at] == *traits_.wait;
    Symbol late_answer = quiet;
    std::optional<Symbol> expected;  // at a wait: the callback the listen must hear
    if (at_wait) {
        if ((cached == quiet) == (fresh == quiet)) return false;  // two callbacks: not a question of time
        const Symbol callback = cached == quiet ? fresh : cached;
        if ((traits_.absorbing && callback == *traits_.absorbing) || callback == outside_purpose_) return false;
        expected = callback;
    } else {
        if (!outside_purpose_ || (cached == *outside_purpose_) == (fresh == *outside_purpose_)) return false;
        late_answer = cached == *outside_purpose_ ? fresh : cached;
    }
    const std::span<const Symbol> prefix = word.first(at);
    auto heard = late_->listen(prefix);
    // A listen that heard nothing may itself have been late (a busy machine): listen again after the
    // retries' pauses before letting the non-determinism stand. Only on a contradiction: 0 on time.
    for (std::size_t r = 0; r < kTimingRetries && heard && *heard == quiet; ++r) {
        std::this_thread::sleep_for(timing_retry_pause(late_->tmax_ms, r));
        heard = late_->listen(prefix);
    }
    if (!heard || *heard == quiet) return false;  // not heard late: the non-determinism stands
    if (expected ? *heard != *expected : !is_callback(*heard)) return false;
    const Symbol callback = *heard;
    std::string before;
    for (const Symbol s : prefix) before += (before.empty() ? "" : " ") + inputs().name(s);
    if (before.empty()) before = "ε";
    const std::string name = outputs().name(callback);
    const std::string callin = inputs().name(word[at]);
    const auto ms = [](double v) { return std::to_string(static_cast<long long>(v)) + " ms"; };
    const std::string raise = at_wait ? "if the machine was not just busy, raise tmax (--tmax MS, TYPESTAR_TMAX)"
                                      : "if the machine was not just busy, let the adapter's callins settle longer "
                                        "(QuietWindowOptions::window, asio::SettleOptions)";
    const TimingError::Kind kind = at_wait ? TimingError::Kind::LateCallback : TimingError::Kind::QueuedCallback;
    const double delay = at_wait ? late_->tmax_ms : 0.0;
    if (cached == late_answer) {
        // Forget the late answer and everything recorded after it on this path; keep the on-time one.
        const auto node = node_of(prefix);
        if (node && nodes_[*node].children != kNone) children_[nodes_[*node].children + word[at]] = kNone;
        ++stats_.late_callbacks;
        if (late_->retried) late_->retried();
        const std::size_t again = try_insert(word, query.answer);
        if (again != npos) return false;  // the fresh answer disagrees elsewhere too: non-determinism
        const std::string what =
            at_wait ? "an earlier run of '" + before + " wait' answered quiet, and a later run and a wait of " +
                          ms(late_->timeout_ms) + " heard '" + name + "' (tmax " + ms(late_->tmax_ms) + ")"
                    : "an earlier run ran '" + callin + "' after '" + before +
                          "' before the callback '" + name + "' was counted, where a later run's learning purpose " +
                          "denied it and a wait of " + ms(late_->timeout_ms) + " after '" + before + "' heard '" +
                          name + "' (the callback came after its callin had settled)";
        throw LateAnswerRemoved(late_->device + ": a late callback reached the cache: " + what +
                                    ": answers given since may rest on it, so nothing is concluded from them; " + raise,
                                kind, name, delay, late_->tmax_ms, 0, true);
    }
    // This run's answer was the late one: it never enters the tree; an on-time run agrees with it.
    for (std::size_t r = 0; r < kTimingRetries; ++r) {
        ++stats_.late_callbacks;
        if (late_->retried) late_->retried();
        if (at_wait)
            detail::logger("typestar.sul")
                ->info("{}: a wait after '{}' answered quiet where a wait of {} heard '{}' (tmax {}): a late "
                       "callback; running the word again",
                       late_->device, before, ms(late_->timeout_ms), name, ms(late_->tmax_ms));
        else
            detail::logger("typestar.sul")
                ->info("{}: '{}' ran after '{}' before '{}' was counted, where a wait of {} heard it: a callback "
                       "later than its callin's settling; running the word again",
                       late_->device, callin, before, name, ms(late_->timeout_ms));
        std::this_thread::sleep_for(timing_retry_pause(late_->tmax_ms, r));  // a burst of load can pass
        inner_.query_all(std::span<const Query>(&query, 1));
        ++stats_.executed;
        const std::size_t again = try_insert(word, query.answer);
        if (again == npos) return true;
        if (again != at || query.answer[at] != late_answer) return false;  // another difference: non-determinism
    }
    const std::string runs = std::to_string(kTimingRetries + 1);
    throw TimingError(
        at_wait ? late_->device + ": after '" + before + "', a wait answered quiet on each of " + runs +
                      " runs where an earlier run and a wait of " + ms(late_->timeout_ms) + " heard '" + name +
                      "': the callback keeps arriving later than tmax " + ms(late_->tmax_ms) + "; " + raise
                : late_->device + ": after '" + before + "', '" + callin + "' ran on each of " + runs +
                      " runs before the callback '" + name + "' was counted, where an earlier run's learning " +
                      "purpose denied it and a wait of " + ms(late_->timeout_ms) + " heard '" + name +
                      "': the callback keeps arriving after its callin has settled; " + raise,
        kind, name, delay, late_->tmax_ms, 0, false, kTimingRetries + 1);
}

bool CacheOracle::is_callback(Symbol output) const {
    if (traits_.absorbing && ends_run(output)) return false;
    if (output == outside_purpose_) return false;
    for (const std::string_view other : {kQuiet, kErr, kOk})
        if (const auto s = outputs().find(other); s && *s == output) return false;
    return true;
}

void CacheOracle::contradiction(const Query& query, std::size_t at) {
    if (rerun_past_late_callback(query, at)) return;
    // Never "a re-run that agrees wins": every re-run only adds evidence to the error, so a flaky
    // device ends the run with all its answers instead of a spec built on one of them.
    ++stats_.contradictions;
    const std::span<const Symbol> word = query.suffix;
    const std::size_t n = std::min(word.size(), at + 1);
    Word known(word.size());
    walk(word, known);
    std::vector<NondeterminismError::Answer> answers;
    const auto tally = [&](std::span<const Symbol> outputs) {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < n; ++i) names.push_back(this->outputs().name(outputs[i]));
        for (auto& a : answers)
            if (a.outputs == names) {
                ++a.count;
                return;
            }
        answers.push_back({std::move(names), 1});
    };
    tally(known);
    tally(query.answer);
    detail::logger("typestar.sul")
        ->warn("answer contradicts an earlier one at position {} of a {}-input query; running it {} more time(s) "
               "to report every answer",
               at + 1, word.size(), config_.reruns);
    for (std::size_t r = 0; r < config_.reruns; ++r) {
        inner_.query_all(std::span<const Query>(&query, 1));
        ++stats_.executed;
        tally(query.answer);
    }
    std::vector<std::string> in;
    for (std::size_t i = 0; i < n; ++i) in.push_back(inputs().name(word[i]));
    throw NondeterminismError(std::move(in), std::move(answers));
}

void CacheOracle::execute(std::span<const Symbol> word) {
    Word& answer = answer_buffer_;
    answer.resize(word.size());
    const Query q{{}, word, answer};
    inner_.query_all(std::span<const Query>(&q, 1));
    ++stats_.executed;
    const std::size_t at = try_insert(word, answer);
    if (at != npos) contradiction(q, at);
}

std::vector<Word> CacheOracle::rerun(std::span<const Word> words) {
    std::vector<Word> answers(words.size());
    std::vector<Query> batch;
    batch.reserve(words.size());
    for (std::size_t k = 0; k < words.size(); ++k) {
        answers[k].resize(words[k].size());
        batch.push_back(Query{{}, words[k], answers[k]});
    }
    if (batch.empty()) return answers;
    inner_.query_all(batch);
    stats_.executed += words.size();
    for (std::size_t k = 0; k < words.size(); ++k) {
        const std::size_t at = try_insert(words[k], answers[k]);
        if (at != npos) contradiction(batch[k], at);
    }
    return answers;
}

void CacheOracle::insert(std::span<const Symbol> word, std::span<const Symbol> outputs) {
    const std::size_t at = try_insert(word, outputs);
    if (at != npos) throw_nondeterminism(word, outputs, at);
}

bool CacheOracle::lookup(std::span<const Symbol> word, std::span<Symbol> out) {
    return walk(word, out) == word.size();
}

Word CacheOracle::query_adaptive(std::span<const Symbol> prefix, const NextInput& next, Word& outputs) {
    Word chosen;
    outputs.assign(prefix.size(), 0);
    Cursor at;
    std::optional<Symbol> pending;  // the first chosen input the tree cannot answer
    if (walk(at, prefix, outputs) == prefix.size()) {
        while (true) {
            pending = next(std::span<const Symbol>(outputs).subspan(prefix.size()));
            if (!pending) {
                ++stats_.hits;
                return chosen;
            }
            Symbol output = 0;
            if (walk(at, std::span<const Symbol>(&*pending, 1), std::span<Symbol>(&output, 1)) != 1) break;
            chosen.push_back(*pending);
            outputs.push_back(output);
        }
    }
    ++stats_.misses;
    // The rest from a fresh instance: the word so far as the inner prefix, then the same choices.
    Word word(prefix.begin(), prefix.end());
    word.insert(word.end(), chosen.begin(), chosen.end());
    const Word known_after(outputs.begin() + static_cast<std::ptrdiff_t>(prefix.size()), outputs.end());
    Word scratch;
    const NextInput inner_next = [&](std::span<const Symbol> more) {
        scratch.assign(known_after.begin(), known_after.end());
        scratch.insert(scratch.end(), more.begin(), more.end());
        return next(scratch);
    };
    Word answer;
    const Word rest = inner_.query_adaptive(word, inner_next, answer);
    ++stats_.executed;
    word.insert(word.end(), rest.begin(), rest.end());
    chosen.insert(chosen.end(), rest.begin(), rest.end());
    const Query q{{}, word, answer};
    const std::size_t contradicted = try_insert(word, answer);
    if (contradicted != npos) contradiction(q, contradicted);  // throws, or the answer is a re-run's
    outputs = std::move(answer);
    return chosen;
}

// The queries of one query_all call that the tree could not answer, with the scratch of its passes.
struct CacheOracle::Misses {
    Word words;                                          // missing words (prefix·suffix), concatenated
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // offset, length per missing word
    std::vector<std::size_t> query;                      // query index per missing word
    std::vector<std::uint32_t> node;                     // node where its cached path ends
    std::vector<std::size_t> at;                         // and the position in the word there
    std::vector<std::size_t> pending;                    // missing words not answered yet
    bool has_quiet = false;
    Word normalized;                                         // concatenated, for quiet traits
    std::vector<std::pair<std::size_t, std::size_t>> nspans;  // per pending index
    Word executed, out;                                      // scratch

    [[nodiscard]] std::span<const Symbol> word_of(std::size_t j) const {
        return std::span<const Symbol>(words.data() + spans[j].first, spans[j].second);
    }
    // The j-th pending word as it would be executed (known quiet waits left out).
    [[nodiscard]] std::span<const Symbol> norm_of(std::size_t j) const {
        if (!has_quiet) return word_of(pending[j]);
        return std::span<const Symbol>(normalized.data() + nspans[j].first, nspans[j].second);
    }
};

void CacheOracle::query_all(std::span<const Query> batch) {
    Misses m = look_up(batch);
    if (m.query.empty()) return;
    // Run only maximal words, longest first, until every missing query is answered; then write
    // the answers.
    m.pending.resize(m.query.size());
    std::iota(m.pending.begin(), m.pending.end(), std::size_t{0});
    m.has_quiet = traits_.quiet.has_value();
    while (!m.pending.empty()) {
        normalize_pending(m);
        const std::vector<std::size_t> maximal = maximal_words(m);
        if (inner_.parallelism() > 1) run_in_waves(m, maximal);
        else run_in_order(m, maximal);
        resume_walks(batch, m);
    }
}

CacheOracle::Misses CacheOracle::look_up(std::span<const Query> batch) {
    // Answer what the tree knows; keep the rest (prefix·suffix) in one flat buffer. Consecutive
    // queries with the same prefix (a table row) share the walk over it.
    Misses m;
    const Symbol* last_prefix = nullptr;
    std::size_t last_prefix_size = 0;
    Cursor after_prefix;
    bool prefix_known = false;
    std::size_t prefix_walked = 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const Query& q = batch[i];
        if (q.prefix.data() != last_prefix || q.prefix.size() != last_prefix_size || i == 0) {
            last_prefix = q.prefix.data();
            last_prefix_size = q.prefix.size();
            after_prefix = Cursor{};
            prefix_walked = walk(after_prefix, q.prefix, {});
            prefix_known = prefix_walked == q.prefix.size();
        }
        Cursor stop = after_prefix;
        std::size_t at = prefix_walked;
        if (prefix_known) {
            at += walk(stop, q.suffix, q.answer);
            if (at + std::min(q.optional_tail, q.suffix.size()) >= q.prefix.size() + q.suffix.size()) {
                ++stats_.hits;
                continue;
            }
        }
        ++stats_.misses;
        m.query.push_back(i);
        m.node.push_back(stop.node);
        m.at.push_back(stop.absorbed ? q.prefix.size() + q.suffix.size() : at);
        m.spans.emplace_back(m.words.size(), q.prefix.size() + q.suffix.size());
        m.words.insert(m.words.end(), q.prefix.begin(), q.prefix.end());
        m.words.insert(m.words.end(), q.suffix.begin(), q.suffix.end());
    }
    return m;
}

void CacheOracle::normalize_pending(Misses& m) const {
    m.nspans.resize(m.pending.size());
    m.normalized.clear();
    for (std::size_t j = 0; j < m.pending.size(); ++j) {
        if (m.has_quiet) {
            normalize(m.word_of(m.pending[j]), m.executed);
            m.nspans[j] = {m.normalized.size(), m.executed.size()};
            m.normalized.insert(m.normalized.end(), m.executed.begin(), m.executed.end());
        }
    }
}

std::vector<std::size_t> CacheOracle::maximal_words(const Misses& m) const {
    std::vector<std::size_t> order(m.pending.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    // A word that is a prefix of another ends its cached path at the same node (the two agree
    // up to there) and is a prefix of its successor in (node, word) order. Comparing the node
    // first keeps the sort cheap.
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const std::uint32_t na = m.node[m.pending[a]], nb = m.node[m.pending[b]];
        if (na != nb) return na < nb;
        const auto x = m.norm_of(a), y = m.norm_of(b);
        return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
    });
    std::vector<std::size_t> maximal;
    for (std::size_t r = 0; r < order.size(); ++r) {
        if (r + 1 < order.size() && m.node[m.pending[order[r]]] == m.node[m.pending[order[r + 1]]]) {
            const auto w = m.norm_of(order[r]), next = m.norm_of(order[r + 1]);
            if (next.size() >= w.size() && std::equal(w.begin(), w.end(), next.begin())) continue;
        }
        maximal.push_back(order[r]);
    }
    std::stable_sort(maximal.begin(), maximal.end(),
                     [&](std::size_t a, std::size_t b) { return m.norm_of(a).size() > m.norm_of(b).size(); });
    return maximal;
}

void CacheOracle::run_in_waves(Misses& m, const std::vector<std::size_t>& maximal) {
    // Group the maximal words by the edge where they leave the tree (groups in order of
    // first appearance); each wave runs the next word of every group as one batch.
    std::vector<std::vector<std::size_t>> groups;
    std::map<std::pair<std::uint32_t, Symbol>, std::size_t> group_of;
    for (std::size_t j : maximal) {
        Cursor c;
        const auto w = m.word_of(m.pending[j]);
        const std::size_t at = walk(c, w, {});
        if (at == w.size()) continue;
        const auto [it, fresh] = group_of.emplace(std::make_pair(c.node, w[at]), groups.size());
        if (fresh) groups.emplace_back();
        groups[it->second].push_back(j);
    }
    std::vector<std::size_t> heads(groups.size(), 0);
    std::vector<Word> wave;
    do {
        wave.clear();
        for (std::size_t g = 0; g < groups.size(); ++g) {
            while (heads[g] < groups[g].size()) {
                const std::size_t j = groups[g][heads[g]++];
                if (!m.has_quiet) {
                    const auto w = m.word_of(m.pending[j]);
                    if (walk(w, {}) == w.size()) continue;
                    wave.emplace_back(w.begin(), w.end());
                    break;
                }
                if (!normalize(m.word_of(m.pending[j]), m.executed)) continue;
                if (m.executed.size() < m.norm_of(j).size()) continue;  // shorter now: next pass
                wave.push_back(m.executed);
                break;
            }
        }
        if (!wave.empty()) (void)rerun(wave);
    } while (!wave.empty());
}

void CacheOracle::run_in_order(Misses& m, const std::vector<std::size_t>& maximal) {
    const bool has_absorbing = traits_.absorbing.has_value();
    for (std::size_t j : maximal) {
        // An earlier run may have answered it (a prefix, an err, a quiet wait found out).
        if (!m.has_quiet) {
            const auto w = m.word_of(m.pending[j]);
            // Without an absorbing output, nothing run in this pass answers a maximal word.
            if (!has_absorbing || walk(w, {}) != w.size()) execute(w);
            continue;
        }
        if (!normalize(m.word_of(m.pending[j]), m.executed)) continue;
        if (m.executed.size() < m.norm_of(j).size()) continue;  // shorter now: next pass
        execute(m.executed);
    }
}

void CacheOracle::resume_walks(std::span<const Query> batch, Misses& m) {
    std::vector<std::size_t> still;
    for (std::size_t j : m.pending) {
        // Resume the walk where it stopped before (nodes never change once added); the known
        // part of the answer is already written.
        const auto w = m.word_of(j);
        const Query& q = batch[m.query[j]];
        const std::size_t from = m.at[j];
        m.out.resize(w.size());
        Cursor c{m.node[j], false};
        const std::size_t done = walk(c, w.subspan(from), std::span<Symbol>(m.out).subspan(from));
        const std::size_t first = std::max(from, q.prefix.size());
        if (first < from + done)
            std::copy(m.out.begin() + static_cast<std::ptrdiff_t>(first),
                      m.out.begin() + static_cast<std::ptrdiff_t>(from + done),
                      q.answer.begin() + static_cast<std::ptrdiff_t>(first - q.prefix.size()));
        if (from + done != w.size()) {
            m.node[j] = c.node;
            m.at[j] = from + done;
            still.push_back(j);
        }
    }
    m.pending = std::move(still);
}

// ---- Read-only view of the prefix tree (added for L#) ----------------------------------------------

std::optional<CacheOracle::NodeId> CacheOracle::node_of(std::span<const Symbol> word) const {
    NodeId node = kRootNode;
    for (const Symbol a : word) {
        const auto e = edge(node, a);
        if (!e) return std::nullopt;
        node = e->target;
    }
    return node;
}

}  // namespace typestar
