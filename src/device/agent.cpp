#include "typestar/device/agent.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "agent_access.hpp"
#include "data_protocol.hpp"
#include "http_server.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/outside_purpose.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

using json = nlohmann::json;
using detail::HttpRequest;
using detail::HttpResponse;
using Clock = std::chrono::steady_clock;

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.device"); }

HttpResponse ok_json(const json& body, int status = 200) {
    HttpResponse r;
    r.status = status;
    r.body = detail::dump_json(body);
    return r;
}

HttpResponse error(int status, const std::string& code, const std::string& message) {
    HttpResponse r = ok_json(detail::error_json(code, message), status);
    if (status == 401) r.headers["WWW-Authenticate"] = "Bearer realm=\"typestar-device\"";
    return r;
}

/// A device's failure as the protocol's error: a broken timing assumption as `timing violation`
/// with its data (the client re-runs the word or names the callback), anything else `device error`.
HttpResponse device_failure(const std::exception& e) {
    if (const auto* timing = dynamic_cast<const TimingError*>(&e))
        return ok_json(detail::timing_violation_json(*timing), 500);
    if (const auto* nd = dynamic_cast<const NondeterminismError*>(&e)) return ok_json(detail::nondeterminism_json(*nd), 500);
    return error(500, "device error", e.what());
}

/// The credentials of `Authorization: <scheme> <credentials>` when the scheme is Bearer, compared
/// case-insensitively (RFC 7235 §2.1); nullopt for another scheme.
std::optional<std::string_view> bearer_credentials(std::string_view value) {
    const auto space = value.find(' ');
    if (space != 6) return std::nullopt;
    static constexpr std::string_view kBearer = "bearer";
    for (std::size_t i = 0; i < kBearer.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(value[i])) != kBearer[i]) return std::nullopt;
    value.remove_prefix(space);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    return value;
}

bool equal_constant_time(std::string_view a, std::string_view b) {
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    const std::size_t n = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
        const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
        diff = static_cast<unsigned char>(diff | (x ^ y));
    }
    return diff == 0;
}

}  // namespace

FaultPlan parse_fault(const std::string& text) {
    FaultPlan plan;
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ':');) parts.push_back(part);
    if (parts.empty() || parts.size() > 3) throw std::invalid_argument("fault '" + text + "': expected KIND[:AFTER[:TIMES]]");
    static const std::map<std::string, FaultPlan::Kind> kinds{{"none", FaultPlan::Kind::None},
                                                              {"crash", FaultPlan::Kind::Crash},
                                                              {"hang", FaultPlan::Kind::Hang},
                                                              {"drop", FaultPlan::Kind::Drop},
                                                              {"garbage", FaultPlan::Kind::Garbage}};
    const auto kind = kinds.find(parts[0]);
    if (kind == kinds.end())
        throw std::invalid_argument("fault '" + text + "': unknown kind '" + parts[0] +
                                    "' (none, crash, hang, drop, garbage)");
    plan.kind = kind->second;
    auto number = [&](const std::string& s, const char* what) {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18)
            throw std::invalid_argument("fault '" + text + "': " + what + " '" + s + "' is not a number");
        return static_cast<std::size_t>(std::stoull(s));
    };
    if (parts.size() > 1) plan.after = number(parts[1], "AFTER");
    if (parts.size() > 2) plan.times = number(parts[2], "TIMES");
    return plan;
}

struct Agent::Impl {
    struct Slot {
        std::unique_ptr<Device> device;
        std::unique_ptr<DataDevice> data;   // set when serving data devices (then device is null)
        InProcessDevice* inproc = nullptr;  // set when made by the InProcessDevice factory: waits of any timeout
        bool busy = false;
        /// The tmax a /v1/run's `timeout_ms` set through Device::override_timing; nullopt: the device's own.
        std::optional<std::chrono::milliseconds> run_tmax;
    };
    struct Session {
        std::string id;
        Slot* slot = nullptr;
        std::mutex mutex;                   // one request at a time
        std::uint64_t next_seq = 0;         // the seq the next new step must carry
        std::optional<HttpResponse> last;   // response to step next_seq - 1 (for retries)
        Clock::time_point last_used = Clock::now();
        bool ended = false;
        Word word;           // the inputs stepped so far (a generic device's confirm_wait replays them)
        bool spent = false;  // a generic device's confirm_wait replaced the session's instance
    };

