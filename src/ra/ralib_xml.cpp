// RALib's register-automaton XML (LearnLib/ralib, RegisterAutomatonImporter's format), read with
// tinyxml2 and turned into a Mealy-style register automaton.
#include <tinyxml2.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <tuple>
#include <set>
#include <sstream>

#include "typestar/ra/format.hpp"

#include "../spec/spec_detail.hpp"

namespace typestar::ra {
namespace {

/// A term over RALib's names before registers are chosen: globals are Register terms indexed by
/// global, and OutputParam marks `__fresh__`.
struct XmlTransition {
    std::string from, to, symbol;
    std::vector<std::string> params;
    std::string guard;
    std::vector<std::pair<std::string, std::string>> assignments;  // to, from
    int line = 0;
};

std::vector<std::string> split_params(const char* text) {
    std::vector<std::string> out;
    if (!text) return out;
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, ',')) {
        const auto b = part.find_first_not_of(" \t");
        const auto e = part.find_last_not_of(" \t");
        if (b != std::string::npos) out.push_back(part.substr(b, e - b + 1));
    }
    return out;
}

/// False only when no integer values satisfy `conj` (terms at first-match time: parameters,
/// globals as registers, constants, literals). Every atom is a difference constraint x - y <= c
/// (x < y: x - y <= -1; == both ways; a constant or literal is an offset from one zero node); a
/// negative cycle (Floyd-Warshall) or a `!=` between two values the constraints force equal is a
/// contradiction. Sound, not complete (x != 1 && x != 2 && 1 <= x <= 2 is kept): a kept
/// contradiction only costs a conjunction that never holds.
__extension__ using Wide = __int128;  // sums of two 64-bit offsets never overflow

bool may_hold(const RegisterAutomaton& ra, const std::vector<Atom>& conj) {
    std::map<Term, std::size_t> node;  // node 0: the zero
    auto id = [&](const Term& t) {
        Term key = t;
        key.offset = 0;  // `x + c` is node x; the offset goes into the weights
        if (t.kind == Term::Kind::Constant || t.kind == Term::Kind::Literal) {
            const Value v = t.kind == Term::Kind::Constant ? ra.constants.at(t.index).value : t.literal;
            key = Term{Term::Kind::Literal, 0, v};
        }
        return node.emplace(key, node.size() + 1).first->second;
    };
    struct Edge {
        std::size_t from, to;
        Wide weight;  // to - from <= weight
    };
    std::vector<Edge> edges;
    std::vector<std::tuple<std::size_t, std::size_t, Wide>> distinct;  // x - y != delta
    for (const auto& a : conj) {
        const std::size_t x = id(a.left), y = id(a.right);
        // (x + oa) op (y + ob): x - y op delta (the +c theory; delta 0 without it)
        const Wide oa = a.left.kind == Term::Kind::Literal ? 0 : a.left.offset;
        const Wide ob = a.right.kind == Term::Kind::Literal ? 0 : a.right.offset;
        const Wide delta = ob - oa;
        switch (a.op) {  // x - y <= c is the edge y -> x of weight c
            case Op::Eq: edges.push_back({y, x, delta}), edges.push_back({x, y, -delta}); break;
            case Op::Ne: distinct.emplace_back(x, y, delta); break;
            case Op::Lt: edges.push_back({y, x, delta - 1}); break;
            case Op::Le: edges.push_back({y, x, delta}); break;
            case Op::Gt: edges.push_back({x, y, -delta - 1}); break;
            case Op::Ge: edges.push_back({x, y, -delta}); break;
        }
    }
    for (const auto& [term, n] : node)
        if (term.kind == Term::Kind::Literal) {  // v - zero <= literal and zero - v <= -literal
            edges.push_back({0, n, term.literal});
            edges.push_back({n, 0, -static_cast<Wide>(term.literal)});
        }
    const std::size_t n = node.size() + 1;
    const Wide inf = static_cast<Wide>(1) << 100;
    std::vector<std::vector<Wide>> d(n, std::vector<Wide>(n, inf));
    for (std::size_t i = 0; i < n; ++i) d[i][i] = 0;
    for (const auto& e : edges) d[e.from][e.to] = std::min(d[e.from][e.to], e.weight);
    // Stops at the first negative cycle: past one, path sums grow exponentially with the terms
    // (every pair of 56 terms ordered both ways overflowed 128 bits); before it, every distance is a
    // simple path's, at most n * 2^64 in size.
    for (std::size_t k = 0; k < n; ++k) {
        for (std::size_t i = 0; i < n; ++i)
            if (d[i][k] < inf)
                for (std::size_t j = 0; j < n; ++j)
                    if (d[k][j] < inf && d[i][k] + d[k][j] < d[i][j]) d[i][j] = d[i][k] + d[k][j];
        for (std::size_t i = 0; i < n; ++i)
            if (d[i][i] < 0) return false;
    }
    for (const auto& [x, y, delta] : distinct)
        if (d[y][x] <= delta && d[x][y] <= -delta) return false;  // forced x - y == delta
    return true;
}

