// parse_spec (osf/spec.hpp), whole: what a valid spec becomes (the normalised
// Spec both programs rely on); every kind of mistake, where it is reported
// (JSONPath) and what the message tells the user to write instead; and
// contracts/examples, every valid one parsing and every invalid one failing with
// errors that name a JSONPath (the same files go through ajv in
// tests/integration/test_spec_contract.py, which requires the same verdicts).
#include "osf/spec.hpp"
#include "schema_files.hpp"
#include "spec_test_support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

using spec_test::errors_of;
using spec_test::spec_with;
using spec_test::valid_spec;
namespace fs = std::filesystem;

// --- What a valid spec becomes

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

// --- Mistakes

namespace {

struct Mistake {
    const char* members; // added to {"template": "node:24-alpine", ...}
    const char* path;
    const char* says; // a part of the message
};

void check_single_error(const std::string& json, const std::string& path, const std::string& says) {
    INFO(json);
    const auto result = osf::parse_spec(json);
    REQUIRE_FALSE(result.ok());
    CHECK_FALSE(result.spec.has_value());
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].path == path);
    CHECK_THAT(result.errors[0].message, Catch::Contains(says));
}

} // namespace

TEST_CASE("each mistake is one error at its path, with the right form", "[spec][errors]") {
    const Mistake mistakes[] = {
        // top level
        {R"("egres": [])", "$.egres", "did you mean \"egress\"?"},
        {R"("Template2": "x")", "$.Template2", "unknown field"},
        {R"("my field": 1)", "$['my field']", "unknown field"},
        {R"("$schema": 3)", "$['$schema']", "must be a string"},
        // cpu
        {R"("cpu": true)", "$.cpu", "as 2, 0.5 or \"500m\"; got a boolean"},
        {R"("cpu": null)", "$.cpu", "got null"},
        {R"("cpu": -1)", "$.cpu", "-1 is not a positive number of cores"},
        {R"("cpu": 0)", "$.cpu", "at least 0.001"},
        {R"("cpu": 0.0001)", "$.cpu", "0.0001 is not a positive number"},
        {R"("cpu": "0")", "$.cpu", "asks for no CPU"},
        {R"("cpu": "0m")", "$.cpu", "asks for no CPU"},
        {R"("cpu": "500M")", "$.cpu", "millicores (\"500m\")"},
        {R"("cpu": "1.2345")", "$.cpu", "more than three decimals"},
        {R"("cpu": "2 cores")", "$.cpu", "is not a CPU quantity"},
        {R"("cpu": "-1")", "$.cpu", "is not a CPU quantity"},
        {R"("cpu": ".5")", "$.cpu", "is not a CPU quantity"},
        {R"("cpu": "1e3")", "$.cpu", "is not a CPU quantity"},
        // memory
        {R"("memory": 4096)", "$.memory", "write its unit"},
        {R"("memory": "4GB")", "$.memory",
         "write \"4G\" (powers of 1000) or \"4Gi\" (powers of 1024)"},
        {R"("memory": "512MiB")", "$.memory", "\"512M\" (powers of 1000) or \"512Mi\""},
        {R"("memory": "4gi")", "$.memory", "is not a memory quantity"},
        {R"("memory": "0Gi")", "$.memory", "asks for no memory"},
        {R"("memory": "1.Gi")", "$.memory", "is not a memory quantity"},
        {R"("memory": "")", "$.memory", "is not a memory quantity"},
        {R"("memory": "500m")", "$.memory", "is not a memory quantity"},
        // env
        {R"("env": ["CI=1"])", "$.env", "NAME -> value, as {\"CI\": \"1\"}; got an array"},
        {R"("env": {"CI": 1})", "$.env.CI", "must be a string; got a number (put it in quotes)"},
        {R"("env": {"CI": true})", "$.env.CI", "put it in quotes"},
        {R"("env": {"CI": null})", "$.env.CI", "got null"},
        {R"("env": {"MY-VAR": "x"})", "$.env['MY-VAR']", "is not a variable name"},
        {R"("env": {"1X": "x"})", "$.env['1X']", "not starting with a digit"},
        {R"("env": {"": "x"})", "$.env['']", "is not a variable name"},
        {R"("env": {"HTTPS_PROXY": "x"})", "$.env.HTTPS_PROXY", "set by sandbox-kubernetes"},
        {R"("env": {"no_proxy": ""})", "$.env.no_proxy", "set by sandbox-kubernetes"},
        {R"("env": {"X": "a\u0000b"})", "$.env.X", "NUL"},
        // egress
        {R"("egress": "x.com")", "$.egress", "must be an array of host names"},
        {R"("egress": [443])", "$.egress[0]", "got a number"},
        {R"("egress": ["ok.com", "https://x.com"])", "$.egress[1]",
         "\"https://x.com\" is not a host name: write the host alone, as \"x.com\""},
        {R"("egress": ["http://u:p@x.com:8080/a"])", "$.egress[0]", "as \"x.com:8080\""},
        {R"("egress": ["x.com/api"])", "$.egress[0]", "not paths; write \"x.com\""},
        {R"("egress": ["x.com?a=1"])", "$.egress[0]", "write \"x.com\""},
        {R"("egress": ["user@x.com"])", "$.egress[0]", "user info"},
        {R"("egress": [""])", "$.egress[0]", "is empty"},
        {R"("egress": ["*"])", "$.egress[0]", "every host"},
        {R"("egress": ["*.com"])", "$.egress[0]", "top-level domain"},
        {R"("egress": ["api.*.example.com"])", "$.egress[0]",
         "a wildcard is written \"*.example.com\""},
        {R"("egress": ["*example.com"])", "$.egress[0]", "whole first label"},
        {R"("egress": ["**.example.com"])", "$.egress[0]", "whole first label"},
        {R"("egress": ["x.com:70000"])", "$.egress[0]", "outside 1-65535"},
        {R"("egress": ["x.com:0"])", "$.egress[0]", "outside 1-65535"},
        {R"("egress": ["x.com:0443"])", "$.egress[0]", "leading zero"},
        {R"("egress": ["x.com:"])", "$.egress[0]", "empty port"},
        {R"("egress": ["x.com:https"])", "$.egress[0]", "not a number"},
        {R"("egress": ["x.com:1:2"])", "$.egress[0]", "more than one ':'"},
        {R"("egress": ["a", "b", "a"])", "$.egress[2]",
         "\"a\" is listed twice (first at $.egress[0])"},
        {R"("egress": ["my_host.com"])", "$.egress[0]", "holds '_'"},
        {R"("egress": ["my host.com"])", "$.egress[0]", "holds a space"},
        {R"("egress": ["bücher.de"])", "$.egress[0]", "punycode"},
        {R"("egress": ["a..b"])", "$.egress[0]", "empty label"},
        {R"("egress": [".a.b"])", "$.egress[0]", "empty label"},
        {R"("egress": ["x.com.."])", "$.egress[0]", "empty label"},
        {R"("egress": ["-a.com"])", "$.egress[0]", "starts or ends with '-'"},
        {R"("egress": ["a-.com"])", "$.egress[0]", "starts or ends with '-'"},
        {R"("egress": ["192.168.1.256"])", "$.egress[0]", "from 0 to 255"},
        {R"("egress": ["10.0.0.01"])", "$.egress[0]", "leading zero"},
        {R"("egress": ["10.0.0.1."])", "$.egress[0]", "no trailing dot"},
        {R"("egress": ["1.2.3"])", "$.egress[0]", "not an IPv4 address"},
        {R"("egress": ["example.123"])", "$.egress[0]", "not an IPv4 address"},
        {R"("egress": ["*.1.2.3.4"])", "$.egress[0]", "wildcard over a number"},
        {R"("egress": ["[::1]:443"])", "$.egress[0]", "IPv6"},
        // secrets
        {R"("secrets": ["A"])", "$.secrets", "NAME -> reference"},
        {R"("secrets": {"token": "ref:env/TOKEN"})", "$.secrets.token", "as \"TOKEN\""},
        {R"("secrets": {"my-token": "ref:env/TOKEN"})", "$.secrets['my-token']", "as \"MY_TOKEN\""},
        {R"("secrets": {"9A": "ref:env/TOKEN"})", "$.secrets['9A']", "not starting with a digit"},
        {R"("secrets": {"HTTP_PROXY": "ref:env/P"})", "$.secrets.HTTP_PROXY",
         "choose another name"},
        {R"("secrets": {"T": 5})", "$.secrets.T", "got a number"},
        {R"("secrets": {"T": "ref:vault/x"})", "$.secrets.T", "unknown kind \"vault\""},
        {R"("secrets": {"T": "ref:file/.."})", "$.secrets.T",
         "file name \"..\", which would leave"},
        {R"("secrets": {"T": "ref:file/."})", "$.secrets.T", "which would leave"},
        {R"("secrets": {"T": "ref:file/"})", "$.secrets.T", "empty file name"},
        {R"("secrets": {"T": "ref:file/a/b"})", "$.secrets.T", "without '/'"},
        {R"("secrets": {"T": "ref:file/a b"})", "$.secrets.T", "a character other than"},
        {R"("secrets": {"T": "ref:env/token"})", "$.secrets.T", "as \"ref:env/TOKEN\""},
        {R"("secrets": {"T": "ref:env/"})", "$.secrets.T", "names variable \"\""},
        {R"("secrets": {"T": "ref:openbao/"})", "$.secrets.T", "empty OpenBao path"},
        {R"("secrets": {"T": "ref:openbao//a"})", "$.secrets.T", "starts or ends with '/'"},
        {R"("secrets": {"T": "ref:openbao/a/"})", "$.secrets.T", "starts or ends with '/'"},
        {R"("secrets": {"T": "ref:openbao/a//b"})", "$.secrets.T", "empty OpenBao path segment"},
        {R"("secrets": {"T": "ref:openbao/a/../b"})", "$.secrets.T", "segment \"..\""},
        {R"("secrets": {"T": "ref:openbao/./b"})", "$.secrets.T", "segment \".\""},
        {R"("secrets": {"T": "ref:openbao/a:b"})", "$.secrets.T", "a character other than"},
        {R"("secrets": {"T": "REF:env/T"})", "$.secrets.T", "is not a secret reference"},
        // mcp
        {R"("mcp": {})", "$.mcp", "must be an array of servers"},
        {R"("mcp": ["wiki"])", "$.mcp[0]", "must be an object"},
        {R"("mcp": [{"name": "w", "url": "https://w.com", "tools": [], "tool": []}])",
         "$.mcp[0].tool", "did you mean \"tools\"?"},
        {R"("mcp": [{"url": "https://w.com", "tools": []}])", "$.mcp[0]", "\"name\" is missing"},
        {R"("mcp": [{"name": "w", "tools": []}])", "$.mcp[0]", "\"url\" is missing"},
        {R"("mcp": [{"name": "w", "url": "https://w.com"}])", "$.mcp[0]", "\"tools\" is missing"},
        {R"("mcp": [{"name": "Wiki", "url": "https://w.com", "tools": []}])", "$.mcp[0].name",
         "as \"wiki\""},
        {R"("mcp": [{"name": "-w", "url": "https://w.com", "tools": []}])", "$.mcp[0].name",
         "inner '-'"},
        {R"("mcp": [{"name": 1, "url": "https://w.com", "tools": []}])", "$.mcp[0].name",
         "got a number"},
        {R"("mcp": [{"name": "w", "url": "ftp://w.com", "tools": []}])", "$.mcp[0].url",
         "scheme \"ftp\""},
        {R"("mcp": [{"name": "w", "url": "HTTPS://w.com", "tools": []}])", "$.mcp[0].url",
         "(lower case)"},
        {R"("mcp": [{"name": "w", "url": "w.com/mcp", "tools": []}])", "$.mcp[0].url",
         "not an absolute URL"},
        {R"("mcp": [{"name": "w", "url": "https://a:b@w.com", "tools": []}])", "$.mcp[0].url",
         "user info"},
        {R"("mcp": [{"name": "w", "url": "https://w.com/#x", "tools": []}])", "$.mcp[0].url",
         "fragment"},
        {R"("mcp": [{"name": "w", "url": "https://", "tools": []}])", "$.mcp[0].url",
         "has no host"},
        {R"("mcp": [{"name": "w", "url": "https://*.w.com/", "tools": []}])", "$.mcp[0].url",
         "holds '*'"},
        {R"("mcp": [{"name": "w", "url": "https://w.com:99999/", "tools": []}])", "$.mcp[0].url",
         "outside 1-65535"},
        {R"("mcp": [{"name": "w", "url": "https://w_x.com/", "tools": []}])", "$.mcp[0].url",
         "host \"w_x.com\""},
        {R"("mcp": [{"name": "w", "url": "https://[::1]/", "tools": []}])", "$.mcp[0].url", "IPv6"},
        {R"("mcp": [{"name": "w", "url": "https://w.com/a b", "tools": []}])", "$.mcp[0].url",
         "a space in its path"},
        {R"("mcp": [{"name": "w", "url": "https://w.com/a%zz", "tools": []}])", "$.mcp[0].url",
         "two hex digits"},
        {R"("mcp": [{"name": "w", "url": "https://w.com/a?b=|", "tools": []}])", "$.mcp[0].url",
         "'|' in its query"},
        {R"("mcp": [{"name": "w", "url": 5, "tools": []}])", "$.mcp[0].url", "got a number"},
        {R"("mcp": [{"name": "w", "url": "https://w.com", "tools": "search"}])", "$.mcp[0].tools",
         "array of tool names"},
        {R"("mcp": [{"name": "w", "url": "https://w.com", "tools": ["a", 1]}])",
         "$.mcp[0].tools[1]", "got a number"},
        {R"("mcp": [{"name": "w", "url": "https://w.com", "tools": ["a", ""]}])",
         "$.mcp[0].tools[1]", "is empty"},
        {R"("mcp": [{"name": "w", "url": "https://w.com", "tools": ["a", "b", "a"]}])",
         "$.mcp[0].tools[2]", "listed twice (first at $.mcp[0].tools[0])"},
        {R"("mcp": [{"name": "w", "url": "https://w.com", "tools": ["a\nb"]}])",
         "$.mcp[0].tools[0]", "control character"},
        {R"("mcp": [{"name": "w", "url": "https://w.com", "tools": []},
                    {"name": "w", "url": "https://v.com", "tools": []}])",
         "$.mcp[1].name", "\"w\" is already the name of $.mcp[0]"},
        {R"("mcp": [{"name": "w", "url": "https://w.com", "tools": []},
                    {"name": "v", "url": "https://w.com", "tools": []}])",
         "$.mcp[1].url", "is already the URL of $.mcp[0]"},
        // across sections
        {R"("env": {"TOKEN": "x"}, "secrets": {"TOKEN": "ref:env/TOKEN"})", "$.env.TOKEN",
         "is also a secret"},
    };
    for (const auto& mistake : mistakes)
        check_single_error(spec_with(mistake.members), mistake.path, mistake.says);
}

TEST_CASE("template mistakes", "[spec][errors]") {
    check_single_error(R"({"template": ""})", "$.template", "is empty");
    check_single_error(R"({"template": 24})", "$.template", "got a number");
    check_single_error(R"({"template": "My_Template"})", "$.template",
                       "neither an image (which holds '/', ':' or '@'");
    check_single_error(R"({"template": "-x"})", "$.template", "neither an image");
    check_single_error(R"({"template": "node: 24"})", "$.template", "holds a space");
    check_single_error(R"({"template": ")" + std::string(254, 'a') + "\"}", "$.template",
                       "neither an image");
    check_single_error(R"({"template": "a/)" + std::string(1023, 'a') + "\"}", "$.template",
                       "longer than 1024");
}