    Factory factory;
    AnyDevices any;
    DataDevices data;
    AgentConfig config;
    std::unique_ptr<detail::HttpServer> server;

    mutable std::mutex mutex;
    std::vector<std::unique_ptr<Slot>> slots;
    std::map<std::string, std::shared_ptr<Session>> sessions;
    std::map<std::string, std::string> created_by_request;  // request_id -> session id
    json status_body;
    std::mt19937_64 ids{std::random_device{}()};

    std::atomic<std::size_t> fault_counter{0};
    std::atomic<std::size_t> injected{0};
    std::atomic<bool> crashed{false};

    std::mutex reaper_mutex;
    std::condition_variable reaper_wake;
    bool stopping = false;
    std::thread reaper;

    std::unique_ptr<Slot> make_slot() {
        auto slot = std::make_unique<Slot>();
        if (factory) {
            auto d = factory();
            if (!d) throw Error("the device factory returned no device");
            slot->inproc = d.get();
            slot->device = std::move(d);
        } else if (data.make) {
            slot->data = data.make();
            if (!slot->data) throw Error("the data device factory returned no device");
        } else {
            slot->device = any.make();
            if (!slot->device) throw Error("the device factory returned no device");
        }
        return slot;
    }

    Slot* take_slot() {
        std::lock_guard<std::mutex> lock(mutex);
        for (auto& s : slots)
            if (!s->busy) {
                s->busy = true;
                return s.get();
            }
        if (slots.size() >= config.max_sessions) return nullptr;
        auto slot = make_slot();
        slot->busy = true;
        slots.push_back(std::move(slot));
        return slots.back().get();
    }
    void release_slot(Slot* slot) {
        if (slot->device) slot->device->finish();
        std::lock_guard<std::mutex> lock(mutex);
        slot->busy = false;
    }
    std::string new_id() {
        std::lock_guard<std::mutex> lock(mutex);
        std::ostringstream o;
        o << std::hex << ids() << ids();
        return o.str();
    }

    void end_session(Session& s) {
        if (s.ended) return;
        s.ended = true;
        release_slot(s.slot);
    }

    void reap_loop() {
        std::unique_lock<std::mutex> lock(reaper_mutex);
        const auto period = std::max<Clock::duration>(std::chrono::milliseconds(10), config.idle_timeout / 4);
        while (!stopping) {
            reaper_wake.wait_for(lock, period);
            if (stopping) return;
            std::vector<std::shared_ptr<Session>> idle;
            {
                std::lock_guard<std::mutex> l(mutex);
                const auto now = Clock::now();
                for (auto it = sessions.begin(); it != sessions.end();) {
                    std::unique_lock<std::mutex> busy(it->second->mutex, std::try_to_lock);
                    if (busy && now - it->second->last_used > config.idle_timeout) {
                        idle.push_back(it->second);
                        it = sessions.erase(it);
                    } else {
                        ++it;
                    }
                }
            }
            for (auto& s : idle) {
                std::lock_guard<std::mutex> l(s->mutex);
                log()->info("reaping idle session {}", s->id);
                end_session(*s);
            }
        }
    }

    /// The refusal of a request from its headers alone (a browser's Origin, a missing or wrong
    /// token), or nullopt. The server asks before it reads the body (HttpServerConfig::before_body).
    std::optional<HttpResponse> screen(const HttpRequest& req) const {
        if (req.has_header("origin"))  // even an empty one: only browsers send it
            return error(403, "forbidden", "requests with an Origin header are refused (no browser access)");
        const std::string auth = req.header("authorization");
        if (auth.empty()) return error(401, "unauthorized", "missing bearer token");
        const auto credentials = bearer_credentials(auth);
        if (!credentials)
            return error(401, "unauthorized", "not a bearer token (expected `Authorization: Bearer <token>`)");
        if (!equal_constant_time(*credentials, config.token)) return error(401, "unauthorized", "wrong bearer token");
        return std::nullopt;
    }

