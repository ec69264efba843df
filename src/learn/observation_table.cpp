#include "typestar/learn/observation_table.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace typestar {

namespace {

constexpr std::uint64_t kHashMultiplier = 0x9E3779B97F4A7C15ull;

std::uint64_t extend_hash(std::uint64_t hash, Symbol s) noexcept {
    hash ^= static_cast<std::uint64_t>(s) + 0x632BE59BD9B4E019ull + (hash << 6) + (hash >> 2);
    return hash * kHashMultiplier;
}

bool shortlex_less(const Word& a, const Word& b) {
    if (a.size() != b.size()) return a.size() < b.size();
    return a < b;
}

}  // namespace

ObservationTable::ObservationTable(std::size_t num_inputs)
    : num_inputs_(num_inputs), index_(16, RowHash{this}, RowEq{this}) {
    if (num_inputs == 0) throw std::invalid_argument("an observation table needs at least one input");
    for (Symbol a = 0; a < num_inputs; ++a) add_suffix(Word{a});
    const RowId root = add_row({});
    promote(root);
}

bool ObservationTable::has_suffix(const Word& e) const {
    return std::find(suffixes_.begin(), suffixes_.end(), e) != suffixes_.end();
}

bool ObservationTable::add_suffix(const Word& e) {
    if (e.empty()) throw std::invalid_argument("an observation table suffix must not be empty");
    if (has_suffix(e)) return false;
    suffixes_.push_back(e);
    offsets_.push_back(width_);
    width_ += e.size();
    index_valid_ = false;
    return true;
}

ObservationTable::RowId ObservationTable::add_row(Word access) {
    const auto id = static_cast<RowId>(rows_.size());
    Row row;
    row.access = std::move(access);
    rows_.push_back(std::move(row));
    unchecked_.push_back(id);
    return id;
}

void ObservationTable::promote(RowId row) {
    assert(!rows_[row].state);
    const auto state = static_cast<StateId>(short_rows_.size());
    rows_[row].state = state;
    short_rows_.push_back(row);
    std::vector<RowId> children(num_inputs_);
    for (Symbol a = 0; a < num_inputs_; ++a) {
        Word access = rows_[row].access;
        access.push_back(a);
        children[a] = add_row(std::move(access));
    }
    rows_[row].children = std::move(children);
    if (index_valid_ && rows_[row].filled_columns == suffixes_.size()) index_.insert(row);
    else index_valid_ = false;
}

void ObservationTable::fill(MembershipOracle& oracle, std::optional<Symbol> pad, const Predictor* predictor) {
    std::vector<Query> batch;
    std::vector<std::pair<RowId, std::size_t>> touched;  // row, first new column
    for (RowId r = 0; r < rows_.size(); ++r) {
        Row& row = rows_[r];
        if (row.filled_columns == suffixes_.size()) continue;
        touched.emplace_back(r, row.filled_columns);
    }
    if (touched.empty()) {
        if (!index_valid_) rebuild_index();
        return;
    }
    for (const auto& [r, first] : touched) rows_[r].cells.resize(width_);
    // Padded suffixes and scratch answers for rows outside SQ.
    std::vector<Word> padded;
    std::size_t scratch_size = 0;
    if (pad) {
        padded.reserve(suffixes_.size());
        for (const Word& e : suffixes_) {
            padded.push_back(e);
            padded.back().push_back(*pad);
        }
        for (const auto& [r, first] : touched)
            if (!rows_[r].state)
                for (std::size_t c = first; c < suffixes_.size(); ++c) scratch_size += suffixes_[c].size() + 1;
    }
    std::vector<Symbol> scratch(scratch_size);
    Word probe, probe_out;
    std::vector<Symbol*> copy_to;  // per query: the cell a padded answer goes to, else null
    std::size_t used = 0;
    for (const auto& [r, first] : touched) {
        Row& row = rows_[r];
        for (std::size_t c = first; c < suffixes_.size(); ++c) {
            Symbol* cell = row.cells.data() + offsets_[c];
            // Seeded: a cell the oracle cannot look up is predicted instead of asked.
            if (predictor != nullptr) {
                probe.assign(row.access.begin(), row.access.end());
                probe.insert(probe.end(), suffixes_[c].begin(), suffixes_[c].end());
                probe_out.resize(probe.size());
                if (!oracle.lookup(probe, probe_out) &&
                    (*predictor)(row.access, suffixes_[c], std::span<Symbol>(cell, suffixes_[c].size()))) {
                    ++predicted_cells_;
                    continue;
                }
            }
            if (pad && !row.state) {
                // The pad is a look-ahead: a cache that knows the cell (e.g. from a parent's padded
                // word) answers without it.
                batch.push_back(Query{row.access, padded[c], std::span<Symbol>(scratch.data() + used, padded[c].size()), 1});
                copy_to.push_back(cell);
                used += padded[c].size();
            } else {
                batch.push_back(Query{row.access, suffixes_[c], std::span<Symbol>(cell, suffixes_[c].size())});
                copy_to.push_back(nullptr);
            }
        }
    }
    oracle.query_all(batch);
    for (std::size_t i = 0; i < batch.size(); ++i)
        if (copy_to[i] != nullptr) std::copy(batch[i].answer.begin(), batch[i].answer.end() - 1, copy_to[i]);
    bool short_changed = false;
    for (const auto& [r, first] : touched) {
        Row& row = rows_[r];
        std::uint64_t h = row.hash;
        for (std::size_t i = offsets_[first]; i < width_; ++i) h = extend_hash(h, row.cells[i]);
        row.hash = h;
        row.filled_columns = suffixes_.size();
        if (row.state) short_changed = true;
        if (first != 0 || row.state) unchecked_.push_back(r);  // new rows are already queued
    }
    if (short_changed || !index_valid_) rebuild_index();
}

