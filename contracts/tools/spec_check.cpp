// osf-spec-check [--json] FILE...: validates sandbox specs with the C++ validator.
// Prints "FILE: ok" or one "FILE: $.path: message" line per error; with --json,
// one object per file: {"file": ..., "valid": ..., "errors": [{"path", "message"}]}.
// Advice (a secret sent to every egress host) goes to standard error.
// Exit 0 when every file is valid, 1 when one is invalid, 2 on usage or I/O errors.
#include "osf/spec.hpp"
#include "osf/whole_file.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr const char* usage =
    "usage: osf-spec-check [--json] FILE... (\"-\" reads standard input)\n"
    "Validates sandbox specs; prints \"FILE: ok\" or one \"FILE: $.path: message\" line per\n"
    "error (--json: one JSON object per file).\n"
    "Exit status: 0 all valid, 1 some invalid, 2 usage or read error.\n";

std::optional<std::string> read_file(const std::string& name) {
    if (name == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
    return osf::read_whole_file(name);
}

void print_text(const std::string& name, const osf::SpecResult& result) {
    if (result.ok()) std::cout << name << ": ok\n";
    for (const auto& error : result.errors)
        std::cout << name << ": " << error.to_string() << "\n";
}

void print_json(const std::string& name, const osf::SpecResult& result) {
    nlohmann::json errors = nlohmann::json::array();
    for (const auto& error : result.errors)
        errors.push_back({{"path", error.path}, {"message", error.message}});
    const nlohmann::json line = {{"file", name}, {"valid", result.ok()}, {"errors", errors}};
    std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> files(argv + 1, argv + argc);
    if (!files.empty() && (files[0] == "-h" || files[0] == "--help")) {
        std::cout << usage;
        return 0;
    }
    const bool json = !files.empty() && files[0] == "--json";
    if (json) files.erase(files.begin());
    if (files.empty()) {
        std::cerr << usage;
        return 2;
    }
    bool invalid = false, unreadable = false;
    for (const auto& name : files) {
        errno = 0;
        const auto text = read_file(name);
        if (!text) {
            std::cerr << name << ": cannot read: " << (errno ? std::strerror(errno) : "I/O error")
                      << "\n";
            unreadable = true;
            continue;
        }
        const auto result = osf::parse_spec(*text);
        invalid = invalid || !result.ok();
        // Advice on standard error: the verdicts on standard output stay one per line.
        if (result.spec)
            for (const auto& line : osf::spec_warnings(*result.spec))
                std::cerr << name << ": " << line << "\n";
        (json ? print_json : print_text)(name, result);
    }
    return unreadable ? 2 : invalid ? 1 : 0;
}
