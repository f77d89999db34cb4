// The forms of secrets written for a sandbox are kept for its life (an echo in
// any later answer is masked) and within their bound.
#include "secrets/basic_auth.hpp"
#include "secrets/secret_store.hpp"
#include "secrets/written_forms.hpp"

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <catch2/catch.hpp>

using osf::secrets::EchoForm;
using osf::secrets::Secret;
using osf::secrets::SecretStore;
using osf::secrets::WrittenForms;
namespace http = boost::beast::http;

namespace {

SecretStore pass_store() {
    return SecretStore({Secret{"PASS", "osf-secret-placeholder-PASS", "p4ssw0rd-real", {}, {}}});
}

// What one request with `Basic base64(user:placeholder)` writes.
std::vector<EchoForm> basic_request(const SecretStore& s, const std::string& user) {
    http::request<http::empty_body> request{http::verb::get, "/", 11};
    request.set(http::field::authorization,
                "Basic " + osf::secrets::base64_encode(user + ":osf-secret-placeholder-PASS"));
    std::vector<EchoForm> produced;
    s.substitute(request.base(), &produced);
    return produced;
}

} // namespace

TEST_CASE("a Basic token written for one request is masked in a later answer") {
    const SecretStore s = pass_store();
    WrittenForms forms(s);
    CHECK(forms.size() == s.value_forms().size());
    const auto written = basic_request(s, "git");
    REQUIRE(written.size() == 1);
    CHECK(forms.remember(written));
    CHECK(forms.remember(written)); // known already: nothing added
    CHECK(forms.size() == s.value_forms().size() + 1);

    // The later answer: its own request wrote nothing.
    http::response<http::empty_body> answer{http::status::ok, 11};
    answer.set("X-Echo", "Basic " + osf::secrets::base64_encode("git:p4ssw0rd-real"));
    answer.set("X-Raw", "p4ssw0rd-real");
    CHECK(forms.mask_answer_head(answer.base()));
    CHECK(answer["X-Echo"] ==
          "Basic " + osf::secrets::base64_encode("git:osf-secret-placeholder-PASS"));
    CHECK(answer["X-Raw"] == "osf-secret-placeholder-PASS");

    // The store alone (the request's own forms only) would have let it through.
    http::response<http::empty_body> unmasked{http::status::ok, 11};
    unmasked.set("X-Echo", "Basic " + osf::secrets::base64_encode("git:p4ssw0rd-real"));
    CHECK(s.mask_answer_head(unmasked.base(), {}));
    CHECK(unmasked["X-Echo"] == "Basic " + osf::secrets::base64_encode("git:p4ssw0rd-real"));
}

TEST_CASE("past its bound no new form is taken, and the known ones stay") {
    const SecretStore s = pass_store();
    WrittenForms::Limits limits;
    limits.max_forms = s.value_forms().size() + 3;
    WrittenForms forms(s, limits);
    for (int i = 0; i < 3; ++i)
        CHECK(forms.remember(basic_request(s, "user" + std::to_string(i))));
    CHECK_FALSE(forms.remember(basic_request(s, "user-new")));
    CHECK(forms.remember(basic_request(s, "user1"))); // known: still goes
    CHECK(forms.size() == limits.max_forms);

    WrittenForms::Limits tight;
    tight.max_bytes = 1; // below even the value forms: every new form is refused
    WrittenForms small(s, tight);
    CHECK_FALSE(small.remember(basic_request(s, "u")));
    CHECK(small.remember({}));
}
