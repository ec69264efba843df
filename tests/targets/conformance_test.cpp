// The real targets against their committed specs: one CTest test per transition of
// specs/targets/*.yaml, run by the GoogleTest plugin (DroidStar Algorithm 2, the spec's bound).
#include "typestar/gtest/gtest.hpp"
#include "typestar/targets/targets.hpp"

TYPESTAR_SPEC_TESTS("../../specs/targets/sqlite.yaml",
                    [] { return typestar::targets::make_target_device(typestar::targets::sqlite()); });
TYPESTAR_SPEC_TESTS("../../specs/targets/steady_timer.yaml",
                    [] { return typestar::targets::make_target_device(typestar::targets::steady_timer()); });
TYPESTAR_SPEC_TESTS("../../specs/targets/tcp_socket.yaml",
                    [] { return typestar::targets::make_target_device(typestar::targets::tcp_socket()); });
