// The real JDK targets against their committed specs: one CTest test per transition of
// specs/targets/java_*.yaml, run by the GoogleTest plugin against the JVM agents the CTest fixture
// `jvm_agents` started (DroidStar Algorithm 2, the spec's bound).
#include "jvm_targets.hpp"
#include "typestar/gtest/gtest.hpp"

using typestar::jvm_testing::jvm_target;

// Absolute spec paths: with ccache's base_dir set, __FILE__ (and so the plugin's "relative to the
// registering file") becomes relative to the compiler's working directory, not to this file.

TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/java_future.yaml", [] { return jvm_target("java_future"); });
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/java_piped.yaml", [] { return jvm_target("java_piped"); });
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/java_signature.yaml", [] { return jvm_target("java_signature"); });
// The parameterised purposes learned over their concrete values (inputs `callin/vK`).
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/java_piped_concrete.yaml",
                    [] { return jvm_target("java_piped_params"); });
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/java_signature_concrete.yaml",
                    [] { return jvm_target("java_signature_params"); });
// The same agents against the specs learned with alphabet refinement (format v2): the plugin runs
// each abstract input with the values its partition declares (PartitionedDevice).
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/java_piped_params.yaml",
                    [] { return jvm_target("java_piped_params"); });
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/java_signature_params.yaml",
                    [] { return jvm_target("java_signature_params"); });
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/java_timer.yaml", [] { return jvm_target("java_timer"); });
TYPESTAR_SPEC_TESTS(TYPESTAR_SOURCE_DIR "/specs/targets/java_watch.yaml", [] { return jvm_target("java_watch"); });
