// The proxy's CAs: a name outside the start CA's constraints gets a CA of its
// own, and a leaf always comes from the first CA that may sign for its host.
#include "ca/issuers.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <openssl/x509.h>

using namespace osf::ca;

namespace {

// The cached value records which CA signed the leaf.
struct Signed {
    X509* issuer;
};

Issuers make_issuers(std::vector<std::string> permitted) {
    CaOptions options;
    options.permitted_names = permitted;
    return Issuers(CertificateAuthority::create(options), permitted, 16,
                   [](const Leaf&, X509* ca) { return std::make_shared<Signed>(Signed{ca}); });
}

X509* issuer_of(const Issuers& issuers, std::string_view host) {
    const auto value = issuers.get(host);
    return value ? std::static_pointer_cast<Signed>(value)->issuer : nullptr;
}

} // namespace

TEST_CASE("may_sign_for: a name, its subdomains, an address only as itself") {
    const std::vector<std::string> names = {"example.com", "10.0.0.1"};
    CHECK(may_sign_for(names, "example.com"));
    CHECK(may_sign_for(names, "api.example.com"));
    CHECK_FALSE(may_sign_for(names, "badexample.com"));
    CHECK_FALSE(may_sign_for(names, "example.com.evil.test"));
    CHECK(may_sign_for(names, "10.0.0.1"));
    CHECK_FALSE(may_sign_for(names, "10.0.0.2"));
    CHECK(may_sign_for({}, "anything.test")); // no constraints at all
}

TEST_CASE("a new name gets a CA of its own; earlier hosts keep theirs") {
    auto issuers = make_issuers({"api.example.com"});
    X509* first = issuer_of(issuers, "api.example.com");
    REQUIRE(first != nullptr);
    CHECK(issuer_of(issuers, "registry.npmjs.org") == nullptr);
    CHECK(issuers.uncovered({"api.example.com", "registry.npmjs.org"}) ==
          std::vector<std::string>{"registry.npmjs.org"});

    issuers.add({"registry.npmjs.org"});
    CHECK(issuers.count() == 2);
    CHECK(issuers.uncovered({"api.example.com", "registry.npmjs.org"}).empty());
    X509* second = issuer_of(issuers, "registry.npmjs.org");
    REQUIRE(second != nullptr);
    CHECK(second != first);
    CHECK(issuer_of(issuers, "api.example.com") == first);
    const std::string bundle = issuers.bundle_pem();
    CHECK(bundle.find(issuers.first().certificate_pem()) == 0); // the start CA first
    std::size_t certificates = 0;
    for (auto at = bundle.find("BEGIN CERTIFICATE"); at != std::string::npos;
         at = bundle.find("BEGIN CERTIFICATE", at + 1))
        ++certificates;
    CHECK(certificates == 2);
}
