#include "typestar/device/http_device.hpp"

#include <curl/curl.h>

#include <functional>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

using json = nlohmann::json;

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.device"); }

std::size_t on_data(char* data, std::size_t size, std::size_t count, void* user) {
    static_cast<std::string*>(user)->append(data, size * count);
    return size * count;
}

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

/// A failed attempt: whether retrying may help, and what happened.
struct Failure {
    bool retryable;
    std::string what;
};

}  // namespace

struct HttpDevice::Curl {
    CURL* handle = nullptr;
    curl_slist* headers = nullptr;
    ~Curl() {
        if (headers != nullptr) curl_slist_free_all(headers);
        if (handle != nullptr) curl_easy_cleanup(handle);
    }
};

struct HttpDevice::Reply {
    long status = 0;
    json body;
};

HttpDevice::HttpDevice(HttpConfig config) : config_(std::move(config)), curl_(std::make_unique<Curl>()) {
    if (config_.url.rfind("http://", 0) != 0 || config_.url.size() <= 7)
        throw std::invalid_argument("device URL '" + config_.url + "' is not http://HOST:PORT");
    while (!config_.url.empty() && config_.url.back() == '/') config_.url.pop_back();
    global_init();
    curl_->handle = curl_easy_init();
    if (curl_->handle == nullptr) throw DeviceError("device " + config_.url + ": cannot initialise libcurl");
    curl_->headers = curl_slist_append(curl_->headers, "Content-Type: application/json");
    curl_->headers = curl_slist_append(curl_->headers, "Accept: application/json");
    curl_->headers = curl_slist_append(curl_->headers, "Expect:");
    curl_->headers = curl_slist_append(curl_->headers, ("Authorization: Bearer " + config_.token).c_str());
    CURL* h = curl_->handle;
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, curl_->headers);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config_.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_data);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);

    const Reply reply = request("GET", "/v1/status", "", std::chrono::milliseconds(0), "status");
    const json& s = reply.body;
    try {
        status_.protocol = s.at("protocol").get<std::string>();
        if (status_.protocol != detail::kProtocol)
            throw DeviceError("device " + config_.url + ": speaks '" + status_.protocol + "', this client speaks '" +
                              detail::kProtocol + "'");
        status_.name = s.at("name").get<std::string>();
        status_.framework = s.value("framework", "");
        status_.callins = s.at("callins").get<std::vector<std::string>>();
        status_.callbacks = s.at("callbacks").get<std::vector<std::string>>();
        status_.timing.tmax = std::chrono::milliseconds(s.at("timing").at("tmax_ms").get<std::int64_t>());
        status_.timing.tmin = std::chrono::milliseconds(s.at("timing").at("tmin_ms").get<std::int64_t>());
        status_.quiet_is_stable = s.value("quiet_is_stable", false);  // undeclared: may change
        for (const auto& c : status_.callins) inputs_.intern(c);
        inputs_.intern(kWait);
        outputs_.intern(kOk);
        outputs_.intern(kQuiet);
        outputs_.intern(kErr);
        for (const auto& c : status_.callbacks) outputs_.intern(c);
        if (inputs_.size() != status_.callins.size() + 1 || outputs_.size() != status_.callbacks.size() + 3)
            throw DeviceError("device " + config_.url + ": duplicate or reserved symbol names in its status");
    } catch (const json::exception& e) {
        throw DeviceError("device " + config_.url + ": malformed status: " + e.what());
    }
    traits_ = closure_traits(inputs_, outputs_, status_.quiet_is_stable);
}

HttpDevice::~HttpDevice() { finish(); }

DeviceDescription HttpDevice::describe() const {
    DeviceDescription d;
    d.name = name();
    d.class_name = status_.name;
    d.framework = status_.framework;
    d.tmax_ms = static_cast<double>(status_.timing.tmax.count());
    d.tmin_ms = static_cast<double>(status_.timing.tmin.count());
    return d;
}

std::string HttpDevice::who() const {
    return "device " + config_.url + (status_.name.empty() ? "" : " (" + status_.name + ")");
}

std::string HttpDevice::describe(std::span<const Symbol> word) const {
    return to_string(Word(word.begin(), word.end()), inputs_);
}

HttpDevice::Reply HttpDevice::request(const char* method, const std::string& path, const std::string& body,
                                      std::chrono::milliseconds expected, const std::string& query) {
    CURL* h = curl_->handle;
    const std::string url = config_.url + path;
    std::string received;
    Failure last{true, "no attempt"};
    auto backoff = config_.backoff;
    for (std::size_t attempt = 0; attempt <= config_.retries; ++attempt) {
        if (attempt > 0) {
            ++retries_;
            log()->debug("{}: retry {} of {} {} after: {}", config_.url, attempt, method, path, last.what);
            std::this_thread::sleep_for(backoff);
            backoff *= 2;
        }
        received.clear();
        curl_easy_setopt(h, CURLOPT_URL, url.c_str());
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
        if (std::string(method) == "GET") {
            curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        } else {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
        }
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &received);
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>((config_.request_timeout + expected).count()));
        ++requests_;
        log()->trace("{} {} {}", method, url, body);
        const CURLcode code = curl_easy_perform(h);
        if (code != CURLE_OK) {
            last = {code != CURLE_UNSUPPORTED_PROTOCOL && code != CURLE_URL_MALFORMAT,
                    "curl error " + std::to_string(static_cast<int>(code)) + ": " + curl_easy_strerror(code)};
            if (!last.retryable) break;
            continue;
        }
        long status = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        log()->trace("-> {} {}", status, received);
        json parsed = json::parse(received, nullptr, false);
        if (status >= 200 && status < 300) {
            if (parsed.is_discarded() || !parsed.is_object()) {
                last = {true, "garbage answer (HTTP " + std::to_string(status) + ", not a JSON object)"};
                continue;
            }
            return Reply{status, std::move(parsed)};
        }
        std::string error = "HTTP " + std::to_string(status);
        if (!parsed.is_discarded() && parsed.is_object() && parsed.contains("value") && parsed["value"].is_object()) {
            const json& v = parsed["value"];
            error += " " + v.value("error", std::string("?")) + ": " + v.value("message", std::string());
        } else {
            error += " with a body that is not a protocol error";
        }
        last = {status == 502 || status == 503 || status == 504, error};
        if (!last.retryable) {
            Reply r{status, std::move(parsed)};
            if (status == 404 && std::string(method) == "DELETE") return r;  // already gone
            throw DeviceError(who() + ": " + query + ": " + error);
        }
    }
    throw DeviceError(who() + ": " + query + ": " + last.what + " (" + std::to_string(config_.retries + 1) + " attempts)");
}

