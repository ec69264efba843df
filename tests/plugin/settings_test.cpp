#include "typestar/gtest/settings.hpp"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace typestar {
namespace {

struct Args {
    explicit Args(std::vector<std::string> a) : storage(std::move(a)) {
        for (auto& s : storage) pointers.push_back(s.data());
        pointers.push_back(nullptr);
        argc = static_cast<int>(storage.size());
    }
    std::vector<std::string> rest() const { return {pointers.begin(), pointers.begin() + argc}; }
    std::vector<std::string> storage;
    std::vector<char*> pointers;
    int argc = 0;
};

Settings parse(Args& args, std::map<std::string, std::string> env = {}) {
    return parse_settings(args.argc, args.pointers.data(), [&env](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    });
}

TEST(Settings, DefaultsWithoutFlagsOrEnvironment) {
    Args args({"bin", "--gtest_filter=A.*"});
    const Settings s = parse(args);
    EXPECT_FALSE(s.update);
    EXPECT_FALSE(s.bound.has_value());
    EXPECT_EQ(s.device, "");
    EXPECT_FALSE(s.require_device);
    EXPECT_FALSE(s.ci);
    EXPECT_TRUE(s.errors.empty());
    EXPECT_EQ(args.rest(), (std::vector<std::string>{"bin", "--gtest_filter=A.*"}));
}

TEST(Settings, FlagsAreReadAndRemovedFromArgv) {
    Args args({"bin", "--typestar_update", "--gtest_brief=1", "--typestar_bound=3",
               "--typestar_device=model:x.yaml", "--typestar_require_device=yes"});
    const Settings s = parse(args);
    EXPECT_TRUE(s.update);
    EXPECT_EQ(s.bound, 3u);
    EXPECT_EQ(s.device, "model:x.yaml");
    EXPECT_TRUE(s.require_device);
    EXPECT_TRUE(s.errors.empty());
    EXPECT_EQ(args.rest(), (std::vector<std::string>{"bin", "--gtest_brief=1"}));
    EXPECT_EQ(args.pointers[static_cast<std::size_t>(args.argc)], nullptr);
}

TEST(Settings, EnvironmentIsTheFallbackAndFlagsWin) {
    Args none({"bin"});
    const Settings e = parse(none, {{"TYPESTAR_UPDATE", "1"}, {"TYPESTAR_BOUND", "4"},
                                    {"TYPESTAR_DEVICE", "inproc:asynctask"}, {"TYPESTAR_REQUIRE_DEVICE", "true"},
                                    {"CI", "true"}});
    EXPECT_TRUE(e.update);
    EXPECT_EQ(e.bound, 4u);
    EXPECT_EQ(e.device, "inproc:asynctask");
    EXPECT_TRUE(e.require_device);
    EXPECT_TRUE(e.ci);

    Args flags({"bin", "--typestar_update=false", "--typestar_bound=1", "--typestar_device=model:a.yaml"});
    const Settings f = parse(flags, {{"TYPESTAR_UPDATE", "1"}, {"TYPESTAR_BOUND", "4"}, {"TYPESTAR_DEVICE", "x"}});
    EXPECT_FALSE(f.update);
    EXPECT_EQ(f.bound, 1u);
    EXPECT_EQ(f.device, "model:a.yaml");
}

TEST(Settings, FalseWordsAndEmptyValuesAreNotSet) {
    for (const char* v : {"", "0", "false", "FALSE", "no", "off"}) {
        Args args({"bin"});
        EXPECT_FALSE(parse(args, {{"CI", v}}).ci) << "CI=" << v;
    }
    Args args({"bin"});
    EXPECT_TRUE(parse(args, {{"CI", "woodpecker"}}).ci);
}

TEST(Settings, BadValuesAndUnknownFlagsAreErrorsNotExceptions) {
    Args args({"bin", "--typestar_bound=x", "--typestar_update=maybe", "--typestar_device", "--typestar_colour"});
    const Settings s = parse(args, {{"TYPESTAR_BOUND", "-1"}});
    EXPECT_EQ(s.errors,
              (std::vector<std::string>{
                  "TYPESTAR_BOUND=-1: not a non-negative integer",
                  "--typestar_bound=x: expected --typestar_bound=B, B a non-negative integer",
                  "--typestar_update=maybe: expected 1, 0, true, false, yes, no, on or off",
                  "--typestar_device: expected --typestar_device=URL",
                  "--typestar_colour: unknown flag (known: --typestar_update, --typestar_bound=B, "
                  "--typestar_learner=lstar|lsharp, --typestar_device=URL, --typestar_require_device, "
                  "--typestar_tmax=MS, --typestar_tmin=MS, "
                  "--typestar_serve=HOST:PORT, --typestar_serve_spec=NAME, --typestar_token_file=PATH)"}));
    EXPECT_EQ(args.rest(), (std::vector<std::string>{"bin"}));
}

TEST(Settings, ServeFlags) {
    Args args({"bin", "--typestar_serve=127.0.0.1:0", "--typestar_serve_spec=Timer", "--typestar_token_file=/t/tok",
               "--gtest_brief"});
    const Settings s = parse(args);
    EXPECT_TRUE(s.errors.empty());
    EXPECT_EQ(s.serve, "127.0.0.1:0");
    EXPECT_EQ(s.serve_spec, "Timer");
    EXPECT_EQ(s.token_file, "/t/tok");
    EXPECT_EQ(args.rest(), (std::vector<std::string>{"bin", "--gtest_brief"}));
    Args bad({"bin", "--typestar_serve=8080", "--typestar_token_file"});
    EXPECT_EQ(parse(bad).errors,
              (std::vector<std::string>{"--typestar_serve=8080: expected --typestar_serve=HOST:PORT (e.g. 127.0.0.1:0)",
                                        "--typestar_token_file: expected --typestar_token_file=PATH"}));
}

TEST(Settings, LearnerFromFlagOrEnvironment) {
    Args none({"bin"});
    EXPECT_EQ(parse(none).learner, "lsharp");  // L#, the default
    Args flag({"bin", "--typestar_learner=lstar"});
    EXPECT_EQ(parse(flag).learner, "lstar");
    Args env({"bin"});
    EXPECT_EQ(parse(env, {{"TYPESTAR_LEARNER", "lstar"}}).learner, "lstar");
    Args bad({"bin", "--typestar_learner=gpt"});
    EXPECT_EQ(parse(bad).errors,
              (std::vector<std::string>{"--typestar_learner=gpt: expected --typestar_learner=lstar or lsharp"}));
}

TEST(Settings, TimingFromFlagOrEnvironment) {
    Args none({"bin"});
    const Settings e = parse(none, {{"TYPESTAR_TMAX", "300"}, {"TYPESTAR_TMIN", "5"}});
    EXPECT_EQ(e.tmax_ms, 300u);
    EXPECT_EQ(e.tmin_ms, 5u);
    EXPECT_EQ(e.timing_origin, "TYPESTAR_TMAX=300 TYPESTAR_TMIN=5");
    EXPECT_TRUE(e.errors.empty());

    Args flags({"bin", "--typestar_tmax=250", "--gtest_brief=1"});
    const Settings f = parse(flags, {{"TYPESTAR_TMAX", "300"}});
    EXPECT_EQ(f.tmax_ms, 250u);
    EXPECT_FALSE(f.tmin_ms.has_value());
    EXPECT_EQ(f.timing_origin, "--typestar_tmax=250");
    EXPECT_EQ(flags.rest(), (std::vector<std::string>{"bin", "--gtest_brief=1"}));

    Args bad({"bin", "--typestar_tmin=soon"});
    const Settings b = parse(bad, {{"TYPESTAR_TMAX", "-3"}});
    ASSERT_EQ(b.errors.size(), 2u);
    EXPECT_EQ(b.errors[0], "TYPESTAR_TMAX=-3: not milliseconds from 0 to 3600000");
    EXPECT_EQ(b.errors[1], "--typestar_tmin=soon: expected --typestar_tmin=MS, milliseconds from 0 to 3600000");
}

}  // namespace
}  // namespace typestar
