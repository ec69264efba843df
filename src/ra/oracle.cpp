#include "typestar/ra/oracle.hpp"

#include <algorithm>
#include <set>

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
        DataSymbol o = sul_->step(in);
        prefix.push_back(in);
        auto [it, inserted] = cache_.emplace(prefix, o);
        if (!inserted && !(it->second == o)) {
            DataWord cached = out, fresh = out;
            cached.push_back(it->second);
            fresh.push_back(std::move(o));
            throw_nondeterminism(prefix, cached, fresh);
        }
        out.push_back(std::move(o));
    }
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
        out.push_back(taken.empty() ? 0 : *taken.rbegin() + 1);
        return out;
    }
    std::vector<Value> rel(relevant.begin(), relevant.end());
    std::sort(rel.begin(), rel.end());
    rel.erase(std::unique(rel.begin(), rel.end()), rel.end());
    if (rel.empty()) {
        out.push_back(taken.empty() ? 0 : *taken.rbegin() + kGap);
        return out;
    }
    out.push_back(*taken.begin() - kGap);
    for (std::size_t i = 0; i < rel.size(); ++i) {
        out.push_back(rel[i]);
        if (i + 1 < rel.size()) {
            const Value a = rel[i], b = rel[i + 1];
            const Value mid = a + (b - a) / 2;
            for (Value d = 0; d <= 64; ++d) {
                if (mid + d < b && mid + d > a && !taken.count(mid + d)) {
                    out.push_back(mid + d);
                    break;
                }
                if (mid - d > a && mid - d < b && !taken.count(mid - d)) {
                    out.push_back(mid - d);
                    break;
                }
            }
        }
    }
    out.push_back(*taken.rbegin() + kGap);
    return out;
}

}  // namespace typestar::ra
