#include "typestar/device/data_device.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "../spec/spec_detail.hpp"
#include "typestar/core/error.hpp"
#include "typestar/device/connection.hpp"
#include "typestar/device/http_data_device.hpp"
#include "typestar/ra/format.hpp"

namespace typestar {

DeviceDescription DataDevice::describe() const {
    DeviceDescription d;
    d.name = name();
    d.class_name = signature().name;
    return d;
}

ra::RegisterAutomaton signature_of(const ra::RegisterAutomaton& ra) {
    ra::RegisterAutomaton sig;
    sig.name = ra.name;
    sig.inputs = ra.inputs;
    sig.outputs = ra.outputs;
    sig.constants = ra.constants;
    return sig;
}

ModelDataDevice::ModelDataDevice(ra::RegisterAutomaton automaton, std::string name)
    : ModelDataDevice(std::move(automaton), std::move(name), {}) {}

ModelDataDevice::ModelDataDevice(ra::RegisterAutomaton automaton, std::string name, std::vector<std::string> assumptions)
    : automaton_(std::make_unique<ra::RegisterAutomaton>(std::move(automaton))),
      name_(std::move(name)),
      assumptions_(std::move(assumptions)) {
    ra::check_valid(*automaton_);
    signature_ = std::make_unique<ra::RegisterAutomaton>(signature_of(*automaton_));
    sim_ = std::make_unique<ra::RaSimulator>(*automaton_);
}

ra::DataSymbol ModelDataDevice::step(const ra::DataSymbol& input) {
    try {
        return sim_->step(input);
    } catch (const Error& e) {  // an unknown input or a wrong arity: the harness, not the class
        throw DeviceError("device " + name_ + ": " + e.what());
    }
}

namespace {

/// A device's symbols renumbered into a spec's (adapt_to_signature).
class SignatureAdapter final : public DataDevice {
public:
    SignatureAdapter(const ra::RegisterAutomaton& spec, DataDevice& device)
        : device_(&device), signature_(signature_of(spec)) {
        std::vector<std::string> problems;
        auto types = [](const std::vector<ra::Parameter>& ps) {
            std::string t;
            for (const auto& p : ps) t += std::string(t.empty() ? "" : ", ") + ra::type_name(p.type);
            return "(" + t + ")";
        };
        const auto& dev = device.signature();
        for (const auto& in : spec.inputs) {
            const auto d = dev.input_index(in.name);
            if (!d) {
                problems.push_back("the device has no input '" + in.name + "'");
            } else if (types(dev.inputs[*d].params) != types(in.params)) {
                problems.push_back("input '" + in.name + "' takes " + types(dev.inputs[*d].params) +
                                   " on the device, " + types(in.params) + " in the spec");
            }
            inputs_.push_back(d.value_or(0));
        }
        outputs_.assign(dev.outputs.size(), 0);
        for (std::size_t k = 0; k < dev.outputs.size(); ++k) {
            const auto s = spec.output_index(dev.outputs[k].name);
            if (!s) {
                problems.push_back("the spec does not declare the device's output '" + dev.outputs[k].name + "'");
            } else if (types(spec.outputs[*s].params) != types(dev.outputs[k].params)) {
                problems.push_back("output '" + dev.outputs[k].name + "' carries " + types(dev.outputs[k].params) +
                                   " on the device, " + types(spec.outputs[*s].params) + " in the spec");
            }
            outputs_[k] = s.value_or(0);
        }
        if (!problems.empty()) {
            std::string text = "the device " + device.name() + " does not fit the signature of " + spec.name + ":";
            for (const auto& p : problems) text += "\n  " + p;
            throw std::invalid_argument(text);
        }
    }
    [[nodiscard]] const ra::RegisterAutomaton& signature() const override { return signature_; }
    [[nodiscard]] std::string name() const override { return device_->name(); }
    [[nodiscard]] DeviceDescription describe() const override { return device_->describe(); }
    [[nodiscard]] std::vector<std::string> assumptions() const override { return device_->assumptions(); }
    void reset() override { device_->reset(); }
    ra::DataSymbol step(const ra::DataSymbol& input) override {
        ra::DataSymbol in = input;
        in.symbol = inputs_.at(input.symbol);
        ra::DataSymbol out = device_->step(in);
        if (out.symbol >= outputs_.size())
            throw DeviceError("device " + device_->name() + ": answered output " + std::to_string(out.symbol) +
                              ", which it does not declare");
        out.symbol = outputs_[out.symbol];
        return out;
    }

private:
    DataDevice* device_;
    ra::RegisterAutomaton signature_;
    std::vector<std::size_t> inputs_;   // spec input -> device input
    std::vector<std::size_t> outputs_;  // device output -> spec output
};

}  // namespace

std::unique_ptr<DataDevice> adapt_to_signature(const ra::RegisterAutomaton& spec, DataDevice& device) {
    return std::make_unique<SignatureAdapter>(spec, device);
}

bool is_register_automaton_file(const std::filesystem::path& path) {
    if (spec::detail::lower_extension(path) == ".xml") return true;
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    // A top-level `kind:` key (no indentation), plain or quoted value, optional comment.
    static const std::regex kind(R"((^|\n)kind:[ \t]*["']?register-automaton["']?[ \t]*(#[^\n]*)?\r?(\n|$))");
    return std::regex_search(head, kind);
}

ra::RegisterAutomaton load_register_automaton(const std::filesystem::path& path, std::vector<std::string>* assumptions) {
    if (spec::detail::lower_extension(path) == ".xml") {
        ra::RalibImportOptions options;
        options.first_match = true;  // RALib's simulator takes the first transition whose guard holds
        options.assumptions = assumptions;  // DOUBLE read as int: named, never silent
        return ra::load_ralib_xml(path, options);
    }
    return ra::load_register_spec(path).automaton;
}

bool is_data_model_url(const std::string& url) {
    return url.rfind("model:", 0) == 0 && url.size() > 6 && is_register_automaton_file(url.substr(6));
}

bool agent_serves_data(const std::string& url) {
    HttpConfig config;
    config.url = url;
    config.token = find_token();
    if (config.token.empty()) throw DeviceError("device " + url + ": " + missing_token_message());
    return HttpDataDevice::serves_data(config);
}

}  // namespace typestar