void ObservationTable::rebuild_index() {
    index_.clear();
    index_.reserve(short_rows_.size() * 2);
    for (RowId r : short_rows_) {
        assert(rows_[r].filled_columns == suffixes_.size());
        index_.insert(r);
    }
    index_valid_ = true;
    // Every row may now match differently.
    unchecked_.clear();
    for (RowId r = 0; r < rows_.size(); ++r)
        if (!rows_[r].state) unchecked_.push_back(r);
}

std::vector<ObservationTable::RowId> ObservationTable::unclosed() {
    if (!index_valid_) rebuild_index();
    std::sort(unchecked_.begin(), unchecked_.end());
    unchecked_.erase(std::unique(unchecked_.begin(), unchecked_.end()), unchecked_.end());
    std::vector<RowId> open;
    for (RowId r : unchecked_) {
        const Row& row = rows_[r];
        if (row.state) continue;
        if (row.filled_columns != suffixes_.size())
            throw std::logic_error("ObservationTable::unclosed called before fill");
        if (index_.find(r) == index_.end()) open.push_back(r);
    }
    unchecked_.clear();
    // One row per distinct signature: the shortlex-least.
    std::sort(open.begin(), open.end(), [&](RowId a, RowId b) {
        if (rows_[a].hash != rows_[b].hash) return rows_[a].hash < rows_[b].hash;
        if (rows_[a].cells != rows_[b].cells) return rows_[a].cells < rows_[b].cells;
        return shortlex_less(rows_[a].access, rows_[b].access);
    });
    std::vector<RowId> result;
    for (std::size_t i = 0; i < open.size(); ++i) {
        if (i > 0 && rows_[open[i]].cells == rows_[open[i - 1]].cells) {
            unchecked_.push_back(open[i]);  // matches the promoted one; check again later
            continue;
        }
        result.push_back(open[i]);
    }
    std::sort(result.begin(), result.end(),
              [&](RowId a, RowId b) { return shortlex_less(rows_[a].access, rows_[b].access); });
    return result;
}

std::optional<StateId> ObservationTable::state_of(RowId row) const {
    if (rows_[row].state) return rows_[row].state;
    assert(index_valid_);
    const auto it = index_.find(row);
    if (it == index_.end()) return std::nullopt;
    return rows_[*it].state;
}

ObservationTable::RowId ObservationTable::successor_row(StateId state, Symbol input) const {
    return rows_[short_rows_.at(state)].children.at(input);
}

std::vector<Word> ObservationTable::access_sequences() const {
    std::vector<Word> result;
    result.reserve(short_rows_.size());
    for (RowId r : short_rows_) result.push_back(rows_[r].access);
    return result;
}

MealyMachine ObservationTable::hypothesis(const Alphabet& inputs, const Alphabet& outputs) const {
    if (inputs.size() != num_inputs_) throw std::invalid_argument("hypothesis: input alphabet size differs");
    std::vector<Transition> table(short_rows_.size() * num_inputs_);
    for (StateId s = 0; s < short_rows_.size(); ++s) {
        const Row& row = rows_[short_rows_[s]];
        for (Symbol a = 0; a < num_inputs_; ++a) {
            const auto target = state_of(row.children[a]);
            if (!target) throw std::logic_error("hypothesis: the observation table is not closed");
            table[s * num_inputs_ + a] = Transition{*target, row.cells[offsets_[a]]};
        }
    }
    return MealyMachine(inputs, outputs, 0, std::move(table));
}

}  // namespace typestar
