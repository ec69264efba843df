// The JVM agent enforces the protocol's transport rules and limits (device/PROTOCOL.md, issue 26
// item 6): one Authorization header, a case-insensitive Bearer scheme, 505 for another HTTP version,
// no control characters in header values, bounded JSON nesting, JSON bodies on every error, the
// token checked before the body is read, and a connection cap and timeouts so that stalled clients
// hold neither threads nor connections. Raw sockets: these are requests curl would not send.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "jvm_support.hpp"
#include "support/raw_connection.hpp"

namespace typestar {
namespace {

using json = nlohmann::json;
using testing_support::body_of;
using testing_support::RawConnection;
using testing_support::status_of;
using namespace std::chrono_literals;

const std::string kAuth = std::string("Authorization: Bearer ") + jvm_testing::kToken + "\r\n";

std::size_t threads_of(pid_t pid) {
    std::size_t n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
        (void)e;
        ++n;
    }
    return n;
}

/// The body of a raw answer as strict JSON, or {"not json": why}.
json json_body(const std::string& answer) {
    try {
        return json::parse(body_of(answer));
    } catch (const json::exception& e) {
        return json{{"not json", e.what()}};
    }
}

bool is_json_answer(const std::string& answer) {
    const auto head = answer.substr(0, answer.find("\r\n\r\n"));
    return head.find("Content-Type: application/json") != std::string::npos &&
           json_body(answer).contains("value") && json_body(answer)["value"].contains("error");
}

class JvmAgentLimits : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        agent_ = std::make_unique<jvm_testing::JavaAgent>(std::vector<std::string>{
            "--class-purpose", "typestar.testing.ProbePurpose", "--port", "0", "--max-connections", "32",
            "--connection-timeout", "1"});
    }
    static void TearDownTestSuite() { agent_.reset(); }
    void SetUp() override { ASSERT_FALSE(agent_->url().empty()) << "the JVM agent did not start: " << agent_->first_line(); }

    static std::uint16_t port() {
        const auto& u = agent_->url();
        return static_cast<std::uint16_t>(std::stoi(u.substr(u.rfind(':') + 1)));
    }
    /// One request on a fresh connection; the whole answer (read until the agent closes).
    static std::string exchange(const std::string& request) {
        RawConnection c(port());
        c.send(request);
        return c.read_until_closed();
    }
    static std::string get_status(const std::string& headers, const std::string& version = "HTTP/1.1") {
        return "GET /v1/status " + version + "\r\nHost: x\r\nConnection: close\r\n" + headers + "\r\n";
    }
    static bool serves() { return jvm_testing::authorized("GET", agent_->url() + "/v1/status").status == 200; }

    static std::unique_ptr<jvm_testing::JavaAgent> agent_;
};
std::unique_ptr<jvm_testing::JavaAgent> JvmAgentLimits::agent_;

TEST_F(JvmAgentLimits, TwoAuthorizationHeadersAreRefusedWhicheverComesLast) {
    for (const std::string& second : std::vector<std::string>{kAuth, "Authorization: Bearer wrong\r\n"}) {
        const std::string answer = exchange(get_status(kAuth + second));
        EXPECT_EQ(status_of(answer), 400) << answer;
        EXPECT_EQ(json_body(answer)["value"]["message"], "more than one authorization header") << answer;
    }
}

TEST_F(JvmAgentLimits, TheBearerSchemeIsCaseInsensitive) {
    for (const std::string scheme : {"bearer", "BEARER", "bEaReR"}) {
        const std::string answer = exchange(get_status("Authorization: " + scheme + "  " + jvm_testing::kToken + "\r\n"));
        EXPECT_EQ(status_of(answer), 200) << scheme << ": " << answer;
    }
    const std::string basic = exchange(get_status("Authorization: Basic " + std::string(jvm_testing::kToken) + "\r\n"));
    EXPECT_EQ(status_of(basic), 401) << basic;
    EXPECT_NE(basic.find("WWW-Authenticate: Bearer"), std::string::npos) << basic;
}

