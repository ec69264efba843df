#include "http_transport.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>

#include <spdlog/spdlog.h>

#include "http_answers.hpp"
#if TYPESTAR_DIRECT_HTTP
#include "http_direct.hpp"
#endif
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/log/logging.hpp"

namespace typestar::detail {

using json = nlohmann::json;

namespace {

std::shared_ptr<spdlog::logger> log() { return logger("typestar.device"); }

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

}  // namespace

std::string_view url_host(std::string_view url) {
    if (url.starts_with("http://")) url.remove_prefix(7);
    if (url.starts_with('[')) {
        const auto close = url.find(']');
        return close == std::string_view::npos ? url.substr(1) : url.substr(1, close - 1);
    }
    return url.substr(0, url.find_first_of(":/"));
}

bool is_loopback_host(std::string_view host) {
    std::string text(host);
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    if (text == "localhost" || text == "localhost.") return true;
    in_addr v4{};  // inet_aton: also the short forms libcurl normalises ("127.1", "0x7f.1")
    if (inet_aton(text.c_str(), &v4) != 0) return (ntohl(v4.s_addr) >> 24) == 127;
    in6_addr v6{};
    return inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

struct HttpTransport::Handle {
#if TYPESTAR_DIRECT_HTTP
    std::unique_ptr<DirectConnection> direct;  ///< a loopback agent (HttpConfig::direct_loopback): no libcurl
#endif
    CURL* curl = nullptr;
    curl_slist* headers = nullptr;
    Sink sink;        // reused: its buffer keeps its capacity from one answer to the next
    std::string url;  // reused likewise
    ~Handle() {
        if (headers != nullptr) curl_slist_free_all(headers);
        if (curl != nullptr) curl_easy_cleanup(curl);
    }
};

HttpTransport::HttpTransport(HttpConfig& config, std::uint64_t& requests, std::uint64_t* retries)
    : requests_(requests), retries_(retries), log_(log()) {
    if (config.url.rfind("http://", 0) != 0 || config.url.size() <= 7)
        throw std::invalid_argument("device URL '" + config.url + "' is not http://HOST:PORT");
    while (!config.url.empty() && config.url.back() == '/') config.url.pop_back();
    config_ = config;
    auto handle = std::make_unique<Handle>();
#if TYPESTAR_DIRECT_HTTP
    if (config.direct_loopback && is_loopback_host(url_host(config.url))) {
        handle->direct = std::make_unique<DirectConnection>(config.url, "Bearer " + config.token, config.connect_timeout,
                                                            config.max_answer_bytes);
        handle_ = std::move(handle);
        return;
    }
#endif
    global_init();
    handle->curl = curl_easy_init();
    if (handle->curl == nullptr) throw DeviceError("device " + config.url + ": cannot initialise libcurl");
    handle->headers = curl_slist_append(handle->headers, "Content-Type: application/json");
    handle->headers = curl_slist_append(handle->headers, "Accept: application/json");
    handle->headers = curl_slist_append(handle->headers, "Expect:");
    handle->headers = curl_slist_append(handle->headers, ("Authorization: Bearer " + config.token).c_str());
    CURL* h = handle->curl;
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, handle->headers);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_data);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    if (is_loopback_host(url_host(config.url))) {
        // Never through a proxy from the environment (http_proxy, all_proxy): the bearer token stays
        // on this machine. A remote host keeps libcurl's proxy handling (device/PROTOCOL.md).
        curl_easy_setopt(h, CURLOPT_PROXY, "");
        curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    }
    // A larger announced Content-Length fails at once; the write callback stops any other answer.
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(config.max_answer_bytes));
    handle_ = std::move(handle);
}

HttpTransport::~HttpTransport() = default;

