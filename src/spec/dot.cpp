// Mealy DOT reading: the lexer, the parser (parse_mealy_dot, load_mealy_dot) and the import of a
// synchronous closure as a spec (parse_dot_spec, spec_of_mealy). Writing is in dot_writer.cpp.
#include "typestar/spec/dot.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "dot_detail.hpp"
#include "spec_detail.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/core/error.hpp"

namespace typestar::spec {
namespace {

using detail::is_id_char;
using detail::is_id_start;
using detail::is_marker;
using detail::lower;

// ---------------------------------------------------------------------------------------------
// Lexer

enum class Tok { Id, Arrow, Undirected, LBrace, RBrace, LBracket, RBracket, Equals, Semicolon, Comma,
                 Colon, End };

struct Token {
    Tok kind = Tok::End;
    std::string text;     // identifier value (unquoted, unescaped) or the punctuation itself
    bool quoted = false;  // "..." string
    bool html = false;    // <...> string
    int line = 0;
    int column = 0;
};

/// Thrown inside the parser for the first syntax error; turned into one Diagnostic.
struct SyntaxError {
    int line;
    int column;
    std::string message;
};


class Lexer {
public:
    explicit Lexer(const std::string& text) : text_(text) {}

    Token next() {
        skip_blanks_and_comments();
        Token t;
        t.line = line_;
        t.column = column_;
        if (pos_ >= text_.size()) return t;
        const char c = text_[pos_];
        const auto punct = [&](Tok kind, std::size_t length) {
            t.kind = kind;
            t.text = text_.substr(pos_, length);
            advance(length);
            return t;
        };
        switch (c) {
            case '{': return punct(Tok::LBrace, 1);
            case '}': return punct(Tok::RBrace, 1);
            case '[': return punct(Tok::LBracket, 1);
            case ']': return punct(Tok::RBracket, 1);
            case '=': return punct(Tok::Equals, 1);
            case ';': return punct(Tok::Semicolon, 1);
            case ',': return punct(Tok::Comma, 1);
            case ':': return punct(Tok::Colon, 1);
            default: break;
        }
        if (c == '-' && peek(1) == '>') return punct(Tok::Arrow, 2);
        if (c == '-' && peek(1) == '-') return punct(Tok::Undirected, 2);
        if (c == '"') return quoted_string(t);
        if (c == '<') return html_string(t);
        const auto uc = static_cast<unsigned char>(c);
        if (is_id_start(uc)) {
            const std::size_t start = pos_;
            while (pos_ < text_.size() && is_id_char(static_cast<unsigned char>(text_[pos_]))) advance(1);
            t.kind = Tok::Id;
            t.text = text_.substr(start, pos_ - start);
            return t;
        }
        if (std::isdigit(uc) || c == '.' || (c == '-' && (std::isdigit(static_cast<unsigned char>(peek(1))) ||
                                                          peek(1) == '.'))) {
            const std::size_t start = pos_;
            if (c == '-') advance(1);
            bool dot = false;
            while (pos_ < text_.size()) {
                const char d = text_[pos_];
                if (std::isdigit(static_cast<unsigned char>(d))) {
                    advance(1);
                } else if (d == '.' && !dot) {
                    dot = true;
                    advance(1);
                } else {
                    break;
                }
            }
            t.kind = Tok::Id;
            t.text = text_.substr(start, pos_ - start);
            if (t.text == "-" || t.text == "." || t.text == "-.")
                throw SyntaxError{t.line, t.column, "malformed number '" + t.text + "'"};
            return t;
        }
        throw SyntaxError{t.line, t.column, "unexpected character '" + std::string(1, c) + "'"};
    }

private:
    [[nodiscard]] char peek(std::size_t ahead) const {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }

    void advance(std::size_t n) {
        for (std::size_t k = 0; k < n && pos_ < text_.size(); ++k, ++pos_) {
            const auto c = static_cast<unsigned char>(text_[pos_]);
            if (c == '\n') {
                ++line_;
                column_ = 1;
            } else if ((c & 0xC0) != 0x80) {  // count UTF-8 code points, not bytes
                ++column_;
            }
        }
    }

