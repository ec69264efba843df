// The quiescence checks of learning and checking: waits re-run from every learned state
// (recheck_waits) and the double-check of every way into a quiet state with a longer wait
// (confirm_quiescence), which names a callback the spec does not have as a protocol difference.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "session_detail.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/translate.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"
#include "typestar/session/session.hpp"
#include "typestar/session/test_plan.hpp"

namespace typestar {

using detail::confirm_quiescence_impl;
using detail::has_output;
using detail::NewCallback;

void recheck_waits(const MealyMachine& machine, const std::vector<Word>& access, OracleStack& stack,
                   std::size_t times, std::span<const char> ran_once) {
    const auto wait = machine.inputs().find(kWait);
    if (!wait || times == 0) return;
    // One batch of every re-run (over the pool), checked against the cache like any answer.
    std::vector<Word> words;
    std::vector<std::pair<std::size_t, std::size_t>> runs_of;  // per state: first run, how many
    for (StateId q = 0; q < machine.num_states() && q < access.size(); ++q) {
        const std::size_t n = q < ran_once.size() && ran_once[q] ? times - 1 : times;
        if (n == 0) continue;
        Word word = access[q];
        word.push_back(*wait);
        runs_of.emplace_back(words.size(), n);
        for (std::size_t r = 0; r < n; ++r) words.push_back(word);
    }
    const std::vector<Word> runs = stack.cache().rerun(words);
    for (const auto& [first, n] : runs_of) {
        const Word& word = words[first];
        const Word expected = machine.outputs_of(word);
        std::vector<NondeterminismError::Answer> answers{{names_of(expected, machine.outputs()), 1}};
        bool differs = false;
        for (std::size_t r = 0; r < n; ++r) {
            const Word& got = runs[first + r];
            std::vector<std::string> names = names_of(got, stack.oracle().outputs());
            differs = differs || names != answers.front().outputs;
            bool counted = false;
            for (auto& a : answers)
                if (a.outputs == names) {
                    ++a.count;
                    counted = true;
                }
            if (!counted) answers.push_back({std::move(names), 1});
        }
        if (differs) throw NondeterminismError(names_of(word, machine.inputs()), std::move(answers));
    }
}

std::size_t confirm_quiescence(const MealyMachine& machine, const std::vector<Word>& access, Device& device,
                               double factor, const std::vector<char>* only) {
    Device* const one[] = {&device};
    return confirm_quiescence(machine, access, std::span<Device* const>(one), factor, only);
}

namespace detail {


bool has_output(const MealyMachine& machine, const std::string& name) {
    const auto o = machine.outputs().find(name);
    if (!o) return false;
    for (StateId q = 0; q < machine.num_states(); ++q)
        for (Symbol i = 0; i < machine.num_inputs(); ++i)
            if (machine.output(q, i) == *o) return true;
    return false;
}

/// confirm_quiescence; with `found` (checking a spec), a callback the machine never outputs is a
/// protocol difference, never "raise tmax": written to `found`, and the count so far is returned.
std::size_t confirm_quiescence_impl(const MealyMachine& machine, const std::vector<Word>& access,
                                    std::span<Device* const> devices, double factor, const std::vector<char>* only,
                                    std::optional<NewCallback>* found);

}  // namespace detail

std::size_t confirm_quiescence(const MealyMachine& machine, const std::vector<Word>& access,
                               std::span<Device* const> devices, double factor, const std::vector<char>* only) {
    return confirm_quiescence_impl(machine, access, devices, factor, only, nullptr);
}

namespace detail {

std::size_t confirm_quiescence_impl(const MealyMachine& machine, const std::vector<Word>& access,
                                    std::span<Device* const> devices, double factor, const std::vector<char>* only,
                                    std::optional<NewCallback>* found) {
    if (devices.empty()) throw std::invalid_argument("no device");
    const DeviceDescription description = devices.front()->describe();
    if (factor <= 0 || !description.tmax_ms) return 0;
    const auto wait = machine.inputs().find(kWait);
    const auto quiet = machine.outputs().find(kQuiet);
    if (!wait || !quiet) return 0;
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(*description.tmax_ms * factor));
    // Every way into a quiet state (the one rule, quiescence_words, that the runners also run),
    // restricted to the states in `only` when given.
    std::vector<Word> words;
    for (auto& w : quiescence_words(machine, access))
        if (only == nullptr || (w.state < only->size() && (*only)[w.state])) words.push_back(std::move(w.word));
    // A batch over the devices (each used by one thread), words taken in order; the verdict is read
    // in word order, so the first late callback named is the same as with one device.
    std::vector<std::optional<std::string>> answers(words.size());  // by name: each device's own outputs
    std::vector<std::exception_ptr> errors(words.size());
    std::vector<char> ran(words.size(), 0);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    // Checking a spec: a late callback the spec never has, reported for an earlier query (a remote
    // agent reports it on its next request, e.g. the one that starts this search) is what this
    // search looks for, not a reason to stop it: the word runs again (the report is consumed), up to
    // three times. The first such report is rethrown when the search finds nothing (never a pass).
    std::mutex stale_mutex;
    std::exception_ptr stale;
    const auto work = [&](Device& device) {
        for (std::size_t k; !stop && (k = next++) < words.size();) {
            for (int attempt = 0;; ++attempt) {
                try {
                    if (const auto answer = confirm_wait_with_timing_retries(device, words[k], timeout))
                        answers[k] = device.outputs().name(*answer);
                    if (!answers[k] || (*answers[k] != kQuiet && *answers[k] != kErr)) stop = true;
                } catch (const TimingError& e) {
                    if (found != nullptr && e.earlier_query() && !e.callback().empty() &&
                        !has_output(machine, e.callback()) && attempt < 3) {
                        std::lock_guard<std::mutex> lock(stale_mutex);
                        if (!stale) stale = std::current_exception();
                        continue;
                    }
                    errors[k] = std::current_exception();
                    stop = true;
                } catch (...) {
                    errors[k] = std::current_exception();
                    stop = true;
                }
                break;
            }
            ran[k] = 1;
        }
    };
    if (devices.size() == 1 || words.size() < 2) {
        work(*devices.front());
    } else {
        std::vector<std::thread> threads;
        for (std::size_t d = 1; d < devices.size() && d < words.size(); ++d) threads.emplace_back(work, std::ref(*devices[d]));
        work(*devices.front());
        for (auto& t : threads) t.join();
    }
    std::size_t confirmed = 0;
    for (std::size_t k = 0; k < words.size() && ran[k]; ++k) {
        const Word& word = words[k];
        if (errors[k]) std::rethrow_exception(errors[k]);
        const auto& answer = answers[k];
        if (!answer) {  // no real time behind this device
            if (stale) std::rethrow_exception(stale);
            return confirmed;
        }
        const std::string& got = *answer;
        if (found != nullptr && got != kQuiet && got != kErr && !has_output(machine, got)) {
            // Checking a spec: no tmax makes the device conform, the spec never has this callback.
            *found = NewCallback{word, got};
            return confirmed;
        }
        if (got != kQuiet && got != kErr) {
            // A timing failure, not a device failure: every front end reports it as timing and
            // proposes nothing (the callback is one the spec has).
            throw TimingError("tmax too small: after '" + to_string(word, machine.inputs()) + "', a wait of tmax=" +
                                  std::to_string(static_cast<long long>(*description.tmax_ms)) +
                                  " ms was answered quiet, but callback '" + got + "' arrived within " +
                                  std::to_string(timeout.count()) + " ms (device " + description.name +
                                  "); raise tmax so that every callback arrives within it",
                              TimingError::Kind::LateCallback, got, static_cast<double>(timeout.count()),
                              static_cast<double>(*description.tmax_ms), 0.0);
        }
        ++confirmed;
    }
    if (stale) std::rethrow_exception(stale);
    return confirmed;
}

}  // namespace detail

}  // namespace typestar
