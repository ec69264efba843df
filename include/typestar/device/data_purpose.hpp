// The in-process purpose for classes with data: DroidStar's LearningPurpose (§2.1) for
// register automata. Callins take concrete values (typed parameters: `int` ordered, `id` compared
// only for equality) and answer an output with values: returned by the callin, or reported by a
// listener as a callback with values while the callin runs. DataPurpose<T> is the typed builder,
// InProcessDataDevice runs it (a DataDevice: learn it with ra::learn_register_automaton, check it
// with ra::check_register_automaton, serve it over /v1 with Agent(DataDevices{...})).
//
//     auto def = DataPurpose<MinQueue>("std_priority_queue")
//         .reset([](const auto&) { return std::make_shared<MinQueue>(); })
//         .callin("offer", {{"p", ra::DataType::Int}}, [](MinQueue& q, std::span<const ra::Value> v) {
//             return q.offer(v[0]) ? DataAnswer{"ok"} : DataAnswer{"nok"}; })
//         .callin("poll", {}, [](MinQueue& q, std::span<const ra::Value>) -> DataAnswer {
//             if (q.empty()) return {"nok"}; return {"out", {q.poll()}}; })
//         .output("ok").output("nok").output("out", {{"v", ra::DataType::Int}})
//         .build();
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "typestar/device/data_device.hpp"

namespace typestar {

/// One output with its values: a return of the callin or a callback.
struct DataAnswer {
    std::string output;
    std::vector<ra::Value> values{};
    bool operator==(const DataAnswer&) const = default;
};

/// Where listener code reports callbacks with values. Thread-safe; `emit` never throws. A data
/// device is synchronous: a callback counts for the callin during which it is emitted; one emitted
/// after its callin returned (or by an instance whose query ended) is a harness error, thrown as
/// DeviceError at the device's next step, never an answer.
class DataCallbackSink {
public:
    /// Reports the callback `name` with `values`.
    void emit(std::string_view name, std::vector<ra::Value> values = {}) noexcept;
    /// Reports a broken harness (thrown as DeviceError at the next step).
    void fail(std::string_view message) noexcept;

    /// Device side: takes the callbacks reported since the last call, and the first harness error.
    std::vector<DataAnswer> take(std::string& error);
    /// Device side: this instance's query ended; later emits are late.
    void close() noexcept;
    /// Device side: whether the instance is still in its query.
    [[nodiscard]] bool open() const;

private:
    mutable std::mutex mutex_;
    std::vector<DataAnswer> pending_;
    std::string error_;
    bool closed_ = false;
};

/// The type-erased definition an InProcessDataDevice runs. Build it with DataPurpose<T>.
struct DataDefinition {
    /// A callin with typed parameters. The snippet gets the instance and one value per parameter
    /// and returns the output (nullopt: the output is the one callback emitted during the call).
    /// Throwing means "refused": answered with `refused` when declared, else a DeviceError.
    struct Callin {
        std::string name;
        std::vector<ra::Parameter> params;
        std::function<std::optional<DataAnswer>(void*, std::span<const ra::Value>)> snippet;
    };
    std::string name;       ///< the class, e.g. "std_priority_queue"
    std::string framework;  ///< version string for provenance
    /// A fresh instance with its listeners registered on the sink.
    std::function<std::shared_ptr<void>(const std::shared_ptr<DataCallbackSink>&)> reset;
    std::vector<Callin> callins;
    std::vector<ra::SymbolDecl> outputs;  ///< returns and callbacks (SymbolDecl::callback)
    std::vector<ra::Constant> constants;
    /// The output (without parameters) answering a callin that throws; empty: a throw is a
    /// DeviceError naming the callin and the exception.
    std::string refused;

    /// Throws std::invalid_argument naming the problem: no name or reset snippet, no callin, an
    /// empty or duplicate symbol name (inputs and outputs separately) or parameter name, a callin
    /// without snippet, `refused` not a declared output without parameters.
    void validate() const;
    /// The signature (name, inputs, outputs, constants; no locations).
    [[nodiscard]] ra::RegisterAutomaton signature() const;
};

/// Typed builder of a DataDefinition for instances of `T` (see the header comment).
template <class T>
class DataPurpose {
public:
    explicit DataPurpose(std::string name) { def_.name = std::move(name); }

