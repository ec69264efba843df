#include "independence.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "typestar/core/error.hpp"
#include "values.hpp"

namespace typestar::ra::internal {

namespace {

/// The map from the original run's values to the moved run's, built as the moved word runs: per
/// type, each value to one value, injective, order-preserving for `int` (and keeping differences
/// within the increments' window), constants and literals fixed.
class ValueMap {
public:
    ValueMap(const RegisterAutomaton& spec, Value shift) : shift_(shift), window_(offset_window(spec)) {
        for (const auto& c : spec.constants) fixed(c.type, c.value);
        for (Value literal : guard_literals(spec)) {
            fixed(DataType::Int, literal);
            fixed(DataType::Id, literal);
        }
    }

    /// The moved value of an input value `v` of `type`: its image when mapped, else v moved by the
    /// shift (added to the map). nullopt when that breaks the map (order, injectivity, overflow).
    std::optional<Value> input(DataType type, Value v) {
        auto& m = map_[index(type)];
        if (const auto it = m.find(v); it != m.end()) return it->second;
        const auto moved = plus(v, type == DataType::Int ? shift_ : kShift);
        if (!moved || !consistent(type, v, *moved)) return std::nullopt;
        m.emplace(v, *moved);
        return moved;
    }

    /// Whether output value `b` of the moved run is original output value `a` under the map (a value
    /// new in the original run must be new in the moved run, in the same order); extends the map.
    bool output(DataType type, Value a, Value b) {
        auto& m = map_[index(type)];
        if (const auto it = m.find(a); it != m.end()) return it->second == b;
        if (!consistent(type, a, b)) return false;
        m.emplace(a, b);
        return true;
    }

    static constexpr Value kShift = IndependenceCheck::kShift;

private:
    static std::size_t index(DataType type) { return type == DataType::Int ? 0 : 1; }

    void fixed(DataType type, Value v) { map_[index(type)].emplace(v, v); }

    /// Whether a -> b keeps the map injective, and for `int` the order and the differences within the
    /// increments' window.
    [[nodiscard]] bool consistent(DataType type, Value a, Value b) const {
        for (const auto& [x, y] : map_[index(type)]) {
            if ((x == a) != (y == b)) return false;
            if (type != DataType::Int) continue;
            if ((x < a) != (y < b)) return false;
            if (window_ > 0) {
                const auto dx = plus(a, -x), dy = plus(b, -y);
                const bool near = dx && *dx >= -window_ && *dx <= window_;
                if (near && dx != dy) return false;
            }
        }
        return true;
    }

    Value shift_;
    Value window_;
    std::map<Value, Value> map_[2];
};

}  // namespace

IndependenceCheck::IndependenceCheck(const RegisterAutomaton& spec) : spec_(&spec) {}

void IndependenceCheck::check(DataOracle& oracle, const DataWord& word, const DataWord& out) {
    if (word.empty() || out.size() != word.size()) return;
    const RegisterAutomaton& spec = *spec_;
    bool has_values = false;
    for (const auto& s : word) has_values = has_values || !s.values.empty();
    if (!has_values) return;
    for (const Value shift : {kShift, -kShift}) {
        ValueMap map(spec, shift);
        bool movable = true;
        std::optional<std::size_t> differs;  // the first step whose answer is not the original's moved
        DataWord moved;
        const DataWord moved_out = oracle.query_adaptive(moved, [&](const DataWord& in, const DataWord& got) -> std::optional<DataSymbol> {
            if (!in.empty()) {  // the answer to the last input, against the original's
                const std::size_t i = in.size() - 1;
                bool same = got[i].symbol == out[i].symbol && got[i].values.size() == out[i].values.size();
                const auto& params = spec.outputs.at(out[i].symbol).params;
                for (std::size_t k = 0; same && k < out[i].values.size(); ++k)
                    same = map.output(params.at(k).type, out[i].values[k], got[i].values[k]);
                if (!same) {
                    differs = i;
                    return std::nullopt;
                }
            }
            if (in.size() == word.size()) return std::nullopt;
            const DataSymbol& original = word[in.size()];
            DataSymbol next{original.symbol, {}};
            const auto& params = spec.inputs.at(original.symbol).params;
            for (std::size_t k = 0; k < original.values.size(); ++k) {
                const auto v = map.input(params.at(k).type, original.values[k]);
                if (!v) {
                    movable = false;
                    return std::nullopt;
                }
                next.values.push_back(*v);
            }
            return next;
        });
        if (!differs) {
            checked_ += moved.empty() ? 0 : 1;  // no step could move: not run
            continue;
        }
        const std::size_t i = *differs;
        const DataWord original(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        const DataWord original_out(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        throw Error(
            "the device '" + spec.name + "' does not compare its data only as the signature says (data independence: "
            "one data value per class stands for the class): " + format_word(spec, original, original_out) +
            ", but with every value moved by " + std::to_string(shift) +
            " (an order-preserving map keeping the constants): " + format_word(spec, moved, moved_out) +
            ", which is not the same answer moved. The class compares data with a value its signature does not "
            "declare (as Node's EventEmitter compares setMaxListeners' n with 0), or otherwise than by equality and "
            "order: declare that value as a constant of the signature (the spec's `constants`, a data purpose's "
            "constant). No verdict: a suite or a learner picking one value per data class cannot be trusted on it.");
    }
}

}  // namespace typestar::ra::internal