    void skip_blanks_and_comments() {
        while (pos_ < text_.size()) {
            const char c = text_[pos_];
            if (std::isspace(static_cast<unsigned char>(c))) {
                advance(1);
            } else if (c == '#' || (c == '/' && peek(1) == '/')) {
                while (pos_ < text_.size() && text_[pos_] != '\n') advance(1);
            } else if (c == '/' && peek(1) == '*') {
                const int line = line_;
                const int column = column_;
                advance(2);
                while (pos_ < text_.size() && !(text_[pos_] == '*' && peek(1) == '/')) advance(1);
                if (pos_ >= text_.size()) throw SyntaxError{line, column, "unterminated /* comment"};
                advance(2);
            } else {
                return;
            }
        }
    }

    /// A quoted string and every `+ "..."` concatenated to it. A loop, not recursion: tens of
    /// thousands of concatenations must not exhaust the stack.
    Token quoted_string(Token t) {
        t.kind = Tok::Id;
        t.quoted = true;
        int part_line = t.line;
        int part_column = t.column;
        while (true) {
            advance(1);  // opening quote
            while (true) {
                if (pos_ >= text_.size()) throw SyntaxError{part_line, part_column, "unterminated string"};
                const char c = text_[pos_];
                if (c == '"') {
                    advance(1);
                    break;
                }
                if (c == '\\' && (peek(1) == '"' || peek(1) == '\\')) {
                    t.text += peek(1);
                    advance(2);
                } else if (c == '\\' && peek(1) == '\n') {  // line continuation
                    advance(2);
                } else {
                    t.text += c;
                    advance(1);
                }
            }
            // "a" + "b" concatenation
            const std::size_t save_pos = pos_;
            const int save_line = line_;
            const int save_column = column_;
            skip_blanks_and_comments();
            if (pos_ >= text_.size() || text_[pos_] != '+') {
                pos_ = save_pos;
                line_ = save_line;
                column_ = save_column;
                return t;
            }
            advance(1);
            skip_blanks_and_comments();
            if (pos_ >= text_.size() || text_[pos_] != '"')
                throw SyntaxError{line_, column_, "expected a quoted string after '+'"};
            part_line = line_;
            part_column = column_;
        }
    }

    Token html_string(Token t) {
        advance(1);  // opening '<'
        t.kind = Tok::Id;
        t.html = true;
        int depth = 1;
        while (true) {
            if (pos_ >= text_.size()) throw SyntaxError{t.line, t.column, "unterminated HTML string"};
            const char c = text_[pos_];
            if (c == '<') ++depth;
            if (c == '>' && --depth == 0) {
                advance(1);
                break;
            }
            t.text += c;
            advance(1);
        }
        return t;
    }

