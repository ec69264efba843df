// The whole conformance test of PipeReader: every transition of the spec becomes a gtest test. The
// first run, without a spec, has one test that learns it (docs/gtest-plugin.md).
#include "pipe_reader_adapter.hpp"
#include "typestar/gtest/gtest.hpp"

TYPESTAR_SPEC_TESTS(PIPE_READER_SPEC, [] { return app::make_pipe_reader_device(); });
