// One front door for every kind: documents and devices of any kind, dispatched here.
// Design note: a front end (the `typestar` tool, a runner) loads a document — a typestate spec
// (YAML), a Mealy machine (DOT), a register automaton (`kind: register-automaton` YAML) or a RALib
// XML model — and opens a device URL once (open_subject: typestate or data device, as the URL
// says); then it calls learn_document, check_document, diff_documents or export_document, which
// choose the pipeline by kind (learn_spec / check_spec with the partition plan, or the register-
// automaton learner and suite) and return the one report shape with the messages that say what ran
// (learner, B as used, every assumption). The front end parses options, prints and writes files;
// it never asks what kind a file or a device is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/device/factory.hpp"
#include "typestar/ra/format.hpp"
#include "typestar/session/refinement.hpp"
#include "typestar/session/session.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {

/// What a document describes.
enum class DocumentKind {
    Typestate,          ///< a typestate spec or a Mealy machine (learn_spec, check_spec)
    RegisterAutomaton,  ///< a register automaton (learn_register_automaton, check_register_spec)
};

/// The file format a document was read from.
enum class DocumentFormat {
    TypestateYaml,          ///< a typestate spec (.yaml)
    MealyDot,               ///< a Mealy machine (.dot, .gv)
    RegisterAutomatonYaml,  ///< a `kind: register-automaton` spec (.yaml)
    RalibXml,               ///< a RALib register-automaton model (.xml)
};

/// The format of the file at `path`, by its extension and (YAML) its top-level `kind:` line
/// (is_register_automaton_file). Never throws; an unreadable file is TypestateYaml and its loader
/// names the problem.
[[nodiscard]] DocumentFormat document_format(const std::filesystem::path& path);

/// A loaded document of any kind.
struct Document {
    std::string path;
    DocumentFormat format = DocumentFormat::TypestateYaml;
    /// The spec's name, or (a DOT file) the file's stem as a spec name.
    std::string name;
    /// TypestateYaml: the spec.
    std::optional<spec::Spec> spec;
    /// Typestates: the spec's synchronous closure, or the DOT file's Mealy machine.
    std::optional<MealyMachine> machine;
    /// Register automata: the spec (RALib XML: distinguisher bound 2, no provenance).
    std::optional<ra::RaSpec> automaton;
    /// What reading the document assumed (RALib XML: a type read as another, e.g. DOUBLE as int);
    /// a check against it lists them.
    std::vector<std::string> assumptions;
    /// A kind registered with register_spec_kind (typestar/session/kind.hpp) that made this
    /// document; unset for the two built-in kinds, which the optionals above tell apart.
    std::optional<DocumentKind> registered_kind;

    [[nodiscard]] DocumentKind kind() const noexcept {
        if (registered_kind) return *registered_kind;
        return automaton ? DocumentKind::RegisterAutomaton : DocumentKind::Typestate;
    }
};

/// Loads the document at `path` (document_format). Throws SpecError with file:line:col diagnostics.
[[nodiscard]] Document load_document(const std::filesystem::path& path);

/// What `typestar validate` says of a valid document, e.g. "5 states, B=2" or "register automaton:
/// 8 locations, 3 registers at most, 24 transitions". A typestate with partitions adds which
/// partition guards are checked expressions and which only words: "; guards: checked write[empty];
/// in words connect[null]" (docs/spec-format-v2.md, "Guards").
[[nodiscard]] std::string document_summary(const Document& document);

/// The texts a document is exported as.
enum class ExportFormat {
    Yaml,      ///< canonical YAML (a RALib XML model becomes a register-automaton spec)
    Picture,   ///< the typestate or register automaton as DOT (draw SVG from it)
    MealyDot,  ///< typestates: the synchronous closure as Mealy DOT
    Json,      ///< typestates: the spec as JSON
};

/// `document` as `format`. Throws std::invalid_argument naming the document when the format does
/// not apply to its kind (or a Mealy DOT file, which has no spec to export: import it first).
[[nodiscard]] std::string export_document(const Document& document, ExportFormat format);

/// What diff_documents found.
struct DocumentDiff {
    bool same = true;
    std::string text;         ///< the report as `typestar diff` prints it
    std::string picture_dot;  ///< typestates, when asked: both typestates overlaid (diff_dot.hpp)
    /// Two typestate specs (not a Mealy DOT file, not register automata): what `text` says, as the
    /// JSON of `typestar diff --format json` (the changed transitions by the old spec's state names,
    /// callins and callbacks added or removed, unpaired states); empty otherwise. The runners read it.
    std::string json;
};

