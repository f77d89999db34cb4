// Resolving secrets from environment variables and files at start.
#include "secrets/file_source.hpp"
#include "secrets/secret_loader.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <sys/stat.h>

using osf::SecretRef;
using osf::secrets::HttpGetReply;
using osf::secrets::HttpGetRequest;
using secrets_test::fake_env;
using secrets_test::ref;
using secrets_test::spec_with;
using secrets_test::TempDir;

namespace {

HttpGetReply no_network(const HttpGetRequest&) {
    FAIL("no OpenBao request expected");
    return {};
}

osf::secrets::SecretStore::Loaded load(const osf::Spec& spec,
                                       const osf::secrets::SourceEnvironment& env) {
    return osf::secrets::load_secrets(spec, env, no_network);
}

} // namespace

TEST_CASE("ref:env reads OSF_SECRET_<NAME>") {
    const auto loaded = load(spec_with({{"LINEAR", ref(SecretRef::Kind::Env, "LINEAR_TOKEN")}}),
                             fake_env({{"OSF_SECRET_LINEAR_TOKEN", "lin_api_value"}}));
    REQUIRE(loaded.error.empty());
    REQUIRE(loaded.store.secrets().size() == 1);
    CHECK(loaded.store.secrets()[0].name == "LINEAR");
    CHECK(loaded.store.secrets()[0].placeholder == "osf-secret-placeholder-LINEAR");
    CHECK(loaded.store.secrets()[0].value == "lin_api_value");
}

TEST_CASE("a missing variable names the secret, the reference and the variable") {
    const auto loaded = load(spec_with({{"LINEAR", ref(SecretRef::Kind::Env, "LINEAR_TOKEN")}}),
                             fake_env({{"LINEAR_TOKEN", "not-the-right-variable"}}));
    CHECK(loaded.error == "secret LINEAR (ref:env/LINEAR_TOKEN): the variable "
                          "OSF_SECRET_LINEAR_TOKEN is not set");
    CHECK(loaded.store.empty());
}

TEST_CASE("values that cannot go into a header are refused at start, without the value") {
    const std::string value = GENERATE(
        std::string("s3cr3t-one\nline2"), std::string("s3cr3t-two\r\nX-Evil: 1"),
        std::string("s3cr3t-nul\0byte", 15), std::string("s3cr3t-bell\x07"), std::string(""));
    const auto loaded = load(spec_with({{"TOKEN", ref(SecretRef::Kind::Env, "TOKEN")}}),
                             fake_env({{"OSF_SECRET_TOKEN", value}}));
    REQUIRE_FALSE(loaded.error.empty());
    CHECK(loaded.error.starts_with("secret TOKEN (ref:env/TOKEN): "));
    CHECK(loaded.error.find('\n') == std::string::npos);
    CHECK(loaded.error.find("s3cr3t") == std::string::npos);
}

TEST_CASE("a tab and non-ASCII bytes are allowed in values") {
    const auto loaded = load(spec_with({{"TOKEN", ref(SecretRef::Kind::Env, "TOKEN")}}),
                             fake_env({{"OSF_SECRET_TOKEN", "a\tb\xc3\xa4"}}));
    CHECK(loaded.error.empty());
}

TEST_CASE("ref:file reads the file in the secrets directory, dropping one newline") {
    TempDir dir;
    dir.write("plain", "value-1");
    dir.write("newline", "value-2\n");
    dir.write("crlf", "value-3\r\n");
    dir.write("two", "value-4\n\n");
    std::filesystem::create_symlink(dir.path() + "/plain", dir.path() + "/link");

    const auto loaded = load(spec_with({{"P", ref(SecretRef::Kind::File, "plain")},
                                        {"N", ref(SecretRef::Kind::File, "newline")},
                                        {"C", ref(SecretRef::Kind::File, "crlf")},
                                        {"L", ref(SecretRef::Kind::File, "link")}}),
                             fake_env({}, dir.path()));
    REQUIRE(loaded.error.empty());
    std::map<std::string, std::string> values;
    for (const auto& secret : loaded.store.secrets())
        values[secret.name] = secret.value;
    CHECK(values == std::map<std::string, std::string>{
                        {"P", "value-1"}, {"N", "value-2"}, {"C", "value-3"}, {"L", "value-1"}});

    // Only one newline goes: what is left still holds a line break, which is refused.
    const auto two =
        load(spec_with({{"T", ref(SecretRef::Kind::File, "two")}}), fake_env({}, dir.path()));
    CHECK(two.error.starts_with("secret T (ref:file/two): the value contains a line break"));
}