TEST_CASE("a document that is not an object says what a spec looks like", "[spec][errors]") {
    check_single_error(
        "[]", "$", "must be a JSON object, as {\"template\": \"node:24-alpine\"}; got an array");
    check_single_error("\"node\"", "$", "got a string");
    check_single_error("null", "$", "got null");
    check_single_error("3", "$", "got a number");
}

TEST_CASE("every error is reported, not just the first", "[spec][errors]") {
    const auto errors = spec_test::error_paths(R"({
        "cpu": "lots", "memory": 1, "env": {"A-B": 1}, "egress": ["https://a.com", "b.com/x", "ok.com"],
        "secrets": {"x": "plain"}, "mcp": [{"name": "W", "url": "ftp://w", "tools": [1]}], "extra": 1
    })");
    // (No "$": a spec without "template" takes the adapter's default.)
    const std::vector<std::string> expected = {
        "$.extra",      "$.cpu",         "$.memory",     "$.env['A-B']",
        "$.env['A-B']", "$.egress[0]",   "$.egress[1]",  "$.secrets.x",
        "$.secrets.x",  "$.mcp[0].name", "$.mcp[0].url", "$.mcp[0].tools[0]"};
    CHECK(errors == expected);
}

TEST_CASE("limits on sizes are errors at the section", "[spec][errors][limits]") {
    std::string egress = "\"egress\": [";
    for (int i = 0; i < 257; ++i)
        egress += (i ? ",\"h" : "\"h") + std::to_string(i) + ".example.com\"";
    check_single_error(spec_with(egress + "]"), "$.egress", "at most 256");

    std::string secrets = "\"secrets\": {";
    for (int i = 0; i < 65; ++i)
        secrets += (i ? ",\"S" : "\"S") + std::to_string(i) + "\": \"ref:env/X\"";
    check_single_error(spec_with(secrets + "}"), "$.secrets", "at most 64");

    check_single_error(spec_with("\"env\": {\"BIG\": \"" + std::string(32769, 'x') + "\"}"),
                       "$.env.BIG", "longer than 32768");
    CHECK(
        osf::parse_spec(spec_with("\"env\": {\"BIG\": \"" + std::string(32768, 'x') + "\"}")).ok());

    check_single_error(spec_with("\"egress\": [\"" + std::string(63, 'a') + "." +
                                 std::string(63, 'a') + "." + std::string(63, 'a') + "." +
                                 std::string(62, 'a') + "\"]"),
                       "$.egress[0]", "longer than 253");

    const std::string huge(1024 * 1024 + 1, ' ');
    const auto result = osf::parse_spec(huge);
    REQUIRE(result.errors.size() == 1);
    CHECK_THAT(result.errors[0].message, Catch::Contains("at most 1 MiB"));
}

