// Fuzz target: the DOT importer (parse_mealy_dot, parse_dot_spec). Oracles beyond "no crash":
// every diagnostic is located (line:col > 0) and printable; a machine read is written and read
// back to the same transitions; a machine that is a synchronous closure imports to a spec whose
// canonical YAML validates and is byte-stable through write -> read -> write.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz_oracle.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/spec/spec.hpp"

namespace {

/// Every transition as text, states and inputs by id.
std::string listing(const typestar::MealyMachine& m) {
    std::string out;
    for (typestar::StateId s = 0; s < m.num_states(); ++s) {
        for (typestar::Symbol i = 0; i < m.num_inputs(); ++i) {
            out += m.state_name(s) + " " + m.inputs().name(i) + "/" + m.outputs().name(m.output(s, i)) + " " +
                   m.state_name(m.successor(s, i)) + "\n";
        }
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace typestar;
    const std::string text(reinterpret_cast<const char*>(data), size);
    spec::ReadLimits limits;
    limits.max_bytes = 1 << 20;
    limits.max_transitions = 1 << 14;
    std::optional<MealyMachine> parsed;
    try {
        parsed = spec::parse_mealy_dot(text, "fuzz.dot", limits);
    } catch (const SpecError& e) {
        fuzz::check_diagnostics(e);
        return 0;
    }
    const MealyMachine& machine = *parsed;
    const MealyMachine again = spec::parse_mealy_dot(spec::write_mealy_dot(machine, "g"), "written.dot", limits);
    fuzz::check(listing(again) == listing(machine), "DOT write -> read changed the machine");
    fuzz::check(again.initial() == machine.initial(), "DOT write -> read changed the initial state");

    spec::Spec imported;
    try {
        imported = spec::parse_dot_spec(text, "fuzz.dot", "Fuzz", limits);
    } catch (const SpecError& e) {
        fuzz::check_diagnostics(e);  // not a closure, or a state named __err: located
        return 0;
    }
    std::string written;
    try {
        written = spec::write_spec(imported);
    } catch (const Error& e) {
        fuzz::finding(std::string("an imported closure cannot be written: ") + e.what());
    }
    spec::Spec loaded;
    try {
        loaded = spec::parse_spec(written, "imported.yaml", limits);
    } catch (const SpecError& e) {
        fuzz::finding(std::string("an imported closure does not validate: ") + e.what() + "\n" + written);
    }
    fuzz::check(spec::write_spec(loaded) == written, "imported spec: write -> read -> write is not byte-stable");
    fuzz::check(!separating_word(synchronous_closure(loaded.typestate), machine),
                "the imported spec's closure differs from the DOT machine");
    return 0;
}
