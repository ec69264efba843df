// The same class, compiled without comparison tracing for tracecmp_off_tests (a source file's
// compile options are per directory, so the instrumented file cannot be shared between the two).
#include "magic_register.cpp"  // NOLINT(bugprone-suspicious-include)
