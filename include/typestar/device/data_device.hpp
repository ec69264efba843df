// Devices with data: what a register-automaton learner or suite drives. A data device
// answers a data word (input symbols with concrete parameter values) with one output per input,
// whose values are concrete too. Design note: a DataDevice is a ra::DataSul, so every concrete query
// goes through the one RA query path (ra::DataOracle: prefix cache, counters, determinism check);
// the device adds what front ends ask of it: its declared signature (inputs, outputs, typed
// parameters, constants) and who it is. Devices by URL, for the command line and the plugin:
//   model:PATH.yaml   a `kind: register-automaton` spec, simulated (ModelDataDevice)
//   model:PATH.xml    a RALib register-automaton model, simulated with RALib's first-match rule
//   http://HOST:PORT  a /v1 agent serving a data device (HttpDataDevice; device/PROTOCOL.md "Data")
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "typestar/ra/automaton.hpp"
#include "typestar/ra/oracle.hpp"
#include "typestar/sul/device.hpp"

namespace typestar {

/// A device over data words. Not thread-safe: one query at a time. reset() starts a fresh
/// instance, step() answers one input (throws DeviceError when the harness fails; a refused call is
/// an output the signature declares, never an exception).
class DataDevice : public ra::DataSul {
public:
    /// The name, inputs, outputs (typed parameters) and constants the device declares; no
    /// locations. Fixed for the device's lifetime.
    [[nodiscard]] virtual const ra::RegisterAutomaton& signature() const = 0;
    /// A short name for messages and provenance, e.g. "model:specs/ra/std_priority_queue.yaml".
    [[nodiscard]] virtual std::string name() const = 0;
    /// Who the device is (default: name(), and the signature's name as the class).
    [[nodiscard]] virtual DeviceDescription describe() const;
    /// The automaton a simulation runs (model devices only; nullptr for real devices). Only
    /// comparisons with the truth (benches, `learn --equivalence perfect`) may use it.
    [[nodiscard]] virtual const ra::RegisterAutomaton* truth() const { return nullptr; }
    /// What a verdict on this device relies on beyond the theory, one sentence each (e.g. a RALib
    /// `double` read as `int`); every learn and check report lists them. Default: nothing.
    [[nodiscard]] virtual std::vector<std::string> assumptions() const { return {}; }
};

/// A register automaton simulated as a device (ra::RaSimulator: `fresh` outputs are 1 + the
/// largest value seen in the run).
class ModelDataDevice final : public DataDevice {
public:
    /// Takes the automaton (check_valid must pass: throws typestar::Error listing the problems).
    ModelDataDevice(ra::RegisterAutomaton automaton, std::string name);
    /// The same, with what reading the model assumed (load_register_automaton's `assumptions`).
    ModelDataDevice(ra::RegisterAutomaton automaton, std::string name, std::vector<std::string> assumptions);
    [[nodiscard]] std::vector<std::string> assumptions() const override { return assumptions_; }
    [[nodiscard]] const ra::RegisterAutomaton& signature() const override { return *signature_; }
    [[nodiscard]] std::string name() const override { return name_; }
    [[nodiscard]] const ra::RegisterAutomaton* truth() const override { return automaton_.get(); }
    void reset() override { sim_->reset(); }
    ra::DataSymbol step(const ra::DataSymbol& input) override;

private:
    std::unique_ptr<ra::RegisterAutomaton> automaton_;
    std::unique_ptr<ra::RegisterAutomaton> signature_;
    std::unique_ptr<ra::RaSimulator> sim_;
    std::string name_;
    std::vector<std::string> assumptions_;
};

/// The signature of `ra`: its name, inputs, outputs and constants, without locations.
[[nodiscard]] ra::RegisterAutomaton signature_of(const ra::RegisterAutomaton& ra);

/// `device` seen through the signature `spec` (e.g. a spec's inputs and outputs, in the spec's
/// order): symbols are matched by name, and must have the same parameter types. Keeps a reference
/// to `device` (which must outlive the adapter). Throws std::invalid_argument listing every
/// mismatch (a spec symbol the device lacks, different parameter types, a device output the spec
/// does not declare).
[[nodiscard]] std::unique_ptr<DataDevice> adapt_to_signature(const ra::RegisterAutomaton& spec, DataDevice& device);

/// The typed signature (inputs and outputs with their parameters' types, status field `data`) of
/// the data device whose /v1/status body is `text` (a runner's data purpose as its agent would
/// serve it), read as every client reads it; nullopt for a typestate device's status. Throws
/// DeviceError "<who>: ..." for text that is not a status (read_agent_status).
[[nodiscard]] std::optional<ra::RegisterAutomaton> read_agent_data_signature(const std::string& text,
                                                                            const std::string& who);

/// True when `path` is a register-automaton file: a `.xml` file (RALib's format), or YAML whose
/// top-level `kind:` line says `register-automaton`. Reads at most the first 64 KiB; false when it
/// cannot be read (the loader then names the problem).
[[nodiscard]] bool is_register_automaton_file(const std::filesystem::path& path);

/// Loads a register automaton from a v2 `kind: register-automaton` YAML spec or a RALib XML model
/// (imported with RALib's first-match rule, RalibImportOptions::first_match; a RALib type read as
/// another, e.g. DOUBLE as `int`, is appended to `assumptions` when given). Throws SpecError with
/// file:line:col diagnostics.
[[nodiscard]] ra::RegisterAutomaton load_register_automaton(const std::filesystem::path& path,
                                                            std::vector<std::string>* assumptions = nullptr);

/// The data device named by `url` (see the header comment). Throws std::invalid_argument for an
/// unknown scheme (naming the known ones), SpecError for a bad model file, DeviceError for an
/// unreachable agent or one that serves no data device.
[[nodiscard]] std::unique_ptr<DataDevice> make_data_device(const std::string& url);

/// True when `url` names a data device without contacting anything: `model:` with a
/// register-automaton file (is_register_automaton_file). An `http://` URL is a data device when
/// its agent's /v1/status declares `data`: open it with open_device(url, options, DeviceKind::Any),
/// whose result says the kind (one status request).
[[nodiscard]] bool is_data_model_url(const std::string& url);

/// Reads the agent's /v1/status and says whether it declares a data signature (`data`). Throws
/// DeviceError when the agent cannot be reached or refuses the token. Deprecated: asking first and
/// opening then reads the status twice; open_device(url, options, DeviceKind::Any) reads it once
/// and says what kind it opened.
[[nodiscard, deprecated("use open_device(url, options, DeviceKind::Any): one status request decides the kind")]]
bool agent_serves_data(const std::string& url);

}  // namespace typestar
