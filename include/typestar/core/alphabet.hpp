// Alphabets and words. Symbols are dense integer ids per alphabet; names appear only at the edges.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace typestar {

/// Dense id of a symbol within one alphabet.
using Symbol = std::uint32_t;
/// A word over one alphabet.
using Word = std::vector<Symbol>;

/// An ordered set of symbol names, each interned to the id of its position.
class Alphabet {
public:
    Alphabet() = default;
    /// Throws std::invalid_argument on a duplicate name.
    explicit Alphabet(std::vector<std::string> names);

    /// The id of `name`, adding it at the end when new.
    Symbol intern(std::string_view name);
    [[nodiscard]] std::optional<Symbol> find(std::string_view name) const;
    /// The id of `name`; throws std::out_of_range when absent.
    [[nodiscard]] Symbol at(std::string_view name) const;
    [[nodiscard]] bool contains(std::string_view name) const { return find(name).has_value(); }
    /// The name of `id`; throws std::out_of_range when out of range.
    [[nodiscard]] const std::string& name(Symbol id) const;
    [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }
    [[nodiscard]] bool empty() const noexcept { return names_.empty(); }
    [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }
    /// Ids ordered by name (the canonical order for printing and breadth-first search).
    [[nodiscard]] std::vector<Symbol> sorted_ids() const;

    bool operator==(const Alphabet& other) const { return names_ == other.names_; }

private:
    std::vector<std::string> names_;
    std::map<std::string, Symbol, std::less<>> index_;
};

/// Names of a word's symbols.
[[nodiscard]] std::vector<std::string> names_of(const Word& word, const Alphabet& alphabet);
/// A word's names joined by `separator`; "ε" for the empty word.
[[nodiscard]] std::string to_string(const Word& word, const Alphabet& alphabet,
                                    std::string_view separator = " ");
/// The word of `names`; throws std::out_of_range naming the first unknown symbol.
[[nodiscard]] Word word_of(const std::vector<std::string>& names, const Alphabet& alphabet);

}  // namespace typestar
