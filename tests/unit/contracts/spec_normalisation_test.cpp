// What a valid spec becomes: the normalised Spec both programs rely on.
#include "spec_test_support.hpp"

#include <catch2/catch.hpp>

using spec_test::spec_with;
using spec_test::valid_spec;

TEST_CASE("the design's example parses into every section", "[spec]") {
    const auto spec = valid_spec(R"({
      "template": "node:24-alpine", "cpu": 2, "memory": "4Gi", "env": { "CI": "1" },
      "egress": ["api.linear.app", "registry.npmjs.org", "*.githubusercontent.com"],
      "secrets": { "LINEAR_TOKEN": "ref:env/LINEAR_TOKEN" },
      "mcp": [{ "name": "wiki", "url": "https://wiki.example.com/mcp", "tools": ["search"] }]
    })");
    CHECK(spec.template_name == "node:24-alpine");
    CHECK(spec.cpu == "2");
    CHECK(spec.memory == "4Gi");
    CHECK(spec.env == std::map<std::string, std::string>{{"CI", "1"}});
    REQUIRE(spec.egress.size() == 3);
    CHECK(spec.egress[2].host == "*.githubusercontent.com");
    CHECK(spec.egress[2].wildcard());
    CHECK_FALSE(spec.egress[0].wildcard());
    REQUIRE(spec.secrets.count("LINEAR_TOKEN") == 1);
    CHECK(spec.secrets.at("LINEAR_TOKEN").kind == osf::SecretRef::Kind::Env);
    CHECK(spec.secrets.at("LINEAR_TOKEN").target == "LINEAR_TOKEN");
    CHECK(spec.secrets.at("LINEAR_TOKEN").text == "ref:env/LINEAR_TOKEN");
    REQUIRE(spec.mcp.size() == 1);
    CHECK(spec.mcp[0].tools == std::vector<std::string>{"search"});
}

TEST_CASE("a template with '/', ':' or '@' is an image, else a SandboxTemplate", "[spec]") {
    CHECK(valid_spec(R"({"template": "node:24-alpine"})").template_is_image());
    CHECK(valid_spec(R"({"template": "ghcr.io/a/b"})").template_is_image());
    CHECK(valid_spec(R"({"template": "busybox@sha256:abc"})").template_is_image());
    CHECK_FALSE(valid_spec(R"({"template": "python-dev"})").template_is_image());
    CHECK_FALSE(valid_spec(R"({"template": "team.python-dev"})").template_is_image());
}

TEST_CASE("cpu keeps a number as written and a string as given", "[spec][cpu]") {
    CHECK(valid_spec(spec_with(R"("cpu": 2)")).cpu == "2");
    CHECK(valid_spec(spec_with(R"("cpu": 0.5)")).cpu == "0.5");
    CHECK(valid_spec(spec_with(R"("cpu": 2.50)")).cpu == "2.50");
    CHECK(valid_spec(spec_with(R"("cpu": 1e1)")).cpu == "1e1");
    CHECK(valid_spec(spec_with(R"("cpu": 0.001)")).cpu == "0.001");
    CHECK(valid_spec(spec_with(R"("cpu": "500m")")).cpu == "500m");
    CHECK(valid_spec(spec_with(R"("cpu": "1.250")")).cpu == "1.250");
    CHECK_FALSE(valid_spec(spec_with("")).cpu.has_value());
    CHECK_FALSE(valid_spec(spec_with("")).memory.has_value());
}

TEST_CASE("memory accepts binary and decimal suffixes", "[spec][memory]") {
    for (const auto* quantity : {"4Gi", "512Mi", "1G", "1.5Gi", "1073741824", "100k", "2Ti", "1Ei"})
        CHECK(valid_spec(spec_with(std::string("\"memory\": \"") + quantity + "\"")).memory ==
              quantity);
}

TEST_CASE("egress hosts are lower case, without trailing dot, port split off", "[spec][egress]") {
    const auto spec = valid_spec(spec_with(
        R"("egress": ["API.Example.COM", "registry.npmjs.org.", "*.GitHubUserContent.com:443",
                      "10.0.0.1:8080", "x.example.org.:65535", "localhost", "a-b.c1"])"));
    REQUIRE(spec.egress.size() == 7);
    CHECK(spec.egress[0].host == "api.example.com");
    CHECK_FALSE(spec.egress[0].port.has_value());
    CHECK(spec.egress[1].host == "registry.npmjs.org");
    CHECK(spec.egress[2].host == "*.githubusercontent.com");
    CHECK(spec.egress[2].port == 443);
    CHECK(spec.egress[2].wildcard());
    CHECK(spec.egress[3].host == "10.0.0.1");
    CHECK(spec.egress[3].port == 8080);
    CHECK(spec.egress[4].host == "x.example.org");
    CHECK(spec.egress[4].port == 65535);
    CHECK(spec.egress[5].host == "localhost");
    CHECK(spec.egress[6].host == "a-b.c1");
}

