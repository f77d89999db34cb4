// The CA and its leaves as the openssl command-line tool sees them: the check
// a person would run by hand against the proxy's ca.crt.
#include "ca/certificate_authority.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <openssl/pem.h>
#include <sys/wait.h>
#include <unistd.h>

using osf::ca::CaOptions;
using osf::ca::CertificateAuthority;

namespace {

struct TempDir {
    std::filesystem::path path;
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "osf-ca-XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path = pattern;
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
};

void write(const std::filesystem::path& file, const std::string& text) {
    std::ofstream out(file);
    out << text;
}

std::string leaf_pem(X509* leaf) {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, leaf);
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    std::string pem(data, static_cast<std::size_t>(n));
    BIO_free(bio);
    return pem;
}

struct Run {
    int exit_code;
    std::string output;
};

// Arguments are fixed test strings and temp paths: no shell quoting needed.
Run run(const std::string& command) {
    Run result{-1, {}};
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return result;
    char buffer[512];
    while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe))
        result.output.append(buffer, n);
    int status = pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

} // namespace

TEST_CASE("openssl verify accepts a leaf for a permitted host and refuses others", "[ca][cli]") {
    CaOptions options;
    options.permitted_names = {"example.com", "10.1.2.3"};
    auto ca = CertificateAuthority::create(options);
    TempDir dir;
    write(dir.path / "ca.pem", ca->certificate_pem());

    auto verify = [&](const std::string& host, const std::string& flag) {
        auto leaf = ca->mint_leaf(host);
        write(dir.path / "leaf.pem", leaf_pem(leaf.certificate.get()));
        return run("openssl verify -purpose sslserver -CAfile " + (dir.path / "ca.pem").string() +
                   " " + flag + " " + host + " " + (dir.path / "leaf.pem").string());
    };

    auto ok = verify("api.example.com", "-verify_hostname");
    INFO(ok.output);
    CHECK(ok.exit_code == 0);
    CHECK(ok.output.find(": OK") != std::string::npos);

    auto ip = verify("10.1.2.3", "-verify_ip");
    INFO(ip.output);
    CHECK(ip.exit_code == 0);

    auto outside = verify("evil.org", "-verify_hostname");
    INFO(outside.output);
    CHECK(outside.exit_code != 0);
    CHECK(outside.output.find("permitted subtree violation") != std::string::npos);

    auto other_ip = verify("10.1.2.4", "-verify_ip");
    INFO(other_ip.output);
    CHECK(other_ip.exit_code != 0);
    CHECK(other_ip.output.find("permitted subtree violation") != std::string::npos);
}

TEST_CASE("openssl x509 reads the CA as a constrained CA", "[ca][cli]") {
    CaOptions options;
    options.permitted_names = {"example.com"};
    auto ca = CertificateAuthority::create(options);
    TempDir dir;
    write(dir.path / "ca.pem", ca->certificate_pem());
    auto text = run("openssl x509 -noout -text -in " + (dir.path / "ca.pem").string());
    INFO(text.output);
    REQUIRE(text.exit_code == 0);
    CHECK(text.output.find("X509v3 Name Constraints: critical") != std::string::npos);
    CHECK(text.output.find("DNS:example.com") != std::string::npos);
    CHECK(text.output.find("IP:0.0.0.0/255.255.255.255") != std::string::npos);
    CHECK(text.output.find("CA:TRUE, pathlen:0") != std::string::npos);
}
