// Data purposes for tests (issue 18): std::priority_queue as a bounded min-queue through the
// in-process purpose API for data, and the same library used as a max-queue (a mutant).
#pragma once

#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "typestar/device/data_purpose.hpp"

namespace typestar::testing_support {

/// offer(p) answers ok, or nok when 3 values are held; poll answers out(head), or nok when empty.
/// `Compare` std::greater<> is the min-queue of specs/ra/std_priority_queue.yaml; std::less<> the
/// max-queue mutant.
template <class Compare = std::greater<>>
DataDefinition priority_queue_purpose() {
    using Queue = std::priority_queue<ra::Value, std::vector<ra::Value>, Compare>;
    return DataPurpose<Queue>("std_priority_queue")
        .framework("libstdc++")
        .reset([](const std::shared_ptr<DataCallbackSink>&) { return std::make_shared<Queue>(); })
        .callin("offer", {{"p", ra::DataType::Int}},
                [](Queue& q, std::span<const ra::Value> v) {
                    if (q.size() >= 3) return DataAnswer{"nok"};
                    q.push(v[0]);
                    return DataAnswer{"ok"};
                })
        .callin("poll", {},
                [](Queue& q, std::span<const ra::Value>) {
                    if (q.empty()) return DataAnswer{"nok"};
                    const ra::Value head = q.top();
                    q.pop();
                    return DataAnswer{"out", {head}};
                })
        .output("ok")
        .output("nok")
        .output("out", {{"v", ra::DataType::Int}})
        .build();
}

}  // namespace typestar::testing_support
