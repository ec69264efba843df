// The device side of the trace-cmp collector (typestar/device/trace_cmp.hpp): weak references to the
// collector, which a test binary links only through typestar_trace_comparisons.
#include "typestar/device/trace_cmp.hpp"

extern "C" std::set<std::int64_t>* typestar_trace_cmp_swap(std::set<std::int64_t>* to) noexcept
    __attribute__((weak));

namespace typestar::trace_cmp {

bool linked() noexcept { return &typestar_trace_cmp_swap != nullptr; }

Recording::Recording(std::set<std::int64_t>& out) noexcept {
    if (linked()) previous_ = typestar_trace_cmp_swap(&out);
}

Recording::~Recording() {
    if (linked()) (void)typestar_trace_cmp_swap(previous_);
}

}  // namespace typestar::trace_cmp
