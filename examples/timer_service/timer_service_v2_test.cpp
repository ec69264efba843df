// What this shows: the same one-line test against TimerService 2.0, the upgrade: the 1.0 spec no
// longer holds, and the failure shows the counterexample, the proposed spec and the diff.
#include "timer_service_device.hpp"
#include "timer_service_v2.hpp"
#include "typestar/gtest/gtest.hpp"

// TIMER_SERVICE_SPEC: the CMake build points this at a copy of timer_service.yaml in the build
// tree, so the proposal the failing run writes lands there and not next to the approved spec.
TYPESTAR_SPEC_TESTS(TIMER_SERVICE_SPEC,
                    [] { return timer_service::make_device<timer_service::v2::TimerService>("2.0"); });
