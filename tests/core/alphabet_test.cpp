#include "typestar/core/alphabet.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace typestar {
namespace {

TEST(Alphabet, InternsDenseIdsInOrderOfFirstUse) {
    Alphabet a;
    EXPECT_EQ(a.intern("start"), 0u);
    EXPECT_EQ(a.intern("stop"), 1u);
    EXPECT_EQ(a.intern("start"), 0u);
    EXPECT_EQ(a.size(), 2u);
    EXPECT_EQ(a.name(1), "stop");
    EXPECT_EQ(a.at("stop"), 1u);
    EXPECT_FALSE(a.find("pause").has_value());
}

TEST(Alphabet, RejectsDuplicatesAndUnknownIds) {
    EXPECT_THROW(Alphabet({"a", "b", "a"}), std::invalid_argument);
    Alphabet a({"x"});
    EXPECT_THROW((void)a.name(3), std::out_of_range);
    EXPECT_THROW((void)a.at("y"), std::out_of_range);
}

TEST(Alphabet, SortedIdsFollowNames) {
    Alphabet a({"wait", "cancel", "execute"});
    EXPECT_EQ(a.sorted_ids(), (std::vector<Symbol>{1, 2, 0}));
}

TEST(Word, ConvertsBetweenNamesAndIds) {
    Alphabet a({"a", "b"});
    const Word w = word_of({"b", "a", "b"}, a);
    EXPECT_EQ(w, (Word{1, 0, 1}));
    EXPECT_EQ(to_string(w, a), "b a b");
    EXPECT_EQ(to_string({}, a), "ε");
    EXPECT_EQ(names_of(w, a), (std::vector<std::string>{"b", "a", "b"}));
    EXPECT_THROW((void)word_of({"c"}, a), std::out_of_range);
}

}  // namespace
}  // namespace typestar
