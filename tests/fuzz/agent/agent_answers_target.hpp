// Fuzz target body: HttpDevice's reading of agent answers (src/device/http_answers.hpp), bytes in,
// a value or a DeviceError out. Shared by the libFuzzer entry point and the corpus replay test.
// Input layout: byte 0 chooses the answer (status, session, step, run) and its parameters, byte 1
// the HTTP status, the rest is the body.
// Oracles beyond "no crash": only DeviceError is thrown, and its message is printable ASCII (a
// hostile agent cannot forge lines or terminal codes); an accepted status keeps
// 0 <= tmin <= tmax <= 1 h and gives well-formed alphabets; a session id is URL-safe; a step output
// fits its input; a run result has one fitting output per input, keeps err absorbing and
// 0 <= waits <= steps <= length.
#pragma once

#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"
#include "http_answers.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"

namespace typestar::fuzz {

inline bool printable_message(std::string_view s) {
    for (const char c : s)
        if (c < 0x20 || c > 0x7e) return false;
    return !s.empty();
}

/// The alphabets of a fixed agent, for step and run answers.
inline const detail::StatusAnswer& answers_agent() {
    static const detail::StatusAnswer agent = detail::read_status_answer(
        nlohmann::json::parse(R"({"protocol":"typestar-device/1","name":"Player","callins":["prepare","start"],
            "callbacks":["onPrepared","onDone"],"timing":{"tmax_ms":100,"tmin_ms":5},"quiet_is_stable":true})"),
        "device fuzz");
    return agent;
}

inline int agent_answers_one_input(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const unsigned selector = data[0];
    static constexpr std::array<long, 8> kStatuses{200, 201, 200, 400, 404, 409, 500, 503};
    const long status = kStatuses[data[1] % kStatuses.size()];
    const std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);
    constexpr std::size_t kCap = 64 * 1024;

    const detail::JudgedAnswer judged = detail::judge_answer(status, body, kCap);
    using Kind = detail::JudgedAnswer::Kind;
    if (judged.kind != Kind::Accepted) {
        TYPESTAR_FUZZ_CHECK(printable_message(judged.what));
        TYPESTAR_FUZZ_CHECK(judged.kind == Kind::Final || status == 503 || status / 100 == 2);
        return 0;
    }
    TYPESTAR_FUZZ_CHECK(status / 100 == 2 && judged.body.is_object() && body.size() <= kCap);

    const detail::StatusAnswer& agent = answers_agent();
    const Symbol wait = agent.inputs.at(kWait);
    try {
        switch (selector % 4) {
            case 0: {
                const detail::StatusAnswer s = detail::read_status_answer(judged.body, "device fuzz");
                TYPESTAR_FUZZ_CHECK(s.status.protocol == detail::kProtocol);
                TYPESTAR_FUZZ_CHECK(s.status.timing.tmin.count() >= 0);
                TYPESTAR_FUZZ_CHECK(s.status.timing.tmin <= s.status.timing.tmax);
                TYPESTAR_FUZZ_CHECK(s.status.timing.tmax.count() <= detail::kMaxTimingMs);
                TYPESTAR_FUZZ_CHECK(s.inputs.size() == s.status.callins.size() + 1);
                TYPESTAR_FUZZ_CHECK(s.outputs.size() == s.status.callbacks.size() + 3);
                TYPESTAR_FUZZ_CHECK(s.traits.wait && s.traits.absorbing);
                TYPESTAR_FUZZ_CHECK(s.traits.quiet.has_value() == s.status.quiet_is_stable);
                for (const auto& n : s.inputs.names()) TYPESTAR_FUZZ_CHECK(!n.empty());
                break;
            }
            case 1: {
                const std::string id = detail::read_session_answer(judged.body, "device fuzz");
                TYPESTAR_FUZZ_CHECK(!id.empty() && id.size() <= 128);
                for (const char c : id) TYPESTAR_FUZZ_CHECK(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~');
                break;
            }
            case 2: {
                const bool is_wait = (selector & 4) != 0;
                const std::uint64_t seq = selector >> 3;
                const Symbol out = detail::read_step_answer(judged.body, seq, is_wait, agent.outputs, "device fuzz");
                TYPESTAR_FUZZ_CHECK(out < agent.outputs.size());
                const bool is_callin_output = out == agent.outputs.at(kOk) || out == agent.outputs.at(kErr);
                TYPESTAR_FUZZ_CHECK(is_wait != is_callin_output);
                TYPESTAR_FUZZ_CHECK(judged.body.at("seq").get<std::uint64_t>() == seq);
                break;
            }
            default: {
                static const std::vector<std::vector<std::string>> kWords{
                    {},
                    {"prepare", "wait", "start"},
                    {"wait", "wait", "wait"},
                    {"start", "prepare", "wait", "wait", "prepare"},
                    {"prepare", "start", "wait", "start", "wait", "wait"},
                };
                const Word word = word_of(kWords[(selector >> 2) % kWords.size()], agent.inputs);
                const auto run = detail::read_run_answer(judged.body, word, agent.traits, agent.outputs);
                if (!run) break;
                TYPESTAR_FUZZ_CHECK(run->outputs.size() == word.size());
                TYPESTAR_FUZZ_CHECK(run->waits <= run->steps && run->steps <= word.size());
                bool absorbed = false;
                for (std::size_t i = 0; i < word.size(); ++i) {
                    const Symbol o = run->outputs[i];
                    TYPESTAR_FUZZ_CHECK(o < agent.outputs.size());
                    if (absorbed) TYPESTAR_FUZZ_CHECK(o == *agent.traits.absorbing);
                    absorbed = absorbed || o == *agent.traits.absorbing;
                    if (!absorbed) {
                        const bool is_callin_output = o == agent.outputs.at(kOk);
                        TYPESTAR_FUZZ_CHECK((word[i] == wait) != is_callin_output);
                    }
                }
                break;
            }
        }
    } catch (const DeviceError& e) {
        TYPESTAR_FUZZ_CHECK(printable_message(e.what()));
        TYPESTAR_FUZZ_CHECK(std::string_view(e.what()).substr(0, 13) == "device fuzz: ");
    }
    return 0;
}

}  // namespace typestar::fuzz
