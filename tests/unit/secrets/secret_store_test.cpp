// Placeholders in header values become real values; nothing else changes.
#include "secrets/basic_auth.hpp"
#include "secrets/secret_store.hpp"

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <catch2/catch.hpp>

using osf::secrets::Secret;
using osf::secrets::SecretStore;
namespace http = boost::beast::http;

namespace {

Secret secret(const std::string& name, const std::string& value) {
    return Secret{name, "osf-secret-placeholder-" + name, value, {}, {}};
}

SecretStore store() {
    return SecretStore({secret("A", "real-a"), secret("AB", "real-ab"), secret("TOKEN", "tok-123"),
                        secret("PASS", "p@ss:w0rd")});
}

std::vector<std::pair<std::string, std::string>> all(const http::fields& headers) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& field : headers)
        out.emplace_back(std::string(field.name_string()), std::string(field.value()));
    return out;
}

} // namespace

TEST_CASE("several placeholders in one header value are all replaced") {
    std::vector<std::string> used;
    const auto out = store().substitute_value(
        "x osf-secret-placeholder-TOKEN,osf-secret-placeholder-A;osf-secret-placeholder-TOKEN",
        used);
    CHECK(out == "x tok-123,real-a;tok-123");
}

TEST_CASE("placeholders in several headers are replaced, names and order kept") {
    http::fields headers;
    headers.insert("Host", "api.example.com");
    headers.insert("X-Api-Key", "osf-secret-placeholder-TOKEN");
    headers.insert("Cookie", "a=osf-secret-placeholder-A");
    headers.insert("Cookie", "b=plain");
    headers.insert("X-osf-secret-placeholder-TOKEN", "name is not touched");
    headers.insert("Authorization", "Bearer osf-secret-placeholder-AB");

    const auto used = store().substitute(headers);

    CHECK(used == std::vector<std::string>{"A", "AB", "TOKEN"});
    CHECK(all(headers) == std::vector<std::pair<std::string, std::string>>{
                              {"Host", "api.example.com"},
                              {"X-Api-Key", "tok-123"},
                              {"Cookie", "a=real-a"},
                              {"Cookie", "b=plain"},
                              {"X-osf-secret-placeholder-TOKEN", "name is not touched"},
                              {"Authorization", "Bearer real-ab"},
                          });
}

TEST_CASE("names used are sorted and unique") {
    http::fields headers;
    headers.insert("X-1", "osf-secret-placeholder-TOKEN osf-secret-placeholder-A");
    headers.insert("X-2", "osf-secret-placeholder-TOKEN");
    CHECK(store().substitute(headers) == std::vector<std::string>{"A", "TOKEN"});
}

TEST_CASE("headers without placeholders are left exactly as they were") {
    http::fields headers;
    headers.insert("Accept", "*/*");
    headers.insert("Authorization", "Basic dXNlcjpwYXNz");
    CHECK(store().substitute(headers).empty());
    CHECK(all(headers) == std::vector<std::pair<std::string, std::string>>{
                              {"Accept", "*/*"}, {"Authorization", "Basic dXNlcjpwYXNz"}});
}

TEST_CASE("a name that is a prefix of another does not eat it") {
    std::vector<std::string> used;
    CHECK(store().substitute_value("osf-secret-placeholder-AB osf-secret-placeholder-A", used) ==
          "real-ab real-a");
    std::sort(used.begin(), used.end());
    CHECK(used == std::vector<std::string>{"A", "AB"});
}

TEST_CASE("a placeholder for an undeclared name is left alone") {
    std::vector<std::string> used;
    // ABC is not declared even though A and AB are.
    CHECK(store().substitute_value("osf-secret-placeholder-ABC", used) ==
          "osf-secret-placeholder-ABC");
    CHECK(store().substitute_value("osf-secret-placeholder-OTHER", used) ==
          "osf-secret-placeholder-OTHER");
    CHECK(used.empty());
}

TEST_CASE("a placeholder ends at the first character that cannot be in a name") {
    std::vector<std::string> used;
    CHECK(store().substitute_value("osf-secret-placeholder-TOKEN.x", used) == "tok-123.x");
    CHECK(store().substitute_value("osf-secret-placeholder-TOKENx", used) == "tok-123x");
    CHECK(store().substitute_value("OSF-SECRET-PLACEHOLDER-TOKEN", used) ==
          "OSF-SECRET-PLACEHOLDER-TOKEN");
}

