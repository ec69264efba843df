// learn_with_refinement for in-process class definitions: the session layer's engine over an
// InProcessDevice, the definition's purpose applied to abstract words.
#include "typestar/targets/refinement.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "typestar/device/inprocess.hpp"
#include "typestar/session/session.hpp"

namespace typestar::targets {

RefinedTarget learn_with_refinement(const ClassDefinition& definition, const RefinementOptions& options) {
    definition.validate();
    ClassDefinition concrete = definition;
    concrete.filter = nullptr;  // the purpose is applied to abstract words (unknown, not err)
    InProcessConfig config;
    config.variants = VariantMode::Split;
    config.values_per_partition = options.values_per_partition;
    config.value_seed = options.seed;
    InProcessDevice device(std::move(concrete), config);

    typestar::RefinementOptions refine;
    refine.instantiations = options.instantiations;
    refine.max_refinements = options.max_refinements;
    refine.repeats = options.repeats;
    refine.purpose_name = definition.name;
    if (definition.filter)
        refine.purpose = [filter = definition.filter](std::span<const AbstractStep> history, std::string_view next) {
            std::vector<StepRecord> steps;
            steps.reserve(history.size());
            for (const auto& h : history) steps.push_back({h.input, h.output});
            return filter(steps, next);
        };
    LearnOptions learn;
    learn.name = definition.name;
    learn.equivalence.bound = options.bound;
    learn.device_label = "inproc:" + definition.name + " (alphabet refinement)";
    RefinedSpec r = typestar::learn_with_refinement(device, learn, refine);

    RefinedTarget out;
    out.learned.text = std::move(r.text);
    out.learned.spec = std::move(*r.learned.spec);
    out.learned.stats = r.learned.stats;
    out.learned.rounds = r.learned.rounds;
    out.learned.converged = r.learned.converged;
    out.learned.seconds = r.learned.seconds;
    out.learned.contradictions = r.learned.cache.contradictions;
    out.report = std::move(r.report);
    return out;
}

}  // namespace typestar::targets
