#include "typestar/device/data_purpose.hpp"

#include <set>

#include "typestar/core/error.hpp"

namespace typestar {

void DataCallbackSink::emit(std::string_view name, std::vector<ra::Value> values) noexcept {
    try {
        std::lock_guard<std::mutex> lock(mutex_);
        if (closed_) {
            if (error_.empty())
                error_ = "callback '" + std::string(name) + "' arrived after its instance's query ended";
            return;
        }
        pending_.push_back({std::string(name), std::move(values)});
    } catch (...) {  // bad_alloc: nothing to report it with
    }
}

void DataCallbackSink::fail(std::string_view message) noexcept {
    try {
        std::lock_guard<std::mutex> lock(mutex_);
        if (error_.empty()) error_ = std::string(message);
    } catch (...) {
    }
}

std::vector<DataAnswer> DataCallbackSink::take(std::string& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    error = error_;
    std::vector<DataAnswer> out;
    out.swap(pending_);
    return out;
}

void DataCallbackSink::close() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
}

bool DataCallbackSink::open() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !closed_;
}

void DataDefinition::validate() const {
    if (name.empty()) throw std::invalid_argument("data purpose: no class name");
    if (!reset) throw std::invalid_argument("data purpose '" + name + "': no reset snippet");
    if (callins.empty()) throw std::invalid_argument("data purpose '" + name + "': no callin");
    auto check_params = [&](const std::string& symbol, const std::vector<ra::Parameter>& params) {
        std::set<std::string> seen;
        for (const auto& p : params) {
            if (p.name.empty()) throw std::invalid_argument("data purpose '" + name + "': '" + symbol + "' has a parameter without a name");
            if (!seen.insert(p.name).second)
                throw std::invalid_argument("data purpose '" + name + "': '" + symbol + "' has two parameters '" + p.name + "'");
        }
    };
    std::set<std::string> inputs;
    for (const auto& c : callins) {
        if (c.name.empty()) throw std::invalid_argument("data purpose '" + name + "': a callin without a name");
        if (!inputs.insert(c.name).second) throw std::invalid_argument("data purpose '" + name + "': callin '" + c.name + "' declared twice");
        if (!c.snippet) throw std::invalid_argument("data purpose '" + name + "': callin '" + c.name + "' has no snippet");
        check_params(c.name, c.params);
    }
    std::set<std::string> outs;
    for (const auto& o : outputs) {
        if (o.name.empty()) throw std::invalid_argument("data purpose '" + name + "': an output without a name");
        if (!outs.insert(o.name).second) throw std::invalid_argument("data purpose '" + name + "': output '" + o.name + "' declared twice");
        check_params(o.name, o.params);
    }
    if (outputs.empty()) throw std::invalid_argument("data purpose '" + name + "': no output");
    if (!refused.empty()) {
        bool ok = false;
        for (const auto& o : outputs) ok = ok || (o.name == refused && o.params.empty());
        if (!ok)
            throw std::invalid_argument("data purpose '" + name + "': refused_as('" + refused +
                                        "') is not a declared output without parameters");
    }
    std::set<std::string> consts;
    for (const auto& c : constants)
        if (c.name.empty() || !consts.insert(c.name).second)
            throw std::invalid_argument("data purpose '" + name + "': constant '" + c.name + "' is empty or declared twice");
}

ra::RegisterAutomaton DataDefinition::signature() const {
    ra::RegisterAutomaton sig;
    sig.name = name;
    for (const auto& c : callins) sig.inputs.push_back({c.name, c.params, false});
    sig.outputs = outputs;
    sig.constants = constants;
    return sig;
}

InProcessDataDevice::InProcessDataDevice(DataDefinition definition, std::string label)
    : def_(std::move(definition)), label_(std::move(label)) {
    def_.validate();
    signature_ = def_.signature();
    if (label_.empty()) label_ = def_.name + " (in-process data)";
}

InProcessDataDevice::~InProcessDataDevice() {
    if (sink_) sink_->close();
}

