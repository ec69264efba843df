#include "typestar/sul/equivalence.hpp"

#include <algorithm>

namespace typestar {

std::size_t Counterexample::first_difference() const noexcept {
    const std::size_t n = std::min({inputs.size(), expected.size(), actual.size()});
    for (std::size_t i = 0; i < n; ++i)
        if (expected[i] != actual[i]) return i;
    return n < inputs.size() ? n : inputs.size();
}

}  // namespace typestar
