// Register automata (SL*, "Learning Extended Finite State Machines", Cassel, Howar, Jonsson,
// Steffen): locations with local registers, inputs and outputs with typed data parameters, guards
// over parameters, registers and constants, assignments. Design note: the automaton is an immutable
// value with dense indices (names only for printing); RaSimulator executes it on data words. Two data
// types: `int` (ordered: =, ≠, <, ≤, >, ≥) and `id` (opaque: = and ≠ only). A register automaton is
// Mealy-style: every input step answers one output, whose data are drawn from parameters, registers,
// constants or are `fresh` (a new value the device chooses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/core/guard.hpp"

namespace typestar::ra {

/// A data value. Values of different types are never compared.
using Value = std::int64_t;

/// The data types of the format: `int` is ordered, `id` is compared only for equality.
enum class DataType { Int, Id };

/// "int" or "id".
[[nodiscard]] const char* type_name(DataType type);

/// A typed formal parameter of an input or output symbol.
struct Parameter {
    std::string name;
    DataType type = DataType::Id;
    /// How the parameter is treated, when the signature says so (`p: int data`): a register
    /// automaton keeps every parameter as data, so only Abstraction::Data is read (`partition` is
    /// refused by name: that is a typestate's). Written back only when set; not compared.
    std::optional<Abstraction> abstraction{};
    bool operator==(const Parameter& o) const { return name == o.name && type == o.type; }
};

/// An input (callin) or output (return or callback) symbol with its parameters.
struct SymbolDecl {
    std::string name;
    std::vector<Parameter> params;
    bool callback = false;  ///< an output that is a callback (else a return of the callin)
    bool operator==(const SymbolDecl&) const = default;
};

/// A named constant.
struct Constant {
    std::string name;
    DataType type = DataType::Id;
    Value value = 0;
    bool operator==(const Constant&) const = default;
};

// The guard language (Term, Op, Atom, Guard, parse_guard, the evaluator) is the one of every spec
// kind: typestar/core/guard.hpp. These names stay usable as typestar::ra::… (the same types).
using typestar::Abstraction;
using typestar::Atom;
using typestar::Guard;
using typestar::GuardSyntaxError;
using typestar::Op;
using typestar::op_text;
using typestar::parse_guard;
using typestar::parse_term;
using typestar::Term;
using typestar::TermResolver;

/// An output argument: a term, or `fresh` (a value the device chooses, new in the run).
struct OutputArg {
    bool fresh = false;
    Term term;  ///< unless fresh; never Kind::OutputParam
    bool operator==(const OutputArg&) const = default;
};

/// One guarded transition: on `input` (index into RegisterAutomaton::inputs) when `guard` holds,
/// answer `output` with `output_args`, move to `target` with its registers set by `assign` (one
/// term per target register, evaluated on the values before the step, SL*'s convention).
struct Transition {
    std::size_t input = 0;
    Guard guard;
    std::size_t output = 0;
    std::vector<OutputArg> output_args;
    std::size_t target = 0;
    std::vector<Term> assign;
    int line = 0;  ///< source line in a file, 0 when built in memory
    bool operator==(const Transition& o) const {
        return input == o.input && guard == o.guard && output == o.output && output_args == o.output_args &&
               target == o.target && assign == o.assign;
    }
};

/// A register of a location.
struct Register {
    std::string name;
    DataType type = DataType::Id;
    bool operator==(const Register&) const = default;
};

/// A location: its registers and its outgoing transitions.
struct Location {
    std::string name;
    std::vector<Register> registers;
    std::vector<Transition> transitions;
    int line = 0;  ///< source line, 0 when built in memory
    bool operator==(const Location& o) const {
        return name == o.name && registers == o.registers && transitions == o.transitions;
    }
};

/// A register automaton. Valid ones (see validate) are deterministic and complete: in every
/// location, for every input and every data valuation exactly one guard holds.
struct RegisterAutomaton {
    std::string name;
    std::vector<SymbolDecl> inputs;
    std::vector<SymbolDecl> outputs;
    std::vector<Constant> constants;
    /// SL*'s `+c` theory: the increments c (positive, at most 1000) whose terms `x + c` the learner
    /// and the suite consider besides x for every `int` value x; empty: the plain ordered theory.
    /// The terms the automaton's own guards, outputs and assignments use count too (max_offset).
    std::vector<Value> increments;
    std::vector<Location> locations;
    std::size_t initial = 0;
    bool operator==(const RegisterAutomaton&) const = default;

