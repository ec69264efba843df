// The spec reader's class, shared by its parts (private to src/spec): spec_reader.cpp (the document,
// the top level, symbols and states: format version 1), spec_reader_v2.cpp (version 2's callin
// declarations, partitions, 'unknown' and the Mealy keys) and spec_reader_sections.cpp (bounds,
// timing, assumptions, provenance). One reader: each part defines members of the one Reader.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec_detail.hpp"
#include "typestar/spec/spec.hpp"
#include "yaml_tree.hpp"

namespace typestar::spec::detail {

/// What a file reading version 1 says when it meets a version-2 construct.
constexpr std::string_view kNeedsV2 = " (this file says 'typestar: 1')";

/// `words` joined by ", ", the last two by `last_joiner` (" or ").
[[nodiscard]] std::string quoted_list(std::span<const std::string_view> words, std::string_view last_joiner);

/// One key of a map: its text, where it is, and its value.
struct Entry {
    std::string key;
    Location where;
    Node value;
};

/// Reads one YAML spec (parse_spec): every problem becomes a Diagnostic with its file, line and
/// column, collected and thrown once as SpecError in file order (fail()); never printed here.
class Reader {
public:
    Reader(std::string file, const ReadLimits& limits) : file_(std::move(file)), limits_(limits) {}

    Spec read(const std::string& text);

private:
    void error(Location where, std::string message) {
        diagnostics_.push_back(Diagnostic{file_, where.line, where.column, std::move(message)});
    }
    void error(const Node& at, std::string message) {
        error(location_of(at.Mark()), std::move(message));
    }

    /// The entries of `map` with distinct keys, in file order. Reports non-name keys and
    /// duplicates (`what` names the kind of key, e.g. "key", "state"; `where` the map, e.g.
    /// " in state 'Idle'"). Keys that are not names are dropped.
    std::vector<Entry> entries(const Node& map, std::string_view what, const std::string& where);
    /// Reports keys of `entries` not in `allowed`, with a did-you-mean.
    void check_keys(const std::vector<Entry>& entries, std::span<const std::string_view> allowed,
                    const std::string& where, bool list_allowed);
    static const Entry* find(const std::vector<Entry>& entries, std::string_view key);

    std::optional<int> read_version(const Entry& entry);
    void read_name(const Entry& entry, Typestate& typestate);
    /// Reads a symbol list; `kind` is "callin" or "callback".
    std::vector<std::pair<std::string, Location>> read_symbols(const Entry& entry, std::string_view kind);
    /// Reads one v2 callin declaration (`item` a map of one signature to details, or a signature
    /// scalar); appends its abstract inputs to `symbols`. nullopt (reported) when malformed.
    std::optional<CallinDeclaration> read_declaration(const Node& item, std::vector<std::pair<std::string, Location>>& inputs);
    /// Parses `name(p: type, ...)` or `name`; reports at `at`.
    std::optional<CallinDeclaration> read_signature(const std::string& text, Location at);
    void read_partitions(const Node& node, CallinDeclaration& declaration,
                         std::vector<std::pair<std::string, Location>>& inputs);
    /// Where a partition's parts were written, for the guard checks' messages.
    struct PartitionPlaces {
        Location name;
        Location guard;
        std::map<std::string, Location> values{};  // first place of each listed value
    };
    /// The guards of `declaration`'s partitions that are expressions (docs/spec-format-v2.md,
    /// "Guards"): each well formed, satisfied by every value its partition lists, and satisfied by
    /// no value another partition lists.
    void check_partition_guards(const CallinDeclaration& declaration, const std::vector<PartitionPlaces>& places);
    void read_unknown(const Entry& entry, const std::string& state, Typestate& typestate, SourceMap& source,
                      const std::vector<Entry>& enabled);
    /// "undeclared callin 'x' in state 'S'", with a hint when `x` names a partitioned callin or
    /// a partition that does not exist.
    std::string undeclared_input(const std::string& input, const std::string& state) const;
    void read_bounds(const Entry& entry, Bounds& bounds);
    void read_timing(const Entry& entry, Timing& timing);
    void read_assumptions(const Entry& entry, Assumptions& assumptions);
    void read_provenance(const Entry& entry, Provenance& provenance);
    std::optional<std::size_t> read_count(const Entry& entry, std::string_view what, std::size_t minimum);
    std::optional<double> read_milliseconds(const Entry& entry);
    std::optional<std::string> read_string(const Entry& entry, std::string_view what);

    /// Resolves a target state name; reports and returns nullopt when it is not a state.
    std::optional<StateId> target(const Entry& entry, std::string_view what, const std::string& state);
    void read_state(const Entry& entry, StateId id, Typestate& typestate, SourceMap& source);
    /// Reads the Mealy keys of v2 (`outputs`, `absorbing`, top-level `wait`) into `typestate`.
    void read_mealy_keys(const std::vector<Entry>& top, Typestate& typestate, bool has_callbacks);
    void read_symbol_map(const Entry& entry, const std::string& state, bool callins,
                         Typestate& typestate, SourceMap& source, std::vector<Entry>& enabled);

    // The steps of read(), in order.
    /// The first document's root map; reports (and throws) malformed YAML, aliases the reader
    /// refuses, a second document, an empty document or a root that is not a map.
    Node read_document(const std::string& text, DocumentScan& documents);
    /// The format version (alone when unsupported), `kind`, unknown and missing top-level keys.
    void read_header(const std::vector<Entry>& top, const Node& root);
    /// `name`, the callins (with v2 declarations), the callbacks and the Mealy keys.
    void read_alphabet(const std::vector<Entry>& top, Spec& spec);
    /// The entries of `states` (null when absent), numbering each state; reports a reserved name.
    std::vector<Entry> read_state_names(const Entry* states);
    /// One empty definition per state; throws when the transition table would exceed the limit.
    void make_states(const Entry* states, const std::vector<Entry>& state_entries, Spec& spec);
    /// With `absorbing: []`, reports each state that leaves a callin's answer out.
    void check_answers_given(const std::vector<Entry>& state_entries, const Typestate& typestate);
    /// Resolves `initial`; `has_states` false keeps an unknown name quiet (no state to name).
    void read_initial(const Entry& entry, bool has_states, Typestate& typestate);

    /// Throws every diagnostic collected so far, in file order.
    [[noreturn]] void fail();

    std::string file_;
    ReadLimits limits_;
    detail::SuggestionBudget suggestions_;
    std::vector<Diagnostic> diagnostics_;
    // Declared symbols: name -> (index, location) for callins and callbacks.
    std::map<std::string, std::pair<std::size_t, Location>, std::less<>> callins_;
    std::map<std::string, std::pair<std::size_t, Location>, std::less<>> callbacks_;
    /// Named callin outputs (Mealy devices, v2 `outputs:`): name -> index.
    std::map<std::string, std::size_t, std::less<>> outputs_;
    /// `err` may be a named output (v2 `absorbing: []`).
    bool err_is_output_ = false;
    /// v2 `wait: false`: no quiescence input, so no callbacks, `quiet` or `wait` in a state.
    bool no_wait_ = false;
    std::map<std::string, StateId, std::less<>> state_ids_;
    int version_ = kFormatVersion;
    std::vector<CallinDeclaration> declarations_;
    std::vector<std::string_view> state_names_;  // views into the state entries' keys, for did-you-mean
};

}  // namespace typestar::spec::detail
