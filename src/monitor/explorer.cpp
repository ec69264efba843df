#include "typestar/monitor/explorer.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>

namespace typestar {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

std::string join(const std::vector<std::string>& items, const char* separator) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
    return out;
}

std::vector<std::string> split(std::string_view text) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\n') ++j;
        out.emplace_back(text.substr(i, j - i));
        i = j;
    }
    return out;
}

std::string indented(const std::string& text, const std::string& prefix) {
    std::string out = prefix;
    for (const char c : text) {
        out += c;
        if (c == '\n') out += prefix;
    }
    return out;
}

}  // namespace

ExplorationSession::ExplorationSession(std::shared_ptr<const MonitorModel> model)
    : driver_(std::make_shared<Monitor>(std::move(model))) {}

void ExplorationSession::action(std::string name, std::function<void()> run) {
    if (name.empty() || name[0] == '<' || name.find_first_of(" \t\n") != std::string::npos)
        throw std::invalid_argument("ExplorationSession: action name '" + name + "' must be non-empty, without blanks, not starting with '<'");
    for (const auto& a : actions_)
        if (a.name == name) throw std::invalid_argument("ExplorationSession: duplicate action '" + name + "'");
    actions_.push_back(Action{std::move(name), std::move(run)});
}

void ExplorationSession::listen(std::string_view callback, std::function<void()> listener) {
    driver_.listen(callback, std::move(listener));
}

void ExplorationSession::at_end(std::function<void()> check) { at_end_.push_back(std::move(check)); }

std::vector<std::string> ExplorationSession::action_names() const {
    std::vector<std::string> out;
    for (const auto& a : actions_) out.push_back(a.name);
    return out;
}

std::string ExploreFailure::schedule_text() const { return join(schedule, " "); }

std::string ExploreResult::summary() const {
    std::string out = std::to_string(interleavings) + " interleavings up to bound " + std::to_string(bound);
    out += complete ? " (every schedule of the bound)" : " (not every schedule of the bound)";
    if (failed == 0) {
        out += ": no violation. Bounded evidence: longer or other schedules are untested.";
        return out;
    }
    out += ": " + std::to_string(failed) + " failed";
    if (failures.size() < failed) out += " (" + std::to_string(failures.size()) + " shortest shown)";
    out += ".";
    for (const auto& f : failures) {
        out += "\n  seed " + std::to_string(f.seed) + ", schedule: " + f.schedule_text() + "\n";
        out += indented(f.message, "    ");
        out += "\n    replay: explorer.replay(\"" + f.schedule_text() + "\")";
    }
    return out;
}

struct Explorer::Outcome {
    std::vector<std::string> actions;
    std::vector<std::size_t> widths;  // options at each executed depth
    std::vector<std::string> schedule;
    std::optional<ExploreFailure> failure;
};

Explorer::Explorer(std::shared_ptr<const MonitorModel> model, ExplorationSetup setup, ExploreOptions options)
    : model_(std::move(model)), setup_(std::move(setup)), options_(options) {
    if (!model_) throw std::invalid_argument("Explorer: null model");
    if (!setup_) throw std::invalid_argument("Explorer: empty setup");
}

Explorer::Outcome Explorer::execute(const Chooser& choose,
                                    std::size_t bound, const std::vector<std::string>* expected_actions) const {
    ExplorationSession session(model_);
    setup_(session);
    Outcome out;
    out.actions = session.action_names();
    if (out.actions.empty()) throw Error("explorer: the setup registered no client action");
    if (expected_actions && *expected_actions != out.actions)
        throw Error("explorer: the setup registered actions [" + join(out.actions, ", ") + "] after [" +
                    join(*expected_actions, ", ") + "]; it must register the same ones on every run");
    Monitor& monitor = session.monitor();
    auto fail = [&](std::string message, std::optional<Violation> violation) {
        ExploreFailure f;
        f.schedule = out.schedule;
        f.seed = options_.seed;
        f.message = std::move(message);
        f.violation = std::move(violation);
        f.trace = monitor.trace_text();
        out.failure = std::move(f);
    };
    auto run_step = [&](const std::function<void()>& step) {
        const std::size_t before = monitor.violation_count();
        try {
            step();
        } catch (const ViolationError& e) {
            fail(e.what(), e.violation());
            return;
        } catch (const std::exception& e) {
            fail(std::string("exception: ") + e.what(), std::nullopt);
            return;
        }
        if (monitor.violation_count() > before) {
            auto v = monitor.violations()[before];
            std::string message = v.message();
            fail(std::move(message), std::move(v));
        }
    };
    for (std::size_t depth = 0; depth < bound && !out.failure; ++depth) {
        const auto owed = model_->pending(monitor.state_id());
        const std::size_t width = out.actions.size() + (owed ? 1 : 0);
        const std::string owed_name = owed ? model_->name(Event::callback(*owed)) : std::string();
        const std::size_t pick = choose(depth, out.actions, owed ? &owed_name : nullptr);
        out.widths.push_back(width);
        if (pick < out.actions.size()) {
            out.schedule.push_back(out.actions[pick]);
            run_step(session.actions_[pick].run);
        } else {
            out.schedule.push_back("<" + owed_name);
            run_step([&] { (void)session.driver_.deliver_pending(); });
        }
    }
    for (const auto& check : session.at_end_) {
        if (out.failure) break;
        run_step(check);
        if (out.failure && !out.failure->violation) out.failure->message = "at_end check failed: " + out.failure->message;
    }
    return out;
}

