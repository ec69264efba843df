#include "typestar/gtest/report.hpp"

#include "typestar/session/proposal.hpp"
#include "typestar/session/test_run.hpp"


namespace typestar::gtest {

std::string shell_quote(std::string_view text) {
    return typestar::shell_quote(text);  // the session's (session/test_run.hpp)
}

std::string check_command(const std::filesystem::path& spec, std::string_view device_url, std::size_t bound) {
    return typestar::check_command(spec.string(), device_url, bound);  // the session's
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
