#include "shared_proposal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

#include "typestar/session/proposal.hpp"
#include "typestar/spec/spec.hpp"

namespace typestar::detail {

namespace {

constexpr const char* kMagic = "typestar-shared-proposal 3";

std::filesystem::path base(const std::filesystem::path& spec, const std::filesystem::path& dir) {
    const std::filesystem::path d = dir.empty() ? std::filesystem::temp_directory_path() : dir;
    std::string hash = content_hash(spec.string());
    hash = hash.substr(hash.find(':') + 1);
    return d / ("typestar-proposal-" + hash);
}

}  // namespace

std::string shared_proposal_key(const std::string& spec_bytes, const std::string& device, const std::string& binary,
                                std::size_t bound, const std::string& learner, const std::string& tool) {
    std::string key;
    key += "spec " + content_hash(spec_bytes) + " " + std::to_string(spec_bytes.size()) + "\n";
    std::string d = device;
    for (char& c : d)
        if (c == '\n' || c == '\r') c = ' ';
    key += "device " + d + "\n";
    key += "binary " + binary + "\n";
    key += "bound " + std::to_string(bound) + "\n";
    key += "learner " + learner + "\n";
    key += "tool " + tool + "\n";
    return key;
}

std::filesystem::path shared_lock_path(const std::filesystem::path& spec, const std::filesystem::path& dir) {
    std::filesystem::path p = base(spec, dir);
    p += ".lock";
    return p;
}

std::filesystem::path shared_record_path(const std::filesystem::path& spec, const std::filesystem::path& dir) {
    std::filesystem::path p = base(spec, dir);
    p += ".record";
    return p;
}

std::optional<SharedProposal> read_shared_proposal(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    const std::string text = s.str();
    // magic \n pid \n test \n when \n key-lines-count \n key lines... yaml-bytes \n yaml
    std::istringstream lines(text);
    std::string magic, pid, test, when, count;
    if (!std::getline(lines, magic) || magic != kMagic) return std::nullopt;
    if (!std::getline(lines, pid) || !std::getline(lines, test) || !std::getline(lines, when) ||
        !std::getline(lines, count))
        return std::nullopt;
    SharedProposal r;
    r.test = test;
    r.when = when;
    try {
        r.pid = std::stol(pid);
        const std::size_t n = std::stoul(count);
        for (std::size_t i = 0; i < n; ++i) {
            std::string line;
            if (!std::getline(lines, line)) return std::nullopt;
            r.key += line + "\n";
        }
        std::string size;
        if (!std::getline(lines, size)) return std::nullopt;
        const std::size_t bytes = std::stoul(size);
        const auto at = static_cast<std::size_t>(lines.tellg());
        if (at + bytes != text.size()) return std::nullopt;  // truncated or extended: not ours
        r.yaml = text.substr(at);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return r;
}

void write_shared_proposal(const std::filesystem::path& path, const SharedProposal& record) {
    std::size_t lines = 0;
    for (char c : record.key) lines += c == '\n' ? 1 : 0;
    auto one_line = [](std::string t) {
        for (char& c : t)
            if (c == '\n' || c == '\r') c = ' ';
        return t;
    };
    std::string text = std::string(kMagic) + "\n" + std::to_string(record.pid) + "\n" + one_line(record.test) +
                       "\n" + one_line(record.when) + "\n" +
                       std::to_string(lines) + "\n" +
                       record.key + std::to_string(record.yaml.size()) + "\n" + record.yaml;
    spec::write_file_atomically(path, text);
}

ProposalLock::ProposalLock(const std::filesystem::path& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) return;
    int r = 0;
    do {
        r = ::flock(fd_, LOCK_EX);
    } while (r != 0 && errno == EINTR);
    if (r != 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

ProposalLock::~ProposalLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the flock
}

std::string environment_hash() {
    std::vector<std::string> entries;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string entry = *e;
        const std::string name = entry.substr(0, entry.find('='));
        if (name.rfind("GTEST_", 0) == 0 || name == "SPDLOG_LEVEL" || name == "_" || name == "PWD" ||
            name == "OLDPWD" || name == "SHLVL")
            continue;
        entries.push_back(entry);
    }
    std::sort(entries.begin(), entries.end());
    std::string all;
    for (const auto& e : entries) all += e + '\0';
    return content_hash(all);
}

std::string utc_now() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &utc);
    return text;
}

std::string executable_hash() {
    std::ifstream in("/proc/self/exe", std::ios::binary);
    if (!in) return {};
    std::ostringstream s;
    s << in.rdbuf();
    const std::string bytes = s.str();
    return bytes.empty() ? std::string() : content_hash(bytes) + " " + std::to_string(bytes.size());
}

}  // namespace typestar::detail
