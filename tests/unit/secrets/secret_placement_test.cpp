// Where each secret's placeholder goes in a request, and when it is refused
// instead: one table of request facts and bindings -> outcome.
#include "secrets/basic_auth.hpp"
#include "secrets/secret_placement.hpp"
#include "secrets/secret_store.hpp"

#include <catch2/catch.hpp>

using osf::RefusalReason;
using osf::SecretPlace;
using osf::secrets::BodyKind;
using osf::secrets::place_secrets;
using osf::secrets::PlacementRequest;
using osf::secrets::RequestField;
using osf::secrets::Secret;

namespace {

constexpr std::uint8_t places(std::initializer_list<SecretPlace> list) {
    std::uint8_t bits = 0;
    for (auto p : list)
        bits |= osf::secret_places(p);
    return bits;
}

Secret unbound(const std::string& name, const std::string& value) {
    return Secret{name, "osf-secret-placeholder-" + name, value, {}, {}};
}

Secret bound(const std::string& name, const std::string& value, std::vector<osf::EgressRule> hosts,
             std::uint8_t in, bool require = false) {
    Secret secret = unbound(name, value);
    secret.binding.hosts = std::move(hosts);
    secret.binding.in = in;
    secret.binding.require = require;
    return secret;
}

const std::vector<Secret> secrets = {
    bound("GH", "ghp_real\"1", {{"api.github.com", {}}, {"github.com", {}}},
          places({SecretPlace::header, SecretPlace::basic}), true),
    bound("TG", "123:abc/x", {{"api.telegram.org", {}}}, places({SecretPlace::path})),
    bound("Q", "q v&1", {{"*.example.com", {}}}, places({SecretPlace::query, SecretPlace::body})),
    bound("PORTED", "p0rt", {{"ported.example.org", 8443}}, places({SecretPlace::header})),
    unbound("OLD", "old-value"),
};

struct Row {
    const char* what;
    std::string host;
    std::uint16_t port = 443;
    bool in_egress = true;
    bool tls = true;
    std::string target = "/";
    std::vector<std::pair<std::string, std::string>> head;
    BodyKind body_kind = BodyKind::none;
    std::optional<std::string> body;
    // Expected:
    std::optional<RefusalReason> refused;
    std::vector<std::pair<std::string, std::string>> sent_head; // empty: unchanged
    std::string sent_target;                                    // empty: unchanged
    std::optional<std::string> sent_body;
    std::vector<std::string> names;
    bool needs_body = false;
};

std::string basic(const std::string& user_password) {
    return "Basic " + osf::secrets::base64_encode(user_password);
}

const std::string P = "osf-secret-placeholder-";

} // namespace

