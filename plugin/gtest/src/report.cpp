#include "typestar/gtest/report.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace typestar::gtest {

std::string format_trace(const std::vector<TraceStep>& steps, std::size_t indent) {
    const std::array<std::string, 5> header = {"step", "state", "input", "expected", "actual"};
    std::vector<std::array<std::string, 5>> rows;
    rows.push_back(header);
    for (std::size_t i = 0; i < steps.size(); ++i)
        rows.push_back({std::to_string(i + 1), steps[i].state, steps[i].input, steps[i].expected, steps[i].actual});
    std::array<std::size_t, 5> width{};
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());

    bool marked = false;
    std::string out;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::string line(indent, ' ');
        for (std::size_t c = 0; c < rows[r].size(); ++c) {
            line += rows[r][c];
            if (c + 1 < rows[r].size()) line += std::string(width[c] - rows[r][c].size() + 2, ' ');
        }
        if (r > 0 && !marked && steps[r - 1].expected != steps[r - 1].actual) {
            line += std::string(width[4] - rows[r][4].size(), ' ') + "  <- differs";
            marked = true;
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::string shell_quote(std::string_view text) {
    const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("_./:=@%+-").find(c) != std::string_view::npos;
    });
    if (plain) return std::string(text);
    std::string out = "'";
    for (char c : text) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string check_command(const std::filesystem::path& spec, std::string_view device_url, std::size_t bound) {
    return "typestar check " + shell_quote(spec.string()) + " --device " + shell_quote(device_url) + " --bound " +
           std::to_string(bound);
}

std::string rerun_command(std::string_view binary, std::string_view test) {
    return shell_quote(binary) + " " + shell_quote("--gtest_filter=" + std::string(test));
}

std::string content_hash(std::string_view bytes) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "fnv1a64:";
    for (int shift = 60; shift >= 0; shift -= 4) out += kHex[(h >> shift) & 0xF];
    return out;
}

std::filesystem::path proposed_path(const std::filesystem::path& spec, std::string_view ext) {
    std::filesystem::path p = spec;
    const auto e = spec.extension();
    if (e == ".yaml" || e == ".yml") p.replace_extension();
    p += ".proposed.";
    p += std::string(ext);
    return p;
}

}  // namespace typestar::gtest