json HttpTransport::request(const AgentRequest& request) {
    CURL* h = handle_->curl;
    const char* method = request.method;
    std::string& url = handle_->url;
    url.assign(config_.url).append(request.path);
    Sink& sink = handle_->sink;
    sink.max = config_.max_answer_bytes;
    const bool get = std::strcmp(method, "GET") == 0;
    /// A failed attempt: whether retrying may help, and what happened.
    struct Failure {
        bool retryable;
        std::string what;
    };
    Failure last{true, "no attempt"};
    auto backoff = config_.backoff;
    for (std::size_t attempt = 0; attempt <= request.retries; ++attempt) {
        if (attempt > 0) {
            if (retries_ != nullptr) ++*retries_;
            log_->debug("{}: retry {} of {} {} after: {}", config_.url, attempt, method, request.path, last.what);
            std::this_thread::sleep_for(backoff);
            backoff *= 2;
        }
        long status = 0;
#if TYPESTAR_DIRECT_HTTP
        if (handle_->direct) {
            ++requests_;
            log_->trace("{} {}{} {}", method, config_.url, request.path, request.body);
            std::size_t resent = 0;
            DirectOutcome got = handle_->direct->exchange(method, request.path, request.body, request.timeout, resent);
            requests_ += resent;
            if (resent > 0) log_->debug("{}: the agent closed the idle connection; {} {} sent again", config_.url, method, request.path);
            if (got.kind == DirectOutcome::Kind::OverCap)  // retrying would fetch the same answer
                throw DeviceError(request.context.str() + ": " + answer_cap_message(config_.max_answer_bytes));
            if (got.kind == DirectOutcome::Kind::Failed) {
                last = {true, std::move(got.what)};
                continue;
            }
            status = got.status;
            sink.received = std::move(got.body);
        } else
#endif
        {
            sink.received.clear();
            sink.over = false;
            curl_easy_setopt(h, CURLOPT_URL, url.c_str());
            curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
            if (get) {
                curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
            } else {
                curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.c_str());
                curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
            }
            curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
            curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
            ++requests_;
            log_->trace("{} {} {}", method, url, request.body);
            const CURLcode code = curl_easy_perform(h);
            if (sink.over || code == CURLE_FILESIZE_EXCEEDED)  // retrying would fetch the same answer
                throw DeviceError(request.context.str() + ": " + answer_cap_message(config_.max_answer_bytes));
            if (code != CURLE_OK) {
                last = {code != CURLE_UNSUPPORTED_PROTOCOL && code != CURLE_URL_MALFORMAT,
                        "curl error " + std::to_string(static_cast<int>(code)) + ": " + curl_easy_strerror(code)};
                if (!last.retryable) break;
                continue;
            }
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        }
        log_->trace("-> {} {}", status, sink.received);
        JudgedAnswer answer = judge_answer(status, sink.received, config_.max_answer_bytes);
        switch (answer.kind) {
            case JudgedAnswer::Kind::Accepted:
                return std::move(answer.body);
            case JudgedAnswer::Kind::Retryable:
                last = {true, std::move(answer.what)};
                continue;
            case JudgedAnswer::Kind::Final:
                if (status == 404 && std::strcmp(method, "DELETE") == 0) return json::object();  // already gone
                if (const auto& t = answer.timing)  // a timing failure, never an answer (PROTOCOL.md)
                    throw TimingError(request.context.str() + ": " + answer.what, t->kind, t->callback, t->delay_ms,
                                      t->tmax_ms, t->tmin_ms, t->earlier_query, t->runs);
                if (auto& n = answer.nondeterminism)  // the device's, never a harness failure (PROTOCOL.md)
                    throw AgentNondeterminismError(std::move(*n), request.context.str() + ": " + answer.what);
                throw DeviceError(request.context.str() + ": " + answer.what);
        }
    }
    throw DeviceError(request.context.str() + ": " + last.what + " (" + std::to_string(request.retries + 1) + " attempts)");
}

std::string HttpTransport::create_session(const MessageContext& who) {
    static thread_local std::mt19937_64 ids{std::random_device{}()};
    // Two 64-bit numbers in lower-case hex without leading zeros, one after the other.
    char id[40];
    char* end = std::to_chars(id, id + 20, ids(), 16).ptr;
    end = std::to_chars(end, id + sizeof id, ids(), 16).ptr;
    auto context = [&who] { return who.str() + ": creating a session"; };
    const nlohmann::json answer =
        request({"POST", "/v1/sessions", dump_json(nlohmann::json{{"request_id", std::string(id, end)}}),
                 config_.request_timeout, config_.retries, context});
    return read_session_answer(answer, context);
}

void HttpTransport::end_session(const std::string& id, const MessageContext& who) noexcept {
    try {
        request({"DELETE", "/v1/sessions/" + id, "", config_.request_timeout, 0,
                 [&who, &id] { return who.str() + ": ending session " + id; }});
    } catch (const std::exception& e) {
        log_->warn("{}", e.what());
    }
}

}  // namespace typestar::detail