TEST_CASE("placement: each placeholder where its binding allows, or a refusal") {
    const std::vector<Row> rows = {
        {"a bound header secret on its host",
         "api.github.com",
         443,
         true,
         true,
         "/user",
         {{"Authorization", "token " + P + "GH"}},
         BodyKind::none,
         {},
         {},
         {{"Authorization", "token ghp_real\"1"}},
         "",
         {},
         {"GH"}},
        {"the same placeholder to another allowed host is refused, not replaced",
         "evil.s3.amazonaws.com",
         443,
         true,
         true,
         "/",
         {{"Authorization", "token " + P + "GH"}},
         BodyKind::none,
         {},
         RefusalReason::secret_not_bound,
         {},
         "",
         {},
         {}},
        {"a bound placeholder in a query to another host is refused too",
         "evil.example.net",
         443,
         true,
         true,
         "/x?t=" + P + "GH",
         {},
         BodyKind::none,
         {},
         RefusalReason::secret_not_bound,
         {},
         "",
         {},
         {}},
        {"Basic credentials, allowed by `in`",
         "github.com",
         443,
         true,
         true,
         "/o/r.git/info/refs",
         {{"Authorization", basic("x-access-token:" + P + "GH")}},
         BodyKind::none,
         {},
         {},
         {{"Authorization", basic("x-access-token:ghp_real\"1")}},
         "",
         {},
         {"GH"}},
        {"a placeholder in the query, where `in` does not allow it",
         "api.github.com",
         443,
         true,
         true,
         "/user?access_token=" + P + "GH",
         {{"Authorization", "token " + P + "GH"}},
         BodyKind::none,
         {},
         RefusalReason::secret_place,
         {},
         "",
         {},
         {}},
        {"require: no placeholder at all",
         "api.github.com",
         443,
         true,
         true,
         "/user",
         {},
         BodyKind::none,
         {},
         RefusalReason::secret_required,
         {},
         "",
         {},
         {}},
        {"require: a token of the sandbox's own in Authorization",
         "github.com",
         443,
         true,
         true,
         "/",
         {{"Authorization", "Bearer ghp_mine"}},
         BodyKind::none,
         {},
         RefusalReason::secret_required,
         {},
         "",
         {},
         {}},
        {"require: the placeholder in one header and a foreign Authorization beside it",
         "api.github.com",
         443,
         true,
         true,
         "/",
         {{"X-Token", P + "GH"}, {"Authorization", "Bearer ghp_mine"}},
         BodyKind::none,
         {},
         RefusalReason::secret_required,
         {},
         "",
         {},
         {}},
        {"require: a second field of the placeholder's name with another token",
         "api.github.com",
         443,
         true,
         true,
         "/",
         {{"X-Token", P + "GH"}, {"x-token", "mine"}},
         BodyKind::none,
         {},
         RefusalReason::secret_required,
         {},
         "",
         {},
         {}},
        {"a path token, percent-encoded",
         "api.telegram.org",
         443,
         true,
         true,
         "/bot" + P + "TG/sendMessage?chat=1",
         {},
         BodyKind::none,
         {},
         {},
         {},
         "/bot123%3Aabc%2Fx/sendMessage?chat=1",
         {},
         {"TG"}},
        {"a path token in the query is not allowed",
         "api.telegram.org",
         443,
         true,
         true,
         "/send?t=" + P + "TG",
         {},
         BodyKind::none,
         {},
         RefusalReason::secret_place,
         {},
         "",
         {},
         {}},
        {"a header placeholder of a path-only secret is refused",
         "api.telegram.org",
         443,
         true,
         true,
         "/",
         {{"X-Bot", P + "TG"}},
         BodyKind::none,
         {},
         RefusalReason::secret_place,
         {},
         "",
         {},
         {}},
        {"a query value under a wildcard, percent-encoded",
         "a.b.example.com",
         443,
         true,
         true,
         "/s?key=" + P + "Q&x=1",
         {},
         BodyKind::none,
         {},
         {},
         {},
         "/s?key=q%20v%261&x=1",
         {},
         {"Q"}},
        {"a wildcard does not cover its parent",
         "example.com",
         443,
         true,
         true,
         "/s?key=" + P + "Q",
         {},
         BodyKind::none,
         {},
         RefusalReason::secret_not_bound,
         {},
         "",
         {},
         {}},
        {"a JSON body before it is read: asked for",
         "api.example.com",
         443,
         true,
         true,
         "/",
         {{"Content-Type", "application/json"}},
         BodyKind::json,
         {},
         {},
         {},
         "",
         {},
         {},
         true},
        {"a JSON body, escaped as a JSON string",
         "api.example.com",
         443,
         true,
         true,
         "/",
         {},
         BodyKind::json,
         std::string("{\"k\":\"" + P + "Q\"}"),
         {},
         {},
         "",
         std::string("{\"k\":\"q v&1\"}"),
         {"Q"}},
        {"a form body, percent-encoded",
         "api.example.com",
         443,
         true,
         true,
         "/",
         {},
         BodyKind::form,
         std::string("a=1&k=" + P + "Q"),
         {},
         {},
         "",
         std::string("a=1&k=q%20v%261"),
         {"Q"}},
        {"a body of another type is never read",
         "api.example.com",
         443,
         true,
         true,
         "/",
         {},
         BodyKind::other,
         {},
         {},
         {},
         "",
         {},
         {},
         false},
        {"a bound secret's placeholder in a body read for another secret, on a host it is not for",
         "api.example.com",
         443,
         true,
         true,
         "/",
         {},
         BodyKind::text,
         std::string("token " + P + "GH"),
         RefusalReason::secret_not_bound,
         {},
         "",
         {},
         {}},
        {"a port in the binding: another port is another host",
         "ported.example.org",
         443,
         true,
         true,
         "/",
         {{"X-Key", P + "PORTED"}},
         BodyKind::none,
         {},
         RefusalReason::secret_not_bound,
         {},
         "",
         {},
         {}},
        {"a port in the binding: that port",
         "ported.example.org",
         8443,
         true,
         true,
         "/",
         {{"X-Key", P + "PORTED"}},
         BodyKind::none,
         {},
         {},
         {{"X-Key", "p0rt"}},
         "",
         {},
         {"PORTED"}},
        {"an unbound secret: header values on egress hosts, as always",
         "anything.test",
         443,
         true,
         true,
         "/",
         {{"X-Old", P + "OLD"}},
         BodyKind::none,
         {},
         {},
         {{"X-Old", "old-value"}},
         "",
         {},
         {"OLD"}},
        {"an unbound secret: left alone in the query, as always",
         "anything.test",
         443,
         true,
         true,
         "/?t=" + P + "OLD",
         {},
         BodyKind::none,
         {},
         {},
         {},
         "",
         {},
         {}},
        {"an unbound secret: left alone on a host outside egress (an MCP-only host)",
         "mcp.test",
         443,
         false,
         true,
         "/",
         {{"X-Old", P + "OLD"}},
         BodyKind::none,
         {},
         {},
         {},
         "",
         {},
         {}},
        {"a value on a plain-HTTP upstream is refused",
         "api.telegram.org",
         80,
         true,
         false,
         "/bot" + P + "TG/x",
         {},
         BodyKind::none,
         {},
         RefusalReason::secret_cleartext,
         {},
         "",
         {},
         {}},
        {"an undeclared placeholder (maximal munch) is left alone",
         "api.telegram.org",
         443,
         true,
         true,
         "/bot" + P + "TGX/x",
         {},
         BodyKind::none,
         {},
         {},
         {},
         "",
         {},
         {}},
    };
    for (const auto& row : rows) {
        CAPTURE(row.what);
        std::vector<RequestField> head;
        for (const auto& [name, value] : row.head)
            head.push_back({name, value});
        PlacementRequest request;
        request.host = row.host;
        request.port = row.port;
        request.in_egress = row.in_egress;
        request.upstream_tls = row.tls;
        request.target = row.target;
        request.head = head;
        request.body_kind = row.body_kind;
        request.body = row.body ? &*row.body : nullptr;
        const auto placed = place_secrets(request, secrets);
        if (row.refused) {
            REQUIRE(placed.refusal);
            CHECK(placed.refusal->reason == *row.refused);
            CHECK(!placed.changes());
            CHECK(placed.refusal->detail.find("real") == std::string::npos);
            continue;
        }
        REQUIRE(!placed.refusal);
        CHECK(placed.needs_body == row.needs_body);
        CHECK(placed.names == row.names);
        if (row.sent_head.empty())
            CHECK(!placed.head);
        else
            CHECK(placed.head == row.sent_head);
        CHECK(placed.target.value_or("") == row.sent_target);
        CHECK(placed.body == row.sent_body);
    }
}

