// learn_target: one learning run of a real target, through the session layer.
#include "typestar/device/factory.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"
#include "typestar/targets/learning.hpp"
#include "typestar/targets/targets.hpp"

namespace typestar::targets {

LearnedTarget learn_target(const ClassDefinition& definition, std::size_t bound) {
    auto device = make_target_device(definition);
    LearnOptions options;
    options.name = definition.name;
    options.equivalence.bound = bound;
    Device* devices[] = {device.get()};
    LearnedSpec learned = learn_spec(devices, options);
    if (!learned.spec) throw NotAClosureError(learned.not_a_closure);
    LearnedTarget out;
    out.spec = std::move(*learned.spec);
    out.contradictions = learned.cache.contradictions;
    out.text = spec::write_spec(out.spec);
    out.stats = learned.stats;
    out.rounds = learned.rounds;
    out.converged = learned.converged;
    out.seconds = learned.seconds;
    return out;
}

}  // namespace typestar::targets