TEST_F(JvmAgentLimits, AnotherHttpVersionIsAnswered505) {
    for (const std::string version : {"HTTP/2.0", "HTTP/0.9", "HTTP/1.2"}) {
        const std::string answer = exchange(get_status(kAuth, version));
        EXPECT_EQ(status_of(answer), 505) << version << ": " << answer;
        EXPECT_TRUE(is_json_answer(answer)) << answer;
    }
    EXPECT_EQ(status_of(exchange(get_status(kAuth, "HTTP/1.0"))), 200);
    EXPECT_EQ(status_of(exchange(get_status(kAuth, "HTTQ/1.1"))), 400);
}

TEST_F(JvmAgentLimits, ControlCharactersInHeaderValuesAreRefused) {
    for (const std::string& value : std::vector<std::string>{"a\x1b[31mb", "a\x01" "b", "a\x7f"}) {
        const std::string answer = exchange(get_status(kAuth + "X-Note: " + value + "\r\n"));
        EXPECT_EQ(status_of(answer), 400) << answer;
        EXPECT_EQ(json_body(answer)["value"]["message"], "malformed header value") << answer;
    }
    EXPECT_EQ(status_of(exchange(get_status(kAuth + "X-Note: tab\there\r\n"))), 200);  // HTAB is allowed
}

TEST_F(JvmAgentLimits, DeeplyNestedJsonIsRefusedWithoutAStackOverflow) {
    for (const std::size_t depth : {65u, 1000u, 100000u}) {
        const std::string body = "{\"inputs\":" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
        const auto r = jvm_testing::authorized("POST", agent_->url() + "/v1/run", body);
        EXPECT_EQ(r.status, 400) << depth << ": " << r.body.substr(0, 300);
        EXPECT_EQ(json::parse(r.body)["value"]["message"], "the request body nests JSON deeper than 64 levels");
    }
    // 64 levels is within the limit: an ordinary refusal (an unknown input), its echo cut short.
    const std::string body = "{\"inputs\":" + std::string(63, '[') + std::string(63, ']') + "}";
    const auto r = jvm_testing::authorized("POST", agent_->url() + "/v1/run", body);
    EXPECT_EQ(r.status, 400) << r.body;
    const std::string message = json::parse(r.body)["value"]["message"];
    EXPECT_EQ(message.rfind("unknown input [[[", 0), 0u) << message;
    EXPECT_LE(message.size(), std::string("unknown input ").size() + 128 + 3) << message;
    EXPECT_TRUE(serves());
}

TEST_F(JvmAgentLimits, EveryRefusalHasAJsonBody) {
    const std::vector<std::pair<std::string, int>> requests{
        {"GARBAGE\r\n\r\n", 400},
        {"GET  /v1/status HTTP/1.1\r\n\r\n", 400},
        {"GET v1/status HTTP/1.1\r\n" + kAuth + "\r\n", 400},
        {"GET /v1/status HTTP/1.1\r\n" + kAuth + " folded\r\n\r\n", 400},
        {"GET /v1/status HTTP/1.1\r\nno colon\r\n\r\n", 400},
        {"GET /v1/status HTTP/1.1\r\n" + kAuth + "X-Big: " + std::string(17000, 'x') + "\r\n\r\n", 431},
        {"POST /v1/run HTTP/1.1\r\n" + kAuth + "Content-Length: 2000000\r\n\r\n", 413},
        {"POST /v1/run HTTP/1.1\r\n" + kAuth + "Transfer-Encoding: chunked\r\n\r\n", 411},
        {"POST /v1/run HTTP/1.1\r\n" + kAuth + "Content-Length: x1\r\n\r\n", 400},
        {"POST /v1/run HTTP/1.1\r\n" + kAuth + "Content-Length: 1\r\nContent-Length: 1\r\n\r\n{", 400},
        {"GET /v1/status HTTP/1.1\r\nOrigin: \r\n" + kAuth + "\r\n", 403},
        {"GET /v1/status HTTP/1.1\r\n\r\n", 401},
        {"GET /v1/teapot HTTP/1.1\r\nConnection: close\r\n" + kAuth + "\r\n", 404},
        {"DELETE /v1/run HTTP/1.1\r\nConnection: close\r\n" + kAuth + "\r\n", 405},
    };
    for (const auto& [request, status] : requests) {
        const std::string answer = exchange(request);
        EXPECT_EQ(status_of(answer), status) << request.substr(0, 80) << "\n" << answer.substr(0, 300);
        EXPECT_TRUE(is_json_answer(answer)) << request.substr(0, 80) << "\n" << answer.substr(0, 300);
    }
    EXPECT_TRUE(serves());
}

