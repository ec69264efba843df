// java.util.PriorityQueue as a register-automaton target through the JVM agent (issue 18): the
// agent's data fields of /v1 (device/PROTOCOL.md, "Data devices") read by HttpDataDevice and
// probed raw; `typestar learn` re-learns specs/ra/java_priority_queue.yaml byte for byte (the
// provenance block aside: it names the agent's port); `typestar check` passes it with the
// generalised suite; the max-queue variant (typestar.testing.MaxPriorityQueuePurpose) fails with a
// data trace in both directions.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jvm_support.hpp"
#include "../support/spec_text.hpp"
#include "typestar/device/http_data_device.hpp"

namespace typestar {
namespace {

namespace fs = std::filesystem;
using jvm_testing::JavaAgent;
using jvm_testing::authorized;
using jvm_testing::kToken;
using nlohmann::json;

const std::string kSource = TYPESTAR_SOURCE_DIR;
const std::string kSpec = kSource + "/specs/ra/java_priority_queue.yaml";
const std::string kMaxSpec = kSource + "/tests/jvm/fixtures/java_priority_queue_max.yaml";

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

using testing_support::without_provenance;

struct Result {
    int status = -1;
    std::string out;
    std::string err;
};

class JavaPriorityQueue : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / ("typestar_jvm_data_test_" + std::to_string(::getpid()) + "_" + info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    /// The built `typestar` with `args`, the test token in the environment.
    Result cli(const std::vector<std::string>& args) const {
        std::string command = "cd " + shell_quote(dir_.string()) +
                              " && env -u TYPESTAR_DEVICE_TOKEN_FILE TYPESTAR_DEVICE_TOKEN=" + kToken + " " +
                              shell_quote(TYPESTAR_CLI);
        for (const auto& a : args) command += " " + shell_quote(a);
        command += " > stdout.txt 2> stderr.txt";
        const int raw = std::system(command.c_str());
        Result r;
        r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
        r.out = read(dir_ / "stdout.txt");
        r.err = read(dir_ / "stderr.txt");
        return r;
    }

    fs::path dir_;
};

JavaAgent min_queue() { return JavaAgent({"--class-purpose", "typestar.jdk.PriorityQueuePurpose", "--port", "0"}); }
JavaAgent max_queue() { return JavaAgent({"--class-purpose", "typestar.testing.MaxPriorityQueuePurpose", "--port", "0"}); }

TEST_F(JavaPriorityQueue, TheAgentServesTheDataFieldsOfV1) {
    JavaAgent agent = min_queue();
    ASSERT_FALSE(agent.url().empty()) << agent.first_line();
    const std::string& url = agent.url();

    const auto status = json::parse(authorized("GET", url + "/v1/status").body);
    EXPECT_EQ(status["callbacks"], json::array());
    EXPECT_EQ(status["timing"]["tmax_ms"], 0);
    EXPECT_EQ(status["data"]["inputs"],
              json::parse(R"([{"name":"offer","parameters":[["p","int"]]},{"name":"poll","parameters":[]}])"));
    EXPECT_EQ(status["data"]["outputs"].size(), 4U);

    // HttpDataDevice reads the signature and steps with values.
    HttpDataDevice device(HttpConfig{.url = url, .token = kToken});
    const auto& sig = device.signature();
    ASSERT_EQ(sig.inputs.size(), 2U);
    const auto offer = *sig.input_index("offer");
    const auto poll = *sig.input_index("poll");
    const auto ok = *sig.output_index("ok");
    const auto out = *sig.output_index("out");
    const auto full = *sig.output_index("full");
    const auto empty = *sig.output_index("empty");
    device.reset();
    EXPECT_EQ(device.step({poll, {}}), (ra::DataSymbol{empty, {}}));  // NoSuchElementException, refusedAs
    EXPECT_EQ(device.step({offer, {7}}), (ra::DataSymbol{ok, {}}));
    EXPECT_EQ(device.step({offer, {-3}}), (ra::DataSymbol{ok, {}}));
    EXPECT_EQ(device.step({offer, {7}}), (ra::DataSymbol{ok, {}}));
    EXPECT_EQ(device.step({offer, {1}}), (ra::DataSymbol{full, {}}));
    EXPECT_EQ(device.step({poll, {}}), (ra::DataSymbol{out, {-3}}));
    EXPECT_EQ(device.step({poll, {}}), (ra::DataSymbol{out, {7}}));
    device.reset();  // a fresh queue
    EXPECT_EQ(device.step({poll, {}}), (ra::DataSymbol{empty, {}}));

    // Raw: values on /v1/run; bad values, unknown callins and wait are 400 and consume no seq.
    const auto run = authorized("POST", url + "/v1/run",
                                R"({"inputs": [{"callin": "offer", "values": [5]}, "poll", "poll"]})");
    ASSERT_EQ(run.status, 200) << run.body;
    EXPECT_EQ(json::parse(run.body)["outputs"],
              json::parse(R"([{"output":"ok","values":[]},{"output":"out","values":[5]},{"output":"empty","values":[]}])"));
    const auto created = authorized("POST", url + "/v1/sessions", "{}");
    ASSERT_EQ(created.status, 201) << created.body;
    const std::string steps = url + "/v1/sessions/" + json::parse(created.body)["session"].get<std::string>();
    EXPECT_EQ(authorized("POST", steps + "/callin", R"({"seq": 0, "callin": "offer"})").status, 400);
    EXPECT_EQ(authorized("POST", steps + "/callin", R"({"seq": 0, "callin": "offer", "values": [1, 2]})").status, 400);
    EXPECT_EQ(authorized("POST", steps + "/callin", R"({"seq": 0, "callin": "offer", "values": [1.5]})").status, 400);
    EXPECT_EQ(authorized("POST", steps + "/callin", R"({"seq": 0, "callin": "offer", "values": ["1"]})").status, 400);
    EXPECT_EQ(authorized("POST", steps + "/callin", R"({"seq": 0, "callin": "peek"})").status, 400);
    EXPECT_EQ(authorized("POST", steps + "/wait", R"({"seq": 0})").status, 400);
    const auto step = authorized("POST", steps + "/callin", R"({"seq": 0, "callin": "offer", "values": [9223372036854775807]})");
    ASSERT_EQ(step.status, 200) << step.body;
    EXPECT_EQ(json::parse(step.body), json::parse(R"({"seq":0,"output":"ok","values":[]})"));
    const auto polled = authorized("POST", steps + "/callin", R"({"seq": 1, "callin": "poll"})");
    EXPECT_EQ(json::parse(polled.body), json::parse(R"({"seq":1,"output":"out","values":[9223372036854775807]})"));
    // A retried step is answered again, not run again (the queue is empty now).
    EXPECT_EQ(authorized("POST", steps + "/callin", R"({"seq": 1, "callin": "poll"})").body, polled.body);
}

TEST(JvmDataProbe, RefusalsAnswerHarnessFailuresAreDeviceErrors) {
    JavaAgent agent({"--class-purpose", "typestar.testing.DataProbePurpose", "--port", "0"});
    ASSERT_FALSE(agent.url().empty()) << agent.first_line();
    const std::string& url = agent.url();
    auto run = [&](const std::string& inputs) { return authorized("POST", url + "/v1/run", R"({"inputs": )" + inputs + "}"); };
    // A declared constant is in the status's signature (DataPurpose.constant).
    EXPECT_EQ(json::parse(authorized("GET", url + "/v1/status").body)["data"]["constants"],
              json::parse(R"([{"name":"zero","type":"int","value":0}])"));
    const auto echo = run(R"([{"callin": "echo", "values": [-5, 9]}, "refuse"])");
    ASSERT_EQ(echo.status, 200) << echo.body;
    EXPECT_EQ(json::parse(echo.body)["outputs"],
              json::parse(R"([{"output":"out","values":[9,-5]},{"output":"no","values":[]}])"));
    for (const char* broken : {"boom", "stray", "short"}) {
        const auto r = run(std::string("[\"") + broken + "\"]");
        EXPECT_EQ(r.status, 500) << broken << ": " << r.body;
        EXPECT_EQ(json::parse(r.body)["value"]["error"], "device error") << broken;
    }
    EXPECT_NE(run(R"(["boom"])").body.find("IllegalStateException: kaput"), std::string::npos);
    EXPECT_NE(run(R"(["stray"])").body.find("undeclared output 'zzz'"), std::string::npos);
    EXPECT_EQ(run(R"([{"callin": "echo", "values": [1]}])").status, 400);
    EXPECT_EQ(run(R"(["echo"])").status, 400);
    EXPECT_EQ(run(R"(["wait"])").status, 400);
    // Through HttpDataDevice: a harness failure is a DeviceError, never an answer.
    HttpDataDevice device(HttpConfig{.url = url, .token = kToken});
    device.reset();
    EXPECT_THROW((void)device.step({*device.signature().input_index("boom"), {}}), DeviceError);

    // An invalid purpose, and timing options for a data device: the agent refuses to start.
    JavaAgent invalid({"--class-purpose", "typestar.testing.DataProbePurpose$Invalid", "--port", "0"});
    EXPECT_EQ(invalid.wait_exit(), 1);
    EXPECT_NE(invalid.error_output().find("refusedAs output 'out' has parameters"), std::string::npos);
    JavaAgent timed({"--class-purpose", "typestar.testing.DataProbePurpose", "--tmax", "10", "--port", "0"});
    EXPECT_EQ(timed.wait_exit(), 2);
    EXPECT_NE(timed.error_output().find("is a data device"), std::string::npos);
}

TEST_F(JavaPriorityQueue, IsLearnedByteForByteAndConforms) {
    JavaAgent agent = min_queue();
    ASSERT_FALSE(agent.url().empty()) << agent.first_line();
    const Result learned = cli({"learn", "--device", agent.url(), "--out", "learned.yaml"});
    ASSERT_EQ(learned.status, 0) << learned.err;
    EXPECT_NE(learned.err.find("learned a register automaton with"), std::string::npos) << learned.err;
    EXPECT_EQ(without_provenance(read(dir_ / "learned.yaml")), without_provenance(read(kSpec)));
    EXPECT_NE(read(dir_ / "learned.yaml").find("provenance:"), std::string::npos);

    const Result checked = cli({"check", kSpec, "--device", agent.url()});
    EXPECT_EQ(checked.status, 0) << checked.err << checked.out;
    EXPECT_NE(checked.out.find("conforms: " + agent.url() + " passed the generalised Algorithm 2 suite of "
                               "java.util.PriorityQueue"),
              std::string::npos)
        << checked.out;
}

TEST_F(JavaPriorityQueue, TheMaxQueueVariantFailsWithADataTrace) {
    JavaAgent min = min_queue();
    JavaAgent max = max_queue();
    ASSERT_FALSE(min.url().empty()) << min.first_line();
    ASSERT_FALSE(max.url().empty()) << max.first_line();
    // The min-queue spec against the max-queue: a poll answers the wrong value.
    const Result a = cli({"check", kSpec, "--device", max.url()});
    EXPECT_EQ(a.status, 1) << a.err << a.out;
    EXPECT_NE(a.out.find("does not conform to java.util.PriorityQueue (data trace, "), std::string::npos) << a.out;
    EXPECT_TRUE(std::regex_search(a.out, std::regex(R"(\n +\d+ +\S+ +poll +out\(-?\d+\) +out\(-?\d+\) +<- differs)")))
        << a.out;
    // The max-queue spec (learned from the mutant) against the JDK's min-queue.
    const Result b = cli({"check", kMaxSpec, "--device", min.url()});
    EXPECT_EQ(b.status, 1) << b.err << b.out;
    EXPECT_NE(b.out.find("does not conform to java.util.PriorityQueue (data trace, "), std::string::npos) << b.out;
    // And the max-queue spec is what the mutant is (so the failures above are about the order only).
    const Result c = cli({"check", kMaxSpec, "--device", max.url()});
    EXPECT_EQ(c.status, 0) << c.err << c.out;
}

// Mealy devices (issue 34 item 4): java.util.concurrent.CountDownLatch(2), a real JDK class whose
// methods answer values, served with typestar.jdk.CountDownLatchPurpose (no wait; getCount and
// tryAwait answer named outputs learned when first answered). Learned through the CLI over /v1 with
// no flags: three states, every output recorded, and the spec passes its check.
TEST_F(JavaPriorityQueue, ACountDownLatchIsLearnedAsAMealyDevice) {
    JavaAgent agent({"--class-purpose", "typestar.jdk.CountDownLatchPurpose", "--port", "0"});
    ASSERT_FALSE(agent.url().empty()) << agent.first_line();
    const auto status = json::parse(authorized("GET", agent.url() + "/v1/status").body);
    EXPECT_EQ(status["wait"], false);
    EXPECT_EQ(status["outputs"], json::parse(R"(["true", "false"])"));
    EXPECT_EQ(status["callbacks"], json::array());
    const Result learned = cli({"learn", "--device", agent.url(), "--out", "latch.yaml"});
    ASSERT_EQ(learned.status, 0) << learned.err;
    EXPECT_NE(learned.err.find("learned 3 states with"), std::string::npos) << learned.err;
    EXPECT_EQ(learned.err.find(" waits"), std::string::npos) << learned.err;  // no wait input: none counted
    const std::string spec = read(dir_ / "latch.yaml");
    EXPECT_NE(spec.find("outputs: [\"0\", \"1\", \"2\", \"false\", \"true\"]\n"), std::string::npos) << spec;
    EXPECT_NE(spec.find("wait: false\n"), std::string::npos) << spec;
    EXPECT_NE(spec.find("getCount: {output: \"2\", to: "), std::string::npos) << spec;
    const Result checked = cli({"check", "latch.yaml", "--device", agent.url()});
    EXPECT_EQ(checked.status, 0) << checked.err << checked.out;
}

}  // namespace
}  // namespace typestar
