#include "exec_device.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string_view>
#include <thread>
#include <vector>

#include "typestar/core/error.hpp"
#include "typestar/core/printable.hpp"
#include "http_answers.hpp"
#include "http_transport.hpp"
#include "typestar/device/http_data_device.hpp"
#include "typestar/device/http_device.hpp"

namespace typestar::detail {

namespace {

constexpr std::string_view kScheme = "exec:";

std::string random_token() {
    std::random_device rd;  // the kernel's entropy (getrandom), 256 bits
    static constexpr char hex[] = "0123456789abcdef";
    std::string t;
    for (int i = 0; i < 8; ++i) {
        const unsigned v = rd();
        for (int k = 0; k < 8; ++k) t += hex[(v >> (4 * k)) & 0xf];
    }
    return t;
}

/// Ends the process group of `pid` (the agent runs as its leader, with whatever it started):
/// SIGTERM to the group, then SIGKILL to the group once the leader has exited or after `grace`,
/// then reaps the leader. The leader is reaped last, so its pid (the group's id) cannot be reused
/// while the group is signalled. Returns the leader's wait status.
int stop_process(pid_t pid, std::chrono::milliseconds grace) {
    ::kill(-pid, SIGTERM);
    const auto until = std::chrono::steady_clock::now() + grace;
    siginfo_t info{};
    while (std::chrono::steady_clock::now() < until) {
        info.si_pid = 0;
        if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(-pid, SIGKILL);  // no grandchild outlives the device
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
}

std::string describe_status(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
    return "ended";
}

/// The agent process: its output drained to our stderr, stopped when destroyed. The devices below
/// derive from it, so their HTTP device (a member) ends its session before the process stops.
class ExecProcess {
public:
    ExecProcess(pid_t pid, int out_fd) : pid_(pid) {
        // Whatever the binary prints later goes to our stderr, so it never blocks on a full pipe.
        drain_ = std::thread([out_fd] {
            char buffer[4096];
            for (ssize_t n; (n = ::read(out_fd, buffer, sizeof buffer)) > 0;) (void)!::write(2, buffer, static_cast<std::size_t>(n));
            ::close(out_fd);
        });
    }
    ~ExecProcess() {
        (void)stop_process(pid_, std::chrono::seconds(5));
        if (drain_.joinable()) drain_.join();
    }
    ExecProcess(const ExecProcess&) = delete;
    ExecProcess& operator=(const ExecProcess&) = delete;

private:
    pid_t pid_;
    std::thread drain_;
};

/// The agent process and the HTTP device over it; forwards every Device member.
class ExecDevice final : public Device, private ExecProcess {
public:
    ExecDevice(std::string url, pid_t pid, int out_fd, std::unique_ptr<Device> inner)
        : ExecProcess(pid, out_fd), url_(std::move(url)), inner_(std::move(inner)) {}

    [[nodiscard]] const Alphabet& inputs() const override { return inner_->inputs(); }
    [[nodiscard]] const Alphabet& outputs() const override { return inner_->outputs(); }
    [[nodiscard]] DeviceTraits traits() const override { return inner_->traits(); }
    [[nodiscard]] std::string name() const override { return url_; }
    [[nodiscard]] bool deterministic() const override { return inner_->deterministic(); }
    [[nodiscard]] DeviceDescription describe() const override {
        DeviceDescription d = inner_->describe();
        d.name = url_;
        return d;
    }
    void check_timing() override { inner_->check_timing(); }
    bool override_timing(const TimingOverride& timing) override { return inner_->override_timing(timing); }
    bool declare_outputs(std::span<const std::string> names) override { return inner_->declare_outputs(names); }
    void reset() override { inner_->reset(); }
    Symbol step(Symbol input) override { return inner_->step(input); }
    void finish() noexcept override { inner_->finish(); }
    [[nodiscard]] std::optional<Symbol> confirm_wait(std::span<const Symbol> prefix,
                                                     std::chrono::milliseconds timeout) override {
        return inner_->confirm_wait(prefix, timeout);
    }
    [[nodiscard]] RunResult run(std::span<const Symbol> inputs) override { return inner_->run(inputs); }

private:
    std::string url_;
    std::unique_ptr<Device> inner_;  // destroyed before the process stops (ExecProcess is a base)
};

/// The agent process and the HTTP data device over it (a register-automaton spec's binary).
class ExecDataDevice final : public DataDevice, private ExecProcess {
public:
    ExecDataDevice(std::string url, pid_t pid, int out_fd, std::unique_ptr<DataDevice> inner)
        : ExecProcess(pid, out_fd), url_(std::move(url)), inner_(std::move(inner)) {}

    [[nodiscard]] const ra::RegisterAutomaton& signature() const override { return inner_->signature(); }
    [[nodiscard]] std::string name() const override { return url_; }
    [[nodiscard]] DeviceDescription describe() const override {
        DeviceDescription d = inner_->describe();
        d.name = url_;
        return d;
    }
    [[nodiscard]] std::vector<std::string> assumptions() const override { return inner_->assumptions(); }
    void reset() override { inner_->reset(); }
    ra::DataSymbol step(const ra::DataSymbol& input) override { return inner_->step(input); }

private:
    std::string url_;
    std::unique_ptr<DataDevice> inner_;
};

}  // namespace

OpenedDevice launch_exec(const std::string& url, const HttpConfig& http, DeviceKind kind) {
    std::string rest = url.substr(kScheme.size());
    std::string spec;
    if (const auto hash = rest.rfind('#'); hash != std::string::npos) {
        spec = rest.substr(hash + 1);
        rest.erase(hash);
    }
    const std::string binary = rest;
    if (binary.empty()) throw DeviceError("device " + url + ": exec:BINARY[#SPEC] needs a binary");

    // The token goes to the child in a 0600 file (mkstemp's mode), never on its command line.
    const std::string token = random_token();
    std::string token_path = (std::filesystem::temp_directory_path() / "typestar-token-XXXXXX").string();
    const int token_fd = ::mkstemp(token_path.data());
    if (token_fd < 0) throw DeviceError("device " + url + ": cannot create a token file in " + token_path);
    const bool written = ::write(token_fd, token.data(), token.size()) == static_cast<ssize_t>(token.size());
    ::close(token_fd);
    struct RemoveToken {
        std::string path;
        ~RemoveToken() { std::remove(path.c_str()); }
    } remove_token{token_path};
    if (!written) throw DeviceError("device " + url + ": cannot write the token file " + token_path);

    std::vector<std::string> args{binary, "--typestar_serve=127.0.0.1:0", "--typestar_token_file=" + token_path};
    if (!spec.empty()) args.push_back("--typestar_serve_spec=" + spec);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw DeviceError("device " + url + ": pipe failed");
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(out[0]);
        ::close(out[1]);
        throw DeviceError("device " + url + ": fork failed");
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls until exec.
        ::setpgid(0, 0);  // its own process group: stop_process ends it with everything it started
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the agent never outlives the CLI
        if (::getppid() != parent) ::_exit(127);
        ::dup2(out[1], 1);
        if (binary.find('/') == std::string::npos)
            ::execvp(argv[0], argv.data());
        else
            ::execv(argv[0], argv.data());
        static constexpr char msg[] = "typestar: exec: cannot run the binary\n";
        (void)!::write(2, msg, sizeof msg - 1);
        ::_exit(127);
    }
    ::setpgid(pid, pid);  // also here: the group exists before either side goes on (no race)
    ::close(out[1]);

