// The class definition's checks and the values of parameterised callins: generated, and those
// read from the class's code (typestar/device/trace_cmp.hpp).
#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>

#include "inprocess_timing.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/device/trace_cmp.hpp"

namespace typestar {

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::device_log(); }

}  // namespace

// ---- ClassDefinition ----

void ClassDefinition::validate() const {
    auto bad = [&](const std::string& what) { throw std::invalid_argument("class '" + name + "': " + what); };
    if (name.empty()) throw std::invalid_argument("class definition without a name");
    if (!reset) bad("no reset snippet");
    std::set<std::string, std::less<>> symbols;
    auto check_symbol = [&](const std::string& s, const char* kind) {
        if (s.empty()) bad(std::string("empty ") + kind + " name");
        if (is_reserved(s)) bad(std::string("reserved name '") + s + "' used as a " + kind);
        if (!symbols.insert(s).second) bad("symbol '" + s + "' declared twice");
    };
    for (const auto& c : callins) {
        check_symbol(c.name, "callin");
        if (c.with_value) {  // parameterised: partitions are its abstract inputs
            if (!c.variants.empty()) bad("parameterised callin '" + c.name + "' also has variants");
            if (c.partitions.empty()) bad("parameterised callin '" + c.name + "' has no partition");
            std::set<std::string> names;
            for (const auto& p : c.partitions) {
                const bool ok = !p.name.empty() && std::all_of(p.name.begin(), p.name.end(), [](char ch) {
                    return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
                           std::string_view("_.=<>!-").find(ch) != std::string_view::npos;
                });
                if (!ok) bad("partition '" + p.name + "' of callin '" + c.name + "' is not a name of [A-Za-z0-9_.=<>!-]");
                if (!names.insert(p.name).second) bad("callin '" + c.name + "' has two partitions '" + p.name + "'");
                if (!p.values.generate) bad("partition '" + p.name + "' of callin '" + c.name + "' has no values");
            }
            continue;
        }
        if (!c.partitions.empty()) bad("callin '" + c.name + "' has partitions but no parameters");
        if (c.variants.empty()) bad("callin '" + c.name + "' has no snippet");
        std::set<std::string> labels;
        for (const auto& v : c.variants) {
            if (!v.snippet && !v.answer) bad("callin '" + c.name + "' has an empty snippet");
            if (c.variants.size() > 1 && v.label.empty()) bad("a variant of callin '" + c.name + "' has no label");
            if (!labels.insert(v.label).second)
                bad("callin '" + c.name + "' has two variants labelled '" + v.label + "'");
        }
    }
    std::set<std::string> sources;
    for (const auto& cb : callbacks) {
        check_symbol(cb.name, "callback");
        const std::vector<std::string> own{cb.name};
        for (const auto& s : cb.sources.empty() ? own : cb.sources)
            if (!sources.insert(s).second) bad("callback source '" + s + "' is used twice");
    }
    std::set<std::string> named;
    for (const auto& o : outputs) {
        if (o.empty() || (is_reserved(o) && !(o == kErr && !err_absorbing)) || symbols.contains(o))
            bad("output '" + o + "' is empty, reserved or a callin's or callback's name");
        if (!named.insert(o).second) bad("output '" + o + "' declared twice");
    }
    if (!has_wait && !callbacks.empty()) bad("no wait input (no_wait) but callbacks are declared");
    if (timing.tmin > timing.tmax) bad("tmin is larger than tmax");
    if (timing.tmax.count() < 0 || timing.tmin.count() < 0) bad("negative timing");
}

// ---- values from the class's code (typestar/device/trace_cmp.hpp) ----

std::set<std::int64_t> InProcessDevice::probe_constants(std::size_t c, const std::vector<std::string>& sampled) const {
    // Probe runs are not queries: their own epoch and timing monitor, whose observations (late or
    // undeclared callbacks) are dropped; a callin that throws ends that run. Comparisons are
    // recorded from callin `c` on (what its argument can decide), on this thread only.
    std::set<std::int64_t> constants;
    auto monitor = std::make_shared<detail::TimingMonitor>();
    monitor->policy = TimingViolationPolicy::Warn;
    // A parameterised callin after it runs with its first sampled value (none: not run after it).
    std::vector<std::optional<std::string>> first(definition_.callins.size());
    for (std::size_t y = 0; y < definition_.callins.size(); ++y)
        if (const auto& next = definition_.callins[y]; next.with_value && !next.partitions.empty())
            if (auto one = next.partitions.front().values.generate(config_.value_seed + y, 1); !one.empty())
                first[y] = one.front();
    std::vector<std::optional<std::size_t>> prefixes{std::nullopt};
    for (std::size_t x = 0; x < definition_.callins.size(); ++x)
        if (!definition_.callins[x].with_value) prefixes.emplace_back(x);
    for (const auto& prefix : prefixes)
        for (const auto& v : sampled)
            for (std::size_t y = 0; y <= definition_.callins.size(); ++y) {  // y == size: no callin after
                auto epoch = std::make_shared<detail::Epoch>();
                epoch->monitor = monitor;
                epoch->open = false;
                std::shared_ptr<void> instance;
                try {
                    instance = definition_.reset(std::make_shared<CallbackSink>(epoch));
                    if (!instance) return constants;
                    if (prefix) definition_.callins[*prefix].variants.front().snippet(instance.get());
                    trace_cmp::Recording recording(constants);
                    definition_.callins[c].with_value(instance.get(), v);
                    if (y < definition_.callins.size()) {
                        const auto& next = definition_.callins[y];
                        if (!next.with_value) next.variants.front().snippet(instance.get());
                        else if (first[y]) next.with_value(instance.get(), *first[y]);
                    }
                } catch (...) {
                    // refused: the comparisons made so far are recorded
                }
                if (instance && definition_.teardown) {
                    try {
                        definition_.teardown(instance.get());
                    } catch (...) {
                    }
                }
            }
    return constants;
}

