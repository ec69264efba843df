#include "typestar/conformance/suite.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "typestar/core/algorithms.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/core/traits.hpp"

#include "chained.hpp"

namespace typestar {

namespace {

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

TestSuite make_suite(const MealyMachine& model, SuiteMethod method, std::size_t bound) {
    TestSuite suite;
    suite.inputs = model.inputs();
    suite.outputs = model.outputs();
    suite.method = method;
    suite.bound = bound;
    return suite;
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

namespace {

/// A finite set of words in a given order (W, or one state's identification set) as a trie: for
/// each prefix, the smallest index of a word with that prefix, and the index of the word ending
/// there. Lets the generator answer "the first word starting with r" without listing words.
class WordTrie {
public:
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    struct Node {
        std::map<Symbol, std::size_t> children;
        std::size_t first = kNone;  ///< smallest index of a word with this prefix
        std::size_t exact = kNone;  ///< smallest index of the word equal to this prefix
    };

    explicit WordTrie(std::vector<Word> words) : words_(std::move(words)) {
        nodes_.emplace_back();
        for (std::size_t i = 0; i < words_.size(); ++i) {
            std::size_t n = 0;
            nodes_[n].first = std::min(nodes_[n].first, i);
            for (Symbol a : words_[i]) {
                auto it = nodes_[n].children.find(a);
                if (it == nodes_[n].children.end()) {
                    nodes_.emplace_back();
                    it = nodes_[n].children.emplace(a, nodes_.size() - 1).first;
                }
                n = it->second;
                nodes_[n].first = std::min(nodes_[n].first, i);
            }
            nodes_[n].exact = std::min(nodes_[n].exact, i);
        }
    }
    [[nodiscard]] const std::vector<Word>& words() const noexcept { return words_; }
    /// The node of the prefix w[from..], or nullptr when no word starts with it.
    [[nodiscard]] const Node* find(const Word& w, std::size_t from) const {
        std::size_t n = 0;
        for (std::size_t j = from; j < w.size(); ++j) {
            const auto it = nodes_[n].children.find(w[j]);
            if (it == nodes_[n].children.end()) return nullptr;
            n = it->second;
        }
        return &nodes_[n];
    }

private:
    std::vector<Word> words_;
    std::vector<Node> nodes_;
};

/// Where a candidate lies inside its branch: the middle (Algorithm 2: the suffix) and the index of
/// the word that follows it. Ordered as the generators enumerate: shorter middles first, then
/// lexicographically, then by word index.
struct Pos {
    Word m;
    std::size_t w = 0;
    bool operator==(const Pos&) const = default;
    bool operator<(const Pos& o) const {
        if (m.size() != o.m.size()) return m.size() < o.m.size();
        if (m != o.m) return m < o.m;
        return w < o.w;
    }
};

/// A candidate's rank: generation order = the order generate_suite's candidates had.
struct Tag {
    std::size_t branch = WordTrie::kNone;
    Pos pos;
    bool operator==(const Tag&) const = default;
    bool operator<(const Tag& o) const {
        if (branch != o.branch) return branch < o.branch;
        return pos < o.pos;
    }
};

void keep_min(std::optional<Tag>& best, Tag t) {
    if (!best || t < *best) best = std::move(t);
}

enum class BranchKind { Alg2Single, Alg2Base, Alg2Target, W, Wp1, Wp2 };

/// One family of candidates: a fixed prefix, then either every suffix of length `len` (Algorithm
/// 2; len 0 for the single word) or every middle of length <= len followed by each word of a
/// W-like set (W, Wp: the global set, or the identification set of the state the middle reaches).
struct Branch {
    BranchKind kind = BranchKind::Alg2Single;
    Word prefix;
    StateId start = 0;  ///< the model's state after `prefix`
    StateId q = 0;      ///< the state (and input) the branch checks, for its purpose
    Symbol i = 0;
    bool middle_w = false;  ///< middles then a W word (W, Wp) instead of fixed-length suffixes
    bool local = false;     ///< Wp's identification sets (by the state the middle reaches)
    std::size_t len = 0;    ///< suffix length (Algorithm 2) or the longest middle (W, Wp)
    bool dominated = false; ///< an earlier branch has the same prefix and the same words
};

}  // namespace

struct SuiteGenerator::Impl {
    MealyMachine model;
    SuiteMethod method = SuiteMethod::Algorithm2;
    std::size_t bound = 0;
    std::optional<Symbol> absorbing;
    std::size_t k = 0;
    std::vector<Branch> branches;
    std::optional<WordTrie> global;    ///< W (W, Wp)
    std::vector<WordTrie> local;       ///< per state: its identification set (Wp)

    // The branch-prefix trie: which branches start with which word.
    struct Node {
        std::map<Symbol, std::size_t> children;
        std::vector<std::size_t> here;           ///< undominated branches whose prefix ends here
        std::size_t below = WordTrie::kNone;     ///< smallest branch whose prefix is strictly longer
    };
    std::vector<Node> nodes;

    // Enumeration state.
    std::size_t b = 0;
    bool started = false;
    Pos pos;

    // Shortest-first enumeration (SuiteConfig::shortest_first): middle length d, then phase (W or
    // Wp's first, then Wp's second), then the middle, then the branch, then the word of its set.
    bool shortest_first = false;
    std::size_t len = 0;                    ///< the longest middle
    std::vector<std::size_t> phase_branches[2];
    std::size_t depth = 0, phase = 0, branch_at = 0, word_at = 0;
    Word middle;

    // Chained Algorithm 2 (SuiteConfig::chained): the cases, made up front.
    bool chained = false;
    std::vector<TestCase> chained_cases;
    std::size_t chained_at = 0;

    Impl(const MealyMachine& m, SuiteMethod meth) : model(m), method(meth), k(m.num_inputs()) {}

    [[nodiscard]] const WordTrie& set_for(const Branch& br, StateId after_middle) const {
        return br.local ? local[after_middle] : *global;
    }

    void add(Branch br) {
        br.start = model.run(br.prefix);
        branches.push_back(std::move(br));
    }

    void index_branches() {
        nodes.assign(1, Node{});
        for (std::size_t id = 0; id < branches.size(); ++id) {
            Branch& br = branches[id];
            if (!br.middle_w && k == 0 && br.len > 0) {  // no suffix of that length: no candidates
                br.dominated = true;
                continue;
            }
            std::size_t n = 0;
            for (Symbol a : br.prefix) {
                auto it = nodes[n].children.find(a);
                if (it == nodes[n].children.end()) {
                    nodes.emplace_back();
                    it = nodes[n].children.emplace(a, nodes.size() - 1).first;
                }
                n = it->second;
            }
            for (std::size_t other : nodes[n].here) {
                const Branch& o = branches[other];
                if (o.middle_w == br.middle_w && o.local == br.local && o.len == br.len) br.dominated = true;
            }
            if (!br.dominated) nodes[n].here.push_back(id);
        }
        // `below`: smallest branch id in the strict subtree, children before parents (ids grow).
        for (std::size_t n = nodes.size(); n-- > 0;) {
            for (const auto& [a, c] : nodes[n].children) {
                nodes[n].below = std::min(nodes[n].below, nodes[c].below);
                for (std::size_t id : nodes[c].here) nodes[n].below = std::min(nodes[n].below, id);
            }
        }
    }

    /// What every candidate of `br` says about the remainder r = x[from..] of a word x whose first
    /// `from` symbols are br.prefix: the first candidate with prefix r, the first equal to r, and
    /// whether one extends r strictly.
    void query(std::size_t id, const Word& x, std::size_t from, std::optional<Tag>& first_with_prefix,
               std::optional<Tag>& first_equal, bool& extends) const {
        const Branch& br = branches[id];
        const std::size_t r = x.size() - from;
        if (!br.middle_w) {
            if (r < br.len) extends = extends || k > 0;
            if (r <= br.len && (r == br.len || k > 0)) {
                Word s(x.begin() + static_cast<std::ptrdiff_t>(from), x.end());
                if (r == br.len) keep_min(first_equal, Tag{id, Pos{s, 0}});
                s.resize(br.len, 0);
                keep_min(first_with_prefix, Tag{id, Pos{std::move(s), 0}});
            }
            return;
        }
        if (r < br.len && k > 0) extends = true;
        StateId at = br.start;
        bool found_prefix = false;
        bool found_equal = false;
        for (std::size_t j = 0; j <= std::min(r, br.len); ++j) {
            if (j > 0) at = model.successor(at, x[from + j - 1]);
            const WordTrie::Node* node = set_for(br, at).find(x, from + j);
            if (node == nullptr) continue;
            if (!node->children.empty()) extends = true;
            if (found_prefix && (found_equal || node->exact == WordTrie::kNone)) continue;
            const Word m(x.begin() + static_cast<std::ptrdiff_t>(from),
                         x.begin() + static_cast<std::ptrdiff_t>(from + j));
            if (!found_prefix) {
                keep_min(first_with_prefix, Tag{id, Pos{m, node->first}});
                found_prefix = true;
            }
            if (!found_equal && node->exact != WordTrie::kNone) {
                keep_min(first_equal, Tag{id, Pos{m, node->exact}});
                found_equal = true;
            }
        }
    }

    /// Whether the candidate `tag` with (err-truncated) word x and outputs y is the case that
    /// stands for x in the deduplicated suite.
    [[nodiscard]] bool keeps(const Tag& tag, const Word& x, bool ends_absorbed) const {
        std::optional<Tag> first_with_prefix;
        std::optional<Tag> first_equal;
        bool extends = false;
        std::size_t n = 0;
        for (std::size_t d = 0;; ++d) {
            for (std::size_t id : nodes[n].here) query(id, x, d, first_with_prefix, first_equal, extends);
            if (d == x.size()) {
                if (nodes[n].below != WordTrie::kNone) {
                    extends = true;
                    keep_min(first_with_prefix, Tag{nodes[n].below, Pos{}});
                }
                break;
            }
            const auto it = nodes[n].children.find(x[d]);
            if (it == nodes[n].children.end()) break;
            n = it->second;
        }
        if (ends_absorbed) return first_with_prefix && *first_with_prefix == tag;
        return !extends && first_equal && *first_equal == tag;
    }

    /// Advances `pos` within branch b; false when the branch is exhausted.
    bool advance() {
        const Branch& br = branches[b];
        if (!started) {
            started = true;
            pos = Pos{};
            if (!br.middle_w) pos.m.assign(br.len, 0);
            return true;
        }
        if (br.middle_w) {
            StateId at = model.run(pos.m, br.start);
            if (pos.w + 1 < set_for(br, at).words().size()) {
                ++pos.w;
                return true;
            }
            pos.w = 0;
            if (!next_word(pos.m, br.len, true)) return false;
            return true;
        }
        return next_word(pos.m, br.len, false);
    }

    /// The next word after m in (length, then lexicographic) order up to `max_len` (any length when
    /// `grow`), or in lexicographic order of its length.
    bool next_word(Word& m, std::size_t max_len, bool grow) const {
        for (std::size_t i = m.size(); i-- > 0;) {
            if (++m[i] < k) return true;
            m[i] = 0;
        }
        if (!grow || m.size() >= max_len || k == 0) return false;
        m.assign(m.size() + 1, 0);
        return true;
    }

    std::string purpose(const Branch& br, const Pos& p, const Word& w) const {
        const Alphabet& in = model.inputs();
        const std::string where = "state " + model.state_name(br.q) + ", input " + in.name(br.i);
        switch (br.kind) {
            case BranchKind::Alg2Single: return where;
            case BranchKind::Alg2Base: return p.m.empty() ? where : where + ", then suffix " + to_string(p.m, in);
            case BranchKind::Alg2Target:
                return "state " + model.state_name(br.start) + " (target of " + where + ")" +
                       (p.m.empty() ? std::string() : ", suffix " + to_string(p.m, in));
            case BranchKind::W:
                return "W-method: state " + model.state_name(br.start) + " via " + to_string(br.prefix, in) +
                       ", middle " + to_string(p.m, in) + ", distinguishing " + to_string(w, in);
            case BranchKind::Wp1:
                return "Wp-method: state " + model.state_name(br.q) + ", middle " + to_string(p.m, in) +
                       ", distinguishing " + to_string(w, in);
            case BranchKind::Wp2:
                return "Wp-method: state " + model.state_name(br.q) + ", input " + in.name(br.i) + ", middle " +
                       to_string(p.m, in) + ", identifying " + model.state_name(model.run(p.m, br.start)) +
                       " by " + to_string(w, in);
        }
        return {};
    }

    /// The next candidate in shortest-first order (err-truncated), with its tag.
    std::optional<std::pair<Tag, TestCase>> shortest_candidate() {
        for (;;) {
            if (depth > len) return std::nullopt;
            const std::vector<std::size_t>& list = phase_branches[phase];
            if (branch_at < list.size()) {
                const Branch& br = branches[list[branch_at]];
                const std::vector<Word>& set = set_for(br, model.run(middle, br.start)).words();
                if (word_at >= set.size()) {
                    word_at = 0;
                    ++branch_at;
                    continue;
                }
                const Pos p{middle, word_at};
                const Word& w = set[word_at++];
                Word word = br.prefix;
                word.insert(word.end(), middle.begin(), middle.end());
                word.insert(word.end(), w.begin(), w.end());
                Word expected = model.outputs_of(word);
                truncate(word, expected);
                return std::pair<Tag, TestCase>{Tag{list[branch_at], p},
                                                TestCase{std::move(word), std::move(expected), purpose(br, p, w)}};
            }
            branch_at = 0;
            if (depth > 0 && next_word(middle, depth, false)) continue;  // the next middle of length depth
            if (++phase < 2) {
                middle.assign(depth, 0);
                continue;
            }
            phase = 0;
            if (++depth > len || k == 0) return std::nullopt;
            middle.assign(depth, 0);
        }
    }

    void truncate(Word& word, Word& expected) const {
        if (!absorbing) return;
        const auto it = std::find(expected.begin(), expected.end(), *absorbing);
        if (it == expected.end()) return;
        const auto keep = static_cast<std::size_t>(it - expected.begin()) + 1;
        expected.resize(keep);
        word.resize(keep);
    }

    /// The next candidate (err-truncated), with its tag.
    std::optional<std::pair<Tag, TestCase>> candidate() {
        if (shortest_first) return shortest_candidate();
        for (;;) {
            if (b >= branches.size()) return std::nullopt;
            if (branches[b].dominated || !advance()) {
                ++b;
                started = false;
                continue;
            }
            const Branch& br = branches[b];
            Word word = br.prefix;
            word.insert(word.end(), pos.m.begin(), pos.m.end());
            Word w;
            if (br.middle_w) {
                w = set_for(br, model.run(pos.m, br.start)).words()[pos.w];
                word.insert(word.end(), w.begin(), w.end());
            }
            Word expected = model.outputs_of(word);
            truncate(word, expected);
            return std::pair<Tag, TestCase>{Tag{b, pos},
                                            TestCase{std::move(word), std::move(expected), purpose(br, pos, w)}};
        }
    }
};

// Over 120 lines: builds the suite of each method (Algorithm 2, W, Wp) in one place; not yet split by method.
SuiteGenerator::SuiteGenerator(const MealyMachine& model, const SuiteConfig& config)
    : impl_(std::make_unique<Impl>(model, config.method)) {
    Impl& g = *impl_;
    const auto access = resolve_access(model, config);
    const DeviceTraits traits = config.traits ? *config.traits : closure_traits(model.inputs(), model.outputs());
    g.absorbing = traits.absorbing;
    const std::size_t k = model.num_inputs();
    switch (config.method) {
        case SuiteMethod::Algorithm2: {
            g.bound = config.bound;
            for (StateId q = 0; q < model.num_states(); ++q) {
                for (Symbol i = 0; i < k; ++i) {
                    const auto& t = model.transition(q, i);
                    Word base = access[q];
                    base.push_back(i);
                    const bool err = traits.absorbing && t.output == *traits.absorbing;
                    const bool quiet_loop = traits.wait && traits.quiet && i == *traits.wait &&
                                            t.output == *traits.quiet && t.target == q;
                    const bool tree = access[t.target] == base;
                    Branch br;
                    br.q = q;
                    br.i = i;
                    br.prefix = base;
                    if (err || quiet_loop || tree) {
                        br.kind = BranchKind::Alg2Single;
                        g.add(br);
                        continue;
                    }
                    br.kind = BranchKind::Alg2Base;
                    br.len = config.bound;
                    g.add(br);
                    br.kind = BranchKind::Alg2Target;
                    br.prefix = access[t.target];
                    g.add(br);
                }
            }
            break;
        }
        case SuiteMethod::W:
        case SuiteMethod::Wp: {
            const std::size_t extra = extra_states_for(model, config);
            g.bound = extra;
            auto w_set = characterizing_set(model);
            if (config.method == SuiteMethod::Wp) {
                // Identification set of each state: the first word of W telling it from each other class.
                const std::size_t n = model.num_states();
                const auto classes = equivalence_classes(model);
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
                    std::vector<Word> mine;
                    for (std::size_t j = 0; j < w_set.size(); ++j)
                        if (used[j]) mine.push_back(w_set[j]);
                    if (mine.empty()) mine.push_back(Word{});
                    g.local.emplace_back(std::move(mine));
                }
            }
            if (w_set.empty()) w_set.push_back(Word{});
            g.global.emplace(std::move(w_set));
            Branch br;
            br.middle_w = true;
            br.len = extra;
            if (config.method == SuiteMethod::W) {
                br.kind = BranchKind::W;
                for (StateId q = 0; q < model.num_states(); ++q) {
                    br.prefix = access[q];
                    g.add(br);
                    for (Symbol i = 0; i < k; ++i) {
                        br.prefix = access[q];
                        br.prefix.push_back(i);
                        g.add(br);
                    }
                }
                break;
            }
            br.kind = BranchKind::Wp1;
            for (StateId q = 0; q < model.num_states(); ++q) {
                br.q = q;
                br.prefix = access[q];
                g.add(br);
            }
            br.kind = BranchKind::Wp2;
            br.local = true;
            for (StateId q = 0; q < model.num_states(); ++q)
                for (Symbol i = 0; i < k; ++i) {
                    Word p = access[q];
                    p.push_back(i);
                    if (access[model.successor(q, i)] == p) continue;  // in the state cover
                    br.q = q;
                    br.i = i;
                    br.prefix = std::move(p);
                    g.add(br);
                }
            break;
        }
    }
    g.index_branches();
    if (config.chained && config.method == SuiteMethod::Algorithm2) {
        const auto words = detail::chained_words(model, access, config.bound, traits, std::size_t{1} << 24, config.prior);
        if (!words.empty()) {
            g.chained = true;
            for (const auto& [q, w] : words) {
                TestCase c;
                c.inputs = w;
                c.expected = model.outputs_of(w);
                c.purpose = "state " + model.state_name(q) + ", chained checks " +
                            to_string(Word(w.begin() + static_cast<std::ptrdiff_t>(access[q].size()), w.end()),
                                      model.inputs());
                g.chained_cases.push_back(std::move(c));
            }
            finalize_cases(g.chained_cases, g.absorbing);
        }
    }
    if (config.shortest_first && config.method != SuiteMethod::Algorithm2) {
        g.shortest_first = true;
        g.len = g.bound;
        for (std::size_t id = 0; id < g.branches.size(); ++id)
            if (!g.branches[id].dominated) g.phase_branches[g.branches[id].kind == BranchKind::Wp2 ? 1 : 0].push_back(id);
    }
}

SuiteGenerator::~SuiteGenerator() = default;
SuiteGenerator::SuiteGenerator(SuiteGenerator&&) noexcept = default;
SuiteGenerator& SuiteGenerator::operator=(SuiteGenerator&&) noexcept = default;

std::optional<TestCase> SuiteGenerator::next() {
    Impl& g = *impl_;
    if (g.chained) {
        if (g.chained_at == g.chained_cases.size()) return std::nullopt;
        return std::move(g.chained_cases[g.chained_at++]);
    }
    while (auto c = g.candidate()) {
        if (g.shortest_first) return std::move(c->second);  // not deduplicated: the cache answers repeats
        const bool absorbed = g.absorbing && !c->second.expected.empty() && c->second.expected.back() == *g.absorbing;
        if (g.keeps(c->first, c->second.inputs, absorbed)) return std::move(c->second);
    }
    return std::nullopt;
}

std::optional<TestCase> SuiteGenerator::next_candidate() {
    auto c = impl_->candidate();
    if (!c) return std::nullopt;
    return std::move(c->second);
}

const Alphabet& SuiteGenerator::inputs() const noexcept { return impl_->model.inputs(); }
const Alphabet& SuiteGenerator::outputs() const noexcept { return impl_->model.outputs(); }
SuiteMethod SuiteGenerator::method() const noexcept { return impl_->method; }
std::size_t SuiteGenerator::bound() const noexcept { return impl_->bound; }

TestSuite algorithm2_suite(const MealyMachine& model, const SuiteConfig& config) {
    SuiteConfig c = config;
    c.method = SuiteMethod::Algorithm2;
    return generate_suite(model, c);
}

TestSuite w_method_suite(const MealyMachine& model, const SuiteConfig& config) {
    SuiteConfig c = config;
    c.method = SuiteMethod::W;
    return generate_suite(model, c);
}

TestSuite wp_method_suite(const MealyMachine& model, const SuiteConfig& config) {
    SuiteConfig c = config;
    c.method = SuiteMethod::Wp;
    return generate_suite(model, c);
}

std::size_t extra_states_for(const MealyMachine& model, const SuiteConfig& config) noexcept {
    std::size_t k = config.extra_states;
    if (config.state_bound && *config.state_bound > model.num_states())
        k = std::max(k, *config.state_bound - model.num_states());
    return k;
}

TestSuite generate_suite(const MealyMachine& model, const SuiteConfig& config) {
    SuiteGenerator generator(model, config);
    TestSuite suite = make_suite(model, generator.method(), generator.bound());
    while (auto c = generator.next()) suite.cases.push_back(std::move(*c));
    return suite;
}

}  // namespace typestar
