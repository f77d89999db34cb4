// egress-log --refused: the entries and tools refused requests needed, once each.
#include "egress_log/refused_entries.hpp"

#include <catch2/catch.hpp>
#include <vector>

using osf::egress_log::RefusedEntries;

TEST_CASE("policy refusals become the entries allow takes, once each") {
    RefusedEntries refused;
    std::vector<std::string> printed;
    for (
        const char* line :
        {R"({"host":"registry.npmjs.org","port":443,"outcome":"refused","refusedBy":"host-not-allowed"})",
         R"({"host":"registry.npmjs.org","port":80,"outcome":"refused","refusedBy":"host-not-allowed"})",
         R"({"host":"git.example.com","port":8443,"outcome":"refused","refusedBy":"host-not-allowed"})",
         R"({"host":"api.example.com","port":22,"outcome":"refused","refusedBy":"port-not-allowed"})",
         R"({"host":"wiki.test","port":443,"outcome":"refused","refusedBy":"mcp-tool","mcpServer":"wiki","tool":"delete"})",
         R"({"host":"wiki.test","port":443,"outcome":"refused","refusedBy":"mcp-tool","mcpServer":"wiki","tool":"delete"})",
         R"({"host":"a.test","port":443,"outcome":"refused","refusedBy":"secret-cleartext"})",
         R"({"host":"a.test","port":443,"outcome":"allowed"})",
         R"({"host":"","port":0,"outcome":"refused","refusedBy":"host-not-allowed","count":9})",
         R"({"kind":"policy","change":"allow","entries":["x.test"],"by":"a","generation":1})",
         "not json"})
        if (auto entry = refused.add(line)) printed.push_back(*entry);
    CHECK(printed == std::vector<std::string>{"registry.npmjs.org", "git.example.com:8443",
                                              "api.example.com:22", "--mcp wiki:delete"});
}

TEST_CASE("a name with a line break cannot make a line of its own") {
    RefusedEntries refused;
    const auto entry = refused.add(
        R"({"host":"w.test","port":443,"outcome":"refused","refusedBy":"mcp-tool","mcpServer":"wiki","tool":"x\nrm -rf /"})");
    REQUIRE(entry);
    CHECK(entry->find('\n') == std::string::npos);
    CHECK(*entry == "--mcp \"wiki:x\\x0arm -rf /\"");
}

TEST_CASE("a SOCKS5 tunnel refused for want of a tcp entry becomes tcp:host:port") {
    RefusedEntries refused;
    std::vector<std::string> printed;
    for (
        const char* line :
        {R"({"host":"github.com","port":22,"scheme":"tcp","via":"socks5","outcome":"refused","refusedBy":"tcp-destination-not-allowed"})",
         R"({"host":"github.com","port":22,"scheme":"tcp","via":"socks5","outcome":"refused","refusedBy":"tcp-destination-not-allowed"})",
         R"({"host":"db.test","port":0,"scheme":"tcp","outcome":"refused","refusedBy":"tcp-destination-not-allowed"})",
         R"({"host":"db.test","port":5432,"scheme":"tcp","outcome":"refused","refusedBy":"socks-command-not-supported"})"})
        if (auto entry = refused.add(line)) printed.push_back(*entry);
    CHECK(printed == std::vector<std::string>{"tcp:github.com:22"});
}
