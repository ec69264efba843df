// The bearer-token lookup every client and agent uses (typestar/device/connection.hpp).
#include "typestar/device/connection.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "typestar/core/error.hpp"

namespace typestar {

std::string read_token_file(const std::filesystem::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw Error("token file '" + path.string() + "': cannot read it: " + std::strerror(errno));
    if ((st.st_mode & 077) != 0)
        throw Error("token file '" + path.string() + "' is accessible by group or others (mode " +
                    [&] {
                        std::ostringstream o;
                        o << std::oct << (st.st_mode & 0777);
                        return o.str();
                    }() +
                    "); make it 0600");
    std::ifstream file(path);
    if (!file) throw Error("token file '" + path.string() + "': cannot read it");
    std::stringstream content;
    content << file.rdbuf();
    std::string token = content.str();
    const auto b = token.find_first_not_of(" \t\r\n");
    const auto e = token.find_last_not_of(" \t\r\n");
    token = b == std::string::npos ? std::string() : token.substr(b, e - b + 1);
    if (token.empty()) throw Error("token file '" + path.string() + "' is empty");
    return token;
}

std::string find_token(const std::filesystem::path& token_file) {
    if (!token_file.empty()) return read_token_file(token_file);
    if (const char* t = std::getenv("TYPESTAR_DEVICE_TOKEN"); t != nullptr && *t != '\0') return t;
    if (const char* f = std::getenv("TYPESTAR_DEVICE_TOKEN_FILE"); f != nullptr && *f != '\0') return read_token_file(f);
    return {};
}

std::string missing_token_message() {
    return "no bearer token (set TYPESTAR_DEVICE_TOKEN or TYPESTAR_DEVICE_TOKEN_FILE)";
}

}  // namespace typestar