TEST_CASE("a file name with '/' or '..' is refused before anything is read") {
    using osf::secrets::file_name_problem;
    CHECK_FALSE(file_name_problem("token").has_value());
    CHECK_FALSE(file_name_problem(".hidden").has_value());
    CHECK_FALSE(file_name_problem("a.b").has_value());
    CHECK(file_name_problem("sub/token").has_value());
    CHECK(file_name_problem("/etc/passwd").has_value());
    CHECK(file_name_problem("..").has_value());
    CHECK(file_name_problem("a..b").has_value());
    CHECK(file_name_problem(".").has_value());
    CHECK(file_name_problem("").has_value());

    TempDir dir;
    std::filesystem::create_directories(dir.path() + "/inner");
    dir.write("inner/secret", "value");
    const auto loaded = load(spec_with({{"S", ref(SecretRef::Kind::File, "inner/secret")}}),
                             fake_env({}, dir.path() + "/inner/.."));
    CHECK(loaded.error == "secret S (ref:file/inner/secret): the file name must not contain '/' "
                          "(only files directly in the secrets directory can be used)");
}

TEST_CASE("a missing, unreadable or odd file is an error naming the secret and the file") {
    TempDir dir;
    std::filesystem::create_directories(dir.path() + "/adir");
    dir.write("big", std::string(osf::secrets::max_secret_file_size + 1, 'x'));

    auto error_for = [&](const std::string& name) {
        return load(spec_with({{"S", ref(SecretRef::Kind::File, name)}}), fake_env({}, dir.path()))
            .error;
    };
    CHECK(error_for("absent") == "secret S (ref:file/absent): the file " + dir.path() +
                                     "/absent does not exist (OSF_SECRETS_DIR is " + dir.path() +
                                     ")");
    CHECK(error_for("adir") ==
          "secret S (ref:file/adir): the file " + dir.path() + "/adir is not a regular file");
    CHECK(error_for("big").find("is larger than 65536 bytes") != std::string::npos);

    if (::geteuid() != 0) { // root reads anything
        dir.write("locked", "value");
        ::chmod((dir.path() + "/locked").c_str(), 0);
        CHECK(error_for("locked").find("Permission denied") != std::string::npos);
    }
}

TEST_CASE("the first problem in name order is reported; the values read never are") {
    TempDir dir;
    dir.write("good", "file-secret-value-123");
    const auto loaded = load(spec_with({{"A_FILE", ref(SecretRef::Kind::File, "good")},
                                        {"B_ENV", ref(SecretRef::Kind::Env, "B")},
                                        {"C_MISSING", ref(SecretRef::Kind::Env, "NOPE")}}),
                             fake_env({{"OSF_SECRET_B", "env-secret-value-456"}}, dir.path()));
    CHECK(loaded.error ==
          "secret C_MISSING (ref:env/NOPE): the variable OSF_SECRET_NOPE is not set");
    CHECK(loaded.error.find("file-secret-value-123") == std::string::npos);
    CHECK(loaded.error.find("env-secret-value-456") == std::string::npos);
}

TEST_CASE("a spec without secrets loads an empty store") {
    const auto loaded = load(spec_with({}), fake_env({}));
    CHECK(loaded.error.empty());
    CHECK(loaded.store.empty());
}

TEST_CASE("SourceEnvironment::from_process reads OSF_SECRETS_DIR") {
    ::setenv("OSF_SECRETS_DIR", "/tmp/somewhere", 1);
    ::setenv("OSF_SECRET_FROM_PROCESS_TEST", "v", 1);
    const auto env = osf::secrets::SourceEnvironment::from_process();
    CHECK(env.secrets_dir == "/tmp/somewhere");
    CHECK(env.getenv("OSF_SECRET_FROM_PROCESS_TEST") == std::optional<std::string>("v"));
    ::unsetenv("OSF_SECRETS_DIR");
    CHECK(osf::secrets::SourceEnvironment::from_process().secrets_dir == "/run/secrets");
}
