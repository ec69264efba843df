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

#include "http_answers.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

using json = nlohmann::json;

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.device"); }

/// Where an answer's body goes; stops receiving (the transfer fails) beyond `max` bytes.
struct Sink {
    std::string received;
    std::size_t max = 0;
    bool over = false;
};

std::size_t on_data(char* data, std::size_t size, std::size_t count, void* user) {
    auto& sink = *static_cast<Sink*>(user);
    const std::size_t n = size * count;
    if (n > sink.max - std::min(sink.max, sink.received.size())) {
        sink.over = true;
        return 0;  // CURLE_WRITE_ERROR: the rest is never read
    }
    sink.received.append(data, n);
    return n;
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
    // A larger announced Content-Length fails at once; the write callback stops any other answer.
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(config_.max_answer_bytes));

    const Reply reply = request("GET", "/v1/status", "", std::chrono::milliseconds(0), "status");
    detail::StatusAnswer status = detail::read_status_answer(reply.body, "device " + config_.url);
    status_ = std::move(status.status);
    inputs_ = std::move(status.inputs);
    outputs_ = std::move(status.outputs);
    traits_ = status.traits;
}

HttpDevice::~HttpDevice() { finish(); }

DeviceDescription HttpDevice::describe() const {
    DeviceDescription d;
    d.name = name();
    d.class_name = status_.name;
    d.framework = status_.framework;
    d.tmax_ms = static_cast<double>(status_.timing.tmax.count());
    d.tmin_ms = static_cast<double>(status_.timing.tmin.count());
    d.environment = status_.environment;
    d.parameterised = status_.parameters;
    return d;
}

std::string HttpDevice::who() const {
    return "device " + config_.url + (status_.name.empty() ? "" : " (" + status_.name + ")");
}

std::string HttpDevice::word_text(std::span<const Symbol> word) const {
    return to_string(Word(word.begin(), word.end()), inputs_);
}

HttpDevice::Reply HttpDevice::request(const char* method, const std::string& path, const std::string& body,
                                      std::chrono::milliseconds expected, const std::string& query) {
    CURL* h = curl_->handle;
    const std::string url = config_.url + path;
    Sink sink;
    sink.max = config_.max_answer_bytes;
    const std::string& received = sink.received;
    Failure last{true, "no attempt"};
    auto backoff = config_.backoff;
    for (std::size_t attempt = 0; attempt <= config_.retries; ++attempt) {
        if (attempt > 0) {
            ++retries_;
            log()->debug("{}: retry {} of {} {} after: {}", config_.url, attempt, method, path, last.what);
            std::this_thread::sleep_for(backoff);
            backoff *= 2;
        }
        sink.received.clear();
        sink.over = false;
        curl_easy_setopt(h, CURLOPT_URL, url.c_str());
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
        if (std::string(method) == "GET") {
            curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        } else {
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
            curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
        }
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                         static_cast<long>(detail::request_budget(config_.request_timeout, expected, 1).count()));
        ++requests_;
        log()->trace("{} {} {}", method, url, body);
        const CURLcode code = curl_easy_perform(h);
        if (sink.over || code == CURLE_FILESIZE_EXCEEDED)  // retrying would fetch the same answer
            throw DeviceError(who() + ": " + query + ": " + detail::answer_cap_message(config_.max_answer_bytes));
        if (code != CURLE_OK) {
            last = {code != CURLE_UNSUPPORTED_PROTOCOL && code != CURLE_URL_MALFORMAT,
                    "curl error " + std::to_string(static_cast<int>(code)) + ": " + curl_easy_strerror(code)};
            if (!last.retryable) break;
            continue;
        }
        long status = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        log()->trace("-> {} {}", status, received);
        detail::JudgedAnswer answer = detail::judge_answer(status, received, config_.max_answer_bytes);
        switch (answer.kind) {
            case detail::JudgedAnswer::Kind::Accepted:
                return Reply{status, std::move(answer.body)};
            case detail::JudgedAnswer::Kind::Retryable:
                last = {true, std::move(answer.what)};
                continue;
            case detail::JudgedAnswer::Kind::Final:
                if (status == 404 && std::string(method) == "DELETE") return Reply{status, {}};  // already gone
                throw DeviceError(who() + ": " + query + ": " + answer.what);
        }
    }
    throw DeviceError(who() + ": " + query + ": " + last.what + " (" + std::to_string(config_.retries + 1) + " attempts)");
}

void HttpDevice::reset() {
    finish();
    static thread_local std::mt19937_64 ids{std::random_device{}()};
    std::ostringstream id;
    id << std::hex << ids() << ids();
    const Reply r = request("POST", "/v1/sessions", detail::dump_json(json{{"request_id", id.str()}}),
                            std::chrono::milliseconds(0), "creating a session");
    session_ = detail::read_session_answer(r.body, who() + ": creating a session");
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
    const std::string query = "query '" + word_text(session_word_) + "'";
    const bool is_wait = traits_.wait && input == *traits_.wait;
    json body{{"seq", seq_}};
    std::chrono::milliseconds expected{0};
    if (is_wait) {
        body["timeout_ms"] = wait_timeout.count();
        expected = wait_timeout;
    } else {
        body["callin"] = inputs_.name(input);
    }
    const Reply r = request("POST", "/v1/sessions/" + session_ + (is_wait ? "/wait" : "/callin"), detail::dump_json(body),
                            expected, query);
    const std::uint64_t seq = seq_++;
    return detail::read_step_answer(r.body, seq, is_wait, outputs_, who() + ": " + query);
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
    const std::string query = "query '" + word_text(word) + "'";
    const std::string body = detail::dump_json(json{{"inputs", inputs}});
    const auto expected = detail::request_budget(std::chrono::milliseconds(0), status_.timing.tmax, waits);
    // A garbage answer is retried like a transport error: the run starts from a fresh instance.
    for (std::size_t attempt = 0;; ++attempt) {
        const Reply r = request("POST", "/v1/run", body, expected, query);
        if (auto run = detail::read_run_answer(r.body, word, traits_, outputs_)) return std::move(*run);
        if (attempt >= config_.retries)
            throw DeviceError(who() + ": " + query + ": answer " +
                              detail::shown_json(r.body) +
                              " does not fit the protocol (" + std::to_string(attempt + 1) + " attempts)");
        ++retries_;
    }
}

}  // namespace typestar
