// The optional sections of a spec read by the one Reader (spec_reader_detail.hpp): bounds, timing,
// assumptions and provenance, with the scalar readers they share (counts, milliseconds, strings).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "spec_reader_detail.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::spec::detail {
namespace {

constexpr std::string_view kAssumptionKeys[] = {"quiet_is_stable"};
constexpr std::string_view kBoundsKeys[] = {"distinguisher", "states"};
constexpr std::string_view kTimingKeys[] = {"tmax_ms", "tmin_ms"};
constexpr std::string_view kProvenanceKeys[] = {"tool", "device", "framework", "explored", "timing", "stats"};

}  // namespace

std::optional<std::size_t> Reader::read_count(const Entry& entry, std::string_view what, std::size_t minimum) {
    const Node& node = entry.value;
    const std::string expectation = minimum == 0 ? "a non-negative integer" : "a positive integer";
    if (node.IsScalar()) {
        const std::string& text = node.Scalar();
        std::size_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (digits && ec == std::errc::result_out_of_range) {
            error(node, std::string(what) + " is too large: '" + text + "'");
            return std::nullopt;
        }
        if (digits && ec == std::errc() && end == text.data() + text.size() && value >= minimum) return value;
    }
    error(node.IsNull() ? entry.where : location_of(node.Mark()),
          std::string(what) + " must be " + expectation + ", found " + kind_of(node));
    return std::nullopt;
}

std::optional<double> Reader::read_milliseconds(const Entry& entry) {
    const Node& node = entry.value;
    if (node.IsScalar()) {
        const std::string& text = node.Scalar();
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(value) && value >= 0) {
            return value == 0 ? 0.0 : value;  // "-0" is 0 (and written as 0)
        }
    }
    error(node.IsNull() ? entry.where : location_of(node.Mark()),
          "timing '" + entry.key + "' must be a non-negative number of milliseconds, found " + kind_of(node));
    return std::nullopt;
}

std::optional<std::string> Reader::read_string(const Entry& entry, std::string_view what) {
    const Node& node = entry.value;
    if (node.IsScalar()) return node.Scalar();
    if (node.IsNull()) return std::string();
    error(node, std::string(what) + " '" + entry.key + "' must be a string, found " + kind_of(node));
    return std::nullopt;
}

void Reader::read_bounds(const Entry& entry, Bounds& bounds) {
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'bounds' must be a map like {distinguisher: 2, states: 10}, found " + kind_of(node));
        return;
    }
    const auto items = entries(node, "key", " in 'bounds'");
    check_keys(items, kBoundsKeys, " in 'bounds'", true);
    if (const Entry* e = find(items, "distinguisher")) {
        if (auto v = read_count(*e, "bound 'distinguisher'", 0)) bounds.distinguisher = *v;
    }
    if (const Entry* e = find(items, "states")) {
        if (auto v = read_count(*e, "bound 'states'", 1)) bounds.states = *v;
    }
    // DroidStar Theorem 4.3: a state bound k implies the distinguisher bound k - 1.
    if (bounds.states && find(items, "distinguisher") == nullptr)
        bounds.distinguisher = std::max<std::size_t>(1, *bounds.states - 1);
}

void Reader::read_timing(const Entry& entry, Timing& timing) {
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'timing' must be a map like {tmax_ms: 100, tmin_ms: 5}, found " + kind_of(node));
        return;
    }
    const auto items = entries(node, "key", " in 'timing'");
    check_keys(items, kTimingKeys, " in 'timing'", true);
    const Entry* tmax = find(items, "tmax_ms");
    const Entry* tmin = find(items, "tmin_ms");
    if (tmax != nullptr) timing.tmax_ms = read_milliseconds(*tmax);
    if (tmin != nullptr) timing.tmin_ms = read_milliseconds(*tmin);
    if (timing.tmax_ms && timing.tmin_ms && *timing.tmin_ms > *timing.tmax_ms) {
        error(tmin->value, "timing 'tmin_ms' (" + tmin->value.Scalar() + ") exceeds 'tmax_ms' (" +
                               tmax->value.Scalar() + ")");
    }
}

void Reader::read_assumptions(const Entry& entry, Assumptions& assumptions) {
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'assumptions' must be a map like {quiet_is_stable: true}, found " + kind_of(node));
        return;
    }
    const auto items = entries(node, "key", " in 'assumptions'");
    check_keys(items, kAssumptionKeys, " in 'assumptions'", true);
    if (const Entry* e = find(items, "quiet_is_stable")) {
        const std::string text = e->value.IsScalar() ? e->value.Scalar() : std::string();
        if (e->value.IsScalar() && (text == "true" || text == "false"))
            assumptions.quiet_is_stable = text == "true";
        else
            error(e->value, "assumption 'quiet_is_stable' must be true or false, found " +
                                (e->value.IsScalar() ? "'" + text + "'" : kind_of(e->value)));
    }
}

void Reader::read_provenance(const Entry& entry, Provenance& provenance) {
    const Node& node = entry.value;
    if (node.IsNull()) return;
    if (!node.IsMap()) {
        error(node, "'provenance' must be a map with keys tool, device, framework, explored, timing, stats, found " + kind_of(node));
        return;
    }
    const auto items = entries(node, "key", " in 'provenance'");
    check_keys(items, kProvenanceKeys, " in 'provenance'", true);
    if (const Entry* e = find(items, "tool")) provenance.tool = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "device")) provenance.device = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "framework")) provenance.framework = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "explored")) provenance.explored = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "timing")) provenance.timing = read_string(*e, "provenance").value_or("");
    if (const Entry* e = find(items, "stats")) {
        if (e->value.IsNull()) return;
        if (!e->value.IsMap()) {
            error(e->value, "provenance 'stats' must be a map from name to value, found " + kind_of(e->value));
            return;
        }
        for (const Entry& stat : entries(e->value, "statistic", " in provenance 'stats'")) {
            if (auto v = read_string(stat, "statistic")) provenance.stats[stat.key] = *v;
        }
    }
}

}  // namespace typestar::spec::detail
