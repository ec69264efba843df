// Fuzz target body: the agent serving a data device (device/PROTOCOL.md, "Data devices"; issue 26
// item 8) behind its socket — parse_request, then the agent's handler through
// detail::AgentTestAccess — on a started in-process agent serving a small class with `id` and `int`
// parameters, a callback with a value, a refusal and a broken harness step (two callbacks).
// Shared by the libFuzzer entry point and the corpus replay test.
// Input: pipelined HTTP requests (up to 16); "{s}" in a target stands for the last session the
// input created. Sessions created by an input are deleted after it.
// Oracles beyond "no crash": those of agent_handler_target.hpp (checked_answer), and
// a 200 answer to a data step or run names only declared outputs, each with as many integer
// values as the output declares; a run answers one output per input (`steps` = inputs, `waits` 0)
// and the same run sent again answers the same body (a fresh instance each time).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent_handler_target.hpp"
#include "typestar/device/data_purpose.hpp"

namespace typestar::fuzz {

/// Two slots of (key, value); `get` answers through a listener.
struct KeyBox {
    std::shared_ptr<DataCallbackSink> sink;
    std::map<ra::Value, ra::Value> slots;
};

inline DataDefinition keybox_purpose() {
    return DataPurpose<KeyBox>("KeyBox")
        .framework("fuzz")
        .reset([](const std::shared_ptr<DataCallbackSink>& sink) {
            auto box = std::make_shared<KeyBox>();
            box->sink = sink;
            return box;
        })
        .callin("put", {{"k", ra::DataType::Id}, {"v", ra::DataType::Int}},
                [](KeyBox& b, std::span<const ra::Value> v) {
                    if (b.slots.size() >= 2 && b.slots.count(v[0]) == 0) return DataAnswer{"full"};
                    b.slots[v[0]] = v[1];
                    return DataAnswer{"ok"};
                })
        .callin_with_callback("get", {{"k", ra::DataType::Id}},
                              [](KeyBox& b, std::span<const ra::Value> v) {
                                  const auto it = b.slots.find(v[0]);
                                  if (it == b.slots.end()) throw std::out_of_range("no such key");  // refused
                                  b.sink->emit("found", {it->second});
                              })
        .callin("max", {},
                [](KeyBox& b, std::span<const ra::Value>) {
                    if (b.slots.empty()) return DataAnswer{"empty"};
                    ra::Value m = b.slots.begin()->second;
                    for (const auto& [k, v] : b.slots) m = std::max(m, v);
                    return DataAnswer{"top", {m}};
                })
        // A broken harness: two callbacks in one step, a 500 "device error" (never an answer).
        .callin_with_callback("twice", {{"v", ra::DataType::Int}},
                              [](KeyBox& b, std::span<const ra::Value> v) {
                                  b.sink->emit("found", {v[0]});
                                  b.sink->emit("found", {v[0]});
                              })
        .output("ok")
        .output("full")
        .output("empty")
        .output("err")
        .output("top", {{"m", ra::DataType::Int}})
        .callback("found", {{"v", ra::DataType::Int}})
        .constant("zero", ra::DataType::Int, 0)
        .refused_as("err")
        .build();
}

/// One data agent for the whole fuzzing process (started once; its port is never used).
inline Agent& data_agent() {
    static Agent* agent = [] {
        AgentConfig config;
        config.token = "test-token";
        config.max_sessions = 8;
        config.idle_timeout = std::chrono::hours(1);
        auto* a = new Agent(DataDevices{[] { return std::make_unique<InProcessDataDevice>(keybox_purpose()); }},
                            config);
        a->start();
        return a;
    }();
    return *agent;
}

/// Checks `answer` ({"output", "values"}) against the declared outputs.
inline void check_data_output(const nlohmann::json& answer) {
    static const ra::RegisterAutomaton signature = keybox_purpose().signature();
    TYPESTAR_FUZZ_CHECK(answer.is_object());
    TYPESTAR_FUZZ_CHECK(answer.contains("output") && answer["output"].is_string());
    TYPESTAR_FUZZ_CHECK(answer.contains("values") && answer["values"].is_array());
    const auto index = signature.output_index(answer["output"].get<std::string>());
    TYPESTAR_FUZZ_CHECK(index.has_value());
    TYPESTAR_FUZZ_CHECK(answer["values"].size() == signature.outputs[*index].params.size());
    for (const auto& v : answer["values"]) TYPESTAR_FUZZ_CHECK(v.is_number_integer());
}

inline int agent_data_one_input(const std::uint8_t* data, std::size_t size) {
    data_agent();
    std::string_view buffer(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> sessions;
    for (int n = 0; n < 16; ++n) {
        std::optional<detail::HttpRequest> next = next_request(buffer, sessions);
        if (!next) break;
        detail::HttpRequest& request = *next;
        const detail::HttpResponse response = handled(data_agent(), request);
        const nlohmann::json body = checked_answer(response);
        if (response.status >= 400) continue;
        if (response.status == 201) {
            sessions.push_back(body["session"].get<std::string>());
            continue;
        }
        const std::string& path = request.target;
        const bool step = request.method == "POST" && path.size() > 7 && path.rfind("/callin") == path.size() - 7;
        if (step) {
            check_data_output(body);
            TYPESTAR_FUZZ_CHECK(body.contains("seq") && body["seq"].is_number_unsigned());
        } else if (request.method == "POST" && path == "/v1/run") {
            TYPESTAR_FUZZ_CHECK(body.contains("outputs") && body["outputs"].is_array());
            for (const auto& out : body["outputs"]) check_data_output(out);
            const auto inputs = nlohmann::json::parse(request.body, nullptr, false);
            TYPESTAR_FUZZ_CHECK(inputs.is_object() && inputs.contains("inputs") && inputs["inputs"].is_array());
            TYPESTAR_FUZZ_CHECK(body["outputs"].size() == inputs["inputs"].size());
            TYPESTAR_FUZZ_CHECK(body.contains("steps") && body["steps"] == inputs["inputs"].size());
            TYPESTAR_FUZZ_CHECK(body.contains("waits") && body["waits"] == 0);
            // A run starts from a fresh instance: the same run answers the same.
            const detail::HttpResponse again = handled(data_agent(), request);
            TYPESTAR_FUZZ_CHECK(again.status == 200 && again.body == response.body);
        }
    }
    end_sessions(data_agent(), sessions);
    return 0;
}

}  // namespace typestar::fuzz