    HttpResponse handle(const HttpRequest& req) {
        if (auto refusal = screen(req)) return std::move(*refusal);
        if (crashed) {
            HttpResponse r;
            r.fault = HttpResponse::Fault::Drop;
            return r;
        }
        const bool is_status = req.target == "/v1/status";
        bool inject = false;
        if (!is_status && config.fault.kind != FaultPlan::Kind::None) {
            const std::size_t n = fault_counter++;
            inject = n >= config.fault.after && n - config.fault.after < config.fault.times;
        }
        if (inject) {
            ++injected;
            switch (config.fault.kind) {
                case FaultPlan::Kind::Crash:
                    crashed = true;
                    if (config.on_crash) config.on_crash();
                    {
                        HttpResponse r;
                        r.fault = HttpResponse::Fault::Drop;
                        return r;
                    }
                case FaultPlan::Kind::Hang:
                    std::this_thread::sleep_for(config.fault.hang);
                    break;
                default:
                    break;
            }
        }
        HttpResponse r = route(req);
        if (inject && config.fault.kind == FaultPlan::Kind::Drop) r.fault = HttpResponse::Fault::Drop;
        if (inject && config.fault.kind == FaultPlan::Kind::Garbage) r.fault = HttpResponse::Fault::Garbage;
        return r;
    }

    HttpResponse route(const HttpRequest& req) {
        const std::string& t = req.target;
        if (t == "/v1/status") {
            if (req.method != "GET") return error(405, "unknown method", req.method + " " + t);
            json body = status_body;
            body["sessions"] = sessions_alive();
            return ok_json(body);
        }
        json body;
        if (req.method == "POST") {
            const std::string_view text = req.body.empty() ? std::string_view("{}") : std::string_view(req.body);
            if (detail::json_nests_deeper_than(text, detail::kMaxJsonDepth))
                return error(400, "invalid argument",
                             "the request body nests JSON deeper than " + std::to_string(detail::kMaxJsonDepth) +
                                 " levels");
            body = detail::parse_json(text);
            if (body.is_discarded() || !body.is_object())
                return error(400, "invalid argument", "the request body is not a JSON object");
        }
        if (t == "/v1/run") {
            if (req.method != "POST") return error(405, "unknown method", req.method + " " + t);
            return run(body);
        }
        if (t == "/v1/sessions") {
            if (req.method != "POST") return error(405, "unknown method", req.method + " " + t);
            return create(body);
        }
        const std::string prefix = "/v1/sessions/";
        if (t.rfind(prefix, 0) == 0) {
            std::string rest = t.substr(prefix.size());
            std::string action;
            if (const auto slash = rest.find('/'); slash != std::string::npos) {
                action = rest.substr(slash + 1);
                rest.erase(slash);
            }
            std::shared_ptr<Session> s;
            {
                std::lock_guard<std::mutex> lock(mutex);
                const auto it = sessions.find(rest);
                if (it != sessions.end()) s = it->second;
            }
            if (!s) return error(404, "invalid session id", "no session '" + rest + "' (ended or reaped)");
            if (action.empty()) {
                if (req.method != "DELETE") return error(405, "unknown method", req.method + " " + t);
                return remove(s);
            }
            if (req.method != "POST") return error(405, "unknown method", req.method + " " + t);
            if (action == "callin" || action == "wait") return step(*s, action == "wait", body);
        }
        return error(404, "unknown command", req.method + " " + t);
    }

    std::size_t sessions_alive() const {
        std::lock_guard<std::mutex> lock(mutex);
        return sessions.size();
    }

