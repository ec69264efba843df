// learn_target: one learning run of a real target.
#include <algorithm>
#include <chrono>

#include "typestar/conformance/runner.hpp"
#include "typestar/core/algorithms.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/learn/lstar.hpp"
#include "typestar/spec/dot.hpp"
#include "typestar/sul/stack.hpp"
#include "typestar/targets/learning.hpp"
#include "typestar/targets/targets.hpp"

namespace typestar::targets {

LearnedTarget learn_target(const ClassDefinition& definition, std::size_t bound) {
    auto device = make_target_device(definition);
    OracleStack stack(*device);
    SuiteConfig suite;
    suite.method = SuiteMethod::Algorithm2;
    suite.bound = bound;
    SuiteEquivalenceOracle alg2(stack.oracle(), suite);
    const auto start = std::chrono::steady_clock::now();
    LearnResult result = learn(stack.oracle(), alg2, {}, &stack.stats());
    check_device(*device);
    LearnedTarget out;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const MealyMachine machine = minimize(result.hypothesis);
    out.spec = spec::spec_of_mealy(machine, definition.name);
    out.spec.bounds.distinguisher = std::max(out.spec.bounds.distinguisher, bound);
    out.spec.timing.tmax_ms = static_cast<double>(device->timing().tmax.count());
    out.spec.timing.tmin_ms = static_cast<double>(device->timing().tmin.count());
    out.spec.provenance.tool = "typestar 0.1.0 (typestar_learn_targets)";
    out.spec.provenance.device = device->name();
    out.spec.provenance.framework = definition.framework;
    // Only counts that do not depend on timing glitches: the cache re-runs a query whose answer
    // contradicts an earlier one (and keeps the answer that agrees), which adds executed queries.
    out.spec.provenance.stats = {
        {"states", std::to_string(machine.num_states())},
        {"queries_asked", std::to_string(result.stats.total().queries_asked)},
        {"equivalence_rounds", std::to_string(result.stats.equivalence_rounds)},
    };
    out.contradictions = stack.cache().stats().contradictions;
    out.text = spec::write_spec(out.spec);
    out.stats = result.stats;
    out.rounds = result.rounds;
    out.converged = result.converged;
    return out;
}

}  // namespace typestar::targets
