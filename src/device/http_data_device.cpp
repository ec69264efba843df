#include "typestar/device/http_data_device.hpp"

#include <random>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "data_protocol.hpp"
#include "http_answers.hpp"
#include "http_transport.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

using json = nlohmann::json;

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::logger("typestar.device"); }

}  // namespace

// The same transport as HttpDevice (detail::HttpTransport); requests are counted, retries not.
struct HttpDataDevice::Transport : detail::HttpTransport {
    using detail::HttpTransport::HttpTransport;

    json request(const HttpConfig& config, const char* method, const std::string& path, const std::string& body,
                 const std::string& what, std::size_t retries) {
        return HttpTransport::request(
            {method, path, body, config.request_timeout, retries, "device " + config.url + ": " + what});
    }
};

HttpDataDevice::HttpDataDevice(HttpConfig config) : config_(std::move(config)), transport_(std::make_unique<Transport>(config_, requests_, nullptr)) {
    const json status = transport_->request(config_, "GET", "/v1/status", "", "status", config_.retries);
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
    std::uint64_t requests = 0;
    Transport t(config, requests, nullptr);
    const json status = t.request(config, "GET", "/v1/status", "", "status", config.retries);
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
        transport_->request(config_, "DELETE", "/v1/sessions/" + id, "", "ending session " + id, 0);
    } catch (const std::exception& e) {
        log()->warn("{}: {}", config_.url, e.what());
    }
}

void HttpDataDevice::reset() {
    end_session();
    static thread_local std::mt19937_64 ids{std::random_device{}()};
    std::ostringstream id;
    id << std::hex << ids() << ids();
    const json r = transport_->request(config_, "POST", "/v1/sessions",
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
    const json r = transport_->request(config_, "POST", "/v1/sessions/" + session_ + "/callin",
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
