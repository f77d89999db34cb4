#include "policy/announced_endpoints.hpp"

#include <catch2/catch.hpp>

using osf::policy::AnnouncedEndpoint;
using osf::policy::AnnouncedEndpoints;
using osf::policy::resolve_announced_endpoint;
using osf::policy::StreamUrl;

TEST_CASE("an endpoint announcement resolves as clients resolve it", "[announced]") {
    const StreamUrl stream{"https", "mcp.example.com", 8443, "/tools/sse"};
    struct Case {
        std::string data;
        const char* scheme; // nullptr: refused (the event is not passed)
        const char* host;
        std::uint16_t port;
        const char* path;
    };
    const std::vector<Case> cases = {
        // the forms SDK servers send
        {"/messages?sessionId=abc", "https", "mcp.example.com", 8443, "/messages"},
        {"/messages/?session_id=abc", "https", "mcp.example.com", 8443, "/messages/"},
        // relative references, against the stream's path
        {"messages?sessionId=abc", "https", "mcp.example.com", 8443, "/tools/messages"},
        {"./messages?x=1", "https", "mcp.example.com", 8443, "/tools/messages"},
        {"../messages?x=1", "https", "mcp.example.com", 8443, "/messages"},
        {"?sessionId=abc", "https", "mcp.example.com", 8443, "/tools/sse"},
        {"", nullptr, nullptr, 0, nullptr},
        // absolute URLs, to another port or host, and scheme-relative ones
        {"https://mcp.example.com:9000/rpc?s=1", "https", "mcp.example.com", 9000, "/rpc"},
        {"http://other.example.com/rpc", "http", "other.example.com", 80, "/rpc"},
        {"//Other.Example.COM./rpc", "https", "other.example.com", 443, "/rpc"},
        {"https://127.1:8001/m", "https", "127.0.0.1", 8001, "/m"},
        {"https://[::1]:8001/m", "https", "::1", 8001, "/m"},
        // spellings: percent-encoded unreserved characters and dot segments
        {"/%6Dessages?x", "https", "mcp.example.com", 8443, "/messages"},
        {"/a/%2e%2e/messages", "https", "mcp.example.com", 8443, "/messages"},
        {"/a/b/../../messages", "https", "mcp.example.com", 8443, "/messages"},
        {"/messages#frag", "https", "mcp.example.com", 8443, "/messages"},
        // read otherwise by some client, or no web destination: refused
        {" /messages", nullptr, nullptr, 0, nullptr},
        {"/mess\tages", nullptr, nullptr, 0, nullptr},
        {"/messages\n", nullptr, nullptr, 0, nullptr},
        {"\\\\other.example.com\\rpc", nullptr, nullptr, 0, nullptr},
        {"/a%2Fmessages", nullptr, nullptr, 0,
         nullptr}, // Boost.URL would resolve it to "/a/messages"
        {"https://other.example.com/a%2F..%2Fmessages", nullptr, nullptr, 0, nullptr},
        {"/a%00", nullptr, nullptr, 0, nullptr},
        {"/a%zz", nullptr, nullptr, 0, nullptr},
        {"/x//messages", nullptr, nullptr, 0, nullptr},
        {"https://user:pw@mcp.example.com/rpc", nullptr, nullptr, 0, nullptr},
        {"https://mcp.example.com:0/rpc", nullptr, nullptr, 0, nullptr},
        {"https://mcp.example.com:65536/rpc", nullptr, nullptr, 0, nullptr},
        {"https://bad_host.example.com/rpc", nullptr, nullptr, 0, nullptr},
        {"https://%6Dcp.example.com/rpc", nullptr, nullptr, 0, nullptr},
        {"ftp://mcp.example.com/rpc", nullptr, nullptr, 0, nullptr},
        {"javascript:alert(1)", nullptr, nullptr, 0, nullptr},
        {"ws://mcp.example.com/rpc", nullptr, nullptr, 0, nullptr},
    };
    for (const auto& c : cases) {
        INFO(c.data);
        const auto endpoint = resolve_announced_endpoint(stream, c.data);
        if (!c.scheme) {
            CHECK_FALSE(endpoint.has_value());
            continue;
        }
        REQUIRE(endpoint.has_value());
        CHECK(endpoint->scheme == c.scheme);
        CHECK(endpoint->host == c.host);
        CHECK(endpoint->port == c.port);
        CHECK(endpoint->path == c.path);
    }
}

TEST_CASE("a request is to an announced endpoint on its host, at any port", "[announced]") {
    AnnouncedEndpoints table(3);
    REQUIRE(table.add("wiki", AnnouncedEndpoint{"https", "wiki.example.com", 443, "/messages"}));
    REQUIRE(table.add("other", AnnouncedEndpoint{"http", "rpc.example.com", 9000, "/rpc/"}));
    struct Case {
        std::string host;
        std::string path;
        const char* server;
    };
    const std::vector<Case> cases = {
        {"wiki.example.com", "/messages", "wiki"},
        {"wiki.example.com", "/messages/", "wiki"},
        {"wiki.example.com", "/messages/x", "wiki"},
        {"wiki.example.com", "/MESSAGES", "wiki"},
        {"wiki.example.com", "/%6Dessages", "wiki"},
        {"wiki.example.com", "/x/../messages", "wiki"},
        {"wiki.example.com", "/messages;x=1", "wiki"},
        {"wiki.example.com", "/messages.", "wiki"},
        {"wiki.example.com", "/messagesx", nullptr},
        {"wiki.example.com", "/", nullptr},
        {"rpc.example.com", "/rpc", "other"},
        {"rpc.example.com", "/rpc/a", "other"},
        {"rpc.example.com", "/rp", nullptr},
        {"example.com", "/messages", nullptr},
    };
    for (const auto& c : cases) {
        INFO(c.host << c.path);
        const auto server = table.server_for(c.host, c.path);
        if (c.server) {
            REQUIRE(server.has_value());
            CHECK(*server == c.server);
        } else {
            CHECK_FALSE(server.has_value());
        }
    }
    CHECK(table.on_host("wiki.example.com"));
    CHECK_FALSE(table.on_host("example.com"));
}

TEST_CASE("the announced endpoint table is bounded and keeps what it holds", "[announced]") {
    AnnouncedEndpoints table(2);
    CHECK(table.add("a", AnnouncedEndpoint{"https", "h.test", 443, "/one"}));
    CHECK(table.add("b", AnnouncedEndpoint{"https", "h.test", 443, "/one"})); // known: kept as a's
    CHECK(table.add("a", AnnouncedEndpoint{"https", "h.test", 443, "/two"}));
    CHECK(table.size() == 2);
    // Full: a new endpoint is refused (the proxy drops its announcement), none is forgotten.
    CHECK_FALSE(table.add("a", AnnouncedEndpoint{"https", "h.test", 443, "/three"}));
    CHECK(table.add("a", AnnouncedEndpoint{"https", "h.test", 8443, "/two"})); // same host and path
    CHECK(table.server_for("h.test", "/one") == std::optional<std::string>("a"));
    CHECK(table.server_for("h.test", "/two") == std::optional<std::string>("a"));
    CHECK_FALSE(table.server_for("h.test", "/three").has_value());
}
