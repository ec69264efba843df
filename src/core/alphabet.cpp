#include "typestar/core/alphabet.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace typestar {

Alphabet::Alphabet(std::vector<std::string> names) {
    for (auto& n : names) {
        if (contains(n)) throw std::invalid_argument("duplicate symbol '" + n + "'");
        intern(n);
    }
}

Symbol Alphabet::intern(std::string_view name) {
    if (auto it = index_.find(name); it != index_.end()) return it->second;
    const auto id = static_cast<Symbol>(names_.size());
    names_.emplace_back(name);
    index_.emplace(names_.back(), id);
    return id;
}

std::optional<Symbol> Alphabet::find(std::string_view name) const {
    if (auto it = index_.find(name); it != index_.end()) return it->second;
    return std::nullopt;
}

Symbol Alphabet::at(std::string_view name) const {
    if (auto id = find(name)) return *id;
    throw std::out_of_range("unknown symbol '" + std::string(name) + "'");
}

const std::string& Alphabet::name(Symbol id) const {
    if (id >= names_.size()) throw std::out_of_range("symbol id " + std::to_string(id) + " out of range");
    return names_[id];
}

std::vector<Symbol> Alphabet::sorted_ids() const {
    std::vector<Symbol> ids;
    ids.reserve(index_.size());
    for (const auto& [name, id] : index_) ids.push_back(id);  // std::map iterates by name
    return ids;
}

std::vector<std::string> names_of(const Word& word, const Alphabet& alphabet) {
    std::vector<std::string> names;
    names.reserve(word.size());
    for (Symbol s : word) names.push_back(alphabet.name(s));
    return names;
}

std::string to_string(const Word& word, const Alphabet& alphabet, std::string_view separator) {
    if (word.empty()) return "ε";
    std::string text;
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (i) text += separator;
        text += alphabet.name(word[i]);
    }
    return text;
}

Word word_of(const std::vector<std::string>& names, const Alphabet& alphabet) {
    Word word;
    word.reserve(names.size());
    for (const auto& n : names) word.push_back(alphabet.at(n));
    return word;
}

}  // namespace typestar