    HttpResponse create(const json& body) {
        std::string request_id;
        if (body.contains("request_id")) {
            // Bounded: the agent remembers up to 4096 of them.
            if (!body["request_id"].is_string() || body["request_id"].get_ref<const std::string&>().size() > 256)
                return error(400, "invalid argument", "request_id must be a string of at most 256 bytes");
            request_id = body["request_id"].get<std::string>();
            std::lock_guard<std::mutex> lock(mutex);
            const auto it = created_by_request.find(request_id);
            if (it != created_by_request.end() && sessions.count(it->second) != 0)
                return ok_json({{"session", it->second}, {"seq", 0}}, 201);  // a retried create
        }
        Slot* slot = take_slot();
        if (slot == nullptr)
            return error(503, "session not created",
                         "all " + std::to_string(config.max_sessions) + " instances are in use");
        try {
            if (slot->data)
                slot->data->reset();
            else {
                use_tmax(*slot, std::nullopt);  // a session's steps wait with the status tmax
                slot->device->reset();
            }
        } catch (const TimingError& e) {  // a violation of an earlier session's query, found now
            release_slot(slot);
            return ok_json(detail::timing_violation_json(e), 500);
        } catch (const std::exception& e) {
            release_slot(slot);
            return error(500, "session not created", e.what());
        }
        auto s = std::make_shared<Session>();
        s->id = new_id();
        s->slot = slot;
        std::lock_guard<std::mutex> lock(mutex);
        sessions[s->id] = s;
        if (!request_id.empty()) {
            if (created_by_request.size() > 4096) created_by_request.clear();
            created_by_request[request_id] = s->id;
        }
        return ok_json({{"session", s->id}, {"seq", 0}}, 201);
    }

    HttpResponse remove(const std::shared_ptr<Session>& s) {
        std::lock_guard<std::mutex> l(s->mutex);
        {
            std::lock_guard<std::mutex> lock(mutex);
            sessions.erase(s->id);
        }
        end_session(*s);
        return ok_json({{"session", s->id}, {"deleted", true}});
    }

    std::chrono::milliseconds status_tmax_{0};  // the device's, as /v1/status says
    std::chrono::milliseconds status_tmin_{0};
    std::chrono::milliseconds status_tmax() const { return status_tmax_; }
    bool run_timeout = false;  // status `run_timeout`: the device takes override_timing

    /// Makes the slot's device wait `tmax` (nullopt: the status tmax) through Device::override_timing,
    /// only when that changes what is in force (a client sends the same timeout with every run).
    void use_tmax(Slot& slot, std::optional<std::chrono::milliseconds> tmax) {
        if (tmax == status_tmax_) tmax.reset();
        if (tmax == slot.run_tmax) return;
        TimingOverride o;
        o.tmax = tmax.value_or(status_tmax_);
        o.tmin = status_tmin_;
        o.origin = "timeout_ms of POST /v1/run";
        (void)slot.device->override_timing(o);
        slot.run_tmax = tmax;
    }