    /// The framework version reported by the device (default empty).
    DataPurpose& framework(std::string version) {
        def_.framework = std::move(version);
        return *this;
    }
    /// The reset snippet: a fresh instance with listeners registered on the sink.
    DataPurpose& reset(std::function<std::shared_ptr<T>(const std::shared_ptr<DataCallbackSink>&)> snippet) {
        def_.reset = [snippet = std::move(snippet)](const std::shared_ptr<DataCallbackSink>& sink) {
            return std::static_pointer_cast<void>(snippet(sink));
        };
        return *this;
    }
    /// A callin whose snippet returns its output. Throws std::invalid_argument when declared twice.
    DataPurpose& callin(const std::string& symbol, std::vector<ra::Parameter> params,
                        std::function<DataAnswer(T&, std::span<const ra::Value>)> snippet) {
        add(symbol, std::move(params),
            [snippet = std::move(snippet)](void* p, std::span<const ra::Value> v) -> std::optional<DataAnswer> {
                return snippet(*static_cast<T*>(p), v);
            });
        return *this;
    }
    /// A callin answered by the callback its listener emits during the call (exactly one).
    DataPurpose& callin_with_callback(const std::string& symbol, std::vector<ra::Parameter> params,
                                      std::function<void(T&, std::span<const ra::Value>)> snippet) {
        add(symbol, std::move(params),
            [snippet = std::move(snippet)](void* p, std::span<const ra::Value> v) -> std::optional<DataAnswer> {
                snippet(*static_cast<T*>(p), v);
                return std::nullopt;
            });
        return *this;
    }
    /// An output a callin returns, with typed parameters.
    DataPurpose& output(std::string symbol, std::vector<ra::Parameter> params = {}) {
        def_.outputs.push_back({std::move(symbol), std::move(params), false});
        return *this;
    }
    /// A callback output (emitted by listeners on the sink), with typed parameters.
    DataPurpose& callback(std::string symbol, std::vector<ra::Parameter> params = {}) {
        def_.outputs.push_back({std::move(symbol), std::move(params), true});
        return *this;
    }
    /// A named constant guards may compare with.
    DataPurpose& constant(std::string name, ra::DataType type, ra::Value value) {
        def_.constants.push_back({std::move(name), type, value});
        return *this;
    }
    /// The output answering a callin that throws (an output without parameters, e.g. "err").
    DataPurpose& refused_as(std::string output) {
        def_.refused = std::move(output);
        return *this;
    }
    /// The validated definition. Throws std::invalid_argument (DataDefinition::validate).
    [[nodiscard]] DataDefinition build() const {
        def_.validate();
        return def_;
    }

private:
    void add(const std::string& symbol, std::vector<ra::Parameter> params,
             std::function<std::optional<DataAnswer>(void*, std::span<const ra::Value>)> snippet) {
        for (const auto& c : def_.callins)
            if (c.name == symbol) throw std::invalid_argument("callin '" + symbol + "' declared twice");
        def_.callins.push_back({symbol, std::move(params), std::move(snippet)});
    }
    DataDefinition def_;
};

/// Runs a DataDefinition in this process: a fresh instance per reset, one output per callin.
class InProcessDataDevice final : public DataDevice {
public:
    /// Validates the definition (std::invalid_argument). `label` is name() (default
    /// "<class> (in-process data)").
    explicit InProcessDataDevice(DataDefinition definition, std::string label = {});
    ~InProcessDataDevice() override;
    InProcessDataDevice(const InProcessDataDevice&) = delete;
    InProcessDataDevice& operator=(const InProcessDataDevice&) = delete;

    [[nodiscard]] const ra::RegisterAutomaton& signature() const override { return signature_; }
    [[nodiscard]] std::string name() const override { return label_; }
    [[nodiscard]] DeviceDescription describe() const override;
    /// Ends the previous instance, makes a fresh one. Throws DeviceError when the reset snippet
    /// throws or returns nothing.
    void reset() override;
    /// Runs the callin. Throws DeviceError for an unknown input, a wrong number of values, an
    /// output that is not declared or has the wrong number of values, no output or two outputs
    /// (a return and a callback, or two callbacks), a late callback of an earlier step or
    /// instance, or a throwing callin without `refused`.
    ra::DataSymbol step(const ra::DataSymbol& input) override;
    [[nodiscard]] const DataDefinition& definition() const noexcept { return def_; }

private:
    ra::DataSymbol answer_of(const DataAnswer& a, const std::string& callin) const;

    DataDefinition def_;
    ra::RegisterAutomaton signature_;
    std::string label_;
    std::shared_ptr<DataCallbackSink> sink_;
    std::shared_ptr<void> instance_;
    std::vector<std::shared_ptr<DataCallbackSink>> old_sinks_;  // ended instances: late callbacks
};

}  // namespace typestar