InProcessDevice::CodeValues InProcessDevice::values_from_code() {
    CodeValues out;
    out.values.resize(definition_.callins.size());
    out.from_code.resize(definition_.callins.size());
    bool eligible = false;
    for (std::size_t c = 0; c < definition_.callins.size(); ++c) {
        const auto& callin = definition_.callins[c];
        for (const auto& part : callin.partitions) {
            out.values[c].push_back(part.values.generate(config_.value_seed + c, config_.values_per_partition));
            eligible = eligible || (part.values.domain && callin.parameters.size() == 1 &&
                                    callin.parameters.front().second == "int");
        }
    }
    if (!trace_cmp::linked()) {
        values_from_code_ = "not collected (the test binary was not built with typestar_trace_comparisons, or "
                            "TYPESTAR_TRACE_CMP is off)";
        return out;
    }
    if (!config_.values_from_code) {
        values_from_code_ = "not collected (InProcessConfig::values_from_code is off)";
        return out;
    }
    if (!eligible) {
        values_from_code_ = "not collected (no parameterised callin has one int parameter with a declared range)";
        return out;
    }
    std::size_t constants_seen = 0;
    std::size_t added = 0;
    std::string capped;
    for (std::size_t c = 0; c < definition_.callins.size(); ++c) {
        const auto& callin = definition_.callins[c];
        if (callin.partitions.empty() || callin.parameters.size() != 1 || callin.parameters.front().second != "int")
            continue;
        std::vector<std::string> sampled;
        std::set<std::string> pool;
        for (const auto& vs : out.values[c])
            for (const auto& v : vs)
                if (pool.insert(v).second) sampled.push_back(v);
        const std::set<std::int64_t> constants = probe_constants(c, sampled);
        constants_seen += constants.size();
        // Candidates c-1, c, c+1, nearest to a constant first, then by value: deterministic.
        std::vector<std::pair<int, long long>> candidates;
        for (const std::int64_t k : constants)
            for (int d = -1; d <= 1; ++d) {
                if ((d < 0 && k == INT64_MIN) || (d > 0 && k == INT64_MAX)) continue;
                candidates.emplace_back(d == 0 ? 0 : 1, static_cast<long long>(k) + d);
            }
        std::sort(candidates.begin(), candidates.end());
        std::size_t taken = 0;
        for (const auto& [distance, value] : candidates) {
            const std::string printed = std::to_string(value);
            if (pool.count(printed) != 0) continue;
            for (std::size_t p = 0; p < callin.partitions.size(); ++p) {
                const auto& domain = callin.partitions[p].values.domain;
                if (!domain || value < domain->first || value > domain->second) continue;
                if (taken == config_.max_values_from_code) {
                    capped = "; capped at " + std::to_string(config_.max_values_from_code) + " for '" + callin.name + "'";
                    break;
                }
                out.values[c][p].push_back(printed);
                out.from_code[c].insert(printed);
                pool.insert(printed);
                ++taken;
                ++added;
                break;
            }
        }
    }
    values_from_code_ = "trace-cmp: " + std::to_string(constants_seen) + " constant(s) compared, " +
                        std::to_string(added) + " value(s) added" + capped;
    if (constants_seen == 0) values_from_code_ += " (is the class's code compiled with typestar_trace_comparisons?)";
    log()->info("{}: values from the code: {}", name(), values_from_code_);
    return out;
}

ValueGenerator ValueGenerator::fixed(std::vector<std::string> values) {
    const std::string description = "fixed " + std::to_string(values.size());
    return {[values = std::move(values)](std::uint64_t, std::size_t) { return values; }, description};
}

namespace {
/// splitmix64: a tiny seeded generator whose sequence is the same on every platform (std::
/// distributions are not), so generated values are reproducible byte for byte.
std::uint64_t splitmix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
}  // namespace

ValueGenerator ValueGenerator::range(long long lo, long long hi) {
    if (lo > hi) throw std::invalid_argument("ValueGenerator::range: lo > hi");
    return {[lo, hi](std::uint64_t seed, std::size_t count) {
                std::vector<std::string> out;
                std::set<long long> seen;
                const auto add = [&](long long v) {
                    if (out.size() < count && seen.insert(v).second) out.push_back(std::to_string(v));
                };
                add(lo);
                add(hi);
                const auto width = static_cast<std::uint64_t>(hi - lo) + 1;
                for (std::size_t tries = 0; out.size() < count && tries < 8 * count + 8; ++tries)
                    add(lo + static_cast<long long>(splitmix(seed) % width));
                return out;
            },
            "range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
            std::pair<long long, long long>{lo, hi}};
}

ValueGenerator ValueGenerator::sampler(std::function<std::string(std::uint64_t& state)> draw, std::string description) {
    return {[draw = std::move(draw)](std::uint64_t seed, std::size_t count) {
                std::vector<std::string> out;
                std::set<std::string> seen;
                for (std::size_t tries = 0; out.size() < count && tries < 8 * count + 8; ++tries) {
                    std::string v = draw(seed);
                    if (seen.insert(v).second) out.push_back(std::move(v));
                }
                return out;
            },
            std::move(description)};
}

}  // namespace typestar