    HttpResponse step(Session& s, bool is_wait, const json& body) {
        std::lock_guard<std::mutex> l(s.mutex);
        s.last_used = Clock::now();
        if (s.ended) return error(404, "invalid session id", "session '" + s.id + "' has ended");
        if (!body.contains("seq") || !body["seq"].is_number_unsigned())
            return error(400, "invalid argument", "seq (a non-negative integer) is required");
        const auto seq = body["seq"].get<std::uint64_t>();
        if (s.last && seq + 1 == s.next_seq) return *s.last;  // a retry: answer it again
        if (seq != s.next_seq)
            return error(409, "sequence mismatch",
                         "expected seq " + std::to_string(s.next_seq) + ", got " + std::to_string(seq));
        if (s.slot->data) return data_step(s, is_wait, body, seq);
        if (s.spent)
            return error(409, "session spent",
                         "a wait with timeout_ms ran in a fresh instance (the device's confirm_wait); create a new "
                         "session");
        Device& d = *s.slot->device;
        Symbol output = 0;
        try {
            if (is_wait) {
                const auto wait = d.inputs().find(kWait);
                if (!wait) return error(400, "invalid argument", "the device has no wait input");
                const auto tmax = status_tmax();
                auto timeout = tmax;
                if (body.contains("timeout_ms")) {
                    if (!body["timeout_ms"].is_number_unsigned() || body["timeout_ms"].get<std::uint64_t>() > 3600000)
                        return error(400, "invalid argument", "timeout_ms must be an integer in [0, 3600000]");
                    timeout = std::chrono::milliseconds(body["timeout_ms"].get<std::int64_t>());
                }
                if (s.slot->inproc != nullptr) {
                    output = s.slot->inproc->step_wait(timeout);
                } else if (timeout == tmax) {
                    output = d.step(*wait);
                } else if (const auto confirmed = d.confirm_wait(s.word, timeout)) {
                    output = *confirmed;  // ran in a fresh instance, which confirm_wait ended
                    s.spent = true;
                } else {
                    output = d.step(*wait);  // no real time: the timeout changes nothing
                }
                s.word.push_back(*wait);
            } else {
                if (!body.contains("callin") || !body["callin"].is_string())
                    return error(400, "invalid argument", "callin (a string) is required");
                const auto name = body["callin"].get<std::string>();
                const auto id = d.inputs().find(name);
                if (!id || name == kWait) return error(400, "invalid argument", "unknown callin '" + detail::clipped(name) + "'");
                output = d.step(*id);
                s.word.push_back(*id);
            }
        } catch (const std::exception& e) {
            s.last = device_failure(e);
            ++s.next_seq;
            return *s.last;
        }
        if (d.outputs().name(output) == kOutsidePurpose)  // PROTOCOL.md: err, marked outside the purpose
            s.last = ok_json({{"seq", seq}, {"output", kErr}, {"outside_purpose", true}});
        else
            s.last = ok_json({{"seq", seq}, {"output", d.outputs().name(output)}});
        ++s.next_seq;
        return *s.last;
    }

    /// A data input from `{"callin": NAME, "values": [...]}` (a plain string: a callin without
    /// parameters); an empty string and the input, or what is wrong.
    static std::string data_input(const DataDevice& d, const json& item, ra::DataSymbol& input) {
        const json* name = &item;
        const json* values = nullptr;
        if (item.is_object()) {
            const auto it = item.find("callin");
            name = it == item.end() ? nullptr : &*it;
            if (const auto v = item.find("values"); v != item.end()) values = &*v;
        }
        if (name == nullptr || !name->is_string()) return "callin (a string) is required";
        const auto index = d.signature().input_index(name->get<std::string>());
        if (!index) return "unknown callin " + detail::shown_json(*name);
        input.symbol = *index;
        return detail::read_values(values, d.signature().inputs[*index], input.values);
    }

    static json data_output(const DataDevice& d, const ra::DataSymbol& out) {
        return {{"output", d.signature().outputs.at(out.symbol).name}, {"values", out.values}};
    }

    HttpResponse data_step(Session& s, bool is_wait, const json& body, std::uint64_t seq) {
        if (is_wait) return error(400, "invalid argument", "a data device has no wait: every callin answers one output");
        DataDevice& d = *s.slot->data;
        ra::DataSymbol input;
        if (const std::string why = data_input(d, body, input); !why.empty()) return error(400, "invalid argument", why);
        try {
            const ra::DataSymbol out = d.step(input);
            json answer = data_output(d, out);
            answer["seq"] = seq;
            s.last = ok_json(answer);
        } catch (const std::exception& e) {
            s.last = error(500, "device error", e.what());
        }
        ++s.next_seq;
        return *s.last;
    }

