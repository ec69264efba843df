// A bundled class whose guard is in its code, not in its interface (issue 28): set(v) takes any v in
// 0..99, but after set(7) the next get() is refused. A sampler of 0..99 (both ends and two seeded
// draws) misses 7; the constant 7 that get() compares against is found by comparison tracing.
#pragma once

#include <memory>

#include "typestar/device/purpose.hpp"

namespace typestar::test {

class MagicRegister {
public:
    void set(int v);  ///< throws std::out_of_range outside 0..99
    int get() const;  ///< throws std::logic_error before a set, and after set(7)
    void clear();

private:
    int value_ = 0;
    bool set_ = false;
};

/// The learning purpose: set(v: int), partition `any` = range [0, 99]; get; clear.
[[nodiscard]] ClassDefinition magic_register_purpose();

}  // namespace typestar::test