ExploreResult Explorer::run() const {
    ExploreResult result;
    result.bound = options_.bound;
    result.seed = options_.seed;
    // Keeps the keep_failures shortest failures, ties broken by discovery order.
    std::vector<std::uint64_t> found_at;
    auto record = [&](Outcome& outcome, std::uint64_t seed) {
        ++result.interleavings;
        if (!outcome.failure) return false;
        ++result.failed;
        outcome.failure->seed = seed;
        if (result.failures.size() < options_.keep_failures) {
            result.failures.push_back(std::move(*outcome.failure));
            found_at.push_back(result.failed);
        } else if (!result.failures.empty()) {
            std::size_t longest = 0;
            for (std::size_t i = 1; i < result.failures.size(); ++i)
                if (result.failures[i].schedule.size() > result.failures[longest].schedule.size() ||
                    (result.failures[i].schedule.size() == result.failures[longest].schedule.size() &&
                     found_at[i] > found_at[longest]))
                    longest = i;
            if (outcome.failure->schedule.size() < result.failures[longest].schedule.size()) {
                result.failures[longest] = std::move(*outcome.failure);
                found_at[longest] = result.failed;
            }
        }
        return options_.stop_at_first_failure;
    };
    auto finish = [&]() {
        std::vector<std::size_t> order(result.failures.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            const auto la = result.failures[a].schedule.size(), lb = result.failures[b].schedule.size();
            return la != lb ? la < lb : found_at[a] < found_at[b];
        });
        std::vector<ExploreFailure> sorted;
        for (const auto i : order) sorted.push_back(std::move(result.failures[i]));
        result.failures = std::move(sorted);
        return result;
    };

    std::optional<std::vector<std::string>> actions;
    if (options_.strategy == ExploreStrategy::Random) {
        std::uint64_t seed = options_.seed;
        for (std::size_t i = 0; i < options_.runs; ++i, seed = splitmix64(seed)) {
            std::mt19937_64 rng(seed);
            auto choose = [&](std::size_t, const std::vector<std::string>& acts, const std::string* owed) {
                return static_cast<std::size_t>(rng() % (acts.size() + (owed ? 1 : 0)));
            };
            Outcome outcome = execute(choose, options_.bound, actions ? &*actions : nullptr);
            if (!actions) actions = outcome.actions;
            if (record(outcome, seed)) break;
        }
        return finish();
    }

    // Exhaustive: an odometer over the choice at each depth, advanced deepest first.
    std::vector<std::size_t> path;
    auto permuted = [&](std::size_t depth, std::size_t width, std::size_t index) {
        if (options_.seed == 0) return index;
        std::vector<std::size_t> order(width);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::mt19937_64 rng(splitmix64(options_.seed ^ splitmix64(depth * 1000003u + width)));
        for (std::size_t i = width; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
        return order[index];
    };
    for (;;) {
        if (options_.max_runs > 0 && result.interleavings >= options_.max_runs) return finish();
        auto choose = [&](std::size_t depth, const std::vector<std::string>& acts, const std::string* owed) {
            const std::size_t width = acts.size() + (owed ? 1 : 0);
            if (depth == path.size()) path.push_back(0);
            if (path[depth] >= width)
                throw Error("explorer: the client is not deterministic (a replayed prefix offered fewer steps)");
            return permuted(depth, width, path[depth]);
        };
        Outcome outcome = execute(choose, options_.bound, actions ? &*actions : nullptr);
        if (!actions) actions = outcome.actions;
        if (record(outcome, options_.seed)) return finish();
        path.resize(outcome.widths.size());
        std::size_t depth = path.size();
        while (depth > 0 && path[depth - 1] + 1 >= outcome.widths[depth - 1]) --depth;
        if (depth == 0) break;
        path.resize(depth);
        ++path[depth - 1];
    }
    result.complete = true;
    return finish();
}

std::optional<ExploreFailure> Explorer::replay(const std::vector<std::string>& schedule) const {
    auto pick = [&](std::size_t depth, const std::vector<std::string>& actions, const std::string* owed) {
        const std::string& step = schedule[depth];
        const std::string where = "replay: step " + std::to_string(depth + 1) + " '" + step + "': ";
        if (!step.empty() && step[0] == '<') {
            if (!owed) throw Error(where + "no callback is owed there");
            if (step.substr(1) != *owed) throw Error(where + "the state owes <" + *owed + " instead");
            return actions.size();
        }
        const auto it = std::find(actions.begin(), actions.end(), step);
        if (it == actions.end()) throw Error(where + "unknown action (actions: " + join(actions, ", ") + ")");
        return static_cast<std::size_t>(it - actions.begin());
    };
    return std::move(execute(pick, schedule.size(), nullptr).failure);
}

std::optional<ExploreFailure> Explorer::replay(std::string_view schedule_text) const {
    return replay(split(schedule_text));
}

}  // namespace typestar