    HttpResponse data_run(const json& body) {
        if (!body.contains("inputs") || !body["inputs"].is_array())
            return error(400, "invalid argument", "inputs (an array of {\"callin\", \"values\"}) is required");
        Slot* slot = take_slot();
        if (slot == nullptr)
            return error(503, "session not created",
                         "all " + std::to_string(config.max_sessions) + " instances are in use");
        DataDevice& d = *slot->data;
        ra::DataWord word;
        for (const auto& item : body["inputs"]) {
            ra::DataSymbol input;
            if (const std::string why = data_input(d, item, input); !why.empty()) {
                release_slot(slot);
                return error(400, "invalid argument", why);
            }
            word.push_back(std::move(input));
        }
        try {
            d.reset();
            json outputs = json::array();
            for (const auto& in : word) outputs.push_back(data_output(d, d.step(in)));
            release_slot(slot);
            return ok_json({{"outputs", outputs}, {"steps", word.size()}, {"waits", 0}});
        } catch (const std::exception& e) {
            release_slot(slot);
            return error(500, "device error", e.what());
        }
    }

    /// Binds and starts the server and the reaper (the end of Agent::start).
    void serve() {
        detail::HttpServerConfig sc;
        sc.host = config.host;
        sc.port = config.port;
        sc.limits.max_header_bytes = config.max_header_bytes;
        sc.limits.max_body_bytes = config.max_body_bytes;
        sc.max_connections = config.max_connections;
        sc.idle_timeout = config.connection_timeout;
        sc.before_body = [this](const HttpRequest& r) { return screen(r); };
        server = std::make_unique<detail::HttpServer>(sc, [this](const HttpRequest& r) { return handle(r); });
        try {
            server->start();
        } catch (const std::exception& e) {
            throw Error(std::string("typestar-device: ") + e.what());
        }
        reaper = std::thread([this] { reap_loop(); });
    }

    HttpResponse run(const json& body) {
        if (data.make) return data_run(body);
        if (!body.contains("inputs") || !body["inputs"].is_array())
            return error(400, "invalid argument", "inputs (an array of input names) is required");
        Slot* slot = take_slot();
        if (slot == nullptr)
            return error(503, "session not created",
                         "all " + std::to_string(config.max_sessions) + " instances are in use");
        Device& d = *slot->device;
        std::optional<std::chrono::milliseconds> timeout;
        if (body.contains("timeout_ms")) {
            const json& t = body["timeout_ms"];
            if (!run_timeout || !t.is_number_unsigned() || t.get<std::uint64_t>() > 3600000 ||
                t.get<std::int64_t>() < status_tmin_.count()) {
                release_slot(slot);
                return error(400, "invalid argument",
                             run_timeout ? "timeout_ms must be an integer in [" + std::to_string(status_tmin_.count()) +
                                               " (tmin), 3600000]"
                                         : "this device cannot take timeout_ms on /v1/run (status run_timeout)");
            }
            timeout = std::chrono::milliseconds(t.get<std::int64_t>());
        }
        Word word;
        for (const auto& name : body["inputs"]) {
            const auto id = name.is_string() ? d.inputs().find(name.get<std::string>()) : std::nullopt;
            if (!id) {
                release_slot(slot);
                return error(400, "invalid argument", "unknown input " + detail::shown_json(name));
            }
            word.push_back(*id);
        }
        try {
            use_tmax(*slot, timeout);
            const RunResult r = run_with_timing_retries(d, word);  // past a late callback (TimingError)
            release_slot(slot);
            json answer{{"outputs", names_of(r.outputs, d.outputs())}, {"steps", r.steps}, {"waits", r.waits}};
            for (std::size_t k = 0; k < r.outputs.size(); ++k)
                if (answer["outputs"][k] == kOutsidePurpose) {  // PROTOCOL.md: err, its index marked
                    answer["outputs"][k] = kErr;
                    answer["outside_purpose"] = k;
                }
            return ok_json(answer);
        } catch (const std::exception& e) {
            release_slot(slot);
            return device_failure(e);
        }
    }
};

Agent::Agent(Factory factory, AgentConfig config) : impl_(std::make_unique<Impl>()) {
    if (!factory) throw std::invalid_argument("the agent needs a device factory");
    if (config.token.empty()) throw std::invalid_argument("the agent needs a bearer token");
    if (config.max_connections == 0) throw std::invalid_argument("the agent needs max_connections >= 1");
    if (config.connection_timeout <= std::chrono::milliseconds(0))
        throw std::invalid_argument("the agent needs a positive connection_timeout");
    impl_->factory = std::move(factory);
    impl_->config = std::move(config);
}

