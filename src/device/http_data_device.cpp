#include "typestar/device/http_data_device.hpp"

#include <curl/curl.h>

#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "data_protocol.hpp"
#include "http_answers.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

using json = nlohmann::json;

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.device"); }

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
        return 0;
    }
    sink.received.append(data, n);
    return n;
}

}  // namespace

// The same transport rules as HttpDevice (keep-alive handle, bounded retries with backoff for
// transport errors, garbage and 502/503/504, answers judged by detail::judge_answer); a second,
// small copy because HttpDevice keeps its transport private and is being extended elsewhere.
struct HttpDataDevice::Transport {
    CURL* handle = nullptr;
    curl_slist* headers = nullptr;
    ~Transport() {
        if (headers != nullptr) curl_slist_free_all(headers);
        if (handle != nullptr) curl_easy_cleanup(handle);
    }

    void open(HttpConfig& config) {
        Transport& t = *this;
        if (config.url.rfind("http://", 0) != 0 || config.url.size() <= 7)
            throw std::invalid_argument("device URL '" + config.url + "' is not http://HOST:PORT");
        while (!config.url.empty() && config.url.back() == '/') config.url.pop_back();
        static std::once_flag once;
        std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
        t.handle = curl_easy_init();
        if (t.handle == nullptr) throw DeviceError("device " + config.url + ": cannot initialise libcurl");
        t.headers = curl_slist_append(t.headers, "Content-Type: application/json");
        t.headers = curl_slist_append(t.headers, "Accept: application/json");
        t.headers = curl_slist_append(t.headers, "Expect:");
        t.headers = curl_slist_append(t.headers, ("Authorization: Bearer " + config.token).c_str());
        curl_easy_setopt(t.handle, CURLOPT_HTTPHEADER, t.headers);
        curl_easy_setopt(t.handle, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(t.handle, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(t.handle, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config.connect_timeout.count()));
        curl_easy_setopt(t.handle, CURLOPT_WRITEFUNCTION, &on_data);
        curl_easy_setopt(t.handle, CURLOPT_PROTOCOLS_STR, "http");
        curl_easy_setopt(t.handle, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(t.handle, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(config.max_answer_bytes));
    }

    json request(const HttpConfig& config, std::uint64_t& requests, const char* method, const std::string& path,
                 const std::string& body, const std::string& what, std::size_t retries) {
        const std::string url = config.url + path;
        Sink sink;
        sink.max = config.max_answer_bytes;
        std::string last = "no attempt";
        auto backoff = config.backoff;
        for (std::size_t attempt = 0; attempt <= retries; ++attempt) {
            if (attempt > 0) {
                log()->debug("{}: retry {} of {} {} after: {}", config.url, attempt, method, path, last);
                std::this_thread::sleep_for(backoff);
                backoff *= 2;
            }
            sink.received.clear();
            sink.over = false;
            curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
            curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method);
            if (std::string(method) == "GET") {
                curl_easy_setopt(handle, CURLOPT_HTTPGET, 1L);
            } else {
                curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body.c_str());
                curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
            }
            curl_easy_setopt(handle, CURLOPT_WRITEDATA, &sink);
            curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(config.request_timeout.count()));
            ++requests;
            log()->trace("{} {} {}", method, url, body);
            const CURLcode code = curl_easy_perform(handle);
            if (sink.over || code == CURLE_FILESIZE_EXCEEDED)
                throw DeviceError("device " + config.url + ": " + what + ": " + detail::answer_cap_message(config.max_answer_bytes));
            if (code != CURLE_OK) {
                last = "curl error " + std::to_string(static_cast<int>(code)) + ": " + curl_easy_strerror(code);
                if (code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT) break;
                continue;
            }
            long status = 0;
            curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
            log()->trace("-> {} {}", status, sink.received);
            detail::JudgedAnswer answer = detail::judge_answer(status, sink.received, config.max_answer_bytes);
            if (answer.kind == detail::JudgedAnswer::Kind::Accepted) return std::move(answer.body);
            if (answer.kind == detail::JudgedAnswer::Kind::Final) {
                if (status == 404 && std::string(method) == "DELETE") return json::object();  // already gone
                throw DeviceError("device " + config.url + ": " + what + ": " + answer.what);
            }
            last = answer.what;
        }
        throw DeviceError("device " + config.url + ": " + what + ": " + last + " (" + std::to_string(retries + 1) +
                          " attempts)");
    }
};

