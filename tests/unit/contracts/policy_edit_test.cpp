// allow and revoke applied to a spec's text, and the difference the proxy
// applies and logs.
#include "osf/policy_edit.hpp"

#include <catch2/catch.hpp>

using namespace osf::policy_edit;

namespace {

const std::string base = R"({
  "template": "debian:12",
  "egress": ["api.example.com", "*.githubusercontent.com", "Git.Example.com:8443"],
  "secrets": {"TOKEN": "ref:env/TOKEN"},
  "mcp": [{"name": "wiki", "url": "https://wiki.example.com/mcp", "tools": ["search"]}]
})";

std::vector<std::string> hosts_of(const std::string& text) {
    std::vector<std::string> names;
    const auto parsed = osf::parse_spec(text);
    REQUIRE(parsed.ok());
    for (const auto& rule : parsed.spec->egress)
        names.push_back(entry_name(rule));
    return names;
}

} // namespace

TEST_CASE("allow adds entries in the spec's own grammar, once") {
    const auto result = apply(
        base, {Direction::allow, {"Registry.NPMjs.org.", "*.pypi.org", "api.example.com"}, {}});
    REQUIRE(result.ok());
    CHECK(result.changed == std::vector<std::string>{"registry.npmjs.org", "*.pypi.org"});
    CHECK(result.unchanged == std::vector<std::string>{"api.example.com"});
    CHECK(hosts_of(result.spec_text) ==
          std::vector<std::string>{"api.example.com", "*.githubusercontent.com",
                                   "git.example.com:8443", "registry.npmjs.org", "*.pypi.org"});
    // Everything else is as it was.
    CHECK(difference(base, result.spec_text).other.empty());
    const auto again = apply(result.spec_text, {Direction::allow, {"registry.npmjs.org"}, {}});
    CHECK(again.changed.empty());
    CHECK(again.spec_text == result.spec_text);
}

TEST_CASE("revoke removes an entry however it was spelled; an absent one is an error") {
    const auto result = apply(base, {Direction::revoke, {"git.example.com:8443"}, {}});
    REQUIRE(result.ok());
    CHECK(result.changed == std::vector<std::string>{"git.example.com:8443"});
    CHECK(hosts_of(result.spec_text) ==
          std::vector<std::string>{"api.example.com", "*.githubusercontent.com"});
    const auto absent = apply(base, {Direction::revoke, {"other.example.com"}, {}});
    REQUIRE(absent.errors.size() == 1);
    CHECK(absent.errors[0] == "\"other.example.com\" is not in the sandbox's egress (its spec "
                              "lists what it may reach); nothing to revoke");
    CHECK(absent.spec_text == base);
    // Two spellings of one rule: revoked together, or the host would stay reachable.
    const auto twice = apply(R"({"egress": ["Example.com", "example.com.", "b.test"]})",
                             {Direction::revoke, {"example.com"}, {}});
    REQUIRE(twice.ok());
    CHECK(hosts_of(twice.spec_text) == std::vector<std::string>{"b.test"});
}

TEST_CASE("a bad entry is refused with the validator's reason, naming it") {
    const auto result =
        apply(base, {Direction::allow, {"https://x.example.com/", "ok.example.com"}, {}});
    REQUIRE(result.errors.size() == 1);
    CHECK_THAT(result.errors[0], Catch::StartsWith("\"https://x.example.com/\": "));
    CHECK(result.spec_text == base); // nothing applied when any entry is bad
}

TEST_CASE("MCP tools of a declared server are allowed and revoked; others are errors") {
    const auto allowed = apply(base, {Direction::allow, {}, {"wiki:edit", "wiki:search"}});
    REQUIRE(allowed.ok());
    CHECK(allowed.changed == std::vector<std::string>{"wiki:edit"});
    CHECK(osf::parse_spec(allowed.spec_text).spec->mcp[0].tools ==
          std::vector<std::string>{"search", "edit"});
    const auto revoked = apply(allowed.spec_text, {Direction::revoke, {}, {"wiki:search"}});
    REQUIRE(revoked.ok());
    CHECK(osf::parse_spec(revoked.spec_text).spec->mcp[0].tools ==
          std::vector<std::string>{"edit"});
    CHECK_THAT(apply(base, {Direction::allow, {}, {"jira:create"}}).errors.at(0),
               Catch::Contains("declares no MCP server \"jira\""));
    CHECK_THAT(apply(base, {Direction::allow, {}, {"search"}}).errors.at(0),
               Catch::Contains("SERVER:TOOL"));
    CHECK_THAT(apply(base, {Direction::revoke, {}, {"wiki:edit"}}).errors.at(0),
               Catch::Contains("not among server \"wiki\"'s tools"));
}

