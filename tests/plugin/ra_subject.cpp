// A test binary for the plugin's register-automaton tests: the spec named by TYPESTAR_RA_SUBJECT_SPEC
// (default: specs/ra/std_priority_queue.yaml) against std::priority_queue through the data purpose
// API (one TYPESTAR_SPEC_TESTS with a data device factory), as the min-queue the spec describes, or as a max-queue (a mutant) when
// TYPESTAR_RA_SUBJECT_QUEUE=max.
#include <cstdlib>
#include <string>

#include "support/data_purposes.hpp"
#include "typestar/gtest/gtest.hpp"
#include "typestar/gtest/register_automata.hpp"  // the deprecated names (TYPESTAR_RA_SUBJECT_DEPRECATED)

namespace {

std::string spec_path() {
    const char* s = std::getenv("TYPESTAR_RA_SUBJECT_SPEC");
    return s != nullptr && *s != '\0' ? s : std::string(TYPESTAR_SOURCE_DIR) + "/specs/ra/std_priority_queue.yaml";
}

bool max_queue() {
    const char* q = std::getenv("TYPESTAR_RA_SUBJECT_QUEUE");
    return q != nullptr && std::string(q) == "max";
}

std::unique_ptr<typestar::DataDevice> make_queue() {
    if (max_queue())
        return std::make_unique<typestar::InProcessDataDevice>(
            typestar::testing_support::priority_queue_purpose<std::less<>>());
    return std::make_unique<typestar::InProcessDataDevice>(typestar::testing_support::priority_queue_purpose());
}
}  // namespace

#ifdef TYPESTAR_RA_SUBJECT_DEPRECATED
// The deprecated macro of one release ago still registers the same tests (with a warning, silenced
// here: plugin_ra_deprecated_subject).
TYPESTAR_RA_SPEC_TESTS(spec_path().c_str(), make_queue);
#else
TYPESTAR_SPEC_TESTS(spec_path().c_str(), make_queue);  // a data device factory: the register-automaton kind
#endif