TEST_CASE("a real value that looks like a placeholder is not substituted again") {
    SecretStore tricky({secret("X", "osf-secret-placeholder-Y"), secret("Y", "real-y")});
    std::vector<std::string> used;
    CHECK(tricky.substitute_value("osf-secret-placeholder-X", used) == "osf-secret-placeholder-Y");
    CHECK(used == std::vector<std::string>{"X"});
}

TEST_CASE("Basic credentials are decoded, substituted and re-encoded") {
    using osf::secrets::base64_decode;
    using osf::secrets::base64_encode;
    http::fields headers;
    headers.insert("Authorization", "Basic " + base64_encode("osf-secret-placeholder-TOKEN:"
                                                             "osf-secret-placeholder-PASS"));
    CHECK(store().substitute(headers) == std::vector<std::string>{"PASS", "TOKEN"});
    CHECK(headers["Authorization"] == "Basic " + base64_encode("tok-123:p@ss:w0rd"));
}

TEST_CASE("the Basic scheme is matched in any case and kept as written") {
    using osf::secrets::base64_encode;
    std::vector<std::string> used;
    const auto encoded = base64_encode("git:osf-secret-placeholder-TOKEN");
    CHECK(store().substitute_value("bAsIc " + encoded, used) ==
          "bAsIc " + base64_encode("git:tok-123"));
    CHECK(store().substitute_value("Basic   " + encoded, used) ==
          "Basic   " + base64_encode("git:tok-123"));
}

TEST_CASE("Basic credentials without placeholders or not in base64 are not touched") {
    std::vector<std::string> used;
    CHECK(store().substitute_value("Basic dXNlcjpwYXNz", used) == "Basic dXNlcjpwYXNz");
    // Not base64: treated as text, so a literal placeholder is still replaced.
    CHECK(store().substitute_value("Basic osf-secret-placeholder-TOKEN", used) == "Basic tok-123");
    CHECK(used == std::vector<std::string>{"TOKEN"});
}

TEST_CASE("other Authorization schemes are substituted as text, never decoded") {
    using osf::secrets::base64_encode;
    std::vector<std::string> used;
    CHECK(store().substitute_value("Bearer osf-secret-placeholder-TOKEN", used) ==
          "Bearer tok-123");
    const auto encoded = "Digest " + base64_encode("osf-secret-placeholder-TOKEN");
    CHECK(store().substitute_value(encoded, used) == encoded);
}

TEST_CASE("base64 round trips and rejects what is not base64") {
    using osf::secrets::base64_decode;
    using osf::secrets::base64_encode;
    for (std::string text : {"", "a", "ab", "abc", "abcd", "user:p\xc3\xa4ss\x01"})
        CHECK(base64_decode(base64_encode(text)) == text);
    CHECK(base64_encode("user:pass") == "dXNlcjpwYXNz");
    CHECK(base64_decode("dXNlcjpwYXM") == std::string("user:pas")); // padding may be omitted
    CHECK_FALSE(base64_decode("dXNl*jpw").has_value());
    CHECK_FALSE(base64_decode("dXNlc").has_value());
    CHECK_FALSE(base64_decode("dXNl=").has_value());
}

TEST_CASE("redact hides every real value, longest first") {
    SecretStore secrets({secret("SHORT", "abc"), secret("LONG", "abcdef")});
    CHECK(secrets.redact("x abcdef y abc z") == "x [redacted] y [redacted] z");
    CHECK(secrets.redact("nothing here") == "nothing here");
    CHECK(SecretStore().redact("abc") == "abc");
}

TEST_CASE("an empty store changes nothing") {
    http::fields headers;
    headers.insert("X", "osf-secret-placeholder-TOKEN");
    CHECK(SecretStore().substitute(headers).empty());
    CHECK(headers["X"] == "osf-secret-placeholder-TOKEN");
}

TEST_CASE("real values echoed in response headers go back to their placeholders") {
    http::fields response;
    response.insert("Content-Length", "12");
    response.insert("X-Echo-Authorization", "Bearer tok-123");
    response.insert("Set-Cookie", "s=tok-123; p=p@ss:w0rd");
    response.insert("Location", "https://x.example/?k=real-ab");
    response.insert("Content-Type", "application/json");

    const auto found = store().restore_placeholders(response);

    CHECK(found == std::vector<std::string>{"AB", "PASS", "TOKEN"});
    CHECK(all(response) ==
          std::vector<std::pair<std::string, std::string>>{
              {"Content-Length", "12"},
              {"X-Echo-Authorization", "Bearer osf-secret-placeholder-TOKEN"},
              {"Set-Cookie", "s=osf-secret-placeholder-TOKEN; p=osf-secret-placeholder-PASS"},
              {"Location", "https://x.example/?k=osf-secret-placeholder-AB"},
              {"Content-Type", "application/json"},
          });
}

