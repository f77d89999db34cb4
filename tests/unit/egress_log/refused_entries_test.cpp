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

TEST_CASE("refusals by rules say which rule would allow them, and where it goes") {
    RefusedEntries refused;
    std::vector<std::string> printed;
    for (
        const char* line :
        {R"({"host":"api.github.com","port":443,"method":"POST","path":"/repos/acme/w/issues","outcome":"refused","refusedBy":"path-not-allowed","rule":"api.github.com#none"})",
         R"({"host":"api.github.com","port":443,"method":"POST","path":"/repos/acme/w/issues","outcome":"refused","refusedBy":"path-not-allowed","rule":"api.github.com#none"})",
         R"({"host":"api.github.com","port":443,"method":"DELETE","path":"/repos/acme/w","outcome":"refused","refusedBy":"method-not-allowed","rule":"no-deletes","ruleIndex":0})",
         R"({"host":"api.github.com","port":443,"method":"GET","path":"/a/%2e%2e/b","outcome":"refused","refusedBy":"path-not-allowed","rule":"api.github.com#path"})",
         R"({"host":"tracker.test","port":443,"method":"POST","path":"/mcp","outcome":"refused","refusedBy":"tool-argument-not-allowed","mcpServer":"tracker","tool":"create_issue","rule":"tracker:create_issue#project"})",
         R"({"host":"api.github.com","port":443,"method":"GET","path":"/x","outcome":"allowed","wouldRefuse":"path-not-allowed","rule":"api.github.com#none"})"})
        if (auto entry = refused.add(line)) printed.push_back(*entry);
    CHECK(
        printed ==
        std::vector<std::string>{
            R"(# api.github.com: add {"methods":["POST"],"paths":["/repos/acme/w/issues"],"allow":true} to its rules (no rule matched POST /repos/acme/w/issues))",
            R"(# api.github.com: add {"methods":["DELETE"],"paths":["/repos/acme/w"],"allow":true} to its rules before no-deletes (it refused DELETE /repos/acme/w: method-not-allowed))",
            "# api.github.com: GET /a/%2e%2e/b cannot be allowed by a rule: its path reads more "
            "than one way (path-not-allowed)",
            "# --mcp tracker:create_issue: widen its argument rule tracker:create_issue#project "
            "(the log holds no argument values)"});
}
