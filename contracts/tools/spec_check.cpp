// osf-spec-check FILE...: validates sandbox specs with the C++ validator.
// Prints "FILE: ok" or one "FILE: $.path: message" line per error.
// Exit 0 when every file is valid, 1 when one is invalid, 2 on usage or I/O errors.
#include "osf/spec.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

namespace {

constexpr const char* usage =
    "usage: osf-spec-check FILE... (\"-\" reads standard input)\n"
    "Validates sandbox specs; prints \"FILE: ok\" or one line per error.\n"
    "Exit status: 0 all valid, 1 some invalid, 2 usage or read error.\n";

std::optional<std::string> read_file(const std::string& name) {
    if (name == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
    std::error_code error;
    if (std::filesystem::is_directory(name, error)) {
        errno = EISDIR;
        return std::nullopt;
    }
    std::ifstream in(name, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return text.str();
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << usage;
        return 2;
    }
    const std::string first = argv[1];
    if (first == "-h" || first == "--help") {
        std::cout << usage;
        return 0;
    }
    bool invalid = false, unreadable = false;
    for (int i = 1; i < argc; ++i) {
        const std::string name = argv[i];
        errno = 0;
        const auto text = read_file(name);
        if (!text) {
            std::cerr << name << ": cannot read: " << (errno ? std::strerror(errno) : "I/O error")
                      << "\n";
            unreadable = true;
            continue;
        }
        const auto result = osf::parse_spec(*text);
        if (result.ok()) {
            std::cout << name << ": ok\n";
            continue;
        }
        invalid = true;
        for (const auto& error : result.errors)
            std::cout << name << ": " << error.to_string() << "\n";
    }
    return unreadable ? 2 : invalid ? 1 : 0;
}
