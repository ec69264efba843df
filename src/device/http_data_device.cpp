#include "typestar/device/http_data_device.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "data_protocol.hpp"
#include "http_answers.hpp"
#include "http_transport.hpp"
#include "protocol.hpp"
#include "typestar/core/error.hpp"
#include "typestar/log/logging.hpp"

namespace typestar {

using json = nlohmann::json;

// The same transport as HttpDevice (detail::HttpTransport); requests are counted, retries not.
struct HttpDataDevice::Transport : detail::HttpTransport {
    using detail::HttpTransport::HttpTransport;

    json request(const HttpConfig& config, const char* method, const std::string& path, const std::string& body,
                 const std::string& what, std::size_t retries) {
        return HttpTransport::request(
            {method, path, body, config.request_timeout, retries, "device " + config.url + ": " + what});
    }
};

HttpDataDevice::HttpDataDevice(HttpConfig config)
    : config_(std::move(config)), transport_(std::make_unique<Transport>(config_, requests_, nullptr)) {
    adopt(detail::fetch_status(*transport_, config_));
}

HttpDataDevice::HttpDataDevice(HttpConfig config, detail::StatusAnswer status)
    : config_(std::move(config)), transport_(std::make_unique<Transport>(config_, requests_, nullptr)) {
    adopt(std::move(status));
}

void HttpDataDevice::adopt(detail::StatusAnswer status) {
    if (!status.data)
        throw DeviceError("device " + config_.url +
                          ": the agent serves no data device (its /v1/status declares no `data` signature; "
                          "a typestate device is learned and checked without data)");
    class_name_ = std::move(status.status.name);
    framework_ = std::move(status.status.framework);
    signature_ = std::move(*status.data);
}

HttpDataDevice::~HttpDataDevice() { end_session(); }

bool HttpDataDevice::serves_data(HttpConfig config) {
    std::uint64_t requests = 0;
    Transport t(config, requests, nullptr);
    return detail::fetch_status(t, config).data.has_value();
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
    transport_->end_session(id, "device " + config_.url);
}

void HttpDataDevice::reset() {
    end_session();
    session_ = transport_->create_session("device " + config_.url);
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
