// Arithmetic on data values (int64) that never overflows: values come from files, devices and
// clients, so INT64_MIN and INT64_MAX are ordinary inputs (an overflow there is undefined behaviour,
// which the sanitizer run found).
// Private to src/ra.
#pragma once

#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/ra/automaton.hpp"

namespace typestar::ra::internal {

constexpr Value kMinValue = std::numeric_limits<Value>::min();
constexpr Value kMaxValue = std::numeric_limits<Value>::max();

/// a + d when it is an int64, else nullopt.
inline std::optional<Value> plus(Value a, Value d) {
    Value r = 0;
    if (__builtin_add_overflow(a, d, &r)) return std::nullopt;
    return r;
}

/// a + d, clamped to the int64 range.
inline Value plus_clamped(Value a, Value d) {
    if (const auto r = plus(a, d)) return *r;
    return d > 0 ? kMaxValue : kMinValue;
}

/// An id not in `taken`: 0 when it is empty, else the one after its largest value, or (that being
/// INT64_MAX) the largest value not in `taken`. Deterministic.
inline Value unused_id(const std::set<Value>& taken) {
    if (taken.empty()) return 0;
    if (*taken.rbegin() < kMaxValue) return *taken.rbegin() + 1;
    Value v = kMaxValue;
    while (taken.count(v)) --v;  // taken is finite: stops before INT64_MIN unless taken is all of int64
    return v;
}

/// The fresh output value after `max_seen` (the largest value seen; 0 when none). Throws Error
/// when that is INT64_MAX: int64 has no value above it.
inline Value fresh_after(const std::optional<Value>& max_seen) {
    if (!max_seen) return 0;
    if (*max_seen == kMaxValue)
        throw Error("register automaton: no fresh value above " + std::to_string(kMaxValue) +
                    " (the largest int64) for a fresh output");
    return *max_seen + 1;
}

/// The value of term `t`'s operand (a parameter, register, constant, literal or output parameter).
Value base_value(const RegisterAutomaton& ra, const Term& t, const std::vector<Value>& params,
                 const std::vector<Value>& registers, const std::vector<Value>& outputs);

/// The term's value: its operand's plus its offset (`+c`), typestar::term_value.
Value term_value(const RegisterAutomaton& ra, const Term& t, const std::vector<Value>& params,
                 const std::vector<Value>& registers, const std::vector<Value>& outputs = {});

/// The literals of the guards of `ra` (both operands of every atom), in the order of its locations,
/// transitions, disjuncts and atoms, repeats kept.
inline std::vector<Value> guard_literals(const RegisterAutomaton& ra) {
    std::vector<Value> out;
    for (const auto& l : ra.locations)
        for (const auto& t : l.transitions)
            for (const auto& conjunction : t.guard.disjuncts)
                for (const auto& atom : conjunction)
                    for (const Term* term : {&atom.left, &atom.right})
                        if (term->kind == Term::Kind::Literal) out.push_back(term->literal);
    return out;
}

}  // namespace typestar::ra::internal
