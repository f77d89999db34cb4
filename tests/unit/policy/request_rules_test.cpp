#include "policy/policy.hpp"
#include "policy/request_rules.hpp"

#include <catch2/catch.hpp>

using osf::RefusalReason;
using osf::policy::RequestRules;
using osf::policy::unreadable_path;

namespace {

osf::Spec spec_of(const std::string& egress) {
    auto parsed = osf::parse_spec(R"({"egress": )" + egress + "}");
    INFO((parsed.ok() ? std::string() : parsed.errors.front().to_string()));
    REQUIRE(parsed.ok());
    return *parsed.spec;
}

RequestRules rules_of(const std::string& entry) {
    return RequestRules(spec_of("[" + entry + "]").egress.front());
}

// GitHub: read-only on one repository, comments on its issues, no hooks anywhere.
const char* github = R"({"host": "api.github.com", "reason": "acme/widgets only", "rules": [
    {"name": "no-hooks", "paths": ["/repos/*/*/hooks", "/repos/*/*/hooks/*"], "deny": true},
    {"name": "read-widgets", "methods": "read-only",
     "paths": ["/repos/acme/widgets", "/repos/acme/widgets/*"], "allow": true},
    {"methods": ["POST"], "paths": ["/repos/acme/widgets/issues/*/comments"], "allow": true,
     "reason": "comments only"}]})";

// git smart HTTP: clone and fetch of one repository.
const char* git = R"({"host": "git.example.com", "rules": [
    {"name": "refs", "methods": ["GET"], "paths": ["/acme/widgets.git/info/refs"],
     "query": {"service": "git-upload-pack"}, "allow": true},
    {"name": "upload-pack", "methods": ["POST"], "paths": ["/acme/widgets.git/git-upload-pack"],
     "allow": true}]})";

struct Case {
    const char* method;
    const char* target;
    bool allowed;
    std::optional<RefusalReason> reason;
    int index;
    const char* rule;
};

void check(const RequestRules& rules, const std::vector<Case>& cases) {
    for (const auto& c : cases) {
        INFO(c.method << " " << c.target);
        const auto verdict = rules.decide(c.method, c.target);
        CHECK(verdict.allowed == c.allowed);
        CHECK(verdict.refused_by == c.reason);
        CHECK(verdict.index == c.index);
        CHECK(verdict.rule == c.rule);
        CHECK(verdict.detail.empty() == c.allowed);
    }
}

} // namespace

TEST_CASE("rules: first match wins, no match refuses, on the normalised path", "[rules]") {
    const auto m = RefusalReason::method_not_allowed;
    const auto p = RefusalReason::path_not_allowed;
    check(rules_of(github),
          {
              {"GET", "/repos/acme/widgets", true, {}, 1, "read-widgets"},
              {"HEAD", "/repos/acme/widgets/", true, {}, 1, "read-widgets"},
              {"GET", "/repos/acme/widgets/pulls?state=open", true, {}, 1, "read-widgets"},
              {"OPTIONS", "/repos/acme/widgets/a/b/c", true, {}, 1, "read-widgets"},
              {"GET", "/repos/acme/%77idgets", true, {}, 1, "read-widgets"}, // %77 is 'w'
              {"GET", "/repos/acme/x/../widgets", true, {}, 1, "read-widgets"},
              {"GET", "/repos/acme/./widgets", true, {}, 1, "read-widgets"},
              {"POST", "/repos/acme/widgets/issues/7/comments", true, {}, 2, "api.github.com#2"},
              // Denied first, whatever the method, case or trailing slash.
              {"GET", "/repos/acme/widgets/hooks", false, p, 0, "no-hooks"},
              {"GET", "/repos/ACME/Widgets/Hooks/", false, p, 0, "no-hooks"},
              {"POST", "/repos/acme/widgets/hooks/1", false, p, 0, "no-hooks"},
              {"GET", "/repos/acme/widgets/hooks.", false, p, 0, "no-hooks"},
              {"GET", "/repos/acme/widgets/hooks%20", false, p, 0, "no-hooks"},
              {"GET", "/repos/acme/widgets/hooks;x=1/2", false, p, 0, "no-hooks"},
              {"GET", "/repos/acme/widgets/HOOKS. .", false, p, 0, "no-hooks"},
              // No rule allows.
              {"GET", "/repos/acme/other", false, p, -1, "api.github.com#none"},
              {"GET", "/repos/acme/widgets2", false, p, -1, "api.github.com#none"},
              {"GET", "/repos/acme/widgets/../other", false, p, -1, "api.github.com#none"},
              {"GET", "/repos/acme/widgets/%2e%2e/other", false, p, -1, "api.github.com#path"},
              {"GET", "/repos/acme/widgets%2f..%2fother", false, p, -1, "api.github.com#path"},
              {"GET", "/repos/acme/widgets//x", false, p, -1, "api.github.com#path"},
              {"GET", "/repos/acme/widgets/..;/other", false, p, -1, "api.github.com#path"},
              {"GET", "/repos/acme/widgets\\..\\other", false, p, -1, "api.github.com#path"},
              {"GET", "/", false, p, -1, "api.github.com#none"},
              // The path is allowed, the method is not: method-not-allowed.
              {"DELETE", "/repos/acme/widgets", false, m, -1, "api.github.com#none"},
              {"get", "/repos/acme/widgets", false, m, -1, "api.github.com#none"},
              {"PUT", "/repos/acme/widgets/issues/7/comments", false, m, -1, "api.github.com#none"},
          });
}

