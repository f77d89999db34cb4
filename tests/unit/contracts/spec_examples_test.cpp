// contracts/examples: every valid example parses, every invalid one fails with
// errors that name a JSONPath. The same files go through ajv in
// tests/integration/test_spec_contract.py, which requires the same verdicts.
#include "osf/spec.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> examples(const std::string& kind) {
    std::vector<fs::path> files;
    for (const auto& entry :
         fs::directory_iterator(fs::path(OSF_SOURCE_DIR) / "contracts/examples" / kind))
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

std::string read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

TEST_CASE("every valid example parses", "[spec][examples]") {
    const auto files = examples("valid");
    REQUIRE(files.size() >= 5);
    for (const auto& file : files) {
        INFO(file.filename().string());
        const auto result = osf::parse_spec(read(file));
        for (const auto& error : result.errors)
            UNSCOPED_INFO(error.to_string());
        CHECK(result.ok());
        CHECK(result.spec.has_value());
    }
}

TEST_CASE("every invalid example fails, naming where", "[spec][examples]") {
    const auto files = examples("invalid");
    REQUIRE(files.size() >= 18);
    for (const auto& file : files) {
        INFO(file.filename().string());
        const auto result = osf::parse_spec(read(file));
        REQUIRE_FALSE(result.ok());
        CHECK_FALSE(result.spec.has_value());
        for (const auto& error : result.errors) {
            CHECK(error.path.starts_with("$"));
            CHECK_FALSE(error.message.empty());
        }
    }
}

TEST_CASE("the examples cover every section", "[spec][examples]") {
    bool cpu_number = false, cpu_string = false, wildcard = false, port = false, ipv4 = false;
    std::set<osf::SecretRef::Kind> kinds;
    std::size_t most_mcp = 0;
    for (const auto& file : examples("valid")) {
        const auto spec = osf::parse_spec(read(file)).spec;
        REQUIRE(spec);
        if (spec->cpu)
            (spec->cpu->find_first_not_of("0123456789.") == std::string::npos ? cpu_number
                                                                              : cpu_string) = true;
        for (const auto& rule : spec->egress) {
            wildcard = wildcard || rule.wildcard();
            port = port || rule.port.has_value();
            ipv4 = ipv4 || rule.host.find_first_not_of("0123456789.") == std::string::npos;
        }
        for (const auto& [name, ref] : spec->secrets)
            kinds.insert(ref.kind);
        most_mcp = std::max(most_mcp, spec->mcp.size());
    }
    CHECK(cpu_number);
    CHECK(cpu_string);
    CHECK(wildcard);
    CHECK(port);
    CHECK(ipv4);
    CHECK(kinds.size() == 3);
    CHECK(most_mcp >= 3);
}