Agent::Agent(AnyDevices devices, AgentConfig config) : impl_(std::make_unique<Impl>()) {
    if (!devices.make) throw std::invalid_argument("the agent needs a device factory");
    if (config.token.empty()) throw std::invalid_argument("the agent needs a bearer token");
    if (config.max_connections == 0) throw std::invalid_argument("the agent needs max_connections >= 1");
    if (config.connection_timeout <= std::chrono::milliseconds(0))
        throw std::invalid_argument("the agent needs a positive connection_timeout");
    impl_->any = std::move(devices);
    impl_->config = std::move(config);
}

Agent::Agent(DataDevices devices, AgentConfig config) : impl_(std::make_unique<Impl>()) {
    if (!devices.make) throw std::invalid_argument("the agent needs a data device factory");
    if (config.token.empty()) throw std::invalid_argument("the agent needs a bearer token");
    if (config.max_connections == 0) throw std::invalid_argument("the agent needs max_connections >= 1");
    if (config.connection_timeout <= std::chrono::milliseconds(0))
        throw std::invalid_argument("the agent needs a positive connection_timeout");
    impl_->data = std::move(devices);
    impl_->config = std::move(config);
}

Agent::~Agent() { stop(); }

void Agent::start() {
    Impl& m = *impl_;
    auto first = m.make_slot();
    if (first->data) {
        const DataDevice& dd = *first->data;
        const ra::RegisterAutomaton& sig = dd.signature();
        std::vector<std::string> callins;
        for (const auto& i : sig.inputs) callins.push_back(i.name);
        const DeviceDescription who = dd.describe();
        m.status_body = {{"protocol", detail::kProtocol},
                         {"agent", "typestar-device"},
                         {"name", who.class_name.empty() ? dd.name() : who.class_name},
                         {"framework", who.framework},
                         {"callins", callins},
                         {"callbacks", json::array()},
                         {"timing", {{"tmax_ms", 0}, {"tmin_ms", 0}}},
                         {"quiet_is_stable", false},
                         {"data", detail::data_signature_json(sig)},
                         {"max_sessions", m.config.max_sessions}};
        m.slots.push_back(std::move(first));
        m.serve();
        return;
    }
    const Device& d = *first->device;
    std::vector<std::string> callins;
    for (const auto& name : d.inputs().names())
        if (name != kWait) callins.push_back(name);
    // A device without `wait` is a Mealy device (PROTOCOL.md, "Mealy devices"): its outputs besides
    // ok/err are named callin outputs, not callbacks.
    const bool has_wait = d.inputs().contains(kWait);
    std::vector<std::string> callbacks;
    for (const auto& name : d.outputs().names())
        if (name != kOk && name != kQuiet && name != kErr && name != kOutsidePurpose) callbacks.push_back(name);
    std::vector<std::string> named_outputs;
    if (!has_wait) named_outputs.swap(callbacks);
    const DeviceDescription who = d.describe();
    long long tmax = 0, tmin = 0;
    if (first->inproc != nullptr) {
        tmax = first->inproc->timing().tmax.count();
        tmin = first->inproc->timing().tmin.count();
    } else {
        if (who.tmax_ms) tmax = std::llround(*who.tmax_ms);
        if (who.tmin_ms) tmin = std::llround(*who.tmin_ms);
    }
    m.status_tmax_ = std::chrono::milliseconds(tmax);
    m.status_tmin_ = std::chrono::milliseconds(tmin);
    // /v1/run takes `timeout_ms` when the device takes a timing override (an empty one says whether
    // it does, changing nothing) and has a wait.
    m.run_timeout = has_wait && first->device->override_timing(TimingOverride{});
    m.status_body = {{"protocol", detail::kProtocol},
                     {"agent", "typestar-device"},
                     {"name", first->inproc != nullptr ? first->inproc->definition().name
                                                       : (who.class_name.empty() ? d.name() : who.class_name)},
                     {"framework", first->inproc != nullptr ? first->inproc->definition().framework : who.framework},
                     {"callins", callins},
                     {"callbacks", callbacks},
                     {"timing", {{"tmax_ms", tmax}, {"tmin_ms", tmin}}},
                     {"quiet_is_stable", d.traits().quiet.has_value()},
                     {"max_sessions", m.config.max_sessions}};
    if (m.run_timeout) m.status_body["run_timeout"] = true;  // additive field
    // Additive fields (Mealy devices): no wait input, named outputs, err not absorbing; absent otherwise.
    if (!has_wait) {
        m.status_body["wait"] = false;
        m.status_body["outputs"] = named_outputs;
    }
    if (const auto absorbing = d.traits().absorbing; !absorbing || d.outputs().name(*absorbing) != kErr)
        m.status_body["absorbing"] = json::array();
    // Additive field: absent when the device declares no environment callin (older statuses unchanged).
    if (!who.environment.empty()) m.status_body["environment"] = who.environment;
    // Additive field: its learning purpose may deny callins (answered err, marked outside_purpose).
    if (d.outputs().contains(kOutsidePurpose)) m.status_body["outside_purpose"] = true;
    m.slots.push_back(std::move(first));
    // Additive field (device/PROTOCOL.md): the parameterised callins, absent when there are none.
    if (!who.parameterised.empty()) {
        json parameters = json::array();
        for (const auto& p : who.parameterised) {
            json signature = json::array();
            for (const auto& [name, type] : p.parameters) signature.push_back(json::array({name, type}));
            json partitions = json::array();
            for (const auto& part : p.partitions) {
                json values = json::array();
                for (const auto& v : part.values) values.push_back({{"input", v.input}, {"value", v.value}});
                partitions.push_back({{"name", part.name}, {"guard", part.guard}, {"values", values}});
            }
            parameters.push_back({{"callin", p.callin}, {"signature", signature}, {"partitions", partitions}});
        }
        m.status_body["parameters"] = parameters;
    }
    m.serve();
}

