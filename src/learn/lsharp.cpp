// L# (lsharp.hpp). Hand-written: no Debian package offers an active automata learner.
#include "lsharp_impl.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <spdlog/spdlog.h>

#include "typestar/core/algorithms.hpp"
#include "typestar/sul/cache.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/core/translate.hpp"
#include "tree_consistency.hpp"

namespace typestar {

using lsharp_detail::concat;
using lsharp_detail::kConsistencyBatch;

// ---- apartness ---------------------------------------------------------------------------------------

bool LSharp::Impl::apart(NodeId x, NodeId y) {
    if (x == y) return false;
    stack_.clear();
    stack_.emplace_back(x, y);
    while (!stack_.empty()) {
        const auto [u, v] = stack_.back();
        stack_.pop_back();
        for (Symbol a = 0; a < k_; ++a) {
            const auto eu = edge(u, a);
            if (!eu) continue;
            const auto ev = edge(v, a);
            if (!ev) continue;
            if (eu->output != ev->output) return true;
            if (eu->target == u && ev->target == v) continue;  // both loop: the same pair again
            if (eu->target == ev->target) continue;
            stack_.emplace_back(eu->target, ev->target);
        }
    }
    return false;
}

std::optional<Word> LSharp::Impl::witness(NodeId x, NodeId y) const {
    struct Item {
        NodeId u, v;
        std::uint32_t parent;
        Symbol input;
    };
    std::vector<Item> queue{{x, y, kNone, 0}};
    for (std::size_t i = 0; i < queue.size(); ++i) {
        const Item item = queue[i];
        for (Symbol a = 0; a < k_; ++a) {
            const auto eu = edge(item.u, a);
            if (!eu) continue;
            const auto ev = edge(item.v, a);
            if (!ev) continue;
            if (eu->output != ev->output) {
                Word w{a};
                for (std::uint32_t j = static_cast<std::uint32_t>(i); queue[j].parent != kNone; j = queue[j].parent)
                    w.push_back(queue[j].input);
                std::reverse(w.begin(), w.end());
                return w;
            }
            if (eu->target == item.u && ev->target == item.v) continue;
            if (eu->target == ev->target) continue;
            queue.push_back(Item{eu->target, ev->target, static_cast<std::uint32_t>(i), a});
        }
    }
    return std::nullopt;
}

const Word& LSharp::Impl::basis_witness(std::uint32_t p, std::uint32_t q) {
    const auto key = std::make_pair(std::min(p, q), std::max(p, q));
    auto it = witnesses_.find(key);
    if (it == witnesses_.end()) {
        auto w = witness(basis_[key.first], basis_[key.second]);
        if (!w) throw std::logic_error("L#: two basis states are not apart");
        it = witnesses_.emplace(key, std::move(*w)).first;
    }
    return it->second;
}

// ---- queries -----------------------------------------------------------------------------------------

void LSharp::Impl::ask(const Word& word) {
    (void)ask_->query(word);
    grow_roles();
    touch(word);
}

void LSharp::Impl::ask_all(const std::vector<Word>& words) {
    if (words.empty()) return;
    std::vector<Word> answers(words.size());
    std::vector<Query> batch;
    batch.reserve(words.size());
    for (std::size_t i = 0; i < words.size(); ++i) {
        answers[i].resize(words[i].size());
        batch.push_back(Query{{}, words[i], answers[i]});
    }
    ask_->query_all(batch);
    grow_roles();
    for (const Word& w : words) touch(w);
}

void LSharp::Impl::touch(const Word& word) {
    consistency_->note_word(word);
    NodeId node = kRoot;
    std::size_t i = 0;
    while (i < word.size() && basis_of(node) != kNone) {
        mark_basis_changed(basis_of(node));  // its subtree may have grown
        const auto e = edge(node, word[i++]);
        if (!e) return;
        node = e->target;
    }
    if (basis_of(node) != kNone) return;
    const std::uint32_t f = frontier_of(node);
    if (f == kNone || !frontier_[f].alive) return;
    mark_dirty(f);
    attend(f);
}

// ---- basis and frontier ------------------------------------------------------------------------------

void LSharp::Impl::add_basis(NodeId node, Word access) {
    const auto b = static_cast<std::uint32_t>(basis_.size());
    basis_.push_back(node);
    access_.push_back(std::move(access));
    if (seed_) {
        // Its parent's seed state followed by the last input (the seed's run of the access word
        // for the root), checked against what the tree knows below it.
        StateId guess = seed_->initial();
        if (!access_.back().empty()) {
            const NodeId parent = *tree_->node_of(Word(access_.back().begin(), access_.back().end() - 1));
            const auto& p = basis_seed_[basis_of(parent)];
            guess = p ? seed_->successor(*p, access_.back().back()) : seed_->run(access_.back());
        }
        basis_seed_.push_back(seed_identity(node, guess));
    }
    basis_changed_.push_back(0);
    by_candidate_.emplace_back();
    mark_basis_changed(b);
    grow_roles();
    basis_role_[node] = b;
    // Extension: every input of the new basis state, asked in one batch (a known err or quiet wait
    // is already an edge of the tree and asks nothing).
    std::vector<Word> words;
    // With neither a seed nor a hypothesis to predict the ADS branch, the extension suffix does not
    // depend on the input: computed once.
    Word ads;
    bool have_ads = false;
    const bool per_input = seed_ || hypothesis_;
    for (Symbol a = 0; a < k_; ++a) {
        if (const auto e = edge(node, a)) {
            // Known already; above ads_limit its answer to the shared suffix is asked too, so that
            // it is looked up by it (else it would be compared with every new basis state).
            if (shared_ads_basis_ == 0 || e->target == node || response(e->target)) continue;
        }
        Word w = access_[b];
        w.push_back(a);
        if (const std::optional<AdsStart> start = adaptive_extension(b, a)) {
            // Each input of the ADS chosen from the device's last answer (LSharpConfig::adaptive_queries).
            Word outputs;
            const Word chosen = ask_->query_adaptive(
                w, [&](std::span<const Symbol> answered) { return ads_next(*start, answered); }, outputs);
            grow_roles();
            touch(concat(w, chosen));
            continue;
        }
        if (!per_input && !have_ads) {
            ads = extension_suffix(b, a);
            have_ads = true;
        }
        Word suffix = per_input ? extension_suffix(b, a) : ads;
        if (basis_.size() > 1) continue_word(suffix);
        pad(suffix);
        w.insert(w.end(), suffix.begin(), suffix.end());
        words.push_back(std::move(w));
    }
    if (shared_ads_basis_ != 0 && !response(node)) {
        // Above ads_limit: every basis state answers the shared suffix, so candidates are looked up.
        words.push_back(concat(access_[b], shared_ads_));
    }
    ask_all(words);
    // Its signature, filed by output per input.
    for (Symbol a = 0; a < k_; ++a) {
        const auto e = edge(node, a);
        if (!e) throw std::logic_error("L#: a basis state is not complete after extension");
        signature_.push_back(e->output);
        auto& by = basis_by_output_[a];
        if (by.size() <= e->output) by.resize(e->output + 1);
        by[e->output].push_back(b);
    }
    // The new state as a candidate of every frontier node not apart from it: only those filed under an
    // (input, output) it agrees with, and the unkeyed ones, can be.
    auto consider = [&](std::uint32_t f) {
        Frontier& fr = frontier_[f];
        if (!fr.alive) return;
        if (!apart(fr.node, node)) {
            add_candidate(f, b);
            changed(f);
            attend(f);
        }
    };
    if (shared_ads_basis_ != 0) file_basis_response(b);
    const std::optional<std::uint64_t> own = shared_ads_basis_ != 0 ? response(node) : std::nullopt;
    if (own) {
        // Frontier nodes filed by their response are found by it; the others are few (those from
        // before the shared suffix, or that learned their response later), kept in a list.
        std::erase_if(nonresponsive_, [&](std::uint32_t f) { return !frontier_[f].alive || frontier_[f].responsive; });
        for (const std::uint32_t f : nonresponsive_) consider(f);
        if (const auto it = frontier_by_response_.find(*own); it != frontier_by_response_.end())
            for (const std::uint32_t f : it->second) consider(f);
    } else {
        for (Symbol a = 0; a < k_; ++a) {
            auto& by = frontier_by_key_[a];
            const Symbol o = signature_[static_cast<std::size_t>(b) * k_ + a];
            if (o < by.size())
                for (const std::uint32_t f : by[o]) consider(f);
        }
        for (const std::uint32_t f : unkeyed_)
            if (frontier_[f].key_input == kNone) consider(f);
    }
    // Its successors outside the basis become frontier nodes.
    for (Symbol a = 0; a < k_; ++a) {
        const NodeId t = edge(node, a)->target;
        if (t == node || basis_of(t) != kNone || frontier_of(t) != kNone) continue;
        Word w = access_[b];
        w.push_back(a);
        add_frontier(t, std::move(w), static_cast<std::size_t>(b) * k_ + a);
    }
}

void LSharp::Impl::file(std::uint32_t f) {
    Frontier& fr = frontier_[f];
    for (Symbol a = 0; a < k_; ++a) {
        const auto e = edge(fr.node, a);
        if (!e) continue;
        fr.key_input = a;
        auto& by = frontier_by_key_[a];
        if (by.size() <= e->output) by.resize(e->output + 1);
        by[e->output].push_back(f);
        return;
    }
}

void LSharp::Impl::add_frontier(NodeId node, Word access, std::size_t source) {
    const auto f = static_cast<std::uint32_t>(frontier_.size());
    frontier_.push_back(Frontier{node, std::move(access), {}, kNone, true, false});
    frontier_.back().source = source;
    frontier_role_[node] = f;
    ++alive_frontier_;
    file(f);
    Frontier& fr = frontier_[f];
    const std::optional<std::uint64_t> own = shared_ads_basis_ != 0 ? response(node) : std::nullopt;
    if (own) {
        fr.responsive = true;
        frontier_by_response_[*own].push_back(f);
        if (fr.key_input == kNone) unkeyed_.push_back(f);  // (cannot happen: it knows a suffix)
        std::vector<std::uint32_t> maybe = basis_no_response_;
        if (const auto it = basis_by_response_.find(*own); it != basis_by_response_.end())
            maybe.insert(maybe.end(), it->second.begin(), it->second.end());
        std::sort(maybe.begin(), maybe.end());
        for (const std::uint32_t b : maybe)
            if (!apart(node, basis_[b])) add_candidate(f, b);
    } else if (fr.key_input == kNone) {
        nonresponsive_.push_back(f);
        unkeyed_.push_back(f);
        for (std::uint32_t b = 0; b < basis_.size(); ++b) add_candidate(f, b);  // nothing known
    } else {
        nonresponsive_.push_back(f);
        const Symbol o = edge(node, fr.key_input)->output;
        const auto& by = basis_by_output_[fr.key_input];
        if (o < by.size())
            for (const std::uint32_t b : by[o])
                if (!apart(node, basis_[b])) add_candidate(f, b);
    }
    if (fr.candidates.empty()) isolate(f);
    else if (fr.candidates.size() > 1) attend(f);
}

void LSharp::Impl::refresh(std::uint32_t f) {
    Frontier& fr = frontier_[f];
    fr.dirty = false;
    changed(f);
    if (fr.key_input == kNone) file(f);
    if (shared_ads_basis_ != 0 && !fr.responsive) {
        if (auto own = response(fr.node)) {
            // Now it answers the shared suffix: only basis states with its answer (or none) remain.
            fr.responsive = true;
            frontier_by_response_[*own].push_back(f);
            const auto it = basis_by_response_.find(*own);
            std::erase_if(fr.candidates, [&](std::uint32_t b) {
                const auto& r = basis_response_[b];
                return r && *r != *own;
            });
            (void)it;
        }
    }
    std::erase_if(fr.candidates, [&](std::uint32_t b) { return apart(fr.node, basis_[b]); });
    if (fr.candidates.capacity() > 4 * fr.candidates.size() + 16) fr.candidates.shrink_to_fit();  // memory ~ tree
}

void LSharp::Impl::promote(std::uint32_t f) {
    Frontier& fr = frontier_[f];
    changed(f);
    fr.alive = false;
    --alive_frontier_;
    unattend(f);
    isolated_.erase({access_cost(f).first, access_cost(f).second, f});
    frontier_role_[fr.node] = kNone;
    add_basis(fr.node, std::move(fr.access));
}

// ---- the loop ------------------------------------------------------------------------------------------

void LSharp::Impl::make_adequate() {
    while (true) {
        while (!isolated_.empty() || !attention_.empty()) {
            // Cheapest first, as L*'s breadth-first rows: a frontier node dearer than one still to be
            // identified waits for it (that node may be the new state). Its access sequence becomes a
            // basis state's, which every word of an Algorithm 2 suite repeats; and a cheaper basis
            // makes cheaper queries (measured: fewer queries and waits on the stand-ins).
            std::optional<std::uint32_t> cheaper;
            if (!isolated_.empty()) {
                const auto bound = std::make_pair(std::get<0>(*isolated_.begin()), std::get<1>(*isolated_.begin()));
                while (!attention_by_cost_.empty() && !frontier_[std::get<2>(*attention_by_cost_.begin())].alive)
                    unattend(std::get<2>(*attention_by_cost_.begin()));
                if (!attention_by_cost_.empty()) {
                    const auto& [waits, length, g] = *attention_by_cost_.begin();
                    if (std::make_pair(waits, length) < bound) cheaper = g;
                }
            }
            if (explore_ && !isolated_.empty() && !cheaper &&
                explore_suggested(std::make_pair(std::get<0>(*isolated_.begin()), std::get<1>(*isolated_.begin()))))
                continue;  // cheaper frontier nodes first: their answers may make one of them the new state
            if (!isolated_.empty() && !cheaper) {
                // Promotion first: a frontier node apart from the whole basis.
                const std::uint32_t f = std::get<2>(*isolated_.begin());
                isolated_.erase(isolated_.begin());
                Frontier& fr = frontier_[f];
                if (!fr.alive) continue;
                if (fr.dirty) refresh(f);
                if (fr.candidates.empty()) promote(f);
                else if (fr.candidates.size() > 1) attend(f);
                continue;
            }
            const std::uint32_t f = cheaper.value_or(*attention_.begin());
            Frontier& fr = frontier_[f];
            if (!fr.alive) {
                unattend(f);
                continue;
            }
            if (fr.dirty) refresh(f);
            if (fr.candidates.size() == 1 || predicted(f)) {
                unattend(f);
            } else if (fr.candidates.empty()) {
                unattend(f);
                isolate(f);
            } else {
                identify(f);  // separation: the answer makes it dirty
            }
        }
        ++full_passes_;
        // Answers below basis states may have made them apart from frontier nodes: check all once.
        // Only pairs where one side grew can have become apart.
        // Only those can pass the test below (in the same ascending order as a loop over all).
        std::vector<std::uint32_t>& todo = pass_scratch_;
        todo.clear();
        if (all_dirty_) {
            for (std::uint32_t f = 0; f < frontier_.size(); ++f) todo.push_back(f);
        } else {
            todo.insert(todo.end(), dirty_list_.begin(), dirty_list_.end());
            for (const std::uint32_t b : changed_basis_list_) {
                auto& list = by_candidate_[b];
                std::erase_if(list, [&](std::uint32_t f) {
                    const Frontier& fr = frontier_[f];
                    return !fr.alive || std::find(fr.candidates.begin(), fr.candidates.end(), b) == fr.candidates.end();
                });
                todo.insert(todo.end(), list.begin(), list.end());
            }
            std::sort(todo.begin(), todo.end());
            todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
        }
        for (const std::uint32_t f : todo) {
            Frontier& fr = frontier_[f];
            if (!fr.alive) continue;
            if (!fr.dirty && std::none_of(fr.candidates.begin(), fr.candidates.end(),
                                          [&](std::uint32_t b) { return basis_changed_[b] != 0; }))
                continue;
            refresh(f);
            if (fr.candidates.empty()) isolate(f);
            else if (fr.candidates.size() > 1 && !predicted(f)) attend(f);
        }
        if (all_dirty_) std::fill(basis_changed_.begin(), basis_changed_.end(), 0);
        for (const std::uint32_t b : changed_basis_list_) basis_changed_[b] = 0;
        changed_basis_list_.clear();
        dirty_list_.clear();
        all_dirty_ = false;
        if (isolated_.empty() && attention_.empty()) return;
    }
}

void LSharp::Impl::construct() {
    // Incrementally: the rows of new basis states, and the transitions into frontier nodes whose
    // candidates changed since the last hypothesis (a basis state's outputs and tree edges never change).
    const std::size_t n = basis_.size();
    auto fill = [&](std::size_t i) {
        const auto b = static_cast<std::uint32_t>(i / k_);
        const auto e = edge(basis_[b], static_cast<Symbol>(i % k_));
        std::uint32_t target = basis_of(e->target);
        if (target == kNone) target = choice(frontier_of(e->target));
        table_[i] = Transition{target, e->output};
    };
    const std::size_t built = table_.size();
    table_.resize(n * k_);
    for (const std::size_t i : changed_transitions_)
        if (i < built) fill(i);
    changed_transitions_.clear();
    for (std::size_t i = built; i < table_.size(); ++i) fill(i);
    hypothesis_.emplace(ask_->inputs(), ask_->outputs(), 0, table_);
    access_stale_ = true;  // computed when asked (access_sequences()), not per hypothesis
}

const std::vector<Word>& LSharp::Impl::hypothesis_access() {
    if (!access_stale_) return hypothesis_access_;
    access_stale_ = false;
    // The equivalence oracle runs its tests through these: the hypothesis's own shortest access
    // sequences (inputs other than `wait` first: waits are slow on a device), which may be shorter
    // than the basis's tree paths.
    hypothesis_access_.clear();
    const auto wait = ask_->traits().wait;
    auto cost = [&](const Word& w) {
        return std::make_pair(wait ? std::count(w.begin(), w.end(), *wait) : 0, w.size());
    };
    if (explore_) {
        // The words explore_suggested asked are built on the basis's access sequences: the suite must
        // use the same ones to find them in the tree.
        hypothesis_access_ = access_;
        return hypothesis_access_;
    }
    StateId s = 0;
    for (auto& w : typestar::access_sequences(*hypothesis_, input_order())) {
        // The basis's own word where it is no dearer: the words asked from it are then the suite's.
        Word shortest = w.value_or(Word{});
        hypothesis_access_.push_back(cost(access_[s]) <= cost(shortest) ? access_[s] : std::move(shortest));
        ++s;
    }
    return hypothesis_access_;
}

std::vector<Word> LSharp::Impl::inconsistencies(std::size_t limit) {
    // Incremental: only nodes whose hypothesis state changed, or that are new, are looked at again
    // (the same words as a breadth-first pass over the whole tree; tree_consistency.hpp).
    return consistency_->check(*hypothesis_, limit);
}

void LSharp::Impl::process(Word sigma) {
    const MealyMachine& h = *hypothesis_;
    while (true) {
        const auto r = tree_->node_of(sigma);
        if (!r) throw std::logic_error("L#: a counterexample left the tree");
        if (basis_of(*r) != kNone) return;
        if (const std::uint32_t f = frontier_of(*r); f != kNone && frontier_[f].alive) {
            mark_dirty(f);
            frontier_[f].no_prediction = true;
            changed(f);
            attend(f);
            return;
        }
        // The part of sigma inside the basis, up to the frontier node it runs through.
        std::size_t j = 0;
        for (NodeId n = kRoot; basis_of(n) != kNone; ++j) n = edge(n, sigma[j])->target;
        --j;  // the frontier node is reached by sigma[0..j]
        const std::size_t split = (j + 1 + sigma.size()) / 2;
        const Word s1(sigma.begin(), sigma.begin() + static_cast<std::ptrdiff_t>(split));
        const Word s2(sigma.begin() + static_cast<std::ptrdiff_t>(split), sigma.end());
        const StateId q1 = h.run(s1);
        const NodeId b = basis_[h.run(sigma)];
        const auto eta = witness(*r, b);
        if (!eta) throw std::logic_error("L#: counterexample analysis lost its witness");
        Word next = concat(access_[q1], s2);
        ask(concat(next, *eta));
        const auto x = tree_->node_of(next);
        if (x && apart(*x, b)) sigma = std::move(next);
        else sigma = s1;
    }
}

bool LSharp::Impl::explore_suggested(std::optional<std::pair<std::size_t, std::size_t>> below) {
    if (suggested_words_.empty()) {
        // Σ^B in input order: the suffixes DroidStar Algorithm 2 runs from every transition.
        suggested_words_.emplace_back();
        for (std::size_t length = 0; length < suggested_; ++length) {
            std::vector<Word> longer;
            longer.reserve(suggested_words_.size() * k_);
            for (const Word& w : suggested_words_)
                for (Symbol a = 0; a < k_; ++a) {
                    longer.push_back(w);
                    longer.back().push_back(a);
                }
            suggested_words_.swap(longer);
        }
    }
    const std::size_t before = tree_->num_nodes();
    std::vector<Word> words;
    // Every transition leaving the basis tree ends in a frontier node (a loop — err, a declared
    // quiet wait — and an edge of the basis tree have no words of their own). Cheapest first.
    std::vector<std::uint32_t> order;
    for (std::uint32_t f = 0; f < frontier_.size(); ++f)
        if (frontier_[f].alive && !frontier_[f].explored && (!below || access_cost(f) < *below)) order.push_back(f);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t x, std::uint32_t y) { return access_cost(x) < access_cost(y); });
    for (const std::uint32_t f : order) {
        frontier_[f].explored = true;
        {
            for (const Word& s : suggested_words_) {
                NodeId n = frontier_[f].node;
                bool known = true;
                for (const Symbol x : s) {
                    const auto next = edge(n, x);
                    if (!next) {
                        known = false;
                        break;
                    }
                    n = next->target;
                }
                if (known) continue;
                Word w = frontier_[f].access;
                w.insert(w.end(), s.begin(), s.end());
                w.push_back(pad_input_);
                words.push_back(std::move(w));
            }
        }
    }
    if (words.empty()) return false;
    // The pad is a look-ahead (Query::optional_tail): what the tree knows without it runs nothing.
    std::vector<Word> answers(words.size());
    std::vector<Query> batch;
    batch.reserve(words.size());
    for (std::size_t i = 0; i < words.size(); ++i) {
        answers[i].resize(words[i].size());
        batch.push_back(Query{{}, words[i], answers[i], 1});
    }
    ask_->query_all(batch);
    grow_roles();
    for (const Word& w : words) touch(w);
    return tree_->num_nodes() != before;
}

