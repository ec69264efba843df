#include "typestar/gtest/report.hpp"

#include "typestar/session/proposal.hpp"

#include <algorithm>

namespace typestar::gtest {

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
    return typestar::content_hash(bytes);  // the session's (session/proposal.hpp)
}

std::filesystem::path proposed_path(const std::filesystem::path& spec, std::string_view ext) {
    return typestar::proposed_path(spec, ext);  // the one naming rule (session/proposal.hpp)
}

}  // namespace typestar::gtest
