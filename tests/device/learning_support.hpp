// Shared by the device tests: learning a device from scratch through the session layer and
// comparing with a spec file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::testing_support {

/// Fast simulation settings for tests: callbacks after 15–20 ms, tmax 80 ms, tmin 1 ms. The margins
/// (a callin must follow the previous one within 15 ms, a callback arrive within 80 ms) leave room
/// for a loaded machine; a miss is reported as a timing violation, never as a wrong answer. (With
/// 6–10 ms and 50 ms, one run in a few hundred failed on a busy 2-core machine.)
inline sim::SimOptions fast_options() {
    sim::SimOptions o;
    o.delay_min = std::chrono::milliseconds(15);
    o.delay_max = std::chrono::milliseconds(20);
    o.timing = {std::chrono::milliseconds(80), std::chrono::milliseconds(1)};
    return o;
}

/// DeviceOptions with fast_options() for the simulation.
inline DeviceOptions fast_device_options() {
    DeviceOptions o;
    o.sim = fast_options();
    return o;
}

struct Learned {
    LearnedSpec result;
    Typestate typestate;
    QueryStats stats;
    CacheStats cache;
};

/// Learns the devices' class from scratch through the session layer: L* with Algorithm 2 (B = 2),
/// one oracle stack over `devices` (a pool when several), batches of 256 suite cases.
inline Learned learn_from_scratch(std::vector<std::unique_ptr<Device>> devices, const std::string& name) {
    std::vector<Device*> raw;
    for (auto& d : devices) raw.push_back(d.get());
    LearnOptions options;
    options.name = name;
    options.equivalence.bound = 2;
    options.equivalence.batch_size = 256;
    LearnedSpec learned = learn_spec(raw, options);
    // A learning purpose's unknown transitions are the spec's (typestate_of reads two-valued machines).
    Learned out{learned,
                learned.machine.outputs().contains(kOutsidePurpose) && learned.spec ? learned.spec->typestate
                                                                                      : typestate_of(learned.machine, name),
                learned.stats, learned.cache};
    return out;
}

/// The spec file `relative` of the source tree.
inline spec::Spec source_spec(const std::string& relative) {
    return spec::load_spec(std::string(TYPESTAR_SOURCE_DIR) + "/" + relative);
}

/// True when `typestate` behaves as the spec.
inline bool behaves_as(const Typestate& typestate, const spec::Spec& expected) {
    spec::Spec learned;
    learned.typestate = typestate;
    return spec::same_behaviour(learned, expected);
}

/// The outputs of one run of `names` on `d`, by name.
inline std::vector<std::string> answer_names(Device& d, const std::vector<std::string>& names) {
    Word word;
    for (const auto& n : names) word.push_back(d.inputs().at(n));
    std::vector<std::string> out;
    for (const Symbol o : d.run(word).outputs) out.push_back(d.outputs().name(o));
    return out;
}

/// learn_spec on `device` alone with Algorithm 2 at B=2 (the other options default).
inline LearnedSpec learn_at_bound_2(Device& device) {
    Device* devices[] = {&device};
    LearnOptions options;
    options.equivalence.bound = 2;
    return learn_spec(devices, options);
}

}  // namespace typestar::testing_support