TEST_CASE("every collection's limit is stated in full, with the count found",
          "[spec][errors][limits]") {
    const auto many = [](int count, const std::string& open, const std::string& close,
                         const std::function<std::string(int)>& member) {
        std::string text = open;
        for (int i = 0; i < count; ++i)
            text += (i ? "," : "") + member(i);
        return text + close;
    };
    const auto quoted = [](const std::string& s) { return "\"" + s + "\""; };
    const struct {
        std::string members;
        const char* path;
        const char* message;
    } cases[] = {
        {"\"egress\": " +
             many(257, "[", "]",
                  [&](int i) { return quoted("h" + std::to_string(i) + ".example.com"); }),
         "$.egress", "has 257 entries; at most 256 are allowed"},
        {"\"env\": " + many(257, "{", "}",
                            [&](int i) { return quoted("V" + std::to_string(i)) + ": \"1\""; }),
         "$.env", "has 257 variables; at most 256 are allowed"},
        {"\"secrets\": " +
             many(65, "{", "}",
                  [&](int i) { return quoted("S" + std::to_string(i)) + ": \"ref:env/X\""; }),
         "$.secrets", "has 65 secrets; at most 64 are allowed"},
        {"\"mcp\": " + many(33, "[", "]",
                            [&](int i) {
                                return "{\"name\": \"s" + std::to_string(i) +
                                       "\", \"url\": \"https://s" + std::to_string(i) +
                                       ".example.com/mcp\", \"tools\": []}";
                            }),
         "$.mcp", "has 33 servers; at most 32 are allowed"},
        {"\"mcp\": [{\"name\": \"w\", \"url\": \"https://w.example.com/mcp\", \"tools\": " +
             many(257, "[", "]", [&](int i) { return quoted("t" + std::to_string(i)); }) + "}]",
         "$.mcp[0].tools", "has 257 tools; at most 256 are allowed"},
    };
    for (const auto& c : cases) {
        const auto result = osf::parse_spec(spec_with(c.members));
        INFO(c.path);
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].path == c.path);
        CHECK(result.errors[0].message == c.message);
    }
    check_single_error(spec_with("\"env\": {\"" + std::string(129, 'A') + "\": \"1\"}"),
                       "$.env." + std::string(129, 'A'),
                       "use letters, digits and '_', not starting with a digit, at most 128 "
                       "characters");
    check_single_error(spec_with("\"secrets\": {\"" + std::string(129, 'A') + "\": \"ref:env/X\"}"),
                       "$.secrets." + std::string(129, 'A'),
                       "not starting with a digit, at most 128 characters, as ");
    check_single_error(spec_with("\"mcp\": [{\"name\": \"" + std::string(64, 'w') +
                                 "\", \"url\": \"https://w.example.com/mcp\", \"tools\": []}]"),
                       "$.mcp[0].name", "inner '-', at most 63 characters, as \"wiki\"");
    check_single_error("{\"template\": \"Bad_Name\"}", "$.template",
                       "nor a SandboxTemplate name (lower-case letters, digits, '-' and '.', at "
                       "most 253 characters)");
}

