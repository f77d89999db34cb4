#include "commands/command_errors.hpp"
#include "kubernetes/upstream_ca_bundle.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <unistd.h>

using osf::kubernetes::read_upstream_ca_bundle;
using osf::kubernetes::upstream_ca_problem;

TEST_CASE("upstream CA bundle: certificates only, bounded") {
    const std::string cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    CHECK_FALSE(upstream_ca_problem(cert));
    CHECK(upstream_ca_problem("") == "holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    CHECK(upstream_ca_problem(cert + "-----BEGIN PRIVATE KEY-----\n") ==
          "holds a private key: a trust bundle holds certificates only");
    CHECK(upstream_ca_problem(cert + std::string(600 * 1024, 'x')) == "larger than 512 KiB");
}

TEST_CASE("upstream CA bundle: read from its path, or exit 2 naming it") {
    CHECK(read_upstream_ca_bundle(std::nullopt).empty());
    char path[] = "/tmp/osf-upstream-ca-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    const std::string cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    std::ofstream(path) << cert;
    CHECK(read_upstream_ca_bundle(std::string(path)) == cert);
    std::ofstream(path) << "plain text";
    CHECK_THROWS_AS(read_upstream_ca_bundle(std::string(path)), osf::commands::UsageError);
    std::remove(path);
    CHECK_THROWS_WITH(read_upstream_ca_bundle(std::string(path)),
                      std::string("OSF_UPSTREAM_CA_BUNDLE: cannot read ") + path +
                          ": No such file or directory");
}