TEST_CASE("the spec's limits hold for the changed spec") {
    std::string many = R"({"egress": [)";
    for (int i = 0; i < 256; ++i)
        many += (i ? "," : "") + std::string("\"h") + std::to_string(i) + ".example.com\"";
    many += "]}";
    const auto result = apply(many, {Direction::allow, {"one-more.example.com"}, {}});
    REQUIRE(result.errors.size() == 1);
    CHECK_THAT(result.errors[0], Catch::StartsWith("the changed spec is not valid: $.egress:"));
}

TEST_CASE("the difference names what changed live and any other field that differs") {
    const auto edited = apply(base, {Direction::allow, {"registry.npmjs.org"}, {"wiki:edit"}});
    const auto narrowed = apply(edited.spec_text, {Direction::revoke, {"api.example.com"}, {}});
    const auto d = difference(base, narrowed.spec_text);
    CHECK(d.allowed_hosts == std::vector<std::string>{"registry.npmjs.org"});
    CHECK(d.revoked_hosts == std::vector<std::string>{"api.example.com"});
    CHECK(d.allowed_tools == std::vector<std::string>{"wiki:edit"});
    CHECK(d.revoked_tools.empty());
    CHECK(d.other.empty());
    CHECK(difference(base, base).empty());
    std::string with_secret = base;
    with_secret.replace(with_secret.find("ref:env/TOKEN"), 13, "ref:env/OTHER");
    CHECK(difference(base, with_secret).other == "$.secrets");
    std::string moved = base;
    moved.replace(moved.find("https://wiki.example.com/mcp"), 28, "https://wiki.example.org/mcp");
    CHECK(difference(base, moved).other == "$.mcp");
}

TEST_CASE("allow takes an entry with rules: it sets the host's rules; revoke removes them") {
    const std::string read_only =
        R"({"host": "api.example.com", "rules": [{"methods": "read-only", "allow": true}]})";
    const auto narrowed = apply(base, {Direction::allow, {read_only}, {}});
    REQUIRE(narrowed.ok());
    CHECK(narrowed.changed == std::vector<std::string>{"api.example.com"});
    const auto parsed = osf::parse_spec(narrowed.spec_text);
    REQUIRE(parsed.ok());
    CHECK(parsed.spec->egress.front().has_rules);
    CHECK(parsed.spec->egress.front().rules.front().methods ==
          std::vector<std::string>{"GET", "HEAD", "OPTIONS"});
    // The same rules again change nothing; other rules replace them.
    CHECK(apply(narrowed.spec_text, {Direction::allow, {read_only}, {}}).changed.empty());
    const auto widened = apply(
        narrowed.spec_text,
        {Direction::allow, {R"({"host": "api.example.com", "rules": [{"allow": true}]})"}, {}});
    REQUIRE(widened.ok());
    CHECK(widened.changed == std::vector<std::string>{"api.example.com"});
    // A difference in rules is the host allowed anew; the rest is as it was.
    const auto d = difference(narrowed.spec_text, widened.spec_text);
    CHECK(d.allowed_hosts == std::vector<std::string>{"api.example.com"});
    CHECK(d.revoked_hosts.empty());
    CHECK(d.other.empty());
    // The plain host allows it whole again.
    const auto whole = apply(widened.spec_text, {Direction::allow, {"api.example.com"}, {}});
    CHECK(whole.changed == std::vector<std::string>{"api.example.com"});
    CHECK_FALSE(osf::parse_spec(whole.spec_text).spec->egress.front().has_rules);
    // A revoke removes the host, rules and all.
    const auto revoked = apply(narrowed.spec_text, {Direction::revoke, {"api.example.com"}, {}});
    REQUIRE(revoked.ok());
    CHECK(hosts_of(revoked.spec_text) ==
          std::vector<std::string>{"*.githubusercontent.com", "git.example.com:8443"});
}

TEST_CASE("a bad entry with rules is an error naming where in the entry and the fix") {
    const auto result = apply(
        base, {Direction::allow,
               {R"({"host": "api.example.com", "rules": [{"paths": ["/a*"], "allow": true}]})",
                "{not json"},
               {}});
    REQUIRE(result.errors.size() == 2);
    CHECK_THAT(result.errors[0], Catch::Contains("rules[0].paths[0]: \"/a*\" has '*' inside"));
    CHECK_THAT(result.errors[1], Catch::Contains("is not a JSON object"));
    CHECK(result.spec_text == base);
}