TEST_CASE("placement: forms written for masking answers") {
    const std::string body = "{\"k\":\"" + P + "GH\"}";
    std::vector<Secret> json_secret = {bound("GH", "ghp_real\"1", {{"api.github.com", {}}},
                                             places({SecretPlace::body, SecretPlace::basic}))};
    PlacementRequest request;
    request.host = "api.github.com";
    request.port = 443;
    request.body_kind = BodyKind::json;
    request.body = &body;
    const auto placed = place_secrets(request, json_secret);
    REQUIRE(placed.written.size() == 1);
    CHECK(placed.written[0].real == "ghp_real\\\"1");
    CHECK(placed.written[0].shown == P + "GH");
}

TEST_CASE("body kinds from Content-Type and Content-Encoding") {
    using osf::secrets::body_kind;
    CHECK(body_kind("application/json", "") == BodyKind::json);
    CHECK(body_kind("Application/JSON; charset=utf-8", "") == BodyKind::json);
    CHECK(body_kind("application/x-www-form-urlencoded", "") == BodyKind::form);
    CHECK(body_kind("text/plain", "") == BodyKind::text);
    CHECK(body_kind("application/json", "gzip") == BodyKind::other);
    CHECK(body_kind("application/octet-stream", "") == BodyKind::other);
    CHECK(body_kind("multipart/form-data; boundary=x", "") == BodyKind::other);
    CHECK(body_kind("", "") == BodyKind::other);
}
