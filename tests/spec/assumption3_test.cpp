// DroidStar Assumption 3 (at most one callback enabled per state) in the YAML reader: a second,
// independent check of the diagnostic beside the two_callbacks fixture — three callbacks, its exact
// position (the second callback's key), the other problems still reported, one callback accepted.
// And the writer's reserved state name.
#include <gtest/gtest.h>

#include <string>

#include "typestar/core/error.hpp"
#include "typestar/core/typestate.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar {
namespace {

std::vector<Diagnostic> diagnostics_of(const std::string& text) {
    try {
        (void)spec::parse_spec(text, "three.yaml");
    } catch (const SpecError& e) {
        return e.diagnostics();
    }
    return {};
}

TEST(Assumption3, ThreeCallbacksInOneStateAreNamedAtTheSecond) {
    const std::string text =
        "typestar: 1\n"
        "name: Loader\n"
        "callins: [load]\n"
        "callbacks: [onDone, onError, onProgress]\n"
        "initial: Idle\n"
        "states:\n"
        "  Idle:\n"
        "    callins:\n"
        "      load: Busy\n"
        "  Busy:\n"
        "    callbacks:\n"
        "      onProgress: Busy\n"
        "      onDone: Idle\n"
        "      onError: Idle\n";
    const auto d = diagnostics_of(text);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].str(),
              "three.yaml:13:7: non-determinism (DroidStar Assumption 3): state 'Busy' enables 3 callbacks "
              "'onProgress', 'onDone' and 'onError'");
}

TEST(Assumption3, OneCallbackPerStateIsFineAndEachOffendingStateIsReported) {
    const std::string one =
        "typestar: 1\n"
        "name: Loader\n"
        "callins: [load]\n"
        "callbacks: [onDone, onError]\n"
        "initial: Idle\n"
        "states:\n"
        "  Idle:\n"
        "    callins:\n"
        "      load: Busy\n"
        "  Busy:\n"
        "    callbacks:\n"
        "      onDone: Idle\n";
    EXPECT_TRUE(diagnostics_of(one).empty());
    const std::string two_states =
        "typestar: 1\n"
        "name: Loader\n"
        "callins: [load]\n"
        "callbacks: [onDone, onError]\n"
        "initial: Idle\n"
        "states:\n"
        "  Idle:\n"
        "    callins:\n"
        "      load: Busy\n"
        "    callbacks:\n"
        "      onError: Idle\n"
        "      onDone: Busy\n"
        "  Busy:\n"
        "    callbacks:\n"
        "      onDone: Idle\n"
        "      onError: Idle\n";
    const auto d = diagnostics_of(two_states);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].str(), "three.yaml:12:7: non-determinism (DroidStar Assumption 3): state 'Idle' enables two "
                          "callbacks 'onError' and 'onDone'");
    EXPECT_EQ(d[1].str(), "three.yaml:16:7: non-determinism (DroidStar Assumption 3): state 'Busy' enables two "
                          "callbacks 'onDone' and 'onError'");
}

TEST(WriterNames, TheClosureSinkNameIsReservedForStates) {
    // "__err" names the closure's error sink: a state called so would be read back as that sink.
    spec::Spec s;
    s.typestate.name = "Sink";
    s.typestate.callins = {"go"};
    s.typestate.states = {Typestate::State{"Idle", {StateId{1}}, {}, Typestate::Wait::Quiet, {}},
                          Typestate::State{"Next", {StateId{0}}, {}, Typestate::Wait::Quiet, {}}};
    EXPECT_NO_THROW((void)spec::write_spec(s));
    s.typestate.states[1].name = std::string(kErrorSinkName);
    try {
        (void)spec::write_spec(s);
        ADD_FAILURE() << "wrote a state named __err";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "cannot write spec: state name '__err' is empty or reserved");
    }
}

}  // namespace
}  // namespace typestar