void Agent::stop() {
    Impl& m = *impl_;
    if (m.server) m.server->stop();
    {
        std::lock_guard<std::mutex> lock(m.reaper_mutex);
        m.stopping = true;
    }
    m.reaper_wake.notify_all();
    if (m.reaper.joinable()) m.reaper.join();
    std::map<std::string, std::shared_ptr<Impl::Session>> left;
    {
        std::lock_guard<std::mutex> lock(m.mutex);
        left.swap(m.sessions);
    }
    for (auto& [id, s] : left) {
        std::lock_guard<std::mutex> l(s->mutex);
        m.end_session(*s);
    }
}

std::uint16_t Agent::port() const noexcept { return impl_->server ? impl_->server->port() : 0; }

std::string Agent::url() const {
    const std::string& host = impl_->config.host;
    const bool v6 = host.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port());
}

std::size_t Agent::sessions() const { return impl_->sessions_alive(); }

std::size_t Agent::faults_injected() const { return impl_->injected; }

std::unique_ptr<Agent> make_agent(DeviceKind kind, std::function<OpenedDevice()> make, AgentConfig config) {
    if (kind == DeviceKind::Data)
        return std::make_unique<Agent>(DataDevices{[make] {
                                           OpenedDevice d = make();
                                           if (!d.data) throw DeviceError("no data device to serve");
                                           return std::move(d.data);
                                       }},
                                       std::move(config));
    return std::make_unique<Agent>(AnyDevices{[make] {
                                       OpenedDevice d = make();
                                       if (!d.typestate) throw DeviceError("no device to serve");
                                       return std::move(d.typestate);
                                   }},
                                   std::move(config));
}

}  // namespace typestar

namespace typestar::detail {

HttpResponse AgentTestAccess::handle(Agent& agent, const HttpRequest& request) { return agent.impl_->handle(request); }

}  // namespace typestar::detail
