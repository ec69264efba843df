// Spec files on disk: loading, atomic saving, and behavioural comparison (docs/spec-format.md).
#include "typestar/spec/spec.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <cerrno>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "fd.hpp"
#include "spec_detail.hpp"
#include "typestar/core/error.hpp"

namespace typestar::spec {
namespace {

using detail::errno_text;
using detail::Fd;

/// Drops what canonical forms may still differ in without differing in behaviour: names.
Typestate behaviour_of(const Typestate& typestate) {
    Typestate t = canonical(typestate);
    t.name.clear();
    t.input_info.clear();  // guards and roles describe inputs; they do not change behaviour
    for (auto& s : t.states) {
        s.name.clear();
        if (s.quiet_target && *s.quiet_target == static_cast<StateId>(&s - t.states.data())) s.quiet_target.reset();
    }
    return t;
}

}  // namespace

std::vector<std::string> CallinDeclaration::inputs() const {
    if (partitions.empty()) return {name};
    std::vector<std::string> out;
    for (const auto& p : partitions) out.push_back(abstract_input(name, p.name));
    return out;
}

std::string CallinDeclaration::signature() const {
    if (!parameters) return name;
    std::string out = name + "(";
    for (std::size_t i = 0; i < parameters->size(); ++i)
        out += (i > 0 ? ", " : "") + (*parameters)[i].name + ": " + (*parameters)[i].type +
               ((*parameters)[i].abstraction ? std::string(" ") + abstraction_name(*(*parameters)[i].abstraction) : "");
    return out + ")";
}

std::map<std::string, InputInfo, std::less<>> input_info_of(const std::vector<CallinDeclaration>& declarations) {
    std::map<std::string, InputInfo, std::less<>> out;
    for (const auto& d : declarations) {
        if (d.partitions.empty()) {
            if (d.environment) out[d.name] = InputInfo{{}, true};
            continue;
        }
        for (const auto& p : d.partitions)
            if (!p.guard.empty() || d.environment) out[abstract_input(d.name, p.name)] = InputInfo{p.guard, d.environment};
    }
    return out;
}

bool Spec::uses_version2() const { return !declarations.empty() || typestate.has_unknown() || typestate.is_mealy(); }

int SourceMap::line_of(const std::string& state, const std::string& symbol) const {
    if (!symbol.empty()) {
        if (const auto it = transitions.find({state, symbol}); it != transitions.end()) return it->second.line;
    }
    if (const auto it = states.find(state); it != states.end()) return it->second.line;
    return 0;
}

Spec load_spec(const std::filesystem::path& path, const ReadLimits& limits) {
    return parse_spec(detail::read_input_file(path, limits, "spec file"), path.string(), limits);
}

namespace {

constexpr std::string_view kTemporaryInfix = ".typestar-tmp-";
/// A temporary this old belongs to a writer that died (a write takes well under a second).
constexpr auto kStaleTemporaryAge = std::chrono::minutes(10);

/// `path`, or the file it finally points to when it is a symbolic link (relative links resolved
/// against their directory; at most 40 hops, like the kernel). Failure: errno.
std::pair<std::filesystem::path, int> resolve_links(std::filesystem::path path) {
    for (int hops = 0; hops < 40; ++hops) {
        struct stat info {};
        if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return {path, 0};
        std::string target(static_cast<std::size_t>(info.st_size > 0 ? info.st_size : 255) + 1, '\0');
        const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
        if (n < 0) return {path, errno};
        target.resize(static_cast<std::size_t>(n));
        const std::filesystem::path next(target);
        path = next.is_absolute() ? next : path.parent_path() / next;
    }
    return {path, ELOOP};
}

/// Removes `.<name>.typestar-tmp-*` files in `directory` older than kStaleTemporaryAge: what a
/// writer killed between creating and renaming its temporary left behind. Best effort, silent.
void remove_stale_temporaries(const std::filesystem::path& directory, const std::string& name) {
    const std::string prefix = "." + name + std::string(kTemporaryInfix);
    std::error_code ec;
    const auto now = std::filesystem::file_time_type::clock::now();
    for (std::filesystem::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string entry = it->path().filename().string();
        if (entry.size() != prefix.size() + 6 || entry.compare(0, prefix.size(), prefix) != 0) continue;
        std::error_code stat_error;
        if (!it->is_regular_file(stat_error) || stat_error) continue;
        const auto modified = it->last_write_time(stat_error);
        if (stat_error || now - modified < kStaleTemporaryAge) continue;
        std::filesystem::remove(it->path(), stat_error);
    }
}

}  // namespace

void write_file_atomically(const std::filesystem::path& requested, const std::string& text) {
    const auto fail = [&](const std::string& what, int error) {
        throw Error("cannot write " + requested.string() + ": " + what + ": " + errno_text(error));
    };
    // Through a symbolic link to the file it names, as editors and most tools do: the link stays.
    const auto [path, link_error] = resolve_links(requested);
    if (link_error != 0) fail("cannot follow symbolic link", link_error);
    const std::filesystem::path directory = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    remove_stale_temporaries(directory, path.filename().string());

    // A fresh temporary next to the target, so the rename stays within one file system. Created
    // with open(2) and mode 0666 (not mkstemp's 0600) so a new file gets the umask's permissions.
    static constexpr char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device random;
    std::filesystem::path temporary;
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        std::string suffix(6, 'x');
        for (char& c : suffix) c = kLetters[random() % (sizeof kLetters - 1)];
        temporary = directory / ("." + path.filename().string() + std::string(kTemporaryInfix) + suffix);
        fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt >= 100)) fail("cannot create temporary file", errno);
    }
    Fd file(fd);
    const auto abandon = [&](const std::string& what, int error) {
        file.close();
        ::unlink(temporary.c_str());
        fail(what, error);
    };
    // Keep the permissions of the file being replaced.
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
        if (::fchmod(file.get(), old.st_mode & 07777) != 0) abandon("cannot set permissions", errno);
    }
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(file.get(), text.data() + written, text.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            abandon("cannot write temporary file", errno);
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(file.get()) != 0) abandon("cannot sync temporary file", errno);
    if (const int error = file.close(); error != 0) abandon("cannot close temporary file", error);
    if (::rename(temporary.c_str(), path.c_str()) != 0) abandon("cannot rename temporary file into place", errno);
    // Make the rename itself durable; failure here leaves a complete file, so it is not an error.
    Fd dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() >= 0) ::fsync(dir.get());
}

void save_spec(const Spec& spec, const std::filesystem::path& path) { write_file_atomically(path, write_spec(spec)); }

bool same_behaviour(const Spec& a, const Spec& b) { return behaviour_of(a.typestate) == behaviour_of(b.typestate); }

DeviceTraits declared_traits(const Spec& spec) {
    const MealyMachine closure = synchronous_closure(spec.typestate);
    bool moves = false;
    for (StateId s = 0; s < spec.typestate.states.size(); ++s) {
        const auto& state = spec.typestate.states[s];
        if (!state.callback && state.wait == Typestate::Wait::Quiet && state.quiet_target && *state.quiet_target != s)
            moves = true;
    }
    DeviceTraits traits = closure_traits(closure.inputs(), closure.outputs(), spec.assumptions.quiet_is_stable && !moves);
    traits.absorbing = spec.typestate.err_absorbing ? closure.outputs().find(kErr) : std::nullopt;
    return traits;
}

std::string sanitize_name(std::string_view text, std::string_view fallback) {
    std::string name(text);
    for (char& c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.' || c == '-';
        if (!ok) c = '_';
    }
    return name.empty() ? std::string(fallback) : name;
}

}  // namespace typestar::spec
