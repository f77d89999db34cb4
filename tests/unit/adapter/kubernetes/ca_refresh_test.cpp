#include "kubernetes/ca_refresh.hpp"

#include <catch2/catch.hpp>

using osf::kubernetes::adds_certificate;

namespace {

std::string pem(const std::string& body) {
    return "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n";
}

} // namespace

TEST_CASE("ca refresh: only a bundle with a certificate the sandbox lacks is waited for") {
    CHECK(adds_certificate("", pem("A")));
    CHECK(adds_certificate(pem("A"), pem("A") + pem("B")));       // allow: a CA for the new host
    CHECK_FALSE(adds_certificate(pem("A") + pem("B"), pem("A"))); // revoke: one CA fewer
    CHECK_FALSE(adds_certificate(pem("A") + pem("B"), pem("B") + pem("A"))); // order
    CHECK_FALSE(adds_certificate(pem("A"), pem("A")));
    CHECK(adds_certificate(pem("A"), pem("C")));
    CHECK_FALSE(adds_certificate(pem("A"), "no certificate at all"));
}