TEST_F(JvmAgentLimits, TheTokenIsCheckedBeforeTheBodyIsRead) {
    // A body announced but never sent: without the token the answer comes at once.
    RawConnection c(port());
    c.send("POST /v1/run HTTP/1.1\r\nContent-Length: 100000\r\n\r\n{\"inputs\":[");
    const auto start = std::chrono::steady_clock::now();
    const std::string answer = c.read_until_closed(3000ms);
    EXPECT_EQ(status_of(answer), 401) << answer;
    EXPECT_TRUE(c.closed());
    EXPECT_LT(std::chrono::steady_clock::now() - start, 800ms);  // not the 1 s connection timeout
}

TEST_F(JvmAgentLimits, StalledConnectionsHoldNoThreadAndTheAgentGoesOnServing) {
    const pid_t pid = agent_->pid();
    ASSERT_TRUE(serves());
    const std::size_t threads_before = threads_of(pid);
    const auto start = std::chrono::steady_clock::now();
    // 300 clients without a token stalling mid-body: each is answered 401 and closed.
    std::vector<std::unique_ptr<RawConnection>> stalled;
    for (int i = 0; i < 300; ++i) {
        stalled.push_back(std::make_unique<RawConnection>(port()));
        stalled.back()->send("POST /v1/run HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{\"inputs\":");
    }
    std::size_t answered_401 = 0;
    for (auto& c : stalled) {
        const std::string answer = c->read_until_closed(3000ms);
        answered_401 += status_of(answer) == 401 && c->closed() ? 1 : 0;
    }
    EXPECT_EQ(answered_401, stalled.size());
    EXPECT_LE(threads_of(pid), threads_before + 40);
    stalled.clear();
    // 300 clients WITH the token stalling mid-body: at most 32 are served at a time (each until the
    // 1 s timeout closes it), the others are answered 503; the threads stay bounded.
    for (int i = 0; i < 300; ++i) {
        stalled.push_back(std::make_unique<RawConnection>(port()));
        stalled.back()->send("POST /v1/run HTTP/1.1\r\nHost: x\r\n" + kAuth + "Content-Length: 5000\r\n\r\n{\"inputs\":");
    }
    std::this_thread::sleep_for(200ms);
    const std::size_t threads_during = threads_of(pid);
    EXPECT_LE(threads_during, threads_before + 32 + 8);
    std::size_t refused = 0;
    std::size_t timed_out = 0;
    for (auto& c : stalled) {
        const std::string answer = c->read_until_closed(6000ms);
        if (!c->closed()) continue;
        if (status_of(answer) == 503 && json_body(answer)["value"]["error"] == "too many connections") ++refused;
        else if (answer.empty()) ++timed_out;  // served, stalled, closed by the connection timeout
    }
    // Every connection ended: refused at once, or served (never more than 32 at a time) until the
    // 1 s timeout closed it; connections the agent accepts after a timeout freed a place are served.
    EXPECT_EQ(refused + timed_out, stalled.size());
    EXPECT_GE(refused, stalled.size() / 2);
    EXPECT_GE(timed_out, 32u);
    stalled.clear();
    EXPECT_TRUE(serves());
    EXPECT_LT(std::chrono::steady_clock::now() - start, 15s);
}

TEST_F(JvmAgentLimits, AnIdleOrTricklingConnectionIsClosed) {
    RawConnection idle(port());
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(idle.read_until_closed(5000ms), "");
    EXPECT_TRUE(idle.closed());
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3000ms);
    RawConnection slow(port());
    const std::string request = get_status(kAuth);
    const auto t = std::chrono::steady_clock::now();
    for (const char ch : request) {  // each byte well within the timeout, the whole request not
        if (!slow.send(std::string(1, ch)) || std::chrono::steady_clock::now() - t > 3000ms) break;
        std::this_thread::sleep_for(50ms);
    }
    const std::string answer = slow.read_until_closed(2000ms);
    EXPECT_EQ(status_of(answer), 0) << answer;
    EXPECT_LT(std::chrono::steady_clock::now() - t, 5000ms);
    EXPECT_TRUE(serves());
}

}  // namespace
}  // namespace typestar