void LSharp::Impl::build() {
    while (true) {
        make_adequate();
        if (seed_ && predicting_) {
            // The tree has grown: basis states matched to the seed's states again, and a frontier node
            // whose prediction that withdrew is identified by queries.
            relabel_basis();
            bool again = false;
            for (std::uint32_t f = 0; f < frontier_.size(); ++f)
                if (frontier_[f].alive && frontier_[f].candidates.size() > 1 && !predicted(f)) {
                    attend(f);
                    again = true;
                }
            if (again) continue;
        }
        construct();
        const auto words = inconsistencies(kConsistencyBatch);
        if (words.empty()) {
            if (explore_ && explore_suggested()) continue;  // new answers: adequate and consistent again
            if (seed_ && check_seed_states()) continue;
            nodes_after_build_ = tree_->num_nodes();
            executed_after_build_ = tree_->stats().executed;
            return;
        }
        log_->debug("L#: the hypothesis contradicts the tree on {} words", words.size());
        for (const Word& word : words) process(Word(word.begin(), word.end() - 1));
    }
}

void LSharp::Impl::start() {
    const Alphabet& inputs = ask_->inputs();
    explore_ = config_.explore_suggested && suggested_ >= 2;
    basis_by_output_.assign(k_, {});
    const auto wait = ask_->traits().wait;
    for (auto a = static_cast<Symbol>(k_); a-- > 0;)
        if (!wait || a != *wait) pad_input_ = a;
    frontier_by_key_.assign(k_, {});
    if (config_.seed) {
        seed_ = over_alphabets(minimize(*config_.seed), inputs, ask_->outputs());
        log_->info("L# seeded with a {}-state machine: its states are rebuilt on the device first",
                   seed_->num_states());
        predicting_ = true;
        rebuild();
    }
    add_basis(kRoot, {});
    build();
}