/// Compares the behaviour of two documents of one kind: typestates with spec::diff_specs (plus the
/// bound change between two specs), register automata by a shortest separating data trace of up to
/// `depth` steps (after comparing signatures). `picture`: also draw the typestate overlay. Throws
/// std::invalid_argument for two kinds, or a picture of register automata; SpecError for a DOT file
/// that is no synchronous closure.
[[nodiscard]] DocumentDiff diff_documents(const Document& old_document, const Document& new_document,
                                          std::size_t depth = 4, bool picture = false);

/// How a spec and the device a front end will run it on disagree, before any word runs: the class,
/// the callins (not for a device with parameterised callins, whose spec names abstract inputs) and
/// the callbacks. Every front end reports it the same way (the runners read it from
/// `typestar suite --format json --device-status FILE`).
struct DeviceMismatch {
    std::vector<std::string> differences;  ///< empty: they agree
    /// The spec is of another class: nothing is re-learned (the wrong spec or the wrong device);
    /// other callins or callbacks of the same class: the check runs and proposes from scratch.
    bool another_class = false;
    /// "SPEC does not match the learning purpose of NAME; no word was run:" and the differences,
    /// one per line; for another class also what to check. Empty when they agree.
    std::string message;
};

/// Compares `document` (the spec at `spec_path`) with the device whose /v1/status body is
/// `device_status` (a runner's purpose as its agent serves it), read as every client reads it
/// (read_agent_status; `who` names where it came from in errors). A register automaton is compared
/// by class and typed signature (the status's `data`). Throws DeviceError for a body that is not a status.
[[nodiscard]] DeviceMismatch compare_with_device(const Document& document, const std::string& spec_path,
                                                 const std::string& device_status, const std::string& who);

/// Writes `typestar suite --format json` of `document` at `method` and `bound` to `out`, streamed
/// (one test per line, the counts after them): the words, their expected answers and purposes, and
/// for a typestate spec the spec's state before each input, the tests per transition as the gtest
/// plugin names them, and the quiescence double-check's words. The machine interface the JUnit and
/// node:test runners read. With `mismatch` (the spec against the device the runner will serve), also
/// `device_mismatch` (differences, another_class, message). For a register automaton (method
/// alg2 only, else std::invalid_argument): `kind` "register-automaton", its tests per transition
/// (`test_suite`, `transitions` with name, state, input, line) and no words: the generalised
/// Algorithm 2 builds them on the device (`typestar check --format json` runs them).
void write_suite_json(std::ostream& out, const Document& document, SuiteMethod method, std::size_t bound,
                      const DeviceMismatch* mismatch = nullptr);

/// Writes `typestar suite` (text) of `document` at `method` and `bound` to `out`, streamed: a header
/// with the totals ("# DroidStar Algorithm 2 suite of X (distinguisher bound B=2): N tests, M
/// inputs, W waits"), then one numbered line per test, its inputs, expected answers and purpose.
/// Throws std::invalid_argument for a register automaton (suite_model).
void write_suite_text(std::ostream& out, const Document& document, SuiteMethod method, std::size_t bound);

/// A device opened from a URL once (open_device with DeviceKind::Any), with what the session knows
/// of it.
struct Subject {
    std::string url;
    OpenedDevice device;  ///< exactly one of typestate / data
    /// For the learned spec: a model's spec name, else the class the device describes, else the URL
    /// after its scheme (a data device: its signature's name).
    std::string name;
    /// model:PATH: the document it simulates (the truth, for the perfect oracle).
    std::optional<Document> model;
    /// A kind registered with register_spec_kind whose device this is (see Document::registered_kind).
    std::optional<DocumentKind> registered_kind;

    [[nodiscard]] DocumentKind kind() const noexcept {
        if (registered_kind) return *registered_kind;
        return device.data ? DocumentKind::RegisterAutomaton : DocumentKind::Typestate;
    }
};

/// Opens `url` (typestar/device/factory.hpp; `model:` also takes a Mealy DOT file). Throws like
/// open_device.
[[nodiscard]] Subject open_subject(const std::string& url, const DeviceOptions& options = {});

/// What check_document ran and found, in the one report shape.
struct DocumentCheck {
    CheckReport report;
    /// The message: "conforms: ..." with the evidence note, or "counterexample: ..." with the trace.
    std::string text;
    /// "N queries executed, M waits" (typestates), or empty.
    std::string counts;
};