TEST_CASE("messages never repeat a value that may be a secret", "[spec][errors]") {
    const std::string token = "ghp_0123456789abcdefSECRET";
    for (const auto& members :
         {R"("secrets": {"T": ")" + token + "\"}", R"("env": {"T": [")" + token + "\"]}",
          R"("secrets": {"T": "ref:)" + token + "\"}"}) {
        const auto errors = errors_of(spec_with(members));
        REQUIRE_FALSE(errors.empty());
        for (const auto& error : errors)
            CHECK(error.find("SECRET") == std::string::npos);
    }
}

TEST_CASE("messages and paths never carry raw control characters", "[spec][errors]") {
    // Each puts a newline or NUL where a message quotes the input.
    for (const auto* members :
         {R"("egress": ["x.com:1\n2"])", R"("egress": ["x.com:\u00001"])",
          R"("egress": ["a\nb.com"])",
          R"("mcp": [{"name": "w", "url": "ht\ntp://w.com", "tools": []}])",
          R"("mcp": [{"name": "w", "url": "https://w.com:8\n/", "tools": []}])",
          R"("env": {"A\u0000B": "x"})", R"("secrets": {"T": "ref:v\nault/x"})", R"("cpu": "1\n")",
          R"("memory": "1\nGi")", R"("template2\n": 1)"}) {
        const auto errors = errors_of(spec_with(members));
        INFO(members);
        REQUIRE_FALSE(errors.empty());
        for (const auto& error : errors)
            for (const char c : error)
                CHECK_FALSE((static_cast<unsigned char>(c) < 0x20 || c == 0x7f));
    }
}

// --- The examples

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

TEST_CASE("the spec's field table and the JSON Schema name the same top-level fields",
          "[spec][schema]") {
    const auto schema = schema_files::schema("sandbox-spec.schema.json");
    REQUIRE(schema.at("additionalProperties") == false);
    // Every schema property is known (null is never valid, but never "unknown").
    for (const auto& [name, property] : schema.at("properties").items()) {
        const std::string member = nlohmann::json(name).dump() + ": null";
        for (const auto& error : errors_of(spec_with(name == "template" ? "" : member)))
            CHECK_THAT(error, !Catch::Contains("unknown field"));
    }
    // The unknown-field message lists every property but $schema.
    const auto errors = errors_of(spec_with(R"("nosuchfield": 1)"));
    REQUIRE(errors.size() == 1);
    for (const auto& [name, property] : schema.at("properties").items())
        if (name != "$schema") CHECK_THAT(errors[0], Catch::Contains(" " + name));
}
