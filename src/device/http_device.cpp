#include "typestar/device/http_device.hpp"

#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "http_answers.hpp"
#include "http_transport.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

using json = nlohmann::json;

struct HttpDevice::Curl : detail::HttpTransport {
    using detail::HttpTransport::HttpTransport;
};

struct HttpDevice::Reply {
    json body;
};

HttpDevice::HttpDevice(HttpConfig config)
    : config_(std::move(config)), curl_(std::make_unique<Curl>(config_, requests_, &retries_)),
      who_("device " + config_.url) {
    adopt(detail::fetch_status(*curl_, config_));
}

HttpDevice::HttpDevice(HttpConfig config, detail::StatusAnswer status)
    : config_(std::move(config)), curl_(std::make_unique<Curl>(config_, requests_, &retries_)),
      who_("device " + config_.url) {
    adopt(std::move(status));
}

void HttpDevice::adopt(detail::StatusAnswer status) {
    if (status.data)
        throw DeviceError("device " + config_.url +
                          ": the agent serves a data device (its /v1/status declares a `data` signature: a register "
                          "automaton, learned and checked with data; open it with open_device or make_data_device)");
    status_ = std::move(status.status);
    inputs_ = std::move(status.inputs);
    outputs_ = std::move(status.outputs);
    traits_ = status.traits;
    first_named_ = status.first_named;
    who_ = "device " + config_.url + (status_.name.empty() ? "" : " (" + status_.name + ")");
    input_json_.clear();
    for (std::size_t i = 0; i < inputs_.size(); ++i) input_json_.push_back(detail::json_text(inputs_.name(static_cast<Symbol>(i))));
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
    d.timing_note = timing_note_;
    return d;
}

bool HttpDevice::override_timing(const TimingOverride& timing) {
    if (timing.empty()) return true;
    QuiescenceTiming t = status_.timing;
    if (timing.tmax) t.tmax = *timing.tmax;
    if (timing.tmin) t.tmin = *timing.tmin;
    if (t.tmin > t.tmax)
        throw std::invalid_argument(who() + ": tmin " + std::to_string(t.tmin.count()) + " ms is larger than tmax " +
                                    std::to_string(t.tmax.count()) + " ms (" + timing.origin + ")");
    timing_note_ = timing.note(static_cast<double>(status_.timing.tmax.count()),
                               static_cast<double>(status_.timing.tmin.count()));
    if (timing.tmin) timing_note_ += "; the agent checks tmin against its own";
    // An agent whose /v1/run takes the wait timeout (status `run_timeout`) still answers a query in
    // one round trip; an older one would wait with its own tmax there, so runs go step by step.
    // A tmax below the agent's own tmin goes step by step too (the agent checks its tmin).
    if (status_.run_timeout && t.tmax >= status_.timing.tmin)
        run_timeout_ = t.tmax;
    else
        config_.batch = false;
    status_.timing = t;
    return true;
}

std::string HttpDevice::word_text(std::span<const Symbol> word) const {
    return to_string(Word(word.begin(), word.end()), inputs_);
}

HttpDevice::Reply HttpDevice::request(const char* method, const std::string& path, const std::string& body,
                                      std::chrono::milliseconds expected, const std::function<std::string()>& query) {
    return Reply{curl_->request({method, path, body, detail::request_budget(config_.request_timeout, expected, 1),
                                 config_.retries, [&] { return who() + ": " + query(); }})};
}

void HttpDevice::reset() {
    finish();
    session_ = curl_->create_session([this] { return who(); });
    callin_path_ = "/v1/sessions/" + session_ + "/callin";
    wait_path_ = "/v1/sessions/" + session_ + "/wait";
    seq_ = 0;
    session_word_.clear();
}

Symbol HttpDevice::step(Symbol input) { return step_with(input, status_.timing.tmax); }

bool HttpDevice::declare_outputs(std::span<const std::string> names) {
    if (!first_named_) return false;
    for (const auto& n : names)
        if (!outputs_.contains(n)) (void)detail::callin_output(n, outputs_, first_named_);
    return true;
}

std::optional<Symbol> HttpDevice::confirm_wait(std::span<const Symbol> prefix, std::chrono::milliseconds timeout) {
    if (!traits_.wait) return std::nullopt;  // no quiescence input (a Mealy device without callbacks)
    DeviceSession session(*this);
    for (const Symbol input : prefix)
        if (const Symbol out = session.step(input); traits_.absorbing && out == *traits_.absorbing) return out;
    return step_with(*traits_.wait, timeout);
}

Symbol HttpDevice::step_with(Symbol input, std::chrono::milliseconds wait_timeout) {
    if (session_.empty()) throw DeviceError("device " + config_.url + ": step without reset");
    session_word_.push_back(input);
    // Made only for a message: the query so far.
    const auto query = [this] { return "query '" + word_text(session_word_) + "'"; };
    const bool is_wait = traits_.wait && input == *traits_.wait;
    const Reply r = is_wait ? request("POST", wait_path_, detail::wait_body(seq_, wait_timeout), wait_timeout, query)
                            : request("POST", callin_path_, detail::callin_body(seq_, input_json_[input]),
                                      std::chrono::milliseconds(0), query);
    const std::uint64_t seq = seq_++;
    return detail::read_step_answer(r.body, seq, is_wait, outputs_, first_named_,
                                    [&] { return who() + ": " + query(); });
}

void HttpDevice::finish() noexcept {
    if (session_.empty()) return;
    const std::string id = std::move(session_);
    session_.clear();
    curl_->end_session(id, [this] { return who(); });
}

RunResult HttpDevice::run(std::span<const Symbol> word) {
    if (!config_.batch) return Device::run(word);
    finish();
    std::size_t waits = 0;
    for (Symbol s : word)
        if (traits_.wait && s == *traits_.wait) ++waits;
    const auto query = [this, word] { return "query '" + word_text(word) + "'"; };
    const std::string body = detail::run_body(word, input_json_, run_timeout_);
    const auto expected = detail::request_budget(std::chrono::milliseconds(0), status_.timing.tmax, waits);
    // A garbage answer is retried like a transport error: the run starts from a fresh instance.
    for (std::size_t attempt = 0;; ++attempt) {
        const Reply r = request("POST", "/v1/run", body, expected, query);
        if (auto run = detail::read_run_answer(r.body, word, traits_, outputs_, first_named_)) return std::move(*run);
        if (attempt >= config_.retries)
            throw DeviceError(who() + ": " + query() + ": answer " +
                              detail::shown_json(r.body) +
                              " does not fit the protocol (" + std::to_string(attempt + 1) + " attempts)");
        ++retries_;
    }
}

}  // namespace typestar