/// The bound a check of `document` runs by default: the spec's distinguisher bound B for
/// Algorithm 2 (2 for a Mealy machine or RALib XML), 0 extra states for W/Wp.
[[nodiscard]] std::size_t document_bound(const Document& document, SuiteMethod method);

/// The typestate model whose suite `typestar suite` prints. Throws std::invalid_argument for a
/// register automaton (its suite is built on the device: run it with `typestar check`).
[[nodiscard]] const MealyMachine& suite_model(const Document& document);

/// "DroidStar Algorithm 2", "W-method" or "Wp-method", for messages.
[[nodiscard]] const char* suite_method_title(SuiteMethod method) noexcept;
/// "distinguisher bound B=2" (Algorithm 2) or "2 extra states" (W, Wp), for messages.
[[nodiscard]] std::string suite_bound_text(SuiteMethod method, std::size_t bound);

/// Checks `subject` against `document` at `bound` (default: document_bound): a typestate through
/// the partition plan (plan_partitions: a spec's partitions over a parameterised device run with
/// their values, named as an assumption; values that answer differently are a Fail whose reason
/// says which) and check_spec; a register automaton with the generalised Algorithm 2 suite over
/// the spec's signature (check_register_spec). Throws std::invalid_argument (a kind mismatch,
/// another signature or other inputs, W/Wp for a register automaton), DeviceError,
/// NondeterminismError.
[[nodiscard]] DocumentCheck check_document(const Document& document, Subject& subject,
                                           SuiteMethod method = SuiteMethod::Algorithm2,
                                           std::optional<std::size_t> bound = std::nullopt);

/// Options of learn_document. Plain data with defaults (LearnOptions' for typestates).
struct LearnRequest {
    LearnerKind learner = LearnerKind::LSharp;
    /// nullopt: the perfect oracle (a model device's truth).
    std::optional<SuiteMethod> method = SuiteMethod::Algorithm2;
    std::size_t bound = 2;               ///< B (alg2), extra states (W/Wp)
    bool auto_bound = false;             ///< alg2: raise B (EquivalenceOptions::auto_bound)
    std::optional<std::size_t> states;   ///< W/Wp: an absolute bound on the device's states
    std::optional<std::uint64_t> budget; ///< a hard cap on executed queries
    std::string from;                    ///< seed: a typestate spec (.yaml) or Mealy machine (.dot) file
    RefinementOptions refinement;        ///< devices with parameterised callins
    /// Data devices: SL*'s `+c` increments the learner tries (`x + c` terms), added to the device
    /// signature's own `increments` (each from 1 to 1000); the learned spec records them.
    std::vector<std::int64_t> increments;
    /// Typestates: random words per transition of the search beyond the bound
    /// (EquivalenceOptions::explore_words_per_transition; 0: off).
    std::size_t explore = EquivalenceOptions::kDefaultExploreWordsPerTransition;
    /// Typestates: the timing probe as learning's first phase (LearnOptions::probe; `--probe`).
    /// Unset: it runs only for a real-time device that declares no tmax.
    std::optional<TimingProbeOptions> probe;
};

/// What learn_document made, for every kind.
struct LearnedDocument {
    bool converged = true;
    std::string failure;   ///< why not converged (nothing is written then)
    std::string yaml;      ///< the spec's text, or empty when the machine is no synchronous closure
    std::string not_a_closure;  ///< why `yaml` is empty
    std::string dot;       ///< the picture: the Mealy machine, or the register automaton
    QueryStats stats;
    std::size_t states = 0;  ///< states of the Mealy machine, or locations
    double seconds = 0;
    /// The one `--stats` schema of `learn` as JSON text, for every kind: the counter's totals and
    /// phases, the rounds, the states (locations) and the seconds; a register automaton adds
    /// registers, transitions, converged and tree_queries beside them.
    std::string stats_json;
    /// The messages after learning ("typestar: learned ..." lines: learner, B as used, assumptions).
    std::string report;
};

/// Learns `subject` by its kind: learn_spec (or learn_with_refinement when the partition plan says
/// so) for a typestate device, the register-automaton learner for a data device; provenance is
/// built once (the tool, `subject.url`, the learner). Throws std::invalid_argument for options that
/// do not apply to the kind (naming them), and like learn_spec.
[[nodiscard]] LearnedDocument learn_document(Subject& subject, const LearnRequest& request);

}  // namespace typestar