TEST_CASE("framing headers are never rewritten, whatever the values") {
    SecretStore digits({secret("PIN", "12")});
    http::fields response;
    response.insert("Content-Length", "12");
    response.insert("X-Pin", "12");
    CHECK(digits.restore_placeholders(response) == std::vector<std::string>{"PIN"});
    CHECK(response["Content-Length"] == "12");
    CHECK(response["X-Pin"] == "osf-secret-placeholder-PIN");
}

TEST_CASE("the start line survives a rewrite of the fields") {
    http::request<http::empty_body> request{http::verb::post, "/path?q=1", 11};
    request.set(http::field::authorization, "Bearer osf-secret-placeholder-TOKEN");
    CHECK(store().substitute(request.base()) == std::vector<std::string>{"TOKEN"});
    CHECK(request.method() == http::verb::post);
    CHECK(request.target() == "/path?q=1");
    CHECK(request[http::field::authorization] == "Bearer tok-123");

    http::response<http::empty_body> response{http::status::created, 11};
    response.set("X-Echo", "tok-123");
    store().restore_placeholders(response.base());
    CHECK(response.result() == http::status::created);
    CHECK(response["X-Echo"] == "osf-secret-placeholder-TOKEN");
}

TEST_CASE("every form the proxy wrote is masked in an answer head") {
    http::request<http::empty_body> request{http::verb::get, "/", 11};
    const auto sent = osf::secrets::base64_encode("user:osf-secret-placeholder-PASS");
    request.set(http::field::authorization, "Basic " + sent);
    std::vector<osf::secrets::EchoForm> produced;
    CHECK(store().substitute(request.base(), &produced) == std::vector<std::string>{"PASS"});
    const auto built = osf::secrets::base64_encode("user:p@ss:w0rd");
    CHECK(request[http::field::authorization] == "Basic " + built);
    REQUIRE(produced.size() == 1);
    CHECK(produced[0].real == built);
    CHECK(produced[0].shown == sent);

    http::response<http::empty_body> response{http::status::unauthorized, 11};
    response.reason("bad tok-123 here");
    response.set("X-Echo", "Basic " + built);
    response.set("WWW-Authenticate", "Basic realm=\"" + built + "\"");
    response.set("Location", "/?p=p%40ss%3Aw0rd"); // the percent-encoded value
    response.set("Content-Length", "0");
    CHECK(store().mask_answer_head(response.base(), produced));
    CHECK(response.reason() == "bad osf-secret-placeholder-TOKEN here");
    CHECK(response["X-Echo"] == "Basic " + sent);
    CHECK(response["WWW-Authenticate"] == "Basic realm=\"" + sent + "\"");
    CHECK(response["Location"] == "/?p=osf-secret-placeholder-PASS");
    CHECK(response.result() == http::status::unauthorized);
}

TEST_CASE("a secret in an answer's field name cannot be masked") {
    for (const std::string name : {"X-tok-123", "X-TOK-123-Y", "real-a"}) {
        INFO(name);
        http::response<http::empty_body> response{http::status::ok, 11};
        response.set(name, "1");
        CHECK_FALSE(store().mask_answer_head(response.base(), {}));
    }
    http::response<http::empty_body> clean{http::status::ok, 11};
    clean.set("X-Other", "nothing secret");
    CHECK(store().mask_answer_head(clean.base(), {}));
    CHECK(clean["X-Other"] == "nothing secret");
}

TEST_CASE("has_placeholder finds what substitute would replace") {
    http::fields plain;
    plain.insert("X", "osf-secret-placeholder-UNDECLARED");
    CHECK_FALSE(store().has_placeholder(plain));
    http::fields raw;
    raw.insert("X", "a osf-secret-placeholder-TOKEN");
    CHECK(store().has_placeholder(raw));
    http::fields basic;
    basic.insert("Authorization",
                 "Basic " + osf::secrets::base64_encode("u:osf-secret-placeholder-A"));
    CHECK(store().has_placeholder(basic));
}
