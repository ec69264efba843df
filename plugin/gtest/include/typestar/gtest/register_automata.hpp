// Deprecated: register-automaton specs are registered like every spec, with TYPESTAR_SPEC_TESTS /
// typestar::register_spec_tests and a DataDeviceFactory (typestar/gtest/gtest.hpp): one SpecTests
// with a test plan per kind. The names below stay for one release (CHANGELOG.md) and forward to it.
//
//     TYPESTAR_SPEC_TESTS("std_priority_queue.yaml", []() -> std::unique_ptr<typestar::DataDevice> {
//         return std::make_unique<typestar::InProcessDataDevice>(make_queue_purpose()); });
#pragma once

#include <filesystem>
#include <source_location>

#include "typestar/gtest/gtest.hpp"

namespace typestar {

/// Deprecated: typestar::register_spec_tests(spec, DataDeviceFactory, ...) does the same.
[[deprecated("use typestar::register_spec_tests with a DataDeviceFactory (typestar/gtest/gtest.hpp)")]]
void register_register_automaton_tests(const std::filesystem::path& spec, DataDeviceFactory factory = {},
                                       SpecTestOptions options = {},
                                       std::source_location where = std::source_location::current());

namespace detail {
/// TYPESTAR_RA_SPEC_TESTS at static-initialization time (deprecated with it). Returns true.
[[deprecated("TYPESTAR_RA_SPEC_TESTS is deprecated: use TYPESTAR_SPEC_TESTS with a data device factory")]]
bool queue_register_automaton_tests(const char* spec, DataDeviceFactory factory = {}, SpecTestOptions options = {},
                                    std::source_location where = std::source_location::current());
}  // namespace detail

}  // namespace typestar

/// Deprecated (one release): `TYPESTAR_SPEC_TESTS("spec.yaml", data_factory[, options]);` does the
/// same; using this macro compiles with a deprecation warning.
#define TYPESTAR_RA_SPEC_TESTS(spec, ...)                                                          \
    [[maybe_unused]] static const bool TYPESTAR_DETAIL_CAT(typestar_ra_spec_tests_, __LINE__) =   \
        ::typestar::detail::queue_register_automaton_tests((spec)__VA_OPT__(, ) __VA_ARGS__)
