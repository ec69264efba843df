// The observation table of L* for Mealy machines (DroidStar §4.2, Algorithm 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_set>
#include <vector>

#include "typestar/core/mealy.hpp"
#include "typestar/sul/oracle.hpp"

namespace typestar {

/// T : (SQ ∪ SQ·Σ) -> (E -> outputs). Rows are the short prefixes SQ (state representatives,
/// prefix-closed, pairwise distinct) and their one-input extensions; columns are the suffixes E,
/// which always start with the single inputs in id order. A cell holds the last |e| outputs of
/// MOracle(u·e). Rows are integers: a row's signature is the flat vector of its cells' outputs,
/// hashed incrementally, so closedness is one hash look-up per row.
///
/// The table only asks; the oracle stack decides what runs (a cache answers cells past an `err`
/// or through a quiet `wait` without the device).
class ObservationTable {
public:
    using RowId = std::uint32_t;

    /// Predicts the outputs of `suffix` after `access` (writes |suffix| outputs) without a query;
    /// returns false when it has no prediction (the cell is then asked).
    using Predictor =
        std::function<bool(std::span<const Symbol> access, std::span<const Symbol> suffix, std::span<Symbol> answer)>;

    /// A table with SQ = {ε} and E = the single inputs 0..num_inputs-1 (nothing filled yet).
    explicit ObservationTable(std::size_t num_inputs);
    // Rows are hashed through a pointer to the table: not copyable or movable.
    ObservationTable(const ObservationTable&) = delete;
    ObservationTable& operator=(const ObservationTable&) = delete;

    /// Adds suffix `e` (non-empty) as a new column unless present; returns whether it was added.
    bool add_suffix(const Word& e);
    [[nodiscard]] bool has_suffix(const Word& e) const;
    [[nodiscard]] const std::vector<Word>& suffixes() const noexcept { return suffixes_; }

    /// Asks every missing cell, in one batch. A cell of a row outside SQ is asked as u·e·p, `pad`
    /// (if given) appended as an optional look-ahead (Query::optional_tail): one more input costs no
    /// reset, and if the row is later promoted, that word is already the cell (e[1..]·p) of its
    /// child row u·e[0], which a cache then answers without a run. With a `predictor`, a cell the
    /// oracle cannot look up is predicted instead of asked (speculative cells, for seeded learning:
    /// the equivalence oracle then judges the hypothesis). Throws what the oracle throws.
    void fill(MembershipOracle& oracle, std::optional<Symbol> pad = std::nullopt,
              const Predictor* predictor = nullptr);
    /// Cells filled by a predictor so far.
    [[nodiscard]] std::size_t predicted_cells() const noexcept { return predicted_cells_; }

    /// After fill(): one row per missing state (FillTable/line 3 of Algorithm 1): rows of SQ·Σ whose
    /// signature matches no short prefix, one per distinct signature, the shortlex-least of each,
    /// in shortlex order. Empty when the table is closed.
    [[nodiscard]] std::vector<RowId> unclosed();
    /// Moves `row` into SQ (adding its one-input extensions as unfilled rows).
    void promote(RowId row);
    /// Number of states (short prefixes).
    [[nodiscard]] std::size_t num_states() const noexcept { return short_rows_.size(); }
    /// Total number of rows.
    [[nodiscard]] std::size_t num_rows() const noexcept { return rows_.size(); }
    /// The state (index in SQ order) whose row equals `row`'s; nullopt if none. After fill().
    [[nodiscard]] std::optional<StateId> state_of(RowId row) const;
    /// The row reached from state `state`'s row by `input` (a row of SQ·Σ or SQ).
    [[nodiscard]] RowId successor_row(StateId state, Symbol input) const;
    /// The short prefix of each state, in state order (state 0 is ε).
    [[nodiscard]] std::vector<Word> access_sequences() const;

    /// BuildMM (Algorithm 1, line 8) over the given alphabets: states in SQ order, state 0 initial.
    /// Requires a filled, closed table. `outputs` must contain every output id in the table.
    [[nodiscard]] MealyMachine hypothesis(const Alphabet& inputs, const Alphabet& outputs) const;

private:
    struct Row {
        Word access;
        std::vector<Symbol> cells;         // concatenated outputs, one block per column
        std::uint64_t hash = 0;            // of cells[0, filled_width)
        std::size_t filled_columns = 0;
        std::optional<StateId> state;      // set for short prefixes
        std::vector<RowId> children;       // one per input, for short prefixes
    };
    struct RowHash {
        const ObservationTable* table;
        std::size_t operator()(RowId r) const noexcept { return static_cast<std::size_t>(table->rows_[r].hash); }
    };
    struct RowEq {
        const ObservationTable* table;
        bool operator()(RowId a, RowId b) const noexcept { return table->rows_[a].cells == table->rows_[b].cells; }
    };

    RowId add_row(Word access);
    void rebuild_index();

    std::size_t num_inputs_;
    std::vector<Word> suffixes_;
    std::vector<std::size_t> offsets_;  // offsets_[c] = start of column c in a row's cells
    std::size_t width_ = 0;             // total cells length of a filled row
    std::vector<Row> rows_;
    std::vector<RowId> short_rows_;
    std::unordered_set<RowId, RowHash, RowEq> index_;  // short rows by signature
    bool index_valid_ = false;
    std::vector<RowId> unchecked_;      // rows whose closedness is not yet known
    std::size_t predicted_cells_ = 0;
};

}  // namespace typestar
