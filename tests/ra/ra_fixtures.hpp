// Small register automata for the ra tests, built in memory (self-contained: no RALib files).
#pragma once

#include "typestar/ra/automaton.hpp"

namespace typestar::ra::testing {

inline Term param(std::size_t i) { return Term{Term::Kind::Param, i}; }
inline Term reg(std::size_t i) { return Term{Term::Kind::Register, i}; }
inline Term out_param(std::size_t i) { return Term{Term::Kind::OutputParam, i}; }
inline Guard when(std::vector<std::vector<Atom>> disjuncts) { return Guard{std::move(disjuncts)}; }
inline OutputArg arg(Term t) { return OutputArg{false, t}; }
inline OutputArg fresh() { return OutputArg{true, {}}; }

/// A priority queue of capacity 2 over ordered ints: offer(p) answers ok (nok when full), poll
/// answers out(smallest) (nok when empty). Locations l0, l1 [r1], l2 [r1 <= r2].
inline RegisterAutomaton priority_queue2() {
    RegisterAutomaton ra;
    ra.name = "pq2";
    ra.inputs = {{"offer", {{"p", DataType::Int}}}, {"poll", {}}};
    ra.outputs = {{"ok", {}}, {"nok", {}}, {"out", {{"v", DataType::Int}}}};
    const Register r1{"r1", DataType::Int}, r2{"r2", DataType::Int};
    ra.locations = {{"l0", {}, {}}, {"l1", {r1}, {}}, {"l2", {r1, r2}, {}}};
    auto& l0 = ra.locations[0].transitions;
    l0.push_back({0, Guard{}, 0, {}, 1, {param(0)}});
    l0.push_back({1, Guard{}, 1, {}, 0, {}});
    auto& l1 = ra.locations[1].transitions;
    l1.push_back({0, when({{Atom{param(0), Op::Lt, reg(0)}}}), 0, {}, 2, {param(0), reg(0)}});
    l1.push_back({0, when({{Atom{param(0), Op::Ge, reg(0)}}}), 0, {}, 2, {reg(0), param(0)}});
    l1.push_back({1, Guard{}, 2, {arg(reg(0))}, 0, {}});
    auto& l2 = ra.locations[2].transitions;
    l2.push_back({0, Guard{}, 1, {}, 2, {reg(0), reg(1)}});
    l2.push_back({1, Guard{}, 2, {arg(reg(0))}, 1, {reg(1)}});
    return ra;
}

/// A one-slot key store over opaque ids: put(v) answers key(fresh) and stores v under that key;
/// get(k) answers val(v) for the stored key, nok otherwise; a second put answers nok.
inline RegisterAutomaton key_store() {
    RegisterAutomaton ra;
    ra.name = "keystore";
    ra.inputs = {{"put", {{"v", DataType::Id}}}, {"get", {{"k", DataType::Id}}}};
    ra.outputs = {{"key", {{"k", DataType::Id}}}, {"val", {{"v", DataType::Id}}}, {"nok", {}}};
    const Register value{"value", DataType::Id}, key{"key", DataType::Id};
    ra.locations = {{"s0", {}, {}}, {"s1", {value, key}, {}}};
    auto& s0 = ra.locations[0].transitions;
    s0.push_back({0, Guard{}, 0, {fresh()}, 1, {param(0), out_param(0)}});
    s0.push_back({1, Guard{}, 2, {}, 0, {}});
    auto& s1 = ra.locations[1].transitions;
    s1.push_back({0, Guard{}, 2, {}, 1, {reg(0), reg(1)}});
    s1.push_back({1, when({{Atom{param(0), Op::Eq, reg(1)}}}), 1, {arg(reg(0))}, 1, {reg(0), reg(1)}});
    s1.push_back({1, when({{Atom{param(0), Op::Ne, reg(1)}}}), 2, {}, 1, {reg(0), reg(1)}});
    return ra;
}

/// Login over ids: register(u, pw) once (ok, later nok), login(u, pw) ok only with the registered
/// pair (then logged in: login answers nok), logout ok when logged in.
inline RegisterAutomaton login() {
    RegisterAutomaton ra;
    ra.name = "login";
    ra.inputs = {{"register", {{"u", DataType::Id}, {"pw", DataType::Id}}},
                 {"login", {{"u", DataType::Id}, {"pw", DataType::Id}}},
                 {"logout", {}}};
    ra.outputs = {{"ok", {}}, {"nok", {}}};
    const Register id{"id", DataType::Id}, pw{"password", DataType::Id};
    ra.locations = {{"out", {}, {}}, {"registered", {id, pw}, {}}, {"in", {id, pw}, {}}};
    auto& l0 = ra.locations[0].transitions;
    l0.push_back({0, Guard{}, 0, {}, 1, {param(0), param(1)}});
    l0.push_back({1, Guard{}, 1, {}, 0, {}});
    l0.push_back({2, Guard{}, 1, {}, 0, {}});
    auto& l1 = ra.locations[1].transitions;
    l1.push_back({0, Guard{}, 1, {}, 1, {reg(0), reg(1)}});
    l1.push_back({1, when({{Atom{param(0), Op::Eq, reg(0)}, Atom{param(1), Op::Eq, reg(1)}}}), 0, {}, 2,
                  {reg(0), reg(1)}});
    l1.push_back({1, when({{Atom{param(0), Op::Ne, reg(0)}}, {Atom{param(1), Op::Ne, reg(1)}}}), 1, {}, 1,
                  {reg(0), reg(1)}});
    l1.push_back({2, Guard{}, 1, {}, 1, {reg(0), reg(1)}});
    auto& l2 = ra.locations[2].transitions;
    l2.push_back({0, Guard{}, 1, {}, 2, {reg(0), reg(1)}});
    l2.push_back({1, Guard{}, 1, {}, 2, {reg(0), reg(1)}});
    l2.push_back({2, Guard{}, 0, {}, 1, {reg(0), reg(1)}});
    return ra;
}

}  // namespace typestar::ra::testing
