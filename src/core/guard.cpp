#include "typestar/core/guard.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <map>

namespace typestar {

const char* op_text(Op op) {
    switch (op) {
        case Op::Eq: return "==";
        case Op::Ne: return "!=";
        case Op::Lt: return "<";
        case Op::Le: return "<=";
        case Op::Gt: return ">";
        case Op::Ge: return ">=";
    }
    return "?";
}

bool Guard::is_true() const {
    return std::any_of(disjuncts.begin(), disjuncts.end(), [](const auto& c) { return c.empty(); });
}

namespace {

/// ` + c` or ` - c` for a term's offset, empty for none.
std::string offset_text(std::int64_t offset) {
    if (offset == 0) return {};
    // |INT64_MIN| has no int64 value: print it from its unsigned magnitude
    const auto magnitude = offset < 0 ? 0 - static_cast<std::uint64_t>(offset) : static_cast<std::uint64_t>(offset);
    return (offset < 0 ? " - " : " + ") + std::to_string(magnitude);
}

}  // namespace

const char* abstraction_name(Abstraction abstraction) {
    return abstraction == Abstraction::Data ? "data" : "partition";
}

std::optional<Abstraction> abstraction_named(const std::string& name) {
    if (name == "partition") return Abstraction::Partition;
    if (name == "data") return Abstraction::Data;
    return std::nullopt;
}

std::string term_text(const Term& term, const std::string& operand) {
    if (term.kind == Term::Kind::Literal) return std::to_string(term.literal);
    return operand + offset_text(term.offset);
}

std::string guard_text(const Guard& guard, const std::function<std::string(const Term&)>& operand_name) {
    if (guard.is_true()) return "true";
    if (guard.disjuncts.empty()) return "false";
    auto text = [&](const Term& term) {
        return term_text(term, term.kind == Term::Kind::Literal ? std::string() : operand_name(term));
    };
    std::string out;
    for (std::size_t d = 0; d < guard.disjuncts.size(); ++d) {
        if (d) out += " || ";
        const auto& conj = guard.disjuncts[d];
        for (std::size_t a = 0; a < conj.size(); ++a) {
            if (a) out += " && ";
            out += text(conj[a].left) + " " + op_text(conj[a].op) + " " + text(conj[a].right);
        }
    }
    return out;
}

// ---- guard parsing (hand-written: a dozen lines of grammar do not warrant a parser library) ----

namespace {

struct GuardLexer {
    const std::string& text;
    std::size_t pos = 0;
    void skip() {
        while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    }
    [[nodiscard]] int column() const { return static_cast<int>(pos) + 1; }
    bool eat(const std::string& s) {
        skip();
        if (text.compare(pos, s.size(), s) == 0) {
            pos += s.size();
            return true;
        }
        return false;
    }
    /// `word` as a whole name (`true`, not the start of `trueness`).
    bool eat_word(const std::string& word) {
        skip();
        const std::size_t end = pos + word.size();
        if (text.compare(pos, word.size(), word) != 0) return false;
        if (end < text.size() &&
            (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' || text[end] == '.'))
            return false;
        pos = end;
        return true;
    }
    bool at_end() {
        skip();
        return pos >= text.size();
    }
};

}  // namespace

namespace {

/// The guard parser; with `term_only` it reads one term (the whole text) and returns it.
std::variant<Guard, Term, GuardSyntaxError> parse_guard_or_term(const std::string& text, const TermResolver& resolve,
                                                               bool term_only) {
    GuardLexer lx{text};
    Guard guard;
    guard.disjuncts.clear();
    auto parse_term = [&](Term& out) -> std::optional<GuardSyntaxError> {
        lx.skip();
        const std::size_t start = lx.pos;
        if (lx.pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[lx.pos])) || text[lx.pos] == '-')) {
            std::size_t end = lx.pos + 1;
            while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
            const std::string number = text.substr(lx.pos, end - lx.pos);
            if (number == "-") return GuardSyntaxError{lx.column(), "expected a name or an integer"};
            try {
                out = Term{Term::Kind::Literal, 0, std::stoll(number)};
            } catch (const std::exception&) {
                return GuardSyntaxError{lx.column(), "integer '" + number + "' is out of range"};
            }
            lx.pos = end;
        } else {
            std::size_t end = lx.pos;
            while (end < text.size() &&
                   (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' || text[end] == '.'))
                ++end;
            if (end == lx.pos) return GuardSyntaxError{lx.column(), "expected a name or an integer"};
            const std::string name = text.substr(lx.pos, end - lx.pos);
            auto term = resolve(name);
            if (!term)
                return GuardSyntaxError{static_cast<int>(start) + 1,
                                        "unknown name '" + name + "' (not a parameter, register or constant)"};
            out = *term;
            lx.pos = end;
        }
        lx.skip();
        if (lx.pos < text.size() && (text[lx.pos] == '+' || text[lx.pos] == '-')) {
            // the +c theory: `name + c` / `name - c`, c a non-negative integer literal
            const bool minus = text[lx.pos] == '-';
            const int op_column = lx.column();
            if (out.kind == Term::Kind::Literal)
                return GuardSyntaxError{op_column, "an integer literal takes no '+ c' (write the sum)"};
            ++lx.pos;
            lx.skip();
            std::size_t end = lx.pos;
            while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
            if (end == lx.pos) return GuardSyntaxError{lx.column(), "expected a non-negative integer after '+' or '-'"};
            const std::string number = text.substr(lx.pos, end - lx.pos);
            std::int64_t c = 0;
            try {
                c = std::stoll(number);
            } catch (const std::exception&) {
                return GuardSyntaxError{lx.column(), "integer '" + number + "' is out of range"};
            }
            out.offset += minus ? -c : c;  // on whatever offset the resolver's term carries
            lx.pos = end;
            lx.skip();
            if (lx.pos < text.size() && (text[lx.pos] == '+' || text[lx.pos] == '-'))
                return GuardSyntaxError{lx.column(), "one '+ c' per term (write the sum of the constants)"};
        }
        return std::nullopt;
    };
    if (term_only) {
        Term t;
        if (auto e = parse_term(t)) return *e;
        if (!lx.at_end()) return GuardSyntaxError{lx.column(), "expected the end of the term"};
        return t;
    }
    while (true) {
        std::vector<Atom> conj;
        bool is_true_disjunct = false;
        while (true) {
            if (lx.eat_word("true")) {
                is_true_disjunct = true;
            } else {
                Atom atom;
                if (auto e = parse_term(atom.left)) return *e;
                lx.skip();
                static const std::pair<const char*, Op> ops[] = {{"==", Op::Eq}, {"!=", Op::Ne}, {"<=", Op::Le},
                                                                 {">=", Op::Ge}, {"<", Op::Lt},  {">", Op::Gt}};
                bool found = false;
                for (const auto& [s, op] : ops) {
                    if (lx.eat(s)) {
                        atom.op = op;
                        found = true;
                        break;
                    }
                }
                if (!found) return GuardSyntaxError{lx.column(), "expected one of == != < <= > >="};
                if (auto e = parse_term(atom.right)) return *e;
                conj.push_back(atom);
            }
            if (!lx.eat("&&")) break;
        }
        if (is_true_disjunct) conj.clear();
        guard.disjuncts.push_back(std::move(conj));
        if (!lx.eat("||")) break;
    }
    if (!lx.at_end()) return GuardSyntaxError{lx.column(), "expected && or || or the end of the guard"};
    return guard;
}

}  // namespace

std::variant<Guard, GuardSyntaxError> parse_guard(const std::string& text, const TermResolver& resolve) {
    auto parsed = parse_guard_or_term(text, resolve, false);
    if (auto* e = std::get_if<GuardSyntaxError>(&parsed)) return *e;
    return std::get<Guard>(std::move(parsed));
}

std::variant<Term, GuardSyntaxError> parse_term(const std::string& text, const TermResolver& resolve) {
    auto parsed = parse_guard_or_term(text, resolve, true);
    if (auto* e = std::get_if<GuardSyntaxError>(&parsed)) return *e;
    return std::get<Term>(parsed);
}

std::optional<std::vector<std::string>> guard_names(const std::string& text) {
    std::vector<std::string> names;
    std::map<std::string, std::size_t> index;
    const TermResolver any = [&](const std::string& name) -> std::optional<Term> {
        const auto [at, fresh] = index.emplace(name, names.size());
        if (fresh) names.push_back(name);
        return Term{Term::Kind::Param, at->second};
    };
    if (std::holds_alternative<GuardSyntaxError>(parse_guard(text, any))) return std::nullopt;
    return names;
}

}  // namespace typestar