    const std::string& text_;
    std::size_t pos_ = 0;
    int line_ = 1;
    int column_ = 1;
};

// ---------------------------------------------------------------------------------------------
// Label helpers

std::string trim(std::string_view s) {
    const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return std::string(s);
}


void append_utf8(std::string& out, unsigned long cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// Decodes the XML entities Graphviz HTML labels use: &amp; &lt; &gt; &quot; &apos; &#N; &#xH;.
std::string decode_entities(std::string_view s) {
    static const std::map<std::string, std::string, std::less<>> named = {
        {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '&') {
            const auto semi = s.find(';', i);
            if (semi != std::string_view::npos && semi - i <= 10) {
                const std::string_view name = s.substr(i + 1, semi - i - 1);
                if (auto it = named.find(name); it != named.end()) {
                    out += it->second;
                    i = semi;
                    continue;
                }
                if (name.size() >= 2 && name[0] == '#') {
                    const bool hex = name[1] == 'x' || name[1] == 'X';
                    const std::string digits(name.substr(hex ? 2 : 1));
                    const bool valid = !digits.empty() && std::all_of(digits.begin(), digits.end(), [&](char c) {
                        return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                                   : std::isdigit(static_cast<unsigned char>(c)) != 0;
                    });
                    if (valid) {
                        append_utf8(out, std::stoul(digits, nullptr, hex ? 16 : 10));
                        i = semi;
                        continue;
                    }
                }
            }
        }
        out += s[i];
    }
    return out;
}

/// `<br>`, `<br/>` or `<br />` (any case) in an HTML label: position and length, or npos.
std::pair<std::size_t, std::size_t> find_br(const std::string& s) {
    const std::string l = lower(s);
    for (std::size_t i = l.find("<br"); i != std::string::npos; i = l.find("<br", i + 1)) {
        std::size_t j = i + 3;
        while (j < l.size() && std::isspace(static_cast<unsigned char>(l[j]))) ++j;
        if (j < l.size() && l[j] == '/') ++j;
        if (j < l.size() && l[j] == '>') return {i, j + 1 - i};
    }
    return {std::string::npos, 0};
}


std::string describe(const Token& t) {
    switch (t.kind) {
        case Tok::End: return "end of file";
        case Tok::Id:
            if (t.html) return "HTML string";
            return (t.quoted ? "string \"" : "identifier '") + t.text + (t.quoted ? "\"" : "'");
        default: return "'" + t.text + "'";
    }
}

bool is_keyword(const Token& t, std::string_view keyword) {
    return t.kind == Tok::Id && !t.quoted && !t.html && lower(t.text) == keyword;
}

// ---------------------------------------------------------------------------------------------
// Parser

struct Attribute {
    std::string key;
    Token value;
};

struct Entry {
    StateId target = 0;
    Symbol output = 0;
    int line = 0;    // of the label that defined it
    int column = 0;
};

class DotParser {
public:
    DotParser(const std::string& text, std::string file, const ReadLimits& limits)
        : lexer_(text), file_(std::move(file)), limits_(limits) {}

    MealyMachine parse() {
        try {
            shift();
            graph();
        } catch (const SyntaxError& e) {
            diagnostics_.push_back({file_, e.line, e.column, e.message});
            detail::throw_spec_error(sorted(std::move(diagnostics_)));
        }
        return build();
    }

    /// Where the transition of state `state` on `input` (names) was defined: its label.
    [[nodiscard]] std::optional<std::pair<int, int>> transition_location(const std::string& state,
                                                                         const std::string& input) const {
        const auto s = state_ids_.find(state);
        const auto i = inputs_.find(input);
        if (s == state_ids_.end() || !i || *i >= rows_[s->second].size() || !rows_[s->second][*i]) return std::nullopt;
        const Entry& e = *rows_[s->second][*i];
        return std::pair{e.line, e.column};
    }
    /// Where state `state` was first mentioned.
    [[nodiscard]] std::optional<std::pair<int, int>> state_location(const std::string& state) const {
        const auto s = state_ids_.find(state);
        if (s == state_ids_.end()) return std::nullopt;
        return state_locations_[s->second];
    }
    /// Where the graph starts (its `digraph` keyword).
    [[nodiscard]] std::pair<int, int> graph_location() const { return {graph_line_, graph_column_}; }

private:
    // --- grammar -------------------------------------------------------------------------------

    void shift() { tok_ = lexer_.next(); }

    [[noreturn]] void fail(const std::string& expected) const {
        throw SyntaxError{tok_.line, tok_.column, "expected " + expected + ", found " + describe(tok_)};
    }

    void expect(Tok kind, const std::string& what) {
        if (tok_.kind != kind) fail(what);
        shift();
    }

    void graph() {
        if (is_keyword(tok_, "strict")) shift();
        if (is_keyword(tok_, "graph"))
            throw SyntaxError{tok_.line, tok_.column,
                              "an undirected 'graph' is not a Mealy machine: expected 'digraph'"};
        if (!is_keyword(tok_, "digraph")) fail("'digraph'");
        graph_line_ = tok_.line;
        graph_column_ = tok_.column;
        shift();
        if (tok_.kind == Tok::Id) shift();  // graph name
        expect(Tok::LBrace, "'{'");
        while (tok_.kind != Tok::RBrace) {
            if (tok_.kind == Tok::End) fail("'}'");
            statement();
        }
        shift();
        if (tok_.kind != Tok::End)
            throw SyntaxError{tok_.line, tok_.column,
                              "unexpected " + describe(tok_) + " after the end of the graph"};
    }

    void statement() {
        if (is_keyword(tok_, "subgraph") || tok_.kind == Tok::LBrace)
            throw SyntaxError{tok_.line, tok_.column, "subgraphs are not supported"};
        if (is_keyword(tok_, "graph") || is_keyword(tok_, "node") || is_keyword(tok_, "edge")) {
            shift();
            if (tok_.kind != Tok::LBracket) fail("'['");
            (void)attribute_lists();
            if (tok_.kind == Tok::Semicolon) shift();
            return;
        }
        if (tok_.kind != Tok::Id) fail("a node id, an edge or an attribute");
        const Token first = tok_;
        shift();
        if (tok_.kind == Tok::Equals) {  // graph attribute id = id
            shift();
            if (tok_.kind != Tok::Id) fail("an attribute value");
            shift();
        } else if (tok_.kind == Tok::Colon) {
            throw SyntaxError{tok_.line, tok_.column, "node ports are not supported"};
        } else if (tok_.kind == Tok::Undirected) {
            throw SyntaxError{tok_.line, tok_.column, "undirected edge '--' in a digraph"};
        } else if (tok_.kind == Tok::Arrow) {
            shift();
            if (tok_.kind != Tok::Id) fail("a node id after '->'");
            const Token second = tok_;
            shift();
            if (tok_.kind == Tok::Colon) throw SyntaxError{tok_.line, tok_.column, "node ports are not supported"};
            if (tok_.kind == Tok::Arrow)
                throw SyntaxError{tok_.line, tok_.column, "edge chains (a -> b -> c) are not supported"};
            std::vector<Attribute> attributes;
            if (tok_.kind == Tok::LBracket) attributes = attribute_lists();
            edge(first, second, attributes);
        } else {
            if (tok_.kind == Tok::LBracket) (void)attribute_lists();
            node(first);
        }
        if (tok_.kind == Tok::Semicolon) shift();
    }

    std::vector<Attribute> attribute_lists() {
        std::vector<Attribute> attributes;
        while (tok_.kind == Tok::LBracket) {
            shift();
            while (tok_.kind != Tok::RBracket) {
                if (tok_.kind != Tok::Id) fail("an attribute name or ']'");
                Attribute a;
                a.key = tok_.text;
                a.value = tok_;
                shift();
                if (tok_.kind == Tok::Equals) {
                    shift();
                    if (tok_.kind != Tok::Id) fail("an attribute value");
                    a.value = tok_;
                    shift();
                } else {
                    a.value.text = "true";
                }
                attributes.push_back(std::move(a));
                if (tok_.kind == Tok::Semicolon || tok_.kind == Tok::Comma) shift();
            }
            shift();
        }
        return attributes;
    }

    // --- semantics -----------------------------------------------------------------------------

    /// Refuses a table of `states` × `inputs` transitions over the limit, at `t`, before allocating.
    void check_table_size(const Token& t, std::size_t states, std::size_t inputs) const {
        if (inputs == 0 || states <= limits_.max_transitions / inputs) return;
        throw SyntaxError{t.line, t.column,
                          "the graph has " + std::to_string(states) + " states and " + std::to_string(inputs) +
                              " inputs: " + std::to_string(states) + " x " + std::to_string(inputs) +
                              " transitions exceed the limit of " + std::to_string(limits_.max_transitions) +
                              " (set TYPESTAR_MAX_TRANSITIONS to allow more)"};
    }

    StateId state(const Token& t) {
        if (auto it = state_ids_.find(t.text); it != state_ids_.end()) return it->second;
        check_table_size(t, states_.size() + 1, inputs_.size());
        const auto id = static_cast<StateId>(states_.size());
        state_ids_.emplace(t.text, id);
        states_.push_back(t.text);
        state_locations_.push_back({t.line, t.column});
        rows_.emplace_back(inputs_.size());
        return id;
    }

    void node(const Token& t) {
        if (!is_marker(t.text)) (void)state(t);
    }

    void error(const Token& at, std::string message) {
        diagnostics_.push_back({file_, at.line, at.column, std::move(message)});
    }

    void edge(const Token& source, const Token& target, const std::vector<Attribute>& attributes) {
        if (is_marker(target.text)) {
            error(target, "edge into the initial marker " + target.text);
            return;
        }
        if (is_marker(source.text)) {
            const StateId init = state(target);
            if (initial_ && initial_->first != init) {
                error(source, "second initial marker edge: the initial state is already " +
                                  states_[initial_->first] + " (line " + std::to_string(initial_->second) + ")");
            } else if (!initial_) {
                initial_ = std::make_pair(init, source.line);
            }
            return;
        }
        const StateId from = state(source);
        const StateId to = state(target);
        const Attribute* label = nullptr;
        for (const auto& a : attributes)
            if (a.key == "label") label = &a;  // the last one wins, as in Graphviz
        if (label == nullptr) {
            error(source, "edge " + source.text + " -> " + target.text +
                              " has no label; expected label=\"input/output\"");
            label_errors_ = true;
            return;
        }
        const Token& value = label->value;
        std::vector<std::string> inputs;
        std::string output;
        if (value.html) {
            const auto [br, br_length] = find_br(value.text);
            if (br == std::string::npos) {
                error(value, "HTML label <" + value.text + "> has no <br /> between inputs and output");
                label_errors_ = true;
                return;
            }
            std::string_view left(value.text.data(), br);
            while (true) {
                const auto bar = left.find('|');
                inputs.push_back(decode_entities(trim(left.substr(0, bar))));
                if (bar == std::string_view::npos) break;
                left.remove_prefix(bar + 1);
            }
            output = decode_entities(trim(std::string_view(value.text).substr(br + br_length)));
        } else {
            const auto slash = value.text.find('/');
            if (slash == std::string::npos) {
                error(value, "label \"" + value.text + "\" is not \"input/output\"");
                label_errors_ = true;
                return;
            }
            inputs.push_back(trim(value.text.substr(0, slash)));
            output = trim(value.text.substr(slash + 1));
        }
        const std::string shown = value.html ? "<" + value.text + ">" : "\"" + value.text + "\"";
        if (std::any_of(inputs.begin(), inputs.end(), [](const std::string& i) { return i.empty(); })) {
            error(value, "empty input in label " + shown);
            label_errors_ = true;
            return;
        }
        if (output.empty()) {
            error(value, "empty output in label " + shown);
            label_errors_ = true;
            return;
        }
        for (const auto& input : inputs) {
            if (!inputs_.contains(input)) check_table_size(value, states_.size(), inputs_.size() + 1);
            const Symbol i = inputs_.intern(input);
            const Symbol o = outputs_.intern(output);
            auto& row = rows_[from];
            if (row.size() <= i) row.resize(i + 1);
            if (row[i]) {
                const Entry& old = *row[i];
                if (old.target != to || old.output != o)
                    error(value, "non-deterministic: state " + states_[from] + " on input '" + input +
                                     "' goes to " + states_[old.target] + " with output '" +
                                     outputs_.name(old.output) + "' (line " + std::to_string(old.line) +
                                     ") and to " + states_[to] + " with output '" + output + "' here");
            } else {
                row[i] = Entry{to, o, value.line, value.column};
            }
        }
    }

    static std::vector<Diagnostic> sorted(std::vector<Diagnostic> diagnostics) {
        std::stable_sort(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
            return std::pair(a.line, a.column) < std::pair(b.line, b.column);
        });
        return diagnostics;
    }

    MealyMachine build() {
        if (label_errors_) {
            // Missing transitions or an empty graph may only be the unreadable labels' fault.
        } else if (states_.empty()) {
            diagnostics_.push_back({file_, graph_line_, graph_column_, "the graph has no states"});
        } else if (inputs_.empty()) {
            diagnostics_.push_back({file_, graph_line_, graph_column_, "the graph has no labelled transitions"});
        } else {
            for (std::size_t s = 0; s < states_.size(); ++s) {
                // The first kMaxListed missing inputs by name, then how many more: a state missing
                // thousands of inputs is one readable line, and the output stays linear in the file.
                constexpr std::size_t kMaxListed = 10;
                std::size_t missing = 0;
                std::string list;
                for (std::size_t i = 0; i < inputs_.size(); ++i) {
                    if (i < rows_[s].size() && rows_[s][i]) continue;
                    if (++missing <= kMaxListed)
                        list += (list.empty() ? "'" : ", '") + inputs_.name(static_cast<Symbol>(i)) + "'";
                }
                if (missing == 0) continue;
                if (missing > kMaxListed) list += " and " + std::to_string(missing - kMaxListed) + " more";
                diagnostics_.push_back({file_, state_locations_[s].first, state_locations_[s].second,
                                        "state " + states_[s] + " has no transition on input" +
                                            (missing > 1 ? "s " : " ") + list});
            }
        }
        if (!diagnostics_.empty()) detail::throw_spec_error(sorted(std::move(diagnostics_)));
        std::vector<Transition> table;
        table.reserve(states_.size() * inputs_.size());
        for (const auto& row : rows_)
            for (std::size_t i = 0; i < inputs_.size(); ++i) table.push_back({row[i]->target, row[i]->output});
        return MealyMachine(inputs_, outputs_, initial_ ? initial_->first : 0, std::move(table), states_);
    }

    Lexer lexer_;
    std::string file_;
    ReadLimits limits_;
    Token tok_;
    int graph_line_ = 1;
    int graph_column_ = 1;
    std::vector<Diagnostic> diagnostics_;
    Alphabet inputs_;
    Alphabet outputs_;
    std::vector<std::string> states_;
    std::map<std::string, StateId> state_ids_;
    std::vector<std::pair<int, int>> state_locations_;
    std::vector<std::vector<std::optional<Entry>>> rows_;
    std::optional<std::pair<StateId, int>> initial_;  // state, line of the marker edge
    bool label_errors_ = false;  // some edge label could not be read
};

}  // namespace

MealyMachine parse_mealy_dot(const std::string& text, const std::string& file, const ReadLimits& limits) {
    if (auto d = detail::size_diagnostic(text.size(), file, limits)) detail::throw_spec_error({*d});
    return DotParser(text, file, limits).parse();
}

MealyMachine load_mealy_dot(const std::filesystem::path& path, const ReadLimits& limits) {
    return parse_mealy_dot(detail::read_input_file(path, limits, "DOT file"), path.string(), limits);
}

Spec parse_dot_spec(const std::string& text, const std::string& file, std::string name, const ReadLimits& limits) {
    if (auto d = detail::size_diagnostic(text.size(), file, limits)) detail::throw_spec_error({*d});
    DotParser parser(text, file, limits);
    const MealyMachine machine = parser.parse();
    try {
        Spec spec = spec_of_mealy(machine, std::move(name));
        spec.source.file = file;
        return spec;
    } catch (const NotAClosureError& e) {
        // Located at the offending edge's label, or at the state, or (a whole-machine problem such
        // as a missing `wait` input) at the `digraph` keyword.
        std::optional<std::pair<int, int>> at;
        if (!e.input().empty()) at = parser.transition_location(e.state(), e.input());
        if (!at && !e.state().empty()) at = parser.state_location(e.state());
        const auto [line, column] = at.value_or(parser.graph_location());
        detail::throw_spec_error({Diagnostic{file, line, column, e.what()}});
    }
}

Spec load_dot_spec(const std::filesystem::path& path, std::string name, const ReadLimits& limits) {
    return parse_dot_spec(detail::read_input_file(path, limits, "DOT file"), path.string(), std::move(name), limits);
}

Spec spec_of_mealy(const MealyMachine& machine, std::string name) {
    Spec spec;
    try {
        Typestate typestate = typestate_of(machine, std::move(name));
        for (const auto& state : typestate.states) {
            if (state.name == kErrorSinkName) {
                throw NotAClosureError("state name '" + state.name +
                                           "' is reserved for the error sink of the synchronous closure; rename the state",
                                       state.name, std::string());
            }
        }
        spec.typestate = canonical(typestate);
    } catch (const NotAClosureError& e) {
        // Names come from the machine (a file, a device): no raw control characters in the message.
        throw NotAClosureError(detail::printable(e.what()), e.state(), e.input());
    }
    const auto bound = distinguisher_bound(minimize(synchronous_closure(spec.typestate)));
    spec.bounds.distinguisher = std::max<std::size_t>(1, bound.value_or(1));
    return spec;
}

}  // namespace typestar::spec
