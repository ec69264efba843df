// What the benchmark programs share: the title line naming the build type, the process's CPU time
// and peak memory, the model files of a directory, and writing the JSON report atomically.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace typestar::bench {

/// "typestar <what> (build type: <build_type>)", and a note when that is not Release.
inline void print_title(const char* what, const char* build_type) {
    std::printf("typestar %s (build type: %s)\n", what, build_type);
    if (std::string(build_type) != "Release")
        std::printf("note: not a Release build; times are not comparable with the targets\n");
}

/// User + system CPU seconds of this process so far.
inline double cpu_now() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    return secs(usage.ru_utime) + secs(usage.ru_stime);
}

/// The process's peak resident memory so far (getrusage ru_maxrss: kilobytes on Linux).
inline long peak_rss_kb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

/// The regular files of `dir` (and below it when `recursive`) ending in `extension`, sorted.
/// Throws std::filesystem::filesystem_error when `dir` cannot be read.
inline std::vector<std::filesystem::path> files_with_extension(const std::filesystem::path& dir,
                                                               const std::string& extension, bool recursive) {
    std::vector<std::filesystem::path> files;
    auto take = [&](const std::filesystem::directory_entry& e) {
        if (e.is_regular_file() && e.path().extension() == extension) files.push_back(e.path());
    };
    if (recursive) {
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) take(e);
    } else {
        for (const auto& e : std::filesystem::directory_iterator(dir)) take(e);
    }
    std::sort(files.begin(), files.end());
    return files;
}

/// For printf's %llu.
inline unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }

/// Writes `json` (indented, one trailing newline) to `path` atomically: a temporary file beside it,
/// then a rename, so the old report survives any failure. False, with "cannot write ..." on stderr,
/// when it could not be written.
template <class Json>
bool write_json_file(const std::string& path, const Json& json) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream stream(tmp);
        stream << json.dump(2) << '\n';
        if (!stream) {
            std::fprintf(stderr, "cannot write %s\n", tmp.c_str());
            return false;
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), ec.message().c_str());
        return false;
    }
    return true;
}

}  // namespace typestar::bench