HttpDataDevice::HttpDataDevice(HttpConfig config) : config_(std::move(config)), transport_(std::make_unique<Transport>()) {
    transport_->open(config_);
    const json status = transport_->request(config_, requests_, "GET", "/v1/status", "", "status", config_.retries);
    const std::string who = "device " + config_.url;
    if (!status.is_object() || !status.contains("protocol") || status["protocol"] != detail::kProtocol)
        throw DeviceError(who + ": does not speak " + std::string(detail::kProtocol));
    if (!status.contains("data"))
        throw DeviceError(who + ": the agent serves no data device (its /v1/status declares no `data` signature; "
                                "a typestate device is learned and checked without data)");
    if (status.contains("name") && status["name"].is_string()) class_name_ = status["name"].get<std::string>();
    if (status.contains("framework") && status["framework"].is_string()) framework_ = status["framework"].get<std::string>();
    signature_ = detail::read_data_signature(status["data"], class_name_, who);
}

HttpDataDevice::~HttpDataDevice() { end_session(); }

bool HttpDataDevice::serves_data(HttpConfig config) {
    Transport t;
    t.open(config);
    std::uint64_t requests = 0;
    const json status = t.request(config, requests, "GET", "/v1/status", "", "status", config.retries);
    return status.is_object() && status.contains("data");
}

DeviceDescription HttpDataDevice::describe() const {
    DeviceDescription d;
    d.name = config_.url;
    d.class_name = class_name_;
    d.framework = framework_;
    return d;
}

void HttpDataDevice::end_session() noexcept {
    if (session_.empty()) return;
    const std::string id = std::move(session_);
    session_.clear();
    try {
        transport_->request(config_, requests_, "DELETE", "/v1/sessions/" + id, "", "ending session " + id, 0);
    } catch (const std::exception& e) {
        log()->warn("{}: {}", config_.url, e.what());
    }
}

void HttpDataDevice::reset() {
    end_session();
    static thread_local std::mt19937_64 ids{std::random_device{}()};
    std::ostringstream id;
    id << std::hex << ids() << ids();
    const json r = transport_->request(config_, requests_, "POST", "/v1/sessions",
                                       detail::dump_json(json{{"request_id", id.str()}}), "creating a session",
                                       config_.retries);
    session_ = detail::read_session_answer(r, "device " + config_.url + ": creating a session");
    seq_ = 0;
    word_.clear();
}

ra::DataSymbol HttpDataDevice::step(const ra::DataSymbol& input) {
    const std::string who = "device " + config_.url;
    if (session_.empty()) throw DeviceError(who + ": step without reset");
    if (input.symbol >= signature_.inputs.size()) throw DeviceError(who + ": no input " + std::to_string(input.symbol));
    word_ += (word_.empty() ? "" : " ") + ra::format_symbol(signature_.inputs, input);
    const std::string what = "query '" + word_ + "'";
    json body{{"seq", seq_}, {"callin", signature_.inputs[input.symbol].name}, {"values", input.values}};
    const json r = transport_->request(config_, requests_, "POST", "/v1/sessions/" + session_ + "/callin",
                                       detail::dump_json(body), what, config_.retries);
    const std::uint64_t seq = seq_++;
    auto bad = [&](const std::string& why) {
        return DeviceError(who + ": " + what + ": answer " + detail::shown_json(r) + " does not fit the protocol (" +
                           why + ")");
    };
    if (!r.contains("seq") || !r["seq"].is_number_unsigned() || r["seq"].get<std::uint64_t>() != seq)
        throw bad("seq " + std::to_string(seq) + " expected");
    if (!r.contains("output") || !r["output"].is_string()) throw bad("no output");
    const auto index = signature_.output_index(r["output"].get<std::string>());
    if (!index) throw bad("not a declared output");
    ra::DataSymbol out{*index, {}};
    const auto it = r.find("values");
    if (const std::string why = detail::read_values(it == r.end() ? nullptr : &*it, signature_.outputs[*index], out.values);
        !why.empty())
        throw bad(why);
    return out;
}

}  // namespace typestar
