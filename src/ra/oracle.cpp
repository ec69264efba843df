#include "typestar/ra/oracle.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

#include "values.hpp"

namespace typestar::ra {

DataWord DataOracle::query(const DataWord& inputs) {
    counter_->count_asked(1);
    DataWord out;
    out.reserve(inputs.size());
    DataWord prefix;
    bool all_cached = true;
    for (const auto& in : inputs) {
        prefix.push_back(in);
        auto it = cache_.find(prefix);
        if (it == cache_.end()) {
            all_cached = false;
            break;
        }
        out.push_back(it->second);
    }
    if (all_cached) return out;
    counter_->count_executed(inputs.size(), 0);
    sul_->reset();
    out.clear();
    prefix.clear();
    for (const auto& in : inputs) {
        prefix.push_back(in);
        remember(prefix, out, sul_->step(in));
    }
    return out;
}

void DataOracle::remember(const DataWord& prefix, DataWord& out, DataSymbol o) {
    auto [it, inserted] = cache_.emplace(prefix, o);
    if (!inserted && !(it->second == o)) {
        DataWord cached = out, fresh = out;
        cached.push_back(it->second);
        fresh.push_back(std::move(o));
        throw_nondeterminism(prefix, cached, fresh);
    }
    out.push_back(std::move(o));
}

DataWord DataOracle::query_adaptive(DataWord& inputs, const NextInput& next) {
    counter_->count_asked(1);
    inputs.clear();
    DataWord out;
    bool live = false;  // the device runs this word (past the cache)
    try {
        while (auto in = next(inputs, out)) {
            inputs.push_back(std::move(*in));
            if (!live) {
                if (auto it = cache_.find(inputs); it != cache_.end()) {
                    out.push_back(it->second);
                    continue;
                }
                live = true;
                sul_->reset();
                DataWord prefix;
                for (std::size_t i = 0; i + 1 < inputs.size(); ++i) {  // the cached prefix, checked
                    prefix.push_back(inputs[i]);
                    DataSymbol o = sul_->step(inputs[i]);
                    if (!(o == out[i])) {
                        DataWord cached(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i) + 1);
                        DataWord fresh(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i));
                        fresh.push_back(std::move(o));
                        throw_nondeterminism(prefix, cached, fresh);
                    }
                }
            }
            remember(inputs, out, sul_->step(inputs.back()));
        }
    } catch (...) {
        if (live) counter_->count_executed(inputs.size(), 0);
        throw;
    }
    if (live) counter_->count_executed(inputs.size(), 0);
    return out;
}

void DataOracle::throw_nondeterminism(const DataWord& prefix, const DataWord& cached, const DataWord& fresh) {
    auto text = [&](const DataWord& outputs) {
        std::vector<std::string> t;
        for (const auto& o : outputs) t.push_back(format_symbol(decls_->outputs, o));
        return t;
    };
    std::vector<NondeterminismError::Answer> answers{{text(cached), 1}, {text(fresh), 1}};
    // Run the prefix again to collect evidence (sul/cache.hpp's policy): every distinct answer and
    // how often it was seen.
    for (std::size_t r = 0; r < reruns; ++r) {
        counter_->count_executed(prefix.size(), 0);
        sul_->reset();
        DataWord again;
        for (const auto& in : prefix) again.push_back(sul_->step(in));
        const std::vector<std::string> seen = text(again);
        auto it = std::find_if(answers.begin(), answers.end(), [&](const auto& a) { return a.outputs == seen; });
        if (it != answers.end()) ++it->count;
        else answers.push_back({seen, 1});
    }
    std::vector<std::string> ins;
    for (const auto& in : prefix) ins.push_back(format_symbol(decls_->inputs, in));
    throw NondeterminismError(std::move(ins), std::move(answers));
}

LockstepCheck::LockstepCheck(const RegisterAutomaton& spec) : spec_(&spec), sim_(spec) { reset(); }

void LockstepCheck::reset() {
    sim_.reset();
    device_to_spec_.clear();
    device_values_.clear();
    for (const auto& c : spec_->constants) device_values_.push_back(c.value);
}

Value LockstepCheck::device_value(Value spec_value) const {
    for (const auto& [device, spec] : device_to_spec_)
        if (spec == spec_value) return device;
    return spec_value;
}

