// What this shows: the whole conformance test of TimerService 1.0 is one line: every transition of
// timer_service.yaml becomes a gtest test (run `./timer_service_tests --gtest_list_tests`).
#include "timer_service.hpp"
#include "timer_service_device.hpp"
#include "typestar/gtest/gtest.hpp"

TYPESTAR_SPEC_TESTS("timer_service.yaml",
                    [] { return timer_service::make_device<timer_service::TimerService>("1.0"); });