TEST_CASE("rules: looked up by the path's first segment, still first match wins", "[rules]") {
    const auto m = RefusalReason::method_not_allowed;
    const auto p = RefusalReason::path_not_allowed;
    // Indexed rules (allow, literal first segment) between ones any path may match:
    // a wildcard first segment, a deny rule, a rule without paths, the root.
    check(rules_of(R"({"host": "h.test", "rules": [
        {"name": "a-one", "methods": ["GET"], "paths": ["/a/one", "/b/one"], "allow": true},
        {"name": "any-two", "methods": ["POST"], "paths": ["/*/two"], "allow": true},
        {"name": "no-secret", "paths": ["/a/secret"], "deny": true},
        {"name": "a-below", "methods": ["GET"], "paths": ["/a/*"], "allow": true},
        {"name": "root", "methods": ["GET"], "paths": ["/"], "allow": true},
        {"name": "queried", "methods": ["PUT"], "query": {"q": "1"}, "allow": true}]})"),
          {
              {"GET", "/a/one", true, {}, 0, "a-one"},
              {"GET", "/b/one", true, {}, 0, "a-one"},
              {"POST", "/a/two", true, {}, 1, "any-two"},
              {"GET", "/a/two", true, {}, 3, "a-below"},
              {"GET", "/A/secret", false, p, 2, "no-secret"},
              {"GET", "/a/secret", false, p, 2, "no-secret"},
              {"GET", "/", true, {}, 4, "root"},
              {"PUT", "/c/d?q=1", true, {}, 5, "queried"},
              {"PUT", "/?q=1", true, {}, 5, "queried"},
              {"GET", "/b/two", false, m, -1, "h.test#none"},
              {"GET", "/c/one", false, p, -1, "h.test#none"},
              {"DELETE", "/b/one", false, m, -1, "h.test#none"},
          });
}

TEST_CASE("rules: a query parameter named by a rule, once, with its value", "[rules]") {
    const auto m = RefusalReason::method_not_allowed;
    const auto p = RefusalReason::path_not_allowed;
    check(
        rules_of(git),
        {
            {"GET", "/acme/widgets.git/info/refs?service=git-upload-pack", true, {}, 0, "refs"},
            {"GET",
             "/acme/widgets.git/info/refs?a=1&service=git-upload-pack&b",
             true,
             {},
             0,
             "refs"},
            {"GET", "/acme/widgets.git/info/refs?service=git%2Dupload-pack", true, {}, 0, "refs"},
            {"POST", "/acme/widgets.git/git-upload-pack", true, {}, 1, "upload-pack"},
            {"GET", "/acme/widgets.git/info/refs?service=git-receive-pack", false, p, -1,
             "git.example.com#none"},
            {"GET", "/acme/widgets.git/info/refs", false, p, -1, "git.example.com#none"},
            {"GET", "/acme/widgets.git/info/refs?service", false, p, -1, "git.example.com#none"},
            {"GET", "/acme/widgets.git/info/refs?service=git-upload-pack&service=git-receive-pack",
             false, p, -1, "git.example.com#none"},
            {"GET", "/acme/widgets.git/info/refs?service=git-upload-pack;service=x", false, p, -1,
             "git.example.com#none"},
            {"POST", "/acme/widgets.git/git-receive-pack", false, p, -1, "git.example.com#none"},
            {"POST", "/acme/other.git/git-upload-pack", false, p, -1, "git.example.com#none"},
            {"GET", "/acme/widgets.git/git-upload-pack", false, m, -1, "git.example.com#none"},
        });
}

