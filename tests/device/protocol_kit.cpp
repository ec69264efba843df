// The protocol conformance kit's cases (see protocol_kit.hpp): one agent process per case, spoken to
// over loopback with raw bytes (requests curl would not send) and libcurl. Only exact texts
// PROTOCOL.md fixes are compared (error codes, the depth message), never an agent's own wording.
#include "protocol_kit.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "http_answers.hpp"
#include "http_support.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/http_device.hpp"

namespace typestar::protocol_kit {

std::string kit_name(const ::testing::TestParamInfo<KitAgent>& info) { return info.param.name; }

namespace {

using json = nlohmann::json;
using testing_support::body_of;
using testing_support::RawConnection;
using testing_support::RawReply;
using testing_support::status_of;
using namespace std::chrono_literals;

const std::string kAuth = std::string("Authorization: Bearer ") + kKitToken + "\r\n";

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// The agent of the case, started with `more` options; its URL and port.
class Running {
public:
    Running(const KitAgent& agent, const std::vector<std::string>& more) {
        std::vector<std::string> args = agent.command;
        args.insert(args.end(), more.begin(), more.end());
        child_ = std::make_unique<testing_support::ChildProcess>(
            args, std::vector<std::string>{std::string("TYPESTAR_DEVICE_TOKEN=") + kKitToken});
        const std::string& line = child_->first_line();
        const auto at = line.find("http://");
        if (at == std::string::npos) return;
        url_ = line.substr(at, line.find_first_of(" \r\n", at) - at);
        port_ = static_cast<std::uint16_t>(std::stoi(url_.substr(url_.rfind(':') + 1)));
    }
    [[nodiscard]] const std::string& url() const { return url_; }
    [[nodiscard]] std::uint16_t port() const { return port_; }
    [[nodiscard]] const std::string& first_line() const { return child_->first_line(); }

private:
    std::unique_ptr<testing_support::ChildProcess> child_;
    std::string url_;
    std::uint16_t port_ = 0;
};

/// One request on a fresh connection; the whole answer (read until the agent closes or 3 s pass).
std::string exchange(std::uint16_t port, const std::string& request) {
    RawConnection c(port);
    c.send(request);
    return c.read_until_closed();
}

std::string get_status(const std::string& headers, const std::string& version = "HTTP/1.1") {
    return "GET /v1/status " + version + "\r\nHost: x\r\nConnection: close\r\n" + headers + "\r\n";
}

std::string post(const std::string& path, const std::string& body, const std::string& headers = kAuth) {
    return "POST " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

/// The header block of a raw answer, lower-cased.
std::string headers_of(const std::string& answer) { return lower(answer.substr(0, answer.find("\r\n\r\n"))); }

/// Checks that a raw answer is PROTOCOL.md's JSON error `status` with error code `code`.
::testing::AssertionResult is_error(const std::string& answer, int status, const std::string& code) {
    if (status_of(answer) != status)
        return ::testing::AssertionFailure() << "expected HTTP " << status << ", got: " << answer.substr(0, 400);
    if (headers_of(answer).find("content-type: application/json") == std::string::npos)
        return ::testing::AssertionFailure() << "not Content-Type: application/json: " << answer.substr(0, 400);
    const json body = json::parse(body_of(answer), nullptr, false);
    if (body.is_discarded() || !body.is_object() || !body.contains("value") || !body["value"].is_object())
        return ::testing::AssertionFailure() << "not a JSON error body: " << body_of(answer).substr(0, 400);
    const json& v = body["value"];
    if (!v.contains("error") || v["error"] != code || !v.contains("message") || !v["message"].is_string() ||
        !v.contains("stacktrace") || !v["stacktrace"].is_string())
        return ::testing::AssertionFailure() << "expected error '" << code << "' with message and stacktrace: " << v.dump();
    return ::testing::AssertionSuccess();
}

/// The same for an answer from libcurl.
::testing::AssertionResult is_error(const RawReply& reply, int status, const std::string& code) {
    return is_error("HTTP/1.1 " + std::to_string(reply.status) + " x\r\n" + reply.headers.substr(reply.headers.find("\r\n") + 2) +
                        (reply.headers.find("\r\n\r\n") == std::string::npos ? "\r\n\r\n" : "") + reply.body,
                    status, code);
}

testing_support::RawReply authorized(const std::string& method, const std::string& url, const std::string& body = "") {
    return testing_support::authorized_request(kKitToken, method, url, body, 10000);
}

bool still_serves(const Running& agent) { return authorized("GET", agent.url() + "/v1/status").status == 200; }

#define KIT_START(var, ...)                                          \
    Running var(GetParam(), std::vector<std::string>{__VA_ARGS__}); \
    ASSERT_FALSE(var.url().empty()) << GetParam().name << " did not start serving: " << var.first_line()

}  // namespace

// ---- /v1/status ----

TEST_P(ProtocolKit, StatusDeclaresEveryProtocolField) {
    KIT_START(agent);
    const auto reply = authorized("GET", agent.url() + "/v1/status");
    ASSERT_EQ(reply.status, 200) << reply.body;
    EXPECT_NE(lower(reply.headers).find("content-type: application/json"), std::string::npos) << reply.headers;
    const json s = json::parse(reply.body);
    EXPECT_EQ(s.value("protocol", ""), "typestar-device/1");
    for (const char* field : {"agent", "name", "framework"})
        EXPECT_TRUE(s.contains(field) && s[field].is_string() && !s[field].get<std::string>().empty()) << field;
    std::vector<std::string> names;
    for (const char* field : {"callins", "callbacks"}) {
        ASSERT_TRUE(s.contains(field) && s[field].is_array()) << field;
        for (const auto& n : s[field]) {
            ASSERT_TRUE(n.is_string()) << field;
            const std::string name = n;
            EXPECT_FALSE(name.empty()) << field;
            EXPECT_TRUE(std::none_of(name.begin(), name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }));
            for (const char* reserved : {"ok", "quiet", "err", "wait"}) EXPECT_NE(name, reserved) << field;
            EXPECT_EQ(std::count(names.begin(), names.end(), name), 0) << name << " twice";
            names.push_back(name);
        }
    }
    EXPECT_FALSE(s["callins"].empty());
    ASSERT_TRUE(s.contains("timing") && s["timing"].is_object());
    const json& t = s["timing"];
    ASSERT_TRUE(t.contains("tmax_ms") && t["tmax_ms"].is_number_integer() && t.contains("tmin_ms") &&
                t["tmin_ms"].is_number_integer());
    EXPECT_GE(t["tmin_ms"].get<long long>(), 0);
    EXPECT_LE(t["tmin_ms"].get<long long>(), t["tmax_ms"].get<long long>());
    EXPECT_LE(t["tmax_ms"].get<long long>(), 3600000);
    if (s.contains("quiet_is_stable")) {
        EXPECT_TRUE(s["quiet_is_stable"].is_boolean());
    }
    EXPECT_TRUE(s.contains("max_sessions") && s["max_sessions"].is_number_unsigned() && s["max_sessions"] >= 1);
    EXPECT_TRUE(s.contains("sessions") && s["sessions"].is_number_unsigned());
    // The client reads it.
    HttpConfig c;
    c.url = agent.url();
    c.token = kKitToken;
    HttpDevice device(c);
    EXPECT_EQ(device.status().protocol, "typestar-device/1");
    EXPECT_EQ(device.status().name, s["name"]);
}

// ---- /v1/run with the wait timeout (status run_timeout, issue 38 item 6) ----

TEST_P(ProtocolKit, ARunWaitsTheTimeoutItCarries) {
    KIT_START(agent);
    const json s = json::parse(authorized("GET", agent.url() + "/v1/status").body);
    HttpConfig c;
    c.url = agent.url();
    c.token = kKitToken;
    const long long tmax = s["timing"]["tmax_ms"];
    const auto longer = std::chrono::milliseconds(tmax + 500);
    TimingOverride o;
    o.tmax = longer;
    HttpDevice device(c);
    ASSERT_TRUE(device.override_timing(o));
    const Word lone_wait{*device.inputs().find("wait")};
    if (!s.contains("run_timeout")) {
        // An agent without the field: an override goes step by step (create, wait, delete).
        const auto before = device.requests();
        EXPECT_EQ(device.outputs().name(device.run(lone_wait).outputs.at(0)), "quiet");
        EXPECT_EQ(device.requests(), before + 3);
        GTEST_SKIP() << GetParam().name << " does not declare run_timeout: checked that an override goes step by step";
    }
    ASSERT_EQ(s["run_timeout"], true);
    for (const char* body : {R"({"inputs":["wait"],"timeout_ms":"30"})", R"({"inputs":["wait"],"timeout_ms":-1})",
                             R"({"inputs":["wait"],"timeout_ms":3600001})", R"({"inputs":["wait"],"timeout_ms":1.5})"})
        EXPECT_TRUE(is_error(authorized("POST", agent.url() + "/v1/run", body), 400, "invalid argument")) << body;
    if (const long long tmin = s["timing"]["tmin_ms"]; tmin > 0) {  // tmin stays the agent's
        const std::string below = R"({"inputs":["wait"],"timeout_ms":)" + std::to_string(tmin - 1) + "}";
        EXPECT_TRUE(is_error(authorized("POST", agent.url() + "/v1/run", below), 400, "invalid argument")) << below;
    }
    // A lone wait hears nothing: it answers quiet after the run's timeout_ms, not the agent's tmax.
    auto start = std::chrono::steady_clock::now();
    const auto raw = authorized("POST", agent.url() + "/v1/run",
                                R"({"inputs":["wait"],"timeout_ms":)" + std::to_string(longer.count()) + "}");
    EXPECT_GE(std::chrono::steady_clock::now() - start, longer);
    EXPECT_EQ(json::parse(raw.body), json::parse(R"({"outputs":["quiet"],"steps":1,"waits":1})")) << raw.body;
    // HttpDevice with an override: one request per query, carrying the override.
    auto before = device.requests();
    start = std::chrono::steady_clock::now();
    EXPECT_EQ(device.outputs().name(device.run(lone_wait).outputs.at(0)), "quiet");
    EXPECT_GE(std::chrono::steady_clock::now() - start, longer);
    EXPECT_EQ(device.requests(), before + 1);
    // The same agent read as one from before the field: step by step, the same answer.
    json old_status = s;
    old_status.erase("run_timeout");
    HttpDevice old(c, detail::read_status_answer(old_status, "device " + agent.url()));
    ASSERT_TRUE(old.override_timing(o));
    before = old.requests();
    start = std::chrono::steady_clock::now();
    EXPECT_EQ(old.outputs().name(old.run(lone_wait).outputs.at(0)), "quiet");
    EXPECT_GE(std::chrono::steady_clock::now() - start, longer);
    EXPECT_EQ(old.requests(), before + 3);
}

// ---- learning purposes (issue 25 item 5) ----

TEST_P(ProtocolKit, CallinsOutsideTheLearningPurposeAreMarkedApartFromErr) {
    KitAgent restricted = GetParam();
    if (restricted.outside_word.empty()) GTEST_SKIP() << restricted.skip_why;
    if (!restricted.purpose_command.empty()) restricted.command = restricted.purpose_command;
    const Running agent(restricted, {});
    ASSERT_FALSE(agent.url().empty()) << restricted.name << " did not start serving: " << agent.first_line();
    const std::vector<std::string>& word = restricted.outside_word;
    const json s = json::parse(authorized("GET", agent.url() + "/v1/status").body);
    EXPECT_EQ(s.value("outside_purpose", false), true) << s.dump();
    for (const auto& c : s["callbacks"]) EXPECT_NE(c, "unknown:purpose");
    // One step at a time: the denied callin answers err marked outside_purpose; later steps a plain err.
    const auto created = authorized("POST", agent.url() + "/v1/sessions", "{}");
    ASSERT_EQ(created.status, 201) << created.body;
    const std::string steps = agent.url() + "/v1/sessions/" + json::parse(created.body)["session"].get<std::string>() + "/callin";
    for (std::size_t k = 0; k <= word.size(); ++k) {
        const std::string callin = k < word.size() ? word[k] : word.front();
        const auto r = authorized("POST", steps, json{{"seq", k}, {"callin", callin}}.dump());
        ASSERT_EQ(r.status, 200) << r.body;
        const json a = json::parse(r.body);
        EXPECT_EQ(a["seq"], k);
        if (k + 1 == word.size()) {
            EXPECT_EQ(a, json({{"seq", k}, {"output", "err"}, {"outside_purpose", true}})) << callin;
        } else {
            EXPECT_FALSE(a.contains("outside_purpose")) << k << ": " << a.dump();
            if (k == word.size()) {
                EXPECT_EQ(a["output"], "err") << "after the denied callin";
            }
        }
    }
    // A whole run marks the index of the denied callin; its output and the rest are err.
    json inputs = word;
    inputs.push_back(word.front());
    const auto run = authorized("POST", agent.url() + "/v1/run", json{{"inputs", inputs}}.dump());
    ASSERT_EQ(run.status, 200) << run.body;
    const json r = json::parse(run.body);
    EXPECT_EQ(r["outside_purpose"], word.size() - 1) << r.dump();
    EXPECT_EQ(r["outputs"][word.size() - 1], "err");
    EXPECT_EQ(r["outputs"][word.size()], "err");
    // The client reads both as the output unknown:purpose, never as the class's err.
    for (const bool batch : {true, false}) {
        HttpConfig c;
        c.url = agent.url();
        c.token = kKitToken;
        c.batch = batch;
        HttpDevice device(c);
        Word w;
        for (const auto& n : word) w.push_back(device.inputs().at(n));
        const Word out = device.run(w).outputs;
        EXPECT_EQ(device.outputs().name(out.back()), "unknown:purpose") << "batch " << batch;
    }
}

// ---- errors ----

TEST_P(ProtocolKit, ErrorsAreWebDriverStyleJson) {
    KIT_START(agent);
    EXPECT_TRUE(is_error(authorized("POST", agent.url() + "/v1/sessions/nope/callin", R"({"seq":0,"callin":"x"})"), 404,
                         "invalid session id"));
    EXPECT_TRUE(is_error(authorized("GET", agent.url() + "/v1/teapot"), 404, "unknown command"));
    EXPECT_TRUE(is_error(authorized("GET", agent.url() + "/v1/run"), 405, "unknown method"));
    const auto unknown = authorized("POST", agent.url() + "/v1/run", R"({"inputs":["fly"]})");
    EXPECT_TRUE(is_error(unknown, 400, "invalid argument"));
    for (const std::string body : {"inputs=x", "[1]", "{\"inputs\":[]} trailing", "{inputs:[]}"})
        EXPECT_TRUE(is_error(authorized("POST", agent.url() + "/v1/run", body), 400, "invalid argument")) << body;
    const auto created = authorized("POST", agent.url() + "/v1/sessions", "{}");
    ASSERT_EQ(created.status, 201) << created.body;
    const std::string id = json::parse(created.body)["session"];
    EXPECT_TRUE(is_error(authorized("POST", agent.url() + "/v1/sessions/" + id + "/callin", R"({"callin":"x"})"), 400,
                         "invalid argument"));
    EXPECT_TRUE(is_error(authorized("POST", agent.url() + "/v1/sessions/" + id + "/callin", R"({"seq":0,"callin":"wait"})"),
                         400, "invalid argument"));
    EXPECT_TRUE(is_error(authorized("POST", agent.url() + "/v1/sessions/" + id + "/callin", R"({"seq":5,"callin":"x"})"),
                         409, "sequence mismatch"));
    EXPECT_EQ(authorized("DELETE", agent.url() + "/v1/sessions/" + id).status, 200);
    EXPECT_TRUE(is_error(authorized("DELETE", agent.url() + "/v1/sessions/" + id), 404, "invalid session id"));
}

// ---- authentication ----

TEST_P(ProtocolKit, EveryRequestNeedsTheBearerToken) {
    KIT_START(agent);
    for (const std::string path : {"/v1/status", "/v1/run", "/v1/sessions"}) {
        const std::string method = path == "/v1/status" ? "GET" : "POST";
        for (const std::string& header : {std::string(), std::string("Authorization: Bearer guess\r\n"),
                                          "Authorization: Bearer " + std::string(kKitToken) + "x\r\n",
                                          "Authorization: Basic " + std::string(kKitToken) + "\r\n"}) {
            const std::string answer = exchange(agent.port(), method == "GET" ? get_status(header) : post(path, "{}", header));
            EXPECT_TRUE(is_error(answer, 401, "unauthorized")) << path << " " << header;
            EXPECT_NE(headers_of(answer).find("www-authenticate: bearer"), std::string::npos) << answer;
        }
    }
    HttpConfig c;
    c.url = agent.url();
    c.token = "guess";
    EXPECT_THROW(HttpDevice{c}, DeviceError);
}

TEST_P(ProtocolKit, TheBearerSchemeIsCaseInsensitive) {
    KIT_START(agent);
    for (const std::string scheme : {"Bearer", "bearer", "BEARER", "bEaReR"})
        EXPECT_EQ(status_of(exchange(agent.port(), get_status("Authorization: " + scheme + " " + kKitToken + "\r\n"))), 200)
            << scheme;
}

TEST_P(ProtocolKit, ARepeatedAuthorizationHeaderIsRefused) {
    KIT_START(agent);
    for (const std::string& headers :
         {kAuth + "Authorization: Bearer guess\r\n", "Authorization: Bearer guess\r\n" + kAuth, kAuth + kAuth})
        EXPECT_TRUE(is_error(exchange(agent.port(), get_status(headers)), 400, "invalid argument")) << headers;
    EXPECT_TRUE(still_serves(agent));
}

TEST_P(ProtocolKit, AnOriginHeaderIsRefusedEvenEmpty) {
    KIT_START(agent);
    for (const std::string origin : {"Origin: http://evil.example\r\n", "Origin:\r\n", "Origin: null\r\n"}) {
        EXPECT_TRUE(is_error(exchange(agent.port(), get_status(kAuth + origin)), 403, "forbidden")) << origin;
        EXPECT_TRUE(is_error(exchange(agent.port(), get_status(origin)), 403, "forbidden")) << "without token " << origin;
    }
}

TEST_P(ProtocolKit, TheTokenIsCheckedBeforeTheBodyIsRead) {
    KIT_START(agent);
    // The body never comes: the agent refuses from the headers, without waiting for it, and closes.
    for (const std::string& header : {std::string(), std::string("Authorization: Bearer guess\r\n")}) {
        RawConnection c(agent.port());
        c.send("POST /v1/run HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n" + header + "\r\n{\"inputs\": [");
        const auto start = std::chrono::steady_clock::now();
        const std::string answer = c.read_until_closed(3000ms);
        EXPECT_TRUE(is_error(answer, 401, "unauthorized")) << header;
        EXPECT_TRUE(c.closed()) << header;
        EXPECT_LT(std::chrono::steady_clock::now() - start, 2500ms) << header;
    }
    EXPECT_TRUE(still_serves(agent));
}

// ---- strict HTTP/1.1 ----

TEST_P(ProtocolKit, HttpVersionsOtherThan10And11AreRefusedWith505) {
    KIT_START(agent);
    for (const std::string version : {"HTTP/2.0", "HTTP/0.9", "HTTP/1.2"})
        EXPECT_TRUE(is_error(exchange(agent.port(), get_status(kAuth, version)), 505, "invalid argument")) << version;
    EXPECT_TRUE(is_error(exchange(agent.port(), get_status(kAuth, "HTTQ/1.1")), 400, "invalid argument"));
    EXPECT_EQ(status_of(exchange(agent.port(), get_status(kAuth, "HTTP/1.0"))), 200);
    EXPECT_TRUE(still_serves(agent));
}

TEST_P(ProtocolKit, ControlCharactersInHeaderValuesAreRefused) {
    KIT_START(agent);
    for (const std::string& value : {std::string("a\x01z"), std::string("a\x1b[31mz"), std::string("a\x7fz"),
                                    std::string("a\0z", 3)})
        EXPECT_TRUE(is_error(exchange(agent.port(), get_status(kAuth + "X-Probe: " + value + "\r\n")), 400,
                             "invalid argument"))
            << json(value).dump();
    EXPECT_EQ(status_of(exchange(agent.port(), get_status(kAuth + "X-Probe: a\tz\r\n"))), 200);  // HTAB is allowed
    EXPECT_TRUE(still_serves(agent));
}

// ---- limits ----

TEST_P(ProtocolKit, OversizedAndChunkedRequestsAreRefusedBeforeTheirBody) {
    KIT_START(agent);
    // The default body limit, 1 MiB: decided from Content-Length, the body not sent.
    EXPECT_TRUE(is_error(exchange(agent.port(), "POST /v1/run HTTP/1.1\r\nHost: x\r\n" + kAuth +
                                                    "Content-Length: 1048577\r\n\r\n"),
                         413, "invalid argument"));
    EXPECT_TRUE(is_error(exchange(agent.port(), get_status(kAuth + "X-Pad: " + std::string(20000, 'a') + "\r\n")), 431,
                         "invalid argument"));
    EXPECT_TRUE(is_error(exchange(agent.port(), "POST /v1/run HTTP/1.1\r\nHost: x\r\n" + kAuth +
                                                    "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                         411, "invalid argument"));
    EXPECT_TRUE(is_error(exchange(agent.port(), "POST /v1/run HTTP/1.1\r\nHost: x\r\n" + kAuth +
                                                    "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"),
                         400, "invalid argument"));
    EXPECT_TRUE(still_serves(agent));
}

TEST_P(ProtocolKit, DeeplyNestedJsonIsRefusedWith400) {
    KIT_START(agent);
    // 100,000 deep, 200 KB: under the body limit. Once a crash (C++) or a 500 (JVM, Node).
    for (const std::size_t arrays : {std::size_t{100000}, std::size_t{64}}) {
        const std::string body = "{\"inputs\": " + std::string(arrays, '[') + std::string(arrays, ']') + "}";
        const std::string answer = exchange(agent.port(), post("/v1/run", body));
        ASSERT_TRUE(is_error(answer, 400, "invalid argument")) << arrays;
        EXPECT_EQ(json::parse(body_of(answer))["value"]["message"], "the request body nests JSON deeper than 64 levels");
        const std::string session = exchange(agent.port(), post("/v1/sessions", "{\"request_id\": " + std::string(arrays, '[') +
                                                                                 std::string(arrays, ']') + "}"));
        EXPECT_TRUE(is_error(session, 400, "invalid argument")) << arrays;
    }
    // 64 levels are read (and refused for what they say, not for their depth).
    const std::string at_limit = exchange(agent.port(), post("/v1/run", "{\"inputs\": " + std::string(63, '[') +
                                                                             std::string(63, ']') + "}"));
    EXPECT_TRUE(is_error(at_limit, 400, "invalid argument"));
    EXPECT_NE(json::parse(body_of(at_limit))["value"]["message"], "the request body nests JSON deeper than 64 levels");
    EXPECT_TRUE(still_serves(agent));
}

TEST_P(ProtocolKit, AnEchoedNameIsCutShort) {
    KIT_START(agent);
    const std::string answer = exchange(agent.port(), post("/v1/run", json{{"inputs", {std::string(100000, 'n')}}}.dump()));
    ASSERT_TRUE(is_error(answer, 400, "invalid argument"));
    EXPECT_LE(json::parse(body_of(answer))["value"]["message"].get<std::string>().size(), 300u);
}

TEST_P(ProtocolKit, ConnectionsBeyondTheCapAreRefusedWith503) {
    const std::size_t cap = GetParam().limit_options ? 4 : 256;  // 256: the default
    KIT_START(agent, GetParam().limit_options ? std::vector<std::string>{"--max-connections", "4"}
                                              : std::vector<std::string>{});
    std::vector<std::unique_ptr<RawConnection>> held;
    for (std::size_t i = 0; i < cap; ++i) {
        held.push_back(std::make_unique<RawConnection>(agent.port()));
        held.back()->send("GET /v1/status HTTP/1.1\r\nHost: x\r\n" + kAuth + "\r\n");  // keep-alive: stays open
        ASSERT_EQ(status_of(held.back()->read_answer()), 200) << i;
    }
    for (int i = 0; i < 3; ++i) {
        RawConnection extra(agent.port());
        extra.send(get_status(kAuth));
        const std::string answer = extra.read_until_closed();
        EXPECT_TRUE(is_error(answer, 503, "too many connections")) << i;
        EXPECT_TRUE(extra.closed());
    }
    held.clear();
    bool served = false;
    for (int i = 0; i < 50 && !served; ++i) {
        served = status_of(exchange(agent.port(), get_status(kAuth))) == 200;
        if (!served) std::this_thread::sleep_for(20ms);
    }
    EXPECT_TRUE(served) << "not served again once the held connections ended";
}

TEST_P(ProtocolKit, IdleAndTricklingConnectionsAreClosed) {
    if (!GetParam().limit_options) GTEST_SKIP() << GetParam().name << " has no --connection-timeout (default 30 s)";
    KIT_START(agent, "--connection-timeout", "1");
    {
        RawConnection idle(agent.port());
        const auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(idle.read_until_closed(4000ms), "");
        EXPECT_TRUE(idle.closed());
        EXPECT_LT(std::chrono::steady_clock::now() - start, 3500ms);
    }
    {
        // Headers complete, the body trickling in a byte at a time: cut off, never answered.
        RawConnection slow(agent.port());
        const std::string body = json{{"inputs", std::vector<std::string>(40, "x")}}.dump();
        slow.send("POST /v1/run HTTP/1.1\r\nHost: x\r\n" + kAuth + "Content-Length: " + std::to_string(body.size()) +
                  "\r\n\r\n");
        const auto start = std::chrono::steady_clock::now();
        bool sent_all = true;
        for (const char c : body) {
            if (!slow.send(std::string(1, c))) {
                sent_all = false;
                break;
            }
            std::this_thread::sleep_for(100ms);
            if (std::chrono::steady_clock::now() - start > 4000ms) break;
        }
        const std::string answer = slow.read_until_closed(1000ms);
        EXPECT_TRUE(!sent_all || slow.closed());
        EXPECT_NE(status_of(answer), 200) << answer;
        EXPECT_LT(std::chrono::steady_clock::now() - start, 5500ms);
    }
    EXPECT_TRUE(still_serves(agent));
}

}  // namespace typestar::protocol_kit