    /// Index of the input/output symbol named `name`, if any.
    [[nodiscard]] std::optional<std::size_t> input_index(const std::string& name) const;
    [[nodiscard]] std::optional<std::size_t> output_index(const std::string& name) const;
    /// Total number of transitions and the largest number of registers of one location.
    [[nodiscard]] std::size_t num_transitions() const;
    [[nodiscard]] std::size_t max_registers() const;
};

/// A concrete input or output: a symbol index and one value per parameter.
struct DataSymbol {
    std::size_t symbol = 0;
    std::vector<Value> values;
    bool operator==(const DataSymbol&) const = default;
    auto operator<=>(const DataSymbol&) const = default;
};
/// A data word (inputs, or the outputs answering them).
using DataWord = std::vector<DataSymbol>;

/// `name(v1,v2)` or `name` for a concrete symbol of `decls`.
[[nodiscard]] std::string format_symbol(const std::vector<SymbolDecl>& decls, const DataSymbol& symbol);
/// Space-separated `in/out` pairs (or only inputs when `outputs` is empty).
[[nodiscard]] std::string format_word(const RegisterAutomaton& ra, const DataWord& inputs,
                                      const DataWord& outputs = {});

/// The name of `term` as it reads in transition `t` of location `from`.
[[nodiscard]] std::string term_text(const RegisterAutomaton& ra, const Location& from, const Transition& t,
                                    const Term& term);
/// The guard as text (`p < r1 && p != r2 || p == c`), "true" for the true guard.
[[nodiscard]] std::string guard_text(const RegisterAutomaton& ra, const Location& from, const Transition& t);
/// The output as text: `out(r1)`, `ok`, `key(fresh)`.
[[nodiscard]] std::string output_text(const RegisterAutomaton& ra, const Location& from, const Transition& t);
/// The input as text with its declared parameter names: `offer(p)`.
[[nodiscard]] std::string input_text(const RegisterAutomaton& ra, const Transition& t);

/// The largest |offset| of any term of the automaton (guards, outputs, assignments): 0 when it uses
/// no `+c` term, and then every exploration works exactly as without the theory.
[[nodiscard]] Value max_offset(const RegisterAutomaton& ra);
/// The `+c` window of an exploration: twice the larger of max_offset and the largest increment (an
/// atom `p + a op y + b` compares p with y + (b - a)); `int` data classes are then taken relative to
/// every known value shifted by each d in [-window, window]. 0 without the theory.
[[nodiscard]] Value offset_window(const RegisterAutomaton& ra);

/// True for a name of a symbol or location the spec format writes and reads back:
/// [A-Za-z_][A-Za-z0-9_.-]*.
[[nodiscard]] bool is_symbol_name(const std::string& name);
/// True for a name of a parameter, register or constant (read inside guards too):
/// [A-Za-z_][A-Za-z0-9_.]*, except `true` and `fresh`.
[[nodiscard]] bool is_data_name(const std::string& name);

/// Every problem of the automaton, each naming the location, the input and the transition's line:
/// names the spec format cannot write (is_symbol_name, is_data_name; a symbol with two parameters
/// of one name), indices out of range, type errors (an `id` compared with <, a parameter compared with a value of
/// another type, an assignment of the wrong type), arity, and for every location and input the
/// valuations (found by enumerating the data classes of registers, constants and parameters) where
/// no guard holds or two guards hold (explore_classes: one problem naming the knob when that passes
/// `limits`). Empty when valid.
struct RaLimits;
[[nodiscard]] std::vector<std::string> validate(const RegisterAutomaton& ra, const RaLimits& limits);
/// validate with RaLimits::from_environment().
[[nodiscard]] std::vector<std::string> validate(const RegisterAutomaton& ra);
/// Throws typestar::Error listing validate's problems, if any.
void check_valid(const RegisterAutomaton& ra);

/// Bounds on the work of importing, validating and comparing register automata, so a hostile or
/// mistaken file fails early with a clear message naming the knob (docs/register-automata.md,
/// "Limits"). Each is read from its environment variable by from_environment (the default of every
/// function that takes one), like spec::ReadLimits.
struct RaLimits {
    /// Conjunctions one guard may have after RALib's first-match expansion (each guard conjoined
    /// with the negation of the earlier ones). TYPESTAR_MAX_GUARD_DISJUNCTS; default 1024.
    std::size_t max_guard_disjuncts = 1024;
    /// (location, register pattern) pairs explored by validate and diff (product pairs for diff).
    /// TYPESTAR_MAX_RA_STATES; default 200,000.
    std::size_t max_states = 200000;
    /// Work of visiting data classes (each explored pair × input × class of the input's relevant
    /// parameters), one unit per guard atom evaluated there and at least one per class.
    /// TYPESTAR_MAX_RA_WORK; default 100,000,000 (about a second).
    std::size_t max_work = 100000000;
    /// Data words `check` runs on the device (the suite's words after the cache).
    /// TYPESTAR_MAX_RA_WORDS; default 2,000,000.
    std::size_t max_words = 2000000;
    /// The defaults, each replaced by its environment variable when set (a positive integer,
    /// optionally followed by K, M or G). Throws typestar::Error naming a variable with a bad value.
    [[nodiscard]] static RaLimits from_environment();
};

/// Called once per reachable data class: `location` with one representative of its register
/// values, an input and one representative of its parameters' class, and the transitions (indices
/// into the location's) whose guard holds there.
using ClassVisitor = std::function<void(std::size_t location, const std::vector<Value>& registers, std::size_t input,
                                        const std::vector<Value>& params, const std::vector<std::size_t>& holding)>;
/// Explores the reachable (location, order type of the register values) pairs breadth-first from
/// the initial location, each pair once, enumerating for each input every class of its relevant
/// parameters (those a guard, an output or an assignment of that input's transitions reads)
/// relative to the registers, the constants, the guards' literals (value_classes) and the earlier
/// relevant parameters; a parameter nothing reads gets one fresh value. Follows the transitions of
/// the classes where exactly one guard holds. Returns the number of pairs found. Throws
/// typestar::Error naming TYPESTAR_MAX_RA_STATES or TYPESTAR_MAX_RA_WORK when the exploration
/// would pass `limits` (never a partial answer). Precondition: the automaton is structurally valid.
std::size_t explore_classes(const RegisterAutomaton& ra, const ClassVisitor& visit,
                            const RaLimits& limits = RaLimits::from_environment());
/// The earlier signature: `max_states` replaces RaLimits::max_states of the environment's limits.
[[deprecated("pass RaLimits: explore_classes(ra, visit, limits)")]]
inline std::size_t explore_classes(const RegisterAutomaton& ra, const ClassVisitor& visit, std::size_t max_states) {
    RaLimits limits = RaLimits::from_environment();
    limits.max_states = max_states;
    return explore_classes(ra, visit, limits);
}

/// `b` with its input and output symbols numbered as in `reference` (the same names, perhaps in
/// another order), so that data words mean the same in both. Throws typestar::Error naming a symbol
/// of `b` that `reference` does not declare.
[[nodiscard]] RegisterAutomaton renumbered_like(const RegisterAutomaton& reference, const RegisterAutomaton& b);

/// What a product search of two automata found.
struct ProductDifference {
    std::optional<DataWord> inputs;  ///< a shortest data word on which the two answer differently
    std::size_t states = 0;          ///< product states explored
    /// A candidate word `confirm` rejected was skipped (the symbolic comparison and the concrete one
    /// disagree on a corner of the fresh-value semantics): the search is then not conclusive.
    bool inconclusive = false;
    /// (location of a, location of b) of each product state explored, breadth-first, the start first:
    /// each is reached by a word on which both answer alike.
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
};
/// Compares `a` and `b` (same inputs and outputs, by index) breadth-first over their product: states
/// are (location of a, location of b, order type of both register valuations, the constants, the
/// literals and the largest value seen), each explored once; from each, every input in every class
/// of its relevant parameters relative to those values. `b` draws fresh values as RaSimulator does
/// (so `b` run on the returned word answers what the search saw); an output of `a` that is `fresh`
/// matches one of `b` that is fresh too. A word of at most `max_depth` steps whose last step differs
/// is passed to `confirm` (the caller's concrete check); the first confirmed one is returned.
/// Polynomial in the number of product states; throws typestar::Error naming a knob past `limits`.
[[nodiscard]] ProductDifference product_difference(const RegisterAutomaton& a, const RegisterAutomaton& b,
                                                   std::size_t max_depth,
                                                   const std::function<bool(const DataWord&)>& confirm,
                                                   const RaLimits& limits = RaLimits::from_environment());

/// For each location of `proposal`, the location of `stored` that the shortest data word on which
/// both answer alike leads to (the product search of product_difference; the first such word, breadth
/// first), or nullopt when no such word reaches it. How a re-learned automaton keeps the stored
/// spec's location names. Throws typestar::Error naming a knob past `limits`.
[[nodiscard]] std::vector<std::optional<std::size_t>> pair_locations(
    const RegisterAutomaton& stored, const RegisterAutomaton& proposal,
    const RaLimits& limits = RaLimits::from_environment());

/// The order type of `registers` (values of location `location`'s registers) relative to each other
/// and to the automaton's constants and guard literals: two valuations with the same order type
/// behave the same from that location.
[[nodiscard]] std::string order_type(const RegisterAutomaton& ra, std::size_t location,
                                     const std::vector<Value>& registers);

/// Executes a register automaton on data words (the simulator: data word in, data word out).
/// A `fresh` output is 1 + the largest value seen in the run so far (inputs, outputs, registers,
/// constants): deterministic, and new in the run.
class RaSimulator {
public:
    /// Keeps a reference: `ra` must outlive the simulator. Precondition: check_valid(ra) passed.
    explicit RaSimulator(const RegisterAutomaton& ra);
    /// Back to the initial location with no register values.
    void reset();
    /// One step. Throws typestar::Error when the input is unknown, has the wrong arity, or no
    /// guard holds (an invalid automaton).
    DataSymbol step(const DataSymbol& input);
    /// reset, then every step of `inputs`.
    DataWord run(const DataWord& inputs);
    [[nodiscard]] std::size_t location() const noexcept { return location_; }
    [[nodiscard]] const std::vector<Value>& registers() const noexcept { return registers_; }
    /// The transition taken by the last step.
    [[nodiscard]] std::size_t last_transition() const noexcept { return last_transition_; }

private:
    const RegisterAutomaton* ra_;
    std::size_t location_ = 0;
    std::vector<Value> registers_;
    std::size_t last_transition_ = 0;
    std::optional<Value> max_seen_;
};

/// True when `guard` holds for input values `params` and register values `registers`.
[[nodiscard]] bool evaluate(const RegisterAutomaton& ra, const Guard& guard, const std::vector<Value>& params,
                            const std::vector<Value>& registers);

/// Candidate values for one new value of `type` relative to the `known` values of that type: for
/// `id` each distinct known value and one fresh value; for `int` additionally a value below all,
/// between each two neighbours (when an integer fits) and above all. Sorted, deduplicated.
[[nodiscard]] std::vector<Value> value_classes(DataType type, std::vector<Value> known);

}  // namespace typestar::ra