TEST_CASE("rules: path patterns, exact, below and one segment", "[rules]") {
    const auto p = RefusalReason::path_not_allowed;
    const auto rules = rules_of(R"({"host": "h.example", "rules": [
        {"paths": ["/exact"], "allow": true},
        {"paths": ["/dir/"], "allow": true},
        {"paths": ["/below/*"], "allow": true},
        {"paths": ["/one/*/end"], "allow": true},
        {"paths": ["/"], "allow": true}]})");
    check(rules, {
                     {"GET", "/exact", true, {}, 0, "h.example#0"},
                     {"GET", "/exact/", false, p, -1, "h.example#none"},
                     {"GET", "/Exact", false, p, -1, "h.example#none"},
                     {"GET", "/dir/", true, {}, 1, "h.example#1"},
                     {"GET", "/dir", false, p, -1, "h.example#none"},
                     {"GET", "/below/", true, {}, 2, "h.example#2"},
                     {"GET", "/below/a/b", true, {}, 2, "h.example#2"},
                     {"GET", "/below", false, p, -1, "h.example#none"},
                     {"GET", "/belowx", false, p, -1, "h.example#none"},
                     {"GET", "/one/x/end", true, {}, 3, "h.example#3"},
                     {"GET", "/one/x/y/end", false, p, -1, "h.example#none"},
                     {"GET", "/one/end", false, p, -1, "h.example#none"},
                     {"GET", "/", true, {}, 4, "h.example#4"},
                     {"GET", "/?q=1", true, {}, 4, "h.example#4"},
                     {"GET", "/x/..", true, {}, 4, "h.example#4"},
                     {"GET", "//", false, p, -1, "h.example#path"},
                 });
    const auto everything = rules_of(R"({"host": "h.example", "rules": [
        {"paths": ["/*"], "methods": ["GET"], "allow": true}]})");
    CHECK(everything.decide("GET", "/").allowed);
    CHECK(everything.decide("GET", "/a/b").allowed);
}

TEST_CASE("rules: a refusal says which rule, the reason, and the allow command", "[rules]") {
    const auto rules = rules_of(github);
    const auto denied = rules.decide("GET", "/repos/acme/widgets/hooks");
    CHECK_THAT(denied.detail, Catch::Contains("rule \"no-hooks\" of api.github.com"));
    CHECK_THAT(denied.detail, Catch::Contains("acme/widgets only"));
    CHECK_THAT(denied.detail, Catch::Contains("allow <sandbox ID>"));
    const auto method = rules.decide("PUT", "/repos/acme/widgets/issues/7/comments");
    CHECK_THAT(method.detail, Catch::Contains("only for GET, HEAD, OPTIONS, POST"));
    CHECK_THAT(method.detail, Catch::Contains("\"read-widgets\", \"api.github.com#2\""));
    // The query is never repeated in the refusal (it may carry a token).
    const auto none = rules.decide("GET", "/repos/acme/other?access_token=s3cret");
    CHECK_THAT(none.detail, !Catch::Contains("s3cret"));
}

TEST_CASE("unreadable_path names what servers read in more than one way", "[rules]") {
    for (const char* path :
         {"/a/%2e%2e/b", "/a/%2E/b", "/a/..;x/b", "/a/.%2e/b", "/a/.../b", "/a/. /b", "/a%2fb",
          "/a%5cb", "/a\\b", "//a", "/a//b", "/a%25b", "/a%00b", "*"}) {
        INFO(path);
        CHECK(!unreadable_path(path).empty());
    }
    for (const char* path : {"/", "/a", "/a/./b", "/a/../b", "/a/b/", "/a.b/c..d/.e", "/%7Euser"}) {
        INFO(path);
        CHECK(unreadable_path(path).empty());
    }
}

TEST_CASE("the most specific egress entry decides which rules apply", "[rules]") {
    osf::policy::Policy policy(spec_of(R"(["*.github.com", "files.example.com",
        {"host": "api.github.com", "rules": [{"methods": "read-only", "allow": true}]},
        {"host": "files.example.com:8443", "rules": [{"methods": ["GET"], "allow": true}]}])"),
                               {});
    CHECK(policy.rules_for("API.github.com.", 443) != nullptr);
    CHECK(policy.rules_for("api.github.com", 443)->entry_name() == "api.github.com");
    CHECK(policy.rules_for("raw.github.com", 443) == nullptr);
    CHECK(policy.rules_for("files.example.com", 443) == nullptr);
    CHECK(policy.rules_for("files.example.com", 8443)->entry_name() == "files.example.com:8443");
    CHECK(policy.rules_for("other.example.com", 443) == nullptr);
    CHECK(policy.check_destination("files.example.com", 8443).allowed);
}

TEST_CASE("audit: the entry's mode or the spec's", "[rules]") {
    CHECK_FALSE(rules_of(github).audit());
    const auto spec =
        spec_of(R"([{"host": "a.example", "mode": "audit", "rules": [{"allow": true}]},
        {"host": "b.example", "rules": [{"allow": true}]},
        {"host": "c.example", "mode": "enforce", "rules": [{"allow": true}]}])");
    CHECK(RequestRules(spec.egress[0]).audit());
    CHECK_FALSE(RequestRules(spec.egress[1]).audit());
    CHECK(RequestRules(spec.egress[1], true).audit());
    // An entry's own "enforce" wins over the spec's audit.
    CHECK_FALSE(RequestRules(spec.egress[2], true).audit());
    // The verdict is the same: admission decides what audit does with it.
    const auto audited = RequestRules(spec.egress[0]).decide("GET", "/a//b");
    CHECK_FALSE(audited.allowed);
    CHECK(audited.refused_by == RefusalReason::path_not_allowed);
}
