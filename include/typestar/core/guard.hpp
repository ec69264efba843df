// Guards: the one expression language for "this argument matters" (docs/spec-format-v2.md,
// "Guards"). A register automaton's transition guard (SL*) and a typestate partition's guard
// (PSYCO) are both comparisons `== != < <= > >=` of terms joined by `&&` (binding tighter) and `||`;
// a term is a name (a parameter, a register, a constant), an integer literal, or a name `+ c` /
// `- c` (SL*'s `+c` theory). Design note: the language lives here, below the spec format and the
// register automata, so that both read it with one parser and evaluate it with one evaluator; what a
// name denotes is the caller's (a TermResolver), and so is the value of a term's operand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace typestar {

/// One operand of a guard, an output argument or an assignment. `index` is into the input
/// parameters (Param), the source location's registers (Register), the constants (Constant) or the
/// output's parameters (OutputParam, assignments only: stores a `fresh` output). A partition guard
/// uses Param (index into the callin's declared parameters) and Literal only.
/// `offset` is SL*'s `+c` theory (increments): the term's value is the operand's plus `offset`
/// (`r + 1`, `p - 2`), for `int` operands other than literals; 0 for every term of the equality
/// and plain ordered theories.
struct Term {
    enum class Kind { Param, Register, Constant, Literal, OutputParam };
    Kind kind = Kind::Param;
    std::size_t index = 0;
    std::int64_t literal = 0;  ///< Kind::Literal only
    std::int64_t offset = 0;   ///< added to the operand's value (`+c`); never on a Literal
    bool operator==(const Term&) const = default;
    auto operator<=>(const Term&) const = default;
};

/// Comparison operators of the theories (equality: Eq, Ne; ordered: all).
enum class Op { Eq, Ne, Lt, Le, Gt, Ge };

/// "==", "!=", "<", "<=", ">", ">=".
[[nodiscard]] const char* op_text(Op op);

/// `left op right`.
struct Atom {
    Term left;
    Op op = Op::Eq;
    Term right;
    bool operator==(const Atom&) const = default;
    auto operator<=>(const Atom&) const = default;
};

/// A guard in disjunctive normal form: true iff some conjunction holds. `true` is one empty
/// conjunction; no conjunction at all is `false` (never written in files).
struct Guard {
    std::vector<std::vector<Atom>> disjuncts{{}};
    [[nodiscard]] bool is_true() const;
    bool operator==(const Guard&) const = default;
};

/// Resolves a name in a guard: returns the term, or nullopt when the name is unknown.
using TermResolver = std::function<std::optional<Term>(const std::string& name)>;
/// A guard parse error at a 1-based column of the guard text.
struct GuardSyntaxError {
    int column = 0;
    std::string message;
};
/// Parses `a == b && c < d + 1 || true`: comparisons (==, !=, <, <=, >, >=) of terms, joined by &&
/// (binding tighter) and ||; `true` alone or as an atom. A term is a name ([A-Za-z0-9_.]+ not
/// starting with a digit) or an integer literal, a name optionally followed by `+ c` or `- c` (c a
/// non-negative integer: the `+c` theory). Returns the guard, or the first error (unknown name,
/// bad operator, `5 + 1`) with its column.
[[nodiscard]] std::variant<Guard, GuardSyntaxError> parse_guard(const std::string& text, const TermResolver& resolve);
/// Parses one term as parse_guard reads it (`r1`, `p + 1`, `c - 2`, `-5`), the whole text.
[[nodiscard]] std::variant<Term, GuardSyntaxError> parse_term(const std::string& text, const TermResolver& resolve);

/// The names a guard text reads, in order of first appearance, when it parses with every name
/// known; nullopt when it does not parse (it is then not an expression of the language).
[[nodiscard]] std::optional<std::vector<std::string>> guard_names(const std::string& text);

/// `a op b`.
[[nodiscard]] constexpr bool compare(std::int64_t a, Op op, std::int64_t b) {
    switch (op) {
        case Op::Eq: return a == b;
        case Op::Ne: return a != b;
        case Op::Lt: return a < b;
        case Op::Le: return a <= b;
        case Op::Gt: return a > b;
        case Op::Ge: return a >= b;
    }
    return false;
}

/// The value of `term` given its operand's value `operand` (`operand_value(term)`): the operand
/// plus the `+c` offset, in two's complement like an int64 device would never be asked (the register
/// automata's validate refuses offsets that could overflow).
[[nodiscard]] constexpr std::int64_t term_value(const Term& term, std::int64_t operand) {
    if (term.kind == Term::Kind::Literal || term.offset == 0) return operand;
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(operand) + static_cast<std::uint64_t>(term.offset));
}

/// The evaluator: true when some conjunction of `guard` holds, each term's operand valued by
/// `operand_value(term)` (a Literal's is term.literal; the rest is the caller's).
template <typename OperandValue>
[[nodiscard]] bool evaluate_guard(const Guard& guard, const OperandValue& operand_value) {
    for (const auto& conj : guard.disjuncts) {
        bool all = true;
        for (const auto& a : conj) {
            if (!compare(term_value(a.left, operand_value(a.left)), a.op,
                         term_value(a.right, operand_value(a.right)))) {
                all = false;
                break;
            }
        }
        if (all) return true;
    }
    return false;
}

/// How a callin's parameter is treated (docs/spec-format-v2.md, "Guards"): abstracted by the callin's
/// partitions (a typestate's abstract inputs, PSYCO) or kept as data (a register automaton's
/// registers and guards, SL*). Written in a signature after the type: `len: int partition`.
enum class Abstraction { Partition, Data };
/// "partition" or "data".
[[nodiscard]] const char* abstraction_name(Abstraction abstraction);
/// The Abstraction named `name` ("partition", "data"), else nullopt.
[[nodiscard]] std::optional<Abstraction> abstraction_named(const std::string& name);

/// `operand` followed by ` + c` / ` - c` for a non-zero offset (never on a literal).
[[nodiscard]] std::string term_text(const Term& term, const std::string& operand);
/// The guard as text (`p < r1 && p != r2 || p == c`), "true" for the true guard, "false" for no
/// conjunction; `operand_name(term)` names a non-literal operand.
[[nodiscard]] std::string guard_text(const Guard& guard, const std::function<std::string(const Term&)>& operand_name);

}  // namespace typestar