    // Read lines until `typestar: ready`, EOF or 60 s.
    std::string served_url, text, last_line;
    bool ready = false;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!ready) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
        if (left <= 0) break;
        pollfd p{out[0], POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
        char buffer[4096];
        const ssize_t n = ::read(out[0], buffer, sizeof buffer);
        if (n <= 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
        for (std::size_t eol; !ready && (eol = text.find('\n')) != std::string::npos;) {
            const std::string line = text.substr(0, eol);
            text.erase(0, eol + 1);
            last_line = line;
            static constexpr std::string_view serving = "typestar: serving ";
            if (line.rfind(serving, 0) == 0 && served_url.empty()) {
                const auto at = line.find(" at http://");
                if (at != std::string::npos) {
                    const auto start = at + 4;
                    served_url = line.substr(start, line.find(' ', start) - start);
                }
            }
            ready = line == "typestar: ready";
        }
    }
    if (!ready || served_url.empty()) {
        ::close(out[0]);
        const int status = stop_process(pid, std::chrono::seconds(1));
        throw DeviceError("device " + url + ": the binary did not start serving (it " + describe_status(status) +
                          (last_line.empty() ? std::string() : "; its last line: '" + printable(last_line) + "'") +
                          "; its stderr is above). Is it a gtest binary linked with typestar::gtest_main, or a main "
                          "that calls typestar::initialize?");
    }
    try {
        HttpConfig config = http;
        config.url = served_url;
        config.token = token;
        // The kind the binary serves: one status request (as open_device asks an http:// agent).
        std::uint64_t requests = 0;
        HttpTransport transport(config, requests, nullptr);
        StatusAnswer status = fetch_status(transport, config);
        if (status.data && kind == DeviceKind::Typestate)
            throw DeviceError("device " + url + ": the binary serves a data device (a register-automaton spec), "
                              "not a typestate device");
        if (!status.data && kind == DeviceKind::Data)
            throw DeviceError("device " + url + ": the binary serves a typestate device, not a data device");
        OpenedDevice opened;
        if (status.data)
            opened.data = std::make_unique<ExecDataDevice>(
                url, pid, out[0], std::make_unique<HttpDataDevice>(config, std::move(status)));
        else
            opened.typestate =
                std::make_unique<ExecDevice>(url, pid, out[0], std::make_unique<HttpDevice>(config, std::move(status)));
        return opened;
    } catch (...) {
        ::close(out[0]);
        (void)stop_process(pid, std::chrono::seconds(5));
        throw;
    }
}

}  // namespace typestar::detail
