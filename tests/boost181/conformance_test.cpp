// Boost.Asio 1.81: the steady_timer and TCP socket devices of src/targets/, compiled against Boost
// 1.81's headers, against the specs learned with 1.74 (one CTest test per transition, DroidStar
// Algorithm 2 at the spec's bound), plus a check that these devices really are 1.81 builds.
#include <boost/version.hpp>
#include <chrono>
#include <gtest/gtest.h>

#include "typestar/gtest/gtest.hpp"
#include "typestar/targets/targets.hpp"

static_assert(BOOST_VERSION / 100 == 1081, "tests/boost181 must be compiled against Boost 1.81's headers");

// The timer's duration is 40 ms here, not the default 15 ms (tmax 120 ms, not 50 ms): with 15 ms,
// a loaded machine sometimes let the timer expire between two callins of one word, and
// callbacks_drained then refuses the next callin (`err`), a false non-conformance (see
// docs/upgrades/boost_asio_1.81.md). The typestate does not depend on the duration.
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/steady_timer.yaml", [] {
    using namespace std::chrono_literals;
    typestar::targets::SteadyTimerOptions options;
    options.duration = 40ms;
    options.timing = {120ms, 0ms};
    return typestar::targets::make_target_device(typestar::targets::steady_timer(options));
});
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/tcp_socket.yaml",
                    [] { return typestar::targets::make_target_device(typestar::targets::tcp_socket()); });

// The devices report the Boost version their translation units were compiled with.
TEST(Boost181Build, TheDevicesAreBoost181Builds) {
    EXPECT_EQ(typestar::targets::steady_timer().framework, "boost-1.81.0");
    EXPECT_EQ(typestar::targets::tcp_socket().framework, "boost-1.81.0+peer_echoes");
}