void HttpDevice::reset() {
    finish();
    static thread_local std::mt19937_64 ids{std::random_device{}()};
    std::ostringstream id;
    id << std::hex << ids() << ids();
    const Reply r = request("POST", "/v1/sessions", json{{"request_id", id.str()}}.dump(), std::chrono::milliseconds(0),
                            "creating a session");
    if (!r.body.contains("session") || !r.body["session"].is_string())
        throw DeviceError(who() + ": creating a session: no session id in the answer");
    session_ = r.body["session"].get<std::string>();
    seq_ = 0;
    session_word_.clear();
}

Symbol HttpDevice::step(Symbol input) { return step_with(input, status_.timing.tmax); }

std::optional<Symbol> HttpDevice::confirm_wait(std::span<const Symbol> prefix, std::chrono::milliseconds timeout) {
    DeviceSession session(*this);
    const Symbol err = *outputs_.find(kErr);
    for (const Symbol input : prefix)
        if (session.step(input) == err) return err;
    return step_with(*traits_.wait, timeout);
}

Symbol HttpDevice::step_with(Symbol input, std::chrono::milliseconds wait_timeout) {
    if (session_.empty()) throw DeviceError("device " + config_.url + ": step without reset");
    session_word_.push_back(input);
    const std::string query = "query '" + describe(session_word_) + "'";
    const bool is_wait = traits_.wait && input == *traits_.wait;
    json body{{"seq", seq_}};
    std::chrono::milliseconds expected{0};
    if (is_wait) {
        body["timeout_ms"] = wait_timeout.count();
        expected = wait_timeout;
    } else {
        body["callin"] = inputs_.name(input);
    }
    const Reply r = request("POST", "/v1/sessions/" + session_ + (is_wait ? "/wait" : "/callin"), body.dump(), expected,
                            query);
    ++seq_;
    const json& b = r.body;
    std::optional<Symbol> output;
    if (b.contains("output") && b["output"].is_string()) output = outputs_.find(b["output"].get<std::string>());
    const bool fits = output && (is_wait ? (*output != *outputs_.find(kOk) && *output != *outputs_.find(kErr))
                                         : (*output == *outputs_.find(kOk) || *output == *outputs_.find(kErr)));
    if (!fits || !b.contains("seq") || b["seq"] != body["seq"])
        throw DeviceError(who() + ": " + query + ": answer " + b.dump() +
                          " does not fit the protocol");
    return *output;
}

void HttpDevice::finish() noexcept {
    if (session_.empty()) return;
    const std::string id = std::move(session_);
    session_.clear();
    // Best effort, one attempt: an agent that lost the session reaps it anyway.
    const std::size_t retries = config_.retries;
    config_.retries = 0;
    try {
        request("DELETE", "/v1/sessions/" + id, "", std::chrono::milliseconds(0), "ending session " + id);
    } catch (const std::exception& e) {
        log()->warn("{}: {}", config_.url, e.what());
    }
    config_.retries = retries;
}

RunResult HttpDevice::run(std::span<const Symbol> word) {
    if (!config_.batch) return Device::run(word);
    finish();
    json inputs = json::array();
    std::size_t waits = 0;
    for (Symbol s : word) {
        inputs.push_back(inputs_.name(s));
        if (traits_.wait && s == *traits_.wait) ++waits;
    }
    const std::string query = "query '" + describe(word) + "'";
    const std::string body = json{{"inputs", inputs}}.dump();
    const auto expected = status_.timing.tmax * static_cast<long>(waits);
    // A garbage answer is retried like a transport error: the run starts from a fresh instance.
    for (std::size_t attempt = 0;; ++attempt) {
        const Reply r = request("POST", "/v1/run", body, expected, query);
        const json& b = r.body;
        RunResult run;
        bool fits = b.contains("outputs") && b["outputs"].is_array() && b["outputs"].size() == word.size() &&
                    b.contains("steps") && b["steps"].is_number_unsigned() && b.contains("waits") &&
                    b["waits"].is_number_unsigned();
        if (fits) {
            for (const auto& o : b["outputs"]) {
                const auto id = o.is_string() ? outputs_.find(o.get<std::string>()) : std::nullopt;
                if (!id) {
                    fits = false;
                    break;
                }
                run.outputs.push_back(*id);
            }
        }
        if (fits) {
            run.steps = b["steps"].get<std::size_t>();
            run.waits = b["waits"].get<std::size_t>();
            return run;
        }
        if (attempt >= config_.retries)
            throw DeviceError(who() + ": " + query + ": answer " +
                              b.dump().substr(0, 200) + " does not fit the protocol (" +
                              std::to_string(attempt + 1) + " attempts)");
        ++retries_;
    }
}

}  // namespace typestar
