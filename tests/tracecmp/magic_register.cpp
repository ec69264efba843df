// The class under test: this translation unit alone is compiled with comparison tracing
// (typestar_trace_comparisons(... SOURCES magic_register.cpp) in tests/tracecmp/CMakeLists.txt).
#include "magic_register.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

namespace typestar::test {

void MagicRegister::set(int v) {
    if (v < 0 || v > 99) throw std::out_of_range("set: v outside 0..99");
    value_ = v;
    set_ = true;
}

int MagicRegister::get() const {
    if (!set_) throw std::logic_error("get before set");
    if (value_ == 7) throw std::logic_error("get after set(7)");
    return value_;
}

void MagicRegister::clear() { set_ = false; }

ClassDefinition magic_register_purpose() {
    return LearningPurpose<MagicRegister>("MagicRegister")
        .framework("tests-1")
        .reset([](const std::shared_ptr<CallbackSink>&) { return std::make_shared<MagicRegister>(); })
        .callin_with("set", {{"v", "int"}}, [](MagicRegister& r, const std::string& v) { r.set(std::stoi(v)); })
        .partition("set", "any", "v >= 0 && v <= 99", ValueGenerator::range(0, 99))
        .callin("get", [](MagicRegister& r) { (void)r.get(); })
        .callin("clear", [](MagicRegister& r) { r.clear(); })
        .timing({std::chrono::milliseconds(5), std::chrono::milliseconds(0)})
        .quiet_is_stable()
        .build();
}

}  // namespace typestar::test