std::string LockstepCheck::step(const DataSymbol& input, const DataSymbol& output) {
    DataSymbol spec_in = input;
    for (auto& v : spec_in.values) {
        if (auto it = device_to_spec_.find(v); it != device_to_spec_.end()) v = it->second;
    }
    for (Value v : input.values) device_values_.push_back(v);
    DataSymbol expected;
    const std::size_t from = sim_.location();
    expected_.reset();
    try {
        expected = sim_.step(spec_in);
    } catch (const Error& e) {
        return std::string("the spec cannot step: ") + e.what();
    }
    expected_ = expected;
    const Transition& taken = spec_->locations.at(from).transitions.at(sim_.last_transition());
    auto describe = [&](const DataSymbol& s) { return format_symbol(spec_->outputs, s); };
    if (expected.symbol != output.symbol || expected.values.size() != output.values.size())
        return "expected " + describe(expected) + ", got " + describe(output);
    for (std::size_t i = 0; i < output.values.size(); ++i) {
        const Value got = output.values[i];
        if (i < taken.output_args.size() && taken.output_args[i].fresh) {
            if (std::find(device_values_.begin(), device_values_.end(), got) != device_values_.end())
                return "expected " + describe(expected) + " with a fresh value, got " + describe(output) + " (" +
                       std::to_string(got) + " was seen before)";
            device_to_spec_[got] = expected.values[i];
            continue;
        }
        Value mapped = got;
        if (auto it = device_to_spec_.find(got); it != device_to_spec_.end()) mapped = it->second;
        if (mapped != expected.values[i]) return "expected " + describe(expected) + ", got " + describe(output);
    }
    for (Value v : output.values) device_values_.push_back(v);
    return {};
}

std::vector<Value> class_candidates(DataType type, const std::vector<Value>& relevant, const std::vector<Value>& avoid) {
    constexpr Value kGap = Value{1} << 20;
    std::vector<Value> all = avoid;
    all.insert(all.end(), relevant.begin(), relevant.end());
    const std::set<Value> taken(all.begin(), all.end());
    std::vector<Value> out;
    if (type == DataType::Id) {
        for (Value v : relevant)
            if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
        out.push_back(internal::unused_id(taken));
        return out;
    }
    std::vector<Value> rel(relevant.begin(), relevant.end());
    std::sort(rel.begin(), rel.end());
    rel.erase(std::unique(rel.begin(), rel.end()), rel.end());
    // A value of the class above `floor` (below `ceiling`): kGap past every taken value, or, when
    // int64 ends there, the unused value nearest its end; none when the class has no unused value.
    // Values at the int64 limits are ordinary input (from devices and files): nothing overflows.
    auto above = [&](Value floor) -> std::optional<Value> {
        if (*taken.rbegin() < internal::kMaxValue) return internal::plus_clamped(*taken.rbegin(), kGap);
        for (Value v = internal::kMaxValue; v > floor; --v)
            if (!taken.count(v)) return v;
        return std::nullopt;
    };
    auto below = [&](Value ceiling) -> std::optional<Value> {
        if (*taken.begin() > internal::kMinValue) return internal::plus_clamped(*taken.begin(), -kGap);
        for (Value v = internal::kMinValue; v < ceiling; ++v)
            if (!taken.count(v)) return v;
        return std::nullopt;
    };
    if (rel.empty()) {
        if (taken.empty()) out.push_back(0);
        else out.push_back(*taken.rbegin() < internal::kMaxValue ? internal::plus_clamped(*taken.rbegin(), kGap)
                                                                 : internal::unused_id(taken));
        return out;
    }
    if (const auto v = below(rel.front())) out.push_back(*v);
    for (std::size_t i = 0; i < rel.size(); ++i) {
        out.push_back(rel[i]);
        if (i + 1 < rel.size()) {
            const Value a = rel[i], b = rel[i + 1];
            const Value mid = std::midpoint(a, b);  // a + (b - a) / 2, without overflow
            for (Value d = 0; d <= 64; ++d) {
                if (const auto up = internal::plus(mid, d); up && *up < b && *up > a && !taken.count(*up)) {
                    out.push_back(*up);
                    break;
                }
                if (const auto down = internal::plus(mid, -d); down && *down > a && *down < b && !taken.count(*down)) {
                    out.push_back(*down);
                    break;
                }
            }
        }
    }
    if (const auto v = above(rel.back())) out.push_back(*v);
    return out;
}

}  // namespace typestar::ra