TEST_CASE("tcp:host:port entries are allowed and revoked in the spec's tcp list") {
    const auto allowed =
        apply(base, {Direction::allow, {"tcp:Git.Example.com.:22", "tcp:db.example.com:5432"}, {}});
    REQUIRE(allowed.ok());
    CHECK(allowed.changed ==
          std::vector<std::string>{"tcp:git.example.com:22", "tcp:db.example.com:5432"});
    const auto parsed = osf::parse_spec(allowed.spec_text);
    REQUIRE(parsed.ok());
    REQUIRE(parsed.spec->tcp.size() == 2);
    CHECK(parsed.spec->tcp[0].host == "git.example.com");
    CHECK(parsed.spec->egress.size() == 3); // egress untouched
    const auto d = difference(base, allowed.spec_text);
    CHECK(d.other.empty()); // tcp may change live, like egress
    CHECK(d.allowed_hosts ==
          std::vector<std::string>{"tcp:db.example.com:5432", "tcp:git.example.com:22"});
    CHECK(apply(allowed.spec_text, {Direction::allow, {"tcp:git.example.com:22"}, {}}).unchanged ==
          std::vector<std::string>{"tcp:git.example.com:22"});

    const auto revoked =
        apply(allowed.spec_text, {Direction::revoke, {"tcp:git.example.com:22"}, {}});
    REQUIRE(revoked.ok());
    CHECK(difference(allowed.spec_text, revoked.spec_text).revoked_hosts ==
          std::vector<std::string>{"tcp:git.example.com:22"});
    const auto absent =
        apply(revoked.spec_text, {Direction::revoke, {"tcp:git.example.com:22"}, {}});
    CHECK(absent.errors == std::vector<std::string>{
                               R"("tcp:git.example.com:22" is not in the sandbox's tcp list (its )"
                               R"(spec lists what it may reach); nothing to revoke)"});
    const auto bad = apply(base, {Direction::allow, {"tcp:git.example.com"}, {}});
    CHECK(bad.errors == std::vector<std::string>{
                            R"("tcp:git.example.com": "git.example.com" has no port: a tcp entry )"
                            R"(names one, as "git.example.com:22")"});
}

TEST_CASE("allow takes a tool with argument rules: it sets them; a name allows it whole") {
    const std::string narrowed =
        R"(wiki:{"name": "search", "arguments": {"space": {"equals": "acme"}}})";
    const auto ruled = apply(base, {Direction::allow, {}, {narrowed}});
    REQUIRE(ruled.ok());
    CHECK(ruled.changed == std::vector<std::string>{"wiki:search"});
    const auto spec = osf::parse_spec(ruled.spec_text);
    REQUIRE(spec.ok());
    REQUIRE(spec.spec->mcp.front().tool_rules.size() == 1);
    CHECK(spec.spec->mcp.front().tools == std::vector<std::string>{"search"});
    // The same rules again change nothing; the difference names the tool (allowed anew).
    CHECK(apply(ruled.spec_text, {Direction::allow, {}, {narrowed}}).unchanged ==
          std::vector<std::string>{"wiki:search"});
    const auto d = difference(base, ruled.spec_text);
    CHECK(d.allowed_tools == std::vector<std::string>{"wiki:search"});
    CHECK(d.revoked_tools.empty());
    CHECK(d.other.empty());
    // A new tool with rules is added; the plain name widens the ruled one again.
    const auto added =
        apply(ruled.spec_text,
              {Direction::allow,
               {},
               {R"(wiki:{"name": "edit", "arguments": {"page": {"prefix": "acme/"}}})"}});
    REQUIRE(added.ok());
    CHECK(added.changed == std::vector<std::string>{"wiki:edit"});
    const auto widened = apply(added.spec_text, {Direction::allow, {}, {"wiki:search"}});
    REQUIRE(widened.ok());
    CHECK(widened.changed == std::vector<std::string>{"wiki:search"});
    CHECK(osf::parse_spec(widened.spec_text).spec->mcp.front().tool_rules.size() == 1);
    // A revoke by name removes a tool with rules.
    const auto revoked = apply(widened.spec_text, {Direction::revoke, {}, {"wiki:edit"}});
    REQUIRE(revoked.ok());
    CHECK(difference(widened.spec_text, revoked.spec_text).revoked_tools ==
          std::vector<std::string>{"wiki:edit"});
}

TEST_CASE("a bad tool with argument rules is an error naming where and the fix") {
    const auto bad =
        apply(base, {Direction::allow,
                     {},
                     {R"(wiki:{"name": "search", "arguments": {"q": {"matches": "(x"}}})"}});
    REQUIRE(bad.errors.size() == 1);
    CHECK_THAT(bad.errors.front(),
               Catch::Contains("arguments.q.matches: \"(x\" is not a pattern RE2 reads"));
    CHECK(apply(base, {Direction::allow, {}, {"wiki:{not json"}})
              .errors.front()
              .find("is not a JSON object") != std::string::npos);
}