TEST_CASE("egress entries that normalise alike make one rule", "[spec][egress]") {
    const auto spec = valid_spec(spec_with(
        R"("egress": ["example.com", "Example.com", "example.com.", "example.com:443"])"));
    REQUIRE(spec.egress.size() == 2);
    CHECK(spec.egress[0].host == "example.com");
    CHECK_FALSE(spec.egress[0].port.has_value());
    CHECK(spec.egress[1].port == 443);
}

TEST_CASE("the longest host and label are accepted", "[spec][egress]") {
    const std::string label63(63, 'a');
    // 63*3 + 61 + 3 dots = 253 characters.
    const std::string host253 =
        label63 + "." + label63 + "." + label63 + "." + std::string(61, 'b');
    REQUIRE(host253.size() == 253);
    const auto spec = valid_spec(spec_with("\"egress\": [\"" + host253 + ".:443\"]"));
    CHECK(spec.egress.at(0).host == host253);
}

TEST_CASE("secret references of every kind", "[spec][secrets]") {
    const auto spec = valid_spec(spec_with(R"("secrets": {
        "A": "ref:file/npm-token.txt", "B": "ref:env/B_SOURCE", "C": "ref:openbao/ci/deploy/key",
        "D": "ref:file/...", "E": "ref:openbao/.hidden/x.y"})"));
    using Kind = osf::SecretRef::Kind;
    CHECK(spec.secrets.at("A").kind == Kind::File);
    CHECK(spec.secrets.at("A").target == "npm-token.txt");
    CHECK(spec.secrets.at("B").kind == Kind::Env);
    CHECK(spec.secrets.at("B").target == "B_SOURCE");
    CHECK(spec.secrets.at("C").kind == Kind::OpenBao);
    CHECK(spec.secrets.at("C").target == "ci/deploy/key");
    CHECK(spec.secrets.at("D").target == "...");
    CHECK(spec.secrets.at("E").target == ".hidden/x.y");
    CHECK(osf::secret_placeholder("A") == "osf-secret-placeholder-A");
}

TEST_CASE("MCP URLs split into scheme, host, port and path", "[spec][mcp]") {
    const auto spec = valid_spec(spec_with(R"("mcp": [
        {"name": "a", "url": "https://Wiki.Example.com/mcp", "tools": ["search"]},
        {"name": "b", "url": "http://tickets.example:8081", "tools": []},
        {"name": "c", "url": "https://x.example.com.:8443/v1/mcp?tenant=ci&x=%20", "tools": ["t1", "t 2"]},
        {"name": "d", "url": "http://127.0.0.1?x", "tools": []},
        {"name": "e", "url": "https://x.example.com/a%2Fb/", "tools": []}
    ])"));
    REQUIRE(spec.mcp.size() == 5);
    CHECK(spec.mcp[0].name == "a");
    CHECK(spec.mcp[0].url == "https://Wiki.Example.com/mcp");
    CHECK(spec.mcp[0].scheme == "https");
    CHECK(spec.mcp[0].host == "wiki.example.com");
    CHECK(spec.mcp[0].port == 443);
    CHECK(spec.mcp[0].path == "/mcp");
    CHECK(spec.mcp[1].scheme == "http");
    CHECK(spec.mcp[1].port == 8081);
    CHECK(spec.mcp[1].path == "/");
    CHECK(spec.mcp[2].host == "x.example.com");
    CHECK(spec.mcp[2].port == 8443);
    CHECK(spec.mcp[2].path == "/v1/mcp");
    CHECK(spec.mcp[2].tools == std::vector<std::string>{"t1", "t 2"});
    CHECK(spec.mcp[3].host == "127.0.0.1");
    CHECK(spec.mcp[3].port == 80);
    CHECK(spec.mcp[3].path == "/");
    CHECK(spec.mcp[4].path == "/a%2Fb/");
}

TEST_CASE("env keeps names and values as written", "[spec][env]") {
    const auto spec =
        valid_spec(spec_with(R"("env": {"lower_ok": "x", "_U": "", "UNI": "héllo ✓", "CI": "1"})"));
    CHECK(spec.env.at("lower_ok") == "x");
    CHECK(spec.env.at("_U").empty());
    CHECK(spec.env.at("UNI") == "héllo ✓");
}

TEST_CASE("a $schema member is allowed for editors and ignored", "[spec]") {
    const auto spec = valid_spec(
        R"({"$schema": "https://opensoftware.dev/schemas/sandbox-spec.json", "template": "t"})");
    CHECK(spec.template_name == "t");
}