/// `g` without duplicate atoms in a conjunction, without conjunctions that cannot hold, without
/// duplicate conjunctions.
void simplify(const RegisterAutomaton& ra, Guard& g) {
    std::set<std::vector<Atom>> kept;
    std::vector<std::vector<Atom>> out;
    for (auto& conj : g.disjuncts) {
        std::sort(conj.begin(), conj.end());
        conj.erase(std::unique(conj.begin(), conj.end()), conj.end());
        if (may_hold(ra, conj) && kept.insert(conj).second) out.push_back(std::move(conj));
    }
    g.disjuncts = std::move(out);
}

}  // namespace

// Over 120 lines: reads a RALib XML document element by element in one pass; not yet split by element.
RegisterAutomaton import_ralib_xml(const std::string& text, const std::string& file, const RalibImportOptions& options) {
    std::vector<Diagnostic> diags;
    auto fail = [&](int line, const std::string& message) { diags.push_back(Diagnostic{file, line, 0, message}); };
    auto raise_if = [&] {
        if (!diags.empty()) spec::detail::throw_spec_error(diags);
    };
    tinyxml2::XMLDocument doc;
    if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
        fail(doc.ErrorLineNum(), std::string("XML: ") + doc.ErrorStr());
        raise_if();
    }
    const auto* root = doc.FirstChildElement("register-automaton");
    if (!root) {
        fail(1, "not a RALib model: no <register-automaton> element");
        raise_if();
    }
    RegisterAutomaton ra;
    ra.name = std::filesystem::path(file).stem().string();
    std::set<std::string> read_as_int;  // RALib types other than `int` read as typestar's `int`
    auto type_of = [&](const char* t) {
        if (!t || !options.ordered_types.count(t)) return DataType::Id;
        if (std::string(t) != "int") read_as_int.insert(t);
        return DataType::Int;
    };
    auto symbols = [&](const tinyxml2::XMLElement* parent, std::vector<SymbolDecl>& out) {
        if (!parent) return;
        for (auto* s = parent->FirstChildElement("symbol"); s; s = s->NextSiblingElement("symbol")) {
            SymbolDecl d{s->Attribute("name") ? s->Attribute("name") : "", {}};
            if (d.name.empty()) fail(s->GetLineNum(), "<symbol> without a name");
            for (auto* p = s->FirstChildElement("param"); p; p = p->NextSiblingElement("param"))
                d.params.push_back({p->Attribute("name") ? p->Attribute("name") : "p" + std::to_string(d.params.size()),
                                    type_of(p->Attribute("type"))});
            out.push_back(std::move(d));
        }
    };
    const auto* alphabet = root->FirstChildElement("alphabet");
    if (!alphabet) fail(root->GetLineNum(), "no <alphabet>");
    else {
        symbols(alphabet->FirstChildElement("inputs"), ra.inputs);
        symbols(alphabet->FirstChildElement("outputs"), ra.outputs);
    }
    if (const auto* cs = root->FirstChildElement("constants"))
        for (auto* c = cs->FirstChildElement("constant"); c; c = c->NextSiblingElement("constant")) {
            Constant k{c->Attribute("name") ? c->Attribute("name") : "", type_of(c->Attribute("type")), 0};
            try {
                k.value = std::stoll(c->GetText() ? c->GetText() : "");
            } catch (const std::exception&) {
                fail(c->GetLineNum(), "constant " + k.name + ": the value must be an integer");
            }
            ra.constants.push_back(k);
        }
    std::vector<Register> globals;
    if (const auto* gs = root->FirstChildElement("globals"))
        for (auto* g = gs->FirstChildElement("variable"); g; g = g->NextSiblingElement("variable"))
            globals.push_back({g->Attribute("name") ? g->Attribute("name") : "", type_of(g->Attribute("type"))});
    std::vector<std::string> loc_names;
    std::string initial;
    if (const auto* ls = root->FirstChildElement("locations"))
        for (auto* l = ls->FirstChildElement("location"); l; l = l->NextSiblingElement("location")) {
            loc_names.push_back(l->Attribute("name") ? l->Attribute("name") : "");
            if (l->BoolAttribute("initial")) initial = loc_names.back();
        }
    if (initial.empty()) fail(root->GetLineNum(), "no initial location");
    std::vector<XmlTransition> xts;
    if (const auto* ts = root->FirstChildElement("transitions"))
        for (auto* t = ts->FirstChildElement("transition"); t; t = t->NextSiblingElement("transition")) {
            XmlTransition x;
            x.from = t->Attribute("from") ? t->Attribute("from") : "";
            x.to = t->Attribute("to") ? t->Attribute("to") : "";
            x.symbol = t->Attribute("symbol") ? t->Attribute("symbol") : "";
            x.params = split_params(t->Attribute("params"));
            x.line = t->GetLineNum();
            if (const auto* g = t->FirstChildElement("guard"); g && g->GetText()) x.guard = g->GetText();
            if (const auto* as = t->FirstChildElement("assignments"))
                for (auto* a = as->FirstChildElement("assign"); a; a = a->NextSiblingElement("assign")) {
                    std::string src = a->GetText() ? a->GetText() : "";
                    src.erase(std::remove_if(src.begin(), src.end(), ::isspace), src.end());
                    x.assignments.emplace_back(a->Attribute("to") ? a->Attribute("to") : "", src);
                }
            for (const auto* n : {&x.from, &x.to})
                if (std::find(loc_names.begin(), loc_names.end(), *n) == loc_names.end())
                    fail(x.line, "unknown location '" + *n + "'");
            if (!ra.input_index(x.symbol) && !ra.output_index(x.symbol))
                fail(x.line, "unknown symbol '" + x.symbol + "'");
            xts.push_back(std::move(x));
        }
    raise_if();
    auto global_index = [&](const std::string& n) -> std::optional<std::size_t> {
        for (std::size_t g = 0; g < globals.size(); ++g)
            if (globals[g].name == n) return g;
        return std::nullopt;
    };
    auto constant_term = [&](const std::string& n) -> std::optional<Term> {
        for (std::size_t c = 0; c < ra.constants.size(); ++c)
            if (ra.constants[c].name == n) return Term{Term::Kind::Constant, c};
        try {
            std::size_t used = 0;
            const Value v = std::stoll(n, &used);
            if (used == n.size()) return Term{Term::Kind::Literal, 0, v};
        } catch (const std::exception&) {
        }
        return std::nullopt;
    };
    // Classify locations: input locations (the initial one and those with input transitions) and
    // output locations (those with output transitions).
    std::map<std::string, std::vector<const XmlTransition*>> outgoing;
    for (const auto& x : xts) outgoing[x.from].push_back(&x);
    std::vector<std::string> input_locs;
    for (const auto& n : loc_names) {
        bool has_in = false, has_out = false;
        for (const auto* x : outgoing[n]) (ra.input_index(x->symbol) ? has_in : has_out) = true;
        if (has_in && has_out) fail(0, "location '" + n + "' has both input and output transitions");
        if (has_in || n == initial) input_locs.push_back(n);
    }
    raise_if();
    std::map<std::string, std::size_t> loc_index;
    for (const auto& n : input_locs) {
        loc_index[n] = ra.locations.size();
        ra.locations.push_back(Location{n, {}, {}});
    }
    ra.initial = loc_index.at(initial);
    // Combine: every input transition with every output transition of its target. RALib's
    // registers are globals, declared once for the automaton: register index = global index.
    for (const auto& x : xts) {
        auto in = ra.input_index(x.symbol);
        if (!in) continue;
        const auto& decl = ra.inputs[*in];
        if (!x.params.empty() && x.params.size() != decl.params.size()) {
            fail(x.line, "input " + x.symbol + " takes " + std::to_string(decl.params.size()) + " parameters");
            continue;
        }
        auto input_term = [&](const std::string& n) -> std::optional<Term> {
            for (std::size_t p = 0; p < x.params.size(); ++p)
                if (x.params[p] == n) return Term{Term::Kind::Param, p};
            if (x.params.empty())
                for (std::size_t p = 0; p < decl.params.size(); ++p)
                    if (decl.params[p].name == n) return Term{Term::Kind::Param, p};
            if (auto g = global_index(n)) return Term{Term::Kind::Register, *g};
            return constant_term(n);
        };
        auto guard_in = parse_guard(x.guard.empty() ? "true" : x.guard, input_term);
        if (auto* e = std::get_if<GuardSyntaxError>(&guard_in)) {
            fail(x.line, "guard '" + x.guard + "': " + e->message);
            continue;
        }
        // env1: global -> term after the input's assignments
        std::vector<Term> env1;
        for (std::size_t g = 0; g < globals.size(); ++g) env1.push_back(Term{Term::Kind::Register, g});
        for (const auto& [to, src] : x.assignments) {
            auto g = global_index(to);
            auto term = input_term(src);
            if (!g || !term) {
                fail(x.line, "assignment " + to + " := " + src + ": unknown name");
                continue;
            }
            env1[*g] = *term;
        }
        auto outs = outgoing.find(x.to);
        if (outs == outgoing.end() || outs->second.empty()) {
            fail(x.line, "location '" + x.to + "' after input " + x.symbol + " has no output transition");
            continue;
        }
        for (const auto* y : outs->second) {
            auto out = ra.output_index(y->symbol);
            if (!out) {
                fail(y->line, "location '" + x.to + "' has both input and output transitions");
                continue;
            }
            auto after_input = [&](const std::string& n) -> std::optional<Term> {
                if (auto g = global_index(n)) return env1[*g];
                return constant_term(n);
            };
            auto guard_out = parse_guard(y->guard.empty() ? "true" : y->guard, after_input);
            if (auto* e = std::get_if<GuardSyntaxError>(&guard_out)) {
                fail(y->line, "guard '" + y->guard + "': " + e->message);
                continue;
            }
            Transition t;
            t.input = *in;
            t.output = *out;
            t.line = x.line;
            t.guard.disjuncts.clear();
            for (const auto& a : std::get<Guard>(guard_in).disjuncts)
                for (const auto& b : std::get<Guard>(guard_out).disjuncts) {
                    auto conj = a;
                    conj.insert(conj.end(), b.begin(), b.end());
                    t.guard.disjuncts.push_back(std::move(conj));
                }
            // env2: after the output's assignments (read on env1; __fresh__ is the output value)
            std::vector<Term> env2 = env1;
            std::vector<std::optional<std::size_t>> fresh_of(globals.size());
            for (const auto& [to, src] : y->assignments) {
                auto g = global_index(to);
                if (!g) {
                    fail(y->line, "assignment to unknown variable '" + to + "'");
                    continue;
                }
                if (src == "__fresh__") {
                    auto pos = std::find(y->params.begin(), y->params.end(), to);
                    if (pos == y->params.end()) {
                        fail(y->line, "__fresh__ assigned to " + to + ", which is not an output parameter");
                        continue;
                    }
                    env2[*g] = Term{Term::Kind::OutputParam, static_cast<std::size_t>(pos - y->params.begin())};
                    continue;
                }
                auto term = after_input(src);
                if (!term) {
                    fail(y->line, "assignment " + to + " := " + src + ": unknown name");
                    continue;
                }
                env2[*g] = *term;
            }
            if (y->params.size() != ra.outputs[*out].params.size()) {
                fail(y->line, "output " + y->symbol + " takes " + std::to_string(ra.outputs[*out].params.size()) +
                                  " values");
                continue;
            }
            for (const auto& n : y->params) {
                std::optional<Term> term;
                if (auto g = global_index(n)) term = env2[*g];
                else term = constant_term(n);
                if (!term) {
                    fail(y->line, "output argument '" + n + "' is not a variable or constant");
                    continue;
                }
                t.output_args.push_back(term->kind == Term::Kind::OutputParam ? OutputArg{true, {}}
                                                                               : OutputArg{false, *term});
            }
            auto target = loc_index.find(y->to);
            if (target == loc_index.end()) {
                fail(y->line, "output transition leads to '" + y->to + "', which is not an input location");
                continue;
            }
            t.target = target->second;
            t.assign = env2;  // one term per global; narrowed to the live registers below
            ra.locations[loc_index.at(x.from)].transitions.push_back(std::move(t));
        }
    }
    raise_if();
    if (options.first_match) {
        // Each guard conjoined with the negation of the earlier guards of its location and input,
        // in DNF: contradictory conjunctions are pruned after every step, and a guard that would
        // pass the limit is refused (overlapping guards could otherwise grow it exponentially).
        const RaLimits limits = RaLimits::from_environment();
        static const Op negated[] = {Op::Ne, Op::Eq, Op::Ge, Op::Gt, Op::Le, Op::Lt};
        for (auto& l : ra.locations) {
            std::map<std::size_t, std::vector<std::vector<Atom>>> earlier;  // input -> earlier conjunctions
            for (auto& t : l.transitions) {
                const Guard original = t.guard;
                auto& before = earlier[t.input];
                for (const auto& conj : before) {  // t.guard && !(conj): one negated atom per disjunct
                    if (t.guard.disjuncts.empty()) break;
                    Guard next;
                    next.disjuncts.clear();
                    for (const auto& d : t.guard.disjuncts)
                        for (const auto& a : conj) {
                            auto c = d;
                            c.push_back(Atom{a.left, negated[static_cast<int>(a.op)], a.right});
                            next.disjuncts.push_back(std::move(c));
                        }
                    if (conj.empty()) next.disjuncts.clear();  // !true
                    simplify(ra, next);
                    if (next.disjuncts.size() > limits.max_guard_disjuncts) {
                        fail(t.line, "first-match expansion of the guards of " + ra.inputs[t.input].name +
                                         " in location '" + l.name + "' needs more than " +
                                         std::to_string(limits.max_guard_disjuncts) +
                                         " conjunctions in one guard (overlapping guards; set "
                                         "TYPESTAR_MAX_GUARD_DISJUNCTS to allow more)");
                        raise_if();
                    }
                    t.guard = std::move(next);
                }
                for (const auto& c : original.disjuncts) before.push_back(c);
            }
            // a guard that became unsatisfiable leaves no disjunct: drop the transition
            std::erase_if(l.transitions, [](const Transition& t) { return t.guard.disjuncts.empty(); });
        }
    }
    // Liveness: a global is live at a location when some path reads it before writing it.
    const std::size_t n = ra.locations.size();
    std::vector<std::vector<bool>> live(n, std::vector<bool>(globals.size(), false));
    auto reads = [&](const Term& term, std::vector<bool>& into) {
        if (term.kind == Term::Kind::Register) into[term.index] = true;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t li = 0; li < n; ++li) {
            std::vector<bool> now = live[li];
            for (const auto& t : ra.locations[li].transitions) {
                for (const auto& conj : t.guard.disjuncts)
                    for (const auto& a : conj) {
                        reads(a.left, now);
                        reads(a.right, now);
                    }
                for (const auto& arg : t.output_args)
                    if (!arg.fresh) reads(arg.term, now);
                for (std::size_t g = 0; g < globals.size(); ++g)
                    if (live[t.target][g]) reads(t.assign[g], now);
            }
            if (now != live[li]) {
                live[li] = now;
                changed = true;
            }
        }
    }
    for (std::size_t g = 0; g < globals.size(); ++g)
        if (live[ra.initial][g])
            fail(0, "global '" + globals[g].name +
                        "' is read before it is ever assigned (RALib's initial values are not supported)");
    raise_if();
    std::vector<std::vector<std::size_t>> reg_of(n, std::vector<std::size_t>(globals.size(), 0));
    for (std::size_t li = 0; li < n; ++li)
        for (std::size_t g = 0; g < globals.size(); ++g)
            if (live[li][g]) {
                reg_of[li][g] = ra.locations[li].registers.size();
                ra.locations[li].registers.push_back(globals[g]);
            }
    auto remap = [&](Term& term, std::size_t li) {
        if (term.kind == Term::Kind::Register) term.index = reg_of[li][term.index];
    };
    for (std::size_t li = 0; li < n; ++li)
        for (auto& t : ra.locations[li].transitions) {
            for (auto& conj : t.guard.disjuncts)
                for (auto& a : conj) {
                    remap(a.left, li);
                    remap(a.right, li);
                }
            for (auto& arg : t.output_args)
                if (!arg.fresh) remap(arg.term, li);
            std::vector<Term> assign;
            for (std::size_t g = 0; g < globals.size(); ++g)
                if (live[t.target][g]) {
                    Term term = t.assign[g];
                    remap(term, li);
                    assign.push_back(term);
                }
            t.assign = std::move(assign);
        }
    auto problems = validate(ra);
    for (const auto& p : problems) fail(0, p);
    raise_if();
    if (options.assumptions != nullptr)
        for (const auto& t : read_as_int)
            options.assumptions->push_back(
                "RALib type " + spec::detail::printable(t) + " of " + spec::detail::printable(file) +
                " is read as int: integers with order, so no value between two integers (real-valued data) is "
                "ever tried");
    return ra;
}

RegisterAutomaton load_ralib_xml(const std::filesystem::path& path, const RalibImportOptions& options) {
    const auto text = spec::detail::read_input_file(path, spec::ReadLimits::from_environment(), "RALib XML file");
    return import_ralib_xml(text, path.string(), options);
}

}  // namespace typestar::ra
