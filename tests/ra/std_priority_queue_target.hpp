// A real C++ target with data: a bounded min-queue backed by std::priority_queue (issue 18 item 5).
// offer(p) answers ok, or nok when 3 values are held; poll answers out(smallest), or nok when empty.
#pragma once

#include <functional>
#include <queue>
#include <vector>

#include "typestar/ra/oracle.hpp"

namespace typestar::ra::testing {

/// The signature the purpose declares: inputs, outputs, no constants; no locations (learned).
inline RegisterAutomaton std_priority_queue_signature() {
    RegisterAutomaton sig;
    sig.name = "std_priority_queue";
    sig.inputs = {{"offer", {{"p", DataType::Int}}}, {"poll", {}}};
    sig.outputs = {{"ok", {}}, {"nok", {}}, {"out", {{"v", DataType::Int}}}};
    return sig;
}

/// The device: a fresh std::priority_queue per reset; calls the library, never a model.
class StdPriorityQueueSul final : public DataSul {
public:
    static constexpr std::size_t kCapacity = 3;
    void reset() override { queue_ = {}; }
    DataSymbol step(const DataSymbol& input) override {
        if (input.symbol == 0) {  // offer(p)
            if (queue_.size() >= kCapacity) return {1, {}};
            queue_.push(input.values.at(0));
            return {0, {}};
        }
        if (queue_.empty()) return {1, {}};
        const Value smallest = queue_.top();
        queue_.pop();
        return {2, {smallest}};
    }

private:
    std::priority_queue<Value, std::vector<Value>, std::greater<>> queue_;
};

}  // namespace typestar::ra::testing