DeviceDescription InProcessDataDevice::describe() const {
    DeviceDescription d;
    d.name = label_;
    d.class_name = def_.name;
    d.framework = def_.framework;
    return d;
}

void InProcessDataDevice::reset() {
    if (sink_) {
        sink_->close();
        old_sinks_.assign(1, sink_);  // the previous instance: a callback from it now is late
    }
    instance_.reset();
    sink_ = std::make_shared<DataCallbackSink>();
    try {
        instance_ = def_.reset(sink_);
    } catch (const std::exception& e) {
        throw DeviceError("device " + label_ + ": the reset snippet failed: " + e.what());
    }
    if (!instance_) throw DeviceError("device " + label_ + ": the reset snippet returned no instance");
}

ra::DataSymbol InProcessDataDevice::answer_of(const DataAnswer& a, const std::string& callin) const {
    const auto index = signature_.output_index(a.output);
    if (!index)
        throw DeviceError("device " + label_ + ": callin '" + callin + "' answered '" + a.output +
                          "', which is not a declared output");
    const auto& decl = signature_.outputs[*index];
    if (decl.params.size() != a.values.size())
        throw DeviceError("device " + label_ + ": callin '" + callin + "' answered '" + a.output + "' with " +
                          std::to_string(a.values.size()) + " values; it declares " +
                          std::to_string(decl.params.size()));
    return ra::DataSymbol{*index, a.values};
}

ra::DataSymbol InProcessDataDevice::step(const ra::DataSymbol& input) {
    if (!instance_) throw DeviceError("device " + label_ + ": step without reset");
    if (input.symbol >= def_.callins.size())
        throw DeviceError("device " + label_ + ": no input " + std::to_string(input.symbol));
    const auto& callin = def_.callins[input.symbol];
    if (input.values.size() != callin.params.size())
        throw DeviceError("device " + label_ + ": callin '" + callin.name + "' takes " +
                          std::to_string(callin.params.size()) + " values, got " + std::to_string(input.values.size()));
    std::string error;
    for (const auto& old : old_sinks_) {
        (void)old->take(error);
        if (!error.empty()) throw DeviceError("device " + label_ + ": " + error);
    }
    auto before = sink_->take(error);
    if (!error.empty()) throw DeviceError("device " + label_ + ": " + error);
    if (!before.empty())
        throw DeviceError("device " + label_ + ": callback '" + before.front().output +
                          "' arrived outside a callin (data devices are synchronous)");
    std::optional<DataAnswer> returned;
    bool refused = false;
    std::string refusal;
    try {
        returned = callin.snippet(instance_.get(), input.values);
    } catch (const std::exception& e) {
        refused = true;
        refusal = e.what();
    }
    auto callbacks = sink_->take(error);
    if (!error.empty()) throw DeviceError("device " + label_ + ": " + error);
    if (refused) {
        if (def_.refused.empty())
            throw DeviceError("device " + label_ + ": callin '" + callin.name + "' threw (" + refusal +
                              ") and the purpose declares no refused_as output");
        if (!callbacks.empty())
            throw DeviceError("device " + label_ + ": callin '" + callin.name + "' threw and emitted callback '" +
                              callbacks.front().output + "'");
        return answer_of(DataAnswer{def_.refused, {}}, callin.name);
    }
    if (returned && !callbacks.empty())
        throw DeviceError("device " + label_ + ": callin '" + callin.name + "' returned '" + returned->output +
                          "' and emitted callback '" + callbacks.front().output + "': one output per step");
    if (!returned) {
        if (callbacks.empty())
            throw DeviceError("device " + label_ + ": callin '" + callin.name + "' returned no output and no callback arrived");
        if (callbacks.size() > 1)
            throw DeviceError("device " + label_ + ": callin '" + callin.name + "' emitted " +
                              std::to_string(callbacks.size()) + " callbacks ('" + callbacks[0].output + "', '" +
                              callbacks[1].output + "'): one output per step");
        returned = callbacks.front();
    }
    return answer_of(*returned, callin.name);
}

}  // namespace typestar