bool LSharp::Impl::refine(const Counterexample& cex) {
    if (tree_->num_nodes() != nodes_after_build_ || tree_->stats().executed != executed_after_build_) {
        // The equivalence oracle's queries went into the tree too: any subtree may have grown.
        consistency_->reset();
        std::fill(basis_changed_.begin(), basis_changed_.end(), 1);
        for (Frontier& fr : frontier_) fr.dirty = fr.alive;
        all_dirty_ = true;  // the next pass looks at every frontier node
    }
    const MealyMachine old = *hypothesis_;
    const Word expected = old.outputs_of(cex.inputs);
    std::size_t d = 0;
    while (d < cex.inputs.size() && d < cex.actual.size() && expected[d] == cex.actual[d]) ++d;
    if (d >= cex.inputs.size() || d >= cex.actual.size()) return false;
    const Word prefix(cex.inputs.begin(), cex.inputs.begin() + static_cast<std::ptrdiff_t>(d) + 1);
    // The counterexample's answer is the device's (the equivalence oracle's contract): into the tree
    // like any answer, checked against it (NondeterminismError on a contradiction), no query.
    tree_->insert(prefix, std::span<const Symbol>(cex.actual.data(), d + 1));
    grow_roles();
    touch(prefix);
    const auto last = tree_->node_of(Word(prefix.begin(), prefix.end() - 1));
    const auto e = last ? edge(*last, prefix.back()) : std::nullopt;
    if (!e || e->output == expected[d]) return false;  // the device does not answer as the counterexample says
    process(Word(prefix.begin(), prefix.end() - 1));
    build();
    auto changed = [&] {
        return hypothesis_->num_states() != old.num_states() ||
               !std::equal(hypothesis_->table().begin(), hypothesis_->table().end(), old.table().begin());
    };
    if (!changed() && predicting_) {
        log_->info("L#: seed predictions stop helping; identifying every state by queries from now on");
        predicting_ = false;
        table_.clear();
        for (std::uint32_t f = 0; f < frontier_.size(); ++f)
            if (frontier_[f].alive && frontier_[f].candidates.size() > 1) attend(f);
        build();
    }
    return changed();
}

// ---- LSharp --------------------------------------------------------------------------------------------

LSharp::LSharp(MembershipOracle& oracle, LSharpConfig config)
    : impl_(std::make_unique<Impl>(oracle, std::move(config))) {}
LSharp::~LSharp() = default;

void LSharp::prepare_for(std::size_t suggested_suffix_length) { impl_->suggested_ = suggested_suffix_length; }
void LSharp::start() { impl_->start(); }
bool LSharp::refine(const Counterexample& cex) { return impl_->refine(cex); }

MealyMachine LSharp::hypothesis() const {
    if (!impl_->hypothesis_) throw std::logic_error("LSharp::hypothesis() before start()");
    return *impl_->hypothesis_;
}
std::vector<Word> LSharp::access_sequences() const { return impl_->hypothesis_access(); }

std::string LSharp::progress() const {
    return std::to_string(impl_->basis_.size()) + " basis, " + std::to_string(impl_->alive_frontier_) +
           " frontier states, " + std::to_string(impl_->full_passes_) + " passes";
}

}  // namespace typestar
