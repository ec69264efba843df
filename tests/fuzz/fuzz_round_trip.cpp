// Fuzz target: write -> read round trips of automata built in memory, both kinds. The bytes choose
// a typestate spec or a register automaton: names from a pool that holds names the formats cannot
// write (quotes, newlines, `true`, `fresh`, a dash in a data name), symbols, guards, assignments.
// Oracles: a typestate spec write_spec accepts reads back byte-stable with the same behaviour; a
// register automaton that validates is written, reads back byte-stable and behaves the same (what
// validate accepts, export writes: issue 26).
#include <cstddef>
#include <cstdint>
#include <string>

#include "ra_round_trip.hpp"
#include "typestar/spec/spec.hpp"

namespace {

class Bytes {
public:
    Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    std::uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }
    std::size_t pick(std::size_t n) { return n ? next() % n : 0; }
    bool flag() { return (next() & 1) != 0; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

const char* const kNames[] = {"a",  "b",    "open", "x.y",  "a-b", "true", "fresh", "err",  "quiet",  "wait", "p",
                              "r1", "q",    "l0",   "l1",   "o\"q", "n\nl", "",      "_k",   "__err", "1x",   "v"};

std::string name(Bytes& in) { return kNames[in.pick(sizeof kNames / sizeof *kNames)]; }

void typestate_round_trip(Bytes& in) {
    using namespace typestar;
    spec::Spec s;
    Typestate& t = s.typestate;
    t.name = name(in);
    for (std::size_t i = 0, n = 1 + in.pick(3); i < n; ++i) t.callins.push_back(name(in));
    for (std::size_t i = 0, n = in.pick(3); i < n; ++i) t.callbacks.push_back(name(in));
    const std::size_t states = 1 + in.pick(4);
    for (std::size_t i = 0; i < states; ++i) {
        Typestate::State st;
        st.name = name(in);
        for (std::size_t c = 0; c < t.callins.size(); ++c)
            st.callins.push_back(in.flag() ? std::optional<StateId>(static_cast<StateId>(in.pick(states))) : std::nullopt);
        if (!t.callbacks.empty() && in.flag())
            st.callback = Typestate::CallbackEdge{in.pick(t.callbacks.size()), static_cast<StateId>(in.pick(states))};
        st.wait = in.flag() ? Typestate::Wait::Quiet : Typestate::Wait::Err;
        t.states.push_back(std::move(st));
    }
    s.bounds.distinguisher = in.pick(4);
    std::string written;
    try {
        written = spec::write_spec(s);
    } catch (const Error&) {
        return;  // a documented refusal (a name outside the format, a duplicate, ...)
    }
    spec::Spec back;
    try {
        back = spec::parse_spec(written, "written.yaml");
    } catch (const SpecError& e) {
        fuzz::finding(std::string("a written typestate does not read: ") + e.what() + "\n" + written);
    }
    fuzz::check(spec::write_spec(back) == written, "typestate write -> read -> write is not byte-stable:\n" + written);
    fuzz::check(spec::same_behaviour(s, back), "the written typestate behaves differently:\n" + written);
}

void register_automaton_round_trip(Bytes& in) {
    using namespace typestar::ra;
    RaSpec spec;
    RegisterAutomaton& ra = spec.automaton;
    ra.name = name(in);
    auto type = [&] { return in.flag() ? DataType::Int : DataType::Id; };
    auto decls = [&](std::vector<SymbolDecl>& out, std::size_t most, bool outputs) {
        for (std::size_t i = 0, n = 1 + in.pick(most); i < n; ++i) {
            SymbolDecl d{name(in), {}};
            for (std::size_t p = 0, k = in.pick(3); p < k; ++p) d.params.push_back({name(in), type()});
            if (outputs) d.callback = in.flag();
            out.push_back(std::move(d));
        }
    };
    decls(ra.inputs, 2, false);
    decls(ra.outputs, 3, true);
    for (std::size_t i = 0, n = in.pick(2); i < n; ++i)
        ra.constants.push_back({name(in), type(), static_cast<Value>(in.next()) - 128});
    const std::size_t locations = 1 + in.pick(3);
    for (std::size_t i = 0; i < locations; ++i) {
        Location l{name(in), {}, {}};
        if (i > 0)
            for (std::size_t r = 0, k = in.pick(3); r < k; ++r) l.registers.push_back({name(in), type()});
        ra.locations.push_back(std::move(l));
    }
    auto term = [&](bool output_param) {
        Term t;
        const std::size_t kind = in.pick(output_param ? 5 : 4);
        t.kind = static_cast<Term::Kind>(kind);
        t.index = in.pick(3);
        if (t.kind == Term::Kind::Literal) {  // a literal's index is unused (0, as the reader builds it)
            t.index = 0;
            t.literal = static_cast<Value>(in.next()) - 128;
        }
        return t;
    };
    for (auto& l : ra.locations)
        for (std::size_t i = 0, n = in.pick(5); i < n; ++i) {
            Transition t;
            t.input = in.pick(ra.inputs.size());
            t.guard.disjuncts.clear();
            for (std::size_t d = 0, dn = 1 + in.pick(2); d < dn; ++d) {
                std::vector<Atom> conj;
                for (std::size_t a = 0, an = in.pick(3); a < an; ++a)
                    conj.push_back(Atom{term(false), static_cast<Op>(in.pick(6)), term(false)});
                t.guard.disjuncts.push_back(std::move(conj));
            }
            t.output = in.pick(ra.outputs.size());
            for (std::size_t p = 0; p < ra.outputs[t.output].params.size(); ++p)
                t.output_args.push_back(in.flag() ? OutputArg{true, {}} : OutputArg{false, term(false)});
            t.target = in.pick(ra.locations.size());
            for (std::size_t r = 0; r < ra.locations[t.target].registers.size(); ++r) t.assign.push_back(term(true));
            l.transitions.push_back(std::move(t));
        }
    if (!validate(ra).empty()) return;
    typestar::fuzz::check_ra_round_trip(spec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 4096) return 0;
    typestar::fuzz::small_ra_limits();
    Bytes in(data, size);
    if (in.flag()) register_automaton_round_trip(in);
    else typestate_round_trip(in);
    return 0;
}
